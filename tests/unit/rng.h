/* SPDX-License-Identifier: GPL-2.0 */
/* A reproducible xorshift64 for test data: each binary sets its own seed. */
#ifndef RSTATLAT_TEST_RNG_H
#define RSTATLAT_TEST_RNG_H

#include <stdint.h>

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static inline void rng_seed(uint64_t seed)
{
	rng_state = seed;
}

static inline uint64_t xorshift(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RSTATLAT_CLOCK_H
#define RSTATLAT_CLOCK_H

#include <stdint.h>
#include <time.h>

/* clk's time in ns: CLOCK_MONOTONIC is bpf_ktime_get_ns()'s clock. */
static inline uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif

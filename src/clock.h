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

/* A time in ns as a timespec: what pthread_cond_timedwait and clock_nanosleep take. */
static inline struct timespec ns_timespec(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000),
				  .tv_nsec = (long)(ns % 1000000000) };
}

#endif

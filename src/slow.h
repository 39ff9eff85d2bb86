/* SPDX-License-Identifier: GPL-2.0 */
/* -t reports: each hold or wait over the threshold, as it happens. */
#ifndef RSTATLAT_SLOW_H
#define RSTATLAT_SLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct collector;
struct ksyms;

struct slow_ctx {
	FILE *out;
	bool json;
	uint64_t threshold_ns;
	int64_t mono_to_real_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	struct collector *collector;
	struct ksyms *ksyms;
};

/* ring_buffer_sample_fn */
int slow_handle(void *ctx, void *data, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Slow events (-t): each hold, wait, irqs-off interval or late tick over the threshold. */
#ifndef RSTATLAT_SLOW_H
#define RSTATLAT_SLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct cg_table;
struct collector;
struct ksyms;

struct slow_ctx {
	FILE *out;
	bool json;
	uint64_t threshold_ns;
	int64_t mono_to_real_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	struct collector *collector;
	struct ksyms *ksyms;
	struct cg_table *cg;	/* the interrupted task's cgroup, for late ticks */
	bool cgroup_filter;	/* -c: late ticks belong to no flushed cgroup, skip them */
};

/* ring_buffer_sample_fn */
int slow_handle(void *ctx, void *data, size_t len);

#endif

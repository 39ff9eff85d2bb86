/* SPDX-License-Identifier: GPL-2.0 */
/* Slow events (-t): each hold, wait, irqs-off interval or late tick over the threshold. */
#ifndef RSTATLAT_SLOW_H
#define RSTATLAT_SLOW_H

#include <errno.h>
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
	uint64_t until_ns;	/* CLOCK_MONOTONIC: stop there (0: never), see slow_handle */
	bool counting;		/* the end's backlog: counted in unprinted, not printed */
	uint64_t unprinted;
};

/*
 * ring_buffer_sample_fn. Returns SLOW_PAUSED, which stops libbpf's
 * consumption, once until_ns has passed: events coming faster than they
 * are printed would otherwise keep the consumer in one call for as long
 * as they come, and the maps unread meanwhile.
 */
#define SLOW_PAUSED (-EAGAIN)
int slow_handle(void *ctx, void *data, size_t len);

#endif

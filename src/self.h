/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rstatlat's own costs: the kernel memory of its maps, its CPU time, and
 * the run time of its BPF programs (kernel.bpf_stats_enabled).
 */
#ifndef RSTATLAT_SELF_H
#define RSTATLAT_SELF_H

#include <stdio.h>
#include "report.h"

struct bpf_object;

struct self_meter {
	struct bpf_object *obj;
	uint64_t map_bytes;
	uint64_t cpu_user_ns, cpu_system_ns;	/* at the start of the open window */
	uint64_t bpf_ns, bpf_runs;
	uint64_t start_user_ns, start_system_ns, start_bpf_ns, start_bpf_runs;
};

/*
 * Kernel memory of the object's created maps, from each map's fdinfo
 * ("memlock", what bpftool shows). With list, one line per map to it.
 */
uint64_t self_map_bytes(struct bpf_object *obj, FILE *list);

/* One map's kernel memory from its fdinfo ("memlock"); 0 where unknown. */
uint64_t self_map_memlock(int fd);

/* What the kernel counts of every loaded program of the object, summed. */
struct prog_totals {
	uint64_t run_ns, runs;	/* kernel.bpf_stats_enabled only */
	uint64_t skipped;	/* recursion_misses (5.12+): runs not entered */
};

/*
 * Asked through the program fds, not /proc/self/fdinfo, which a process
 * that dropped to another user can no longer read.
 */
void self_prog_totals(struct bpf_object *obj, struct prog_totals *t);

/* Starts measuring once the object is loaded. */
void self_start(struct self_meter *m, struct bpf_object *obj);

/*
 * Fills out with the costs of the window since the previous call (an
 * interval), or since self_start (the whole run).
 */
void self_window(struct self_meter *m, struct self_costs *out, bool whole_run);

#endif

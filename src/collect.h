/* SPDX-License-Identifier: GPL-2.0 */
/* BPF maps -> report. Knows maps, not output formats. */
#ifndef RSTATLAT_COLLECT_H
#define RSTATLAT_COLLECT_H

#include "cgroup.h"
#include "report.h"

struct rstatlat_bpf;
struct collector;

struct collector *collector_new(struct rstatlat_bpf *skel, struct cg_table *cg,
				const struct cg_filter *filter, bool per_process,
				int ncpus, unsigned int max_slots);
void collector_free(struct collector *c);

/*
 * Reads every slot once. Fills *interval with what happened since the
 * previous read and *total with everything since load; either may be NULL.
 * Returns 0 or -errno.
 */
int collector_read(struct collector *c, struct report *interval, struct report *total);

/* Whether the per-CPU lock's programs are attached (its figures are read). */
void collector_set_cpu_lock(struct collector *c, bool attached);

/*
 * Where irqs-off figures come from: trace (per cgroup from BPF, "other"
 * system-wide), lock (each row's holds), sample (late ticks).
 */
void collector_set_irqoff(struct collector *c, bool trace, bool lock, bool sample,
			  const char *source);

/* The display path of a slot, reading its metadata if not seen yet. */
const char *collector_slot_path(struct collector *c, unsigned int slot);
/* False if the slot's cgroup is outside the -c subtree. */
bool collector_slot_wanted(struct collector *c, unsigned int slot);

#endif

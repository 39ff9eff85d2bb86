/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers, decided from its BTF (tracepoint
 * typedefs and their prototypes, functions) and from what it lets us
 * attach, never from its version: the only place that knows kernel
 * differences.
 */
#ifndef RSTATLAT_PROBE_H
#define RSTATLAT_PROBE_H

#include <stdbool.h>
#include <stdio.h>
#include "rstatlat.h"

enum point_kind { POINT_TRACEPOINT, POINT_FUNCTION };

enum point_role {
	ROLE_CONTENDED,		/* global rstat lock tracepoints */
	ROLE_LOCKED,
	ROLE_UNLOCK,
	ROLE_CPU_LOCK,		/* per-CPU lock tracepoints (6.10-6.16) */
	ROLE_IRQS,		/* preemptirq: reported, not used yet */
	ROLE_FLUSH_LOCKED,	/* fallback: runs with the lock held */
	ROLE_FLUSH_OUTER,	/* fallback: a flush call that takes the lock */
};

struct attach_point {
	const char *name;	/* tracepoint event or kernel function */
	enum point_kind kind;
	enum point_role role;
	const char *prog;	/* tracepoint: its program; function: program suffix */
	bool present;
	bool chosen;
	char why[160];
};

/* What the user asked for with --source. */
enum source_pref { PREF_AUTO, PREF_TRACEPOINT, PREF_FENTRY, PREF_KPROBE };

/* ... and with --irqoff. */
enum irqoff_pref { IRQOFF_AUTO, IRQOFF_TRACE, IRQOFF_LOCK, IRQOFF_SAMPLE, IRQOFF_OFF };

struct attach_plan {
	struct attach_point *points;
	int n;
	bool usable;
	enum rsl_source source;
	const char *source_name;	/* "tracepoint", "fentry" or "kprobe" */
	/* tracepoint argument positions; cpu -1 when the events lack it */
	int arg_cgrp, arg_cpu, arg_contended;
	/* where irqs-off figures come from */
	bool irqoff_trace;	/* preemptirq tracepoints, per cgroup and "other" */
	bool irqoff_lock;	/* the holds stand for them, per cgroup */
	bool irqoff_sample;	/* late cpu-clock ticks, system-wide */
	const char *irqoff_source;	/* "trace", "lock", "sample", "lock+sample", "off" */
	char missing[256];	/* one line for the user when !usable */
};

/*
 * Probes btf_path (NULL: the running kernel's) and, when privileged and a
 * fallback is considered, whether fentry and kprobes attach. Returns 0 (see
 * plan->usable), or -1 when BTF cannot be read.
 */
int probe_kernel(struct attach_plan *plan, const char *btf_path, enum source_pref pref,
		 enum irqoff_pref irqoff, bool privileged);
int source_pref_parse(const char *s, enum source_pref *pref);
int irqoff_pref_parse(const char *s, enum irqoff_pref *pref);
void probe_print(FILE *f, const struct attach_plan *plan);
/* The BPF programs a chosen point needs: up to two names, NULL-terminated. */
void probe_programs(const struct attach_plan *plan, const struct attach_point *pt,
		    char names[2][64]);

#endif

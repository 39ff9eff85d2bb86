/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers, decided from its BTF (tracepoint
 * typedefs and their prototypes, functions) and from what it lets us
 * attach, never from its version: the only place that knows which
 * attach points a kernel has and where their arguments are. (Differences
 * in kernel structures are CO-RE's, in src/bpf/record.bpf.h: kernfs_node's
 * parent before 6.15; how a flush takes the lock is read from the events
 * themselves, see flush_account.)
 */
#ifndef RSTATLAT_PROBE_H
#define RSTATLAT_PROBE_H

#include <stdbool.h>
#include <stdio.h>
#include "report.h"
#include "rstatlat.h"

struct bpf_object;
struct bpf_program;

enum point_kind { POINT_TRACEPOINT, POINT_FUNCTION };

enum point_role {
	ROLE_CONTENDED,		/* global rstat lock tracepoints */
	ROLE_LOCKED,
	ROLE_UNLOCK,
	ROLE_CPU_LOCK,		/* per-CPU lock tracepoints (6.10-6.16) */
	ROLE_IRQS,		/* preemptirq: --irqoff trace */
	ROLE_FLUSH_LOCKED,	/* fallback: runs with the lock held */
	ROLE_FLUSH_OUTER,	/* fallback: a flush call that takes the lock */
	ROLE_IRQ_TIME,		/* flush parts: irq and softirq entry/exit, in pairs */
	ROLE_SWITCH,		/* flush parts: sched_switch, flushers off CPU */
	ROLE_MEMCG,		/* memcg:memcg_flush_stats, memcg flush decisions */
	ROLE_LOCK_SCOPE,	/* 6.16+: functions that name the lock (fentry, lock_rows) */
	ROLE_CGROUP_GONE,	/* cgroup:cgroup_rmdir: removed cgroups, not polled */
};

/*
 * Where a tracepoint keeps each argument, by type; -1: it has none. type:
 * a const char * (the lock type of an rwlock, as proposed upstream), which
 * rows then carry (plan.lock_types).
 */
struct tp_args {
	int cgrp, cpu, contended, type;
};

/* The number of entries in the probe table (probe.c). */
#define PROBE_NPOINTS 35

struct attach_point {
	const char *name;	/* tracepoint event or kernel function */
	enum point_kind kind;
	enum point_role role;
	bool present;
	bool chosen;
	struct tp_args args;	/* tracepoints: as read from BTF; cgrp -1: unusable */
	char why[160];
};

/* What the user asked for with --source. */
enum source_pref { PREF_AUTO, PREF_TRACEPOINT, PREF_FENTRY, PREF_KPROBE };

/* ... with --flush-parts (and --flush, which asks for timed parts where there are any). */
enum parts_pref { PARTS_KERNEL, PARTS_TIMED, PARTS_TIMED_WHERE_PRESENT, PARTS_OFF };

/* ... and with --irqoff. */
enum irqoff_pref { IRQOFF_AUTO, IRQOFF_TRACE, IRQOFF_LOCK, IRQOFF_SAMPLE, IRQOFF_OFF,
		   IRQOFF_LOCK_SAMPLE };

/* Whether the kernel loads what the BPF programs need (probe.c, check_bpf_features). */
enum bpf_features { FEATURES_UNCHECKED, FEATURES_YES, FEATURES_NO };

/* The probe's answer; it owns its copy of the table. */
struct attach_plan {
	struct attach_point points[PROBE_NPOINTS];
	int n;
	bool usable;
	enum rsl_source source;
	const char *source_name;	/* "tracepoint", "fentry" or "kprobe" */
	/* the global lock's tracepoint arguments, as located in BTF */
	struct tp_args args;
	/* the per-CPU lock's (when chosen): only contended is read */
	struct tp_args cpu_lock_args;
	/* where irqs-off figures come from */
	bool irqoff_trace;	/* preemptirq tracepoints, per cgroup and "other" */
	bool irqoff_lock;	/* the holds stand for them, per cgroup */
	bool irqoff_sample;	/* late cpu-clock ticks, system-wide */
	/*
	 * spin_lock_irq disables interrupts, so a hold is an irqs-off interval:
	 * false on PREEMPT_RT, where spinlock_t is an rt_mutex (from BTF)
	 */
	bool holds_irqs_off;
	const char *irqoff_source;	/* "trace", "lock", "sample", "lock+sample", "off" */
	bool flush_parts;	/* flush parts measured (parts_from) */
	enum parts_source parts_from;	/* kernel, or timed: irq and sched_switch attached */
	unsigned int parts_measured;	/* 1 << PART_*: the rest of the wall time is in other */
	bool flush_causes;	/* a flush's stack can be taken (tracepoints) */
	bool memcg_decisions;	/* memcg:memcg_flush_stats attached */
	bool cgroups_gone;	/* cgroup:cgroup_rmdir attached: removals not polled */
	char parts_why[128];	/* why flush parts are off, when they are */
	char causes_why[128];	/* ... and flush causes */
	enum lock_scope locks;	/* report.h; why in locks_why (choose_locks) */
	bool lock_rows;	/* holds told apart by lock: the lock scope points attached */
	bool lock_types;	/* ... and by the tracepoints' lock type argument (args.type) */
	char locks_why[320];	/* --probe's "locks:" line */
	/* LOCK_* (rstatlat.h) -> "base", a subsystem's name, ...; "" for LOCK_ALL */
	char lock_names[LOCK_IDS_MAX][LOCK_NAME_LEN];
	enum bpf_features bpf_features;
	char features_why[192];	/* what is missing, when FEATURES_NO */
	char missing[256];	/* one line for the user when !usable */
};

/*
 * Probes the BTF at btf_path (NULL: the running kernel's) and, when
 * privileged and a fallback is considered, whether fentry and kprobes
 * attach. Returns 0 (see plan->usable), or -1 when BTF cannot be read.
 */
int probe_kernel(struct attach_plan *plan, const char *btf_path, enum source_pref pref,
		 enum irqoff_pref irqoff, enum parts_pref parts, bool privileged);
int source_pref_parse(const char *s, enum source_pref *pref);
int irqoff_pref_parse(const char *s, enum irqoff_pref *pref);
int parts_pref_parse(const char *s, enum parts_pref *pref);
void probe_print(FILE *f, const struct attach_plan *plan);
/*
 * --lock-rows off (the default): the lock scope points detached, a
 * cgroup's holds add up; where they could have been told apart, said so.
 */
void plan_lock_rows_off(struct attach_plan *plan);
/* Whether the plan attaches the per-CPU lock's tracepoints (6.10-6.16). */
bool plan_has_cpu_lock(const struct attach_plan *plan);

/*
 * The link from the table to the BPF programs is the attach target
 * itself: a point is served by the program(s) whose ELF section names it
 * ("tp_btf/EVENT"; "fentry/FN" and "fexit/FN", or "kprobe/FN" and
 * "kretprobe/FN"). Writes the sections a point needs under `source` and
 * returns how many (1 or 2).
 */
int probe_sections(enum rsl_source source, const struct attach_point *pt, char sec[2][96]);
/*
 * Finds those programs in obj. Returns 0, or -ENOENT with the section
 * that no program has in `missing`: a point renamed on one side only.
 */
int probe_find_programs(struct bpf_object *obj, enum rsl_source source,
			const struct attach_point *pt, struct bpf_program *progs[2],
			char missing[96]);

#endif

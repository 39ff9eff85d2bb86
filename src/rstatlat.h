/* SPDX-License-Identifier: GPL-2.0 */
/* Types that cross the BPF/userspace boundary. */
#ifndef RSTATLAT_H
#define RSTATLAT_H

#include "hist.h"

#define RSL_COMM_LEN	16
#define RSL_MAX_DEPTH	16	/* path components captured per cgroup */
#define RSL_NAME_LEN	64	/* bytes kept of each component */
#define RSL_MAX_STACK	32	/* kernel frames in a -t report */

/*
 * A slot is the unit of aggregation: one flushed cgroup, and with -p one
 * flushing process (tgid) of it; tgid is 0 without -p.
 */
struct slot_key {
	__u64 cgid;		/* kernfs id of the flushed cgroup */
	__u32 hierarchy;	/* cgroup_root->hierarchy_id, 0 = v2 */
	__u32 tgid;
};

enum slot_state {
	SLOT_EMPTY = 0,
	SLOT_READY = 1,		/* meta complete, slot in use */
	SLOT_DISCARDED = 2,	/* lost an insert race, never used */
};

/* Written once by BPF when the slot is created, read by userspace. */
struct slot_meta {
	struct slot_key key;
	__u64 flusher_cgid;	/* v2 cgroup of the task that created it */
	__u32 state;		/* enum slot_state, written last */
	__u32 pad;
	__u32 depth;		/* components captured in names[] */
	__u32 truncated;	/* a name or the depth did not fit */
	char comm[RSL_COMM_LEN];
	char names[RSL_MAX_DEPTH][RSL_NAME_LEN];	/* leaf first */
};

/*
 * Interval maxima tagged with the epoch they belong to: BPF resets a
 * record lazily when the epoch moved on, so userspace never writes stats.
 */
struct epoch_max {
	__u64 value;
	__u64 epoch;
};

/*
 * Per-CPU, cumulative since load except the epoch-tagged maxima. Fields are
 * ordered by when they are touched: every locked event, every unlock, then
 * contended acquisitions only. Counts are the sums of the histograms.
 */
struct slot_stats {
	__u64 locked;		/* lock acquisitions */
	__u32 top_tgid;		/* Boyer-Moore majority vote over flushers */
	__u32 top_votes;
	char top_comm[RSL_COMM_LEN];
	__u64 hold_sum;
	__u64 hold_max;
	struct epoch_max hold_imax[2];
	__u64 contended;	/* acquisitions that had to wait */
	__u64 wait_sum;
	__u64 wait_max;
	struct epoch_max wait_imax[2];
	__u64 hold_hist[HIST_BUCKETS];
	__u64 wait_hist[HIST_BUCKETS];
	/* whole flushes: first acquisition to last release, per flush call */
	__u64 flush_sum;
	__u64 flush_max;
	struct epoch_max flush_imax[2];
	__u64 flush_holds;	/* lock holds in those flushes */
	__u64 flush_holds_max;
	__u64 flush_hist[HIST_BUCKETS];
	/* --irqoff trace: irqs-off intervals that contain one of its holds */
	__u64 irqoff_sum;
	__u64 irqoff_max;
	struct epoch_max irqoff_imax[2];
	__u64 irqoff_hist[HIST_BUCKETS];
};

/* Irqs-off figures that belong to no cgroup, per CPU. */
struct irq_stats {
	/* trace: intervals with no rstat hold inside */
	__u64 other_sum;
	__u64 other_max;
	struct epoch_max other_imax[2];
	/* sample: cpu-clock ticks, and how late each came */
	__u64 ticks;
	__u64 late_sum;
	__u64 late_max;
	struct epoch_max late_imax[2];
	__u64 other_hist[HIST_BUCKETS];
	__u64 late_hist[HIST_BUCKETS];
};

/*
 * The per-CPU rstat lock (cgroup_rstat_cpu_lock, Linux 6.10-6.16), measured
 * system-wide, not per cgroup: its holds are short and hot.
 */
struct lock_stats {
	__u64 locked;
	__u64 contended;
	__u64 hold_sum;
	__u64 hold_max;
	__u64 wait_sum;
	__u64 wait_max;
	struct epoch_max hold_imax[2];
	struct epoch_max wait_imax[2];
	__u64 hold_hist[HIST_BUCKETS];
	__u64 wait_hist[HIST_BUCKETS];
};

/* What produced the figures: the attach plan's source. */
enum rsl_source {
	SOURCE_TRACEPOINT,	/* cgroup_rstat_* tracepoints */
	SOURCE_FENTRY,		/* fentry/fexit on the flush functions */
	SOURCE_KPROBE,		/* kprobe/kretprobe on the flush functions */
};

enum lost_kind {
	LOST_SLOTS_FULL,	/* no slot left for a new cgroup/process */
	LOST_RINGBUF_FULL,	/* -t report dropped */
	LOST_UNPAIRED_UNLOCK,	/* unlock with no matching locked */
	LOST_RELOCKED,		/* locked while this CPU already held one */
	LOST_WAIT_MIGRATED,	/* contended and locked seen by different tasks */
	LOST_STACK,		/* -t report without a kernel stack */
	LOST_FLUSH_OPEN,	/* a flush never saw its last release (not counted) */
	LOST_RETIRED,		/* userspace: removed cgroups beyond the summary's room */
	LOST_MAX,
};

enum report_kind {
	REPORT_HOLD = 0,
	REPORT_WAIT = 1,
	REPORT_IRQOFF = 2,	/* an irqs-off interval with an rstat hold inside */
	REPORT_TICK = 3,	/* a late cpu-clock tick */
};

/* A -t report: one hold or wait at or above the threshold. */
struct slow_event {
	__u64 ts;		/* CLOCK_MONOTONIC ns at the end of the interval */
	__u64 duration_ns;
	__u64 cgid;
	__u32 hierarchy;
	__u32 kind;		/* enum report_kind */
	__s32 lock_cpu;		/* the tracepoint's cpu argument */
	__u32 cpu;		/* CPU the event ran on */
	__u32 pid;
	__u32 tgid;
	__u32 slot;
	__u32 contended;
	__s32 stack_bytes;	/* bpf_get_stack() result, < 0 on error */
	__u32 overlap;		/* tick: an rstat hold ended since the previous tick */
	__u64 cgid_current;	/* tick: the interrupted task's v2 cgroup */
	__u64 irq_sites[4];	/* irqoff: disabled at (ip, parent), enabled at (ip, parent) */
	char comm[RSL_COMM_LEN];
	__u64 stack[RSL_MAX_STACK];
};

#endif /* RSTATLAT_H */

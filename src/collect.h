/* SPDX-License-Identifier: GPL-2.0 */
/* BPF maps -> report. Knows maps, not output formats. */
#ifndef RSTATLAT_COLLECT_H
#define RSTATLAT_COLLECT_H

#include "cgroup.h"
#include "report.h"

struct rstatlat_bpf;
struct collector;

/* Which sources were attached: what the collector reads. */
struct ksyms;

struct collect_sources {
	bool irqoff_trace;	/* per slot irqs-off and "other" (preemptirq) */
	bool irqoff_lock;	/* the holds stand for irqs-off (spin_lock_irq) */
	bool irqoff_sample;	/* late cpu-clock ticks */
	bool cpu_lock;		/* the per-CPU lock (6.10-6.16) */
	const char *irqoff_source;	/* "trace", "lock", "sample", "lock+sample", "off" */
	bool intervals;		/* intervals are shown: keep building the open one */
	bool flush_parts;	/* flush parts measured */
	enum parts_source parts_from;	/* kernel or timed */
	unsigned int parts_measured;	/* 1 << PART_*, the rest in other */
	uint32_t cause_sample;	/* one flush in this many (at random) names a cause; 0: off */
	bool cause_budgeted;	/* ... at most: fewer where flushes come fast */
	bool memcg_decisions;	/* memcg:memcg_flush_stats attached */
	bool flushers;		/* flushes counted by comm (rstatlat.h, flushers) */
	bool cgroups_gone;	/* cgroup:cgroup_rmdir attached: removals told, not polled */
	const struct ksyms *ksyms;	/* names the flush stacks; NULL: read when needed */
	/* slot_key.lock (LOCK_*) -> the rows' lock; NULL: locks not told apart */
	const char (*lock_names)[LOCK_NAME_LEN];
};

struct collector *collector_new(struct rstatlat_bpf *skel, struct cg_table *cg,
				const struct cg_filter *filter, bool per_process,
				int ncpus, unsigned int max_slots,
				const struct collect_sources *sources);
void collector_free(struct collector *c);

/*
 * One read: closes the kernel's epoch, waits until no program can still
 * write it, and folds every change since the previous read into the open
 * interval and the run's totals. Call at least once a second (histogram
 * buckets in the kernel wrap at 2^32). Returns 0 or -errno.
 */
int collector_read(struct collector *c);
/* Reads the kernel's symbols again when next needed, and checks every cgroup at the next read. */
void collector_reload(struct collector *c);

/* The open interval (since the previous call), then a new one. 0 or -errno. */
int collector_interval(struct collector *c, struct report *out);

/* Everything since load. 0 or -errno. */
int collector_summary(struct collector *c, struct report *out);
/*
 * The same for a view that is done with it before the next read (the
 * exporter's refresh), without -p: its cgroup rows share their figures
 * and paths with the collector (report.shared) instead of copies, a row a
 * slot or kept row (one cgroup's rows are not merged: a view adds up the
 * rows of a label set). 0 or -errno.
 */
int collector_summary_shared(struct collector *c, struct report *out);

/*
 * What to do while a read waits for a grace period: fn(arg) is called
 * repeatedly and should block briefly (rstatlat serves slow events).
 */
void collector_set_waiter(struct collector *c, void (*fn)(void *arg), void *arg);

/* Slow events rstatlat could not print before its end (lost.slow_unprinted). */
void collector_set_slow_unprinted(struct collector *c, uint64_t n);

/* Slots in use now. */
unsigned int collector_entries_used(const struct collector *c);
/* The most entries held at once since the start (in use or being handed back). */
unsigned int collector_entries_peak(const struct collector *c);

/*
 * Starts the thread that makes the per-slot maps' chunks ahead of the
 * slots in use (rstatlat.h, slot_chunk_shift), woken by BPF's grow bell
 * and every 100 ms: the reads of thousands of new cgroups (their names)
 * may take the main thread seconds. Stopped by collector_free. Start it
 * once privileges are dropped: it keeps the capabilities it starts with.
 * 0, or -1 with errno set.
 */
int collector_grower_start(struct collector *c);

/*
 * Before the object is loaded: the shape of the per-slot maps' chunks (its
 * rodata's chunk_shift). 0, or -1 with errno set.
 */
int chunks_shape(struct rstatlat_bpf *skel);

/* Kernel memory of the chunks made so far. */
uint64_t collector_chunk_bytes(const struct collector *c);

/* ... and what they would take at --max-entries. */
uint64_t collector_chunk_bytes_ceiling(const struct collector *c);

/* Whether chunks may still be made: fewer made than --max-entries needs. */
bool collector_can_grow(const struct collector *c);

/*
 * rstatlat's own BPF time on the rstat path, from its sampled clock reads
 * (rstatlat.h, OWN_SAMPLE), and the lock events it served, as of the last
 * read: since load (whole_run), or since the previous interval's call.
 */
void collector_own_time(struct collector *c, bool whole_run, uint64_t *ns, uint64_t *locked);

/* The display path of a slot, reading its metadata if not seen yet. */
const char *collector_slot_path(struct collector *c, unsigned int slot);
/*
 * The lock of a slot's holds ("" where locks are not told apart), and in
 * *type their lock type ("" where the tracepoints pass none).
 */
const char *collector_slot_lock(struct collector *c, unsigned int slot, const char **type);
/* False if the slot's cgroup is outside the -c subtree. */
bool collector_slot_wanted(struct collector *c, unsigned int slot);

#endif

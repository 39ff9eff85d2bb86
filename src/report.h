/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report: one in-memory model of everything rstatlat prints. collect.c
 * fills it from BPF maps; table.c and json.c render it and know nothing
 * about BPF.
 */
#ifndef RSTATLAT_REPORT_H
#define RSTATLAT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "metrics.h"
#include "rstatlat.h"

/* One non-empty bucket of a distribution (hist.h layout). */
struct bucket {
	uint32_t index;		/* hist.h bucket index, < HIST_BUCKETS */
	uint64_t count;		/* > 0 */
};

/*
 * One latency distribution, in ns. Sparse: only non-empty buckets, in
 * ascending index order. All-zero = empty and valid. Owns b[]: a struct
 * assignment shares it, dist_copy() does not.
 */
struct dist {
	uint64_t count;		/* sum of the bucket counts */
	uint64_t sum;
	uint64_t max;
	struct bucket *b;
	uint32_t n, cap;
};

/*
 * A flush cause of a row (docs/flushes.md): the sampled flushes
 * whose stack named it, the flushes they stand for (each sample weighs
 * 1 / its probability) and those flushes' wall time. The row's flushes
 * and wall time are shared out by these weights (cause_flushes), so the
 * causes add up to the row's whatever the sampling. Owns name.
 */
struct cause {
	char *name;
	uint64_t samples;
	uint64_t weight;
	uint64_t weight_ns;
};

/*
 * A row: one flushed cgroup, or with -p one (flushing process, flushed
 * cgroup) pair. Strings and distributions are owned by the row (row_free,
 * row_copy); strings are raw kernel text: views escape them.
 */
/* A lock's name in rows: "base", a subsystem's name ("memory"), "(unknown)". */
#define LOCK_NAME_LEN 16

struct row {
	uint64_t cgid;
	uint32_t hierarchy;
	uint32_t tgid;		/* process rows only */
	char *path;		/* "/a/b" for v2, "memory:/a/b" for v1 */
	char *own_cgroup;	/* process rows: the flusher's v2 cgroup */
	char lock[LOCK_NAME_LEN];	/* report.lock_rows: the lock of its holds; else "" */
	char lock_type[RSL_LOCK_TYPE_LEN];	/* report.lock_types: "read", "write"; else "" */
	char comm[RSL_COMM_LEN];	/* process rows */
	uint64_t count[COUNT_MAX];	/* metrics.h count_defs */
	/*
	 * metrics.h dist_defs. dist[DIST_FLUSH] is whole flush calls, first
	 * acquisition (or wait) to last release. dist[DIST_IRQOFF] is the
	 * measured irqs-off intervals (IRQOFF_ROWS_TRACED), else empty: views
	 * read it through row_irqoff().
	 */
	struct dist dist[DIST_ROW_MAX];
	uint64_t part[PART_MAX];	/* their wall time's parts, ns (report.flush_parts) */
	struct cause *causes;	/* owned; report.cause_sample > 0 */
	size_t ncauses;
	/* memcg:memcg_flush_stats of this memcg (report.memcg_decisions) */
	uint64_t decisions[DECISION_MAX];
	uint32_t top_tgid;	/* flusher with most acquisitions */
	char top_comm[RSL_COMM_LEN];
	uint64_t top_locked;	/* its acquisitions, when known (-p) */
	/*
	 * Process rows: exited processes folded into this row (tgid 0, comm
	 * kept); 0 for a live process.
	 */
	uint32_t exited;
	/*
	 * Cgroup rows: removed cgroups folded into this aggregate row (path
	 * "(removed cgroups)", id 0, hierarchy 0); 0 otherwise.
	 */
	uint32_t removed_cgroups;
};

enum report_type { REPORT_INTERVAL, REPORT_SUMMARY };

/* The per-CPU rstat lock (6.10-6.16), system-wide. */
struct lock_summary {
	bool present;		/* its tracepoints were attached */
	uint64_t locked;
	uint64_t contended;
	struct dist hold;
	struct dist wait;
};

/* Irqs-off beyond the per-cgroup rows. */
struct irqoff_summary {
	const char *source;	/* "trace", "lock", "sample", "lock+sample", "off" */
	bool trace;		/* outside: irqs-off intervals with no rstat hold inside */
	bool sample;		/* late: how late cpu-clock ticks came */
	struct dist outside;
	struct dist late;
	uint64_t ticks;
	unsigned int sample_hz;
	int sample_events;	/* perf events attached, one per online CPU */
	bool virtual_machine;	/* vCPU stalls look like irqs-off */
};

/* Where rows' irqs-off intervals come from. */
enum irqoff_rows {
	IRQOFF_ROWS_NONE,	/* none per row (sources off, sample) */
	IRQOFF_ROWS_LOCK,	/* the holds themselves: spin_lock_irq keeps irqs off while held */
	IRQOFF_ROWS_TRACED,	/* row->dist[DIST_IRQOFF], measured */
};

/* rstatlat's own costs. */
struct self_costs {
	bool present;		/* live reports; false when a parsed file has none */
	uint64_t map_bytes;	/* kernel memory of rstatlat's BPF maps now */
	uint64_t map_bytes_ceiling;	/* ... at --max-entries entries in use; 0: unknown */
	uint32_t entries;	/* --max-entries */
	uint32_t entries_used;	/* slots in use at the end of the window */
	/* the most held at once since the start: what the maps' chunks follow; 0: unknown */
	uint32_t entries_peak;
	uint64_t cpu_user_ns, cpu_system_ns;	/* rstatlat's CPU time in this window */
	bool bpf_stats;		/* kernel.bpf_stats_enabled was on: bpf_* are known */
	uint64_t bpf_ns, bpf_runs;	/* its BPF programs' run time and runs in this window */
	/*
	 * Its BPF time on the rstat path from its own sampled clock reads
	 * (rstatlat.h, OWN_SAMPLE), known at every run, and the lock events
	 * of the window, which it is counted against (bpf_sampled_ns a lock
	 * event). own_known: false in files from before it.
	 */
	bool own_known;
	uint64_t bpf_sampled_ns, lock_events;
	uint64_t rss_max_bytes;	/* peak resident memory so far */
};

#define MAX_ATTACH_POINTS 40

/* The cgroups a command (-- COMMAND) ran in: v2, and v1 memory on a hybrid host. */
#define COMMAND_CGROUPS_MAX 4

struct command_cgroup {
	uint64_t id;
	uint32_t hierarchy;
	char *path;		/* as rows spell it: "/a/b" (v2), "memory:/a/b" (v1) */
};

/*
 * What rstatlat ran and traced (-- COMMAND). Owned by the report
 * (report_free); argv and paths are untrusted text: views escape them.
 */
struct command_info {
	bool present;
	char **argv;		/* argc strings */
	int argc;
	uint32_t pid;
	struct command_cgroup cgroups[COMMAND_CGROUPS_MAX];
	int ncgroups;
	bool ended;		/* status and signal are known (the summary) */
	int status;		/* as a shell gives it: the exit code, or 128 + signal */
	int signal;		/* the signal that ended it, 0 if it exited */
};

/*
 * A workload's own figures (rstatlat load, docs/load.md): what its readers
 * did while rstatlat traced, handed to rstatlat by the command it ran
 * under (RSTATLAT_WORKLOAD_FD). Counters a workload has not are not
 * measured (measured: 1 << WL_*); rounds for the poller, OOM kills for
 * stat-reader. Owned by the report; strings are untrusted text.
 */
enum workload_count { WL_READS, WL_ROUNDS, WL_ROUNDS_LATE, WL_HOGS_STARTED, WL_OOM_KILLS,
		      WL_COUNT_MAX };
extern const char *const workload_count_names[WL_COUNT_MAX];	/* JSON's keys */

#define WORKLOAD_NAME_LEN	16
#define WORKLOAD_OPTIONS_MAX	16
#define WORKLOAD_KEY_LEN	24

struct workload_option {
	char key[WORKLOAD_KEY_LEN];
	char *text;		/* a string value, else NULL: a number */
	uint64_t number;
};

struct workload_info {
	bool present;
	bool mixed;		/* added-up runs unlike (workload_alike): name and options the first's */
	char name[WORKLOAD_NAME_LEN];	/* "hammer", "stat-reader", "poller" */
	char hierarchy[8];	/* where it read: "v2", "memory" (v1) */
	struct workload_option options[WORKLOAD_OPTIONS_MAX];
	int noptions;
	unsigned int runs;	/* workloads added up here */
	uint64_t wall_ns;	/* its readers' wall time, added up */
	uint64_t count[WL_COUNT_MAX];
	unsigned int measured;	/* 1 << WL_* */
	struct dist read;	/* each read's latency, ns */
	struct dist round;	/* each round's (poller; measured WL_ROUNDS) */
	char stopped_by[16];	/* the signal that ended it early ("INT"), or "" */
};

void workload_free(struct workload_info *w);
/* The same workload asked the same way: name and options. */
bool workload_alike(const struct workload_info *a, const struct workload_info *b);
/*
 * Adds from to into (empty: a copy): counters, wall time, distributions;
 * the name and options are into's, mixed when from's are not alike.
 * Returns 0, or -1 out of memory.
 */
int workload_merge(struct workload_info *into, const struct workload_info *from);

struct kernel_info {
	char release[65];
	int cpus_possible;
	int cpus_online;
};

/*
 * Which locks a flush can take: one global lock (before 6.16), or one per
 * subsystem and one for the base stats (6.16+), which rows tell apart
 * where rstatlat can (report.lock_rows). Unknown in files from before it
 * was recorded.
 */
enum lock_scope { LOCKS_UNKNOWN, LOCKS_GLOBAL, LOCKS_PER_SUBSYSTEM, LOCKS_MAX };
/* JSON's and compare's words: NULL, "global", "per-subsystem" */
extern const char *const lock_scope_names[LOCKS_MAX];

struct report {
	enum report_type type;
	struct kernel_info kernel;
	uint64_t start_ns;	/* CLOCK_REALTIME at the window start */
	uint64_t duration_ns;
	const char *attach;	/* what the probe chose, e.g. "tracepoint" */
	enum lock_scope locks;
	bool lock_rows;		/* rows are a cgroup under one lock (row.lock) */
	bool locks_folded;	/* compare: lock rows added up per cgroup (report_fold_locks) */
	bool lock_types;	/* rows are per lock type too (row.lock_type): an rwlock */
	const char *attach_points[MAX_ATTACH_POINTS];	/* the chosen points */
	int nattach_points;
	struct lock_summary cpu_lock;
	struct irqoff_summary irqoff;
	enum irqoff_rows irqoff_rows;
	struct self_costs self;
	bool flush_parts;	/* rows' part[] measured */
	enum parts_source parts_from;	/* kernel or timed (flush_parts) */
	unsigned int parts_measured;	/* 1 << PART_*: the rest of the wall time is in other */
	/*
	 * 1 << COUNT_*: counters not measured (their flush part was not, or a
	 * file from before them): views leave them out, compare says "-"
	 */
	unsigned int counts_unmeasured;
	uint32_t cause_sample;	/* one flush in this many (at random) named a cause; 0: off */
	bool cause_budgeted;	/* ... at most: fewer where flushes came fast (rstatlat.h) */
	bool memcg_decisions;	/* rows' decisions[] measured */
	struct command_info command;
	struct workload_info workload;	/* summaries of a command that ran one */
	char *owned;		/* strings a parsed report owns (attach) */
	bool per_process;
	/*
	 * cgroups, their figures, causes and paths are the collector's
	 * (collector_summary_shared): valid until its next read; report_free
	 * frees none of them.
	 */
	bool shared;
	struct row *cgroups;
	size_t ncgroups;
	/*
	 * Shared summaries: every cgroup row added up (figures and causes),
	 * kept by the collector as it reads, so that a view wanting only the
	 * whole and a few rows need not add up the rest. NULL: add them up
	 * from cgroups.
	 */
	const struct row *all;
	struct row *processes;
	size_t nprocesses;
	/*
	 * Summaries of an exporter: every flushing comm's flushes since load
	 * (rstatlat.h, flushers): comm, count[COUNT_LOCKED] and
	 * [COUNT_FLUSH_HOLDS] the holds of its flushes, dist[DIST_HOLD] and
	 * [DIST_FLUSH] by octave (no maximum). FLUSHERS_OTHER: those that
	 * found the kernel's record full.
	 */
	bool flushers_counted;
	struct row *flushers;
	size_t nflushers;
	uint64_t lost[LOST_MAX];
};

#define FLUSHERS_OTHER	"(other)"

extern const char *const lost_names[LOST_MAX];

/*
 * n more values in bucket index (count += n, sum and max untouched). n == 0
 * is a no-op; an index beyond the layout counts in the last bucket, which
 * holds everything beyond its range. Appending in ascending index order is
 * O(1) amortized, inserting below the top bucket moves the ones above.
 * Returns 0, or -1 out of memory (d unchanged).
 */
int dist_add(struct dist *d, unsigned int index, uint64_t n);
/* One value: its bucket, count, sum and max. Returns 0 or -1 (d unchanged). */
int dist_add_value(struct dist *d, uint64_t v);
/*
 * Adds from to into. Returns 0, or -1 out of memory (into unchanged). A sum
 * past 2^64-1 stays there (saturates, never wraps): dist_merge_overflows
 * tells beforehand.
 */
int dist_merge(struct dist *into, const struct dist *from);
bool dist_merge_overflows(const struct dist *into, const struct dist *from);
/* a + b, or 2^64-1 where that would wrap */
static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
/* Deep copy into dst, which must be empty (zeroed or freed). Returns 0 or -1. */
int dist_copy(struct dist *dst, const struct dist *src);
/*
 * The distribution folded to powers of two, as the log2 histograms of
 * libbpf-tools print it: octave[o] counts the values in [2^o, 2^(o+1))
 * (octave 0: below 2^HIST_LOW_SHIFT). Sets the lowest and highest octave
 * with values; returns false when d is empty.
 */
bool dist_octaves(const struct dist *d, uint64_t octave[64], int *lo, int *hi);
/* The octave after o: octave 0 holds everything below 2^HIST_LOW_SHIFT. */
int octave_next(int o);
/* The bounds of octave o as dist_octaves() folds it. */
void octave_bounds(int o, uint64_t *from, uint64_t *to);
/* Frees the buckets; d is empty again. */
void dist_free(struct dist *d);
/* The count in bucket index, 0 when absent. Used by the unit tests only. */
uint64_t dist_bucket_count(const struct dist *d, unsigned int index);
/*
 * Nearest-rank quantile, estimated as its bucket's midpoint, <= max.
 * count must equal the sum of the buckets.
 */
uint64_t dist_quantile(const struct dist *d, double q);
/*
 * The mode by powers of two: the lower bound lo of the [lo, 2 lo) ns that
 * holds most of d's values (0: below 2^HIST_LOW_SHIFT ns, or d empty), as
 * the 0efc297a commit grouped read latencies. The lowest such on a tie.
 */
uint64_t dist_mode_octave(const struct dist *d);
/* The end (exclusive) of the power of two dist_mode_octave() gave as lo. */
static inline uint64_t mode_octave_end(uint64_t lo)
{
	return lo ? 2 * lo : 1ULL << HIST_LOW_SHIFT;
}
/* Several quantiles at once. */
void dist_quantiles(const struct dist *d, const double *qs, int n, uint64_t *out);
/* The bucket index holding the rank-th smallest value (1 <= rank <= count). */
int dist_rank_bucket(const struct dist *d, uint64_t rank);

/* A new last row of rows[n] (cap grown by doubling): zeroed, or uninitialized (append). */
struct row *report_add_row(struct row **rows, size_t *n, size_t *cap);
struct row *report_append_row(struct row **rows, size_t *n, size_t *cap);
/* Frees what the row owns: strings, distributions, causes. r is zeroed. */
void row_free(struct row *r);
/*
 * Deep copy; dst need not be initialised. Returns 0, or -1 (dst zeroed).
 * Used by the unit tests only.
 */
int row_copy(struct row *dst, const struct row *src);
/*
 * Adds from's figures to into (counts, distributions, parts, decisions,
 * causes, exited, removed_cgroups), copying: into never shares memory with from. Identity
 * and top flusher are left alone. Returns 0, or -1 out of memory. Sums
 * saturate at 2^64-1 rather than wrap; row_merge_overflows names the
 * first that would, for a reader to refuse the input instead.
 */
int row_merge(struct row *into, const struct row *from);
/* The JSON key of the first of into's sums that adding from would take past 2^64-1, or NULL. */
const char *row_merge_overflows(const struct row *into, const struct row *from);
/*
 * A row's lock and lock type, part of its identity wherever rows are
 * matched: h advanced over them (FNV-1a), and whether two rows share them.
 */
uint64_t row_lock_hash(uint64_t h, const struct row *r);
bool row_same_lock(const struct row *a, const struct row *b);
/*
 * The irqs-off distribution of a row, or NULL under IRQOFF_ROWS_NONE:
 * under HOLDS its holds, under TRACED dist[DIST_IRQOFF].
 */
const struct dist *row_irqoff(const struct report *r, const struct row *row);
/* Whether every row's irqs-off distribution is its holds (views copy them). */
bool report_irqoff_is_lock(const struct report *r);

extern const char *const part_names[PART_MAX];	/* "held", "wait", ... */
extern const char *const parts_from_names[];	/* "", "kernel", "timed" */
/* Whether a report's rows measured part k (false: its time is in other). */
bool report_part_measured(const struct report *r, int k);
/* Whether a report's rows measured counter k (metrics.h count_defs). */
bool report_count_measured(const struct report *r, int k);
extern const char *const decision_names[DECISION_MAX];	/* "asked", "forced", "skipped" */
/*
 * samples standing for weight flushes of weight_ns under the cause name in
 * r (added to an existing entry of that name). Returns 0, or -1 out of
 * memory (r unchanged).
 */
int row_add_cause(struct row *r, const char *name, uint64_t samples, uint64_t weight,
		  uint64_t weight_ns);
/*
 * The cause JSON gives a row's flushes when none of them was sampled, so
 * that the causes always add up; derived again when read, never stored.
 */
#define NOT_SAMPLED "(not sampled)"
/* Drops the row's causes. */
void row_clear_causes(struct row *r);
/* The row's flushes (and their wall time) shared out by the causes' weights. */
uint64_t cause_flushes(const struct row *r, const struct cause *c);
uint64_t cause_flush_ns(const struct row *r, const struct cause *c);
/* Positions in r->causes, the most flushes first (name breaks ties); NULL out of memory. */
size_t *row_causes_by_flushes(const struct row *r);
/* The first of that order without sorting, or NULL without causes. */
const struct cause *row_top_cause(const struct row *r);

/*
 * Finds rows by an identity: by default (identity NULL) a cgroup's
 * hierarchy and path, or hierarchy and id when the path is unknown ("").
 * Indexes positions in a row array, so the array may grow (realloc)
 * between calls.
 */
struct row_identity {
	uint64_t (*hash)(const struct row *r);
	bool (*same)(const struct row *a, const struct row *b);
};

/* -p rows of other runs: a cgroup (as by path) and the flusher's comm. */
extern const struct row_identity row_by_flusher;

struct row_index {
	const struct row_identity *identity;	/* NULL: by path */
	size_t *slot;		/* row position + 1; 0 = empty */
	size_t cap;		/* power of two */
	size_t used;
};

/* The position of the row matching key in rows[], or -1. */
long row_index_find(const struct row_index *ix, const struct row *rows,
		    const struct row *key);
/* Whether a and b are the same row by ix's identity. */
bool row_index_same(const struct row_index *ix, const struct row *a, const struct row *b);
/* Records rows[pos]. Returns 0 or -1 (out of memory). */
int row_index_add(struct row_index *ix, const struct row *rows, size_t pos);
/* Frees the index and forgets the rows, keeping its identity. */
void row_index_free(struct row_index *ix);
/*
 * Replicated runs pooled into one report: cgroup rows matched by
 * hierarchy and path and merged, windows added. kernel, attach and
 * irqoff_rows come from the first run (compare refuses mixed sides);
 * attach points into it, so the runs must outlive the pool.
 */
struct report_pool {
	struct report r;
	struct row_index ix, pix;	/* cgroup rows; -p rows by cgroup and comm */
	size_t cap, pcap;
	const char *overflow;	/* the first sum that passed 2^64-1 (saturated), or NULL */
};

/*
 * Adds up a report's rows of one cgroup under several locks (locks:
 * lock_rows) or lock types (types: lock_types) into one row per cgroup,
 * as a kernel that does not tell them apart has them: compare pairs such
 * a file with one of that kind. 0 or -1.
 */
int report_fold_locks(struct report *r, bool locks, bool types);
/*
 * Adds up rows that are one by their identity (cgroups by path, -p rows
 * by path and comm): rows compare relabelled alike. 0 or -1.
 */
int report_fold_alike(struct report *r);
/*
 * Returns 0, or -1 out of memory. A sum the runs take past 2^64-1
 * saturates, and p->overflow names the first (its JSON key).
 */
int report_pool_add(struct report_pool *p, const struct report *run);
void report_pool_free(struct report_pool *p);
/* Frees everything the report owns: rows, their distributions, the summaries'. */
void report_free(struct report *r);
/* Deep copy of a command into dst (zeroed or freed). Returns 0, or -1 (dst freed). */
int command_copy(struct command_info *dst, const struct command_info *src);
void command_free(struct command_info *c);
/* The cgroup of c that a row path is, or lies under: its index, or -1. */
int command_cgroup_of(const struct command_info *c, const char *path, const char **rest);

#endif

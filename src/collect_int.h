/* SPDX-License-Identifier: GPL-2.0 */
/* The collector's private state and the functions its files share. */
#ifndef RSTATLAT_COLLECT_INT_H
#define RSTATLAT_COLLECT_INT_H

/*
 * BPF maps -> report (collect.h), in files by role:
 *   collect.c         the collector's lifetime, its public API, one read
 *                     (collector_read) and the reports
 *   collect_read.c    one read's read phase: the maps read, changing nothing
 *   collect_fold.c    its fold phase: each slot's stages and home folded
 *                     (fold.c, the epoch protocol's userspace half, from map
 *                     contents); system-wide figures, losses
 *   collect_cgroup.c  its name phase: cgroup records, slots described, who
 *                     a row is about; retirement and housekeeping
 *   collect_cause.c   cause naming and the kallsyms lifetime
 *   collect_build.c   its build phase: the rows, found by identity
 *   collect_ident.c   row identity: keys and hashes
 *   collect_chunks.c  the per-slot maps' chunks, made ahead of use
 *   collect_flusher.c the flushers by comm (the exporter's)
 *
 * One read goes down its phases once, a batch of slots (READ_BATCH) at a
 * time, so that what it holds stays small: read (struct read_batch: the
 * slots, their stages and records) -> fold (each slot's delta, its cause
 * ways' changes by key) -> name (who each changed slot is about) -> build
 * (rows, totals).
 *
 * Userspace state, by what it describes:
 *   struct slot    one kernel slot: its totals, the last home counters
 *                  seen (the kernel's wrap at 2^32), this read's change
 *   struct cgrec   one cgroup seen in some slot: its names, whether it
 *                  still exists, and the rows no live slot backs any more
 *                  (flushers that exited; everything, once it is removed)
 *   struct builder rows of a report being built, found by identity
 */

#include <pthread.h>
#include "collect.h"
#include "fold.h"

/* Removed cgroups kept with rows of their own; beyond, one aggregate row. */
#define RETIRED_CGROUPS_MAX 1024

/* Who a row is about: the cgroup, and with -p the flusher. */
struct ident {
	const struct cgrec *cg;
	uint32_t tgid;		/* 0: cgroup row, or the exited flushers of comm */
	bool exited;		/* a row of exited flushers, keyed by comm */
	const char *comm;
	const char *own_cgroup;
	const char *lock;	/* the lock's name; NULL or "": not told apart */
	const char *lock_type;	/* the tracepoints' lock type; NULL or "": none */
};

/* The per-slot maps' chunks made so far, by their descriptors (collect_chunks.c). */
struct slot_chunks {
	unsigned int made, max;		/* chunks made; at --max-entries */
	unsigned int shift;		/* a chunk holds 1 << shift slots */
	int *rec;			/* by chunk: slot >> shift; -1 when not made */
	int *irq;			/* --irqoff trace only */
	uint64_t bytes;			/* their kernel memory */
	/* the grower thread makes them; made and bytes are read with atomics */
	struct ring_buffer *bell;
	pthread_t thread;
	bool running, stop;
};

struct builder {
	struct report *r;
	size_t cap_cg, cap_proc;
	struct row_index cg_ix, proc_ix;	/* by cgroup id; by process too */
};

struct cgrec {
	uint64_t cgid;
	uint32_t hierarchy;
	bool excluded;		/* outside the -c subtree */
	bool removed;		/* its directory is gone */
	bool retired;		/* removed, no live slot: in the retired list */
	uint32_t live_slots;
	uint64_t last_active;	/* the read in which one of its slots last changed */
	uint64_t next_check;	/* the read at which to check it still exists */
	uint32_t check_gap;
	uint32_t removed_cgroups;	/* the aggregate: cgroups folded in */
	char *path;		/* as displayed */
	char *rel_path;		/* inside its hierarchy, to check it still exists */
	struct row *rows;	/* rows no live slot backs */
	size_t nrows, cap;
	struct cgrec *next;	/* hash chain */
};

struct slot {
	enum slot_state state;
	bool retiring;		/* unhooked from BPF, freed after RETIRE_GRACE_NS */
	uint64_t unhooked_ns;	/* CLOCK_MONOTONIC when it was unhooked */
	bool exited;		/* -p: its process is gone */
	uint64_t touched_read;	/* the last read that changed it (or described it) */
	bool shared_stale;	/* changed since its shared row was copied (listed in changed) */
	uint32_t shared_row;	/* its row in shared + 1; 0: none */
	uint64_t next_alive_check;
	struct cgrec *cg;
	uint32_t tgid;
	uint16_t lock;		/* slot_key.lock (LOCK_*) */
	char lock_type[RSL_LOCK_TYPE_LEN];	/* slot_key.lock_type, NUL-terminated */
	uint64_t start;		/* -p: the process's start, boot time ns */
	char comm[RSL_COMM_LEN];
	char *own_cgroup;
	uint64_t top_votes;	/* its majority vote, folded over reads */
	struct row total;	/* figures since load, no identity */
	struct row delta;	/* this read's change, buffers kept between reads */
	struct home_snap snap;
};

/* Slots a read takes at once through its phases: their records are 0.2 MiB. */
#define READ_BATCH 32

/* A cause way's change in one read, by key (fold), named into the slot's delta (name). */
struct cause_change {
	uint64_t key;
	uint32_t samples, weight;
	uint64_t weight_ns;
};

/* One slot of a batch, as the phases fill it in. */
struct read_slot {
	uint32_t slot;
	/* read: its CPUs' stages (c->refs[ref..ref + nrefs)); its record in batch_rec */
	uint32_t ref, nrefs;
	bool rec;
	/* read: its home changed, and the record holds it; its metadata is whole */
	bool home, ready;
	/* fold: the cause ways that moved */
	struct cause_change cause[CAUSE_WAYS + 1];
	uint32_t ncauses;
	/* name: its delta holds figures and it is named; its process gone; who it is */
	bool changed;
	uint32_t newly_exited;
	struct ident who;
};

/* What the read phase hands on: the read's slots, a batch at a time, ascending. */
struct read_batch {
	/* the epoch this read closed; the slots handed out so far (next_slot) */
	uint64_t epoch;
	unsigned int nslots;
	/* the closed epoch's stages (c->refs) and dirty homes (c->dirty); how far through */
	size_t nrefs, ndirty;
	size_t r, d;
	size_t n;
	struct read_slot s[READ_BATCH];
};

/* A CPU's stage of the closed epoch: the lock's figures, or irqs-off's. */
struct stage_ref {	/* one of these three */
	uint32_t slot;
	const struct slot_stage *st;
	const struct stage_dist *irqoff;
	const struct decision_stage *decisions;
};

struct sys_fig {	/* system-wide figures, since load */
	struct irqoff_summary irq;
	struct lock_summary lock;
};

struct collector {
	struct rstatlat_bpf *skel;
	struct cg_table *cg;
	const struct cg_filter *filter;
	struct collect_sources src;
	bool per_process;
	int ncpus;
	unsigned int max_slots;
	/*
	 * One past the highest slot described (slot_refresh): the rest of
	 * c->slots was never written, and loops that stop here leave its
	 * pages unfaulted (10 MiB of RSS at 10 000 entries).
	 */
	unsigned int slots_end;
	unsigned int slots_ready;	/* SLOT_READY: counted as they come and go */
	/*
	 * Whether housekeeping must walk the slots: one lost a race, is
	 * retiring, or is a removed cgroup's not retired yet (or -p). Idle
	 * and live, nothing needs a walk: a host of 10 000 idle cgroups
	 * does not pay one a read.
	 */
	bool walk_slots;	/* also: retire_cgroups walks the cgroups */
	long clk_tck;
	uint64_t reads;
	struct slot *slots;
	struct cgrec **cg_hash;
	size_t cg_hash_cap, ncgrecs;
	struct cgrec **retired;		/* removed cgroups without live slots */
	size_t nretired;
	struct cgrec removed;		/* the aggregate of what the bound left out */
	struct row all;			/* report.all: every change of a row not excluded */
	/*
	 * collector_summary_shared's rows, kept from one summary to the
	 * next: while no row came, went or moved (rows_gen as when they were
	 * made), only the slots that changed meanwhile (changed) are copied
	 * again.
	 */
	struct row *shared;
	size_t nshared, shared_cap;
	uint64_t rows_gen, shared_gen;
	uint32_t *changed;		/* max_slots */
	size_t nchanged;
	struct cgrec *graveyard;	/* unhashed cgroups, freed after housekeeping */
	const uint64_t *seen;		/* slot_seen, mmapped */
	size_t seen_len;
	struct lock_state *lock_percpu;
	struct irq_state *irq_percpu;	/* --irqoff trace */
	__u64 *lost_percpu;
	void *sys_percpu;		/* irq_state, tick_state or cpu_lock_state values */
	struct slot_rec *rec;		/* one slot's record, read from its chunk */
	/* one read's batch (collector_read), its slots' records and irqs-off homes */
	struct read_batch *batch;
	struct slot_rec *batch_rec;
	struct dist_rec *batch_irq;
	uint32_t *dirty;		/* slots to read this read */
	struct stage_ref *refs;
	struct scratch *scratch;
	uint32_t sys_snap[SYS_MAX][HIST_BUCKETS];
	uint64_t sys_sum[SYS_MAX];
	struct sys_fig sys_total, sys_open;	/* since load; since the last interval */
	uint64_t lost[LOST_MAX], lost_at_interval[LOST_MAX];
	/* rstatlat's own BPF time since load, sampled (rstatlat.h, OWN_SAMPLE) */
	struct slot_chunks chunks;
	uint64_t own_ns, own_ns_at_interval;
	uint64_t locked, locked_at_interval;	/* lock events of every slot since load */
	uint64_t retired_dropped;
	uint64_t stages_unnamed;	/* lost.stage_unnamed */
	struct report open;		/* the interval being built */
	struct builder open_bd;
	char **cause_ids;	/* cause names by id - 1: what the kernel's stacks were named */
	const struct ksyms *ksyms;	/* src.ksyms, or own_ksyms once read */
	struct ksyms *own_ksyms;
	bool ksyms_tried;	/* in this load: do not retry a failed read each stack */
	bool check_all_cgroups;	/* collector_reload: at the next read */
	uint64_t ksyms_used;	/* the read that last named a stack with it */
	size_t ncause_ids, cap_cause_ids;
	/* src.flushers (collect_flusher.c) */
	struct flusher_total *flusher_table;	/* every comm's since load */
	size_t nflushers;
	uint64_t flushers_full;		/* flushes of comms beyond the table */
	uint64_t slow_unprinted;	/* collector_set_slow_unprinted */
	struct flusher_stage *flusher_percpu;
	void (*waiter)(void *arg);	/* called while a grace period passes */
	void *waiter_arg;
};

/* ---- collect_ident.c ---- */

/* The key of the cgroup hash (cgrec_find) and of rows. */
uint64_t cg_hash(uint64_t cgid, uint32_t hierarchy);
/* Whether two rows are the same process row (cgrec_keep). */
bool process_ident_same(const struct row *a, const struct row *b);
/* The identity of who as a row, figures empty. */
void ident_key(struct row *key, const struct ident *who, bool process);
/* The row indexes' identities: a cgroup row's, a process row's. */
extern const struct row_identity cgroup_ident, process_ident;

/* ---- one read's phases (collector_read) ---- */

/* collect_read.c: the epoch closed, its stages read, the dirty homes listed. 0 or -errno. */
int read_open(struct collector *c, struct read_batch *b);
/* ... then the next batch's slots and records: how many (0: none left), or -errno. */
int read_batch(struct collector *c, struct read_batch *b);
/* collect_fold.c: each slot's change into its delta. 0 or -errno. */
int fold_batch(struct collector *c, struct read_batch *b);
/* collect_cgroup.c: new slots described, changed ones named. 0 or -errno. */
int name_batch(struct collector *c, struct read_batch *b);
/* collect_build.c: the named changes into the rows and totals. 0 or -errno. */
int build_batch(struct collector *c, struct read_batch *b);
/* collect_fold.c: the system-wide figures; the losses (after the slots). 0 or -errno. */
int read_system(struct collector *c, uint64_t epoch);
int read_lost_map(struct collector *c);

/* ---- collect_build.c ---- */

/* A report begun, its rows found by identity; room for n cgroup rows; the indexes freed. */
void builder_start(struct builder *bd, struct report *r, enum report_type type, bool per_process);
int builder_reserve(struct builder *bd, size_t n);
void builder_end(struct builder *bd);
/* Adds figures under who to a report being built. */
int builder_add(struct builder *bd, const struct ident *who, const struct row *fig,
		uint32_t newly_exited);
/* A slot's totals changed: its row of the shared summary is stale. */
void shared_slot_changed(struct collector *c, struct slot *s);

/* ---- collect_cgroup.c ---- */

/* Frees what a slot holds and clears it (retire_end, collector_free). */
void slot_free(struct slot *s);

/* Free a cgroup record's kept rows; the record; the buried records. */
void cgrec_rows_free(struct cgrec *g);
void cgrec_free(struct cgrec *g);
void free_graveyard(struct collector *c);
/* Reads slot i's metadata once it is complete. */
void slot_refresh(struct collector *c, unsigned int i);
/* Who a slot's figures are about. */
void ident_of_slot(const struct collector *c, const struct slot *s, struct ident *who);
/* Whether a slot's process still runs. */
bool process_alive(struct collector *c, const struct slot *s, bool check_start);
/* After each read: retires slots and cgroups that are gone. 0 or -errno. */
int housekeeping(struct collector *c, unsigned int nslots);

/* ---- collect_flusher.c ---- */

/* The flushers' table and buffers (src.flushers). 0 or -1 out of memory. */
int flushers_init(struct collector *c);
void flushers_free(struct collector *c);
/* One read: the stages of the epoch just closed, and the kernel's records. 0 or -errno. */
int read_flushers(struct collector *c, uint64_t epoch);
/* Every flusher's figures since load into r->flushers. 0 or -errno. */
int collect_flushers(struct collector *c, struct report *r);

/* ---- collect_cause.c ---- */

/* Frees the collector's own kallsyms a few reads after their last use. */
void drop_idle_ksyms(struct collector *c);
/* The cause a way's key stands for, naming its stack if not named yet. */
const char *cause_name(struct collector *c, uint64_t key);

/* collect_chunks.c: a slot's records, -ENOENT before its chunk is made */
int chunks_init(struct collector *c);
void chunks_free(struct collector *c);
int chunk_rec_read(const struct collector *c, unsigned int slot, struct slot_rec *out);
int chunk_irqoff_read(const struct collector *c, unsigned int slot, struct dist_rec *out);
int chunk_clear(const struct collector *c, unsigned int slot);

#endif

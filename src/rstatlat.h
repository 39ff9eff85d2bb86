/* SPDX-License-Identifier: GPL-2.0 */
/* Types that cross the BPF/userspace boundary. */
#ifndef RSTATLAT_H
#define RSTATLAT_H

#include "hist.h"

#define RSL_COMM_LEN	16
#define RSL_LOCK_TYPE_LEN 8	/* slot_key.lock_type, with its NUL */
#define RSL_LOCK_SCOPE_TASKS 4096	/* tasks inside a flush at once (lock_rows) */
/* 64-bit FNV-1a, for hashes on both sides: h = (h ^ byte or word) * prime */
#define FNV1A_OFFSET	14695981039346656037ULL
#define FNV1A_PRIME	1099511628211ULL
/*
 * The captured path: components, leaf first, packed. A kernfs name is up
 * to 255 bytes; container runtimes' run to 64-85 a level, four levels deep
 * in Kubernetes (kubepods.slice/.../cri-containerd-<64 hex>.scope).
 */
#define RSL_NAMES_LEN	448
#define RSL_NAME_LEN	256	/* bytes read of a component, with its NUL, while room lasts */
#define RSL_MAX_DEPTH	16	/* components captured per cgroup */
#define RSL_MAX_STACK	32	/* kernel frames in a slow event */
#define RSL_CAUSE_FRAMES 16	/* kernel frames kept of a sampled flush's stack */
#define RSL_CAUSE_STACKS 1024	/* distinct flush stacks kept (flush_stacks entries) */
#define RSL_FLUSHERS	512	/* comms kept by flushers (their overflow entry included) */
#define RSL_CGROUPS_GONE 4096	/* cgroup removals queued between two reads */
#define RSL_FLUSHER_OCTAVES 32	/* HIST_OCTAVES, rounded up to a power of two */

/*
 * Which lock a slot's holds are under (slot_key.lock). Before 6.16 one
 * global lock guards every flush; from 6.16 each subsystem has its own and
 * the base stats theirs, told apart only where rstatlat can see the
 * argument of css_rstat_flush (probe.c, choose_locks): LOCK_ALL otherwise.
 */
#define LOCK_ALL	0	/* not told apart: the global lock, or all of a cgroup's */
#define LOCK_UNKNOWN	1	/* a hold outside every function that names its lock */
#define LOCK_BASE	2	/* rstat_base_lock: cpu.stat and the base stats */
#define LOCK_SUBSYS	3	/* + the subsystem's id (enum cgroup_subsys_id) */
#define LOCK_IDS_MAX	(LOCK_SUBSYS + 32)	/* ids beyond: LOCK_UNKNOWN */

/*
 * A slot is the unit of aggregation: one flushed cgroup under one lock,
 * and with -p one flushing process (tgid) of it; tgid is 0 without -p.
 */
struct slot_key {
	__u64 cgid;		/* kernfs id of the flushed cgroup */
	__u16 hierarchy;	/* cgroup_root->hierarchy_id, 0 = v2 */
	__u16 lock;		/* LOCK_* */
	__u32 tgid;
	/*
	 * The lock type the tracepoints pass where the lock is an rwlock (an
	 * upstream RFC: "read", "write"), its first 7 bytes, NUL-padded; all
	 * zero where they pass none (probe.c, arg_type).
	 */
	char lock_type[RSL_LOCK_TYPE_LEN];
};

enum slot_state {
	SLOT_EMPTY = 0,
	SLOT_READY = 1,		/* meta complete, slot in use */
	SLOT_DISCARDED = 2,	/* lost an insert race, never used */
};

/*
 * Written once by BPF when the slot is created, read once by userspace,
 * which clears it when it hands the slot back.
 */
struct slot_meta {
	struct slot_key key;
	__u64 flusher_cgid;	/* v2 cgroup of the task that created it */
	__u64 flusher_start;	/* -p: its process's start (boot time, ns): tells a reused pid */
	__u32 state;		/* enum slot_state, written last */
	__u16 depth;		/* components captured in names[] */
	__u8 truncated;		/* a name or the depth did not fit */
	__u8 pad;
	char comm[RSL_COMM_LEN];
	/* NUL-terminated components, leaf first: "leaf\0parent\0...\0" */
	char names[RSL_NAMES_LEN];
};

/*
 * Statistics live in two tiers (docs/how-it-works.md).
 *
 * The stage: per CPU and per epoch parity, the figures of the one slot
 * this CPU recorded last, in plain per-CPU memory, so the hot path never
 * shares a cache line with another CPU. Histogram buckets are kept in
 * STAGE_CELLS direct-mapped cells (bucket index modulo STAGE_CELLS): a
 * bucket whose cell another bucket holds spills to the home.
 *
 * The home: one record per slot, shared by all CPUs, updated with atomic
 * adds when a stage is evicted (its CPU moves to another slot) or a bucket
 * spills. Its memory does not grow with the number of CPUs.
 *
 * Userspace advances the epoch, waits for a grace period (no program can
 * still be writing the previous parity), then reads every CPU's stage of
 * the closed epoch and the homes that changed. Userspace writes no
 * figures: a stage whose epoch is stale is reset by BPF when next used, and
 * a slot's home is cleared only once the slot is unhooked and quiet.
 */
#define STAGE_CELLS	32	/* two octaves of the layout without a collision */

/*
 * The per-slot maps (records: home and captured name; irqs-off homes) come
 * in chunks of 1 << chunk_shift slots, made by userspace as slots are used
 * (an array of maps each, slot >> chunk_shift its index): kernel memory
 * follows what is tracked, and --max-entries is a ceiling. A chunk holds
 * 32 slots, more where --max-entries would need more than
 * SLOT_CHUNKS_MAX chunks (each a descriptor userspace keeps). Userspace
 * keeps chunks made ahead of use (slots_made, collect_chunks.c); a new
 * slot whose chunk is not there yet is not made, and its events are
 * counted in lost.entries_growing.
 */
#define SLOT_CHUNK_SHIFT_MIN	5
#define SLOT_CHUNKS_MAX		256

static inline unsigned int slot_chunk_shift(unsigned int max_slots)
{
	unsigned int shift = SLOT_CHUNK_SHIFT_MIN;

	while (shift < 24 && ((max_slots - 1) >> shift) >= SLOT_CHUNKS_MAX)
		shift++;
	return shift;
}

/*
 * Interval maxima: the epoch's low 28 bits above a 36-bit value (68 s, far
 * beyond any hold or flush; larger ones are capped). The tag repeats after
 * 2^28 reads: 8 years at one read a second, a month at one every 10 ms.
 */
#define IMAX_VALUE_BITS	36
#define IMAX_VALUE_MASK	((1ULL << IMAX_VALUE_BITS) - 1)
#define IMAX_TAG(epoch)	((__u64)((epoch) & ((1ULL << (64 - IMAX_VALUE_BITS)) - 1)) << \
			 IMAX_VALUE_BITS)

/* A cell keeps its count beside its bucket: one cache line per update. */
struct stage_cell {
	__u32 count;
	__u32 bucket;		/* the bucket index this cell counts */
};

/*
 * used has a bit for each cell in use: a cell whose bit is clear is empty,
 * whatever it holds, so that a stage is emptied by three stores, and an
 * eviction walks the cells in use, not all of them.
 */
struct stage_dist {
	__u64 sum;
	__u64 max;
	__u32 used;		/* 1 << cell index, of the cells in use */
	__u32 pad;
	struct stage_cell cell[STAGE_CELLS];	/* bucket index modulo STAGE_CELLS */
};

/* Whether cell i of a staged distribution counts anything. */
static inline int stage_cell_used(const struct stage_dist *sd, unsigned int i)
{
	return (sd->used >> (i & (STAGE_CELLS - 1))) & 1;
}

/*
 * A distribution's home. Bucket counts wrap at 2^32: userspace folds the
 * change at least once a second, far below 2^32 events per bucket. Its
 * size a multiple of a cache line, so that in a home whose records begin
 * on one (slot_home) the figures every eviction adds share one line.
 */
struct dist_rec {
	__u64 sum;
	__u64 max;		/* since load */
	__u64 imax[2];		/* by epoch parity: IMAX_TAG(epoch) | value */
	__u32 hist[HIST_BUCKETS];
} __attribute__((aligned(64)));

/*
 * The distributions: the one enum of BPF, the report and every view
 * (metrics.c describes each). A slot has the first DIST_ROW_MAX; irqs-off
 * (--irqoff trace) is staged by its own source and has its own home map,
 * which only that source sizes. The system-wide ones after them are the
 * total's only (compare).
 */
enum dist_id {
	DIST_HOLD, DIST_WAIT, DIST_FLUSH, DIST_IRQOFF, DIST_ROW_MAX,
	DIST_OUTSIDE = DIST_ROW_MAX,	/* irqs-off with no rstat hold inside (--irqoff trace) */
	DIST_LATE,		/* how late cpu-clock ticks came (--irqoff sample) */
	DIST_READ,		/* a workload's reads (report.workload): userspace only */
	DIST_ROUND,		/* ... and its polling rounds */
	DIST_MAX,
};
#define SLOT_HOME_DISTS	DIST_IRQOFF

/*
 * Where a whole flush's wall time went (docs/flushes.md): the sum of its
 * holds, of its contended waits, the hardirq and softirq time on its CPU
 * while it was open, the time it was switched out, rstatlat's own
 * programs between its holds, and the rest. The wall time is the flush
 * distribution's sum. BPF keeps every part but other, which userspace
 * derives: wall minus the rest.
 */
enum flush_part { PART_HELD, PART_WAIT, PART_IRQ, PART_OFFCPU, PART_SELF, PART_OTHER, PART_MAX };

/*
 * Where the parts come from (--flush-parts): the kernel's own accounting
 * read at each flush's start and end, or programs that time every
 * interrupt and context switch while a flush is open.
 */
enum parts_source { PARTS_FROM_NONE, PARTS_FROM_KERNEL, PARTS_FROM_TIMED };

/*
 * rstatlat's own time between a flush's holds (PART_SELF) is timed on one
 * hold in SELF_SAMPLE, at random: a second clock read on every hold would
 * cost more than the rest of the hold's programs. Each sample stands for
 * SELF_SAMPLE holds (a power of two: the draw is a mask).
 */
#define SELF_SAMPLE	16
/*
 * A hold whose own time comes to SELF_EXACT_NS or more (slow events with
 * their stacks, say) is followed by holds timed each, while they stay
 * that long: the clock read then costs a few % of them, and a sample of
 * such holds would weigh their spread SELF_SAMPLE times.
 */
#define SELF_EXACT_NS	1000

/*
 * rstatlat's own BPF time, shown at every run whatever
 * kernel.bpf_stats_enabled says: one run in OWN_SAMPLE of each program on
 * the rstat path, at random, reads the clock again at its end and adds
 * OWN_SAMPLE times what it took since its first clock read (lock_state
 * and memcg_state own_ns, which userspace adds up over the CPUs). The
 * locked program times itself when the unlock before it on its CPU was
 * drawn, as it draws nothing itself. A drawn run's time is counted as
 * kernel.bpf_stats_enabled counts it (own_took): with what its first
 * clock read costs and what bpf_stats' own adds (two reads in all).
 * Like bpf_stats, it leaves out the tracepoint's call into the program.
 */
#define OWN_SAMPLE	32
/*
 * A drawn run that took OWN_STRETCHED_NS or more was stretched by what
 * the program did not do (an NMI, or this vCPU preempted by its host):
 * an ordinary run takes well under 2 us, and the stretch happened to this
 * run alone, so it is counted once, as bpf_stats counts it. Counted
 * OWN_SAMPLE times, such runs read one 3 s run of a cold load at 1.74x
 * bpf_stats' figure for it (1.15x at most in 84 runs since).
 */
#define OWN_STRETCHED_NS 20000
/*
 * The unlock program draws once per timed run, not every run: it counts
 * down lock_state.own_left (on the line every hold touches) and times
 * itself at 1, then draws the next count, OWN_SAMPLE +- OWN_SPREAD (at 0,
 * its first run on a CPU, it draws the first count untimed): the
 * counts vary little, so that how many runs are timed does not, and vary
 * at all, so that no pattern of holds is timed at the same place. Holds
 * that take a new stage (a cgroup this CPU did not record last: dearer,
 * colder) count down their own own_left_fresh: each kind gets its share
 * of timed runs, and a cold load's mix of cheap and dear holds no longer
 * makes the estimate swing. OWN_LOCKED in own_left: the next locked
 * program times itself.
 */
#define OWN_SPREAD	8
#define OWN_LOCKED	0x80

/* What memcg:memcg_flush_stats (Linux 6.13+) said of a memcg's flush requests. */
enum memcg_decision { DECISION_ASKED, DECISION_FORCED, DECISION_SKIPPED, DECISION_MAX };

/*
 * The counters of a slot and of a row (metrics.c count_defs names each in
 * every view). Those before COUNT_SUMS are summed over CPUs, intervals and
 * runs; those after it are maxima. Flush parts and memcg decisions are
 * arrays of their own, by enum flush_part and enum memcg_decision.
 */
enum count_id {
	COUNT_LOCKED,		/* lock acquisitions */
	COUNT_CONTENDED,	/* acquisitions that had to wait */
	COUNT_FLUSH_HOLDS,	/* lock holds taken by whole flushes */
	COUNT_FLUSHES_OFFCPU,	/* whole flushes with offcpu time (PART_OFFCPU measured) */
	COUNT_SUMS,
	COUNT_FLUSH_HOLDS_MAX = COUNT_SUMS,	/* the most one flush took */
	COUNT_MAX,
};

/*
 * The top flusher, by a Boyer-Moore majority vote: votes for tgid merge
 * into the running (top, margin). True when tgid takes the lead, so that
 * the caller copies its comm. One vote per flush into a stage, a stage's
 * vote into its home (BPF), each read's into the run's (fold.c): a macro,
 * as the margins' types differ.
 */
#define VOTE_MERGE(top, margin, tgid, votes)					\
	({									\
		int lead_ = 0;							\
		if ((top) == (tgid) && (margin)) {				\
			(margin) += (votes);					\
		} else if ((votes) > (margin)) {				\
			(margin) = (votes) - (margin);				\
			(top) = (tgid);						\
			lead_ = 1;						\
		} else {							\
			(margin) -= (votes);					\
		}								\
		lead_;								\
	})

/* Counts of a slot, in the stage and the home alike. */
struct slot_counts {
	__u64 count[COUNT_MAX];	/* enum count_id */
	__u64 part[PART_MAX];	/* ns, summed over the slot's whole flushes */
	__u32 decisions[DECISION_MAX];	/* wrap at 2^32: userspace folds the change */
	__u32 pad_decisions;
	__u32 top_tgid;		/* Boyer-Moore majority vote over flushers */
	__u32 top_votes;
	char top_comm[RSL_COMM_LEN];
};

struct slot_stage {
	__u32 epoch;		/* low bits of the epoch these figures belong to */
	__u32 slot;		/* 1 + slot staged here; 0: none */
	struct slot_counts n;
	struct stage_dist d[SLOT_HOME_DISTS];
};

/*
 * make bench's cost attribution (bench/run, the cold load's and the
 * hammer's "attribution"): parts of the lock path cut, one config each, so
 * that the BPF time each takes on a load is measured against the floor.
 * The figures of such a run are wrong: set only by the RSTATLAT_BENCH_CUT
 * environment variable, which rstatlat warns of. A constant to the
 * verifier, which removes the cut branches from every other run.
 */
#define BENCH_CUT_EVICT	1	/* a stage's figures are dropped, not evicted into its home */
#define BENCH_CUT_INDEX	2	/* a new cgroup takes slot serial % 64, without the slot index */
#define BENCH_CUT_SLOTS	4	/* every cgroup counts in the first slot its CPU resolved */
#define BENCH_CUT_WAIT 8 /* a contended hold's wait is not recorded */
#define BENCH_CUT_FLUSH 16 /* holds not gathered into flushes: no flush, parts, cause */
#define BENCH_CUT_ALL 31 /* all of them: a hold timed and counted in one slot a CPU */

/* One distribution of one slot, staged by a source of its own. */
struct slot_dist_stage {
	__u32 epoch;
	__u32 slot;		/* 1 + slot; 0: none */
	struct stage_dist d;
};

/*
 * Flush causes. A sampled flush's kernel stack (taken at its end) is kept
 * in flush_stacks under a hash of its frames, until userspace names it and
 * writes the cause's id into the entry: from then on the stack's flushes
 * count under that id, so a slot's ways hold causes, not stacks (reclaim
 * alone has a stack per allocation site). A slot keeps CAUSE_WAYS keys,
 * claimed first come; flushes of further keys count in the way after them
 * (CAUSE_MORE). Each sample weighs the flushes it stands for, 1 / its
 * probability of being taken. Written only into the home, with atomics: a
 * sampled flush is rare enough.
 *
 * A stack costs microseconds (4 us here when the unwinder's tables are in
 * the cache, 40 us when they are not: the rarer the stacks, the dearer),
 * more than the rest of a short flush's programs together. So each CPU
 * samples one flush in cause_k, set every second (or sooner, when its
 * stacks come twice as fast as allowed) from the flushes and holds it saw:
 * at least cause_sample, and as many more as keep to one stack per
 * CAUSE_HOLDS_PER_STACK holds (a few ns a hold, whatever the flushes),
 * within 1 to CAUSE_STACKS_PER_S a second. A flush of CAUSE_ALWAYS_NS or
 * more takes a stack while the allowance lasts, then it is sampled like
 * the others. That is the default (cause_budgeted); a cause_sample the
 * user gives is one flush in cause_sample, and every long one, exactly:
 * 1 is every flush.
 */
#define CAUSE_ALWAYS_NS	1000000	/* 1 ms: its stack costs at most a few % of it */
#define CAUSE_STACKS_PER_S	32	/* per CPU: 0.1% of it at 40 us a stack, at most */
#define CAUSE_HOLDS_PER_STACK	16384	/* 2.5 ns a hold at 40 us a stack */
#define CAUSE_WINDOW_NS	1000000000ULL
#define CAUSE_K_MAX	(1U << 20)
#define CAUSE_WAYS	4
#define CAUSE_KEY_ID	(1ULL << 63)	/* a named cause: CAUSE_KEY_ID | id; else a stack's hash */
#define CAUSE_NO_STACK	(CAUSE_KEY_ID | 0xffffffffULL)	/* no stack could be taken or kept */
#define CAUSE_MORE	(CAUSE_KEY_ID | 0xfffffffeULL)	/* a key beyond the slot's ways */

/* A kept stack: its frames and, once userspace named it, its cause. */
struct cause_stack {
	__u64 ip[RSL_CAUSE_FRAMES];
	__u32 cause;		/* the cause's id (>= 1), 0 until named */
	__u32 pad;
};

/* The counters wrap at 2^32: userspace folds their change at least once a second. */
struct cause_way {
	__u64 key;		/* CAUSE_KEY_ID | id, a stack's hash, CAUSE_NO_STACK, CAUSE_MORE; 0 = unclaimed */
	__u32 samples;		/* sampled flushes */
	__u32 weight;		/* the flushes they stand for */
	__u64 weight_ns;	/* their wall times, each times its weight */
};

/*
 * Laid out by what an eviction touches, which on a host whose flushes are
 * sparse is out of the cache: the counts (two lines), then each
 * distribution's sums on a line of its own and its buckets; the causes,
 * written by one flush in thousands, last. The map is mmapable only so
 * that the kernel puts its records on page boundaries, hence on lines.
 */
struct slot_home {
	struct slot_counts n;
	struct dist_rec d[SLOT_HOME_DISTS];
	struct cause_way cause[CAUSE_WAYS + 1];	/* the last: CAUSE_MORE */
} __attribute__((aligned(64)));

/* A slot's record in its chunk: its home, and its name (written once). */
struct slot_rec {
	struct slot_home home;
	struct slot_meta meta;
} __attribute__((aligned(64)));

/*
 * A flush in progress, kept by the CPU its holds come on (lock_state.fl),
 * without a lookup in a task's storage on the lock path. A flusher
 * switched out between holds may go on on another CPU: its first hold
 * there finds the record on the CPU it left, or parked (flush_parked)
 * when another flush began there meanwhile, or with timed parts when it
 * was switched out. Whoever moves a record takes it first (a
 * compare-and-swap of tid to 0), so that it is moved once. Its parts are
 * summed here and go to the slot's stage at its end, with its wall time:
 * a flush not recorded (its beginning unseen) adds no parts.
 */
struct flush_state {
	/* what every hold of it touches, first */
	__u64 cgrp;		/* 0: none */
	__u32 tid;		/* the flushing task's pid; 0: taken by another CPU */
	__s32 last_lock_cpu;	/* the lock cpu of its last hold */
	__u32 holds;		/* its holds so far */
	__u16 lock;		/* the lock it holds (LOCK_*), for its holds to come */
	__u16 pad0;
	__u64 held;		/* its parts so far (enum flush_part) */
	__u64 wait;
	__u64 self;
	__u8 whole;		/* began at lock cpu -1: ends at unlock -1 */
	__u8 paired;		/* every hold locked and unlocked one cpu */
	__u8 moved;		/* its holds came on more than one CPU */
	__u8 pad;
	__u32 slot;
	__u64 start;		/* 0: its beginning was not seen: not recorded */
	__u64 run_delay;	/* --flush-parts kernel: the task's sched_info.run_delay at start */
	__u64 irq;		/* --flush-parts timed: irq time on the CPUs it left */
	__u64 offcpu;		/* ... its time switched out */
	__u64 irq_mark;		/* ... this CPU's irq_ns when it came here */
	__u64 off_ts;		/* ... when it was switched out; 0: on a CPU */
	/* flushers: its holds by octave (hist_octave); holds per flush are at most a few per CPU */
	__u16 hold_oct[RSL_FLUSHER_OCTAVES];
};

/* The last slot resolved on one CPU by one path (resolve_slot). */
struct slot_cache {
	__u64 cgrp;		/* the cgroup's pointer, */
	__u64 serial;		/* its css serial_nr (a new cgroup at a freed address has another), */
	__u32 tgid;
	__u32 slot;
	__u32 valid;		/* 1 + cache_gen when filled, 0 = empty */
	__u16 lock;
	__u16 pad;
	__u64 type;		/* ... and its lock type (slot_key.lock_type) */
};

/*
 * The slot index: a slot found by its cgroup's serial number without the
 * slot map's hash. Shared by every CPU, direct-mapped (a hash of the key
 * picks the entry), written on a slot map hit, read-mostly: one cache line
 * where the hash walks a bucket and its element, and reads the cgroup's
 * kernfs id and hierarchy, each cold on a host whose flushes are sparse.
 * Entries are written without atomics, so a reader may see two writers'
 * words mixed: check, a hash of the other three, tells such an entry from a
 * whole one. slot_gen is the slot and the cache generation it was found
 * under (resolve_slot), so a retirement empties every entry at once.
 */
#define SLOT_INDEX_ENTRIES	8192	/* 256 KiB; a collision falls back to the hash */

struct slot_index_entry {
	__u64 serial;		/* the cgroup's css serial_nr; 0: empty */
	__u64 who;		/* tgid << 16 | lock (slot_key) */
	__u64 slot_gen;		/* slot << 32 | (1 + cache_gen) */
	__u64 check;		/* slot_index_check(serial, who, slot_gen) */
};

static inline __u64 slot_index_check(__u64 serial, __u64 who, __u64 slot_gen)
{
	return (serial * FNV1A_PRIME) ^ ((who + 1) * 0x9e3779b97f4a7c15ULL) ^
	       (slot_gen * 0xc2b2ae3d27d4eb4fULL);
}

static inline __u32 slot_index_of(__u64 serial, __u64 who)
{
	return (__u32)(((serial ^ (who << 20)) * 0x9e3779b97f4a7c15ULL) >> 51) &
	       (SLOT_INDEX_ENTRIES - 1);
}

/* Memcg flush decisions of one slot, staged like a slot's figures (slot_stage). */
struct decision_stage {
	__u32 epoch;
	__u32 slot;		/* 1 + slot staged here; 0: none */
	__u32 n[DECISION_MAX];
	__u32 pad;
};

/*
 * memcg:memcg_flush_stats's program's own state on a CPU. That tracepoint
 * fires with irqs on, and where tracepoints run preemptible (7.x kernels:
 * under SRCU, with only migration off) its program can be switched out
 * midway while a lock program runs on this CPU: a stage or cache shared
 * with them lost their figures (1 hold in 3 000 on 7.3). So it shares
 * nothing with them; another run of the same program on this CPU meanwhile
 * is refused by the kernel's recursion guard (lost.program_skipped).
 */
struct memcg_state {
	struct slot_cache cache;
	struct decision_stage stage[2];	/* by epoch parity */
	__u64 rand;		/* its own sampling (OWN_SAMPLE) */
	__u64 own_ns;
};

/*
 * Per-CPU state of the rstat lock source. The lock is taken with irqs off,
 * so a hold's locked and unlock events come on one CPU: locked only notes
 * the hold here (a clock read and a few stores, the floor), and unlock
 * does the rest, between holds, where a flush's own time is measured
 * (PART_SELF). It also caches the last slot resolved, keeps the flush
 * whose holds come here, and stages that slot's figures.
 */
struct lock_state {
	/* what every hold touches, first */
	__u64 locked_ts;	/* 0 when this CPU holds no measured lock */
	__u64 locked_cgrp;	/* cgroup pointer of the current hold */
	__u64 contended_ts;	/* the contended event before it, 0 if none */
	__s32 locked_lock_cpu;	/* the locked event's cpu argument */
	__u8 locked_contended;
	__u8 self_rare;		/* this hold's unlock did rare work: timed, not sampled */
	__u8 self_exact;	/* the last hold timed took SELF_EXACT_NS or more: time each */
	__u8 own_left;		/* lock programs: runs until one times itself; OWN_LOCKED (OWN_SAMPLE) */
	struct slot_cache cache;	/* the holds' slot cache; only its type is past the first line */
	__u16 hold_lock;	/* the lock of the hold being taken up (lock_rows) */
	__u16 pad3[3];
	__u64 type_ptr;		/* the last lock type string read here, and */
	__u64 type_val;		/* its first bytes: strings are the kernel's constants */
	__u64 hold_end;		/* --irqoff sample: when the last hold here ended */
	struct flush_state fl;
	/* what a flush's first and last holds touch */
	__u32 cause_k;		/* one flush in cause_k takes one (rstatlat.h, causes) */
	__u8 own_left_fresh;	/* own_left's count for holds that take a new stage (OWN_SAMPLE) */
	__u8 pad4[3];
	__u32 cause_taken;	/* stacks taken since cause_window */
	__u32 cause_flushes;	/* flushes that ended since cause_window */
	__u32 cause_holds;	/* ... and their holds */
	__u32 cause_allowed;	/* stacks a second now */
	__u64 cause_window;	/* when this window of the stack budget began */
	__u64 walked_cgrp;	/* cgroup of the per-CPU walk that just ended here */
	__u64 rand;		/* xorshift state for sampling; 0: not seeded */
	__u64 own_ns;		/* the lock programs' own run time, sampled (OWN_SAMPLE) */
	/* --irqoff trace: what irqs_on attributes an interval by */
	__u64 hold_start;	/* when the last hold on this CPU began */
	__u32 hold_slot;	/* ... and its slot */
	__u32 pad1;
	/* --flush-parts timed: what the irq and sched_switch programs keep */
	__u64 contended_irq;	/* irq_ns at the contended event */
	__u64 irq_ns;		/* hardirq and softirq time on this CPU while a flush was open */
	__u64 irq_since;	/* when the outermost irq being handled began */
	__u32 irq_depth;	/* irq and softirq handlers nested now */
	__u32 pad2;
	struct slot_stage stage[2];	/* by epoch parity */
	struct memcg_state memcg;	/* the memcg program's, and only its */
	__u64 locked_task;	/* PREEMPT_RT only: the task of the current hold */
};

/* A staged system-wide distribution with its count of events. */
struct sys_stage {
	__u32 epoch;
	__u32 pad;
	__u64 events;		/* sample: ticks; trace: unused */
	struct stage_dist d;
};

/* --irqoff trace: the irqs-off interval open on this CPU. */
struct irq_state {
	__u64 off_ts;		/* 0: irqs on (as far as we saw) */
	__u64 off_ip;
	__u64 off_parent;
	struct sys_stage outside[2];	/* intervals with no rstat hold inside */
	struct slot_dist_stage slot[2];	/* intervals with one: their slot's */
};

/* --irqoff sample: when the previous cpu-clock tick ran. */
struct tick_state {
	__u64 last;
	struct sys_stage stage[2];	/* events: ticks; d: how late they came */
};

struct cpu_lock_stage {
	__u32 epoch;
	__u32 pad;
	__u64 locked;
	__u64 contended;
	struct stage_dist hold;
	struct stage_dist wait;
};

/*
 * The per-CPU rstat lock (cgroup_rstat_cpu_lock, Linux 6.10-6.16), measured
 * system-wide, not per cgroup: its holds are short and hot.
 */
struct cpu_lock_state {
	__u64 locked_ts;
	__u64 contended_ts;
	struct cpu_lock_stage stage[2];
};

/* Homes of the system-wide distributions: what spilled from the stages. */
enum sys_dist { SYS_IRQ_OUTSIDE, SYS_TICK_LATE, SYS_CPU_LOCK_HOLD, SYS_CPU_LOCK_WAIT, SYS_MAX };

struct sys_home {
	struct dist_rec d[SYS_MAX];
};

/* What produced the figures: the attach plan's source. */
enum rsl_source {
	SOURCE_TRACEPOINT,	/* cgroup_rstat_* tracepoints */
	SOURCE_FENTRY,		/* fentry/fexit on the flush functions */
	SOURCE_KPROBE,		/* kprobe/kretprobe on the flush functions */
};

enum lost_kind {
	LOST_ENTRIES_FULL,	/* no entry (slot) left for a new cgroup/process */
	LOST_RINGBUF_FULL,	/* slow event dropped */
	LOST_UNPAIRED_UNLOCK,	/* unlock with no matching locked */
	LOST_RELOCKED,		/* locked while this CPU already held one */
	LOST_WAIT_MIGRATED,	/* contended and locked seen by different tasks */
	LOST_STACK,		/* slow event without a kernel stack */
	LOST_FLUSH_OPEN,	/* a flush never saw its last release, or its record was lost */
	LOST_RETIRED,		/* userspace: a recycled slot's figures, out of memory */
	LOST_CAUSE_STACK,	/* a sampled flush without a stack: cause "unknown" */
	LOST_SKIP_UNTRACKED,	/* a skipped memcg request of a cgroup without a slot */
	LOST_FLUSH_UNSEEN,	/* a flush whose first hold was not seen (not counted) */
	LOST_LOCK_SCOPE,	/* a task's lock scope not kept (lock_scopes full): "(unknown)" */
	LOST_PROG_SKIPPED,	/* userspace: runs the kernel skipped (recursion on a CPU) */
	LOST_FLUSHERS_FULL,	/* flushes of comms with no flusher record left: in the overflow */
	LOST_SLOW_UNPRINTED,	/* userspace: slow events of a flood still waiting at the end */
	LOST_ENTRIES_GROWING,	/* a new entry's chunk not made yet (slot_chunk_shift) */
	LOST_STAGE_UNNAMED,	/* userspace: a CPU's staged figures of a slot not described */
	LOST_MAX,
};

/*
 * Flushers (the exporter's --prom-max-flushers): each recorded flush's
 * figures by the comm of its process (the group leader's, as -p names a
 * process; a kernel thread's up to its first '/', so that every
 * kworker/N:M is "kworker"). Kept per flush, not per hold: a hold adds one
 * to its octave in its flush (flush_state.hold_oct), and the flush's end
 * adds the flush to its CPU's flusher stage, without atomics. A stage holds
 * one comm's flushes of one epoch (flusher_stages, by epoch parity, as the
 * slots' stages: userspace adds those of the epoch it closes); a flush of
 * another comm in the same epoch first spills the stage into the comm's
 * record (flushers, a hash shared by every CPU, atomic adds; userspace
 * adds what each record grew). Octaves suffice: the exporter's bucket
 * bounds are powers of two. A comm that finds the hash full spills into
 * the overflow record (FLUSHER_OVERFLOW, made by userspace) and is counted
 * lost.
 */
struct flusher_key {
	char comm[RSL_COMM_LEN];
} __attribute__((aligned(8)));	/* compared as two __u64 */

/* No comm can be this: its bytes after the first NUL are not 0. */
#define FLUSHER_OVERFLOW	{ .comm = { 0, 1 } }

struct flusher_rec {
	__u64 flushes;
	__u64 holds;		/* holds of its flushes */
	__u64 flush_ns;		/* their wall time */
	__u64 hold_ns;		/* their holds' time */
	__u64 flush_oct[RSL_FLUSHER_OCTAVES];
	__u64 hold_oct[RSL_FLUSHER_OCTAVES];
};

struct flusher_stage {
	__u32 epoch;		/* the epoch its figures are of */
	__u32 tgid;		/* the process it last added: the same one reads no comm */
	struct flusher_key key;	/* the comm its figures are of; none while flushes is 0 */
	__u32 flushes;
	__u32 holds;
	__u64 flush_ns;
	__u64 hold_ns;
	__u32 flush_oct[RSL_FLUSHER_OCTAVES];
	__u32 hold_oct[RSL_FLUSHER_OCTAVES];
};

/* A removed cgroup (cgroup:cgroup_rmdir), as slot_key names it. */
struct cgroup_gone {
	__u64 cgid;
	__u32 hierarchy;
	__u32 pad;
};

enum slow_kind {
	SLOW_HOLD = 0,
	SLOW_WAIT = 1,
	SLOW_IRQOFF = 2,	/* an irqs-off interval with an rstat hold inside */
	SLOW_TICK = 3,	/* a late cpu-clock tick */
};

/* A slow event: one hold, wait, irqs-off interval or late tick at or above the threshold. */
struct slow_event {
	__u64 ts;		/* CLOCK_MONOTONIC ns at the end of the interval */
	__u64 duration_ns;
	__u64 cgid;
	__u32 hierarchy;
	__u32 kind;		/* enum slow_kind */
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

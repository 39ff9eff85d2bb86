// SPDX-License-Identifier: GPL-2.0
/*
 * rstatlat: cgroup rstat lock wait and hold times, per flushed cgroup.
 *
 * Map of this file, in order (each part opens with a "----" line):
 *   knobs and globals          set by userspace before load / shared .bss
 *   maps                       per-slot records, chunked (slot_recs, slot_irqoff),
 *                              slot tables (slot_seen, slot_ids, slot_index,
 *                              free_slots), sys_home; per-source state:
 *                              lock_state (rstat lock), irq_state (trace),
 *                              tick_state (sample), cpu_lock_state (per-CPU
 *                              lock), task_flush (fallback's flushes),
 *                              flush_parked (flushes waiting to go on);
 *                              lost; the -t ring buffer; flush_stacks and
 *                              stack_buf (causes)
 *   slots                      path capture (CO-RE: kernfs before/after 6.15),
 *                              creation, per-CPU cache
 *   home                       shared by all CPUs, atomic (rstatlat.h)
 *   stage                      this CPU's, plain; evicted into the home
 *   slow events (-t)           ring buffer records with stacks
 *   rstat lock tracepoints     locked / unlock / contended; causes; flushes
 *                              kept per CPU, parked, found when they move
 *   per-CPU lock tracepoints   6.10-6.16, system-wide
 *   timed flush parts          irq time per CPU, flushers switched out
 *   memcg flush decisions      memcg:memcg_flush_stats (6.13+)
 *   fallback                   fentry/kprobe on the flush functions (< 6.10)
 *   irqs-off                   preemptirq tracepoints (trace), cpu-clock (sample)
 *
 * The rstat lock is taken with spin_lock_irq(), so between the locked and
 * unlock tracepoints the holder cannot leave its CPU: per-CPU state pairs
 * them, and the figures go to this CPU's stage, which no other CPU writes.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "rstatlat.h"

char LICENSE[] SEC("license") = "GPL";

#define EEXIST		17

/* task_struct.flags: exiting, a kernel thread (include/linux/sched.h, unchanged since 2.6) */
#define PF_EXITING	0x00000004
#define PF_KTHREAD	0x00200000

/* ---- knobs and globals ---- */

/* Knobs, set by userspace before load. */
const volatile __u32 targ_tgid = 0;	/* only this process flushes, 0 = all */
const volatile bool per_process = false;	/* key slots by tgid too (-p) */
const volatile __u64 threshold_ns = 0;	/* -t threshold, 0 = off */
const volatile __u32 max_slots = 1;	/* max_entries of the slot maps */
const volatile bool irqoff_trace = false;	/* --irqoff trace: slot_irqoff is sized */
const volatile __u32 chunk_shift = SLOT_CHUNK_SHIFT_MIN;	/* slots a chunk holds: 1 << it */
/*
 * Where the rstat tracepoints keep their arguments, read from the
 * prototype in BTF by the probe: (cgrp, cpu, contended) today, and
 * proposed forms without cpu or with a lock argument added.
 */
const volatile __u32 arg_cgrp = 0;
const volatile __s32 arg_cpu = 1;	/* -1: no cpu argument */
const volatile __u32 arg_contended = 2;
/* the lock type argument (an rwlock's "read"/"write", RFC 2026-05); -1: none */
const volatile __s32 arg_type = -1;
/* The per-CPU lock's tracepoints (6.10-6.16), located the same way. */
const volatile __u32 cpu_lock_arg_contended = 2;
/*
 * The lowest and highest possible CPU: a flush that locks per CPU begins
 * at the first and ends at the release of the last.
 */
const volatile __s32 first_cpu = 0;
const volatile __s32 last_cpu = 0;
/* --irqoff sample: the cpu-clock period; 0 = not sampling */
const volatile __u64 tick_period_ns = 0;
/*
 * Where flush parts come from (enum parts_source): the task's scheduler
 * accounting read at a flush's start and end, or the irq and sched_switch
 * programs (attached only then); PARTS_FROM_NONE: no parts.
 */
const volatile __u32 parts_from = PARTS_FROM_NONE;
/* One flush in cause_sample takes a stack for its cause; 0 = causes off. */
const volatile __u32 cause_sample = 0;
/* ... and fewer where flushes come fast (rstatlat.h, causes): the default */
const volatile bool cause_budgeted = false;
/*
 * Holds are told apart by lock (rstatlat.h, LOCK_*): the lock scope
 * programs are attached and keep each task's open scope in lock_scopes.
 */
const volatile bool lock_rows = false;
/* Flushes are added up by comm (rstatlat.h, flushers): the exporter's flusher series. */
const volatile bool count_flushers = false;
/*
 * PREEMPT_RT: a holder of the rstat lock can be preempted, and another
 * task take another subsystem's lock on its CPU (lost.relocked): each hold
 * is then paired with its own task's unlock, never timed from another's.
 */
const volatile bool holds_preemptible = false;

/* make bench's cost attribution only (rstatlat.h, BENCH_CUT_*): 0 in every real run */
const volatile __u32 bench_cut = 0;

/* Shared with userspace through the mmapped .bss. */
__u64 epoch = 0;	/* advanced by userspace at every read (rstatlat.h) */
/*
 * Set once all programs are attached: before that, a locked event whose
 * unlock program is not attached yet would leave this CPU "holding".
 */
__u32 armed = 0;
/*
 * Bumped by userspace when it retires slots: a per-CPU cache filled under
 * an older generation may name a slot that is being reused, so it no
 * longer hits.
 */
__u32 cache_gen = 0;
__u32 next_slot = 0;	/* slot numbers handed out so far */
/* slots whose chunks userspace has made (rstatlat.h, slot_chunk_shift) */
__u32 slots_made = 0;
/* the grow bell was rung and userspace has not made chunks since */
__u32 grow_rung = 0;
/* ... and is rung when this few made slots are left: 3/4 of those ahead */
__u32 grow_at = 0;
/*
 * Set once a flush is seen taking the lock per CPU (locked and unlock of the
 * same cpu, for every possible CPU): from then on a hold of lock cpu -1 is
 * cpu.stat reading its totals, not a flush.
 */
__u32 per_cpu_walks = 0;
/*
 * Flushes in flush_parked: while there is none, neither a context switch
 * nor a flush's move looks there.
 */
__u32 flushes_parked = 0;
/* A removal did not fit in cgroups_gone: userspace checks every cgroup, then clears it. */
__u32 cgroups_gone_missed = 0;

/*
 * Fallback (the flush functions): one flush call of the current task,
 * with the task, as the functions' entries and exits are per task.
 */
struct task_flush {
	__u64 start;		/* 0: no flush open */
	__u64 cgrp;
	__u64 hold_start;	/* inside cgroup_rstat_flush_locked */
	__u32 slot;
	__u32 holds;
	__u32 outer;		/* opened by an outer flush function */
	__u32 pad;
};

/*
 * The locks a task's flushes take, from the functions that name them
 * (lock_rows): a stack, as cgroup_base_stat_cputime_show() calls
 * css_rstat_flush(); nothing nests deeper. Each level keeps the address
 * of its call's frame (the fentry ctx, on the task's stack, the same for
 * its fexit): a level is live while its frame lies above the stack
 * pointer, so a level whose exit the kernel skipped is seen to be gone,
 * and an exit whose entry it skipped pops nothing. Kept while the task
 * is inside one, by its pid.
 */
struct lock_scope {
	__u64 frame[2];
	__u16 lock[2];
	__u32 depth;	/* levels kept, 0-2 */
};

/* ---- maps ---- */

/*
 * The per-slot maps, in chunks made by userspace as slots are used
 * (rstatlat.h, slot_chunk_shift): each chunk an array, mmapable only so
 * that the kernel lays its records on page boundaries, hence on lines
 * (rstatlat.h, slot_home). Its size in chunk_shift, set with the chunks'
 * max_entries by userspace.
 */
struct rec_chunk {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1 << SLOT_CHUNK_SHIFT_MIN);	/* set by userspace */
	__uint(key_size, sizeof(__u32));
	/* a size, not a type: BTF would only have a forward declaration of it here */
	__uint(value_size, sizeof(struct slot_rec));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);	/* resized by userspace: chunks of --max-entries */
	__type(key, __u32);
	__array(values, struct rec_chunk);
} slot_recs SEC(".maps");

/* --irqoff trace: irqs-off intervals with a hold inside, per slot (else no chunk). */
struct irqoff_chunk {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1 << SLOT_CHUNK_SHIFT_MIN);	/* set by userspace */
	__uint(key_size, sizeof(__u32));
	/* a size, not a type: BTF would only have a forward declaration of it here */
	__uint(value_size, sizeof(struct dist_rec));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);	/* resized by userspace */
	__type(key, __u32);
	__array(values, struct irqoff_chunk);
} slot_irqoff SEC(".maps");

/*
 * The epoch in which each slot's home last changed: what userspace reads,
 * mapped. 64-bit values: an array's elements are 8-byte aligned, so that is
 * the stride userspace sees anyway.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);	/* resized by userspace */
	__type(key, __u32);
	__type(value, __u64);
} slot_seen SEC(".maps");

/* Grown as slots are made: --max-entries is its ceiling, not what it takes. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);	/* resized by userspace */
	__type(key, struct slot_key);
	__type(value, __u32);
} slot_ids SEC(".maps");



/* The slot index (rstatlat.h): the common path's way to a slot. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLOT_INDEX_ENTRIES);
	__type(key, __u32);
	__type(value, struct slot_index_entry);
} slot_index SEC(".maps");

/* Slots of removed cgroups and exited flushers, handed back by userspace. */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 1);	/* resized by userspace */
	__type(value, __u32);
} free_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sys_home);
} sys_home SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lock_state);
} lock_state SEC(".maps");

/* The maps of optional sources are not created when their source is off. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_state);
} irq_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tick_state);
} tick_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_lock_state);
} cpu_lock_state SEC(".maps");

/* Fallback: the flush of each task (task_flush). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_flush);
} task_flush SEC(".maps");

/*
 * lock_rows: the open lock scopes of the tasks inside one, by pid. A
 * preallocated hash, not task storage, whose creation can fail while
 * another task on the CPU is in a storage call: an insert here fails only
 * when full, and says so (LOST_LOCK_SCOPE). A scope program the kernel
 * skips (preempted, then re-entered on its CPU) leaves its flush's holds
 * "(unknown)", counted by userspace as program_skipped.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RSL_LOCK_SCOPE_TASKS);
	__type(key, __u32);
	__type(value, struct lock_scope);
} lock_scopes SEC(".maps");

/*
 * Flushes whose task was switched out between holds while another flush
 * began on its CPU, or (timed parts) as it was switched out: by task,
 * until it goes on (rstatlat.h, flush_state). flushes_parked counts them.
 * Not preallocated (0.3 MiB): a parked flush is rare, and only the rstat
 * tracepoints' programs (6.10+) park one, where the kernel's hash maps
 * allocate from per-CPU caches (6.1+), safe under sched_switch's rq lock.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, __u32);	/* the task's pid */
	__type(value, struct flush_state);
} flush_parked SEC(".maps");

/*
 * cgroup:cgroup_rmdir, where the kernel has it: the cgroups removed since
 * the last read, so that userspace need not stat each idle one. A full
 * queue sets cgroups_gone_missed: userspace then checks them all once.
 */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, RSL_CGROUPS_GONE);
	__type(value, struct cgroup_gone);
} cgroups_gone SEC(".maps");

/*
 * count_flushers: the comms' spilled flushes (rstatlat.h, flushers); not
 * created otherwise. Not preallocated (0.46 MiB for RSL_FLUSHERS): only
 * the unlock program inserts, as into flush_stacks.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, RSL_FLUSHERS);
	__type(key, struct flusher_key);
	__type(value, struct flusher_rec);
} flushers SEC(".maps");

/* What a comm's first spill inserts: too large for the stack. */
const struct flusher_rec flusher_zero = {};

/* count_flushers: each CPU's flusher stage, by epoch parity (not created otherwise). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct flusher_stage);
} flusher_stages SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LOST_MAX);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);	/* resized by userspace */
} events SEC(".maps");

/* Wakes userspace to make chunks (ring_grow_bell): what it says is not read. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} grow_bell SEC(".maps");

/*
 * Flush causes: the stacks of sampled flushes at their end, by a hash of
 * their frames, named by userspace (rstatlat.h). Not a stack trace map:
 * one whose bucket another stack holds is lost to it for the whole run.
 * Not preallocated: a host has a few dozen causes, not RSL_CAUSE_STACKS
 * (0.27 MiB preallocated); only the unlock program inserts, with the
 * rstat lock held, never under the scheduler's locks, as slot_ids.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, RSL_CAUSE_STACKS);	/* 1 when causes are off */
	__type(key, __u64);
	__type(value, struct cause_stack);
} flush_stacks SEC(".maps");

/* Where a stack is taken before it is hashed (tracepoints run with preemption off). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cause_stack);
} stack_buf SEC(".maps");

/* ---- slots: a cgroup (x process with -p) and its number ---- */

/* Slot slot's record in a chunked map (rstatlat.h): NULL before its chunk is made. */
static __always_inline void *chunk_elem(void *chunks, __u32 slot)
{
	__u32 chunk = slot >> chunk_shift, i = slot & ((1U << chunk_shift) - 1);
	void *m = bpf_map_lookup_elem(chunks, &chunk);

	return m ? bpf_map_lookup_elem(m, &i) : NULL;
}

/* Before 6.15 kernfs_node's parent pointer was called "parent". */
struct kernfs_node___pre615 {
	struct kernfs_node *parent;
} __attribute__((preserve_access_index));

static __always_inline void count_lost_n(__u32 kind, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&lost, &kind);

	if (v)
		*v += n;
}

static __always_inline void count_lost(__u32 kind)
{
	count_lost_n(kind, 1);
}

static __always_inline struct kernfs_node *kn_parent(struct kernfs_node *kn)
{
	if (bpf_core_field_exists(kn->__parent))
		return BPF_CORE_READ(kn, __parent);
	return BPF_CORE_READ((struct kernfs_node___pre615 *)kn, parent);
}

/*
 * One component at names[off]: as much of it as fits, up to RSL_NAME_LEN
 * while there is room for that, then a half, then a quarter (each read a
 * constant size at an offset the verifier sees bounded). Its length with
 * the NUL; *cut: it did not fit whole; 0: no room left.
 */
static __always_inline long capture_name(struct slot_meta *meta, __u32 off, const char *name,
					 bool *cut)
{
	long len, size;

	if (off <= RSL_NAMES_LEN - RSL_NAME_LEN) {
		size = RSL_NAME_LEN;
		len = bpf_probe_read_kernel_str(&meta->names[off], RSL_NAME_LEN, name);
	} else if (off <= RSL_NAMES_LEN - RSL_NAME_LEN / 2) {
		size = RSL_NAME_LEN / 2;
		len = bpf_probe_read_kernel_str(&meta->names[off], RSL_NAME_LEN / 2, name);
	} else if (off <= RSL_NAMES_LEN - RSL_NAME_LEN / 4) {
		size = RSL_NAME_LEN / 4;
		len = bpf_probe_read_kernel_str(&meta->names[off], RSL_NAME_LEN / 4, name);
	} else {
		return 0;
	}
	*cut = len >= size;
	return len;
}

/*
 * Copy the cgroup's path, leaf first, so that a cgroup removed before
 * userspace looks at it still has a name. Components are packed: each
 * takes its length, so a typical container path fits in RSL_NAMES_LEN,
 * its leaf (the container's id) first and whole.
 * Global, so verified once (dist_evict says why); the node comes as a
 * number and is read through probe reads.
 */
__noinline int capture_path(struct slot_meta *meta, __u64 node)
{
	struct kernfs_node *kn = (struct kernfs_node *)node, *parent;
	__u32 off = 0, depth = 0;
	bool cut = false;
	long len;

	if (!meta)
		return 0;
	for (int i = 0; i < RSL_MAX_DEPTH; i++) {
		parent = kn_parent(kn);
		if (!parent)
			break;
		len = capture_name(meta, off, BPF_CORE_READ(kn, name), &cut);
		if (len <= 0) {
			meta->truncated = 1;
			break;
		}
		if (cut)
			meta->truncated = 1;
		off += len;
		depth++;
		kn = parent;
	}
	if (kn && kn_parent(kn))
		meta->truncated = 1;
	meta->depth = depth;
	return 0;
}

/* The start of the current process, to tell it from a later one with its pid. */
static __always_inline __u64 process_start(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return BPF_CORE_READ(task, group_leader, start_boottime);
}

/* Marks a slot's home as changed in this epoch. */
static __always_inline void touch(__u32 slot)
{
	__u64 *seen = bpf_map_lookup_elem(&slot_seen, &slot);
	__u64 e = epoch;

	if (seen && *seen != e)
		*seen = e;
}

/*
 * A quarter of the made slots ahead are used (grow_at): userspace is woken to
 * make more at once (collect_chunks.c), rather than at its next look.
 * Rung once until it has made them (grow_rung).
 */
static __always_inline void ring_grow_bell(void)
{
	__u32 left = slots_made - next_slot;

	if (!grow_rung && !__sync_val_compare_and_swap(&grow_rung, 0, 1))
		bpf_ringbuf_output(&grow_bell, &left, sizeof(left), BPF_RB_FORCE_WAKEUP);
}

static __noinline int create_slot(struct cgroup *cgrp, struct slot_key *key)
{
	struct slot_meta *meta;
	struct slot_rec *rec;
	__u32 *existing;
	__u32 n;

	/* a recycled slot first, else a fresh number */
	if (bpf_map_pop_elem(&free_slots, &n)) {
		/*
		 * Look before taking a number: once full, every event of an
		 * unknown cgroup comes here, and an unchecked counter would
		 * wrap around and hand out live slots again.
		 */
		if (next_slot >= max_slots) {
			count_lost(LOST_ENTRIES_FULL);
			return -1;
		}
		if (next_slot >= slots_made) {
			ring_grow_bell();
			count_lost(LOST_ENTRIES_GROWING);
			return -1;
		}
		n = __sync_fetch_and_add(&next_slot, 1);
		if (n >= max_slots) {
			count_lost(LOST_ENTRIES_FULL);
			return -1;
		}
		if (slots_made - n <= grow_at)
			ring_grow_bell();
	}
	rec = chunk_elem(&slot_recs, n);
	meta = rec ? &rec->meta : NULL;
	if (!meta) {
		/* its chunk is not made yet: the number waits for it */
		bpf_map_push_elem(&free_slots, &n, 0);
		count_lost(LOST_ENTRIES_GROWING);
		return -1;
	}
	meta->key = *key;
	meta->flusher_cgid = bpf_get_current_cgroup_id();
	meta->flusher_start = key->tgid ? process_start() : 0;
	bpf_get_current_comm(meta->comm, sizeof(meta->comm));
	capture_path(meta, (__u64)BPF_CORE_READ(cgrp, kn));
	/*
	 * Whole before the insert makes it another CPU's to find: a program
	 * preempted in between (7.x) would leave its staged figures a slot
	 * userspace cannot name (lost.stage_unnamed). Nothing reads the
	 * slot until then but this program.
	 */
	meta->state = SLOT_READY;
	if (bpf_map_update_elem(&slot_ids, key, &n, BPF_NOEXIST) == 0)
		return n;
	/*
	 * Another CPU created the same key first: use its slot. This one is
	 * marked changed, so that userspace sees it and hands it back.
	 */
	meta->state = SLOT_DISCARDED;
	touch(n);
	existing = bpf_map_lookup_elem(&slot_ids, key);
	if (!existing) {
		count_lost(LOST_ENTRIES_FULL);
		return -1;
	}
	return *existing;
}

/*
 * tp_btf and fentry see a typed cgroup pointer and read through it
 * directly; kprobes get a plain address and go through probe reads.
 */
static __always_inline void cgroup_ident(struct cgroup *cgrp, bool typed, __u64 *cgid,
					 __u16 *hierarchy)
{
	if (typed) {
		*cgid = cgrp->kn->id;
		*hierarchy = cgrp->root->hierarchy_id;
	} else {
		*cgid = BPF_CORE_READ(cgrp, kn, id);
		*hierarchy = BPF_CORE_READ(cgrp, root, hierarchy_id);
	}
}

/* Unique to each cgroup made since boot: tells a new cgroup at a freed one's address. */
static __always_inline __u64 cgroup_serial(struct cgroup *cgrp, bool typed)
{
	return typed ? cgrp->self.serial_nr : BPF_CORE_READ(cgrp, self.serial_nr);
}

/*
 * The slot index's entry for a key, and the slot it names when it is
 * whole and of this cache generation (gen): -1 otherwise.
 */
static __always_inline int slot_indexed(__u64 serial, __u64 who, __u32 gen,
					struct slot_index_entry **entry)
{
	__u32 i = slot_index_of(serial, who);
	struct slot_index_entry *x = bpf_map_lookup_elem(&slot_index, &i);
	__u64 sg;

	*entry = x;
	if (!x || x->serial != serial || x->who != who)
		return -1;
	sg = x->slot_gen;
	if ((__u32)sg != gen || x->check != slot_index_check(serial, who, sg))
		return -1;
	return (int)(sg >> 32);
}

static __always_inline void slot_index_fill(struct slot_index_entry *x, __u64 serial, __u64 who,
					    __u32 slot, __u32 gen)
{
	__u64 sg = (__u64)slot << 32 | gen;

	x->serial = serial;
	x->who = who;
	x->slot_gen = sg;
	x->check = slot_index_check(serial, who, sg);
}

/*
 * The slot of the cgroup under a lock (and process, -p). The per-CPU cache
 * knows the cgroup by its pointer and serial number, one load from the
 * cgroup the kernel is flushing; the slot index by its serial number; its
 * kernfs id and hierarchy, which key the slot map, are read only when
 * both miss, which sets *rare (when given). Each path that may be
 * switched out midway keeps a cache of its own.
 */
static __always_inline int resolve_slot(struct slot_cache *c, __u8 *rare, struct cgroup *cgrp,
					bool typed, __u32 tgid, __u16 lock, __u64 type, bool create)
{
	/*
	 * One read of the generation for the check and the fill: a fill under
	 * a generation read after a retirement could name its slot.
	 */
	__u32 gen = cache_gen + 1, *slot;
	__u64 serial = cgroup_serial(cgrp, typed), who = (__u64)tgid << 16 | lock;
	struct slot_index_entry *x = NULL;
	struct slot_key key = {};
	int n;

	/* the lock type only where a kernel passes one: its compare is past the first line */
	if (c->valid == gen && c->cgrp == (__u64)cgrp && c->serial == serial && c->tgid == tgid &&
	    c->lock == lock && (arg_type < 0 || c->type == type))
		return c->slot;
	if ((bench_cut & BENCH_CUT_SLOTS) && c->valid == gen)
		return c->slot;
	/* typed lock holds (none in a released kernel) keep to the slot map */
	n = type ? -1 : (bench_cut & BENCH_CUT_INDEX) ? (int)(serial & 63) :
	    slot_indexed(serial, who, gen, &x);
	if (n >= 0)
		goto cached;
	cgroup_ident(cgrp, typed, &key.cgid, &key.hierarchy);
	key.tgid = tgid;
	key.lock = lock;
	__builtin_memcpy(key.lock_type, &type, sizeof(key.lock_type));
	slot = bpf_map_lookup_elem(&slot_ids, &key);
	if (!slot && create && rare)
		*rare = 1;
	n = slot ? (int)*slot : create ? create_slot(cgrp, &key) : -1;
	if (n < 0)
		return n;
	/* a slot just made goes in on its next hit: it may have lost the race to make it */
	if (slot && x && !type)
		slot_index_fill(x, serial, who, n, gen);
cached:
	c->cgrp = (__u64)cgrp;
	c->serial = serial;
	c->tgid = tgid;
	c->lock = lock;
	c->type = type;
	c->slot = n;
	c->valid = gen;
	return n;
}

/* ---- the home: shared by all CPUs, atomic ---- */

static __always_inline void atomic_max(__u64 *p, __u64 v)
{
	__u64 old = *p, seen;

	for (int i = 0; i < 8 && v > old; i++) {
		seen = __sync_val_compare_and_swap(p, old, v);
		if (seen == old)
			break;
		old = seen;
	}
}

/* Raises the epoch's maximum, or starts it when the record is of an older epoch. */
static __always_inline void atomic_imax(__u64 *p, __u32 e, __u64 v)
{
	__u64 want = IMAX_TAG(e) | (v > IMAX_VALUE_MASK ? IMAX_VALUE_MASK : v);
	__u64 old = *p, seen;

	for (int i = 0; i < 8; i++) {
		if ((old & ~IMAX_VALUE_MASK) == IMAX_TAG(e) && (old & IMAX_VALUE_MASK) >= v)
			break;
		seen = __sync_val_compare_and_swap(p, old, want);
		if (seen == old)
			break;
		old = seen;
	}
}

static __always_inline void home_bucket(struct dist_rec *h, __u32 b, __u32 n)
{
	if (b < HIST_BUCKETS)
		__sync_fetch_and_add(&h->hist[b], n);
}

/* A sum and its largest value of epoch e into a home. */
static __always_inline void home_sum(struct dist_rec *h, __u64 sum, __u64 max, __u32 e)
{
	__sync_fetch_and_add(&h->sum, sum);
	atomic_max(&h->max, max);
	atomic_imax(&h->imax[e & 1], e, max);
}

/* One value straight into a home (figures recorded outside any stage). */
static __always_inline void home_record(struct dist_rec *h, __u64 v)
{
	home_bucket(h, hist_bucket(v), 1);
	home_sum(h, v, v, (__u32)epoch);
}

static __always_inline struct slot_home *home_of(__u32 slot)
{
	struct slot_rec *r = chunk_elem(&slot_recs, slot);

	if (!r)
		return NULL;
	touch(slot);
	return &r->home;
}

/* A slot's irqs-off home, only with --irqoff trace (chunks are made then). */
static __always_inline struct dist_rec *irqoff_home_of(__u32 slot)
{
	return irqoff_trace ? chunk_elem(&slot_irqoff, slot) : NULL;
}

/* The index of x's lowest set bit (x != 0): de Bruijn, as BPF has no ctz. */
const __u8 debruijn32[32] = {
	0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
	31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9,
};

static __always_inline __u32 lowest_bit(__u32 x)
{
	return debruijn32[((x & -x) * 0x077CB531U) >> 27] & (STAGE_CELLS - 1);
}

/*
 * A global function: the verifier checks it once, not at every call site
 * with the caller's state, which keeps the programs quick to load.
 */
__noinline int dist_evict(struct stage_dist *sd, struct dist_rec *h, __u32 e)
{
	__u32 used, i;

	if (!sd || !h)
		return 0;
	used = sd->used;
	/* the cells in use, lowest first: a cold flush uses one or two */
	for (int n = 0; n < STAGE_CELLS && used; n++) {
		i = lowest_bit(used);
		used &= used - 1;
		if (sd->cell[i].count)
			home_bucket(h, sd->cell[i].bucket, sd->cell[i].count);
	}
	if (sd->sum)
		home_sum(h, sd->sum, sd->max, e);
	return 0;
}

/* One vote per flush (rstatlat.h, VOTE_MERGE): the top flusher of the slot. */
static __always_inline void vote(struct slot_counts *n, __u32 tgid)
{
	if (VOTE_MERGE(n->top_tgid, n->top_votes, tgid, 1U))
		bpf_get_current_comm(n->top_comm, sizeof(n->top_comm));
}

/*
 * The home's vote takes the stage's: a plain, racy merge. The top flusher
 * is a hint (exact per process with -p), never a count.
 */
static __always_inline void vote_merge(struct slot_counts *into, const struct slot_counts *from)
{
	if (from->top_votes &&
	    VOTE_MERGE(into->top_tgid, into->top_votes, from->top_tgid, from->top_votes))
		__builtin_memcpy(into->top_comm, from->top_comm, RSL_COMM_LEN);
}

/* The stage's figures move to its slot's home: this CPU moved to another slot. */
static __noinline void stage_evict(struct slot_stage *st)
{
	__u32 slot = st->slot - 1;
	struct slot_home *h = home_of(slot);

	if (!h)
		return;
	for (int k = 0; k < COUNT_SUMS; k++)
		if (st->n.count[k])
			__sync_fetch_and_add(&h->n.count[k], st->n.count[k]);
	for (int k = COUNT_SUMS; k < COUNT_MAX; k++)
		atomic_max(&h->n.count[k], st->n.count[k]);
	for (int k = 0; k < PART_MAX; k++)
		if (st->n.part[k])
			__sync_fetch_and_add(&h->n.part[k], st->n.part[k]);
	/* decisions are staged apart (decision_stage_of) */
	vote_merge(&h->n, &st->n);
	dist_evict(&st->d[DIST_HOLD], &h->d[DIST_HOLD], st->epoch);
	dist_evict(&st->d[DIST_WAIT], &h->d[DIST_WAIT], st->epoch);
	dist_evict(&st->d[DIST_FLUSH], &h->d[DIST_FLUSH], st->epoch);
}

/* ---- the stage: this CPU's, plain ---- */

/* Empties a staged distribution: its cells need no clearing (rstatlat.h, used). */
static __always_inline void dist_reset(struct stage_dist *sd)
{
	sd->sum = 0;
	sd->max = 0;
	sd->used = 0;	/* every cell empty, whatever it holds (rstatlat.h) */
}

/*
 * This CPU's stage for the slot in the current epoch. A stage of an older
 * epoch was read by userspace when that epoch closed: it is reset, not
 * evicted. A stage of another slot in this epoch goes home first.
 *
 * Five stages keep this rule, each with the body its contents need: the
 * slot's (here), the irqs-off slot stage (irqoff_record) and the memcg
 * decisions' (decision_stage_of), which make way for another slot by
 * evicting to their homes, and the system-wide ones (sys_stage_of,
 * cpu_lock_stage_of), which have no other slot and are only reset.
 * Userspace's side of the rule is fold.c's stage_slot().
 */
static __noinline void stage_claim(struct slot_stage *st, __u32 e, __u32 slot)
{
	if (st->epoch == e && st->slot && !(bench_cut & BENCH_CUT_EVICT))
		stage_evict(st);
	__builtin_memset(&st->n, 0, sizeof(st->n));
	for (int k = 0; k < SLOT_HOME_DISTS; k++)
		dist_reset(&st->d[k]);
	st->epoch = e;
	st->slot = slot + 1;
}

/* This CPU's stage for the slot (stage_claim's rule); *fresh: it was taken now. */
static __always_inline struct slot_stage *stage_taken(struct lock_state *lc, __u32 slot,
						      bool *fresh)
{
	__u32 e = (__u32)epoch;
	struct slot_stage *st = &lc->stage[e & 1];

	*fresh = st->epoch != e || st->slot != slot + 1;
	if (*fresh)
		stage_claim(st, e, slot);
	return st;
}

static __always_inline struct slot_stage *stage_of(struct lock_state *lc, __u32 slot)
{
	bool fresh;

	return stage_taken(lc, slot, &fresh);
}

/*
 * Counts v in its bucket's cell. Returns false when the cell holds another
 * bucket: the caller spills v's bucket to the home.
 */
static __always_inline bool stage_value(struct stage_dist *sd, __u32 b, __u64 v)
{
	__u32 i = b & (STAGE_CELLS - 1);
	struct stage_cell *c = &sd->cell[i];

	sd->sum += v;
	if (v > sd->max)
		sd->max = v;
	if (!(sd->used & (1U << i))) {
		sd->used |= 1U << i;
		c->bucket = b;
		c->count = 1;
		return true;
	}
	if (c->bucket != b)
		return false;
	c->count++;
	return true;
}

/* A value whose cell another bucket holds goes to the slot's home. */
static __noinline void spill(__u32 slot, __u32 k, __u32 b)
{
	struct slot_home *h = home_of(slot);

	if (h && k < SLOT_HOME_DISTS)
		home_bucket(&h->d[k], b, 1);
}

/* Records v in distribution k (hold, wait, flush) of the slot staged on this CPU. */
static __always_inline void record(struct slot_stage *st, enum dist_id k, __u64 v)
{
	__u32 b = hist_bucket(v);

	if (k < SLOT_HOME_DISTS && !stage_value(&st->d[k], b, v))
		spill(st->slot - 1, k, b);
}

/* A system-wide distribution: this CPU's stage of the current epoch. */
static __always_inline struct sys_stage *sys_stage_of(struct sys_stage stage[2])
{
	__u32 e = (__u32)epoch;
	struct sys_stage *st = &stage[e & 1];

	if (st->epoch != e) {
		st->events = 0;
		dist_reset(&st->d);
		st->epoch = e;
	}
	return st;
}

/* Records v in a staged system-wide distribution; a spill goes to its home. */
static __always_inline void sys_record(struct stage_dist *sd, enum sys_dist home, __u64 v)
{
	__u32 b = hist_bucket(v), zero = 0;
	struct sys_home *h;

	if (stage_value(sd, b, v))
		return;
	h = bpf_map_lookup_elem(&sys_home, &zero);
	if (h && home < SYS_MAX)
		home_bucket(&h->d[home], b, 1);
}

/* ---- slow events ---- */

/*
 * A slow event: reserved and filled with what every kind has. The caller
 * adds its own fields, then slow_submit() takes the stack and sends it.
 */
static __always_inline struct slow_event *slow_begin(__u32 kind, __u64 now, __u64 duration,
							__u32 slot, int lock_cpu)
{
	struct slow_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	struct slot_meta *meta;
	struct slot_rec *rec;
	__u64 id = bpf_get_current_pid_tgid();

	if (!e) {
		count_lost(LOST_RINGBUF_FULL);
		return NULL;
	}
	__builtin_memset(e, 0, offsetof(struct slow_event, stack));
	rec = chunk_elem(&slot_recs, slot);
	meta = rec ? &rec->meta : NULL;
	e->ts = now;
	e->duration_ns = duration;
	e->cgid = meta ? meta->key.cgid : 0;
	e->hierarchy = meta ? meta->key.hierarchy : 0;
	e->kind = kind;
	e->lock_cpu = lock_cpu;
	e->cpu = bpf_get_smp_processor_id();
	e->pid = (__u32)id;
	e->tgid = id >> 32;
	e->slot = slot;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

/*
 * Userspace is woken only once the ring is half full: it polls every 100 ms
 * at most anyway, and a wake-up per event would be an interrupt per slow
 * hold, between a flush's holds, of rstatlat's making.
 */
static __always_inline void slow_submit(void *ctx, struct slow_event *e)
{
	__u64 wake;

	e->stack_bytes = bpf_get_stack(ctx, e->stack, sizeof(e->stack), 0);
	if (e->stack_bytes < 0)
		count_lost(LOST_STACK);
	wake = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) * 2 >=
	       bpf_ringbuf_query(&events, BPF_RB_RING_SIZE);
	bpf_ringbuf_submit(e, wake ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

static __always_inline void slow_emit(void *ctx, __u32 kind, __u64 now, __u64 duration,
				   __u32 slot, int lock_cpu, bool contended)
{
	struct slow_event *e = slow_begin(kind, now, duration, slot, lock_cpu);

	if (!e)
		return;
	e->contended = contended;
	slow_submit(ctx, e);
}

/* ---- the rstat lock's tracepoints: holds and flushes per CPU ---- */

static __always_inline struct lock_state *this_lock_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&lock_state, &zero);
}

/*
 * One load from ctx at a fixed offset. Plain C lets clang fold the cases of
 * tp_arg() into one load from a computed address, which the verifier
 * refuses ("dereference of modified ctx ptr").
 */
#define CTX_LOAD(ctx, off) ({							\
	__u64 __v;								\
	asm volatile("%0 = *(u64 *)(%1 + " #off ")" : "=r"(__v) : "r"(ctx));	\
	__v;									\
})

/*
 * The tracepoint argument at position i. i comes from .rodata, a constant
 * to the verifier, which then never walks the other cases (one of them may
 * lie beyond this tracepoint's arguments).
 */
static __always_inline __u64 tp_arg(__u64 *ctx, __u32 i)
{
	if (i == 0)
		return CTX_LOAD(ctx, 0);
	if (i == 1)
		return CTX_LOAD(ctx, 8);
	if (i == 2)
		return CTX_LOAD(ctx, 16);
	return CTX_LOAD(ctx, 24);
}

static __always_inline int tp_lock_cpu(__u64 *ctx)
{
	return arg_cpu < 0 ? -1 : (int)tp_arg(ctx, arg_cpu);
}

/*
 * A per-CPU xorshift for the sampling decisions of the lock path:
 * bpf_get_prandom_u32() costs about a clock read on this path.
 */
static __always_inline __u32 next_random(__u64 *state)
{
	__u64 x = *state;

	if (!x)
		x = ((__u64)bpf_get_prandom_u32() << 32) | 1;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return (__u32)(x >> 32);
}

static __always_inline __u32 lc_random(struct lock_state *lc)
{
	return next_random(&lc->rand);
}

/*
 * A drawn run's own time since its clock read, now, as bpf_stats would
 * count it: what lies between its clock reads and, timed by one more read
 * right after the last, the clock read it began with (before now) and
 * what bpf_stats' own two sched_clock() calls add inside its window, about
 * one read.
 */
static __always_inline __u64 own_took(__u64 now, __u32 weight)
{
	__u64 end = bpf_ktime_get_ns(), clock = bpf_ktime_get_ns() - end;

	return (end - now + 2 * clock) * weight;
}

/*
 * The unlock program's count down to its next timed run (rstatlat.h,
 * OWN_SPREAD), one count for holds that took a new stage (fresh) and one
 * for the others: at 0 it times itself, has the next locked time itself,
 * and draws the next count. A run that did rare work (a stack taken, a
 * slot made, a flush that moved) is timed as itself, outside the counts:
 * tens of microseconds counted OWN_SAMPLE times would swamp the estimate.
 */
static __always_inline void own_unlock(struct lock_state *lc, __u64 now, bool fresh)
{
	__u8 left, next;

	if (lc->self_rare) {
		lc->own_ns += own_took(now, 1);
		return;
	}
	left = fresh ? lc->own_left_fresh : lc->own_left & ~OWN_LOCKED;
	if (left > 1) {
		if (fresh)
			lc->own_left_fresh = left - 1;
		else
			lc->own_left = (lc->own_left & OWN_LOCKED) | (left - 1);
		return;
	}
	/*
	 * 0: this kind's first run on this CPU since load, which only draws the
	 * first count: timing it (the coldest run there is, counted OWN_SAMPLE
	 * times) read a cold load 4% high.
	 */
	if (left)
		lc->own_ns += own_took(now, OWN_SAMPLE);
	next = OWN_SAMPLE - OWN_SPREAD + lc_random(lc) % (2 * OWN_SPREAD + 1);
	if (fresh) {
		lc->own_left_fresh = next;
		lc->own_left |= left ? OWN_LOCKED : 0;
	} else {
		lc->own_left = (left ? OWN_LOCKED : 0) | next;
	}
}

/* One run in OWN_SAMPLE adds its time to *own; returns whether it was drawn. */
static __always_inline bool own_time(__u64 *state, __u64 *own, __u64 now)
{
	if (next_random(state) & (OWN_SAMPLE - 1))
		return false;
	*own += own_took(now, OWN_SAMPLE);
	return true;
}

/*
 * A sampled flush's wall time under its stack, in the slot's home: the
 * way that has the stack, else the first free one (claimed by a
 * compare-and-swap, as other CPUs may claim at once), else CAUSE_MORE.
 */
static __noinline void cause_record(__u32 slot, __u64 key, __u32 weight, __u64 wall)
{
	struct slot_home *h = home_of(slot);
	struct cause_way *w = NULL;

	if (!h)
		return;
	for (int i = 0; i < CAUSE_WAYS; i++) {
		__u64 have = h->cause[i].key;

		if (!have)
			have = __sync_val_compare_and_swap(&h->cause[i].key, 0, key);
		if (!have || have == key) {
			w = &h->cause[i];
			break;
		}
	}
	if (!w) {
		w = &h->cause[CAUSE_WAYS];
		if (w->key != CAUSE_MORE)
			w->key = CAUSE_MORE;
	}
	__sync_fetch_and_add(&w->samples, 1);
	__sync_fetch_and_add(&w->weight, weight);
	__sync_fetch_and_add(&w->weight_ns, wall * weight);
}

/*
 * This CPU's stack budget (rstatlat.h, causes): a new window, sampled as
 * sparsely as the last one's flushes need to stay within it. A window
 * whose stacks came twice as fast as allowed ends there, its counts taken
 * at the rate they came.
 */
static __noinline void cause_budget(struct lock_state *lc, __u64 now)
{
	__u64 took = now - lc->cause_window, flushes = lc->cause_flushes;
	__u64 holds = lc->cause_holds, allowed;
	__u32 k = cause_sample;

	if (took < CAUSE_WINDOW_NS) {
		took = took ? took : 1;
		flushes = flushes * CAUSE_WINDOW_NS / took;
		holds = holds * CAUSE_WINDOW_NS / took;
	}
	allowed = holds / CAUSE_HOLDS_PER_STACK;
	allowed = allowed < 1 ? 1 : allowed > CAUSE_STACKS_PER_S ? CAUSE_STACKS_PER_S : allowed;
	for (int i = 0; i < 20 && k < flushes / allowed && k < CAUSE_K_MAX; i++)
		k *= 2;
	lc->cause_k = k;
	lc->cause_allowed = allowed;
	lc->cause_window = now;
	lc->cause_taken = lc->cause_flushes = lc->cause_holds = 0;
}

/*
 * Whether the flush that just ended takes the stack that says who asked
 * for it, and the flushes it then stands for (0: none). Each flush on its
 * own, at random, one in cause_k: every K-th flush of a CPU would always
 * fall on the same one of readers taking turns. A long flush always does
 * (while the budget lasts): the long ones are those worth explaining.
 * Taken at the flush's end, after its clock read: the unwinding
 * (microseconds) would otherwise count in its own wall time.
 */
static __always_inline __u32 cause_weight(struct lock_state *lc, __u64 wall, __u32 holds,
					  __u64 now)
{
	__u32 k = cause_sample;

	if (cause_sample == 1)
		return 1;
	if (cause_budgeted) {
		if (now - lc->cause_window >= CAUSE_WINDOW_NS ||
		    lc->cause_taken >= 2 * lc->cause_allowed)
			cause_budget(lc, now);
		lc->cause_flushes++;
		lc->cause_holds += holds;
		k = lc->cause_k;
	}
	if (wall >= CAUSE_ALWAYS_NS && (!cause_budgeted || lc->cause_taken < lc->cause_allowed))
		k = 1;
	else if (!k || lc_random(lc) % k)
		return 0;
	lc->cause_taken++;
	return k;
}

/*
 * The key a sampled flush counts under: its stack's cause once userspace
 * has named it, else the stack's hash (FNV-1a over its frames), the stack
 * kept for userspace to name.
 */
static __noinline __u64 cause_key(void *ctx)
{
	struct cause_stack *buf, *known;
	__u64 h = FNV1A_OFFSET;
	__u32 zero = 0;
	long n;

	buf = bpf_map_lookup_elem(&stack_buf, &zero);
	if (!buf)
		return CAUSE_NO_STACK;
	n = bpf_get_stack(ctx, buf->ip, sizeof(buf->ip), 0);
	if (n <= 0) {
		count_lost(LOST_CAUSE_STACK);
		return CAUSE_NO_STACK;
	}
	for (int i = 0; i < RSL_CAUSE_FRAMES; i++) {
		if (i * (long)sizeof(__u64) >= n)
			buf->ip[i] = 0;
		h = (h ^ buf->ip[i]) * FNV1A_PRIME;
	}
	h &= ~CAUSE_KEY_ID;
	h = h ? h : 1;
	known = bpf_map_lookup_elem(&flush_stacks, &h);
	if (known)
		return known->cause ? CAUSE_KEY_ID | known->cause : h;
	buf->cause = 0;
	if (bpf_map_update_elem(&flush_stacks, &h, buf, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&flush_stacks, &h)) {
		count_lost(LOST_CAUSE_STACK);	/* the map is full */
		return CAUSE_NO_STACK;
	}
	return h;
}

/* A whole flush into a stage: its wall time, and the most holds one took. */
static __always_inline void stage_flush(struct slot_stage *st, __u64 wall, __u32 holds)
{
	record(st, DIST_FLUSH, wall);
	if (holds > st->n.count[COUNT_FLUSH_HOLDS_MAX])
		st->n.count[COUNT_FLUSH_HOLDS_MAX] = holds;
}

/*
 * The time a task was runnable but waiting for a CPU, from the scheduler's
 * own accounting (CONFIG_SCHED_INFO, kept whatever schedstats says since
 * 5.14): what a flusher switched out between its holds (cond_resched,
 * preemption) spent off its CPU. 0 without it (the probe says so).
 */
static __always_inline __u64 run_delay_of(struct task_struct *task)
{
	if (bpf_core_field_exists(task->sched_info))
		return task->sched_info.run_delay;
	return 0;
}

/*
 * --flush-parts timed: the irq part of a flush so far: what it took on
 * CPUs it left, and how much this CPU's irq time grew since it came here.
 */
static __always_inline __u64 flush_irq(const struct lock_state *lc, const struct flush_state *fl)
{
	return fl->irq + (lc->irq_ns > fl->irq_mark ? lc->irq_ns - fl->irq_mark : 0);
}

/*
 * A hold's wait without the irq time counted already: irqs are on between
 * the contended event and the spin (a failed trylock turns them back on),
 * so with timed parts an interrupt there is in both. (A switch there, on a
 * preemptible kernel, is rare and counts in both wait and offcpu.)
 */
static __always_inline __u64 wait_alone(const struct lock_state *lc, __u64 wait)
{
	__u64 irq;

	if (parts_from != PARTS_FROM_TIMED || !wait)
		return wait;
	irq = lc->irq_ns - lc->contended_irq;
	return irq < wait ? wait - irq : 0;
}

/*
 * A flush whose task left this CPU, kept by task until it goes on. Taken
 * from fl first (its task set to 0), as the task may at this moment look
 * for it here from another CPU. A parked flush of the same task is one
 * that never went on: replaced, and counted. With timed parts, now is when
 * the task was switched out (0: it was not seen to be). Global, as
 * flush_unpark: verified once, not at each call with each caller's state
 * (which took the unlock program's load from 8 to 115 ms).
 */
__noinline int flush_park(struct lock_state *lc, struct flush_state *fl, __u64 now)
{
	struct flush_state keep;
	__u32 tid;
	long err;

	if (!lc || !fl)
		return 0;
	tid = fl->tid;
	if (!tid || __sync_val_compare_and_swap(&fl->tid, tid, 0) != tid)
		return 0;
	lc->self_rare = 1;
	__builtin_memcpy(&keep, fl, sizeof(keep));
	keep.tid = tid;
	if (parts_from == PARTS_FROM_TIMED) {
		keep.irq = flush_irq(lc, fl);
		keep.off_ts = now;
	}
	err = bpf_map_update_elem(&flush_parked, &tid, &keep, BPF_NOEXIST);
	if (err == -EEXIST) {
		count_lost(LOST_FLUSH_OPEN);
		err = bpf_map_update_elem(&flush_parked, &tid, &keep, BPF_EXIST);
		if (err)
			__sync_fetch_and_sub(&flushes_parked, 1);	/* gone meanwhile */
	} else if (!err) {
		__sync_fetch_and_add(&flushes_parked, 1);
	}
	if (err)
		count_lost(LOST_FLUSH_OPEN);	/* the map is full */
	return 0;
}

/*
 * The parked flush of task tid, into this CPU's fl, when it is the one going
 * on with a hold of cgroup cgrp and lock cpu lock_cpu (cgrp 0: the task
 * was switched in, lock_cpu -1: none is (a flush begins), and one there is
 * a flush that never went on). Returns whether it was taken.
 */
__noinline int flush_unpark(struct lock_state *lc, __u32 tid, __u64 cgrp, int lock_cpu)
{
	struct flush_state *p;
	bool ours;

	if (!flushes_parked || !lc)
		return false;
	p = bpf_map_lookup_elem(&flush_parked, &tid);
	if (!p)
		return false;
	ours = !cgrp || (p->cgrp == cgrp && lock_cpu > p->last_lock_cpu);
	if (ours)
		__builtin_memcpy(&lc->fl, p, sizeof(lc->fl));
	else
		count_lost(LOST_FLUSH_OPEN);
	if (!bpf_map_delete_elem(&flush_parked, &tid))
		__sync_fetch_and_sub(&flushes_parked, 1);
	return ours;
}

/* A flush that came to this CPU goes on here: with timed parts, its time off CPU ends. */
static __always_inline void flush_resume(struct lock_state *lc, __u32 tid, __u64 now)
{
	struct flush_state *fl = &lc->fl;

	fl->tid = tid;
	fl->moved = 1;
	if (fl->off_ts) {
		fl->offcpu += now - fl->off_ts;
		fl->off_ts = 0;
	}
	fl->irq_mark = lc->irq_ns;
}

/* What flush_take looks for on the other CPUs. */
struct flush_search {
	__u64 cgrp;
	__u32 tid;
	__s32 lock_cpu;
	__u32 found;
};

/*
 * bpf_loop's step: the flush on CPU cpu, when it is the task's (it left
 * that CPU between holds), copied here and taken from there.
 */
static long flush_take(__u32 cpu, struct flush_search *s)
{
	struct lock_state *lc, *there;
	__u32 zero = 0;

	there = bpf_map_lookup_percpu_elem(&lock_state, &zero, cpu);
	lc = this_lock_state();
	if (!there || !lc || there == lc || there->fl.tid != s->tid ||
	    there->fl.cgrp != s->cgrp || s->lock_cpu <= there->fl.last_lock_cpu)
		return 0;
	__builtin_memcpy(&lc->fl, &there->fl, sizeof(lc->fl));
	if (__sync_val_compare_and_swap(&there->fl.tid, s->tid, 0) == s->tid)
		s->found = 1;
	return 1;
}

/*
 * A hold of a flush that began on another CPU: the task was switched out
 * between holds and goes on here. Its record is parked, or still on the
 * CPU it left (looked for on every possible CPU: a move is rare, and
 * costs a flush a microsecond or so on hundreds of CPUs).
 */
static __always_inline bool flush_find(struct lock_state *lc, __u32 tid, __u64 cgrp,
				       int lock_cpu)
{
	struct flush_search s = { .tid = tid, .cgrp = cgrp, .lock_cpu = lock_cpu };

	lc->self_rare = 1;
	if (flush_unpark(lc, tid, cgrp, lock_cpu))
		return true;
	bpf_loop(last_cpu + 1, flush_take, &s, 0);
	/* parked there meanwhile by a flush that began on it */
	return s.found || flush_unpark(lc, tid, cgrp, lock_cpu);
}

/*
 * A hold that does not go on with the flush this CPU keeps: the first hold
 * of a flush, or one of a flush that moved here. What this CPU kept goes
 * first: another task's flush was switched out and waits to go on
 * (parked); one of this task never saw its last release. A flush begins at
 * lock cpu -1 (a whole flush), or at the first possible CPU once the
 * kernel is known to lock per CPU; before that, a hold there begins a
 * flush unless it is one moving here. A later hold whose flush is not
 * found had its beginning before rstatlat was attached, or its record was
 * lost (counted): not recorded.
 */
static __noinline void flush_begin(struct lock_state *lc, struct slot_stage *st, __u64 cgrp,
				   struct task_struct *task, __u64 began)
{
	__u32 tid = task->pid;
	struct flush_state *fl = &lc->fl;
	int lock_cpu = lc->locked_lock_cpu;
	bool first = lock_cpu < 0 || (per_cpu_walks && lock_cpu == first_cpu);

	if (fl->cgrp && fl->tid == tid)
		count_lost(LOST_FLUSH_OPEN);
	else if (fl->cgrp)
		flush_park(lc, fl, 0);
	fl->cgrp = 0;
	if (!first && flush_find(lc, tid, cgrp, lock_cpu)) {
		flush_resume(lc, tid, began);
		return;
	}
	/* a parked flush of this task would never go on: not one to find later */
	if (first)
		flush_unpark(lc, tid, cgrp, -1);
	__builtin_memset(fl, 0, sizeof(*fl));
	fl->cgrp = cgrp;
	fl->tid = tid;
	fl->lock = lock_rows ? lc->hold_lock : LOCK_ALL;
	fl->slot = st->slot - 1;
	fl->paired = 1;
	fl->last_lock_cpu = lock_cpu - 1;
	if (!first && lock_cpu != first_cpu) {
		count_lost(LOST_FLUSH_UNSEEN);
		fl->whole = !per_cpu_walks;
		return;
	}
	fl->whole = lock_cpu < 0;
	fl->start = began;
	lc->walked_cgrp = 0;
	/* the top flusher: one vote per flush */
	vote(&st->n, task->tgid);
	if (parts_from == PARTS_FROM_KERNEL)
		fl->run_delay = run_delay_of(task);
	else if (parts_from == PARTS_FROM_TIMED)
		fl->irq_mark = lc->irq_ns;
}

/*
 * The flush's last release: its wall time, holds and parts into the
 * stage (run_delay: its task's now, with kernel parts). Returns the
 * flushes a stack of it would stand for, 0 when it takes none. Global:
 * verified once, not with each state of the unlock program that calls it.
 */
__noinline int flush_record(struct lock_state *lc, struct slot_stage *st, __u64 run_delay,
			    __u64 now)
{
	struct flush_state *fl;
	__u64 wall, d;

	if (!lc || !st)
		return 0;
	fl = &lc->fl;
	fl->cgrp = 0;
	if (!fl->start)
		return 0;	/* its beginning was not seen */
	wall = now - fl->start;
	if (fl->slot + 1 != st->slot)
		st = stage_of(lc, fl->slot);
	stage_flush(st, wall, fl->holds);
	st->n.count[COUNT_FLUSH_HOLDS] += fl->holds;
	if (parts_from) {
		st->n.part[PART_HELD] += fl->held;
		st->n.part[PART_WAIT] += fl->wait;
		st->n.part[PART_SELF] += fl->self;
	}
	if (parts_from == PARTS_FROM_KERNEL) {
		d = run_delay - fl->run_delay;
		st->n.part[PART_OFFCPU] += d < wall ? d : wall;
		st->n.count[COUNT_FLUSHES_OFFCPU] += d != 0;
	} else if (parts_from == PARTS_FROM_TIMED) {
		st->n.part[PART_IRQ] += flush_irq(lc, fl);
		st->n.part[PART_OFFCPU] += fl->offcpu;
		st->n.count[COUNT_FLUSHES_OFFCPU] += fl->offcpu != 0;
	}
	return cause_sample ? cause_weight(lc, wall, fl->holds, now) : 0;
}

/*
 * A stage's figures into its comm's record (rstatlat.h, flushers), made
 * if new; the overflow's when the hash is full.
 */
static __always_inline void flusher_spill(const struct flusher_stage *fs)
{
	struct flusher_key overflow = FLUSHER_OVERFLOW;
	struct flusher_rec *r = bpf_map_lookup_elem(&flushers, &fs->key);

	if (!r) {
		/* another CPU may add it first: then this finds it */
		bpf_map_update_elem(&flushers, &fs->key, &flusher_zero, BPF_NOEXIST);
		r = bpf_map_lookup_elem(&flushers, &fs->key);
	}
	if (!r) {
		count_lost_n(LOST_FLUSHERS_FULL, fs->flushes);
		r = bpf_map_lookup_elem(&flushers, &overflow);
		if (!r)
			return;
	}
	__sync_fetch_and_add(&r->flushes, fs->flushes);
	__sync_fetch_and_add(&r->holds, fs->holds);
	__sync_fetch_and_add(&r->flush_ns, fs->flush_ns);
	__sync_fetch_and_add(&r->hold_ns, fs->hold_ns);
	for (int i = 0; i < RSL_FLUSHER_OCTAVES; i++) {
		if (fs->flush_oct[i])
			__sync_fetch_and_add(&r->flush_oct[i], fs->flush_oct[i]);
		if (fs->hold_oct[i])
			__sync_fetch_and_add(&r->hold_oct[i], fs->hold_oct[i]);
	}
}

static __always_inline bool same_comm(const struct flusher_key *a, const struct flusher_key *b)
{
	const __u64 *x = (const __u64 *)a->comm, *y = (const __u64 *)b->comm;

	return x[0] == y[0] && x[1] == y[1];
}

/*
 * The stage, for the comm in key (a kernel thread's when kthread: cut at
 * its '/'), of process tgid, in epoch e: kept when it holds that comm's
 * flushes of e; else emptied, after a spill when it held another comm's
 * of e (one of an earlier epoch userspace has read). Global: verified
 * once.
 */
__noinline int flusher_claim(struct flusher_stage *fs, struct flusher_key *key, __u32 e,
			     __u32 tgid, __u32 kthread)
{
	bool cut = false;

	if (!fs || !key)
		return 0;
	for (int i = 0; kthread && i < RSL_COMM_LEN; i++) {
		cut |= key->comm[i] == '/';
		if (cut)
			key->comm[i] = 0;
	}
	fs->tgid = tgid;
	if (fs->epoch == e && fs->flushes) {
		if (same_comm(&fs->key, key))
			return 0;
		flusher_spill(fs);
	}
	__builtin_memset(fs, 0, sizeof(*fs));
	fs->epoch = e;
	fs->tgid = tgid;
	__builtin_memcpy(&fs->key, key, sizeof(*key));
	return 0;
}

/*
 * A recorded flush into this CPU's flusher stage (rstatlat.h, flushers):
 * its comm read only when another process's flush was the last here.
 */
static __always_inline void flusher_of(struct task_struct *task, const struct flush_state *fl,
				       __u64 wall)
{
	__u32 e = (__u32)epoch, parity = e & 1, tgid = task->tgid;
	struct flusher_stage *fs = bpf_map_lookup_elem(&flusher_stages, &parity);

	if (!fs)
		return;
	if (fs->epoch != e || !fs->flushes || fs->tgid != tgid) {
		struct flusher_key key = {};

		bpf_probe_read_kernel_str(key.comm, sizeof(key.comm), task->group_leader->comm);
		flusher_claim(fs, &key, e, tgid, !!(task->flags & PF_KTHREAD));
	}
	fs->flushes++;
	fs->holds += fl->holds;
	fs->flush_ns += wall;
	fs->hold_ns += fl->held;
	fs->flush_oct[hist_octave(wall) & (RSL_FLUSHER_OCTAVES - 1)]++;
	for (int i = 0; i < RSL_FLUSHER_OCTAVES; i++)
		fs->hold_oct[i] += fl->hold_oct[i];
}

/* ... and its cause, from its stack, when it takes one; and its flusher. */
static __always_inline void flush_end(void *ctx, struct lock_state *lc, struct slot_stage *st,
				      struct task_struct *task, __u64 now)
{
	int weight = flush_record(lc, st, parts_from == PARTS_FROM_KERNEL ? run_delay_of(task) : 0,
				  now);

	if (count_flushers && lc->fl.start)
		flusher_of(task, &lc->fl, now - lc->fl.start);
	if (weight > 0) {
		lc->self_rare = 1;	/* a stack: rare, and dear (own_unlock) */
		cause_record(lc->fl.slot, cause_key(ctx), weight, now - lc->fl.start);
	}
}

/*
 * rstatlat's own time between a flush's holds: this unlock program's since
 * its clock read (rstatlat.h, SELF_SAMPLE). Timed on one hold in
 * SELF_SAMPLE, at random, standing for SELF_SAMPLE; a hold that did rare
 * work (a new slot, a flush that moved) or this CPU's first (cold) is
 * timed as itself: weighed like a typical one it would count SELF_SAMPLE
 * times; and while holds take SELF_EXACT_NS or more, each is.
 */
static __noinline void self_time(struct lock_state *lc, struct flush_state *fl, __u64 now,
				 bool each)
{
	__u64 took = bpf_ktime_get_ns() - now;

	fl->self += each ? took : took * SELF_SAMPLE;
	lc->self_exact = took >= SELF_EXACT_NS;
	if (!lc->rand)
		lc_random(lc);
}

/* Whether this hold is one self_time times, and how. */
static __always_inline void self_maybe(struct lock_state *lc, struct flush_state *fl, __u64 now)
{
	bool each = lc->self_rare || lc->self_exact || !lc->rand;

	if (each || !(lc_random(lc) & (SELF_SAMPLE - 1)))
		self_time(lc, fl, now, each);
}

/*
 * A hold's part in its flush. A hold goes on with the flush this CPU keeps
 * when it is the same task's, of the same cgroup, and its lock cpu comes
 * later in the walk over CPUs; anything else begins a flush, or finds the
 * one it goes on with (flush_begin). Kernels take the lock in one of two
 * ways, told apart by the first acquisition's lock cpu:
 *   -1 (a whole flush under one lock, dropped between CPUs only to breathe:
 *      6.10-6.14, and 6.12 without 0efc297a): locked -1, unlock k, locked
 *      k, ... unlock -1: it ends at the release of -1;
 *   cpu (one hold per CPU, 6.15 on and where 0efc297a is backported):
 *      locked 0, unlock 0, locked 1, ... it ends at the release of the last
 *      possible CPU, and reading cpu.stat then takes the lock once more as
 *      -1 to read the totals: a hold, not a flush.
 */
static __always_inline void flush_hold(void *ctx, struct lock_state *lc, struct slot_stage *st,
				       __u64 cgrp, int unlock_cpu, __u64 hold, __u64 wait, __u64 now)
{
	int lock_cpu = lc->locked_lock_cpu;
	struct flush_state *fl = &lc->fl;
	struct task_struct *task;

	/* once the kernel is known to lock per CPU, lock cpu -1 is a totals read */
	if (lock_cpu < 0 && (per_cpu_walks || lc->walked_cgrp == cgrp)) {
		lc->walked_cgrp = 0;
		return;
	}
	task = bpf_get_current_task_btf();
	if (fl->cgrp != cgrp || fl->tid != (__u32)task->pid || lock_cpu <= fl->last_lock_cpu)
		flush_begin(lc, st, cgrp, task, now - hold - wait);
	fl->last_lock_cpu = lock_cpu;
	fl->holds++;
	if (parts_from || count_flushers)
		fl->held += hold;
	if (parts_from)
		fl->wait += wait_alone(lc, wait);
	if (count_flushers)
		fl->hold_oct[hist_octave(hold) & (RSL_FLUSHER_OCTAVES - 1)]++;
	if (lock_cpu != unlock_cpu)
		fl->paired = 0;
	/* not over until the release of -1, or of the last CPU of a walk */
	if (unlock_cpu >= 0 && (unlock_cpu < last_cpu || fl->whole)) {
		/* it goes on: what this program took is rstatlat's own time, between holds */
		if (parts_from)
			self_maybe(lc, fl, now);
		return;
	}
	/* a walk with a lock cpu missing does not teach that the kernel locks per CPU */
	if (unlock_cpu >= 0 && fl->start) {
		lc->walked_cgrp = cgrp;
		if (fl->paired && !per_cpu_walks)
			per_cpu_walks = 1;
	}
	flush_end(ctx, lc, st, task, now);
}

/*
 * The wait of a contended acquisition (0 for one that was not): from the
 * contended event on this CPU. It is this task's: between the two the task
 * spins, and before the spin it is only preemptible for a few instructions
 * (the failed trylock turns irqs back on); another task's leftover
 * contended event would need two such moves at once, and every hold here
 * clears it. None seen: a task that moved there, counted (wait_migrated).
 * Global: verified once; its caller's two paths meet again at its result.
 */
__noinline __u64 contended_wait(struct lock_state *lc, struct slot_stage *st, __u64 locked_ts)
{
	__u64 wait;

	if (!lc || !st || !lc->locked_contended)
		return 0;
	st->n.count[COUNT_CONTENDED]++;
	if (!lc->contended_ts) {
		count_lost(LOST_WAIT_MIGRATED);
		return 0;
	}
	wait = locked_ts - lc->contended_ts;
	record(st, DIST_WAIT, wait);
	return wait;
}

/*
 * The lock of this hold (lock_rows). One that goes on with the flush
 * this CPU keeps (its task's, its cgroup's, a later lock cpu) is under
 * that flush's lock; any other asks the task's innermost live lock scope
 * (its frame above this program's ctx, on the same stack), once a flush
 * and a CPU it moves to: with one hold per CPU, a flush asks once.
 */
static __always_inline __u16 lock_of_hold(struct lock_state *lc, __u64 cgrp, void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct flush_state *fl = &lc->fl;
	__u32 tid = (__u32)task->pid;
	__u64 here = (__u64)ctx;
	struct lock_scope *sc;

	if (fl->cgrp == cgrp && fl->tid == tid && lc->locked_lock_cpu > fl->last_lock_cpu)
		return fl->lock;
	sc = bpf_map_lookup_elem(&lock_scopes, &tid);
	if (!sc)
		return LOCK_UNKNOWN;
	if (sc->depth > 1 && sc->frame[1] > here)
		return sc->lock[1];
	if (sc->depth > 0 && sc->frame[0] > here)
		return sc->lock[0];
	return LOCK_UNKNOWN;
}

/*
 * The lock type of a hold (arg_type): the first bytes of the string the
 * tracepoint passes. The kernel passes its constants ("read", "write"), so
 * the pointer names the string: read again only when it changes here.
 */
static __always_inline __u64 lock_type_of(struct lock_state *lc, __u64 ptr)
{
	__u64 val = 0;

	if (ptr == lc->type_ptr)
		return lc->type_val;
	if (ptr && bpf_probe_read_kernel_str(&val, sizeof(val), (const void *)ptr) < 0)
		val = 0;
	lc->type_ptr = ptr;
	lc->type_val = val;
	return val;
}

static __always_inline void on_contended(__u64 now)
{
	struct lock_state *lc;

	if (!armed)
		return;
	lc = this_lock_state();
	if (!lc)
		return;
	lc->contended_ts = now;
	if (parts_from == PARTS_FROM_TIMED)
		lc->contended_irq = lc->irq_ns;
	own_time(&lc->rand, &lc->own_ns, now);
}

/* The floor and little more: the hold is taken up at its unlock. */
static __always_inline void on_locked(struct cgroup *cgrp, int lock_cpu, bool contended,
				      __u64 now)
{
	struct lock_state *lc;

	if (!armed)
		return;
	lc = this_lock_state();
	if (!lc)
		return;
	if (lc->locked_ts)
		count_lost(LOST_RELOCKED);
	if (holds_preemptible)
		lc->locked_task = bpf_get_current_task();
	lc->locked_ts = now;
	lc->locked_cgrp = (__u64)cgrp;
	lc->locked_lock_cpu = lock_cpu;
	lc->locked_contended = contended;
	/* drawn by the unlock before it (rstatlat.h, OWN_LOCKED) */
	if (lc->own_left & OWN_LOCKED) {
		lc->own_left &= ~OWN_LOCKED;
		lc->own_ns += own_took(now, OWN_SAMPLE);
	}
}

/*
 * Everything about a hold, after its clock read: the lock is released by
 * the kernel right after this program, so this work lies between holds.
 */
static __always_inline bool on_unlock(void *ctx, struct lock_state *lc, struct cgroup *cgrp,
				      int unlock_cpu, __u64 now)
{
	__u64 start, cg, hold, wait, type;
	__u32 tgid = 0, slot;
	struct slot_stage *st;
	bool fresh;
	int n;

	if (holds_preemptible && lc->locked_ts && lc->locked_task != bpf_get_current_task()) {
		/* the open hold is another task's, begun after ours: left to it */
		count_lost(LOST_UNPAIRED_UNLOCK);
		return false;
	}
	if (lc->locked_cgrp != (__u64)cgrp) {
		/* e.g. the lock was taken before we attached */
		count_lost(LOST_UNPAIRED_UNLOCK);
		lc->locked_ts = 0;
		lc->contended_ts = 0;
		return false;
	}
	start = lc->locked_ts;
	/*
	 * The cgroup as a number, what flushes are told apart by: loaded, as
	 * the verifier wants numbers, not pointers, in a global function's
	 * arguments (clang would reuse cgrp, known equal).
	 */
	cg = *(volatile __u64 *)&lc->locked_cgrp;
	lc->locked_cgrp = 0;
	lc->locked_ts = 0;
	lc->self_rare = 0;
	/* the task is asked only where it matters: -p, --pid (flushes ask later) */
	if (per_process || targ_tgid)
		tgid = bpf_get_current_task_btf()->tgid;
	/* written only where locks are told apart: it lies past the first line */
	if (lock_rows)
		lc->hold_lock = lock_of_hold(lc, cg, ctx);
	type = arg_type >= 0 ? lock_type_of(lc, tp_arg(ctx, arg_type)) : 0;
	n = start && (!targ_tgid || tgid == targ_tgid) ?
	    resolve_slot(&lc->cache, &lc->self_rare, cgrp, true, per_process ? tgid : 0,
			 lock_rows ? lc->hold_lock : LOCK_ALL, type, true) : -1;
	if (n < 0) {
		lc->contended_ts = 0;
		return false;
	}
	slot = n;
	hold = now - start;
	/* a new stage: the dear kind of hold, timed apart (own_unlock) */
	st = stage_taken(lc, slot, &fresh);
	st->n.count[COUNT_LOCKED]++;
	/* the call only where it times something: most holds are not contended */
	wait = lc->locked_contended ? contended_wait(lc, st, start) : 0;
	if (threshold_ns && wait >= threshold_ns) {
		lc->self_rare = 1;
		slow_emit(ctx, SLOW_WAIT, start, wait, slot, lc->locked_lock_cpu, true);
	}
	lc->contended_ts = 0;
	record(st, DIST_HOLD, hold);
	if (irqoff_trace) {	/* what irqs_on attributes its interval by */
		lc->hold_start = start;
		lc->hold_slot = slot;
	}
	if (tick_period_ns)	/* whether a late tick overlapped a hold */
		lc->hold_end = now;
	if (threshold_ns && hold >= threshold_ns) {
		lc->self_rare = 1;
		slow_emit(ctx, SLOW_HOLD, now, hold, slot, unlock_cpu, lc->locked_contended);
	}
	flush_hold(ctx, lc, st, cg, unlock_cpu, hold, wait, now);
	return fresh;
}

SEC("tp_btf/cgroup_rstat_lock_contended")
int rstat_contended(__u64 *ctx)
{
	(void)ctx;
	on_contended(bpf_ktime_get_ns());	/* the event is the signal */
	return 0;
}

SEC("tp_btf/cgroup_rstat_locked")
int rstat_locked(__u64 *ctx)
{
	__u64 now = bpf_ktime_get_ns();

	on_locked((struct cgroup *)tp_arg(ctx, arg_cgrp), tp_lock_cpu(ctx),
		  (bool)tp_arg(ctx, arg_contended), now);
	return 0;
}

SEC("tp_btf/cgroup_rstat_unlock")
int rstat_unlock(__u64 *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct lock_state *lc;
	bool fresh;

	if (!armed)
		return 0;
	lc = this_lock_state();
	if (!lc)
		return 0;
	/* contended is always false at unlock; the locked event counts it */
	fresh = on_unlock(ctx, lc, (struct cgroup *)tp_arg(ctx, arg_cgrp), tp_lock_cpu(ctx), now);
	own_unlock(lc, now, fresh);
	return 0;
}

/* ---- the per-CPU rstat lock: system-wide, paired per CPU (irqsave) ---- */

static __always_inline struct cpu_lock_state *this_cpu_lock_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu_lock_state, &zero);
}

static __always_inline void on_cpu_lock_contended(void)
{
	__u64 now = bpf_ktime_get_ns();
	struct cpu_lock_state *cc = this_cpu_lock_state();

	if (cc && armed)
		cc->contended_ts = now;
}

static __always_inline struct cpu_lock_stage *cpu_lock_stage_of(struct cpu_lock_state *cc)
{
	__u32 e = (__u32)epoch;
	struct cpu_lock_stage *st = &cc->stage[e & 1];

	if (st->epoch != e) {
		st->locked = st->contended = 0;
		dist_reset(&st->hold);
		dist_reset(&st->wait);
		st->epoch = e;
	}
	return st;
}

static __always_inline void on_cpu_lock_locked(bool contended)
{
	__u64 now = bpf_ktime_get_ns();
	struct cpu_lock_state *cc = this_cpu_lock_state();
	struct cpu_lock_stage *st;

	if (!cc || !armed)
		return;
	st = cpu_lock_stage_of(cc);
	st->locked++;
	if (contended) {
		st->contended++;
		if (cc->contended_ts)
			sys_record(&st->wait, SYS_CPU_LOCK_WAIT, now - cc->contended_ts);
	}
	cc->contended_ts = 0;
	cc->locked_ts = now;
}

static __always_inline void on_cpu_lock_unlock(void)
{
	__u64 now = bpf_ktime_get_ns();
	struct cpu_lock_state *cc = this_cpu_lock_state();

	if (!cc || !cc->locked_ts)
		return;
	sys_record(&cpu_lock_stage_of(cc)->hold, SYS_CPU_LOCK_HOLD, now - cc->locked_ts);
	cc->locked_ts = 0;
}

#define CPU_LOCK_PROGS(suffix)							\
SEC("tp_btf/cgroup_rstat_cpu_lock_contended" #suffix)				\
int rstat_cpu_contended##suffix(__u64 *ctx)					\
{										\
	(void)ctx;								\
	on_cpu_lock_contended();							\
	return 0;								\
}										\
SEC("tp_btf/cgroup_rstat_cpu_locked" #suffix)					\
int rstat_cpu_locked##suffix(__u64 *ctx)					\
{										\
	on_cpu_lock_locked((bool)tp_arg(ctx, cpu_lock_arg_contended));					\
	return 0;								\
}										\
SEC("tp_btf/cgroup_rstat_cpu_unlock" #suffix)					\
int rstat_cpu_unlock##suffix(__u64 *ctx)					\
{										\
	(void)ctx;								\
	on_cpu_lock_unlock();							\
	return 0;								\
}

CPU_LOCK_PROGS()
CPU_LOCK_PROGS(_fastpath)

/* ---- timed flush parts: irq time per CPU, flushers switched out ---- */

/*
 * --flush-parts timed only (these programs are not attached otherwise).
 * Hardirq and softirq time on this CPU while a flush is open on it: a
 * flush's irq part is how much it grew while the flush ran here. Every
 * other interrupt costs an early exit. Handlers nest (a hardirq inside a
 * softirq), so only the outermost one is timed; an exit whose entry found
 * no flush open finds depth 0.
 */
static __always_inline void irq_enter_time(void)
{
	struct lock_state *lc = this_lock_state();

	if (!lc || !lc->fl.cgrp)
		return;
	if (lc->irq_depth++ == 0)
		lc->irq_since = bpf_ktime_get_ns();
}

/*
 * Softirqs end with irqs on: a hardirq may come in here. The time is added
 * before the depth drops, so one that does finds depth 1 and leaves
 * irq_since and irq_ns alone (its own time is then part of ours).
 */
static __always_inline void irq_exit_time(void)
{
	struct lock_state *lc = this_lock_state();
	__u32 depth;

	if (!lc || !(depth = lc->irq_depth))
		return;
	if (depth == 1)
		lc->irq_ns += bpf_ktime_get_ns() - lc->irq_since;
	lc->irq_depth = depth - 1;
}

/*
 * Device interrupts (irq_handler_*), softirqs, and on x86 the system
 * vectors that irq_handler_* does not see: the local timer and the IPIs.
 */
#define IRQ_TIME_PROGS(entry, exit)						\
SEC("tp_btf/" #entry)								\
int irq_time_##entry(__u64 *ctx)						\
{										\
	(void)ctx;								\
	irq_enter_time();							\
	return 0;								\
}										\
SEC("tp_btf/" #exit)								\
int irq_time_##exit(__u64 *ctx)							\
{										\
	(void)ctx;								\
	irq_exit_time();							\
	return 0;								\
}

IRQ_TIME_PROGS(irq_handler_entry, irq_handler_exit)
IRQ_TIME_PROGS(softirq_entry, softirq_exit)
IRQ_TIME_PROGS(local_timer_entry, local_timer_exit)
IRQ_TIME_PROGS(call_function_entry, call_function_exit)
IRQ_TIME_PROGS(call_function_single_entry, call_function_single_exit)
IRQ_TIME_PROGS(reschedule_entry, reschedule_exit)
IRQ_TIME_PROGS(irq_work_entry, irq_work_exit)

/*
 * A flusher switched out between holds (cond_resched, preemption) is off
 * CPU until it is switched back in, perhaps on another CPU: its flush is
 * parked with its irq part so far, and comes back with the task, which
 * starts its irq part from that CPU's irq time. Every other switch costs
 * an early exit. A task that exits (its flush abandoned) is not parked.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(flush_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct lock_state *lc = this_lock_state();

	(void)ctx;
	(void)preempt;
	if (!lc)
		return 0;
	if (lc->fl.cgrp && lc->fl.tid == (__u32)prev->pid) {
		if (prev->flags & PF_EXITING)
			count_lost(LOST_FLUSH_OPEN);
		else
			flush_park(lc, &lc->fl, bpf_ktime_get_ns());
		lc->fl.cgrp = 0;
	}
	if (flushes_parked && flush_unpark(lc, next->pid, 0, 0))
		flush_resume(lc, next->pid, bpf_ktime_get_ns());
	return 0;
}

/* ---- lock scopes: which lock a task's holds are under (6.16+) ---- */

/* The memory controller's lock, where memcg flush decisions count. */
static __always_inline __u16 memory_lock(void)
{
	return LOCK_SUBSYS + bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
}

/*
 * A call that names a lock begins, its frame at ctx: levels whose frames
 * are not above it have returned (their exits skipped) and go first.
 */
static __always_inline void scope_enter(void *ctx, __u16 lock)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lock_scope *sc = bpf_map_lookup_elem(&lock_scopes, &tid);
	__u64 here = (__u64)ctx;
	struct lock_scope first = { .frame = { here }, .lock = { lock }, .depth = 1 };

	if (!sc) {
		/* only this task inserts its pid: no race but a full map */
		if (bpf_map_update_elem(&lock_scopes, &tid, &first, BPF_NOEXIST))
			count_lost(LOST_LOCK_SCOPE);
		return;
	}
	if (sc->depth > 1 && sc->frame[1] <= here)
		sc->depth = 1;
	if (sc->depth > 0 && sc->frame[0] <= here)
		sc->depth = 0;
	if (sc->depth > 1)
		return;	/* nothing nests deeper today: its holds take the inner level */
	sc->frame[sc->depth & 1] = here;
	sc->lock[sc->depth & 1] = lock;
	sc->depth++;
}

/* Its exit pops its own level only; the last level's removes the entry. */
static __always_inline void scope_exit(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lock_scope *sc = bpf_map_lookup_elem(&lock_scopes, &tid);
	__u64 here = (__u64)ctx;

	if (!sc)
		return;
	if (sc->depth > 1 && sc->frame[1] == here)
		sc->depth = 1;
	else if (sc->depth > 0 && sc->frame[0] == here)
		sc->depth = 0;	/* and an inner level whose exit was skipped */
	if (!sc->depth)
		bpf_map_delete_elem(&lock_scopes, &tid);
}

/*
 * css_rstat_flush(css) takes the lock of css->ss: the subsystem's, or the
 * base stats' where ss is NULL (the cgroup's own css).
 */
SEC("fentry/css_rstat_flush")
int BPF_PROG(scope_flush_enter, struct cgroup_subsys_state *css)
{
	struct cgroup_subsys *ss = css->ss;
	__u32 id = ss ? (__u32)ss->id : 0;

	scope_enter(ctx, !ss ? LOCK_BASE : id < LOCK_IDS_MAX - LOCK_SUBSYS ? LOCK_SUBSYS + id :
		    LOCK_UNKNOWN);
	return 0;
}

SEC("fexit/css_rstat_flush")
int BPF_PROG(scope_flush_exit)
{
	scope_exit(ctx);
	return 0;
}

/* cpu.stat reads its totals under the base lock after its flush. */
SEC("fentry/cgroup_base_stat_cputime_show")
int BPF_PROG(scope_cputime_enter)
{
	scope_enter(ctx, LOCK_BASE);
	return 0;
}

SEC("fexit/cgroup_base_stat_cputime_show")
int BPF_PROG(scope_cputime_exit)
{
	scope_exit(ctx);
	return 0;
}

/* ---- memcg flush decisions: memcg:memcg_flush_stats (6.13+) ---- */

/*
 * This CPU's decision stage for the slot in the current epoch; one of
 * another slot in this epoch goes home first (stage_claim's rule).
 */
static __noinline void decision_claim(struct decision_stage *ds, __u32 e, __u32 slot)
{
	struct slot_home *h = ds->epoch == e && ds->slot ? home_of(ds->slot - 1) : NULL;

	for (int k = 0; h && k < DECISION_MAX; k++)
		if (ds->n[k])
			__sync_fetch_and_add(&h->n.decisions[k], ds->n[k]);
	for (int k = 0; k < DECISION_MAX; k++)
		ds->n[k] = 0;
	ds->epoch = e;
	ds->slot = slot + 1;
}

static __always_inline struct decision_stage *decision_stage_of(struct memcg_state *ms,
								 __u32 slot)
{
	__u32 e = (__u32)epoch;
	struct decision_stage *ds = &ms->stage[e & 1];

	if (ds->epoch != e || ds->slot != slot + 1)
		decision_claim(ds, e, slot);
	return ds;
}

/* A flush request's decision, staged under its memcg's slot. */
static __always_inline void memcg_decision(struct lock_state *lc, struct mem_cgroup *memcg,
					   __u32 tgid, bool force, bool needs_flush)
{
	struct decision_stage *ds;
	int n;

	/*
	 * A skipped request takes no lock: it gets no slot of its own, or an
	 * agent reading memory.stat of thousands of idle containers would
	 * take every slot from the cgroups that flush.
	 */
	n = resolve_slot(&lc->memcg.cache, NULL, memcg->css.cgroup, true, per_process ? tgid : 0,
			 lock_rows ? memory_lock() : LOCK_ALL, 0, force || needs_flush);
	if (n < 0) {
		if (!force && !needs_flush)
			count_lost(LOST_SKIP_UNTRACKED);
		return;
	}
	ds = decision_stage_of(&lc->memcg, (__u32)n);
	ds->n[DECISION_ASKED]++;
	if (force)
		ds->n[DECISION_FORCED]++;
	else if (!needs_flush)
		ds->n[DECISION_SKIPPED]++;
}

/*
 * Fired for every flush a memcg asks for, before the lock: forced, or
 * skipped when too few stats changed. It fires with irqs on and may be
 * switched out midway (rstatlat.h, memcg_state): it keeps to its own
 * cache and stage.
 */
SEC("tp_btf/memcg_flush_stats")
int BPF_PROG(memcg_flush, struct mem_cgroup *memcg, __s64 stats_updates, bool force,
	     bool needs_flush)
{
	struct lock_state *lc;
	__u32 tgid = 0;
	bool timed;
	__u64 now;

	(void)ctx;
	(void)stats_updates;
	if (!armed || !memcg)
		return 0;
	/* asked only where it matters: a run's length is the window in which the kernel refuses another */
	if (targ_tgid || per_process)
		tgid = bpf_get_current_pid_tgid() >> 32;
	if (targ_tgid && tgid != targ_tgid)
		return 0;
	lc = this_lock_state();
	if (!lc)
		return 0;
	/* no clock read of its own: one run in OWN_SAMPLE takes three (rstatlat.h) */
	timed = !(next_random(&lc->memcg.rand) & (OWN_SAMPLE - 1));
	now = timed ? bpf_ktime_get_ns() : 0;
	memcg_decision(lc, memcg, tgid, force, needs_flush);
	if (timed)
		lc->memcg.own_ns += own_took(now, OWN_SAMPLE);
	return 0;
}


/* ---- removed cgroups ---- */

/* Every removal, tracked or not: they are rare, and a lookup would cost more. */
SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(cgroup_removed, struct cgroup *cgrp, const char *path)
{
	struct cgroup_gone g = { 0 };
	__u16 hierarchy;

	(void)ctx;
	(void)path;
	cgroup_ident(cgrp, true, &g.cgid, &hierarchy);
	g.hierarchy = hierarchy;
	if (bpf_map_push_elem(&cgroups_gone, &g, 0))
		cgroups_gone_missed = 1;
	return 0;
}

/* ---- fallback: the flush functions ---- */

/*
 * Fallback for kernels without rstat tracepoints (before 6.10): the flush
 * functions. cgroup_rstat_flush_locked() runs with the global lock held,
 * so its duration is the hold; an outer function's entry to it is the
 * wait; the outer function's entry to exit is the flush. Callers that the
 * compiler inlined (cgroup_rstat_flush_hold into cpu.stat on 6.1) are seen
 * through flush_locked alone: then the flush is that hold.
 */
static __always_inline bool fallback_wanted(void)
{
	return armed && (!targ_tgid || (bpf_get_current_pid_tgid() >> 32) == targ_tgid);
}

static __always_inline struct task_flush *current_flush(bool create)
{
	return bpf_task_storage_get(&task_flush, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

static __always_inline void outer_enter(struct cgroup *cgrp)
{
	__u64 now = bpf_ktime_get_ns();
	struct task_flush *f;

	if (!fallback_wanted())
		return;
	f = current_flush(true);
	if (!f)
		return;
	f->start = now;
	f->cgrp = (__u64)cgrp;
	f->outer = 1;
	f->holds = 0;
	f->slot = (__u32)-1;
}

/*
 * The outer function returns with the lock released and may be preempted:
 * no stage is safe here, so the flush goes straight to the home.
 */
static __always_inline void outer_exit(void)
{
	__u64 now = bpf_ktime_get_ns();
	struct task_flush *f;
	struct slot_home *h;

	if (!fallback_wanted())
		return;
	f = current_flush(false);
	if (!f || !f->outer)
		return;
	f->outer = 0;
	h = f->slot != (__u32)-1 && f->start ? home_of(f->slot) : NULL;
	if (h) {
		home_record(&h->d[DIST_FLUSH], now - f->start);
		__sync_fetch_and_add(&h->n.count[COUNT_FLUSH_HOLDS], f->holds);
		atomic_max(&h->n.count[COUNT_FLUSH_HOLDS_MAX], f->holds);
	}
	f->start = 0;
}

static __always_inline void inner_enter(void *ctx, struct cgroup *cgrp, bool typed)
{
	__u64 now = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	struct slot_stage *st;
	struct task_flush *f;
	struct lock_state *lc;
	__u32 slot;
	int n;

	if (!fallback_wanted())
		return;
	lc = this_lock_state();
	f = current_flush(true);
	if (!lc || !f)
		return;
	n = resolve_slot(&lc->cache, &lc->self_rare, cgrp, typed, per_process ? id >> 32 : 0,
			 LOCK_ALL, 0, true);
	if (n < 0)
		return;
	slot = n;
	st = stage_of(lc, slot);
	if (!f->outer || f->cgrp != (__u64)cgrp) {
		/* no outer function seen: an inlined caller */
		f->outer = 0;
		f->start = now;
		f->holds = 0;
	} else {
		__u64 wait = now - f->start;

		record(st, DIST_WAIT, wait);
		if (threshold_ns && wait >= threshold_ns)
			slow_emit(ctx, SLOW_WAIT, now, wait, slot, -1, false);
	}
	st->n.count[COUNT_LOCKED]++;
	vote(&st->n, id >> 32);
	f->slot = slot;
	f->cgrp = (__u64)cgrp;
	f->hold_start = now;
	if (irqoff_trace) {
		lc->hold_start = now;
		lc->hold_slot = slot;
	}
}

static __always_inline void inner_exit(void *ctx)
{
	__u64 now = bpf_ktime_get_ns(), hold;
	struct task_flush *f;
	struct lock_state *lc;

	if (!fallback_wanted())
		return;
	f = current_flush(false);
	lc = this_lock_state();
	if (!f || !lc || !f->hold_start)
		return;
	hold = now - f->hold_start;
	f->hold_start = 0;
	lc->hold_end = now;
	/* the lock is still held here: the stage is safe */
	record(stage_of(lc, f->slot), DIST_HOLD, hold);
	if (threshold_ns && hold >= threshold_ns)
		slow_emit(ctx, SLOW_HOLD, now, hold, f->slot, -1, false);
	f->holds++;
	if (!f->outer && f->start) {	/* an inlined caller: the flush is this hold */
		struct slot_stage *st = stage_of(lc, f->slot);

		stage_flush(st, now - f->start, f->holds);
		st->n.count[COUNT_FLUSH_HOLDS] += f->holds;
		f->start = 0;
	}
}

SEC("fentry/cgroup_rstat_flush_locked")
int BPF_PROG(fentry_flush_locked, struct cgroup *cgrp)
{
	inner_enter(ctx, cgrp, true);
	return 0;
}

SEC("fexit/cgroup_rstat_flush_locked")
int BPF_PROG(fexit_flush_locked)
{
	inner_exit(ctx);
	return 0;
}

SEC("kprobe/cgroup_rstat_flush_locked")
int BPF_KPROBE(kprobe_flush_locked, struct cgroup *cgrp)
{
	inner_enter(ctx, cgrp, false);
	return 0;
}

SEC("kretprobe/cgroup_rstat_flush_locked")
int BPF_KRETPROBE(kretprobe_flush_locked)
{
	inner_exit(ctx);
	return 0;
}

/* Outer flush functions; which exist depends on the kernel (probe.c). */
#define OUTER_PROGS(fn)								\
SEC("fentry/" #fn)								\
int BPF_PROG(fentry_##fn, struct cgroup *cgrp)					\
{										\
	(void)ctx;								\
	outer_enter(cgrp);							\
	return 0;								\
}										\
SEC("fexit/" #fn)								\
int BPF_PROG(fexit_##fn)							\
{										\
	(void)ctx;								\
	outer_exit();								\
	return 0;								\
}										\
SEC("kprobe/" #fn)								\
int BPF_KPROBE(kprobe_##fn, struct cgroup *cgrp)				\
{										\
	(void)ctx;								\
	outer_enter(cgrp);							\
	return 0;								\
}										\
SEC("kretprobe/" #fn)								\
int BPF_KRETPROBE(kretprobe_##fn)						\
{										\
	(void)ctx;								\
	outer_exit();								\
	return 0;								\
}

OUTER_PROGS(cgroup_rstat_flush)
OUTER_PROGS(cgroup_rstat_flush_irqsafe)
OUTER_PROGS(cgroup_rstat_flush_atomic)
OUTER_PROGS(cgroup_rstat_flush_hold)

/* ---- irqs-off: trace and sample ---- */

/*
 * --irqoff trace: the preemptirq tracepoints (CONFIG_PREEMPTIRQ_TRACEPOINTS)
 * give every irqs-off interval on every CPU, args (ip, parent_ip) of where
 * irqs were disabled or enabled. An interval in which an rstat hold began
 * belongs to that hold's cgroup; the rest go to a system-wide figure. Both
 * programs run with irqs off, so this CPU's stages are safe.
 */
static __always_inline struct irq_state *this_irq_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&irq_state, &zero);
}

SEC("tp_btf/irq_disable")
int irqs_off(__u64 *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct irq_state *ic;

	if (!armed)
		return 0;
	ic = this_irq_state();
	if (!ic)
		return 0;
	ic->off_ts = now;
	ic->off_ip = ctx[0];
	ic->off_parent = ctx[1];
	return 0;
}

/*
 * An interval of a slot, staged like the lock's figures but in this
 * source's own per-CPU stage; its home is slot_irqoff.
 */
static __always_inline void irqoff_record(struct irq_state *ic, __u32 slot, __u64 v)
{
	__u32 e = (__u32)epoch, b = hist_bucket(v);
	struct slot_dist_stage *st = &ic->slot[e & 1];
	struct dist_rec *home;

	if (st->epoch != e || st->slot != slot + 1) {
		if (st->epoch == e && st->slot) {
			home = irqoff_home_of(st->slot - 1);
			if (home) {
				touch(st->slot - 1);
				dist_evict(&st->d, home, e);
			}
		}
		dist_reset(&st->d);
		st->epoch = e;
		st->slot = slot + 1;
	}
	if (stage_value(&st->d, b, v))
		return;
	home = irqoff_home_of(slot);
	if (home) {
		touch(slot);
		home_bucket(home, b, 1);
	}
}

static __always_inline void slow_irqoff(__u64 *ctx, const struct irq_state *ic, __u64 now,
					  __u64 duration, __u32 slot)
{
	struct slow_event *e = slow_begin(SLOW_IRQOFF, now, duration, slot, -1);

	if (!e)
		return;
	e->irq_sites[0] = ic->off_ip;
	e->irq_sites[1] = ic->off_parent;
	e->irq_sites[2] = ctx[0];
	e->irq_sites[3] = ctx[1];
	slow_submit(ctx, e);
}

SEC("tp_btf/irq_enable")
int irqs_on(__u64 *ctx)
{
	__u64 now = bpf_ktime_get_ns(), duration;
	struct irq_state *ic = this_irq_state();
	struct lock_state *lc = this_lock_state();

	if (!ic || !lc || !ic->off_ts)
		return 0;
	duration = now - ic->off_ts;
	if (lc->hold_start >= ic->off_ts) {
		/* an rstat hold began while irqs were off: its cgroup's interval */
		irqoff_record(ic, lc->hold_slot, duration);
		if (threshold_ns && duration >= threshold_ns)
			slow_irqoff(ctx, ic, now, duration, lc->hold_slot);
	} else {
		sys_record(&sys_stage_of(ic->outside)->d, SYS_IRQ_OUTSIDE, duration);
	}
	ic->off_ts = 0;
	return 0;
}

/*
 * --irqoff sample: a cpu-clock perf event per online CPU, every
 * tick_period_ns. The tick is an hrtimer interrupt: while interrupts are
 * off it cannot run, so a tick that comes late by d means they were off
 * (or the vCPU was not running) for about d before it. It runs in
 * interrupt context: its own per-CPU state, plus atomic spills into
 * sys_home and the -t ring buffer, both safe there.
 */
SEC("perf_event")
int irqoff_tick(struct bpf_perf_event_data *ctx)
{
	__u64 now = bpf_ktime_get_ns(), gap, late;
	struct lock_state *lc = this_lock_state();
	struct slow_event *e;
	struct sys_stage *st;
	struct tick_state *tc;
	__u32 zero = 0;

	tc = bpf_map_lookup_elem(&tick_state, &zero);
	if (!tc || !lc || !armed)
		return 0;
	gap = tc->last ? now - tc->last : 0;
	st = sys_stage_of(tc->stage);
	st->events++;
	if (gap > tick_period_ns) {
		late = gap - tick_period_ns;
		sys_record(&st->d, SYS_TICK_LATE, late);
		if (threshold_ns && late >= threshold_ns) {
			e = slow_begin(SLOW_TICK, now, late, (__u32)-1, -1);
			if (e) {
				e->overlap = lc->hold_end > tc->last;
				e->cgid_current = bpf_get_current_cgroup_id();
				slow_submit(ctx, e);
			}
		}
	}
	tc->last = now;
	return 0;
}

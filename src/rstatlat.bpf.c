// SPDX-License-Identifier: GPL-2.0
/*
 * rstatlat: cgroup rstat lock wait and hold times, per flushed cgroup.
 *
 * The rstat lock is taken with spin_lock_irq(), so between the locked and
 * unlock tracepoints the holder cannot leave its CPU: per-CPU state is
 * enough to pair them, and every update below touches only this CPU's data.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "rstatlat.h"

char LICENSE[] SEC("license") = "GPL";

/* Knobs, set by userspace before load. */
const volatile __u32 targ_tgid = 0;	/* only this process flushes, 0 = all */
const volatile bool per_process = false;	/* key slots by tgid too (-p) */
const volatile __u64 report_ns = 0;	/* -t threshold, 0 = off */
const volatile __u32 max_slots = 1;	/* max_entries of the slot maps */
/*
 * Where the rstat tracepoints keep their arguments, read from the
 * prototype in BTF by the probe: (cgrp, cpu, contended) today, and
 * proposed forms without cpu or with a lock argument added.
 */
const volatile __u32 arg_cgrp = 0;
const volatile __s32 arg_cpu = 1;	/* -1: no cpu argument */
const volatile __u32 arg_contended = 2;
/* The highest possible CPU: its unlock ends a flush that locks per CPU. */
const volatile __s32 last_cpu = 0;
/* --irqoff sample: the cpu-clock period; 0 = not sampling */
const volatile __u64 tick_period_ns = 0;

/* Shared with userspace through the mmapped .bss. */
__u64 epoch = 0;	/* interval number, advanced by userspace */
/*
 * Set once all programs are attached: before that, a locked event whose
 * unlock program is not attached yet would leave this CPU "holding".
 */
__u32 armed = 0;
/*
 * Bumped by userspace when it retires slots of removed cgroups: a per-CPU
 * cache filled under an older generation may name a slot that is being
 * reused, so it no longer hits.
 */
__u32 cache_gen = 0;
__u32 next_slot = 0;	/* slot numbers handed out so far */
/*
 * Set once a flush is seen taking the lock per CPU (locked and unlock of the
 * same cpu, for every possible CPU): from then on a hold of lock cpu -1 is
 * cpu.stat reading its totals, not a flush.
 */
__u32 per_cpu_walks = 0;

/* 64 bytes, one cache line when aligned; the contended-only fields last. */
struct cpu_state {
	__u64 locked_ts;	/* 0 when this CPU holds no measured lock */
	__u64 locked_cgrp;	/* cgroup pointer of the current hold */
	__u32 locked_slot;
	__u32 locked_contended;
	__u64 cache_cgid;	/* last slot resolved on this CPU */
	__u32 cache_hierarchy;
	__u32 cache_tgid;
	__u32 cache_slot;
	__u32 cache_valid;	/* 1 + cache_gen when filled, 0 = empty */
	__u64 contended_ts;
	__u32 contended_tid;
	__u32 pad;
	/* for the flush, accounted at unlock */
	__u64 locked_start;	/* the wait's start if contended, else locked_ts */
	__s32 locked_lock_cpu;	/* the locked event's cpu argument */
	__u32 pad2;
	/* --irqoff trace: the irqs-off interval open on this CPU */
	__u64 irq_off_ts;	/* 0: irqs on (as far as we saw) */
	__u64 irq_off_ip;
	__u64 irq_off_parent;
	__u32 irq_slot;		/* 1 + slot of an rstat hold inside, 0: none */
	__u32 pad3;
	/* --irqoff sample */
	__u64 tick_last;	/* when the previous cpu-clock tick ran */
	__u64 hold_end;		/* when the last rstat hold on this CPU ended */
	/* the per-CPU rstat lock (6.10-6.16): nests inside the global one */
	__u64 cpulock_locked_ts;
	__u64 cpulock_contended_ts;
};

/*
 * One flush call of the current task: from its first lock acquisition (or
 * the wait before it) to its last release. The lock may be dropped and
 * retaken in between (per CPU from 6.15, on need_resched before), and the
 * task may move CPUs then: so it lives with the task, not the CPU.
 */
struct task_flush {
	__u64 start;		/* 0: no flush open */
	__u64 cgrp;
	__u64 hold_start;	/* fallback: inside cgroup_rstat_flush_locked */
	__u64 walked_cgrp;	/* cgroup of the per-CPU walk that just ended */
	__u32 slot;
	__u32 holds;
	__s32 last_lock_cpu;
	__u32 outer;		/* fallback: opened by an outer flush function */
	__u8 totals;		/* the open "flush" is a totals read: not counted */
	__u8 whole;		/* opened by lock cpu -1: it ends at unlock cpu -1 */
	__u8 paired;		/* every hold locked and unlocked one cpu */
	__u8 pad;
	__u32 pad2;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_state);
} cpu_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);	/* resized by userspace */
	__type(key, struct slot_key);
	__type(value, __u32);
} slot_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);	/* resized by userspace */
	__type(key, __u32);
	__type(value, struct slot_meta);
} slot_meta SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);	/* resized by userspace */
	__type(key, __u32);
	__type(value, struct slot_stats);
} slot_stats SEC(".maps");

/* Slots of removed cgroups, handed back by userspace for reuse. */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 1);	/* resized by userspace */
	__type(value, __u32);
} free_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LOST_MAX);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_flush);
} task_flush SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lock_stats);
} cpulock_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_stats);
} irq_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);	/* resized by userspace */
} events SEC(".maps");

/* Before 6.15 kernfs_node's parent pointer was called "parent". */
struct kernfs_node___pre615 {
	struct kernfs_node *parent;
} __attribute__((preserve_access_index));

static __always_inline void count_lost(__u32 kind)
{
	__u64 *v = bpf_map_lookup_elem(&lost, &kind);

	if (v)
		(*v)++;
}

static __always_inline struct kernfs_node *kn_parent(struct kernfs_node *kn)
{
	if (bpf_core_field_exists(kn->__parent))
		return BPF_CORE_READ(kn, __parent);
	return BPF_CORE_READ((struct kernfs_node___pre615 *)kn, parent);
}

/*
 * Copy the cgroup's path, leaf first, so that a cgroup removed before
 * userspace looks at it still has a name.
 */
static __noinline void capture_path(struct slot_meta *meta, struct kernfs_node *kn)
{
	struct kernfs_node *parent;
	__u32 depth = 0;
	long len;

	for (int i = 0; i < RSL_MAX_DEPTH; i++) {
		parent = kn_parent(kn);
		if (!parent)
			break;
		len = bpf_probe_read_kernel_str(meta->names[i], RSL_NAME_LEN,
						BPF_CORE_READ(kn, name));
		if (len >= RSL_NAME_LEN || len < 0)
			meta->truncated = 1;
		depth++;
		kn = parent;
	}
	if (kn && kn_parent(kn))
		meta->truncated = 1;
	meta->depth = depth;
}

static __noinline int create_slot(struct cgroup *cgrp, struct slot_key *key)
{
	struct slot_meta *meta;
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
			count_lost(LOST_SLOTS_FULL);
			return -1;
		}
		n = __sync_fetch_and_add(&next_slot, 1);
		if (n >= max_slots) {
			count_lost(LOST_SLOTS_FULL);
			return -1;
		}
	}
	meta = bpf_map_lookup_elem(&slot_meta, &n);
	if (!meta)
		return -1;
	meta->key = *key;
	meta->flusher_cgid = bpf_get_current_cgroup_id();
	bpf_get_current_comm(meta->comm, sizeof(meta->comm));
	capture_path(meta, BPF_CORE_READ(cgrp, kn));
	if (bpf_map_update_elem(&slot_ids, key, &n, BPF_NOEXIST) == 0) {
		meta->state = SLOT_READY;
		return n;
	}
	/* Another CPU created the same key first: use its slot. */
	meta->state = SLOT_DISCARDED;
	existing = bpf_map_lookup_elem(&slot_ids, key);
	if (!existing) {
		count_lost(LOST_SLOTS_FULL);
		return -1;
	}
	return *existing;
}

/*
 * tp_btf and fentry see a typed cgroup pointer and read through it
 * directly; kprobes get a plain address and go through probe reads.
 */
static __always_inline void cgroup_ident(struct cgroup *cgrp, bool typed, __u64 *cgid,
					 __u32 *hierarchy)
{
	if (typed) {
		*cgid = cgrp->kn->id;
		*hierarchy = cgrp->root->hierarchy_id;
	} else {
		*cgid = BPF_CORE_READ(cgrp, kn, id);
		*hierarchy = BPF_CORE_READ(cgrp, root, hierarchy_id);
	}
}

static __always_inline int resolve_slot(struct cpu_state *st, struct cgroup *cgrp, bool typed,
					__u32 tgid)
{
	struct slot_key key = {};
	__u32 *slot;
	int n;

	cgroup_ident(cgrp, typed, &key.cgid, &key.hierarchy);
	key.tgid = tgid;
	if (st->cache_valid == cache_gen + 1 && st->cache_cgid == key.cgid &&
	    st->cache_hierarchy == key.hierarchy && st->cache_tgid == tgid)
		return st->cache_slot;

	slot = bpf_map_lookup_elem(&slot_ids, &key);
	n = slot ? (int)*slot : create_slot(cgrp, &key);
	if (n < 0)
		return n;
	st->cache_cgid = key.cgid;
	st->cache_hierarchy = key.hierarchy;
	st->cache_tgid = tgid;
	st->cache_slot = n;
	st->cache_valid = cache_gen + 1;
	return n;
}

static __always_inline void update_imax(struct epoch_max *imax, __u64 v)
{
	__u64 e = epoch;
	struct epoch_max *m = &imax[e & 1];

	if (m->epoch != e) {
		m->epoch = e;
		m->value = v;
	} else if (v > m->value) {
		m->value = v;
	}
}

static __always_inline void record(__u64 *hist, __u64 *sum, __u64 *max,
				   struct epoch_max *imax, __u64 v)
{
	__u32 b = hist_bucket(v);

	if (b < HIST_BUCKETS)
		hist[b]++;
	*sum += v;
	if (v > *max)
		*max = v;
	update_imax(imax, v);
}

/* Majority vote: the flusher holding most acquisitions wins the slot. */
static __always_inline void vote(struct slot_stats *s, __u32 tgid)
{
	if (s->top_tgid == tgid) {
		s->top_votes++;
	} else if (s->top_votes == 0) {
		s->top_tgid = tgid;
		s->top_votes = 1;
		bpf_get_current_comm(s->top_comm, sizeof(s->top_comm));
	} else {
		s->top_votes--;
	}
}

/*
 * A -t report: reserved and filled with what every kind has. The caller
 * adds its own fields, then report_submit() takes the stack and sends it.
 */
static __always_inline struct slow_event *report_begin(__u32 kind, __u64 now, __u64 duration,
							__u32 slot, int lock_cpu)
{
	struct slow_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	struct slot_meta *meta;
	__u64 id = bpf_get_current_pid_tgid();

	if (!e) {
		count_lost(LOST_RINGBUF_FULL);
		return NULL;
	}
	__builtin_memset(e, 0, offsetof(struct slow_event, stack));
	meta = bpf_map_lookup_elem(&slot_meta, &slot);
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

static __always_inline void report_submit(void *ctx, struct slow_event *e)
{
	e->stack_bytes = bpf_get_stack(ctx, e->stack, sizeof(e->stack), 0);
	if (e->stack_bytes < 0)
		count_lost(LOST_STACK);
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void report(void *ctx, __u32 kind, __u64 now, __u64 duration,
				   __u32 slot, int lock_cpu, bool contended)
{
	struct slow_event *e = report_begin(kind, now, duration, slot, lock_cpu);

	if (!e)
		return;
	e->contended = contended;
	report_submit(ctx, e);
}

static __always_inline struct cpu_state *this_cpu_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu_state, &zero);
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

static __always_inline struct task_flush *current_flush(bool create)
{
	return bpf_task_storage_get(&task_flush, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* A flush ended: its length and how many holds it took. */
static __always_inline void record_flush(struct task_flush *f, __u64 now)
{
	struct slot_stats *s = bpf_map_lookup_elem(&slot_stats, &f->slot);

	if (s && f->start) {
		record(s->flush_hist, &s->flush_sum, &s->flush_max, s->flush_imax,
		       now - f->start);
		s->flush_holds += f->holds;
		if (f->holds > s->flush_holds_max)
			s->flush_holds_max = f->holds;
	}
	f->start = 0;
}

/*
 * Tracepoints: a hold joins the task's open flush when it is of the same
 * cgroup and its lock cpu comes later in the walk over CPUs; anything else
 * starts a new flush (and an open one never saw its last release). Kernels
 * take the lock in one of two ways, told apart by the first acquisition's
 * lock cpu:
 *   -1 (a whole flush under one lock, dropped between CPUs only to breathe:
 *      6.10-6.14, and 6.12 with 0efc297a): locked -1, unlock 0, locked 0,
 *      unlock 1, ... unlock -1: it ends at the release of -1;
 *   cpu (one hold per CPU, 6.15 on): locked 0, unlock 0, locked 1, ... it
 *      ends at the release of the last possible CPU, and reading cpu.stat
 *      then takes the lock once more as -1 to read the totals: a hold, not
 *      a flush.
 * The state lives with the task: between holds the lock is dropped and the
 * task may be preempted, move CPUs, or share its CPU with other flushers.
 * It is updated at unlock, after the hold's clock read, so no hold
 * includes the lookup.
 */
static __always_inline void flush_account(struct cgroup *cgrp, const struct cpu_state *st,
					  __u32 slot, int unlock_cpu, __u64 now)
{
	int lock_cpu = st->locked_lock_cpu;
	struct task_flush *f = current_flush(true);

	if (!f)
		return;
	if (f->start && (f->cgrp != (__u64)cgrp || lock_cpu <= f->last_lock_cpu)) {
		count_lost(LOST_FLUSH_OPEN);
		f->start = 0;
	}
	if (!f->start) {
		f->start = st->locked_start;
		f->cgrp = (__u64)cgrp;
		f->slot = slot;
		f->holds = 0;
		f->whole = lock_cpu < 0;
		f->totals = lock_cpu < 0 && (per_cpu_walks || f->walked_cgrp == (__u64)cgrp);
		f->walked_cgrp = 0;
		f->paired = 1;
	}
	f->holds++;
	f->last_lock_cpu = lock_cpu;
	if (lock_cpu != unlock_cpu)
		f->paired = 0;
	/* not over until the release of -1, or of the last CPU of a walk */
	if (unlock_cpu >= 0 && (unlock_cpu < last_cpu || f->whole))
		return;
	f->walked_cgrp = unlock_cpu >= 0 ? f->cgrp : 0;
	if (unlock_cpu >= 0 && f->paired && !per_cpu_walks)
		per_cpu_walks = 1;
	if (f->totals)
		f->start = 0;
	else
		record_flush(f, now);
}

static __always_inline void on_contended(__u64 now)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct cpu_state *st;

	if (!armed || (targ_tgid && (id >> 32) != targ_tgid))
		return;
	st = this_cpu_state();
	if (!st)
		return;
	st->contended_ts = now;
	st->contended_tid = (__u32)id;
}

static __always_inline void on_locked(void *ctx, struct cgroup *cgrp, int lock_cpu,
				      bool contended, __u64 now)
{
	__u64 id = bpf_get_current_pid_tgid(), start = now;
	__u32 tgid = id >> 32;
	struct slot_stats *s;
	struct cpu_state *st;
	__u32 slot;
	int n;

	if (!armed)
		return;
	st = this_cpu_state();
	if (!st)
		return;
	if (st->locked_ts)
		count_lost(LOST_RELOCKED);
	/* Remember the hold even when not measuring it, so its unlock pairs. */
	st->locked_ts = 0;
	st->locked_cgrp = (__u64)cgrp;
	if (targ_tgid && tgid != targ_tgid)
		return;
	n = resolve_slot(st, cgrp, true, per_process ? tgid : 0);
	if (n < 0)
		return;
	slot = n;
	s = bpf_map_lookup_elem(&slot_stats, &slot);
	if (!s)
		return;
	s->locked++;
	vote(s, tgid);
	if (contended) {
		s->contended++;
		if (st->contended_ts && st->contended_tid == (__u32)id) {
			__u64 wait = now - st->contended_ts;

			start = st->contended_ts;
			record(s->wait_hist, &s->wait_sum, &s->wait_max, s->wait_imax, wait);
			if (report_ns && wait >= report_ns)
				report(ctx, REPORT_WAIT, now, wait, slot, lock_cpu, true);
		} else {
			count_lost(LOST_WAIT_MIGRATED);
		}
	}
	st->contended_ts = 0;
	st->locked_slot = slot;
	st->locked_contended = contended;
	st->locked_lock_cpu = lock_cpu;
	st->locked_start = start;
	st->locked_ts = now;
	if (st->irq_off_ts)	/* irqs went off before the lock: this hold is inside */
		st->irq_slot = slot + 1;
}

static __always_inline void on_unlock(void *ctx, struct cgroup *cgrp, int lock_cpu, __u64 now)
{
	struct slot_stats *s;
	struct cpu_state *st;
	__u64 hold;
	__u32 slot;

	if (!armed)
		return;
	st = this_cpu_state();
	if (!st)
		return;
	if (st->locked_cgrp != (__u64)cgrp) {
		/* e.g. the lock was taken before we attached */
		count_lost(LOST_UNPAIRED_UNLOCK);
		st->locked_ts = 0;
		return;
	}
	st->locked_cgrp = 0;
	if (!st->locked_ts)
		return;	/* filtered out or no slot: already accounted */
	hold = now - st->locked_ts;
	st->locked_ts = 0;
	st->hold_end = now;
	slot = st->locked_slot;
	s = bpf_map_lookup_elem(&slot_stats, &slot);
	if (!s)
		return;
	record(s->hold_hist, &s->hold_sum, &s->hold_max, s->hold_imax, hold);
	if (report_ns && hold >= report_ns)
		report(ctx, REPORT_HOLD, now, hold, slot, lock_cpu, st->locked_contended);
	flush_account(cgrp, st, slot, lock_cpu, now);
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

	on_locked(ctx, (struct cgroup *)tp_arg(ctx, arg_cgrp), tp_lock_cpu(ctx),
		  (bool)tp_arg(ctx, arg_contended), now);
	return 0;
}

SEC("tp_btf/cgroup_rstat_unlock")
int rstat_unlock(__u64 *ctx)
{
	__u64 now = bpf_ktime_get_ns();

	/* contended is always false at unlock; the locked event counts it */
	on_unlock(ctx, (struct cgroup *)tp_arg(ctx, arg_cgrp), tp_lock_cpu(ctx), now);
	return 0;
}

/* The per-CPU rstat lock: system-wide figures, paired per CPU (irqsave). */
static __always_inline struct lock_stats *cpulock(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpulock_stats, &zero);
}

static __always_inline void on_cpulock_contended(void)
{
	__u64 now = bpf_ktime_get_ns();
	struct cpu_state *st = this_cpu_state();

	if (st && armed)
		st->cpulock_contended_ts = now;
}

static __always_inline void on_cpulock_locked(bool contended)
{
	__u64 now = bpf_ktime_get_ns();
	struct cpu_state *st = this_cpu_state();
	struct lock_stats *s = cpulock();

	if (!st || !s || !armed)
		return;
	s->locked++;
	if (contended) {
		s->contended++;
		if (st->cpulock_contended_ts)
			record(s->wait_hist, &s->wait_sum, &s->wait_max, s->wait_imax,
			       now - st->cpulock_contended_ts);
	}
	st->cpulock_contended_ts = 0;
	st->cpulock_locked_ts = now;
}

static __always_inline void on_cpulock_unlock(void)
{
	__u64 now = bpf_ktime_get_ns();
	struct cpu_state *st = this_cpu_state();
	struct lock_stats *s = cpulock();

	if (!st || !s || !st->cpulock_locked_ts)
		return;
	record(s->hold_hist, &s->hold_sum, &s->hold_max, s->hold_imax,
	       now - st->cpulock_locked_ts);
	st->cpulock_locked_ts = 0;
}

#define CPULOCK_PROGS(suffix)							\
SEC("tp_btf/cgroup_rstat_cpu_lock_contended" #suffix)				\
int rstat_cpu_contended##suffix(__u64 *ctx)					\
{										\
	(void)ctx;								\
	on_cpulock_contended();							\
	return 0;								\
}										\
SEC("tp_btf/cgroup_rstat_cpu_locked" #suffix)					\
int rstat_cpu_locked##suffix(__u64 *ctx)					\
{										\
	on_cpulock_locked((bool)ctx[2]);					\
	return 0;								\
}										\
SEC("tp_btf/cgroup_rstat_cpu_unlock" #suffix)					\
int rstat_cpu_unlock##suffix(__u64 *ctx)					\
{										\
	(void)ctx;								\
	on_cpulock_unlock();							\
	return 0;								\
}

CPULOCK_PROGS()
CPULOCK_PROGS(_fastpath)

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

static __always_inline void outer_exit(void)
{
	__u64 now = bpf_ktime_get_ns();
	struct task_flush *f;

	if (!fallback_wanted())
		return;
	f = current_flush(false);
	if (!f || !f->outer)
		return;
	f->outer = 0;
	if (f->slot != (__u32)-1)
		record_flush(f, now);
	f->start = 0;
}

static __always_inline void inner_enter(void *ctx, struct cgroup *cgrp, bool typed)
{
	__u64 now = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	struct task_flush *f;
	struct slot_stats *s;
	struct cpu_state *st;
	__u32 slot;
	int n;

	if (!fallback_wanted())
		return;
	st = this_cpu_state();
	f = current_flush(true);
	if (!st || !f)
		return;
	n = resolve_slot(st, cgrp, typed, per_process ? id >> 32 : 0);
	if (n < 0)
		return;
	slot = n;
	s = bpf_map_lookup_elem(&slot_stats, &slot);
	if (!s)
		return;
	if (!f->outer || f->cgrp != (__u64)cgrp) {
		/* no outer function seen: an inlined caller */
		f->outer = 0;
		f->start = now;
		f->holds = 0;
	} else {
		__u64 wait = now - f->start;

		record(s->wait_hist, &s->wait_sum, &s->wait_max, s->wait_imax, wait);
		if (report_ns && wait >= report_ns)
			report(ctx, REPORT_WAIT, now, wait, slot, -1, false);
	}
	s->locked++;
	vote(s, id >> 32);
	f->slot = slot;
	f->cgrp = (__u64)cgrp;
	f->hold_start = now;
	if (st->irq_off_ts)
		st->irq_slot = slot + 1;
}

static __always_inline void inner_exit(void *ctx)
{
	__u64 now = bpf_ktime_get_ns(), hold;
	struct task_flush *f;
	struct slot_stats *s;
	struct cpu_state *st;

	if (!fallback_wanted())
		return;
	f = current_flush(false);
	if (!f || !f->hold_start)
		return;
	hold = now - f->hold_start;
	f->hold_start = 0;
	st = this_cpu_state();
	if (st)
		st->hold_end = now;
	s = bpf_map_lookup_elem(&slot_stats, &f->slot);
	if (!s)
		return;
	record(s->hold_hist, &s->hold_sum, &s->hold_max, s->hold_imax, hold);
	if (report_ns && hold >= report_ns)
		report(ctx, REPORT_HOLD, now, hold, f->slot, -1, false);
	f->holds++;
	if (!f->outer)
		record_flush(f, now);
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

/*
 * --irqoff trace: the preemptirq tracepoints (CONFIG_PREEMPTIRQ_TRACEPOINTS)
 * give every irqs-off interval on every CPU, args (ip, parent_ip) of where
 * irqs were disabled or enabled. An interval that an rstat hold began in
 * belongs to that hold's cgroup; the rest go to a system-wide histogram.
 */
static __always_inline struct irq_stats *this_irq_stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&irq_stats, &zero);
}

SEC("tp_btf/irq_disable")
int irqs_off(__u64 *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct cpu_state *st;

	if (!armed)
		return 0;
	st = this_cpu_state();
	if (!st)
		return 0;
	st->irq_off_ts = now;
	st->irq_off_ip = ctx[0];
	st->irq_off_parent = ctx[1];
	st->irq_slot = 0;
	return 0;
}

static __always_inline void report_irqoff(__u64 *ctx, const struct cpu_state *st, __u64 now,
					  __u64 duration, __u32 slot)
{
	struct slow_event *e = report_begin(REPORT_IRQOFF, now, duration, slot, -1);

	if (!e)
		return;
	e->irq_sites[0] = st->irq_off_ip;
	e->irq_sites[1] = st->irq_off_parent;
	e->irq_sites[2] = ctx[0];
	e->irq_sites[3] = ctx[1];
	report_submit(ctx, e);
}

SEC("tp_btf/irq_enable")
int irqs_on(__u64 *ctx)
{
	__u64 now = bpf_ktime_get_ns(), duration;
	struct cpu_state *st;
	struct slot_stats *s;
	struct irq_stats *is;
	__u32 slot;

	st = this_cpu_state();
	if (!st || !st->irq_off_ts)
		return 0;
	duration = now - st->irq_off_ts;
	if (st->irq_slot) {
		slot = st->irq_slot - 1;
		s = bpf_map_lookup_elem(&slot_stats, &slot);
		if (s)
			record(s->irqoff_hist, &s->irqoff_sum, &s->irqoff_max, s->irqoff_imax,
			       duration);
		if (report_ns && duration >= report_ns)
			report_irqoff(ctx, st, now, duration, slot);
	} else {
		is = this_irq_stats();
		if (is)
			record(is->other_hist, &is->other_sum, &is->other_max, is->other_imax,
			       duration);
	}
	st->irq_off_ts = 0;
	st->irq_slot = 0;
	return 0;
}

/*
 * --irqoff sample: a cpu-clock perf event per online CPU, every
 * tick_period_ns. The tick is an hrtimer interrupt: while interrupts are
 * off it cannot run, so a tick that comes late by d means they were off
 * (or the vCPU was not running) for about d before it.
 */
SEC("perf_event")
int irqoff_tick(struct bpf_perf_event_data *ctx)
{
	__u64 now = bpf_ktime_get_ns(), gap, late;
	struct cpu_state *st = this_cpu_state();
	struct irq_stats *is = this_irq_stats();
	struct slow_event *e;

	if (!st || !is || !armed)
		return 0;
	gap = st->tick_last ? now - st->tick_last : 0;
	is->ticks++;
	if (gap > tick_period_ns) {
		late = gap - tick_period_ns;
		record(is->late_hist, &is->late_sum, &is->late_max, is->late_imax, late);
		if (report_ns && late >= report_ns) {
			e = report_begin(REPORT_TICK, now, late, (__u32)-1, -1);
			if (e) {
				e->overlap = st->hold_end > st->tick_last;
				e->cgid_current = bpf_get_current_cgroup_id();
				report_submit(ctx, e);
			}
		}
	}
	st->tick_last = now;
	return 0;
}

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

static __always_inline int resolve_slot(struct cpu_state *st, struct cgroup *cgrp, __u32 tgid)
{
	struct slot_key key = {};
	__u32 *slot;
	int n;

	key.cgid = cgrp->kn->id;
	key.hierarchy = cgrp->root->hierarchy_id;
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

static __always_inline void report(void *ctx, __u32 kind, __u64 now, __u64 duration,
			      __u32 slot, int lock_cpu, bool contended)
{
	struct slow_event *e;
	struct slot_meta *meta;
	__u64 id = bpf_get_current_pid_tgid();

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_lost(LOST_RINGBUF_FULL);
		return;
	}
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
	e->contended = contended;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->stack_bytes = bpf_get_stack(ctx, e->stack, sizeof(e->stack), 0);
	if (e->stack_bytes < 0)
		count_lost(LOST_STACK);
	bpf_ringbuf_submit(e, 0);
}

static __always_inline struct cpu_state *this_cpu_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu_state, &zero);
}

SEC("tp_btf/cgroup_rstat_lock_contended")
int BPF_PROG(rstat_contended, struct cgroup *cgrp, int cpu, bool contended)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 id = bpf_get_current_pid_tgid();
	struct cpu_state *st;

	(void)ctx, (void)cgrp, (void)cpu, (void)contended;	/* the event is the signal */
	if (!armed || (targ_tgid && (id >> 32) != targ_tgid))
		return 0;
	st = this_cpu_state();
	if (!st)
		return 0;
	st->contended_ts = now;
	st->contended_tid = (__u32)id;
	return 0;
}

SEC("tp_btf/cgroup_rstat_locked")
int BPF_PROG(rstat_locked, struct cgroup *cgrp, int cpu, bool contended)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	struct slot_stats *s;
	struct cpu_state *st;
	__u32 slot;
	int n;

	if (!armed)
		return 0;
	st = this_cpu_state();
	if (!st)
		return 0;
	if (st->locked_ts)
		count_lost(LOST_RELOCKED);
	/* Remember the hold even when not measuring it, so its unlock pairs. */
	st->locked_ts = 0;
	st->locked_cgrp = (__u64)cgrp;
	if (targ_tgid && tgid != targ_tgid)
		return 0;
	n = resolve_slot(st, cgrp, per_process ? tgid : 0);
	if (n < 0)
		return 0;
	slot = n;
	s = bpf_map_lookup_elem(&slot_stats, &slot);
	if (!s)
		return 0;
	s->locked++;
	vote(s, tgid);
	if (contended) {
		s->contended++;
		if (st->contended_ts && st->contended_tid == (__u32)id) {
			__u64 wait = now - st->contended_ts;

			record(s->wait_hist, &s->wait_sum, &s->wait_max, s->wait_imax, wait);
			if (report_ns && wait >= report_ns)
				report(ctx, REPORT_WAIT, now, wait, slot, cpu, true);
		} else {
			count_lost(LOST_WAIT_MIGRATED);
		}
	}
	st->contended_ts = 0;
	st->locked_slot = slot;
	st->locked_contended = contended;
	st->locked_ts = now;
	return 0;
}

SEC("tp_btf/cgroup_rstat_unlock")
int BPF_PROG(rstat_unlock, struct cgroup *cgrp, int cpu, bool contended)
{
	__u64 now = bpf_ktime_get_ns();
	struct slot_stats *s;
	struct cpu_state *st;
	__u64 hold;
	__u32 slot;

	(void)contended;	/* always false at unlock; the locked event's counts */
	if (!armed)
		return 0;
	st = this_cpu_state();
	if (!st)
		return 0;
	if (st->locked_cgrp != (__u64)cgrp) {
		/* e.g. the lock was taken before we attached */
		count_lost(LOST_UNPAIRED_UNLOCK);
		st->locked_ts = 0;
		return 0;
	}
	st->locked_cgrp = 0;
	if (!st->locked_ts)
		return 0;	/* filtered out or no slot: already accounted */
	hold = now - st->locked_ts;
	st->locked_ts = 0;
	slot = st->locked_slot;
	s = bpf_map_lookup_elem(&slot_stats, &slot);
	if (!s)
		return 0;
	record(s->hold_hist, &s->hold_sum, &s->hold_max, s->hold_imax, hold);
	if (report_ns && hold >= report_ns)
		report(ctx, REPORT_HOLD, now, hold, slot, cpu,
		       st->locked_contended);
	return 0;
}

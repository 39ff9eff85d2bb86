// SPDX-License-Identifier: GPL-2.0
/* Before 6.10: the flush functions, by fentry or kprobe, instead of the tracepoints. */
#include "lock.bpf.h"

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

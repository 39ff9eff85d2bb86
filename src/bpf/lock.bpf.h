/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rstat lock's per-CPU state and what the other sources add to it:
 * its tracepoints' arguments, its sampling, its flushes.
 */
#ifndef LOCK_BPF_H
#define LOCK_BPF_H

#include "record.bpf.h"

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
 * one read. Weighed by weight, the runs it stands for, unless it was
 * stretched (OWN_STRETCHED_NS): then once.
 */
static __always_inline __u64 own_took(__u64 now, __u32 weight)
{
	__u64 end = bpf_ktime_get_ns(), clock = bpf_ktime_get_ns() - end;
	__u64 took = end - now + 2 * clock;

	return took < OWN_STRETCHED_NS ? took * weight : took;
}

/* A whole flush into a stage: its wall time, and the most holds one took. */
static __always_inline void stage_flush(struct slot_stage *st, __u64 wall, __u32 holds)
{
	record(st, DIST_FLUSH, wall);
	if (holds > st->n.count[COUNT_FLUSH_HOLDS_MAX])
		st->n.count[COUNT_FLUSH_HOLDS_MAX] = holds;
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

/*
 * The parked flush of task tid taken here (flush_unpark), asked only while
 * a flush is parked: most holds, switches and flushes find none, and pay
 * a load for it, not a global function's call.
 */
static __always_inline bool flush_unparked(struct lock_state *lc, __u32 tid, __u64 cgrp,
					   int lock_cpu)
{
	return flushes_parked && flush_unpark(lc, tid, cgrp, lock_cpu);
}

/* The memory controller's lock, where memcg flush decisions count. */
static __always_inline __u16 memory_lock(void)
{
	return LOCK_SUBSYS + bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
}

#endif /* LOCK_BPF_H */

// SPDX-License-Identifier: GPL-2.0
/* The per-CPU rstat lock's tracepoints (6.10-6.16): system-wide, paired per CPU. */
#include "lock.bpf.h"

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

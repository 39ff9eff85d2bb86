// SPDX-License-Identifier: GPL-2.0
/* irqs-off intervals: the preemptirq tracepoints (trace) and cpu-clock (sample). */
#include "lock.bpf.h"

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

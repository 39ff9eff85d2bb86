// SPDX-License-Identifier: GPL-2.0
/* --flush-parts timed: irq time per CPU, and flushers switched out. */
#include "lock.bpf.h"

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
	if (flush_unparked(lc, next->pid, 0, 0))
		flush_resume(lc, next->pid, bpf_ktime_get_ns());
	return 0;
}

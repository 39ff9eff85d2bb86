// SPDX-License-Identifier: GPL-2.0
/*
 * The least any program on an event can cost: on sched_switch and the irq
 * points that --flush-parts timed attaches to, and on memcg_flush_stats
 * (every memcg flush request, rstatlat's default memcg_flush), a program
 * that tests a global and returns. What rstatlat's programs there add is judged against
 * this, measured at the same time (bpf_stats), as the trampoline and the
 * statistics' own clock reads are most of what a program costs there.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

__u32 armed = 0;

#define EMPTY(event)						\
SEC("tp_btf/" #event)						\
int empty_##event(__u64 *ctx)					\
{								\
	(void)ctx;						\
	return armed ? 1 : 0;					\
}

EMPTY(sched_switch)
EMPTY(irq_handler_entry)
EMPTY(irq_handler_exit)
EMPTY(softirq_entry)
EMPTY(softirq_exit)
EMPTY(local_timer_entry)
EMPTY(local_timer_exit)
EMPTY(call_function_entry)
EMPTY(call_function_exit)
EMPTY(call_function_single_entry)
EMPTY(call_function_single_exit)
EMPTY(reschedule_entry)
EMPTY(reschedule_exit)
EMPTY(irq_work_entry)
EMPTY(irq_work_exit)
EMPTY(memcg_flush_stats)

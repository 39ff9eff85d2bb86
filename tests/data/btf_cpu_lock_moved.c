/*
 * BTF for a 6.10-6.16 kernel with the preemptirq tracepoints whose per-CPU
 * lock tracepoints gained a first argument, moving the others: the probe
 * must read contended at position 3 there and at 2 on the global lock's.
 * The fastpath unlock keeps the old layout and so disagrees with its lock.
 */
struct cgroup { int id; };
typedef void (*btf_trace_cgroup_rstat_lock_contended)(void *, struct cgroup *, int, _Bool);
typedef void (*btf_trace_cgroup_rstat_locked)(void *, struct cgroup *, int, _Bool);
typedef void (*btf_trace_cgroup_rstat_unlock)(void *, struct cgroup *, int, _Bool);
typedef void (*btf_trace_cgroup_rstat_cpu_lock_contended)(void *, unsigned int, struct cgroup *,
							   int, _Bool);
typedef void (*btf_trace_cgroup_rstat_cpu_locked)(void *, unsigned int, struct cgroup *, int, _Bool);
typedef void (*btf_trace_cgroup_rstat_cpu_unlock)(void *, unsigned int, struct cgroup *, int, _Bool);
typedef void (*btf_trace_cgroup_rstat_cpu_unlock_fastpath)(void *, struct cgroup *, int, _Bool);
typedef void (*btf_trace_irq_disable)(void *, unsigned long, unsigned long);
typedef void (*btf_trace_irq_enable)(void *, unsigned long, unsigned long);
btf_trace_cgroup_rstat_lock_contended contended;
btf_trace_cgroup_rstat_locked locked;
btf_trace_cgroup_rstat_unlock unlock;
btf_trace_cgroup_rstat_cpu_lock_contended cpu_contended;
btf_trace_cgroup_rstat_cpu_locked cpu_locked;
btf_trace_cgroup_rstat_cpu_unlock cpu_unlock;
btf_trace_cgroup_rstat_cpu_unlock_fastpath cpu_unlock_fastpath;
btf_trace_irq_disable irq_disable;
btf_trace_irq_enable irq_enable;
void cgroup_rstat_flush_locked(struct cgroup *cgrp) { (void)cgrp; }

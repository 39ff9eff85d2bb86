/*
 * BTF for a kernel with what flush parts and memcg decisions attach to:
 * the rstat tracepoints, sched_switch, the irq and softirq pairs, and of
 * the x86 vectors local_timer complete and reschedule missing its exit;
 * memcg_flush_stats with the prototype the program reads; a task_struct
 * with sched_info (CONFIG_SCHED_INFO), whence offcpu. (The live tests
 * also bind-mount these samples as a kernel's BTF.)
 */
struct cgroup { int id; };
struct sched_info { unsigned long pcount; unsigned long long run_delay; };
struct task_struct { int pid; struct sched_info sched_info; };
struct mem_cgroup { int id; };
typedef void (*btf_trace_cgroup_rstat_locked)(void *, struct cgroup *, int, _Bool);
typedef void (*btf_trace_cgroup_rstat_unlock)(void *, struct cgroup *, int, _Bool);
typedef void (*btf_trace_sched_switch)(void *, _Bool, struct task_struct *, struct task_struct *,
				       unsigned int);
typedef void (*btf_trace_irq_handler_entry)(void *, int, void *);
typedef void (*btf_trace_irq_handler_exit)(void *, int, void *, int);
typedef void (*btf_trace_softirq_entry)(void *, unsigned int);
typedef void (*btf_trace_softirq_exit)(void *, unsigned int);
typedef void (*btf_trace_local_timer_entry)(void *, int);
typedef void (*btf_trace_local_timer_exit)(void *, int);
typedef void (*btf_trace_reschedule_entry)(void *, int);
typedef void (*btf_trace_memcg_flush_stats)(void *, struct mem_cgroup *, long long, _Bool, _Bool);
btf_trace_cgroup_rstat_locked locked;
btf_trace_cgroup_rstat_unlock unlock;
btf_trace_sched_switch sw;
btf_trace_irq_handler_entry ie;
btf_trace_irq_handler_exit ix;
btf_trace_softirq_entry se;
btf_trace_softirq_exit sx;
btf_trace_local_timer_entry te;
btf_trace_local_timer_exit tx;
btf_trace_reschedule_entry re;
btf_trace_memcg_flush_stats mf;

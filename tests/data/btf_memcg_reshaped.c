/*
 * BTF for a kernel whose memcg_flush_stats and sched_switch take other
 * arguments than the programs read (a reason string; no next task), and
 * which lacks softirq_exit, and whose task_struct has no sched_info:
 * neither memcg decisions nor timed flush parts may be chosen, and flush
 * parts from the kernel split no offcpu.
 */
struct cgroup { int id; };
struct task_struct { int pid; };
struct mem_cgroup { int id; };
typedef void (*btf_trace_cgroup_rstat_locked)(void *, struct cgroup *, int, _Bool);
typedef void (*btf_trace_cgroup_rstat_unlock)(void *, struct cgroup *, int, _Bool);
typedef void (*btf_trace_sched_switch)(void *, _Bool, struct task_struct *);
typedef void (*btf_trace_irq_handler_entry)(void *, int, void *);
typedef void (*btf_trace_irq_handler_exit)(void *, int, void *, int);
typedef void (*btf_trace_softirq_entry)(void *, unsigned int);
typedef void (*btf_trace_memcg_flush_stats)(void *, struct mem_cgroup *, const char *);
btf_trace_cgroup_rstat_locked locked;
btf_trace_cgroup_rstat_unlock unlock;
btf_trace_sched_switch sw;
btf_trace_irq_handler_entry ie;
btf_trace_irq_handler_exit ix;
btf_trace_softirq_entry se;
btf_trace_memcg_flush_stats mf;

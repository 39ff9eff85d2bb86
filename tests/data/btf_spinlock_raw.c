/*
 * BTF for a kernel without PREEMPT_RT with the rstat tracepoints:
 * spinlock_t wraps a raw_spinlock in an anonymous union, so spin_lock_irq
 * disables interrupts and every hold is an irqs-off interval.
 */
struct cgroup { int id; };
struct raw_spinlock { unsigned int raw_lock; };
typedef struct spinlock { union { struct raw_spinlock rlock; }; } spinlock_t;
typedef void (*btf_trace_cgroup_rstat_locked)(void *, struct cgroup *, int, _Bool);
typedef void (*btf_trace_cgroup_rstat_unlock)(void *, struct cgroup *, int, _Bool);
btf_trace_cgroup_rstat_locked locked;
btf_trace_cgroup_rstat_unlock unlock;
spinlock_t some_lock;

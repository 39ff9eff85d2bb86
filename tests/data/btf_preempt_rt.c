/*
 * BTF for a PREEMPT_RT kernel with the rstat tracepoints: spinlock_t is
 * an rt_mutex_base (include/linux/spinlock_types.h under CONFIG_PREEMPT_RT),
 * so spin_lock_irq leaves interrupts on and a hold is not irqs-off.
 */
struct cgroup { int id; };
struct raw_spinlock { unsigned int raw_lock; };
struct rb_root_cached { void *rb_node; void *rb_leftmost; };
struct rt_mutex_base {
	struct raw_spinlock wait_lock;
	struct rb_root_cached waiters;
	void *owner;
};
typedef struct spinlock { struct rt_mutex_base lock; } spinlock_t;
typedef void (*btf_trace_cgroup_rstat_locked)(void *, struct cgroup *, int, _Bool);
typedef void (*btf_trace_cgroup_rstat_unlock)(void *, struct cgroup *, int, _Bool);
btf_trace_cgroup_rstat_locked locked;
btf_trace_cgroup_rstat_unlock unlock;
spinlock_t some_lock;

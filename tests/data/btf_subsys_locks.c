/*
 * BTF for a kernel with one rstat lock per subsystem (Linux 6.16+): struct
 * cgroup_subsys has its rstat_ss_lock, the flush is css_rstat_flush(css),
 * and the tracepoints are unchanged (cgrp, cpu, contended). The flush and
 * cpu.stat's show name the lock of the holds inside them.
 */
struct cgroup { int id; };
struct spinlock { int val; };
struct cgroup_subsys {
	int id;
	struct spinlock rstat_ss_lock;
};
struct cgroup_subsys_state { struct cgroup_subsys *ss; struct cgroup *cgroup; };
/* the subsystems' ids, which name their locks (memory_cgrp_id: "memory") */
enum cgroup_subsys_id { cpuset_cgrp_id, cpu_cgrp_id, io_cgrp_id, memory_cgrp_id,
			CGROUP_SUBSYS_COUNT };
enum cgroup_subsys_id subsys_ids;
typedef void (*btf_trace_cgroup_rstat_locked)(void *, struct cgroup *, int, _Bool);
typedef void (*btf_trace_cgroup_rstat_unlock)(void *, struct cgroup *, int, _Bool);
btf_trace_cgroup_rstat_locked locked;
btf_trace_cgroup_rstat_unlock unlock;
struct cgroup_subsys memory_cgrp_subsys;
struct cgroup cgrp_dfl_root_cgrp;	/* a whole struct cgroup in BTF, not a forward */
void css_rstat_flush(struct cgroup_subsys_state *css) { (void)css; }
void cgroup_base_stat_cputime_show(void *seq) { (void)seq; }

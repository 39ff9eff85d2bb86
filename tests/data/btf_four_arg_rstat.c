/*
 * BTF for a kernel whose rstat tracepoints gained a lock-type argument, as
 * proposed upstream: (cgrp, cpu, contended, lock type), here with the
 * added argument first to move the others.
 */
struct cgroup { int id; };
typedef void (*btf_trace_cgroup_rstat_locked)(void *, unsigned int, struct cgroup *, int, _Bool);
typedef void (*btf_trace_cgroup_rstat_unlock)(void *, unsigned int, struct cgroup *, int, _Bool);
btf_trace_cgroup_rstat_locked locked;
btf_trace_cgroup_rstat_unlock unlock;

/* BTF whose rstat tracepoints carry no bool: nothing to read "contended" from. */
struct cgroup { int id; };
typedef void (*btf_trace_cgroup_rstat_locked)(void *, struct cgroup *, int);
typedef void (*btf_trace_cgroup_rstat_unlock)(void *, struct cgroup *, int);
btf_trace_cgroup_rstat_locked locked;
btf_trace_cgroup_rstat_unlock unlock;

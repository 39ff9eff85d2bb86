/*
 * BTF for a kernel whose rstat tracepoints lost the cpu argument, as
 * proposed upstream: (cgrp, contended). Built into a raw BTF blob by the
 * live tests and bind-mounted over /sys/kernel/btf/vmlinux in a private
 * mount namespace.
 */
struct cgroup { int id; };
typedef void (*btf_trace_cgroup_rstat_locked)(void *, struct cgroup *, _Bool);
typedef void (*btf_trace_cgroup_rstat_unlock)(void *, struct cgroup *, _Bool);
btf_trace_cgroup_rstat_locked locked;
btf_trace_cgroup_rstat_unlock unlock;

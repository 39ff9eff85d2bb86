/*
 * BTF for a kernel whose rstat lock became an rwlock, shaped like the
 * upstream RFC (2026-05): the tracepoints gain the lock type as a string,
 * (cgrp, cpu, const char *type, bool contended), which moves contended.
 */
struct cgroup { int id; };
typedef void (*btf_trace_cgroup_rstat_lock_contended)(void *, struct cgroup *, int,
						      const char *, _Bool);
typedef void (*btf_trace_cgroup_rstat_locked)(void *, struct cgroup *, int, const char *, _Bool);
typedef void (*btf_trace_cgroup_rstat_unlock)(void *, struct cgroup *, int, const char *, _Bool);
btf_trace_cgroup_rstat_lock_contended contended;
btf_trace_cgroup_rstat_locked locked;
btf_trace_cgroup_rstat_unlock unlock;

/*
 * BTF for a kernel of 5.12-5.16 as the probe sees it: the rstat
 * tracepoints (as a backport might add them), but an enum bpf_func_id
 * that ends before bpf_loop (5.17) and bpf_map_lookup_percpu_elem (5.19).
 */
struct cgroup { int id; };
enum bpf_func_id {
	BPF_FUNC_unspec,
	BPF_FUNC_map_lookup_elem,
	BPF_FUNC_ringbuf_output = 130,
	BPF_FUNC_get_func_ip = 173,
};
typedef void (*btf_trace_cgroup_rstat_locked)(void *, struct cgroup *, int, _Bool);
typedef void (*btf_trace_cgroup_rstat_unlock)(void *, struct cgroup *, int, _Bool);
btf_trace_cgroup_rstat_locked locked;
btf_trace_cgroup_rstat_unlock unlock;
enum bpf_func_id func_id;

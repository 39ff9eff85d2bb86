/* The same with an enum bpf_func_id of 5.19 on: every helper rstatlat calls. */
struct cgroup { int id; };
enum bpf_func_id {
	BPF_FUNC_unspec,
	BPF_FUNC_map_lookup_elem,
	BPF_FUNC_loop = 181,
	BPF_FUNC_map_lookup_percpu_elem = 195,
};
typedef void (*btf_trace_cgroup_rstat_locked)(void *, struct cgroup *, int, _Bool);
typedef void (*btf_trace_cgroup_rstat_unlock)(void *, struct cgroup *, int, _Bool);
btf_trace_cgroup_rstat_locked locked;
btf_trace_cgroup_rstat_unlock unlock;
enum bpf_func_id func_id;

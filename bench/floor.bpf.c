// SPDX-License-Identifier: GPL-2.0
/*
 * The floor: the least an exact per-event tracer of the rstat lock can do.
 * On each of the three tracepoints, read the clock once and store it in one
 * per-CPU array slot. rstatlat's overhead is judged against this.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} last_ts SEC(".maps");

static __always_inline int stamp(void)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 zero = 0;
	__u64 *slot = bpf_map_lookup_elem(&last_ts, &zero);

	if (slot)
		*slot = now;
	return 0;
}

SEC("tp_btf/cgroup_rstat_lock_contended")
int BPF_PROG(floor_contended) { (void)ctx; return stamp(); }

SEC("tp_btf/cgroup_rstat_locked")
int BPF_PROG(floor_locked) { (void)ctx; return stamp(); }

SEC("tp_btf/cgroup_rstat_unlock")
int BPF_PROG(floor_unlock) { (void)ctx; return stamp(); }

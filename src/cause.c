// SPDX-License-Identifier: GPL-2.0
/*
 * The cause of a flush from the symbols of its kernel stack (cause.h).
 *
 * A frame's name is compared without its compiler suffix (from the first
 * '.': ".isra.0", ".constprop.0", ".cold", ".part.0") and without a "+0x.."
 * offset or " [module]" should the caller leave them on. From the innermost
 * frame outwards:
 *   - tracing frames are skipped, and so are the tracer's own BPF programs:
 *     the bpf_prog_<tag> frames before the first frame that is not tracing.
 *     A bpf_prog_<tag> frame further out is a program that flushed through
 *     the cgroup_rstat_flush / css_rstat_flush kfunc: "bpf_kfunc";
 *   - the lock and flush functions (plumbing) are skipped;
 *   - the first frame of the table below names the cause. The compiler drops
 *     frames that tail-call and inlines static functions, so a cause has
 *     entries at several depths, and the innermost found wins: reclaim under
 *     a read of memory.stat is memcg_reclaim.
 * A weak entry is a function shared by several causes (a formatter, a
 * shrinker): it names the cause only when no other frame of the stack names
 * one. Failing all, the innermost frame that is neither tracing nor plumbing
 * gives "other:<name>", and a stack without one "unknown".
 *
 * The kernel versions in the comments are those whose sources were read:
 * 6.1, 6.2, 6.4, 6.5, 6.6, 6.8, 6.12, 6.13, 6.14, 6.17, 6.18, 6.19, 7.0.
 * "6.x+" is from 6.x to 7.0; "6.x-6.y" in 6.x and 6.y and no read version
 * outside. The cgroup_rstat_unlock tracepoint, where the stack is taken,
 * is 6.10+; the older names are here for stacks taken otherwise.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cause.h"

struct cause_fn {
	const char *fn;
	const char *cause;
	bool weak;	/* shared: only when no other frame names a cause */
};

static const struct cause_fn causes[] = {
	/* memory.stat: memory_stat_show, all (the v1 file too since 6.5);
	 * memcg_stat_show, the v1 file, 6.1-6.4. */
	{ "memory_stat_show", "memory.stat", false },
	{ "memcg_stat_show", "memory.stat", false },
	/* Its formatters, which the memcg OOM report calls too: memory_stat_format
	 * flushes 6.1-6.4; memcg_stat_format (v2) and memcg1_stat_format (v1)
	 * 6.5+ (memcg1_ in memcontrol-v1.c since 6.12). */
	{ "memory_stat_format", "memory.stat", true },
	{ "memcg_stat_format", "memory.stat", true },
	{ "memcg1_stat_format", "memory.stat", true },
	/* memory.numa_stat: memory_numa_stat_show (v2), memcg_numa_stat_show
	 * (v1), all. */
	{ "memory_numa_stat_show", "memory.numa_stat", false },
	{ "memcg_numa_stat_show", "memory.numa_stat", false },
	/* cpu.stat (v2): cpu_stat_show -> cgroup_base_stat_cputime_show, all.
	 * (cpu.stat.local, 6.6+, does not flush.) */
	{ "cgroup_base_stat_cputime_show", "cpu.stat", false },
	{ "cpu_stat_show", "cpu.stat", false },
	/* io.stat (v2): blkcg_print_stat, all. (No blkio v1 file flushes.) */
	{ "blkcg_print_stat", "io.stat", false },
	/* memory.zswap.current (v2): zswap_current_read, all. */
	{ "zswap_current_read", "memory.zswap.current", false },
	/* memory.usage_in_bytes and memory.memsw.usage_in_bytes (v1) of the root
	 * memcg: mem_cgroup_usage flushes 6.1-6.4, shared with the thresholds. */
	{ "mem_cgroup_read_u64", "memory.usage_in_bytes", false },
	{ "mem_cgroup_usage", "memory.usage_in_bytes", true },
	/* v1 usage thresholds (cgroup.event_control) of the root memcg, checked
	 * on charge and uncharge: through mem_cgroup_usage, 6.1-6.4. */
	{ "memcg_check_events", "memcg_threshold", false },
	{ "mem_cgroup_threshold", "memcg_threshold", false },
	{ "__mem_cgroup_threshold", "memcg_threshold", false },
	{ "__mem_cgroup_usage_register_event", "memcg_threshold", false },
	{ "__mem_cgroup_usage_unregister_event", "memcg_threshold", false },
	/* A memcg OOM kill prints the memcg's memory.stat:
	 * mem_cgroup_print_oom_meminfo, all. */
	{ "mem_cgroup_print_oom_meminfo", "oom", false },
	/* Reclaim: prepare_scan_count 6.1-6.6, prepare_scan_control 6.8+
	 * (ratelimited since 6.12), static in shrink_node, all. */
	{ "prepare_scan_count", "memcg_reclaim", false },
	{ "prepare_scan_control", "memcg_reclaim", false },
	{ "shrink_node", "memcg_reclaim", false },
	/* Shrinkers, which reclaim and drop_caches run: count_shadow_nodes
	 * (workingset shadow nodes) 6.6+, zswap_shrinker_count 6.8+. */
	{ "count_shadow_nodes", "memcg_reclaim", true },
	{ "zswap_shrinker_count", "memcg_reclaim", true },
	/* Writing 2 or 3 to /proc/sys/vm/drop_caches runs the shrinkers: all. */
	{ "drop_slab", "drop_caches", false },
	{ "drop_slab_node", "drop_caches", false },
	{ "drop_caches_sysctl_handler", "drop_caches", false },
	/* Refaults: workingset_refault flushes 6.1-6.6, and 6.8+ through
	 * workingset_test_recent (6.5+), which cachestat() calls too. */
	{ "workingset_refault", "memcg_refault", false },
	{ "workingset_test_recent", "memcg_refault", true },
	/* cachestat(2), 6.5+: filemap_cachestat flushes 6.12+ (6.8 through
	 * workingset_test_recent); static in the syscall. */
	{ "filemap_cachestat", "cachestat", false },
	{ "__do_sys_cachestat", "cachestat", false },
	{ "__se_sys_cachestat", "cachestat", false },
	{ "__x64_sys_cachestat", "cachestat", false },
	{ "__arm64_sys_cachestat", "cachestat", false },
	/* Dirty throttling and background writeback of a memcg's wb:
	 * mem_cgroup_wb_stats, all (ratelimited since 6.12). */
	{ "mem_cgroup_wb_stats", "memcg_writeback", false },
	/* The periodic memcg flusher, every 2 s: flush_memcg_stats_dwork, all. */
	{ "flush_memcg_stats_dwork", "memcg_periodic", false },
	/* A css going away: css_release_work_fn, all; css_free_rwork_fn, all,
	 * through cgroup_rstat_exit (6.1-6.14) or css_rstat_exit (6.17+). */
	{ "css_release_work_fn", "css_release", false },
	{ "css_free_rwork_fn", "css_release", false },
	{ "cgroup_rstat_exit", "css_release", false },
	{ "css_rstat_exit", "css_release", false },
	/* zswap's memcg limit, checked on store: obj_cgroup_may_zswap, all. */
	{ "obj_cgroup_may_zswap", "zswap", false },
	/* DAMOS quota goals on a node's memcg usage: 6.19+. */
	{ "damos_get_node_memcg_used_bp", "damon", false },
	{ "damos_set_quota_goal_current_value", "damon", false },
	/* BPF: the bpf_mem_cgroup_flush_stats kfunc, 7.0+. A program calling
	 * cgroup_rstat_flush (6.1-6.14) or css_rstat_flush (6.17+) as a kfunc
	 * is its bpf_prog_<tag> frame. */
	{ "bpf_mem_cgroup_flush_stats", "bpf_kfunc", false },
};

/* The lock and flush themselves: never a cause. */
static const char *const plumbing[] = {
	/* 6.17+ (per-subsystem rstat) */
	"__css_rstat_lock", "__css_rstat_unlock", "css_rstat_flush",
	/* 6.1-6.14: cgroup_rstat_flush, cgroup_rstat_flush_locked; _hold and
	 * _release (cpu.stat) 6.1-6.14; __cgroup_rstat_lock and _unlock
	 * 6.12-6.14 (with the tracepoints, 6.10); _irqsafe 6.1-6.2; _atomic 6.4 */
	"cgroup_rstat_flush", "cgroup_rstat_flush_locked", "cgroup_rstat_flush_hold",
	"cgroup_rstat_flush_release", "cgroup_rstat_flush_irqsafe",
	"cgroup_rstat_flush_atomic", "__cgroup_rstat_lock", "__cgroup_rstat_unlock",
	/* memcg: mem_cgroup_flush_stats, all; _ratelimited 6.4+; _delayed
	 * 6.1-6.2; _atomic 6.4; __mem_cgroup_flush_stats 6.1-6.2 and 6.13+;
	 * do_flush_stats 6.4-6.12 */
	"mem_cgroup_flush_stats", "mem_cgroup_flush_stats_ratelimited",
	"mem_cgroup_flush_stats_delayed", "mem_cgroup_flush_stats_atomic",
	"__mem_cgroup_flush_stats", "do_flush_stats",
	/* the spinlock, should a stack be taken inside it */
	"_raw_spin_lock", "_raw_spin_lock_irq", "_raw_spin_lock_irqsave",
	"queued_spin_lock_slowpath", "native_queued_spin_lock_slowpath",
	"__pv_queued_spin_lock_slowpath",
};

/* The tracing that took the stack: tracepoints, perf, BPF glue, kprobes. */
static const char *const tracing_prefixes[] = {
	"trace_event_raw_event_", "perf_trace_", "__bpf_trace_", "bpf_trace_run",
	"__traceiter_", "bpf_trampoline_", "bpf_get_stack",
};

static const char *const tracing[] = {
	"trace_call_bpf", "kprobe_perf_func", "kprobe_dispatcher", "kprobe_ftrace_handler",
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The length of a symbol's name without compiler suffix, offset or module. */
static size_t name_len(const char *s)
{
	return strcspn(s, ".+ \t");
}

static bool name_is(const char *s, size_t len, const char *name)
{
	return strlen(name) == len && !memcmp(s, name, len);
}

static bool in_list(const char *s, size_t len, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (name_is(s, len, list[i]))
			return true;
	return false;
}

/* A JIT-compiled BPF program: bpf_prog_<16 hex digits of tag>[_<name>]. */
static bool bpf_prog_frame(const char *s, size_t len)
{
	const size_t pre = strlen("bpf_prog_");

	if (len < pre + 16 || memcmp(s, "bpf_prog_", pre))
		return false;
	for (size_t i = pre; i < pre + 16; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return len == pre + 16 || s[pre + 16] == '_';
}

static bool tracing_frame(const char *s, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(tracing_prefixes); i++) {
		size_t pl = strlen(tracing_prefixes[i]);

		if (len >= pl && !memcmp(s, tracing_prefixes[i], pl))
			return true;
	}
	return in_list(s, len, tracing, ARRAY_LEN(tracing));
}

static const struct cause_fn *cause_fn_of(const char *s, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(causes); i++)
		if (name_is(s, len, causes[i].fn))
			return &causes[i];
	return NULL;
}

void cause_of_stack(const char *const *syms, size_t n, char *buf, size_t len)
{
	const char *weak = NULL, *other = NULL;
	size_t other_len = 0;
	bool tracer = true;	/* still in the frames of the tracer itself */

	if (!len)
		return;
	for (size_t i = 0; syms && i < n; i++) {
		const struct cause_fn *c;
		const char *s = syms[i];
		size_t l;

		if (!s || !(l = name_len(s)))
			continue;
		if (bpf_prog_frame(s, l)) {
			if (tracer)
				continue;
			snprintf(buf, len, "%s", "bpf_kfunc");
			return;
		}
		if (tracing_frame(s, l))
			continue;
		tracer = false;
		if (in_list(s, l, plumbing, ARRAY_LEN(plumbing)))
			continue;
		c = cause_fn_of(s, l);
		if (c && !c->weak) {
			snprintf(buf, len, "%s", c->cause);
			return;
		}
		if (c && !weak)
			weak = c->cause;
		if (!other) {
			other = s;
			other_len = l;
		}
	}
	if (weak)
		snprintf(buf, len, "%s", weak);
	else if (other)
		snprintf(buf, len, "other:%.*s", (int)other_len, other);
	else
		snprintf(buf, len, "%s", "unknown");
}

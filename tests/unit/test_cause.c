// SPDX-License-Identifier: GPL-2.0
/* Flush causes from kernel stacks: real stacks, the table, the matching rules. */
#include <stdio.h>
#include <string.h>
#include "cause.h"
#include "check.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The cause of a stack, into a static buffer of CAUSE_LEN. */
static const char *cause_n(const char *const *syms, size_t n)
{
	static char buf[CAUSE_LEN];

	memset(buf, 'X', sizeof(buf));
	cause_of_stack(syms, n, buf, sizeof(buf));
	return buf;
}

#define CAUSE(...) ({								\
	static const char *const syms_[] = { __VA_ARGS__ };			\
	cause_n(syms_, LEN(syms_));						\
})

/*
 * Real stacks of Linux 6.18 (memory, cpu, blkio on v1; v2 without
 * controllers), from `echo stacktrace > events/cgroup/cgroup_rstat_locked/
 * trigger` in a tracefs instance, while reading files of test cgroups.
 */
static void test_real_ftrace(void)
{
	/* memory.stat of a v1 memcg */
	CHECK_STR(CAUSE("trace_event_raw_event_cgroup_rstat", "__css_rstat_lock.isra.0",
			"css_rstat_flush", "memcg1_stat_format", "memory_stat_show",
			"seq_read_iter", "vfs_read", "ksys_read", "do_syscall_64",
			"entry_SYSCALL_64_after_hwframe"),
		  "memory.stat");
	/* memory.numa_stat of a v1 memcg */
	CHECK_STR(CAUSE("trace_event_raw_event_cgroup_rstat", "__css_rstat_lock.isra.0",
			"css_rstat_flush", "memcg_numa_stat_show", "seq_read_iter", "vfs_read",
			"ksys_read", "do_syscall_64", "entry_SYSCALL_64_after_hwframe"),
		  "memory.numa_stat");
	/* cpu.stat of a v2 cgroup: the flush, one lock per CPU ... */
	CHECK_STR(CAUSE("trace_event_raw_event_cgroup_rstat", "__css_rstat_lock.isra.0",
			"css_rstat_flush", "cgroup_base_stat_cputime_show", "cpu_stat_show",
			"seq_read_iter", "vfs_read", "ksys_read", "do_syscall_64",
			"entry_SYSCALL_64_after_hwframe"),
		  "cpu.stat");
	/* ... then the lock taken again to read (cpu=-1): no css_rstat_flush */
	CHECK_STR(CAUSE("trace_event_raw_event_cgroup_rstat", "__css_rstat_lock.isra.0",
			"cgroup_base_stat_cputime_show", "cpu_stat_show", "seq_read_iter",
			"vfs_read", "ksys_read", "do_syscall_64",
			"entry_SYSCALL_64_after_hwframe"),
		  "cpu.stat");
	/* the periodic flusher (root memcg, every 2 s) */
	CHECK_STR(CAUSE("trace_event_raw_event_cgroup_rstat", "__css_rstat_lock.isra.0",
			"css_rstat_flush", "flush_memcg_stats_dwork", "process_one_work",
			"worker_thread", "kthread", "ret_from_fork", "ret_from_fork_asm"),
		  "memcg_periodic");
	/* cgroups removed: release, then free */
	CHECK_STR(CAUSE("trace_event_raw_event_cgroup_rstat", "__css_rstat_lock.isra.0",
			"css_rstat_flush", "css_release_work_fn", "process_one_work",
			"worker_thread", "kthread", "ret_from_fork", "ret_from_fork_asm"),
		  "css_release");
	CHECK_STR(CAUSE("trace_event_raw_event_cgroup_rstat", "__css_rstat_lock.isra.0",
			"css_rstat_flush", "css_rstat_exit", "css_free_rwork_fn",
			"process_one_work", "worker_thread", "kthread", "ret_from_fork",
			"ret_from_fork_asm"),
		  "css_release");
	/* a memcg OOM kill (v1, 64M limit): the report formats memory.stat */
	CHECK_STR(CAUSE("trace_event_raw_event_cgroup_rstat",
			"__traceiter_cgroup_rstat_locked", "__css_rstat_lock.isra.0",
			"css_rstat_flush", "memcg1_stat_format",
			"mem_cgroup_print_oom_meminfo.cold", "dump_header",
			"oom_kill_process.cold", "out_of_memory", "mem_cgroup_out_of_memory",
			"try_charge_memcg", "charge_memcg", "__mem_cgroup_charge",
			"do_anonymous_page", "__handle_mm_fault", "handle_mm_fault",
			"exc_page_fault", "asm_exc_page_fault"),
		  "oom");
}

/* The same host: bpftrace's kstack (perf tracepoint), offsets left on. */
static void test_real_bpftrace(void)
{
	CHECK_STR(CAUSE("__traceiter_cgroup_rstat_locked+56", "__css_rstat_lock.isra.0+146",
			"css_rstat_flush+113", "cgroup_base_stat_cputime_show+61",
			"cpu_stat_show+17", "seq_read_iter+303", "vfs_read+570",
			"ksys_read+102", "do_syscall_64+113",
			"entry_SYSCALL_64_after_hwframe+118"),
		  "cpu.stat");
	CHECK_STR(CAUSE("__traceiter_cgroup_rstat_locked+56", "__css_rstat_lock.isra.0+146",
			"cgroup_base_stat_cputime_show+78", "cpu_stat_show+17",
			"seq_read_iter+303", "vfs_read+570", "ksys_read+102",
			"do_syscall_64+113", "entry_SYSCALL_64_after_hwframe+118"),
		  "cpu.stat");
	CHECK_STR(CAUSE("__traceiter_cgroup_rstat_locked+56", "__css_rstat_lock.isra.0+146",
			"css_rstat_flush+113", "flush_memcg_stats_dwork+22",
			"process_one_work+396", "worker_thread+402", "kthread+248",
			"ret_from_fork+337", "ret_from_fork_asm+26"),
		  "memcg_periodic");
	/* rstatlat -t's stacks at unlock (its own frames already left out) */
	CHECK_STR(CAUSE("css_rstat_flush+0x2cb", "cgroup_base_stat_cputime_show+0x3d",
			"cpu_stat_show+0x11", "seq_read_iter+0x12f", "vfs_read+0x23a"),
		  "cpu.stat");
}

/* Each function of the table, as the list of what a cause is named by. */
static const struct {
	const char *fn, *cause;
} strong[] = {
	{ "memory_stat_show", "memory.stat" },
	{ "memcg_stat_show", "memory.stat" },
	{ "memory_numa_stat_show", "memory.numa_stat" },
	{ "memcg_numa_stat_show", "memory.numa_stat" },
	{ "cgroup_base_stat_cputime_show", "cpu.stat" },
	{ "cpu_stat_show", "cpu.stat" },
	{ "blkcg_print_stat", "io.stat" },
	{ "zswap_current_read", "memory.zswap.current" },
	{ "mem_cgroup_read_u64", "memory.usage_in_bytes" },
	{ "memcg_check_events", "memcg_threshold" },
	{ "mem_cgroup_threshold", "memcg_threshold" },
	{ "__mem_cgroup_threshold", "memcg_threshold" },
	{ "__mem_cgroup_usage_register_event", "memcg_threshold" },
	{ "__mem_cgroup_usage_unregister_event", "memcg_threshold" },
	{ "mem_cgroup_print_oom_meminfo", "oom" },
	{ "prepare_scan_count", "memcg_reclaim" },
	{ "prepare_scan_control", "memcg_reclaim" },
	{ "shrink_node", "memcg_reclaim" },
	{ "drop_slab", "drop_caches" },
	{ "drop_slab_node", "drop_caches" },
	{ "drop_caches_sysctl_handler", "drop_caches" },
	{ "workingset_refault", "memcg_refault" },
	{ "filemap_cachestat", "cachestat" },
	{ "__do_sys_cachestat", "cachestat" },
	{ "__se_sys_cachestat", "cachestat" },
	{ "__x64_sys_cachestat", "cachestat" },
	{ "__arm64_sys_cachestat", "cachestat" },
	{ "mem_cgroup_wb_stats", "memcg_writeback" },
	{ "flush_memcg_stats_dwork", "memcg_periodic" },
	{ "css_release_work_fn", "css_release" },
	{ "css_free_rwork_fn", "css_release" },
	{ "cgroup_rstat_exit", "css_release" },
	{ "css_rstat_exit", "css_release" },
	{ "obj_cgroup_may_zswap", "zswap" },
	{ "damos_get_node_memcg_used_bp", "damon" },
	{ "damos_set_quota_goal_current_value", "damon" },
	{ "bpf_mem_cgroup_flush_stats", "bpf_kfunc" },
}, weak[] = {
	{ "memory_stat_format", "memory.stat" },
	{ "memcg_stat_format", "memory.stat" },
	{ "memcg1_stat_format", "memory.stat" },
	{ "mem_cgroup_usage", "memory.usage_in_bytes" },
	{ "count_shadow_nodes", "memcg_reclaim" },
	{ "zswap_shrinker_count", "memcg_reclaim" },
	{ "workingset_test_recent", "memcg_refault" },
};

static const char *const suffixes[] = { "", ".isra.0", ".constprop.0", ".cold", ".part.0" };

/* fn right above the flush, and far out above frames that name nothing. */
static void check_positions(const char *fn, const char *want, int k)
{
	char sym[128];

	snprintf(sym, sizeof(sym), "%s%s", fn, suffixes[k % LEN(suffixes)]);
	{
		const char *const inner[] = {
			"bpf_prog_0123456789abcdef_on_locked", "bpf_trace_run3",
			"__bpf_trace_cgroup_rstat", "__traceiter_cgroup_rstat_locked",
			"__css_rstat_lock.isra.0", "css_rstat_flush",
			"__mem_cgroup_flush_stats", "mem_cgroup_flush_stats", sym,
			"not_a_cause_a", "not_a_cause_b", "do_syscall_64",
		};
		const char *const outer[] = {
			"trace_event_raw_event_cgroup_rstat", "__cgroup_rstat_lock",
			"cgroup_rstat_flush_locked", "cgroup_rstat_flush", "do_flush_stats",
			"mem_cgroup_flush_stats_ratelimited", NULL, "not_a_cause_a",
			"not_a_cause_b", NULL, sym, "not_a_cause_c", "ret_from_fork",
		};

		CHECK(!strcmp(cause_n(inner, LEN(inner)), want), "%s inner: got [%s] want [%s]",
		      sym, cause_n(inner, LEN(inner)), want);
		CHECK(!strcmp(cause_n(outer, LEN(outer)), want), "%s outer: got [%s] want [%s]",
		      sym, cause_n(outer, LEN(outer)), want);
	}
}

static void test_table(void)
{
	for (size_t i = 0; i < LEN(strong); i++)
		check_positions(strong[i].fn, strong[i].cause, (int)i);
	for (size_t i = 0; i < LEN(weak); i++)
		check_positions(weak[i].fn, weak[i].cause, (int)i);
}

/* The innermost frame that names a cause wins; a weak one only alone. */
static void test_innermost(void)
{
	/* reclaim while reading memory.stat (a kmalloc for the buffer) */
	CHECK_STR(CAUSE("__css_rstat_lock", "css_rstat_flush", "mem_cgroup_flush_stats_ratelimited",
			"shrink_node", "do_try_to_free_pages", "try_to_free_pages",
			"__alloc_pages_slowpath.constprop.0", "__kmalloc_noprof",
			"memory_stat_show", "seq_read_iter"),
		  "memcg_reclaim");
	CHECK_STR(CAUSE("__css_rstat_lock", "css_rstat_flush", "memory_stat_show",
			"shrink_node"),
		  "memory.stat");
	/* zswap's limit during reclaim's swap-out */
	CHECK_STR(CAUSE("__css_rstat_lock", "css_rstat_flush", "__mem_cgroup_flush_stats",
			"obj_cgroup_may_zswap", "zswap_store", "swap_writeout",
			"shrink_folio_list", "shrink_lruvec", "shrink_node_memcgs", "shrink_node"),
		  "zswap");
	/* weak under strong: the strong, however far out */
	CHECK_STR(CAUSE("__css_rstat_lock", "css_rstat_flush", "memcg_stat_format",
			"mem_cgroup_print_oom_meminfo", "dump_header"),
		  "oom");
	CHECK_STR(CAUSE("__cgroup_rstat_lock", "cgroup_rstat_flush", "memory_stat_format",
			"memory_stat_show"),
		  "memory.stat");
	CHECK_STR(CAUSE("__css_rstat_lock", "css_rstat_flush", "count_shadow_nodes",
			"do_shrink_slab", "shrink_slab", "drop_slab_node", "drop_slab",
			"drop_caches_sysctl_handler", "proc_sys_call_handler"),
		  "drop_caches");
	CHECK_STR(CAUSE("__css_rstat_lock", "css_rstat_flush", "zswap_shrinker_count",
			"do_shrink_slab", "shrink_slab_memcg", "shrink_slab", "shrink_one",
			"shrink_node"),
		  "memcg_reclaim");
	/* cachestat() 6.8: the flush in workingset_test_recent */
	CHECK_STR(CAUSE("__cgroup_rstat_lock", "cgroup_rstat_flush", "do_flush_stats",
			"workingset_test_recent", "__do_sys_cachestat", "do_syscall_64"),
		  "cachestat");
	CHECK_STR(CAUSE("__cgroup_rstat_lock", "cgroup_rstat_flush", "do_flush_stats",
			"workingset_test_recent", "workingset_refault", "filemap_add_folio"),
		  "memcg_refault");
	CHECK_STR(CAUSE("cgroup_rstat_flush_atomic", "do_flush_stats", "mem_cgroup_usage",
			"memcg_check_events", "uncharge_batch"),
		  "memcg_threshold");
	/* two weak: the inner */
	CHECK_STR(CAUSE("css_rstat_flush", "zswap_shrinker_count", "memcg1_stat_format"),
		  "memcg_reclaim");
	CHECK_STR(CAUSE("css_rstat_flush", "memcg1_stat_format", "zswap_shrinker_count"),
		  "memory.stat");
	/* a weak one wins over other: */
	CHECK_STR(CAUSE("css_rstat_flush", "mystery_caller", "mem_cgroup_usage"),
		  "memory.usage_in_bytes");
}

static void test_suffixes(void)
{
	CHECK_STR(CAUSE("__css_rstat_lock.isra.0", "css_rstat_flush.cold",
			"memory_stat_show.constprop.0"),
		  "memory.stat");
	CHECK_STR(CAUSE("__css_rstat_lock", "css_rstat_flush", "shrink_node.part.0"),
		  "memcg_reclaim");
	CHECK_STR(CAUSE("__css_rstat_lock", "css_rstat_flush", "workingset_refault.llvm.1234"),
		  "memcg_refault");
	CHECK_STR(CAUSE("__css_rstat_lock", "css_rstat_flush", "blkcg_print_stat+0x5e/0x1a0"),
		  "io.stat");
	CHECK_STR(CAUSE("__css_rstat_lock", "css_rstat_flush", "blkcg_print_stat [some_mod]"),
		  "io.stat");
	/* plumbing with suffixes is still plumbing */
	CHECK_STR(CAUSE("__css_rstat_lock.isra.0", "css_rstat_flush.part.0",
			"mem_cgroup_flush_stats.constprop.0", "lonely_fn.cold"),
		  "other:lonely_fn");
	/* a longer or shorter name is another function */
	CHECK_STR(CAUSE("css_rstat_flush", "memory_stat_showx"), "other:memory_stat_showx");
	CHECK_STR(CAUSE("css_rstat_flush", "memory_stat_sho"), "other:memory_stat_sho");
	CHECK_STR(CAUSE("css_rstat_flush", "xshrink_node"), "other:xshrink_node");
	CHECK_STR(CAUSE("css_rstat_flushing", "not_a_cause"), "other:css_rstat_flushing");
	/* nothing left of the name: as if not resolved */
	CHECK_STR(CAUSE(".cold", "css_rstat_flush", "cpu_stat_show"), "cpu.stat");
	CHECK_STR(CAUSE(".cold", "", "+0x10"), "unknown");
}

static void test_null(void)
{
	CHECK_STR(CAUSE(NULL, "trace_event_raw_event_cgroup_rstat", NULL,
			"__css_rstat_lock.isra.0", NULL, NULL, "css_rstat_flush", NULL,
			"memcg_numa_stat_show", NULL),
		  "memory.numa_stat");
	CHECK_STR(CAUSE(NULL, NULL, NULL), "unknown");
	CHECK_STR(CAUSE("__css_rstat_lock", NULL, "css_rstat_flush", NULL, "seq_read_iter"),
		  "other:seq_read_iter");
	CHECK_STR(cause_n(NULL, 0), "unknown");
	CHECK_STR(cause_n(NULL, 5), "unknown");
	{
		const char *const one[] = { "memory_stat_show" };

		CHECK_STR(cause_n(one, 0), "unknown");	/* n bounds the frames read */
		CHECK_STR(cause_n(one, 1), "memory.stat");
	}
}

/* The tracer's own programs are left out; a program further out flushed. */
static void test_bpf(void)
{
	/* the tracer: tp_btf / raw_tp frames, then the flush */
	CHECK_STR(CAUSE("bpf_prog_6deef7357e7b4530_on_locked", "bpf_trace_run3",
			"__bpf_trace_cgroup_rstat", "__traceiter_cgroup_rstat_locked",
			"__css_rstat_lock.isra.0", "css_rstat_flush", "flush_memcg_stats_dwork"),
		  "memcg_periodic");
	CHECK_STR(CAUSE("bpf_prog_6deef7357e7b4530", NULL, "bpf_prog_00000000000000ff_sub",
			"bpf_trampoline_6442512345", "perf_trace_cgroup_rstat",
			"perf_trace_run_bpf_submit", "trace_call_bpf", "kprobe_perf_func",
			"__cgroup_rstat_lock", "cgroup_rstat_flush_locked",
			"cgroup_rstat_flush_hold", "cgroup_base_stat_cputime_show"),
		  "cpu.stat");
	/* the tracer alone: nothing to name */
	CHECK_STR(CAUSE("bpf_prog_6deef7357e7b4530_on_locked", "bpf_trace_run3",
			"__bpf_trace_cgroup_rstat"),
		  "unknown");
	/* a cgroup iterator flushing through the kfunc, 6.17+ and 6.12 */
	CHECK_STR(CAUSE("bpf_prog_6deef7357e7b4530_on_locked", "bpf_trace_run3",
			"__bpf_trace_cgroup_rstat", "__traceiter_cgroup_rstat_locked",
			"__css_rstat_lock.isra.0", "css_rstat_flush",
			"bpf_prog_a1b2c3d4e5f60718_dumper", "bpf_iter_run_prog",
			"cgroup_iter_seq_show", "seq_read_iter", "bpf_seq_read", "vfs_read"),
		  "bpf_kfunc");
	CHECK_STR(CAUSE("trace_event_raw_event_cgroup_rstat", "__cgroup_rstat_lock",
			"cgroup_rstat_flush", "bpf_prog_A1B2C3D4E5F60718",
			"bpf_prog_test_run_syscall", "__sys_bpf"),
		  "bpf_kfunc");
	/* a program outer to the plumbing, even where no rstat frame is seen */
	CHECK_STR(CAUSE("bpf_prog_6deef7357e7b4530_on_locked", "bpf_trace_run3", NULL,
			"some_kfunc_path", "bpf_prog_a1b2c3d4e5f60718"),
		  "bpf_kfunc");
	/* the bpf_mem_cgroup_flush_stats kfunc (7.0) */
	CHECK_STR(CAUSE("bpf_prog_6deef7357e7b4530_on_locked", "bpf_trace_run3",
			"__bpf_trace_cgroup_rstat", "__css_rstat_lock", "css_rstat_flush",
			"__mem_cgroup_flush_stats", "mem_cgroup_flush_stats",
			"bpf_mem_cgroup_flush_stats", "bpf_prog_a1b2c3d4e5f60718_stats"),
		  "bpf_kfunc");
	/* a cause inner to the program wins (reclaim under a BPF program) */
	CHECK_STR(CAUSE("__css_rstat_lock", "css_rstat_flush", "shrink_node",
			"bpf_prog_a1b2c3d4e5f60718_alloc"),
		  "memcg_reclaim");
	/* kernel functions named bpf_prog_* are not programs */
	CHECK_STR(CAUSE("bpf_prog_6deef7357e7b4530_on_locked", "__css_rstat_lock",
			"css_rstat_flush", "bpf_prog_test_run_syscall", "__sys_bpf"),
		  "other:bpf_prog_test_run_syscall");
	CHECK_STR(CAUSE("__css_rstat_lock", "css_rstat_flush", "bpf_prog_6deef7357e7b453",
			"bpf_prog_6deef7357e7b4530x", "bpf_prog_6deef7357e7b453g_x"),
		  "other:bpf_prog_6deef7357e7b453");
	/* a tracer program that is not bpf_prog_<tag>: it is a frame like any */
	CHECK_STR(CAUSE("bpf_prog_run_generic", "__css_rstat_lock", "css_rstat_flush",
			"bpf_prog_a1b2c3d4e5f60718"),
		  "bpf_kfunc");
}

static void test_other_unknown(void)
{
	CHECK_STR(CAUSE("trace_event_raw_event_cgroup_rstat", "__css_rstat_lock.isra.0",
			"css_rstat_flush", "new_caller_of_7_1.constprop.0", "outer_fn"),
		  "other:new_caller_of_7_1");
	CHECK_STR(CAUSE("perf_trace_cgroup_rstat", "__cgroup_rstat_lock",
			"cgroup_rstat_flush_irqsafe", "mem_cgroup_flush_stats_delayed",
			"mem_cgroup_flush_stats_atomic", "_raw_spin_lock_irq", "seq_read_iter"),
		  "other:seq_read_iter");
	/* only tracing and plumbing */
	CHECK_STR(CAUSE("trace_event_raw_event_cgroup_rstat", "__traceiter_cgroup_rstat_locked",
			"__css_rstat_lock.isra.0", "__css_rstat_unlock", "css_rstat_flush",
			"mem_cgroup_flush_stats_ratelimited", "mem_cgroup_flush_stats",
			"__mem_cgroup_flush_stats", "cgroup_rstat_flush_release",
			"queued_spin_lock_slowpath", "native_queued_spin_lock_slowpath",
			"__pv_queued_spin_lock_slowpath", "_raw_spin_lock",
			"_raw_spin_lock_irqsave", "kprobe_dispatcher", "kprobe_ftrace_handler",
			"bpf_get_stackid_raw_tp"),
		  "unknown");
	/* tracing frames further out are skipped as well */
	CHECK_STR(CAUSE("__css_rstat_lock", "css_rstat_flush", "__traceiter_x",
			"perf_trace_y", "caller_z"),
		  "other:caller_z");
}

static void test_truncation(void)
{
	static const char *const stat[] = { "css_rstat_flush", "memory_stat_show" };
	static const char *const other[] = { "css_rstat_flush", "abcdefghijklmnop.isra.0" };
	char buf[32], longsym[300];
	const char *const longstack[] = { "css_rstat_flush", longsym };

	memset(buf, 'X', sizeof(buf));
	cause_of_stack(stat, LEN(stat), buf, 1);
	CHECK(buf[0] == '\0' && buf[1] == 'X', "len 1: [%.4s]", buf);
	memset(buf, 'X', sizeof(buf));
	cause_of_stack(stat, LEN(stat), buf, 4);
	CHECK(!strcmp(buf, "mem") && buf[4] == 'X', "len 4: [%.8s]", buf);
	memset(buf, 'X', sizeof(buf));
	cause_of_stack(other, LEN(other), buf, 10);
	CHECK(!strcmp(buf, "other:abc") && buf[10] == 'X', "len 10: [%.16s]", buf);
	memset(buf, 'X', sizeof(buf));
	cause_of_stack(other, LEN(other), buf, sizeof(buf));
	CHECK_STR(buf, "other:abcdefghijklmnop");
	/* a symbol longer than CAUSE_LEN */
	memset(longsym, 'q', sizeof(longsym) - 1);
	longsym[sizeof(longsym) - 1] = '\0';
	{
		const char *got = cause_n(longstack, LEN(longstack));

		CHECK(strlen(got) == CAUSE_LEN - 1, "long: %zu", strlen(got));
		CHECK(!strncmp(got, "other:qqq", 9), "long: [%.12s]", got);
	}
	/* len 0 writes nothing */
	memset(buf, 'X', sizeof(buf));
	cause_of_stack(stat, LEN(stat), buf, 0);
	CHECK(buf[0] == 'X', "len 0: [%.4s]", buf);
}

int main(void)
{
	RUN_TEST(test_real_ftrace());
	RUN_TEST(test_real_bpftrace());
	RUN_TEST(test_table());
	RUN_TEST(test_innermost());
	RUN_TEST(test_suffixes());
	RUN_TEST(test_null());
	RUN_TEST(test_bpf());
	RUN_TEST(test_other_unknown());
	RUN_TEST(test_truncation());
	return check_done("test_cause");
}

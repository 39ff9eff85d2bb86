// SPDX-License-Identifier: GPL-2.0
/*
 * The probe on BTF of kernels that are not this one (tests/data/btf_*.c,
 * compiled by clang), and the probe table against the sections of the
 * BPF object: no root needed.
 */
#include <errno.h>
#include <stdarg.h>
#include <bpf/libbpf.h>
#include "check.h"
#include "probe.h"

#ifndef TEST_OUT
#define TEST_OUT "build"
#endif

static const char *sample(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/tests/data/btf_%s.o", TEST_OUT, name);
	return path;
}

/* The table's entry for name; a blank one, and a failed check, if it has none. */
static const struct attach_point *point(const struct attach_plan *plan, const char *name)
{
	static const struct attach_point none = { .name = "", .why = "" };

	for (int i = 0; i < plan->n; i++)
		if (!strcmp(plan->points[i].name, name))
			return &plan->points[i];
	CHECK(false, "no %s in the probe table", name);
	return &none;
}

static bool chosen(const struct attach_plan *plan, const char *name)
{
	return point(plan, name)->chosen;
}

static int probe(struct attach_plan *plan, const char *name, enum source_pref pref,
		 enum irqoff_pref irqoff)
{
	return probe_kernel(plan, sample(name), pref, irqoff, PARTS_KERNEL, false);
}

static void test_two_args(void)
{
	struct attach_plan plan;

	CHECK(probe(&plan, "two_arg_rstat", PREF_AUTO, IRQOFF_AUTO) == 0, "probe failed");
	CHECK(plan.usable && plan.source == SOURCE_TRACEPOINT, "plan %d %s", plan.usable,
	      plan.missing);
	CHECK(plan.args.cgrp == 0 && plan.args.cpu == -1 && plan.args.contended == 1,
	      "args %d %d %d", plan.args.cgrp, plan.args.cpu, plan.args.contended);
	CHECK(strstr(point(&plan, "cgroup_rstat_locked")->why, "no cpu") != NULL, "%s",
	      point(&plan, "cgroup_rstat_locked")->why);
	CHECK(chosen(&plan, "cgroup_rstat_locked") && chosen(&plan, "cgroup_rstat_unlock") &&
	      !chosen(&plan, "cgroup_rstat_lock_contended"), "choices");
	/* no preemptirq tracepoints: the holds stand in; sampling only when asked */
	CHECK_STR(plan.irqoff_source, "lock");
	CHECK(!plan.irqoff_sample, "sampling is not a default");
	CHECK(probe(&plan, "two_arg_rstat", PREF_AUTO, IRQOFF_LOCK_SAMPLE) == 0 &&
	      plan.irqoff_lock && plan.irqoff_sample, "lock+sample");
	CHECK_STR(plan.irqoff_source, "lock+sample");
	CHECK(!plan_has_cpu_lock(&plan), "no per-CPU lock in this BTF");
}

/*
 * A kernel whose enum bpf_func_id lacks bpf_loop and
 * bpf_map_lookup_percpu_elem is refused in one line naming both and
 * when they came; one that has them, with the same tracepoints, is not.
 */
static void test_helpers_needed(void)
{
	struct attach_plan plan;

	CHECK(probe(&plan, "old_helpers", PREF_AUTO, IRQOFF_AUTO) == 0, "probe failed");
	CHECK(!plan.usable, "a kernel without bpf_loop is usable");
	CHECK_STR(plan.missing, "this kernel lacks the BPF helpers bpf_loop (Linux 5.17) and "
		  "bpf_map_lookup_percpu_elem (Linux 5.19), which rstatlat's programs call "
		  "(tested from 6.1)");
	CHECK(probe(&plan, "new_helpers", PREF_AUTO, IRQOFF_AUTO) == 0 && plan.usable &&
	      plan.source == SOURCE_TRACEPOINT, "with the helpers: %d %s", plan.usable,
	      plan.missing);
}

static bool measured(const struct attach_plan *plan, int part)
{
	return plan->parts_measured >> part & 1;
}

/*
 * Flush parts from the kernel (the default): nothing on sched_switch or
 * the irq points; held, wait, self and, where task_struct has sched_info,
 * offcpu; irq stays in other. Timed (asked for, or by --flush where the
 * kernel has them): sched_switch and the irq and softirq pairs, an x86
 * vector only with both ends, every part. memcg decisions: their
 * tracepoint, its prototype as the program reads it. Off with
 * --flush-parts off; timed refused when a needed point is missing.
 */
static void test_flush_parts(void)
{
	struct attach_plan plan;

	CHECK(probe(&plan, "flush_parts", PREF_AUTO, IRQOFF_AUTO) == 0, "probe failed");
	CHECK(plan.usable && plan.flush_parts && plan.flush_causes && plan.memcg_decisions &&
	      plan.parts_from == PARTS_FROM_KERNEL, "parts %d causes %d memcg %d: %s",
	      plan.flush_parts, plan.flush_causes, plan.memcg_decisions, plan.parts_why);
	CHECK(!chosen(&plan, "sched_switch") && !chosen(&plan, "irq_handler_entry") &&
	      !chosen(&plan, "local_timer_entry") && chosen(&plan, "memcg_flush_stats") &&
	      strstr(point(&plan, "sched_switch")->why, "timed"), "kernel parts attach no "
	      "switch or irq program: %s", point(&plan, "sched_switch")->why);
	CHECK(measured(&plan, PART_HELD) && measured(&plan, PART_WAIT) &&
	      measured(&plan, PART_OFFCPU) && measured(&plan, PART_SELF) &&
	      measured(&plan, PART_OTHER) && !measured(&plan, PART_IRQ), "measured %#x",
	      plan.parts_measured);

	CHECK(probe_kernel(&plan, sample("flush_parts"), PREF_AUTO, IRQOFF_AUTO, PARTS_TIMED,
			   false) == 0 && plan.usable && plan.parts_from == PARTS_FROM_TIMED &&
	      plan.parts_measured == (1U << PART_MAX) - 1, "timed: %#x", plan.parts_measured);
	CHECK(chosen(&plan, "sched_switch") && chosen(&plan, "irq_handler_exit") &&
	      chosen(&plan, "softirq_entry") && chosen(&plan, "local_timer_entry") &&
	      chosen(&plan, "local_timer_exit") && chosen(&plan, "memcg_flush_stats"), "chosen");
	CHECK(point(&plan, "reschedule_entry")->present && !chosen(&plan, "reschedule_entry") &&
	      strstr(point(&plan, "reschedule_entry")->why, "pair"), "a vector without its exit: %s",
	      point(&plan, "reschedule_entry")->why);
	CHECK(!point(&plan, "call_function_entry")->present, "absent vector");
	CHECK(probe_kernel(&plan, sample("flush_parts"), PREF_AUTO, IRQOFF_AUTO,
			   PARTS_TIMED_WHERE_PRESENT, false) == 0 &&
	      plan.parts_from == PARTS_FROM_TIMED && chosen(&plan, "sched_switch"), "--flush");
	CHECK(probe_kernel(&plan, sample("flush_parts"), PREF_AUTO, IRQOFF_AUTO, PARTS_OFF,
			   false) == 0 && !plan.flush_parts && plan.memcg_decisions &&
	      !plan.parts_measured && !chosen(&plan, "sched_switch") &&
	      !chosen(&plan, "irq_handler_entry") &&
	      strstr(plan.parts_why, "--flush-parts off"), "--flush-parts off: %s", plan.parts_why);

	CHECK(probe(&plan, "memcg_reshaped", PREF_AUTO, IRQOFF_AUTO) == 0, "probe failed");
	CHECK(plan.usable && plan.parts_from == PARTS_FROM_KERNEL && !plan.memcg_decisions &&
	      !measured(&plan, PART_OFFCPU) && measured(&plan, PART_HELD), "parts %d %#x memcg %d",
	      plan.parts_from, plan.parts_measured, plan.memcg_decisions);
	CHECK(strstr(plan.parts_why, "sched_info") != NULL, "why: %s", plan.parts_why);
	CHECK(!point(&plan, "memcg_flush_stats")->present &&
	      strstr(point(&plan, "memcg_flush_stats")->why, "prototype"), "memcg: %s",
	      point(&plan, "memcg_flush_stats")->why);
	CHECK(!point(&plan, "sched_switch")->present && !chosen(&plan, "irq_handler_entry"),
	      "sched_switch of another shape: %s", point(&plan, "sched_switch")->why);
	CHECK(probe_kernel(&plan, sample("memcg_reshaped"), PREF_AUTO, IRQOFF_AUTO,
			   PARTS_TIMED_WHERE_PRESENT, false) == 0 && plan.usable &&
	      plan.parts_from == PARTS_FROM_KERNEL && !chosen(&plan, "irq_handler_entry"),
	      "--flush without the points: %s", plan.parts_why);
	CHECK(probe_kernel(&plan, sample("memcg_reshaped"), PREF_AUTO, IRQOFF_AUTO, PARTS_TIMED,
			   false) == 0 && !plan.usable && strstr(plan.missing, "sched_switch"),
	      "timed without the points: %s", plan.missing);
}

static void test_four_args(void)
{
	struct attach_plan plan;

	CHECK(probe(&plan, "four_arg_rstat", PREF_TRACEPOINT, IRQOFF_LOCK) == 0, "probe failed");
	CHECK(plan.usable && plan.args.cgrp == 1 && plan.args.cpu == 2 && plan.args.contended == 3,
	      "args %d %d %d", plan.args.cgrp, plan.args.cpu, plan.args.contended);
	CHECK_STR(plan.irqoff_source, "lock");
}

/*
 * The rwlock RFC's shape (cgrp, cpu, const char *type, bool contended):
 * the string is told from the others by its type, contended is still read
 * where it moved to, and the rows carry the type (plan.lock_types, which
 * sets the BPF side's arg_type).
 */
static void test_lock_type_arg(void)
{
	struct attach_plan plan;
	const struct attach_point *pt;

	CHECK(probe(&plan, "lock_type_rstat", PREF_AUTO, IRQOFF_AUTO) == 0, "probe failed");
	CHECK(plan.usable && plan.args.cgrp == 0 && plan.args.cpu == 1 && plan.args.type == 2 &&
	      plan.args.contended == 3, "args %d %d %d %d", plan.args.cgrp, plan.args.cpu,
	      plan.args.type, plan.args.contended);
	for (const char *const *n = (const char *const[]){ "cgroup_rstat_lock_contended",
			"cgroup_rstat_locked", "cgroup_rstat_unlock", NULL }; *n; n++) {
		pt = point(&plan, *n);
		CHECK(pt->chosen && strstr(pt->why, "contended@3, lock type@2)"),
		      "%s: chosen %d, %s", *n, pt->chosen, pt->why);
	}
	CHECK(plan.lock_types, "lock types not recorded where the tracepoints pass them");
	CHECK(probe(&plan, "four_arg_rstat", PREF_AUTO, IRQOFF_AUTO) == 0 && !plan.lock_types &&
	      plan.args.type == -1, "lock types without the argument");
}

/*
 * Which locks: one global lock unless struct cgroup_subsys has its own
 * rstat_ss_lock (6.16+), said with why they are not told apart.
 */
static void test_locks(void)
{
	struct attach_plan plan;

	CHECK(probe(&plan, "four_arg_rstat", PREF_AUTO, IRQOFF_AUTO) == 0 &&
	      plan.locks == LOCKS_GLOBAL && strstr(plan.locks_why, "one global lock"),
	      "before 6.16: %d %s", plan.locks, plan.locks_why);
	CHECK(probe(&plan, "flush_functions", PREF_AUTO, IRQOFF_AUTO) == 0 &&
	      plan.locks == LOCKS_GLOBAL, "flush functions: %d", plan.locks);
	CHECK(probe(&plan, "subsys_locks", PREF_AUTO, IRQOFF_AUTO) == 0 && plan.usable &&
	      plan.locks == LOCKS_PER_SUBSYSTEM &&
	      strstr(plan.locks_why, "one per subsystem and one for the base stats") &&
	      strstr(plan.locks_why, "not told apart") &&
	      strstr(plan.locks_why, "fentry on css_rstat_flush, which would tell them, "
		     "not checked: not root"), "6.16+: %d %s (usable %d: %s)", plan.locks,
	      plan.locks_why, plan.usable, plan.missing);
	CHECK(!plan.lock_rows, "locks told apart without root");
	CHECK(point(&plan, "css_rstat_flush")->present && !point(&plan, "css_rstat_flush")->chosen &&
	      strstr(point(&plan, "css_rstat_flush")->why, "not chosen") &&
	      point(&plan, "cgroup_base_stat_cputime_show")->present,
	      "lock scope points: %s", point(&plan, "css_rstat_flush")->why);
	CHECK(!strcmp(plan.lock_names[LOCK_BASE], "base") &&
	      !strcmp(plan.lock_names[LOCK_SUBSYS + 3], "memory") &&
	      !strcmp(plan.lock_names[LOCK_SUBSYS + 2], "io") &&
	      !strcmp(plan.lock_names[LOCK_SUBSYS + 9], "subsys9") &&
	      !strcmp(plan.lock_names[LOCK_UNKNOWN], "(unknown)") && !plan.lock_names[LOCK_ALL][0],
	      "lock names: %s %s %s", plan.lock_names[LOCK_BASE], plan.lock_names[LOCK_SUBSYS + 3],
	      plan.lock_names[LOCK_SUBSYS + 9]);
	CHECK(probe(&plan, "four_arg_rstat", PREF_AUTO, IRQOFF_AUTO) == 0 &&
	      !point(&plan, "css_rstat_flush")->present && !plan.lock_rows,
	      "before 6.16: no lock scope");
}

/* The lock scope functions are fentry's whatever serves the lock's events. */
static void test_lock_scope_sections(void)
{
	struct attach_plan plan;
	char sec[2][96];

	CHECK(probe(&plan, "subsys_locks", PREF_AUTO, IRQOFF_AUTO) == 0, "probe failed");
	CHECK(probe_sections(SOURCE_TRACEPOINT, point(&plan, "css_rstat_flush"), sec) == 2 &&
	      !strcmp(sec[0], "fentry/css_rstat_flush") && !strcmp(sec[1], "fexit/css_rstat_flush"),
	      "sections %s %s", sec[0], sec[1]);
	CHECK(probe_sections(SOURCE_KPROBE, point(&plan, "cgroup_base_stat_cputime_show"), sec) == 2 &&
	      !strcmp(sec[0], "fentry/cgroup_base_stat_cputime_show"), "sections %s", sec[0]);
}

static void test_no_bool(void)
{
	struct attach_plan plan;

	CHECK(probe(&plan, "no_bool_rstat", PREF_AUTO, IRQOFF_AUTO) == 0, "probe failed");
	CHECK(!plan.usable && strstr(plan.missing, "no usable cgroup_rstat tracepoints"),
	      "missing: %s", plan.missing);
	CHECK(point(&plan, "cgroup_rstat_locked")->present &&
	      strstr(point(&plan, "cgroup_rstat_locked")->why, "no struct cgroup * or bool"),
	      "why: %s", point(&plan, "cgroup_rstat_locked")->why);
	CHECK(probe(&plan, "no_bool_rstat", PREF_TRACEPOINT, IRQOFF_AUTO) == 0 && !plan.usable &&
	      strstr(plan.missing, "appeared in Linux 6.10"), "--source tracepoint: %s",
	      plan.missing);
}

static void test_functions(void)
{
	struct attach_plan plan;

	/* unprivileged, fentry is not even tried: refused, with the reason */
	CHECK(probe(&plan, "flush_functions", PREF_FENTRY, IRQOFF_AUTO) == 0, "probe failed");
	CHECK(!plan.usable && strstr(plan.missing, "refuses fentry"), "missing: %s", plan.missing);
	CHECK(point(&plan, "cgroup_rstat_flush_locked")->present &&
	      point(&plan, "cgroup_rstat_flush")->present &&
	      !point(&plan, "cgroup_rstat_flush_hold")->present, "functions found");
	CHECK(!point(&plan, "cgroup_rstat_locked")->present, "no tracepoints in this BTF");
}

static void test_cpu_lock_positions(void)
{
	struct attach_plan plan;

	CHECK(probe(&plan, "cpu_lock_moved", PREF_AUTO, IRQOFF_AUTO) == 0, "probe failed");
	CHECK(plan.usable && plan.args.contended == 2, "global lock: contended@%d",
	      plan.args.contended);
	CHECK(plan.cpu_lock_args.cgrp == 1 && plan.cpu_lock_args.contended == 3,
	      "per-CPU lock: cgrp@%d contended@%d", plan.cpu_lock_args.cgrp,
	      plan.cpu_lock_args.contended);
	CHECK(plan_has_cpu_lock(&plan) && chosen(&plan, "cgroup_rstat_cpu_locked") &&
	      chosen(&plan, "cgroup_rstat_cpu_unlock") &&
	      chosen(&plan, "cgroup_rstat_cpu_lock_contended"), "per-CPU lock chosen");
	CHECK(!chosen(&plan, "cgroup_rstat_cpu_unlock_fastpath") &&
	      strstr(point(&plan, "cgroup_rstat_cpu_unlock_fastpath")->why,
		     "differ from cgroup_rstat_cpu_locked's"), "fastpath: %s",
	      point(&plan, "cgroup_rstat_cpu_unlock_fastpath")->why);
	/* the function is there, but tracepoints win */
	CHECK(point(&plan, "cgroup_rstat_flush_locked")->present &&
	      !chosen(&plan, "cgroup_rstat_flush_locked"), "fallback not chosen");
}

static void test_irqoff_choice(void)
{
	struct attach_plan plan;

	CHECK(probe(&plan, "cpu_lock_moved", PREF_AUTO, IRQOFF_AUTO) == 0 && plan.irqoff_trace &&
	      chosen(&plan, "irq_disable") && chosen(&plan, "irq_enable"), "auto picks trace");
	CHECK_STR(plan.irqoff_source, "trace");
	CHECK(probe(&plan, "cpu_lock_moved", PREF_AUTO, IRQOFF_OFF) == 0 && !plan.irqoff_trace &&
	      !chosen(&plan, "irq_disable"), "off");
	CHECK_STR(plan.irqoff_source, "off");
	CHECK(probe(&plan, "cpu_lock_moved", PREF_AUTO, IRQOFF_SAMPLE) == 0, "probe failed");
	CHECK_STR(plan.irqoff_source, "sample");
	CHECK(probe(&plan, "two_arg_rstat", PREF_AUTO, IRQOFF_TRACE) == 0 && !plan.usable &&
	      strstr(plan.missing, "CONFIG_PREEMPTIRQ_TRACEPOINTS"), "trace without them: %s",
	      plan.missing);
}

/*
 * PREEMPT_RT, told from BTF (spinlock_t an rt_mutex): holds are not
 * irqs-off, so auto does not take them for it and --irqoff lock is
 * refused with one line; a raw spinlock kernel keeps the lock source.
 */
static void test_preempt_rt(void)
{
	struct attach_plan plan;

	CHECK(probe(&plan, "spinlock_raw", PREF_AUTO, IRQOFF_AUTO) == 0 && plan.usable &&
	      plan.holds_irqs_off && plan.irqoff_lock, "raw spinlock: holds are irqs-off");
	CHECK_STR(plan.irqoff_source, "lock");
	CHECK(probe(&plan, "preempt_rt", PREF_AUTO, IRQOFF_AUTO) == 0 && plan.usable &&
	      !plan.holds_irqs_off && !plan.irqoff_lock && !plan.irqoff_trace,
	      "RT, auto: no irqs-off claim from the holds (%s)", plan.irqoff_source);
	CHECK_STR(plan.irqoff_source, "off");
	CHECK(probe(&plan, "preempt_rt", PREF_AUTO, IRQOFF_LOCK) == 0 && !plan.usable &&
	      strstr(plan.missing, "PREEMPT_RT") && !strchr(plan.missing, '\n'),
	      "RT, --irqoff lock refused in one line: %s", plan.missing);
	CHECK(probe(&plan, "preempt_rt", PREF_AUTO, IRQOFF_LOCK_SAMPLE) == 0 && !plan.usable,
	      "RT, lock+sample refused");
	CHECK(probe(&plan, "preempt_rt", PREF_AUTO, IRQOFF_SAMPLE) == 0 && plan.usable,
	      "RT, sample: its ticks are real");
	CHECK_STR(plan.irqoff_source, "sample");
	/* samples without a spinlock_t: not RT (every real kernel has one) */
	CHECK(probe(&plan, "two_arg_rstat", PREF_AUTO, IRQOFF_AUTO) == 0 && plan.holds_irqs_off,
	      "no spinlock in BTF: holds taken as irqs-off");
}

/* Each plan owns its points: a second probe does not rewrite the first. */
static void test_plans_are_separate(void)
{
	struct attach_plan a, b;

	CHECK(probe(&a, "four_arg_rstat", PREF_AUTO, IRQOFF_AUTO) == 0, "probe a");
	CHECK(probe(&b, "flush_functions", PREF_FENTRY, IRQOFF_AUTO) == 0, "probe b");
	CHECK(a.usable && chosen(&a, "cgroup_rstat_locked") &&
	      point(&a, "cgroup_rstat_locked")->args.contended == 3, "a was rewritten");
	CHECK(!b.usable && !point(&b, "cgroup_rstat_locked")->present, "b");
}

static void test_bad_input(void)
{
	struct attach_plan plan;
	enum source_pref s;
	enum parts_pref p;
	enum irqoff_pref q;

	CHECK(probe_kernel(&plan, TEST_OUT "/tests/data/none.o", PREF_AUTO, IRQOFF_AUTO, PARTS_KERNEL,
			   false) == -1, "unreadable BTF");
	CHECK(source_pref_parse("fentry", &s) == 0 && s == PREF_FENTRY, "fentry");
	CHECK(parts_pref_parse("kernel", &p) == 0 && p == PARTS_KERNEL, "kernel");
	CHECK(parts_pref_parse("on", &p) == 0 && p == PARTS_TIMED, "on is timed");
	CHECK(parts_pref_parse("auto", &p) == -1, "auto");
	CHECK(source_pref_parse("kprobes", &s) == -1, "kprobes");
	CHECK(irqoff_pref_parse("lock", &q) == 0 && q == IRQOFF_LOCK, "lock");
	CHECK(irqoff_pref_parse("lock+sample", &q) == 0 && q == IRQOFF_LOCK_SAMPLE, "lock+sample");
	CHECK(irqoff_pref_parse("", &q) == -1, "empty");
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

/* Which point (under which source) a program's section names, or NULL. */
static bool program_claimed(const struct attach_plan *plan, const char *section)
{
	const enum rsl_source sources[] = { SOURCE_TRACEPOINT, SOURCE_FENTRY, SOURCE_KPROBE };
	char sec[2][96];

	for (int i = 0; i < plan->n; i++)
		for (int s = 0; s < 3; s++)
			for (int k = probe_sections(sources[s], &plan->points[i], sec); k-- > 0;)
				if (!strcmp(sec[k], section))
					return true;
	return false;
}

/* Every point has its programs, and every program (but the tick's) a point. */
static void test_table_names_the_programs(void)
{
	struct bpf_object *obj;
	struct bpf_program *prog, *progs[2];
	struct attach_plan plan;
	struct attach_point bogus = { .name = "cgroup_rstat_renamed", .kind = POINT_TRACEPOINT };
	char missing[96];
	int nprogs = 0;

	libbpf_set_print(quiet);
	obj = bpf_object__open_file(TEST_OUT "/rstatlat.bpf.o", NULL);
	CHECK(obj != NULL, "cannot open %s/rstatlat.bpf.o: %d", TEST_OUT, -errno);
	if (!obj)
		return;
	probe(&plan, "two_arg_rstat", PREF_AUTO, IRQOFF_AUTO);
	for (int i = 0; i < plan.n; i++) {
		const struct attach_point *pt = &plan.points[i];

		if (pt->kind == POINT_TRACEPOINT) {
			CHECK(probe_find_programs(obj, SOURCE_TRACEPOINT, pt, progs, missing) == 0 &&
			      progs[0] && !progs[1], "%s: no program in %s", pt->name, missing);
			continue;
		}
		CHECK(probe_find_programs(obj, SOURCE_FENTRY, pt, progs, missing) == 0 &&
		      progs[0] && progs[1], "%s: no program in %s", pt->name, missing);
		CHECK(probe_find_programs(obj, SOURCE_KPROBE, pt, progs, missing) == 0 &&
		      progs[0] && progs[1], "%s: no program in %s", pt->name, missing);
	}
	bpf_object__for_each_program(prog, obj) {
		const char *sec = bpf_program__section_name(prog);

		nprogs++;
		CHECK(!strcmp(sec, "perf_event") || program_claimed(&plan, sec),
		      "program %s (%s) serves no point of the table", bpf_program__name(prog), sec);
	}
	CHECK(nprogs > plan.n, "only %d programs", nprogs);
	CHECK(probe_find_programs(obj, SOURCE_TRACEPOINT, &bogus, progs, missing) == -ENOENT,
	      "a renamed point is found");
	CHECK_STR(missing, "tp_btf/cgroup_rstat_renamed");
	bpf_object__close(obj);
}

int main(void)
{
	RUN_TEST(test_two_args());
	RUN_TEST(test_helpers_needed());
	RUN_TEST(test_flush_parts());
	RUN_TEST(test_four_args());
	RUN_TEST(test_lock_type_arg());
	RUN_TEST(test_locks());
	RUN_TEST(test_lock_scope_sections());
	RUN_TEST(test_no_bool());
	RUN_TEST(test_functions());
	RUN_TEST(test_cpu_lock_positions());
	RUN_TEST(test_irqoff_choice());
	RUN_TEST(test_preempt_rt());
	RUN_TEST(test_plans_are_separate());
	RUN_TEST(test_bad_input());
	RUN_TEST(test_table_names_the_programs());
	return check_done("test_probe");
}

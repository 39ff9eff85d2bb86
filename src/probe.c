// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "probe.h"

/*
 * The probe table: every attach point rstatlat knows and what it is for.
 * Tracepoints are recognised by their BTF typedef btf_trace_<event>,
 * whose prototype is (void *ctx, args...); functions by their BTF FUNC
 * record. The programs that serve a point are found by their section
 * (probe_find_programs), so the names here are the attach targets.
 */
struct point_def {
	const char *name;
	enum point_kind kind;
	enum point_role role;
};

#define TP(n, r) { n, POINT_TRACEPOINT, r }
#define FN(n, r) { n, POINT_FUNCTION, r }

static const struct point_def point_table[] = {
	TP("cgroup_rstat_lock_contended", ROLE_CONTENDED),
	TP("cgroup_rstat_locked", ROLE_LOCKED),
	TP("cgroup_rstat_unlock", ROLE_UNLOCK),
	TP("cgroup_rstat_cpu_lock_contended", ROLE_CPU_LOCK),
	TP("cgroup_rstat_cpu_locked", ROLE_CPU_LOCK),
	TP("cgroup_rstat_cpu_unlock", ROLE_CPU_LOCK),
	TP("cgroup_rstat_cpu_lock_contended_fastpath", ROLE_CPU_LOCK),
	TP("cgroup_rstat_cpu_locked_fastpath", ROLE_CPU_LOCK),
	TP("cgroup_rstat_cpu_unlock_fastpath", ROLE_CPU_LOCK),
	TP("irq_disable", ROLE_IRQS),
	TP("irq_enable", ROLE_IRQS),
	FN("cgroup_rstat_flush_locked", ROLE_FLUSH_LOCKED),
	FN("cgroup_rstat_flush", ROLE_FLUSH_OUTER),
	FN("cgroup_rstat_flush_irqsafe", ROLE_FLUSH_OUTER),
	FN("cgroup_rstat_flush_atomic", ROLE_FLUSH_OUTER),
	FN("cgroup_rstat_flush_hold", ROLE_FLUSH_OUTER),
	/* flush parts: each entry is followed by its exit */
	TP("irq_handler_entry", ROLE_IRQ_TIME),
	TP("irq_handler_exit", ROLE_IRQ_TIME),
	TP("softirq_entry", ROLE_IRQ_TIME),
	TP("softirq_exit", ROLE_IRQ_TIME),
	/* x86 system vectors, which irq_handler_* does not see */
	TP("local_timer_entry", ROLE_IRQ_TIME),
	TP("local_timer_exit", ROLE_IRQ_TIME),
	TP("call_function_entry", ROLE_IRQ_TIME),
	TP("call_function_exit", ROLE_IRQ_TIME),
	TP("call_function_single_entry", ROLE_IRQ_TIME),
	TP("call_function_single_exit", ROLE_IRQ_TIME),
	TP("reschedule_entry", ROLE_IRQ_TIME),
	TP("reschedule_exit", ROLE_IRQ_TIME),
	TP("irq_work_entry", ROLE_IRQ_TIME),
	TP("irq_work_exit", ROLE_IRQ_TIME),
	TP("sched_switch", ROLE_SWITCH),
	TP("memcg_flush_stats", ROLE_MEMCG),
	FN("css_rstat_flush", ROLE_LOCK_SCOPE),
	FN("cgroup_base_stat_cputime_show", ROLE_LOCK_SCOPE),
	TP("cgroup_rmdir", ROLE_CGROUP_GONE),
};

_Static_assert(sizeof(point_table) / sizeof(point_table[0]) == PROBE_NPOINTS,
	       "PROBE_NPOINTS in probe.h counts the probe table");

static const struct tp_args no_args = { -1, -1, -1, -1 };

static const char *const source_names[] = {
	[SOURCE_TRACEPOINT] = "tracepoint",
	[SOURCE_FENTRY] = "fentry",
	[SOURCE_KPROBE] = "kprobe",
};

static const struct btf_type *resolve(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_const(t) || btf_is_volatile(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

static bool is_named(const struct btf *btf, const struct btf_type *t, const char *name)
{
	return t && !strcmp(btf__name_by_offset(btf, t->name_off), name);
}

static bool is_cgroup_ptr(const struct btf *btf, __u32 type)
{
	const struct btf_type *t = resolve(btf, type);

	t = t && btf_is_ptr(t) ? resolve(btf, t->type) : NULL;
	return t && btf_is_struct(t) && is_named(btf, t, "cgroup");
}

static bool is_char_ptr(const struct btf *btf, __u32 type)
{
	const struct btf_type *t = resolve(btf, type);

	t = t && btf_is_ptr(t) ? resolve(btf, t->type) : NULL;
	return t && btf_is_int(t) && is_named(btf, t, "char");
}

static bool read_tp_args(const struct btf *btf, const struct btf_type *proto,
			 struct tp_args *a, char *why, size_t len)
{
	const struct btf_param *p = btf_params(proto);
	int nargs = btf_vlen(proto) - 1;	/* the first is the ctx */

	*a = no_args;
	if (nargs < 2 || nargs > 4) {
		snprintf(why, len, "prototype has %d arguments; 2 to 4 are understood", nargs);
		return false;
	}
	for (int i = 0; i < nargs; i++) {
		const struct btf_type *t = resolve(btf, p[i + 1].type);
		int *slot = NULL;

		if (is_cgroup_ptr(btf, p[i + 1].type))
			slot = &a->cgrp;
		else if (is_named(btf, t, "int"))
			slot = &a->cpu;
		else if (is_named(btf, t, "_Bool"))
			slot = &a->contended;
		else if (is_char_ptr(btf, p[i + 1].type))
			slot = &a->type;
		if (slot && *slot >= 0) {
			snprintf(why, len, "two arguments of one type: positions ambiguous");
			return false;
		}
		if (slot)
			*slot = i;
	}
	if (a->cgrp < 0 || a->contended < 0) {
		snprintf(why, len, "no struct cgroup * or bool argument");
		return false;
	}
	return true;
}

static void describe_args(const struct tp_args *a, char *why, size_t len)
{
	char type[48] = "";

	if (a->type >= 0)
		snprintf(type, sizeof(type), ", lock type@%d", a->type);
	if (a->cpu < 0)
		snprintf(why, len, "tp_btf, args (cgrp@%d, contended@%d%s), no cpu: flushes "
			 "not delimited", a->cgrp, a->contended, type);
	else
		snprintf(why, len, "tp_btf, args (cgrp@%d, cpu@%d, contended@%d%s)", a->cgrp,
			 a->cpu, a->contended, type);
}

static const struct btf_type *tp_proto(const struct btf *btf, const char *event)
{
	char tname[96];
	const struct btf_type *t;
	int id;

	snprintf(tname, sizeof(tname), "btf_trace_%s", event);
	id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	if (id < 0)
		return NULL;
	t = resolve(btf, id);
	t = t && btf_is_ptr(t) ? resolve(btf, t->type) : NULL;
	return t && btf_is_func_proto(t) ? t : NULL;
}

static bool is_struct_ptr(const struct btf *btf, __u32 type, const char *name)
{
	const struct btf_type *t = resolve(btf, type);

	t = t && btf_is_ptr(t) ? resolve(btf, t->type) : NULL;
	return t && btf_is_struct(t) && is_named(btf, t, name);
}

/*
 * The programs of sched_switch, memcg_flush_stats and cgroup_rmdir read
 * their arguments by position: (preempt, prev, next, ...), (memcg,
 * stats_updates, force, needs_flush) and (cgrp, path). A prototype of
 * another shape is not attached.
 */
static bool proto_as_expected(const struct btf *btf, const struct btf_type *proto,
			      enum point_role role)
{
	const struct btf_param *p = btf_params(proto);
	int nargs = btf_vlen(proto) - 1;

	if (role == ROLE_CGROUP_GONE)
		return nargs == 2 && is_cgroup_ptr(btf, p[1].type) && is_char_ptr(btf, p[2].type);
	if (role == ROLE_SWITCH)
		return nargs >= 3 && is_named(btf, resolve(btf, p[1].type), "_Bool") &&
		       is_struct_ptr(btf, p[2].type, "task_struct") &&
		       is_struct_ptr(btf, p[3].type, "task_struct");
	return nargs == 4 && is_struct_ptr(btf, p[1].type, "mem_cgroup") &&
	       is_named(btf, resolve(btf, p[3].type), "_Bool") &&
	       is_named(btf, resolve(btf, p[4].type), "_Bool");
}

static void probe_tracepoint(const struct btf *btf, struct attach_point *pt)
{
	const struct btf_type *proto = tp_proto(btf, pt->name);

	if (!proto) {
		snprintf(pt->why, sizeof(pt->why), "no btf_trace_%s in kernel BTF", pt->name);
		return;
	}
	pt->present = true;
	if (pt->role == ROLE_IRQS) {
		snprintf(pt->why, sizeof(pt->why), "present; --irqoff trace uses it");
		return;
	}
	if (pt->role == ROLE_IRQ_TIME) {
		snprintf(pt->why, sizeof(pt->why), "present; flush parts use it");
		return;
	}
	if (pt->role == ROLE_SWITCH || pt->role == ROLE_MEMCG || pt->role == ROLE_CGROUP_GONE) {
		if (proto_as_expected(btf, proto, pt->role)) {
			snprintf(pt->why, sizeof(pt->why), "present; %s", pt->role == ROLE_SWITCH ?
				 "flush parts use it" : pt->role == ROLE_MEMCG ?
				 "memcg flush decisions" : "removed cgroups are learned from it");
		} else {
			pt->present = false;
			snprintf(pt->why, sizeof(pt->why), "present, but its prototype is not the "
				 "one the program reads");
		}
		return;
	}
	if (read_tp_args(btf, proto, &pt->args, pt->why, sizeof(pt->why)))
		describe_args(&pt->args, pt->why, sizeof(pt->why));
	else
		pt->args.cgrp = -1;
}

/* Loads a do-nothing fentry program on fn and attaches it, to learn whether the kernel allows it. */
static bool fentry_attaches(const struct btf *btf, const char *fn)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY);
	int id = btf__find_by_name_kind(btf, fn, BTF_KIND_FUNC), prog, link;

	if (id < 0)
		return false;
	o.attach_btf_id = id;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "rsl_probe", "GPL", insns, 2, &o);
	if (prog < 0)
		return false;
	link = bpf_raw_tracepoint_open(NULL, prog);
	if (link >= 0)
		close(link);
	close(prog);
	return link >= 0;
}

/* libbpf attaches kprobes through the kprobe PMU, or tracefs kprobe_events. */
static bool kprobes_available(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", R_OK) ||
	       !access("/sys/kernel/tracing/kprobe_events", W_OK) ||
	       !access("/sys/kernel/debug/tracing/kprobe_events", W_OK);
}

static void unusable(struct attach_plan *plan, const char *fmt, const char *arg)
{
	if (!plan->usable)
		return;
	plan->usable = false;
	snprintf(plan->missing, sizeof(plan->missing), fmt, arg);
}

static struct attach_point *point_named(struct attach_plan *plan, const char *name)
{
	for (int i = 0; i < plan->n; i++)
		if (!strcmp(plan->points[i].name, name))
			return &plan->points[i];
	return NULL;
}

static bool same_args(const struct tp_args *a, const struct tp_args *b)
{
	return a->cgrp == b->cgrp && a->cpu == b->cpu && a->contended == b->contended &&
	       a->type == b->type;
}

/*
 * The global lock's tracepoints; the per-CPU ones ride along when
 * present. One set of argument positions serves each lock's programs, so
 * a point whose positions differ from its lock's locked event is left out.
 */
static void choose_tracepoints(struct attach_plan *plan)
{
	const struct attach_point *cpu_locked = point_named(plan, "cgroup_rstat_cpu_locked");

	plan->source = SOURCE_TRACEPOINT;
	plan->args = point_named(plan, "cgroup_rstat_locked")->args;
	/* an rwlock's tracepoints pass the lock type: rows are per type too */
	plan->lock_types = plan->args.type >= 0 &&
			   point_named(plan, "cgroup_rstat_unlock")->args.type >= 0;
	plan->cpu_lock_args = cpu_locked->args;
	for (int i = 0; i < plan->n; i++) {
		struct attach_point *pt = &plan->points[i];
		bool cpu_lock = pt->role == ROLE_CPU_LOCK;

		if (pt->kind != POINT_TRACEPOINT || pt->role > ROLE_CPU_LOCK || pt->args.cgrp < 0)
			continue;
		if (!same_args(&pt->args, cpu_lock ? &plan->cpu_lock_args : &plan->args)) {
			snprintf(pt->why, sizeof(pt->why), "argument positions differ from %s's",
				 cpu_lock ? cpu_locked->name : "cgroup_rstat_locked");
			continue;
		}
		pt->chosen = true;
	}
}

static void choose_functions(struct attach_plan *plan, const struct btf *btf,
			     enum source_pref pref, bool privileged)
{
	struct attach_point *inner = NULL;

	for (int i = 0; i < plan->n; i++)
		if (plan->points[i].role == ROLE_FLUSH_LOCKED && plan->points[i].present)
			inner = &plan->points[i];
	if (!inner) {
		unusable(plan, "%s", "kernel has no usable cgroup_rstat tracepoints and no "
			 "cgroup_rstat_flush_locked function to fall back on");
		return;
	}
	if (pref != PREF_KPROBE && privileged && fentry_attaches(btf, inner->name))
		plan->source = SOURCE_FENTRY;
	else if (pref != PREF_FENTRY && kprobes_available())
		plan->source = SOURCE_KPROBE;
	else {
		unusable(plan, "kernel has no rstat tracepoints and refuses %s on "
			 "cgroup_rstat_flush_locked", pref == PREF_FENTRY ? "fentry" :
			 privileged ? "fentry and kprobes" : "kprobes (fentry: not root)");
		return;
	}
	for (int i = 0; i < plan->n; i++) {
		struct attach_point *pt = &plan->points[i];

		if ((pt->role != ROLE_FLUSH_LOCKED && pt->role != ROLE_FLUSH_OUTER) || !pt->present)
			continue;
		pt->chosen = true;
		snprintf(pt->why, sizeof(pt->why), "%s, %s", source_names[plan->source],
			 pt->role == ROLE_FLUSH_LOCKED ? "hold = its duration (lock held)" :
			 "flush = its duration, wait = entry to flush_locked");
	}
}

/*
 * Whether spinlock_t sleeps: on PREEMPT_RT it is an rt_mutex (struct
 * spinlock { struct rt_mutex_base lock; }, rt_mutex in older RT patches),
 * and spin_lock_irq leaves interrupts on. Elsewhere it wraps a
 * raw_spinlock. From BTF, not the release string: RT is a build option.
 */
static bool spinlock_is_rt_mutex(const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "spinlock", BTF_KIND_STRUCT);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++) {
		const struct btf_type *mt = btf__type_by_id(btf, m[i].type);

		while (mt && (btf_is_typedef(mt) || btf_is_mod(mt)))
			mt = btf__type_by_id(btf, mt->type);
		if (mt && btf_is_struct(mt) &&
		    !strncmp(btf__name_by_offset(btf, mt->name_off), "rt_mutex", 8))
			return true;
	}
	return false;
}

/*
 * Irqs-off: exact from the preemptirq tracepoints when the kernel has them
 * (debug configs), else the holds (spin_lock_irq), but not on PREEMPT_RT,
 * where holds leave interrupts on. Sampling (late cpu-clock ticks) only
 * when asked: it adds a timer interrupt per tick on every CPU, which the
 * defaults must not.
 */
static void choose_irqoff(struct attach_plan *plan, const struct btf *btf,
			  enum irqoff_pref pref)
{
	bool have = true;

	plan->holds_irqs_off = !spinlock_is_rt_mutex(btf);
	for (int i = 0; i < plan->n; i++)
		if (plan->points[i].role == ROLE_IRQS)
			have &= plan->points[i].present;
	plan->irqoff_trace = have && (pref == IRQOFF_AUTO || pref == IRQOFF_TRACE);
	plan->irqoff_lock = pref == IRQOFF_LOCK || pref == IRQOFF_LOCK_SAMPLE ||
			    (pref == IRQOFF_AUTO && !have && plan->holds_irqs_off);
	if (plan->irqoff_lock && !plan->holds_irqs_off)
		unusable(plan, "%s", "--irqoff lock: this kernel is PREEMPT_RT (spinlock_t is an "
			 "rt_mutex), where spin_lock_irq leaves interrupts on and a hold is not "
			 "irqs-off; --irqoff trace or sample measure them");
	plan->irqoff_sample = pref == IRQOFF_SAMPLE || pref == IRQOFF_LOCK_SAMPLE;
	if (pref == IRQOFF_TRACE && !have)
		unusable(plan, "%s", "--irqoff trace needs the preemptirq:irq_disable/irq_enable "
			 "tracepoints (CONFIG_PREEMPTIRQ_TRACEPOINTS)");
	plan->irqoff_source = plan->irqoff_trace ? "trace" :
			      plan->irqoff_lock && plan->irqoff_sample ? "lock+sample" :
			      plan->irqoff_lock ? "lock" : plan->irqoff_sample ? "sample" : "off";
	for (int i = 0; i < plan->n; i++) {
		if (plan->points[i].role != ROLE_IRQS || !plan->points[i].present)
			continue;
		plan->points[i].chosen = plan->irqoff_trace;
		snprintf(plan->points[i].why, sizeof(plan->points[i].why), "%s", plan->irqoff_trace ?
			 "tp_btf, args (ip, parent_ip): exact irqs-off intervals" :
			 "present; not chosen (--irqoff)");
	}
}

/* The other end of an irq time point: X_exit for X_entry and back. */
static const struct attach_point *irq_pair(struct attach_plan *plan, const struct attach_point *pt)
{
	static const struct attach_point none;
	size_t len = strlen(pt->name);
	char other[64];

	if (len > 6 && !strcmp(pt->name + len - 6, "_entry"))
		snprintf(other, sizeof(other), "%.*s_exit", (int)(len - 6), pt->name);
	else if (len > 5 && !strcmp(pt->name + len - 5, "_exit"))
		snprintf(other, sizeof(other), "%.*s_entry", (int)(len - 5), pt->name);
	else
		return &none;
	return point_named(plan, other) ? point_named(plan, other) : &none;
}

/* Whether struct sname has a member mname. */
static bool has_member(const struct btf *btf, const char *sname, const char *mname)
{
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, m[i].name_off), mname))
			return true;
	return false;
}

/* Whether the kernel keeps a task's time runnable but off CPU (CONFIG_SCHED_INFO). */
static bool has_sched_info(const struct btf *btf)
{
	return has_member(btf, "task_struct", "sched_info");
}

/*
 * Flush parts need the rstat tracepoints (a whole flush is put together
 * from their events). kernel (the default) reads what the kernel keeps
 * anyway, at a flush's first and last hold: held and wait come from the
 * lock's own events, offcpu from the task's scheduler accounting
 * (sched_info), self from rstatlat's own clock; no kernel keeps irq time
 * per task, so irq stays in other. timed attaches sched_switch and the irq
 * and softirq pairs (the x86 vectors where the kernel has both ends):
 * every part is measured, at the price of a program on every context
 * switch and interrupt of the machine. --flush asks for timed where the
 * kernel has them. memcg decisions need only their tracepoint.
 */
static void choose_parts(struct attach_plan *plan, const struct btf *btf, enum parts_pref pref)
{
	struct attach_point *sw = point_named(plan, "sched_switch");
	struct attach_point *memcg = point_named(plan, "memcg_flush_stats");
	static const char *const needed[] = {
		"irq_handler_entry", "irq_handler_exit", "softirq_entry", "softirq_exit",
	};
	bool timed_points = sw->present, timed;

	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		timed_points &= point_named(plan, needed[i])->present;
	plan->flush_causes = plan->source == SOURCE_TRACEPOINT;
	snprintf(plan->causes_why, sizeof(plan->causes_why), "%s",
		 plan->flush_causes ? "" : "they need the rstat tracepoints");
	if (pref == PARTS_TIMED && plan->flush_causes && !timed_points)
		unusable(plan, "%s", "--flush-parts timed needs sched_switch, irq_handler_entry/exit "
			 "and softirq_entry/exit (--probe says why)");
	timed = plan->flush_causes && timed_points &&
		(pref == PARTS_TIMED || pref == PARTS_TIMED_WHERE_PRESENT);
	plan->parts_from = !plan->flush_causes || pref == PARTS_OFF ? PARTS_FROM_NONE :
			   timed ? PARTS_FROM_TIMED : PARTS_FROM_KERNEL;
	plan->flush_parts = plan->parts_from != PARTS_FROM_NONE;
	plan->parts_measured = 0;
	if (plan->flush_parts)
		plan->parts_measured = 1U << PART_HELD | 1U << PART_WAIT | 1U << PART_SELF |
				       1U << PART_OTHER;
	if (timed)
		plan->parts_measured |= 1U << PART_IRQ | 1U << PART_OFFCPU;
	else if (plan->flush_parts && has_sched_info(btf))
		plan->parts_measured |= 1U << PART_OFFCPU;
	snprintf(plan->parts_why, sizeof(plan->parts_why), "%s",
		 !plan->flush_causes ? "they need the rstat tracepoints" :
		 pref == PARTS_OFF ? "--flush-parts off" :
		 timed ? "timed: every interrupt and context switch while a flush is open" :
		 !(plan->parts_measured & 1U << PART_OFFCPU) ?
		 "kernel: no sched_info in task_struct, so offcpu and irq stay in other" :
		 pref == PARTS_TIMED_WHERE_PRESENT ?
		 "kernel (no sched_switch or irq pairs for timed): irq stays in other" :
		 "kernel: irq stays in other (--flush-parts timed measures it)");
	for (int i = 0; i < plan->n; i++) {
		struct attach_point *pt = &plan->points[i];

		if (pt->role != ROLE_IRQ_TIME && pt->role != ROLE_SWITCH)
			continue;
		pt->chosen = timed && pt->present &&
			     (pt->role == ROLE_SWITCH || irq_pair(plan, pt)->present);
		if (pt->present && !pt->chosen)
			snprintf(pt->why, sizeof(pt->why), "present; not chosen: %s",
				 timed ? "its pair is missing" : plan->flush_parts ?
				 "flush parts from the kernel (--flush-parts timed attaches it)" :
				 plan->parts_why);
	}
	memcg->chosen = plan->memcg_decisions = memcg->present;
}

/*
 * The locks' names, by LOCK_* (rstatlat.h): a subsystem's lock is named
 * after the subsystem, from enum cgroup_subsys_id in BTF ("memory_cgrp_id":
 * "memory"), whose values are the ids the BPF side reads from css->ss.
 */
static void name_locks(struct attach_plan *plan, const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "cgroup_subsys_id", BTF_KIND_ENUM);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);
	const struct btf_enum *e = t ? btf_enum(t) : NULL;

	snprintf(plan->lock_names[LOCK_UNKNOWN], LOCK_NAME_LEN, "(unknown)");
	snprintf(plan->lock_names[LOCK_BASE], LOCK_NAME_LEN, "base");
	for (int i = LOCK_SUBSYS; i < LOCK_IDS_MAX; i++)
		snprintf(plan->lock_names[i], LOCK_NAME_LEN, "subsys%d", i - LOCK_SUBSYS);
	for (int i = 0; t && i < btf_vlen(t); i++) {
		static const char suffix[] = "_cgrp_id";
		const char *name = btf__name_by_offset(btf, e[i].name_off);
		size_t n = strlen(name), k = sizeof(suffix) - 1;

		if (e[i].val < 0 || e[i].val >= LOCK_IDS_MAX - LOCK_SUBSYS || n <= k ||
		    strcmp(name + n - k, suffix))
			continue;
		snprintf(plan->lock_names[LOCK_SUBSYS + e[i].val], LOCK_NAME_LEN, "%.*s",
			 (int)(n - k), name);
	}
}

/*
 * Which lock a hold is under. Before 6.16 one global lock guards every
 * flush, so the rows' holds are its. From 6.16 each subsystem flushes
 * under its own (struct cgroup_subsys.rstat_ss_lock) and the base stats
 * under rstat_base_lock: the tracepoints still pass only (cgrp, cpu,
 * contended), and only css_rstat_flush(css) knows the lock (css->ss).
 * Where fentry on it is allowed, its programs keep each task's lock
 * scope and the holds inside it are told apart (lock_rows); where
 * not, a cgroup's row adds up its holds under every lock, and --probe
 * says why: said, never guessed.
 */
/* The present lock scope points, not chosen, and why. */
static void scope_points_not_chosen(struct attach_plan *plan, const char *why)
{
	for (int i = 0; i < plan->n; i++) {
		struct attach_point *pt = &plan->points[i];

		if (pt->role != ROLE_LOCK_SCOPE || !pt->present)
			continue;
		pt->chosen = false;
		snprintf(pt->why, sizeof(pt->why), "present; not chosen: %s", why);
	}
}

#define PER_SUBSYSTEM_LOCKS \
	"one per subsystem and one for the base stats (cgroup_subsys.rstat_ss_lock): "

static void choose_locks(struct attach_plan *plan, const struct btf *btf, bool privileged)
{
	struct attach_point *flush = point_named(plan, "css_rstat_flush");
	const char *refused;

	if (!has_member(btf, "cgroup_subsys", "rstat_ss_lock")) {
		plan->locks = LOCKS_GLOBAL;
		snprintf(plan->locks_why, sizeof(plan->locks_why),
			 "one global lock (cgroup_rstat_lock): every hold is under it");
		return;
	}
	plan->locks = LOCKS_PER_SUBSYSTEM;
	name_locks(plan, btf);
	refused = !flush->present ? "is not in BTF" :
		  !plan->usable || plan->source != SOURCE_TRACEPOINT ?
		  "needs the rstat tracepoints" : !privileged ? "not checked: not root" :
		  !fentry_attaches(btf, flush->name) ? "is refused here" : NULL;
	if (refused) {
		char why[96];

		snprintf(plan->locks_why, sizeof(plan->locks_why),
			 PER_SUBSYSTEM_LOCKS
			 "not told apart, a row adds up its cgroup's holds under each (fentry on %s, "
			 "which would tell them, %s)", flush->name, refused);
		snprintf(why, sizeof(why), "fentry on %s %s", flush->name, refused);
		scope_points_not_chosen(plan, why);
		return;
	}
	plan->lock_rows = true;
	for (int i = 0; i < plan->n; i++) {
		struct attach_point *pt = &plan->points[i];

		if (pt->role != ROLE_LOCK_SCOPE || !pt->present)
			continue;
		if (pt != flush && !fentry_attaches(btf, pt->name)) {
			snprintf(pt->why, sizeof(pt->why), "present; not chosen: fentry is refused "
				 "here, its second hold stays (unknown)");
			continue;
		}
		pt->chosen = true;
		snprintf(pt->why, sizeof(pt->why), "fentry, %s", pt == flush ?
			 "its css->ss names the lock of the holds inside" :
			 "its holds are under the base lock");
	}
	snprintf(plan->locks_why, sizeof(plan->locks_why),
		 PER_SUBSYSTEM_LOCKS
		 "told apart by fentry on %s (css->ss), a row is a cgroup under one lock",
		 flush->name);
}

void plan_lock_rows_off(struct attach_plan *plan)
{
	if (!plan->lock_rows)
		return;	/* not told apart anyway: locks_why says why */
	scope_points_not_chosen(plan, "--lock-rows off (fentry allowed)");
	plan->lock_rows = false;
	snprintf(plan->locks_why, sizeof(plan->locks_why),
		 PER_SUBSYSTEM_LOCKS
		 "not told apart, a row adds up its cgroup's holds under each (--lock-rows off, "
		 "the default; fentry on css_rstat_flush is allowed: --lock-rows on tells them "
		 "apart)");
}

/*
 * What the BPF programs need of the kernel besides their attach points,
 * learnt by asking the kernel (a map created, a few instructions
 * loaded), never from its version: task storage (Linux 5.11) and atomic
 * compare-and-exchange and fetch-and-add (5.12). Without them the object
 * cannot load; the one line says which is missing instead of the
 * verifier's log. Loading needs privileges: unprivileged, not checked.
 */
static bool have_task_storage(void)
{
	return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1;
}

static bool have_atomic_fetch(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_STX | BPF_DW | BPF_MEM, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_0,
		  .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_DW | BPF_ATOMIC, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_1,
		  .off = -8, .imm = BPF_CMPXCHG },
		{ .code = BPF_STX | BPF_DW | BPF_ATOMIC, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_1,
		  .off = -8, .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int prog = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "rsl_atomic", "GPL", insns,
				 sizeof(insns) / sizeof(insns[0]), NULL);

	if (prog >= 0)
		close(prog);
	return prog >= 0;
}

/*
 * Whether bpf(2) itself is refused, whatever the kernel has: a container's
 * default seccomp profile (podman's and docker's allow it only with
 * CAP_SYS_ADMIN), or a capability missing. The oldest program there is.
 */
static bool bpf_refused(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int prog = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "rsl_bpf", "GPL", insns, 2, NULL);

	if (prog >= 0) {
		close(prog);
		return false;
	}
	return errno == EPERM || errno == EACCES;
}

static void check_bpf_features(struct attach_plan *plan)
{
	bool storage = have_task_storage(), atomics = have_atomic_fetch();

	plan->bpf_features = storage && atomics ? FEATURES_YES : FEATURES_NO;
	if (plan->bpf_features == FEATURES_YES)
		return;
	if (bpf_refused()) {
		snprintf(plan->features_why, sizeof(plan->features_why), "%s",
			 "bpf(2) is refused here (EPERM): a seccomp filter (a container's default "
			 "profile), or CAP_BPF and CAP_PERFMON missing");
		unusable(plan, "%s", plan->features_why);
		return;
	}
	snprintf(plan->features_why, sizeof(plan->features_why),
		 "this kernel lacks %s%s%s, which rstatlat's BPF programs need (tested from 6.1)",
		 storage ? "" : "BPF task storage (Linux 5.11)", storage || atomics ? "" : " and ",
		 atomics ? "" : "atomic compare-and-exchange and fetch-and-add (Linux 5.12)");
	unusable(plan, "%s", plan->features_why);
}

/*
 * The helpers the programs call that came after the atomics (5.12): a
 * kernel knows a helper when its enum bpf_func_id, in its BTF, has it. A
 * BTF without the enum (the unit tests' samples) is not checked.
 */
static const struct {
	const char *id, *name, *since;
} helpers_needed[] = {
	{ "BPF_FUNC_loop", "bpf_loop", "5.17" },
	{ "BPF_FUNC_map_lookup_percpu_elem", "bpf_map_lookup_percpu_elem", "5.19" },
};

static bool enum_has(const struct btf *btf, const struct btf_type *t, const char *name)
{
	const struct btf_enum *e = btf_enum(t);

	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, e[i].name_off), name))
			return true;
	return false;
}

static void check_helpers(struct attach_plan *plan, const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "bpf_func_id", BTF_KIND_ENUM);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);
	char lacks[160] = "";
	size_t n = 0;

	for (size_t i = 0; t && i < sizeof(helpers_needed) / sizeof(helpers_needed[0]); i++)
		if (!enum_has(btf, t, helpers_needed[i].id))
			n += (size_t)snprintf(lacks + n, sizeof(lacks) - n, "%s%s (Linux %s)",
					      n ? " and " : "", helpers_needed[i].name,
					      helpers_needed[i].since);
	if (n)
		unusable(plan, "this kernel lacks the BPF helpers %s, which rstatlat's programs "
			 "call (tested from 6.1)", lacks);
}

/* A fresh copy of the table: nothing measured yet. */
static void plan_init(struct attach_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	plan->n = PROBE_NPOINTS;
	plan->usable = true;
	plan->args = plan->cpu_lock_args = no_args;
	for (int i = 0; i < plan->n; i++) {
		plan->points[i].name = point_table[i].name;
		plan->points[i].kind = point_table[i].kind;
		plan->points[i].role = point_table[i].role;
		plan->points[i].args = no_args;
	}
}

static void probe_point(const struct btf *btf, struct attach_point *pt)
{
	if (pt->kind == POINT_TRACEPOINT) {
		probe_tracepoint(btf, pt);
		return;
	}
	pt->present = btf__find_by_name_kind(btf, pt->name, BTF_KIND_FUNC) >= 0;
	snprintf(pt->why, sizeof(pt->why), !pt->present ? "no such function in kernel BTF" :
		 pt->role == ROLE_LOCK_SCOPE ? "present; names the lock of the holds inside it" :
		 "present; used only without rstat tracepoints");
}

int probe_kernel(struct attach_plan *plan, const char *btf_path, enum source_pref pref,
		 enum irqoff_pref irqoff, enum parts_pref parts, bool privileged)
{
	struct btf *btf = btf_path ? btf__parse(btf_path, NULL) : btf__load_vmlinux_btf();
	struct attach_point *gone;
	bool tracepoints;

	plan_init(plan);
	if (!btf)
		return -1;
	/* a BTF file (the unit tests' samples) is another kernel's: what this one loads says nothing of it */
	if (privileged && !btf_path)
		check_bpf_features(plan);
	check_helpers(plan, btf);
	for (int i = 0; i < plan->n; i++)
		probe_point(btf, &plan->points[i]);
	tracepoints = point_named(plan, "cgroup_rstat_locked")->args.cgrp >= 0 &&
		      point_named(plan, "cgroup_rstat_unlock")->args.cgrp >= 0;
	if (pref == PREF_TRACEPOINT && !tracepoints)
		unusable(plan, "%s", "kernel lacks a usable cgroup_rstat_locked/unlock tracepoint "
			 "(they appeared in Linux 6.10; --probe says why)");
	else if (tracepoints && (pref == PREF_AUTO || pref == PREF_TRACEPOINT))
		choose_tracepoints(plan);
	else
		choose_functions(plan, btf, pref, privileged);
	plan->source_name = source_names[plan->source];
	choose_irqoff(plan, btf, irqoff);
	choose_parts(plan, btf, parts);
	/* removed cgroups: told by the kernel, where it can, instead of a stat each */
	gone = point_named(plan, "cgroup_rmdir");
	gone->chosen = plan->cgroups_gone = gone->present;
	choose_locks(plan, btf, privileged);
	btf__free(btf);
	return 0;
}

bool plan_has_cpu_lock(const struct attach_plan *plan)
{
	for (int i = 0; i < plan->n; i++)
		if (plan->points[i].chosen && plan->points[i].role == ROLE_CPU_LOCK)
			return true;
	return false;
}

int irqoff_pref_parse(const char *s, enum irqoff_pref *pref)
{
	static const char *const names[] = {
		"auto", "trace", "lock", "sample", "off", "lock+sample",
	};

	for (int i = 0; i < 6; i++) {
		if (!strcmp(s, names[i])) {
			*pref = (enum irqoff_pref)i;
			return 0;
		}
	}
	return -1;
}

int parts_pref_parse(const char *s, enum parts_pref *pref)
{
	/* on: what 0.1.0 called timed parts */
	static const struct { const char *name; enum parts_pref pref; } names[] = {
		{ "kernel", PARTS_KERNEL }, { "timed", PARTS_TIMED }, { "on", PARTS_TIMED },
		{ "off", PARTS_OFF },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i].name)) {
			*pref = names[i].pref;
			return 0;
		}
	}
	return -1;
}

int source_pref_parse(const char *s, enum source_pref *pref)
{
	static const char *const names[] = { "auto", "tracepoint", "fentry", "kprobe" };

	for (int i = 0; i < 4; i++) {
		if (!strcmp(s, names[i])) {
			*pref = (enum source_pref)i;
			return 0;
		}
	}
	return -1;
}

int probe_sections(enum rsl_source source, const struct attach_point *pt, char sec[2][96])
{
	static const char *const entry[] = {
		[SOURCE_TRACEPOINT] = "tp_btf", [SOURCE_FENTRY] = "fentry", [SOURCE_KPROBE] = "kprobe",
	};
	static const char *const exit_[] = {
		[SOURCE_FENTRY] = "fexit", [SOURCE_KPROBE] = "kretprobe",
	};

	/* the lock scope functions are fentry's whatever serves the lock's events */
	if (pt->role == ROLE_LOCK_SCOPE)
		source = SOURCE_FENTRY;
	if (pt->kind == POINT_TRACEPOINT || source == SOURCE_TRACEPOINT) {
		snprintf(sec[0], 96, "tp_btf/%s", pt->name);
		return 1;
	}
	snprintf(sec[0], 96, "%s/%s", entry[source], pt->name);
	snprintf(sec[1], 96, "%s/%s", exit_[source], pt->name);
	return 2;
}

static struct bpf_program *program_in_section(struct bpf_object *obj, const char *sec)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj)
		if (!strcmp(bpf_program__section_name(prog), sec))
			return prog;
	return NULL;
}

int probe_find_programs(struct bpf_object *obj, enum rsl_source source,
			const struct attach_point *pt, struct bpf_program *progs[2],
			char missing[96])
{
	char sec[2][96];
	int n = probe_sections(source, pt, sec);

	progs[0] = progs[1] = NULL;
	for (int k = 0; k < n; k++) {
		progs[k] = program_in_section(obj, sec[k]);
		if (!progs[k]) {
			memcpy(missing, sec[k], sizeof(sec[k]));
			return -ENOENT;
		}
	}
	return 0;
}

void probe_print(FILE *f, const struct attach_plan *plan)
{
	fprintf(f, "%-42s %-8s %-7s %s\n", "ATTACH POINT", "PRESENT", "CHOSEN", "WHY");
	for (int i = 0; i < plan->n; i++) {
		const struct attach_point *pt = &plan->points[i];
		char name[64];

		snprintf(name, sizeof(name), "%s%s", pt->kind == POINT_FUNCTION ? "function " : "",
			 pt->name);
		fprintf(f, "%-42s %-8s %-7s %s\n", name, pt->present ? "yes" : "no",
			pt->chosen ? "yes" : "no", pt->why);
	}
	if (plan->usable) {
		fprintf(f, "plan: %s, irqs-off from %s\n", plan->source_name, plan->irqoff_source);
		fprintf(f, "holds are irqs-off: %s\n", plan->holds_irqs_off ? "yes (spin_lock_irq)" :
			"no: PREEMPT_RT, spinlock_t is an rt_mutex and spin_lock_irq leaves "
			"interrupts on");
		fprintf(f, "flush parts: %s%s\n", plan->flush_parts ? "yes, " : "no: ",
			plan->parts_why);
		fprintf(f, "flush causes: %s%s\n", plan->flush_causes ? "yes" : "no: ",
			plan->causes_why);
		fprintf(f, "memcg flush decisions: %s\n", plan->memcg_decisions ? "yes" :
			"no: the kernel has no usable memcg:memcg_flush_stats tracepoint");
		fprintf(f, "removed cgroups: %s\n", plan->cgroups_gone ?
			"from cgroup:cgroup_rmdir" : "polled (no usable cgroup:cgroup_rmdir): a "
			"stat of each idle cgroup, less often the longer it lives");
	} else
		fprintf(f, "plan: none: %s\n", plan->missing);
	fprintf(f, "locks: %s\n", plan->locks_why);
	fprintf(f, "lock types: %s\n", plan->lock_types ?
		"yes (the tracepoints' type argument, e.g. read or write: a row per type)" :
		"no: the tracepoints pass none (one kind of lock)");
	fprintf(f, "bpf features: %s%s\n", plan->bpf_features == FEATURES_YES ?
		"yes (task storage, atomic compare-and-exchange and fetch-and-add)" :
		plan->bpf_features == FEATURES_NO ? "no: " : "not checked: loading needs root",
		plan->bpf_features == FEATURES_NO ? plan->features_why : "");
}

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
 * The probe table: every attach point rstatlat knows, what it is for, and
 * the program that serves it. Tracepoints are recognised by their BTF
 * typedef btf_trace_<event>, whose prototype is (void *ctx, args...);
 * functions by their BTF FUNC record.
 */
#define TP(n, r, p) { .name = n, .kind = POINT_TRACEPOINT, .role = r, .prog = p }
#define FN(n, r, p) { .name = n, .kind = POINT_FUNCTION, .role = r, .prog = p }

static struct attach_point points[] = {
	TP("cgroup_rstat_lock_contended", ROLE_CONTENDED, "rstat_contended"),
	TP("cgroup_rstat_locked", ROLE_LOCKED, "rstat_locked"),
	TP("cgroup_rstat_unlock", ROLE_UNLOCK, "rstat_unlock"),
	TP("cgroup_rstat_cpu_lock_contended", ROLE_CPU_LOCK, "rstat_cpu_contended"),
	TP("cgroup_rstat_cpu_locked", ROLE_CPU_LOCK, "rstat_cpu_locked"),
	TP("cgroup_rstat_cpu_unlock", ROLE_CPU_LOCK, "rstat_cpu_unlock"),
	TP("cgroup_rstat_cpu_lock_contended_fastpath", ROLE_CPU_LOCK,
	   "rstat_cpu_contended_fastpath"),
	TP("cgroup_rstat_cpu_locked_fastpath", ROLE_CPU_LOCK, "rstat_cpu_locked_fastpath"),
	TP("cgroup_rstat_cpu_unlock_fastpath", ROLE_CPU_LOCK, "rstat_cpu_unlock_fastpath"),
	TP("irq_disable", ROLE_IRQS, "irqs_off"),
	TP("irq_enable", ROLE_IRQS, "irqs_on"),
	FN("cgroup_rstat_flush_locked", ROLE_FLUSH_LOCKED, "flush_locked"),
	FN("cgroup_rstat_flush", ROLE_FLUSH_OUTER, "cgroup_rstat_flush"),
	FN("cgroup_rstat_flush_irqsafe", ROLE_FLUSH_OUTER, "cgroup_rstat_flush_irqsafe"),
	FN("cgroup_rstat_flush_atomic", ROLE_FLUSH_OUTER, "cgroup_rstat_flush_atomic"),
	FN("cgroup_rstat_flush_hold", ROLE_FLUSH_OUTER, "cgroup_rstat_flush_hold"),
};

#define NPOINTS ((int)(sizeof(points) / sizeof(points[0])))

/* Argument positions by type: exactly one cgroup pointer and one bool. */
struct tp_args {
	int cgrp, cpu, contended;
};

/* What the probe read from each tracepoint's prototype; cgrp -1: unusable. */
static struct tp_args point_args[NPOINTS];

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

static bool read_tp_args(const struct btf *btf, const struct btf_type *proto,
			 struct tp_args *a, char *why, size_t len)
{
	const struct btf_param *p = btf_params(proto);
	int nargs = btf_vlen(proto) - 1;	/* the first is the ctx */

	*a = (struct tp_args){ -1, -1, -1 };
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
	if (a->cpu < 0)
		snprintf(why, len, "tp_btf, args (cgrp@%d, contended@%d), no cpu: flushes "
			 "not delimited", a->cgrp, a->contended);
	else
		snprintf(why, len, "tp_btf, args (cgrp@%d, cpu@%d, contended@%d)", a->cgrp,
			 a->cpu, a->contended);
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

static void probe_tracepoint(const struct btf *btf, struct attach_point *pt,
			     struct tp_args *args)
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
	if (read_tp_args(btf, proto, args, pt->why, sizeof(pt->why)))
		describe_args(args, pt->why, sizeof(pt->why));
	else
		args->cgrp = -1;
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

static const struct tp_args *role_args(enum point_role role)
{
	for (int i = 0; i < NPOINTS; i++)
		if (points[i].role == role)
			return &point_args[i];
	return NULL;
}

/* The global lock's tracepoints; the per-CPU ones ride along when present. */
static void choose_tracepoints(struct attach_plan *plan)
{
	const struct tp_args *locked = role_args(ROLE_LOCKED);

	plan->source = SOURCE_TRACEPOINT;
	plan->arg_cgrp = locked->cgrp;
	plan->arg_cpu = locked->cpu;
	plan->arg_contended = locked->contended;
	for (int i = 0; i < NPOINTS; i++) {
		struct attach_point *pt = &points[i];
		const struct tp_args *a = &point_args[i];

		if (pt->kind != POINT_TRACEPOINT || pt->role == ROLE_IRQS || a->cgrp < 0)
			continue;
		/* one set of argument positions serves all three programs */
		if (pt->role != ROLE_CPU_LOCK && memcmp(a, locked, sizeof(*a))) {
			snprintf(pt->why, sizeof(pt->why), "argument positions differ from "
				 "cgroup_rstat_locked's");
			continue;
		}
		/* the per-CPU programs read (cgrp, cpu, contended) as today */
		if (pt->role == ROLE_CPU_LOCK && (a->cgrp != 0 || a->cpu != 1 || a->contended != 2))
			continue;
		pt->chosen = true;
	}
}

static void choose_functions(struct attach_plan *plan, const struct btf *btf,
			     enum source_pref pref, bool privileged)
{
	struct attach_point *inner = NULL;

	for (int i = 0; i < NPOINTS; i++)
		if (points[i].role == ROLE_FLUSH_LOCKED && points[i].present)
			inner = &points[i];
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
	for (int i = 0; i < NPOINTS; i++) {
		struct attach_point *pt = &points[i];

		if (pt->kind != POINT_FUNCTION || !pt->present)
			continue;
		pt->chosen = true;
		snprintf(pt->why, sizeof(pt->why), "%s, %s", source_names[plan->source],
			 pt->role == ROLE_FLUSH_LOCKED ? "hold = its duration (lock held)" :
			 "flush = its duration, wait = entry to flush_locked");
	}
}

/*
 * Irqs-off: exact from the preemptirq tracepoints when the kernel has them
 * (debug configs), else the holds (spin_lock_irq) plus sampling.
 */
static void choose_irqoff(struct attach_plan *plan, enum irqoff_pref pref)
{
	bool have = true;

	for (int i = 0; i < NPOINTS; i++)
		if (points[i].role == ROLE_IRQS)
			have &= points[i].present;
	plan->irqoff_trace = have && (pref == IRQOFF_AUTO || pref == IRQOFF_TRACE);
	plan->irqoff_lock = pref == IRQOFF_LOCK || (pref == IRQOFF_AUTO && !have);
	plan->irqoff_sample = pref == IRQOFF_SAMPLE || (pref == IRQOFF_AUTO && !have);
	if (pref == IRQOFF_TRACE && !have)
		unusable(plan, "%s", "--irqoff trace needs the preemptirq:irq_disable/irq_enable "
			 "tracepoints (CONFIG_PREEMPTIRQ_TRACEPOINTS)");
	plan->irqoff_source = plan->irqoff_trace ? "trace" :
			      plan->irqoff_lock && plan->irqoff_sample ? "lock+sample" :
			      plan->irqoff_lock ? "lock" : plan->irqoff_sample ? "sample" : "off";
	for (int i = 0; i < NPOINTS; i++) {
		if (points[i].role != ROLE_IRQS || !points[i].present)
			continue;
		points[i].chosen = plan->irqoff_trace;
		snprintf(points[i].why, sizeof(points[i].why), "%s", plan->irqoff_trace ?
			 "tp_btf, args (ip, parent_ip): exact irqs-off intervals" :
			 "present; not chosen (--irqoff)");
	}
}

int probe_kernel(struct attach_plan *plan, const char *btf_path, enum source_pref pref,
		 enum irqoff_pref irqoff, bool privileged)
{
	struct btf *btf = btf_path ? btf__parse(btf_path, NULL) : btf__load_vmlinux_btf();
	bool tracepoints;

	memset(plan, 0, sizeof(*plan));
	if (!btf)
		return -1;
	plan->points = points;
	plan->n = NPOINTS;
	plan->usable = true;
	for (int i = 0; i < NPOINTS; i++) {
		struct attach_point *pt = &points[i];

		pt->present = pt->chosen = false;
		pt->why[0] = '\0';
		point_args[i] = (struct tp_args){ -1, -1, -1 };
		if (pt->kind == POINT_TRACEPOINT) {
			probe_tracepoint(btf, pt, &point_args[i]);
		} else {
			pt->present = btf__find_by_name_kind(btf, pt->name, BTF_KIND_FUNC) >= 0;
			snprintf(pt->why, sizeof(pt->why), pt->present ?
				 "present; used only without rstat tracepoints" :
				 "no such function in kernel BTF");
		}
	}
	tracepoints = role_args(ROLE_LOCKED)->cgrp >= 0 && role_args(ROLE_UNLOCK)->cgrp >= 0;
	if (pref == PREF_TRACEPOINT && !tracepoints)
		unusable(plan, "%s", "kernel lacks a usable cgroup_rstat_locked/unlock tracepoint "
			 "(they appeared in Linux 6.10; --probe says why)");
	else if (tracepoints && (pref == PREF_AUTO || pref == PREF_TRACEPOINT))
		choose_tracepoints(plan);
	else
		choose_functions(plan, btf, pref, privileged);
	plan->source_name = source_names[plan->source];
	choose_irqoff(plan, irqoff);
	btf__free(btf);
	return 0;
}

int irqoff_pref_parse(const char *s, enum irqoff_pref *pref)
{
	static const char *const names[] = { "auto", "trace", "lock", "sample", "off" };

	for (int i = 0; i < 5; i++) {
		if (!strcmp(s, names[i])) {
			*pref = (enum irqoff_pref)i;
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

void probe_programs(const struct attach_plan *plan, const struct attach_point *pt,
		    char names[2][64])
{
	static const char *const entry[] = { [SOURCE_FENTRY] = "fentry", [SOURCE_KPROBE] = "kprobe" };
	static const char *const exit_[] = { [SOURCE_FENTRY] = "fexit", [SOURCE_KPROBE] = "kretprobe" };

	names[0][0] = names[1][0] = '\0';
	if (!pt->prog)
		return;
	if (pt->kind == POINT_TRACEPOINT) {
		snprintf(names[0], 64, "%s", pt->prog);
		return;
	}
	if (plan->source == SOURCE_TRACEPOINT)
		return;
	snprintf(names[0], 64, "%s_%s", entry[plan->source], pt->prog);
	snprintf(names[1], 64, "%s_%s", exit_[plan->source], pt->prog);
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
	if (plan->usable)
		fprintf(f, "plan: %s, irqs-off from %s\n", plan->source_name, plan->irqoff_source);
	else
		fprintf(f, "plan: none: %s\n", plan->missing);
}

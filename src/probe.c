// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "probe.h"

/*
 * The probe table. Each tracepoint is recognised by its BTF typedef
 * btf_trace_<event>, whose prototype is (void *ctx, args...).
 */
static struct attach_point points[] = {
	{ .event = "cgroup_rstat_lock_contended", .prog = "rstat_contended", .required = false },
	{ .event = "cgroup_rstat_locked", .prog = "rstat_locked", .required = true },
	{ .event = "cgroup_rstat_unlock", .prog = "rstat_unlock", .required = true },
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

/*
 * The programs read (struct cgroup *cgrp, int cpu, bool contended) by
 * position; any other prototype would make them read garbage.
 */
static bool proto_is_cgrp_cpu_contended(const struct btf *btf, const struct btf_type *proto,
					char *why, size_t len)
{
	const struct btf_param *p = btf_params(proto);
	const struct btf_type *cg;

	if (btf_vlen(proto) != 4) {
		snprintf(why, len, "prototype has %u arguments, expected (cgrp, cpu, contended)",
			 btf_vlen(proto) - 1);
		return false;
	}
	cg = resolve(btf, p[1].type);
	cg = cg && btf_is_ptr(cg) ? resolve(btf, cg->type) : NULL;
	if (!cg || !btf_is_struct(cg) || !is_named(btf, cg, "cgroup") ||
	    !is_named(btf, resolve(btf, p[2].type), "int") ||
	    !is_named(btf, resolve(btf, p[3].type), "_Bool")) {
		snprintf(why, len, "argument types differ from (struct cgroup *, int, bool)");
		return false;
	}
	return true;
}

static void probe_point(const struct btf *btf, struct attach_point *pt)
{
	char tname[64];
	const struct btf_type *t;
	int id;

	snprintf(tname, sizeof(tname), "btf_trace_%s", pt->event);
	id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	if (id < 0) {
		snprintf(pt->why, sizeof(pt->why), "no %s in kernel BTF", tname);
		return;
	}
	pt->present = true;
	t = resolve(btf, id);
	t = t && btf_is_ptr(t) ? resolve(btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t)) {
		snprintf(pt->why, sizeof(pt->why), "%s is not a function pointer", tname);
		return;
	}
	if (!proto_is_cgrp_cpu_contended(btf, t, pt->why, sizeof(pt->why)))
		return;
	pt->chosen = true;
	snprintf(pt->why, sizeof(pt->why), "tp_btf, args (cgrp, cpu, contended)");
}

int probe_kernel(struct attach_plan *plan, const char *btf_path)
{
	struct btf *btf = btf_path ? btf__parse(btf_path, NULL) : btf__load_vmlinux_btf();
	size_t i;

	memset(plan, 0, sizeof(*plan));
	if (!btf)
		return -1;
	plan->points = points;
	plan->n = sizeof(points) / sizeof(points[0]);
	plan->usable = true;
	for (i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		struct attach_point *pt = &points[i];

		pt->present = pt->chosen = false;
		probe_point(btf, pt);
		if (pt->required && !pt->chosen && plan->usable) {
			plan->usable = false;
			snprintf(plan->missing, sizeof(plan->missing),
				 "kernel lacks a usable %s tracepoint (%s); rstat tracepoints "
				 "appeared in Linux 6.10", pt->event, pt->why);
		}
	}
	plan->source = "tracepoint";
	btf__free(btf);
	return 0;
}

void probe_print(FILE *f, const struct attach_plan *plan)
{
	fprintf(f, "%-32s %-8s %-7s %s\n", "ATTACH POINT", "PRESENT", "CHOSEN", "WHY");
	for (int i = 0; i < plan->n; i++) {
		const struct attach_point *pt = &plan->points[i];

		fprintf(f, "%-32s %-8s %-7s %s\n", pt->event, pt->present ? "yes" : "no",
			pt->chosen ? "yes" : "no", pt->why);
	}
}

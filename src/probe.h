/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers, decided from its BTF, never from its
 * version: the only place that knows kernel differences.
 */
#ifndef RSTATLAT_PROBE_H
#define RSTATLAT_PROBE_H

#include <stdbool.h>
#include <stdio.h>

struct attach_point {
	const char *event;	/* tracepoint name */
	const char *prog;	/* BPF program that handles it */
	bool required;		/* the plan is unusable without it */
	bool present;		/* its btf_trace_ typedef is in BTF */
	bool chosen;
	char why[200];
};

struct attach_plan {
	struct attach_point *points;
	int n;
	bool usable;
	const char *source;	/* what the report says produced it */
	char missing[256];	/* one line for the user when !usable */
};

/* Returns 0 (see plan->usable), or -1 when BTF cannot be read. */
int probe_kernel(struct attach_plan *plan, const char *btf_path);
void probe_print(FILE *f, const struct attach_plan *plan);

#endif

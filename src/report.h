/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report: one in-memory model of everything rstatlat prints. collect.c
 * fills it from BPF maps; table.c and json.c render it and know nothing
 * about BPF.
 */
#ifndef RSTATLAT_REPORT_H
#define RSTATLAT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "rstatlat.h"

/* One latency distribution, in ns. */
struct dist {
	uint64_t count;
	uint64_t sum;
	uint64_t max;
	uint64_t buckets[HIST_BUCKETS];
};

/*
 * A row: one flushed cgroup, or with -p one (flushing process, flushed
 * cgroup) pair. Strings are owned by the row and are raw kernel text:
 * views escape them.
 */
struct row {
	uint64_t cgid;
	uint32_t hierarchy;
	uint32_t tgid;		/* process rows only */
	char *path;		/* "/a/b" for v2, "memory:/a/b" for v1 */
	char *own_cgroup;	/* process rows: the flusher's v2 cgroup */
	char comm[RSL_COMM_LEN];	/* process rows */
	uint64_t locked;
	uint64_t contended;
	struct dist hold;
	struct dist wait;
	uint32_t top_tgid;	/* flusher with most acquisitions */
	char top_comm[RSL_COMM_LEN];
	uint64_t top_locked;	/* its acquisitions, when known (-p) */
};

enum report_type { REPORT_INTERVAL, REPORT_SUMMARY };

struct kernel_info {
	char release[65];
	int cpus_possible;
	int cpus_online;
};

struct report {
	enum report_type type;
	struct kernel_info kernel;
	uint64_t start_ns;	/* CLOCK_REALTIME at the window start */
	uint64_t duration_ns;
	const char *attach;	/* what the probe chose, e.g. "tracepoint" */
	bool per_process;
	struct row *cgroups;
	size_t ncgroups;
	struct row *processes;
	size_t nprocesses;
	uint64_t lost[LOST_MAX];
};

extern const char *const lost_names[LOST_MAX];

void dist_add_value(struct dist *d, uint64_t v);
void dist_merge(struct dist *into, const struct dist *from);
/*
 * Nearest-rank quantile, estimated as its bucket's midpoint, <= max.
 * count must equal the sum of the buckets.
 */
uint64_t dist_quantile(const struct dist *d, double q);
/* Several quantiles at once; qs must be ascending. */
void dist_quantiles(const struct dist *d, const double *qs, int n, uint64_t *out);

struct row *report_add_row(struct row **rows, size_t *n, size_t *cap);
void row_merge(struct row *into, const struct row *from);
void report_free(struct report *r);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A row's figures, described once: each distribution and each counter
 * with its name in JSON, Prometheus and compare. The fold, the row merge,
 * JSON out and in, the Prometheus families and compare's metrics loop over
 * these tables instead of naming fields, so that a figure added here (with
 * its BPF side, its enum entry in rstatlat.h, its line in rstatlat(8) and a
 * test) shows in all of them. The terminal table is a chosen few columns
 * (table.c). Words as in docs/glossary.md.
 */
#ifndef RSTATLAT_METRICS_H
#define RSTATLAT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "rstatlat.h"

/* How compare turns a figure into a metric (rstatlat(8), SIGNIFICANCE). */
enum metric_kind {
	MK_COUNT,	/* a count: shown, not tested (depends on the duration) */
	MK_RATE,	/* a count per second */
	MK_SHARE,	/* a count over another (contended / locked) */
	MK_QUANTILE,
	MK_MAX,
	MK_PER_VALUE,	/* a count per value of a distribution (holds per flush) */
	MK_PART,	/* a flush part's mean per flush, ns */
	MK_MEAN,	/* a distribution's mean (flush.mean: wall time per flush) */
	MK_MODE,	/* the power of two [lo, 2 lo) holding most values: shown, not tested */
};

struct dist_def {
	const char *name;	/* compare's metrics ("hold.p99") and histograms */
	const char *json;	/* key in a row ("hold_ns"); NULL: system-wide */
	/*
	 * Files may lack it: written before it was added, or not measured
	 * (irqs-off). Then so may the counters listed after it.
	 */
	bool json_optional;
	const char *prom;	/* histogram family of the rows; NULL: system-wide */
	const char *prom_help;
	const char *prom_count;	/* counter family of its values, or NULL */
	const char *prom_count_help;
};

extern const struct dist_def dist_defs[DIST_MAX];
/* A row's distributions in the order JSON and compare list them. */
extern const enum dist_id dist_shown[DIST_ROW_MAX];

/* A metric compare derives from a counter. */
struct count_metric {
	const char *name;	/* as gates and compare's tables spell it: "locked.rate" */
	enum metric_kind kind;	/* MK_COUNT, MK_RATE, MK_SHARE or MK_PER_VALUE */
};

struct count_def {
	const char *json;	/* key in a row */
	bool json_optional;	/* files written before it was added lack it: read as 0 */
	/* JSON and compare list it after this distribution; -1: before them all */
	int after;
	/* MK_SHARE: the counter it is a share of, or else of per's values */
	int of;
	int per;		/* MK_PER_VALUE, MK_SHARE without of: this distribution's values */
	/* measured only with this flush part (report_count_measured); -1: always */
	int part;
	const char *prom;	/* counter family; NULL: not exported (maxima never are) */
	const char *prom_help;
	struct count_metric compare[2];	/* name NULL: none (more) */
};

extern const struct count_def count_defs[COUNT_MAX];

/* The counters not measured without these flush parts (1 << PART_*): 1 << COUNT_* each. */
unsigned int counts_unmeasured_without(unsigned int parts_measured);

/* Counter k of one part (a CPU, an interval, a run) merged into the whole's. */
static inline void count_merge(int k, uint64_t *into, uint64_t from)
{
	if (k >= COUNT_SUMS)
		*into = from > *into ? from : *into;	/* a maximum */
	else
		*into = *into > UINT64_MAX - from ? UINT64_MAX : *into + from;	/* saturates */
}

#endif

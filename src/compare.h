/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare: two reports (BEFORE, AFTER) -> one comparison model with a
 * verdict per metric and row, and the results of the gates. Views of the
 * comparison live in compare_view.c.
 */
#ifndef RSTATLAT_COMPARE_H
#define RSTATLAT_COMPARE_H

#include <stdbool.h>
#include <stdio.h>
#include "report.h"

/*
 * compare's metrics, built from the tables of metrics.h: the counters'
 * (count_defs[].compare) and four of each distribution (p50, p90, p99,
 * max), in the order JSON lists the figures; a flush's parts after the
 * flush distribution; the system-wide distributions last.
 */
struct metric_def {
	char name[32];		/* as gates spell it: "hold.p99" */
	char label[32];		/* as tables show it: "hold p99" */
	enum metric_kind kind;
	enum dist_id dist;	/* MK_QUANTILE, MK_MAX; per its values: MK_PER_VALUE, MK_PART */
	enum count_id count;	/* MK_COUNT, MK_RATE, MK_SHARE, MK_PER_VALUE */
	int of;			/* MK_SHARE: the counter it is a share of; -1: of dist's values */
	double q;
	enum flush_part part;	/* MK_PART */
};

#define METRICS_MAX (2 * COUNT_MAX + 4 * DIST_MAX + PART_MAX)
extern const struct metric_def *const metrics;
extern int nmetrics;		/* built before main (compare.c) */

enum verdict {
	V_NA,		/* no data on one side */
	V_TOO_FEW,	/* too few values to test */
	V_SAME,		/* no significant difference */
	V_NOISE,	/* significant, but within the noise floor */
	V_HIGHER,
	V_LOWER,
};

extern const char *const verdict_names[];

struct cell {
	bool has_before, has_after;
	double before, after;	/* ns, fraction, locked or locked/s */
	double ratio;		/* after / before; INFINITY when before is 0 */
	enum verdict verdict;
};

enum presence { BOTH, ONLY_BEFORE, ONLY_AFTER };

struct cmp_row {
	const struct row *before, *after;	/* NULL when absent on that side */
	bool total;
	bool cpu_lock;		/* the per-CPU lock, system-wide (6.10-6.16) */
	bool process;		/* a -p row: a flusher (by comm) of a cgroup */
	char *label;		/* process rows: "comm on /path" */
	char *lock_label;	/* rows of a cgroup under one lock: "/path [memory]" */
	enum presence presence;
	struct cell cells[METRICS_MAX];
	double worst;		/* largest significant regression ratio, or 1 */
	int worst_metric;	/* -1: none */
};

struct gate {
	char *text;		/* as given, for messages */
	int metric;
	bool above;		/* '>' (else '<') */
	bool relative;
	double limit;		/* relative: fraction (+0.2); absolute: metric units */
};

/* Fail closed: a crossing the data cannot confirm is inconclusive, not a pass. */
enum gate_outcome { G_PASS, G_FAIL, G_INCONCLUSIVE, G_NA };

struct gate_result {
	const struct gate *gate;
	const struct cmp_row *row;
	enum gate_outcome outcome;
	double value;		/* ratio (relative) or AFTER's value (absolute) */
	const char *why;	/* an inconclusive check that crossed nothing: why; else NULL */
};

/* The command's cgroups' rows of each run, whatever their names, pair under this. */
#define COMMAND_LABEL "(command)"
#define COMMAND_LABELS_MAX (2 * COMMAND_CGROUPS_MAX)
/* ... and their rows: one per lock where the locks are told apart */
#define COMMAND_ROWS_MAX (COMMAND_LABELS_MAX * LOCK_IDS_MAX)

/* At most this many files (replicated runs) per side. */
#define MAX_RUNS 64

struct side {
	const char *file;	/* the first file */
	const struct report *r;	/* the runs pooled; with one run, that run */
	const struct report *runs;	/* each run, for the between-run test */
	size_t nruns;
	size_t summaries, intervals;
	const char *irqoff_source;	/* "lock" when the holds stand for irqs-off (as --irqoff lock) */
};

struct comparison {
	struct side before, after;
	double alpha;		/* per test */
	double gate_alpha;	/* alpha / gate checks (Bonferroni) */
	double noise;		/* noise floor, fraction */
	struct row total_before, total_after;
	struct cmp_row total;
	/* the per-CPU lock as a row, when both sides measured it */
	struct row cpu_lock_before, cpu_lock_after;
	struct cmp_row cpu_lock;
	bool has_cpu_lock;
	struct cmp_row *rows;	/* sorted, worst regression first */
	size_t nrows;
	struct cmp_row *prows;	/* -p rows, paired by cgroup and comm, sorted; not gated */
	size_t nprows;
	struct gate_result *results;
	size_t nresults;
	size_t failed, inconclusive;
	/*
	 * Every run ran a command (-- COMMAND): its cgroups' rows, relabelled
	 * COMMAND_LABEL, are what the gates check unless a cgroup is given
	 * (compare_command_rows). command_absent stands for them in a check
	 * when no run flushed them.
	 */
	const char *gated_cgroup;	/* compare_build's cgroup, or NULL */
	char *command_rows[COMMAND_LABELS_MAX];
	size_t ncommand_rows;
	struct cmp_row command_absent;
	/* replicated runs: each run's rows indexed, and its total */
	struct run_rows {
		struct row_index *ix;
		struct row *totals;
		struct row *cpu_locks;
		struct row_index *pix;
	} runs[2];		/* [0] before, [1] after */
};

/* A side's command: its first run's (a pool keeps none). */
static inline const struct command_info *side_command(const struct side *s)
{
	return s->runs ? &s->runs[0].command : &s->r->command;
}

/* Whether both sides have 2 or more runs: then changes are tested between runs. */
bool compare_replicated(const struct comparison *c);
/*
 * What the reader of a comparison without replicated runs must know: the
 * tests see the values of one run, not how runs of one workload differ.
 * NULL with 2 or more runs a side.
 */
const char *compare_one_run_note(const struct comparison *c);

/* Whether a view shows metric i on row: system-wide ones on the total, when measured. */
bool metric_shown(const struct cmp_row *row, int i);
/* The index of a metric named s, or -1. */
int metric_find(const char *s);
/*
 * Parses "hold.p99>+20%" (relative) or "irqoff.max>5ms" (absolute). Returns
 * 0, or -1 with a one-line reason in err.
 */
int gate_parse(const char *s, struct gate *g, char *err, size_t errlen);

/*
 * Builds the comparison and evaluates the gates on the total and every
 * cgroup present on both sides, or only on the row whose path is cgroup.
 * Returns 0, -1 when cgroup is not on both sides (err says so) or -2 when
 * out of memory.
 */
int compare_build(struct comparison *c, const struct gate *gates, size_t ngates,
		  const char *cgroup, char *err, size_t errlen);
void compare_free(struct comparison *c);
/*
 * Renames the rows of r's command cgroups (and of cgroups below them) to
 * COMMAND_LABEL ("memory:(command)" in a v1 hierarchy), so that the runs of
 * one command pair whatever cgroup names they had. Returns 0 or -1 (out of
 * memory).
 */
int compare_relabel_command(struct report *r);
/*
 * Before compare_build, when every run of both sides ran a command: the
 * gates check the command's rows (by default, without a cgroup). Returns
 * 0 or -1 (out of memory).
 */
int compare_command_rows(struct comparison *c, const struct command_info *const *cmds,
			 size_t n);

const char *row_label(const struct cmp_row *r);
/* "fail" when a check failed, else "inconclusive" when one was, else "pass". */
const char *compare_result(const struct comparison *c);

enum cmp_format { FMT_TEXT, FMT_MD, FMT_JSON, FMT_HTML };
/* rows: cgroups shown (0 = all); histograms: side-by-side log2 histograms (text). */
void compare_print(FILE *f, const struct comparison *c, enum cmp_format fmt, size_t rows,
		   bool histograms);

#endif

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
 * max), in the order JSON lists the figures; the flush's mean and parts
 * after the flush distribution; the system-wide distributions last.
 */
struct metric_def {
	char name[32];		/* as gates, tables and JSON spell it: "hold.p99" */
	enum metric_kind kind;
	enum dist_id dist;	/* MK_QUANTILE, MK_MAX, MK_MEAN; per its values: MK_PER_VALUE, MK_PART */
	enum count_id count;	/* MK_COUNT, MK_RATE, MK_SHARE, MK_PER_VALUE */
	int of;			/* MK_SHARE: the counter it is a share of; -1: of dist's values */
	double q;
	enum flush_part part;	/* MK_PART */
	/*
	 * A figure of the workload (report.workload), on the total: counts
	 * are its count[wl] (MK_SHARE: over count[wl_of]), rates per second
	 * of its wall time.
	 */
	bool workload;
	enum workload_count wl, wl_of;
};

#define WORKLOAD_METRICS 6
#define METRICS_MAX (2 * COUNT_MAX + 4 * DIST_MAX + 1 + PART_MAX + WORKLOAD_METRICS)
extern const struct metric_def *const metrics;
extern int nmetrics; /* built before main (compare_metric.c) */

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
	/* a check without two values to weigh (inconclusive or n/a): why; else NULL */
	const char *why;
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
	const char *const *files;	/* every run's file, nruns of them */
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
	const struct cmp_row *gated_row;	/* its row */
	char *command_rows[COMMAND_LABELS_MAX];
	size_t ncommand_rows;
	struct cmp_row command_absent;
	/* what the views show (compare_shows_row, compare_shows_metric); gates see all */
	struct selection {
		const char *const *rows;	/* globs of row labels; none: every row */
		size_t nrows;
		const char *const *metrics;	/* globs of metric names; none: every metric */
		size_t nmetrics;
	} shown;
	const char *title;	/* the user's, for the page and the heading; NULL: none */
	const char *const *notes;	/* the user's notes, after compare's own */
	size_t nnotes;
	/* replicated runs: each run's rows indexed, and its total */
	struct run_rows {
		struct row_index *ix;
		struct row *totals;
		struct row *cpu_locks;
		struct row_index *pix;
	} runs[2];		/* [0] before, [1] after */
};

/* The file of a side's run k: the first is file; NULL past the last. */
static inline const char *side_file(const struct side *s, size_t k)
{
	if (s->files && k < s->nruns)
		return s->files[k];
	return k ? NULL : s->file;
}

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
/* Whether the user asked for metric i (--metric), or for every one. */
bool compare_metric_asked(const struct comparison *c, int i);
/* metric_shown, and asked for (--metric) */
bool compare_shows_metric(const struct comparison *c, const struct cmp_row *row, int i);
/*
 * Whether the views show a cgroup's row: the one gated with -c, those
 * --rows names, or (with neither) every row. The total is always shown.
 */
bool compare_shows_row(const struct comparison *c, const struct cmp_row *row);
/*
 * The flush split of a row (docs/flushes.md): the wall time per flush and
 * each part's mean, BEFORE and AFTER, and each part's share of the change
 * of the wall time. False when a side has no flushes with parts.
 */
bool compare_split(const struct cmp_row *row, int *wall_metric);
/*
 * compare_split, and a view shows it: the wall time or a part asked for
 * (--metric). The metrics table then leaves the mean and the parts to it.
 */
bool compare_shows_split(const struct comparison *c, const struct cmp_row *row, int *wall_metric);
/* A flush part's change over the wall time's: its share of the delta, or NAN. */
double split_delta_share(const struct cmp_row *row, int part_metric, int wall_metric);
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
 * --pair BEFORE=AFTER: the BEFORE side's rows whose path matches the glob
 * before and the AFTER side's that match after, each side's added up,
 * are one row labelled "before=after" (or before, when both are the
 * same). Splits spec in place of its '='. Returns 0 or -1 with a reason.
 */
struct pair_spec {
	char *before, *after;	/* globs (fnmatch) of cgroup paths as in the JSON */
	char *label;
	const char *text;	/* as given */
};
int pair_parse(const char *s, struct pair_spec *p, char *err, size_t errlen);
void pair_free(struct pair_spec *p);
/*
 * Relabels r's rows (cgroups and -p rows) that a pair's glob of side (0
 * BEFORE, 1 AFTER) matches, each by the first pair that does, then adds
 * up rows the relabelling made alike; matched[k] counts the cgroup rows
 * pair k took. Returns 0 or -1 (out of memory).
 */
int compare_relabel_pairs(struct report *r, const struct pair_spec *p, size_t n, int side,
			  size_t *matched);

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

enum cmp_format { FMT_TEXT, FMT_MD, FMT_JSON, FMT_HTML, FMT_MAIL };
/* rows: cgroups shown (0 = all); histograms: side-by-side log2 histograms (text). */
void compare_print(FILE *f, const struct comparison *c, enum cmp_format fmt, size_t rows,
		   bool histograms);
/*
 * Comparisons of n pairs of files as plain text within MAIL_COLUMNS
 * columns, their columns side by side (compare_mail.c): what a kernel
 * developer pastes into a reply.
 */
#define MAIL_COLUMNS 80
void compare_mail_print(FILE *f, const struct comparison *const *cs, size_t n, size_t rows);

#endif

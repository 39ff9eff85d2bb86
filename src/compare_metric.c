// SPDX-License-Identifier: GPL-2.0
/*
 * compare's metrics: the table built from metrics.h's, which of them a
 * comparison shows, and each one's value on a row of a report.
 */
#include <fnmatch.h>
#include <math.h>
#include <string.h>
#include "compare_int.h"

static struct metric_def metric_table[METRICS_MAX];
const struct metric_def *const metrics = metric_table;
int nmetrics;

static struct metric_def *metric_new(const char *name, enum metric_kind kind)
{
	struct metric_def *m = &metric_table[nmetrics++];

	snprintf(m->name, sizeof(m->name), "%s", name);
	m->kind = kind;
	m->of = -1;
	return m;
}

static void dist_metrics(enum dist_id d)
{
	static const struct { const char *suffix; enum metric_kind kind; double q; } of[] = {
		{ "p50", MK_QUANTILE, 0.50 }, { "p90", MK_QUANTILE, 0.90 },
		{ "p99", MK_QUANTILE, 0.99 }, { "max", MK_MAX, 1.0 },
	};

	for (size_t i = 0; i < sizeof(of) / sizeof(of[0]); i++) {
		char name[32];
		struct metric_def *m;

		snprintf(name, sizeof(name), "%s.%s", dist_defs[d].name, of[i].suffix);
		m = metric_new(name, of[i].kind);
		m->dist = d;
		m->q = of[i].q;
	}
}

/* The metrics of the counters JSON lists after distribution after (-1: first). */
static void count_metrics(int after)
{
	for (int k = 0; k < COUNT_MAX; k++) {
		const struct count_def *cd = &count_defs[k];

		for (size_t i = 0; cd->after == after && i < 2 && cd->compare[i].name; i++) {
			struct metric_def *m = metric_new(cd->compare[i].name, cd->compare[i].kind);

			m->count = (enum count_id)k;
			m->of = cd->of;
			if (cd->per >= 0)
				m->dist = (enum dist_id)cd->per;
		}
	}
}

/* flush.mean's place among the metrics (the split's first line), set as they are made */
static int flush_mean_metric;

/* where a flush's time goes, ns per flush (docs/flushes.md): the mean, then its parts */
static void part_metrics(void)
{
	flush_mean_metric = nmetrics;
	metric_new("flush.mean", MK_MEAN)->dist = DIST_FLUSH;
	for (int k = 0; k < PART_MAX; k++) {
		char name[32];
		struct metric_def *m;

		snprintf(name, sizeof(name), "flush.%s", part_names[k]);
		m = metric_new(name, MK_PART);
		m->dist = DIST_FLUSH;
		m->part = (enum flush_part)k;
	}
}

static void workload_count_metric(const char *name, enum metric_kind kind, enum workload_count k,
				  enum workload_count of)
{
	struct metric_def *m = metric_new(name, kind);

	m->workload = true;
	m->wl = k;
	m->wl_of = of;
}

/* rstatlat load's figures (docs/load.md), on the total: each count beside its distribution. */
static void workload_metrics(void)
{
	workload_count_metric("workload.reads", MK_COUNT, WL_READS, WL_READS);
	workload_count_metric("workload.reads.rate", MK_RATE, WL_READS, WL_READS);
	dist_metrics(DIST_READ);
	/* 0efc297a's own figure: the latency bucket most reads fell in, by powers of two */
	metric_new("workload.read.mode", MK_MODE)->dist = DIST_READ;
	workload_count_metric("workload.rounds.late", MK_SHARE, WL_ROUNDS_LATE, WL_ROUNDS);
	dist_metrics(DIST_ROUND);
	workload_count_metric("workload.oom_kills", MK_COUNT, WL_OOM_KILLS, WL_OOM_KILLS);
	workload_count_metric("workload.oom_kills.rate", MK_RATE, WL_OOM_KILLS, WL_OOM_KILLS);
}

/* Before main: gates are parsed from the command line. */
__attribute__((constructor)) static void metrics_build(void)
{
	count_metrics(-1);
	for (int i = 0; i < DIST_ROW_MAX; i++) {
		dist_metrics(dist_shown[i]);
		count_metrics(dist_shown[i]);
		if (dist_shown[i] == DIST_FLUSH)
			part_metrics();
	}
	/* system-wide, on the total: irqs-off outside rstat (trace), tick lateness (sample) */
	dist_metrics(DIST_OUTSIDE);
	dist_metrics(DIST_LATE);
	workload_metrics();
}

const char *const verdict_names[] = {
	[V_NA] = "n/a",
	[V_TOO_FEW] = "too_few",
	[V_SAME] = "same",
	[V_NOISE] = "noise",
	[V_HIGHER] = "higher",
	[V_LOWER] = "lower",
};

/* Whether a metric is made of a counter that files may lack (count_def.json_optional). */
static bool optional_count(const struct metric_def *m)
{
	if (m->workload)
		return false;
	switch (m->kind) {
	case MK_COUNT:
	case MK_RATE:
	case MK_SHARE:
	case MK_PER_VALUE:
		return count_defs[m->count].json_optional;
	default:
		return false;
	}
}

/*
 * irqoff_outside.*, tick_late.* and the workload's: measured for the whole
 * system, on the total only.
 */
bool system_metric(const struct metric_def *m)
{
	return m->workload || ((m->kind == MK_QUANTILE || m->kind == MK_MAX || m->kind == MK_MODE) &&
			       m->dist >= DIST_ROW_MAX);
}

bool metric_shown(const struct cmp_row *row, int i)
{
	const struct cell *c = &row->cells[i];

	/* a part or an optional counter neither side measured is left out */
	if (metrics[i].kind == MK_PART || optional_count(&metrics[i]))
		return c->has_before || c->has_after;
	if (!system_metric(&metrics[i]))
		return true;
	return row->total && (c->has_before || c->has_after);
}

static bool matches_any(const char *const *globs, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!fnmatch(globs[i], s, 0))
			return true;
	return false;
}

bool compare_metric_asked(const struct comparison *c, int i)
{
	return !c->shown.nmetrics || matches_any(c->shown.metrics, c->shown.nmetrics,
						 metrics[i].name);
}

bool compare_shows_metric(const struct comparison *c, const struct cmp_row *row, int i)
{
	return metric_shown(row, i) && compare_metric_asked(c, i);
}

bool compare_shows_row(const struct comparison *c, const struct cmp_row *row)
{
	/* a -p row goes with its cgroup's */
	const char *path = row->process ? row_path(row) : row_label(row);

	if (row->total || row->cpu_lock)
		return true;
	if (c->gated_row && (row == c->gated_row ||
			     (row->process && !strcmp(path, row_path(c->gated_row)))))
		return true;
	if (c->shown.nrows)
		return matches_any(c->shown.rows, c->shown.nrows, path);
	return !c->gated_row;
}

bool compare_split(const struct cmp_row *row, int *wall_metric)
{
	int wall = flush_mean_metric;
	bool parts = false;

	for (int i = 0; i < nmetrics; i++)
		parts = parts || (metrics[i].kind == MK_PART && row->cells[i].has_before &&
				  row->cells[i].has_after);
	*wall_metric = wall;
	return parts && row->cells[wall].has_before && row->cells[wall].has_after;
}

bool compare_shows_split(const struct comparison *c, const struct cmp_row *row, int *wall_metric)
{
	bool asked;

	if (!compare_split(row, wall_metric))
		return false;
	asked = compare_metric_asked(c, *wall_metric);
	for (int i = 0; i < nmetrics && !asked; i++)
		asked = metrics[i].kind == MK_PART && compare_shows_metric(c, row, i);
	return asked;
}

double split_delta_share(const struct cmp_row *row, int part_metric, int wall_metric)
{
	const struct cell *p = &row->cells[part_metric], *w = &row->cells[wall_metric];
	double delta = w->after - w->before;

	if (!p->has_before || !p->has_after || delta == 0)
		return NAN;
	/* an unchanged part is 0% of the change, not -0% */
	return p->after == p->before ? 0 : (p->after - p->before) / delta;
}

int metric_find(const char *s)
{
	/* the old spellings, from before "locked" was the one word for it */
	if (!strcmp(s, "events"))
		s = "locked";
	else if (!strcmp(s, "events.rate"))
		s = "locked.rate";
	for (int i = 0; i < nmetrics; i++)
		if (!strcmp(s, metrics[i].name))
			return i;
	return -1;
}

/* A row's distribution k; irqs-off as the report has them, or NULL. */
const struct dist *dist_of(const struct report *r, const struct row *row, enum dist_id k)
{
	switch (k) {
	case DIST_OUTSIDE:
		/* build_total()'s rows, and only they, have no path */
		return !row->path && r->irqoff.trace ? &r->irqoff.outside : NULL;
	case DIST_LATE:
		return !row->path && r->irqoff.sample ? &r->irqoff.late : NULL;
	case DIST_READ:
		return !row->path && r->workload.present ? &r->workload.read : NULL;
	case DIST_ROUND:
		return !row->path && (r->workload.measured & (1U << WL_ROUNDS)) ?
		       &r->workload.round : NULL;
	case DIST_IRQOFF:
		return row_irqoff(r, row);
	default:
		return k < DIST_ROW_MAX ? &row->dist[k] : NULL;
	}
}

/* The window a rate is over: the run's, or the workload's wall time. */
double metric_seconds(const struct metric_def *m, const struct report *r)
{
	return (double)(m->workload ? r->workload.wall_ns : r->duration_ns) / 1e9;
}

/*
 * A row's counter of metric m (the workload's: r's), and what it is taken
 * over: a share's whole, a mean's values.
 */
uint64_t metric_numerator(const struct metric_def *m, const struct report *r, const struct row *row)
{
	return m->workload ? r->workload.count[m->wl] : row->count[m->count];
}

uint64_t metric_denominator(const struct metric_def *m, const struct report *r,
			    const struct row *row)
{
	if (m->workload)
		return r->workload.count[m->wl_of];
	if (m->kind == MK_SHARE && m->of >= 0)
		return row->count[m->of];
	return row->dist[m->dist].count;	/* per value: MK_PER_VALUE, MK_PART, a share of them */
}

/* Whether a workload figure is r's: the total's, of a workload that has that count. */
static bool workload_measured(const struct metric_def *m, const struct report *r,
			      const struct row *row)
{
	unsigned int need = 1U << m->wl | 1U << m->wl_of;

	return !row->path && r->workload.present && (r->workload.measured & need) == need;
}

/* Whether a report measured the counter a metric is made of. */
bool count_measured(const struct metric_def *m, const struct report *r)
{
	if (m->workload)
		return r->workload.present;
	switch (m->kind) {
	case MK_COUNT:
	case MK_RATE:
	case MK_SHARE:
	case MK_PER_VALUE:
		return report_count_measured(r, m->count);
	default:
		return true;
	}
}

/* The metric's value for one side; false when that side has no data. */
bool metric_value(const struct metric_def *m, const struct row *row, const struct report *r,
		  double *v)
{
	const struct dist *d;
	uint64_t whole;
	double secs;

	if (!row || !count_measured(m, r) || (m->workload && !workload_measured(m, r, row)))
		return false;
	switch (m->kind) {
	case MK_COUNT: *v = (double)metric_numerator(m, r, row); return true;
	case MK_RATE:
		secs = metric_seconds(m, r);
		*v = secs > 0 ? (double)metric_numerator(m, r, row) / secs : 0;
		return secs > 0;
	case MK_SHARE:
	case MK_PER_VALUE:
		whole = metric_denominator(m, r, row);
		*v = whole ? (double)metric_numerator(m, r, row) / (double)whole : 0;
		return whole > 0;
	case MK_QUANTILE:
	case MK_MAX:
		d = dist_of(r, row, m->dist);
		if (!d)
			return false;
		*v = m->kind == MK_MAX ? (double)d->max : (double)dist_quantile(d, m->q);
		return d->count > 0;
	case MK_PART:
		whole = metric_denominator(m, r, row);
		*v = whole ? (double)row->part[m->part] / (double)whole : 0;
		return report_part_measured(r, m->part) && whole > 0;
	case MK_MEAN:
		d = dist_of(r, row, m->dist);
		*v = d && d->count ? (double)d->sum / (double)d->count : 0;
		return d && d->count > 0;
	case MK_MODE:
		d = dist_of(r, row, m->dist);
		*v = d ? (double)dist_mode_octave(d) : 0;
		return d && d->count > 0;
	}
	return false;
}

/*
 * Whether part k means the same on both sides: measured on each, and for
 * other, the same parts measured (other holds what a side did not split
 * out: irq with kernel parts, self in older files).
 */
bool parts_comparable(const struct report *a, const struct report *b, int k)
{
	return report_part_measured(a, k) && report_part_measured(b, k) &&
	       (k != PART_OTHER || a->parts_measured == b->parts_measured);
}

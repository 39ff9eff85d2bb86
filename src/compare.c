// SPDX-License-Identifier: GPL-2.0
/*
 * compare: match the cgroups of two reports, give every metric a verdict
 * from a significance test on the histograms, and evaluate the gates.
 * Which test serves which metric, and why, is in rstatlat(8), SIGNIFICANCE.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "fmt.h"
#include "stats.h"

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
static bool system_metric(const struct metric_def *m)
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

static const char *row_path(const struct cmp_row *r);

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
static const struct dist *dist_of(const struct report *r, const struct row *row,
				  enum dist_id k)
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
static double seconds(const struct metric_def *m, const struct report *r)
{
	return (double)(m->workload ? r->workload.wall_ns : r->duration_ns) / 1e9;
}

/*
 * A row's counter of metric m (the workload's: r's), and what it is taken
 * over: a share's whole, a mean's values.
 */
static uint64_t numerator(const struct metric_def *m, const struct report *r,
			  const struct row *row)
{
	return m->workload ? r->workload.count[m->wl] : row->count[m->count];
}

static uint64_t denominator(const struct metric_def *m, const struct report *r,
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
static bool count_measured(const struct metric_def *m, const struct report *r)
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
static bool metric_value(const struct metric_def *m, const struct row *row,
			 const struct report *r, double *v)
{
	const struct dist *d;
	uint64_t whole;

	if (!row || !count_measured(m, r) || (m->workload && !workload_measured(m, r, row)))
		return false;
	switch (m->kind) {
	case MK_COUNT:
		*v = (double)numerator(m, r, row);
		return true;
	case MK_RATE:
		*v = seconds(m, r) > 0 ? (double)numerator(m, r, row) / seconds(m, r) : 0;
		return seconds(m, r) > 0;
	case MK_SHARE:
	case MK_PER_VALUE:
		whole = denominator(m, r, row);
		*v = whole ? (double)numerator(m, r, row) / (double)whole : 0;
		return whole > 0;
	case MK_QUANTILE:
	case MK_MAX:
		d = dist_of(r, row, m->dist);
		if (!d)
			return false;
		*v = m->kind == MK_MAX ? (double)d->max : (double)dist_quantile(d, m->q);
		return d->count > 0;
	case MK_PART:
		whole = denominator(m, r, row);
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
static bool parts_comparable(const struct report *a, const struct report *b, int k)
{
	return report_part_measured(a, k) && report_part_measured(b, k) &&
	       (k != PART_OTHER || a->parts_measured == b->parts_measured);
}

/*
 * Holds per flush: the holds as events over the flushes as exposure, the
 * rate test of locked/s with flushes for seconds. (A flush takes a fixed
 * number of holds on a given kernel and machine; what moves it is the
 * kernel, which is what a gate on it asks about.)
 */
static double per_value_p(const struct metric_def *m, const struct comparison *c,
			  const struct row *b, const struct row *a)
{
	const struct report *rb = c->before.r, *ra = c->after.r;

	return poisson_rate_p(numerator(m, rb, b), (double)denominator(m, rb, b),
			      numerator(m, ra, a), (double)denominator(m, ra, a));
}

/* A rate per second: counts as events over the window as exposure. */
static double rate_p(const struct metric_def *m, const struct comparison *c, const struct row *b,
		     const struct row *a)
{
	return poisson_rate_p(numerator(m, c->before.r, b), seconds(m, c->before.r),
			      numerator(m, c->after.r, a), seconds(m, c->after.r));
}

/* A share: two proportions, its count out of its whole on each side. */
static double share_p(const struct metric_def *m, const struct comparison *c,
		      const struct row *b, const struct row *a)
{
	const struct report *rb = c->before.r, *ra = c->after.r;

	return two_proportion_p(numerator(m, rb, b), denominator(m, rb, b), numerator(m, ra, a),
				denominator(m, ra, a));
}

/*
 * A mean per flush: the wall time's, or a part's. A part of a flush lies
 * between 0 and its wall time, so the flush histogram bounds its variance
 * (part_var_bound): a conservative normal test, from one run a side.
 */
static double mean_p(const struct metric_def *m, const struct comparison *c,
		     const struct row *b, const struct row *a)
{
	const struct dist *db = dist_of(c->before.r, b, DIST_FLUSH);
	const struct dist *da = dist_of(c->after.r, a, DIST_FLUSH);
	double sb, sa;

	if (!db || !da || !db->count || !da->count)
		return -1;
	sb = m->kind == MK_PART ? (double)b->part[m->part] : (double)db->sum;
	sa = m->kind == MK_PART ? (double)a->part[m->part] : (double)da->sum;
	return mean_diff_p(db->count, sb / (double)db->count, part_var_bound(db, sb),
			   da->count, sa / (double)da->count, part_var_bound(da, sa));
}

static enum verdict by_p(double p, double alpha)
{
	if (p < 0)
		return V_TOO_FEW;
	return p < alpha ? V_HIGHER : V_SAME;	/* direction set by the caller */
}

/*
 * Quantiles, one-sided: is AFTER's q-quantile higher (or lower) than
 * BEFORE's at level alpha? Higher when AFTER's lower bound lies above
 * BEFORE's upper bound (order-statistic ranks, exact binomial). Each side
 * needs only the bound facing the other: a large change shows from few
 * values, a small one still needs many.
 */
enum shift { SHIFT_YES, SHIFT_NO, SHIFT_UNTESTABLE };

static enum shift quantile_shift(const struct dist *b, const struct dist *a, double q,
				 double alpha, bool higher)
{
	uint64_t av, bv;

	if (higher) {
		if (!quantile_lower_bound(a, q, alpha, &av) || !quantile_upper_bound(b, q, alpha, &bv))
			return SHIFT_UNTESTABLE;
		return av > bv ? SHIFT_YES : SHIFT_NO;
	}
	if (!quantile_upper_bound(a, q, alpha, &av) || !quantile_lower_bound(b, q, alpha, &bv))
		return SHIFT_UNTESTABLE;
	return av < bv ? SHIFT_YES : SHIFT_NO;
}

/* The verdict: two-sided at alpha, i.e. one-sided at alpha / 2 in the direction seen. */
static enum verdict quantile_test(const struct dist *b, const struct dist *a, double q,
				  double alpha)
{
	uint64_t qb = dist_quantile(b, q), qa = dist_quantile(a, q);
	enum shift s;

	if (qa == qb)
		return V_SAME;
	s = quantile_shift(b, a, q, alpha / 2, qa > qb);
	if (s == SHIFT_UNTESTABLE)
		return V_TOO_FEW;
	if (s == SHIFT_NO)
		return V_SAME;
	return qa > qb ? V_HIGHER : V_LOWER;
}

/*
 * Maxima: a max is one value and has no interval. Instead: how likely is
 * it, if both sides drew from one distribution, that the k largest values
 * all came from one side? (Exact, by counting; see top_k_p.)
 */
static enum verdict max_test(const struct dist *b, const struct dist *a, double alpha)
{
	if (top_k_p(a->count, b->count, a->count) >= alpha &&
	    top_k_p(b->count, a->count, b->count) >= alpha)
		return V_TOO_FEW;
	if (top_k_p(a->count, b->count, count_above_max(a, b)) < alpha)
		return V_HIGHER;
	if (top_k_p(b->count, a->count, count_above_max(b, a)) < alpha)
		return V_LOWER;
	return V_SAME;
}

static enum verdict test_metric(const struct metric_def *m, const struct row *b,
				const struct row *a, const struct comparison *c, double alpha)
{
	const struct dist *db = dist_of(c->before.r, b, m->dist);
	const struct dist *da = dist_of(c->after.r, a, m->dist);

	switch (m->kind) {
	case MK_COUNT:
	case MK_MODE:
		return V_NA;
	case MK_PART:
	case MK_MEAN:
		return by_p(mean_p(m, c, b, a), alpha);
	case MK_PER_VALUE:
		return by_p(per_value_p(m, c, b, a), alpha);
	case MK_RATE:
		return by_p(rate_p(m, c, b, a), alpha);
	case MK_SHARE:
		if (!numerator(m, c->before.r, b) && !numerator(m, c->after.r, a))
			return V_SAME;
		return by_p(share_p(m, c, b, a), alpha);
	case MK_QUANTILE:
		return db && da ? quantile_test(db, da, m->q, alpha) : V_NA;
	case MK_MAX:
		return db && da ? max_test(db, da, alpha) : V_NA;
	}
	return V_NA;
}

static double ratio(double before, double after)
{
	if (before == 0)
		return after == 0 ? 1 : INFINITY;
	return after / before;
}

bool compare_replicated(const struct comparison *c)
{
	return c->before.nruns >= 2 && c->after.nruns >= 2;
}

const char *compare_one_run_note(const struct comparison *c)
{
	return compare_replicated(c) ? NULL :
	       "one run a side: run-to-run spread unseen; use --before/--after, 3+ each";
}

/*
 * Each run's value of metric m on the row (its total, or the run's row of
 * the same cgroup), on a log scale except for shares: run-level state
 * multiplies latencies and rates.
 */
static size_t run_values(const struct comparison *c, int side, const struct cmp_row *row,
			 const struct metric_def *m, double *out)
{
	const struct side *s = side ? &c->after : &c->before;
	const struct run_rows *rr = &c->runs[side];
	const struct row *key = side ? row->after : row->before;
	size_t n = 0;

	for (size_t i = 0; key && i < s->nruns; i++) {
		const struct row *run_row = row->total ? &rr->totals[i] :
					    row->cpu_lock ? &rr->cpu_locks[i] : NULL;
		double v;

		if (row->cpu_lock && !s->runs[i].cpu_lock.present)
			continue;
		if (row->process) {
			long at = row_index_find(&rr->pix[i], s->runs[i].processes, key);

			run_row = at >= 0 ? &s->runs[i].processes[at] : NULL;
		} else if (!row->total && !row->cpu_lock) {
			long at = row_index_find(&rr->ix[i], s->runs[i].cgroups, key);

			run_row = at >= 0 ? &s->runs[i].cgroups[at] : NULL;
		}
		if (run_row && metric_value(m, run_row, &s->runs[i], &v))
			out[n++] = m->kind == MK_SHARE ? v : log1p(v);
	}
	return n;
}

/* One-sided p that AFTER's runs sit higher (or lower) than BEFORE's; -1: too few runs. */
static double between_runs_p(const struct comparison *c, const struct cmp_row *row, int mi,
			     bool higher)
{
	double b[MAX_RUNS], a[MAX_RUNS];
	size_t nb = run_values(c, 0, row, &metrics[mi], b);
	size_t na = run_values(c, 1, row, &metrics[mi], a);

	/*
	 * Per-run quantiles are bucket estimates, 1/16 of an octave apart:
	 * the variance a run value has at least (uniform over a bucket, logs).
	 */
	double grain = metrics[mi].kind == MK_QUANTILE || metrics[mi].kind == MK_MAX ?
		       log1p(1.0 / 16) * log1p(1.0 / 16) / 12 : 0;

	return higher ? welch_greater_p(b, nb, a, na, grain) : welch_greater_p(a, na, b, nb, grain);
}

static enum verdict verdict_at(const struct comparison *c, const struct cmp_row *row,
			       int mi, double alpha)
{
	const struct cell *cell = &row->cells[mi];
	enum verdict v;
	double p;

	if (!cell->has_before || !cell->has_after)
		return V_NA;
	if (compare_replicated(c) && metrics[mi].kind != MK_COUNT && metrics[mi].kind != MK_MODE) {
		if (cell->ratio == 1)
			return V_SAME;
		p = between_runs_p(c, row, mi, cell->ratio > 1);
		v = p < 0 ? V_TOO_FEW : p < alpha / 2 ? V_HIGHER : V_SAME;
	} else {
		v = test_metric(&metrics[mi], row->before, row->after, c, alpha);
	}
	if (v != V_HIGHER && v != V_LOWER)
		return v;
	if (cell->ratio == 1)
		return V_SAME;
	if (fabs(cell->ratio - 1) <= c->noise)
		return V_NOISE;
	return cell->ratio > 1 ? V_HIGHER : V_LOWER;
}

static void fill_row(const struct comparison *c, struct cmp_row *row)
{
	row->worst = 1;
	row->worst_metric = -1;
	for (int i = 0; i < nmetrics; i++) {
		struct cell *cell = &row->cells[i];

		cell->has_before = metric_value(&metrics[i], row->before, c->before.r,
						&cell->before);
		cell->has_after = metric_value(&metrics[i], row->after, c->after.r, &cell->after);
		cell->ratio = ratio(cell->before, cell->after);
		cell->verdict = verdict_at(c, row, i, c->alpha);
		/* a part of another meaning on each side is shown, not tested */
		if (metrics[i].kind == MK_PART &&
		    !parts_comparable(c->before.r, c->after.r, metrics[i].part))
			cell->verdict = V_NA;
		/* more acquisitions is not a regression; everything else is */
		if (metrics[i].kind == MK_COUNT || metrics[i].kind == MK_RATE ||
		    metrics[i].kind == MK_PER_VALUE || metrics[i].kind == MK_PART ||
		    metrics[i].kind == MK_MODE)
			continue;
		if (cell->verdict == V_HIGHER && cell->ratio > row->worst) {
			row->worst = cell->ratio;
			row->worst_metric = i;
		}
	}
}

/* The row's cgroup, without its lock. */
static const char *row_path(const struct cmp_row *r)
{
	const struct row *src = r->after ? r->after : r->before;

	return src->path && src->path[0] ? src->path : "(unknown path)";
}

const char *row_label(const struct cmp_row *r)
{
	if (r->total)
		return "total";
	if (r->label)
		return r->label;
	if (r->lock_label)
		return r->lock_label;
	return row_path(r);
}

/*
 * Rows that are a cgroup under one lock (report.lock_rows) say which:
 * "/a [memory]", and their lock type (lock_types): "/a [memory read]".
 */
static int label_locks(struct comparison *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		struct cmp_row *r = &c->rows[i];
		const struct row *src = r->after ? r->after : r->before;

		if ((src->lock[0] || src->lock_type[0]) &&
		    asprintf(&r->lock_label, "%s [%s%s%s]", row_path(r), src->lock,
			     src->lock[0] && src->lock_type[0] ? " " : "", src->lock_type) < 0) {
			r->lock_label = NULL;
			return -1;
		}
	}
	return 0;
}

static int by_regression(const void *pa, const void *pb)
{
	const struct cmp_row *a = pa, *b = pb;

	if (a->presence != b->presence)
		return (int)a->presence - (int)b->presence;
	if (a->worst != b->worst)
		return a->worst > b->worst ? -1 : 1;
	return strcmp(row_label(a), row_label(b));
}

/* The rows added up; *overflow: the first sum that passed 2^64-1 (saturated there). */
static int build_total(const struct report *r, struct row *total, const char **overflow)
{
	memset(total, 0, sizeof(*total));
	for (size_t i = 0; i < r->ncgroups; i++) {
		if (overflow && !*overflow)
			*overflow = row_merge_overflows(total, &r->cgroups[i]);
		if (row_merge(total, &r->cgroups[i]))
			return -1;
	}
	return 0;
}

/*
 * Pairs every row of AFTER with the BEFORE row of the same identity (NULL:
 * the cgroup by path), then adds BEFORE's unpaired rows: into *out.
 */
static int pair_rows(const struct row *b, size_t nb, const struct row *a, size_t na,
		     const struct row_identity *id, struct cmp_row **out, size_t *nout)
{
	struct row_index ix = { .identity = id };
	bool *paired = calloc(nb + 1, sizeof(*paired));
	size_t n = 0;
	int ret = -1;

	*out = calloc(na + nb + 1, sizeof(**out));
	if (!paired || !*out)
		goto done;
	for (size_t j = 0; j < nb; j++)
		if (row_index_add(&ix, b, j))
			goto done;
	for (size_t i = 0; i < na; i++) {
		long j = row_index_find(&ix, b, &a[i]);
		struct cmp_row *r = &(*out)[n++];

		r->after = &a[i];
		r->presence = ONLY_AFTER;
		if (j >= 0 && !paired[j]) {
			paired[j] = true;
			r->before = &b[j];
			r->presence = BOTH;
		}
	}
	for (size_t j = 0; j < nb; j++) {
		if (paired[j])
			continue;
		(*out)[n].before = &b[j];
		(*out)[n++].presence = ONLY_BEFORE;
	}
	ret = 0;
done:
	*nout = n;
	row_index_free(&ix);
	free(paired);
	return ret;
}

/*
 * Gates fail closed. A check whose observed value does not cross its limit
 * passes. One that crosses fails when a one-sided test at the gate's level
 * confirms it, and is inconclusive when the data cannot: never a silent
 * pass of a regression that was seen.
 */
static bool crosses(const struct gate *g, double v)
{
	return g->above ? v > g->limit : v < g->limit;
}

/* One-sided normal bounds of a share or a rate of AFTER; false when too few. */
static bool after_bounds(const struct metric_def *m, const struct comparison *c,
			 const struct row *a, double v, double *lo, double *hi)
{
	const struct report *r = c->after.r;
	double z = z_two_sided(2 * c->gate_alpha), n = (double)numerator(m, r, a);

	if (m->kind == MK_PER_VALUE) {
		double values = (double)denominator(m, r, a);

		if (numerator(m, r, a) < 5 || !values)
			return false;
		*lo = (n - z * sqrt(n)) / values;
		*hi = (n + z * sqrt(n)) / values;
		return true;
	}
	if (m->kind == MK_SHARE) {
		double whole = (double)denominator(m, r, a);

		if (whole * fmin(v, 1 - v) < 5)
			return false;
		*lo = v - z * sqrt(v * (1 - v) / whole);
		*hi = v + z * sqrt(v * (1 - v) / whole);
		return true;
	}
	if (numerator(m, r, a) < 5)
		return false;
	*lo = (n - z * sqrt(n)) / seconds(m, r);
	*hi = (n + z * sqrt(n)) / seconds(m, r);
	return true;
}

/* "comm on /path" for a -p row (every paired row has a side). */
static char *flusher_label(const struct row *r)
{
	if (!r)
		return NULL;
	const char *path = r->path && r->path[0] ? r->path : "(unknown path)";
	size_t len = strlen(r->comm) + strlen(path) + 5;
	char *s = malloc(len);

	if (s)
		snprintf(s, len, "%s on %s", r->comm, path);
	return s;
}

/* The -p rows of both sides, paired by cgroup and comm (pids differ between runs). */
static int match_processes(struct comparison *c)
{
	const struct report *b = c->before.r, *a = c->after.r;

	if (pair_rows(b->processes, b->nprocesses, a->processes, a->nprocesses, &row_by_flusher,
		      &c->prows, &c->nprows))
		return -1;
	for (size_t i = 0; i < c->nprows; i++) {
		struct cmp_row *r = &c->prows[i];

		r->process = true;
		r->label = flusher_label(r->after ? r->after : r->before);
		if (!r->label)
			return -1;
	}
	return 0;
}

/* Absolute gates: is AFTER's value beyond the limit, with confidence? */
static enum gate_outcome absolute_gate(const struct gate *g, const struct comparison *c,
				       const struct cmp_row *row, double *value)
{
	const struct metric_def *m = &metrics[g->metric];
	const struct dist *d = dist_of(c->after.r, row->after, m->dist);
	double v = row->cells[g->metric].after, lo, hi;
	uint64_t bound;

	*value = v;
	if (!crosses(g, v))
		return G_PASS;
	switch (m->kind) {
	case MK_MAX:
	case MK_PART:
	case MK_MEAN:
		/* a maximum is a measured event, a mean one of every flush: not estimates */
		return G_FAIL;
	case MK_QUANTILE:
		if (!d)
			return G_INCONCLUSIVE;
		if (g->above)
			return quantile_lower_bound(d, m->q, c->gate_alpha, &bound) &&
			       (double)bound > g->limit ? G_FAIL : G_INCONCLUSIVE;
		return quantile_upper_bound(d, m->q, c->gate_alpha, &bound) &&
		       (double)bound < g->limit ? G_FAIL : G_INCONCLUSIVE;
	case MK_SHARE:
	case MK_RATE:
	case MK_PER_VALUE:
		if (!after_bounds(m, c, row->after, v, &lo, &hi))
			return G_INCONCLUSIVE;
		return (g->above ? lo > g->limit : hi < g->limit) ? G_FAIL : G_INCONCLUSIVE;
	default:
		return G_NA;
	}
}

/* Whether a one-sided test at the gate's level finds AFTER moved in the gate's direction. */
static bool shift_confirmed(const struct gate *g, const struct comparison *c,
			    const struct cmp_row *row)
{
	const struct metric_def *m = &metrics[g->metric];
	const struct dist *db = dist_of(c->before.r, row->before, m->dist);
	const struct dist *da = dist_of(c->after.r, row->after, m->dist);
	const struct row *b = row->before, *a = row->after;
	double p;

	if (compare_replicated(c)) {
		p = between_runs_p(c, row, g->metric, g->above);
		return p >= 0 && p < c->gate_alpha;
	}
	switch (m->kind) {
	case MK_QUANTILE:
		return db && da && quantile_shift(db, da, m->q, c->gate_alpha, g->above) == SHIFT_YES;
	case MK_MAX:
		return db && da && max_test(db, da, c->gate_alpha) == (g->above ? V_HIGHER : V_LOWER);
	case MK_RATE:
		p = rate_p(m, c, b, a);
		break;
	case MK_SHARE:
		p = share_p(m, c, b, a);
		break;
	case MK_PER_VALUE:
		p = per_value_p(m, c, b, a);
		break;
	case MK_PART:
	case MK_MEAN:
		p = mean_p(m, c, b, a);
		break;
	default:
		return false;
	}
	/* the observed change is in the gate's direction: half the two-sided p */
	return p >= 0 && p / 2 < c->gate_alpha;
}

/* Relative gates: a change beyond the limit (and the noise floor), confirmed. */
static enum gate_outcome relative_gate(const struct gate *g, const struct comparison *c,
				       const struct cmp_row *row, double *value)
{
	const struct cell *cell = &row->cells[g->metric];
	double change = cell->ratio - 1;

	*value = cell->ratio;
	if (!crosses(g, change) || fabs(change) <= c->noise)
		return G_PASS;
	return shift_confirmed(g, c, row) ? G_FAIL : G_INCONCLUSIVE;
}

static bool system_wide(const struct gate *g)
{
	return system_metric(&metrics[g->metric]);
}

/* Whether a side did not measure the counter a gate's metric is made of. */
static bool count_unmeasured(const struct comparison *c, const struct gate *g)
{
	return !count_measured(&metrics[g->metric], c->before.r) ||
	       !count_measured(&metrics[g->metric], c->after.r);
}

/* Whether a side did not measure what the gate asks: system-wide figures, flush parts. */
static bool unmeasured(const struct comparison *c, const struct gate *g)
{
	int part = metrics[g->metric].part;

	if (metrics[g->metric].kind == MK_PART)
		return !parts_comparable(c->before.r, c->after.r, part);
	return system_wide(g) || count_unmeasured(c, g);
}

/*
 * Why a check has no two values to weigh: the side that did not measure
 * the figure, or has none of it; NULL when both have one.
 */
static const char *missing_value(const struct comparison *c, const struct gate *g,
				 const struct cell *cell)
{
	const struct metric_def *m = &metrics[g->metric];
	bool before = c->before.r->flush_parts, after = c->after.r->flush_parts;

	if (m->kind == MK_PART) {
		if (!before || !after)
			return !before && !after ? "no flush parts on either side" :
			       !before ? "no flush parts in BEFORE" : "no flush parts in AFTER";
		if (!parts_comparable(c->before.r, c->after.r, m->part))
			return m->part == PART_OTHER ? "other holds different parts on each side" :
			       "this part is not measured on both sides";
	}
	if (system_wide(g) && (!cell->has_before || !cell->has_after))
		return "not measured on both sides (a system-wide figure)";
	if (count_unmeasured(c, g))
		return !count_measured(m, c->before.r) ? "not measured in BEFORE" :
		       "not measured in AFTER";
	if (!cell->has_before || !cell->has_after)
		return !cell->has_before && !cell->has_after ? "no values on either side" :
		       !cell->has_before ? "no values in BEFORE" : "no values in AFTER";
	return NULL;
}

static void run_gate(struct comparison *c, const struct gate *g, const struct cmp_row *row)
{
	struct gate_result *res = &c->results[c->nresults++];
	const struct cell *cell = &row->cells[g->metric];

	res->gate = g;
	res->row = row;
	res->why = missing_value(c, g, cell);
	if (res->why)
		/* a figure a side did not measure (or not alike): asked, and not answerable */
		res->outcome = unmeasured(c, g) ? G_INCONCLUSIVE : G_NA;
	else if (g->relative)
		res->outcome = relative_gate(g, c, row, &res->value);
	else
		res->outcome = absolute_gate(g, c, row, &res->value);
	c->failed += res->outcome == G_FAIL;
	c->inconclusive += res->outcome == G_INCONCLUSIVE;
}

/*
 * The command's rows (every run ran one): a check of a row one side lacks,
 * or of none at all when no run flushed them, is inconclusive. A regression
 * may be what made the row appear or vanish.
 */
static void run_command_gate(struct comparison *c, const struct gate *g,
			     const struct cmp_row *const *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (rows[i]->presence == BOTH) {
			run_gate(c, g, rows[i]);
			continue;
		}
		c->results[c->nresults++] = (struct gate_result){
			.gate = g, .row = rows[i], .outcome = G_INCONCLUSIVE,
			.why = rows[i]->presence == ONLY_AFTER ? "no lock events in BEFORE" :
			       "no lock events in AFTER",
		};
		c->inconclusive++;
	}
	if (n)
		return;
	c->results[c->nresults++] = (struct gate_result){
		.gate = g, .row = &c->command_absent, .outcome = G_INCONCLUSIVE,
		.why = "no run has lock events of the command's cgroups (gate another with --cgroup)",
	};
	c->inconclusive++;
}

/* The rows of the command's cgroups that either side has. */
static size_t command_rows(const struct comparison *c, const struct cmp_row **out)
{
	size_t n = 0;

	for (size_t k = 0; k < c->ncommand_rows; k++)
		for (size_t i = 0; i < c->nrows && n < COMMAND_ROWS_MAX; i++)
			if (!c->rows[i].total && !strcmp(row_path(&c->rows[i]), c->command_rows[k]))
				out[n++] = &c->rows[i];
	return n;
}

static int run_gates(struct comparison *c, const struct gate *gates, size_t ngates,
		     const struct cmp_row *only, char *err, size_t errlen)
{
	const struct cmp_row *cmd[COMMAND_ROWS_MAX];
	size_t nrows = 0, ncmd = 0, checks;
	bool by_command = !only && c->ncommand_rows;

	if (only && only->presence != BOTH) {
		snprintf(err, errlen, "cgroup %s is only in %s", row_label(only),
			 only->presence == ONLY_BEFORE ? "BEFORE" : "AFTER");
		return -1;
	}
	for (size_t i = 0; i < c->nrows; i++)
		nrows += c->rows[i].presence == BOTH;
	if (by_command) {
		ncmd = command_rows(c, cmd);
		nrows = ncmd ? ncmd : 1;
	} else {
		nrows = only ? 1 : nrows + 1 + c->has_cpu_lock;
	}
	checks = 0;
	for (size_t g = 0; g < ngates; g++)
		checks += system_wide(&gates[g]) ? 1 : nrows;
	/* Bonferroni: every check runs at alpha / checks */
	c->gate_alpha = c->alpha / (double)(checks > 0 ? checks : 1);
	c->results = calloc(checks + 1, sizeof(*c->results));
	if (!c->results)
		return -2;
	for (size_t g = 0; g < ngates; g++) {
		if (system_wide(&gates[g])) {
			run_gate(c, &gates[g], &c->total);	/* whatever the scope */
			continue;
		}
		if (only) {
			run_gate(c, &gates[g], only);
			continue;
		}
		if (by_command) {
			run_command_gate(c, &gates[g], cmd, ncmd);
			continue;
		}
		run_gate(c, &gates[g], &c->total);
		if (c->has_cpu_lock)
			run_gate(c, &gates[g], &c->cpu_lock);
		for (size_t i = 0; i < c->nrows; i++)
			if (c->rows[i].presence == BOTH)
				run_gate(c, &gates[g], &c->rows[i]);
	}
	return 0;
}

/* The per-CPU lock as a row: the same metrics then apply to it. */
static int lock_row(const struct report *r, struct row *out)
{
	memset(out, 0, sizeof(*out));
	if (!r->cpu_lock.present)
		return 0;
	out->path = strdup("(per-CPU lock)");
	out->count[COUNT_LOCKED] = r->cpu_lock.locked;
	out->count[COUNT_CONTENDED] = r->cpu_lock.contended;
	return !out->path || dist_copy(&out->dist[DIST_HOLD], &r->cpu_lock.hold) ||
	       dist_copy(&out->dist[DIST_WAIT], &r->cpu_lock.wait) ? -1 : 0;
}

/* Each run's rows by cgroup, its total and per-CPU lock, for the between-run test. */
static int index_runs(const struct side *s, struct run_rows *rr)
{
	if (s->nruns < 2)
		return 0;
	rr->ix = calloc(s->nruns, sizeof(*rr->ix));
	rr->totals = calloc(s->nruns, sizeof(*rr->totals));
	rr->cpu_locks = calloc(s->nruns, sizeof(*rr->cpu_locks));
	rr->pix = calloc(s->nruns, sizeof(*rr->pix));
	if (!rr->ix || !rr->totals || !rr->cpu_locks || !rr->pix)
		return -1;
	for (size_t i = 0; i < s->nruns; i++) {
		if (build_total(&s->runs[i], &rr->totals[i], NULL) ||
		    lock_row(&s->runs[i], &rr->cpu_locks[i]))
			return -1;
		rr->pix[i].identity = &row_by_flusher;
		for (size_t j = 0; j < s->runs[i].nprocesses; j++)
			if (row_index_add(&rr->pix[i], s->runs[i].processes, j))
				return -1;
		for (size_t j = 0; j < s->runs[i].ncgroups; j++)
			if (row_index_add(&rr->ix[i], s->runs[i].cgroups, j))
				return -1;
	}
	return 0;
}

static void free_runs(const struct side *s, struct run_rows *rr)
{
	for (size_t i = 0; i < s->nruns; i++) {
		if (rr->ix)
			row_index_free(&rr->ix[i]);
		if (rr->totals)
			row_free(&rr->totals[i]);
		if (rr->cpu_locks)
			row_free(&rr->cpu_locks[i]);
		if (rr->pix)
			row_index_free(&rr->pix[i]);
	}
	free(rr->pix);
	rr->pix = NULL;
	free(rr->ix);
	free(rr->totals);
	free(rr->cpu_locks);
	rr->ix = NULL;
	rr->totals = NULL;
	rr->cpu_locks = NULL;
}

/*
 * The row -c names: by its label ("/a", or "/a [memory]" under one lock),
 * or by its cgroup where that has one row; *several when it has a row per
 * lock and the lock was not named.
 */
static const struct cmp_row *find_row(const struct comparison *c, const char *path,
				      bool *several)
{
	const struct cmp_row *found = NULL;

	*several = false;
	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(row_label(&c->rows[i]), path))
			return &c->rows[i];
	for (size_t i = 0; i < c->nrows; i++) {
		if (strcmp(row_path(&c->rows[i]), path))
			continue;
		if (found) {
			*several = true;
			return NULL;
		}
		found = &c->rows[i];
	}
	return found;
}

/* "(command)" for "/rstatlat-41", "memory:(command)" for "memory:/rstatlat-41". */
static int command_label(char *buf, size_t len, const char *path, const char *rest)
{
	const char *colon = strchr(path, ':'), *slash = strchr(path, '/');
	int prefix = colon && (!slash || colon < slash) ? (int)(colon - path) + 1 : 0;
	int n = snprintf(buf, len, "%.*s" COMMAND_LABEL "%s", prefix, path, rest);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The '=' between the two globs: the first one that a path (or "ctrl:/") follows. */
static const char *pair_split(const char *s)
{
	for (const char *eq = strchr(s, '='); eq; eq = strchr(eq + 1, '=')) {
		const char *rest = eq + 1;

		if (*rest == '/' || *rest == '*')
			return eq;
		rest += strspn(rest, "abcdefghijklmnopqrstuvwxyz_,0123456789");
		if (rest > eq + 1 && rest[0] == ':' && rest[1] == '/')
			return eq;
	}
	return NULL;
}

int pair_parse(const char *s, struct pair_spec *p, char *err, size_t errlen)
{
	const char *eq = pair_split(s);

	memset(p, 0, sizeof(*p));
	if (!eq || eq == s) {
		snprintf(err, errlen, "bad --pair '%.64s': expected BEFORE=AFTER, two cgroup paths "
			 "or globs as in the JSON (/a=/b, /job-*=/job-*)", s);
		return -1;
	}
	p->text = s;
	p->before = strndup(s, (size_t)(eq - s));
	p->after = strdup(eq + 1);
	p->label = strcmp(p->before ? p->before : "", eq + 1) ? strdup(s) : strdup(eq + 1);
	if (!p->before || !p->after || !p->label) {
		pair_free(p);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void pair_free(struct pair_spec *p)
{
	free(p->before);
	free(p->after);
	free(p->label);
	p->before = p->after = p->label = NULL;
}

/* The first pair whose glob of side matches path, or -1. */
static long pair_of(const struct pair_spec *p, size_t n, int side, const char *path)
{
	for (size_t k = 0; path && k < n; k++)
		if (!fnmatch(side ? p[k].after : p[k].before, path, 0))
			return (long)k;
	return -1;
}

int compare_relabel_pairs(struct report *r, const struct pair_spec *p, size_t n, int side,
			  size_t *matched)
{
	struct row *lists[2] = { r->cgroups, r->processes };
	size_t counts[2] = { r->ncgroups, r->nprocesses };
	bool any = false;

	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < counts[l]; i++) {
			struct row *row = &lists[l][i];
			long k = pair_of(p, n, side, row->path);
			char *label;

			if (k < 0)
				continue;
			if (!(label = strdup(p[k].label)))
				return -1;
			free(row->path);
			row->path = label;
			matched[k] += l == 0;
			any = true;
		}
	return any ? report_fold_alike(r) : 0;
}

int compare_relabel_command(struct report *r)
{
	struct row *lists[2] = { r->cgroups, r->processes };
	size_t counts[2] = { r->ncgroups, r->nprocesses };
	char label[PATH_MAX + 32];

	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < counts[l]; i++) {
			struct row *row = &lists[l][i];
			const char *rest;
			int at = command_cgroup_of(&r->command, row->path, &rest);
			char *p;

			if (at < 0)
				continue;
			if (command_label(label, sizeof(label), row->path, rest) ||
			    !(p = strdup(label)))
				return -1;
			free(row->path);
			row->path = p;
		}
	return 0;
}

int compare_command_rows(struct comparison *c, const struct command_info *const *cmds, size_t n)
{
	char label[PATH_MAX + 32];

	for (size_t k = 0; k < n; k++)
		for (int i = 0; i < cmds[k]->ncgroups; i++) {
			bool seen = false;

			if (command_label(label, sizeof(label), cmds[k]->cgroups[i].path, ""))
				return -1;
			for (size_t j = 0; j < c->ncommand_rows; j++)
				seen = seen || !strcmp(c->command_rows[j], label);
			if (seen || c->ncommand_rows == COMMAND_LABELS_MAX)
				continue;
			if (!(c->command_rows[c->ncommand_rows] = strdup(label)))
				return -1;
			c->ncommand_rows++;
		}
	c->command_absent = (struct cmp_row){
		.label = (char *)COMMAND_LABEL, .presence = BOTH,
	};
	return 0;
}

int compare_build(struct comparison *c, const struct gate *gates, size_t ngates,
		  const char *cgroup, char *err, size_t errlen)
{
	const struct cmp_row *only = NULL;
	const char *overflow = NULL;

	if (c->before.nruns > MAX_RUNS || c->after.nruns > MAX_RUNS) {
		snprintf(err, errlen, "more than %d runs a side", MAX_RUNS);
		return -1;
	}
	if (build_total(c->before.r, &c->total_before, &overflow) ||
	    build_total(c->after.r, &c->total_after, &overflow) ||
	    pair_rows(c->before.r->cgroups, c->before.r->ncgroups, c->after.r->cgroups,
		      c->after.r->ncgroups, NULL, &c->rows, &c->nrows) || label_locks(c) ||
	    index_runs(&c->before, &c->runs[0]) || index_runs(&c->after, &c->runs[1]))
		return -2;
	/* a total past 2^64-1 is no measurement: refused, not saturated */
	if (overflow) {
		snprintf(err, errlen, "the cgroups' %s add up past 2^64-1", overflow);
		return -1;
	}
	c->total = (struct cmp_row){
		.before = &c->total_before, .after = &c->total_after,
		.total = true, .presence = BOTH,
	};
	fill_row(c, &c->total);
	c->has_cpu_lock = c->before.r->cpu_lock.present && c->after.r->cpu_lock.present;
	if (c->has_cpu_lock) {
		if (lock_row(c->before.r, &c->cpu_lock_before) ||
		    lock_row(c->after.r, &c->cpu_lock_after))
			return -2;
		c->cpu_lock = (struct cmp_row){
			.before = &c->cpu_lock_before, .after = &c->cpu_lock_after,
			.cpu_lock = true, .presence = BOTH,
		};
		fill_row(c, &c->cpu_lock);
	}
	for (size_t i = 0; i < c->nrows; i++)
		fill_row(c, &c->rows[i]);
	qsort(c->rows, c->nrows, sizeof(*c->rows), by_regression);
	if (match_processes(c))
		return -2;
	for (size_t i = 0; i < c->nprows; i++)
		fill_row(c, &c->prows[i]);
	qsort(c->prows, c->nprows, sizeof(*c->prows), by_regression);
	c->gated_cgroup = cgroup;
	if (cgroup) {
		bool several;

		only = c->gated_row = find_row(c, cgroup, &several);
		if (!only) {
			snprintf(err, errlen, several ? "cgroup %s has a row per lock: name one, as "
				 "in \"%s [memory]\"" : "cgroup %s is in neither file", cgroup, cgroup);
			return -1;
		}
	}
	return run_gates(c, gates, ngates, only, err, errlen);
}

const char *compare_result(const struct comparison *c)
{
	return c->failed ? "fail" : c->inconclusive ? "inconclusive" : "pass";
}

void compare_free(struct comparison *c)
{
	for (size_t i = 0; i < c->ncommand_rows; i++)
		free(c->command_rows[i]);
	c->ncommand_rows = 0;
	free_runs(&c->before, &c->runs[0]);
	free_runs(&c->after, &c->runs[1]);
	row_free(&c->total_before);
	row_free(&c->total_after);
	row_free(&c->cpu_lock_before);
	row_free(&c->cpu_lock_after);
	c->has_cpu_lock = false;
	for (size_t i = 0; i < c->nprows; i++)
		free(c->prows[i].label);
	free(c->prows);
	c->prows = NULL;
	c->nprows = 0;
	for (size_t i = 0; i < c->nrows; i++)
		free(c->rows[i].lock_label);
	free(c->rows);
	free(c->results);
	c->rows = NULL;
	c->results = NULL;
	c->nrows = c->nresults = c->failed = c->inconclusive = 0;
}

/* "+20%", "-5%", or with no sign an absolute "5%" (shares). */
static int parse_percent(const char *s, double *out)
{
	if (parse_number(s, "%", out))
		return -1;
	*out /= 100;
	return 0;
}

static int parse_limit(const char *s, const struct metric_def *m, struct gate *g)
{
	uint64_t ns;

	g->relative = *s == '+' || *s == '-';
	if (g->relative)
		return parse_percent(s, &g->limit);
	switch (m->kind) {
	case MK_QUANTILE:
	case MK_MAX:
	case MK_PART:
	case MK_MEAN:
		/* a bare number would be ambiguous: insist on a unit */
		if (!*s || !isalpha((unsigned char)s[strlen(s) - 1]) ||
		    parse_duration(s, 1, &ns))
			return -1;
		g->limit = (double)ns;
		return 0;
	case MK_SHARE:
		return parse_percent(s, &g->limit) || g->limit > 1 ? -1 : 0;
	case MK_RATE:
	case MK_PER_VALUE:
		return parse_number(s, "", &g->limit) || g->limit < 0 ? -1 : 0;
	default:
		return -1;
	}
}

static const char *limit_help(const struct metric_def *m)
{
	switch (m->kind) {
	case MK_QUANTILE:
	case MK_MAX:
	case MK_PART:
	case MK_MEAN:
		return "+N% or -N% (relative) or a time with a unit: 500ns, 100us, 5ms, 1s";
	case MK_SHARE:
		return "+N% or -N% (relative) or N% (an absolute share)";
	case MK_PER_VALUE:
		return "+N% or -N% (relative) or a number per value (holds per flush)";
	default:
		return "+N% or -N% (relative) or acquisitions per second";
	}
}

int gate_parse(const char *s, struct gate *g, char *err, size_t errlen)
{
	size_t len = strcspn(s, "<>");
	char name[32];

	memset(g, 0, sizeof(*g));
	if (!s[len] || len >= sizeof(name)) {
		snprintf(err, errlen, "bad gate '%.64s': expected METRIC>LIMIT or METRIC<LIMIT", s);
		return -1;
	}
	memcpy(name, s, len);
	name[len] = '\0';
	g->metric = metric_find(name);
	if (g->metric >= 0 && metrics[g->metric].kind == MK_MODE) {
		snprintf(err, errlen, "bad gate '%.64s': %s is shown, not tested or gated", s, name);
		return -1;
	}
	if (g->metric < 0 || metrics[g->metric].kind == MK_COUNT) {
		snprintf(err, errlen, "bad gate '%.64s': unknown metric '%s' (see rstatlat(8), GATES)",
			 s, name);
		return -1;
	}
	g->above = s[len] == '>';
	if (parse_limit(s + len + 1, &metrics[g->metric], g)) {
		snprintf(err, errlen, "bad gate '%.64s': limit must be %s", s,
			 limit_help(&metrics[g->metric]));
		return -1;
	}
	/* a directional test asks one question: higher by +N%, or lower by -N% */
	if (g->relative && (g->above ? g->limit < 0 : g->limit > 0)) {
		snprintf(err, errlen, "bad gate '%.64s': use > with +N%% and < with -N%%", s);
		return -1;
	}
	g->text = strdup(s);
	if (!g->text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

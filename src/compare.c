// SPDX-License-Identifier: GPL-2.0
/*
 * compare: match the cgroups of two reports, give every metric a verdict
 * from a significance test on the histograms, and evaluate the gates.
 * Which test serves which metric, and why, is in rstatlat(8), SIGNIFICANCE.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "fmt.h"
#include "stats.h"

#define DIST_METRICS(d, n) \
	{ n ".p50", n " p50", MK_QUANTILE, d, 0.50, 0 }, \
	{ n ".p90", n " p90", MK_QUANTILE, d, 0.90, 0 }, \
	{ n ".p99", n " p99", MK_QUANTILE, d, 0.99, 0 }, \
	{ n ".max", n " max", MK_MAX, d, 1.0, 0 }

const struct metric_def metrics[NMETRICS] = {
	{ "locked", "locked", MK_COUNT, DK_HOLD, 0, 0 },
	{ "locked.rate", "locked/s", MK_RATE, DK_HOLD, 0, 0 },
	{ "contended.rate", "contended", MK_SHARE, DK_HOLD, 0, 0 },
	DIST_METRICS(DK_HOLD, "hold"),
	DIST_METRICS(DK_WAIT, "wait"),
	DIST_METRICS(DK_IRQOFF, "irqoff"),
	DIST_METRICS(DK_FLUSH, "flush"),
	{ "flush.holds", "holds/flush", MK_MEAN_HOLDS, DK_FLUSH, 0, 0 },
	/* where a flush's time goes, ns per flush (docs/flushes.md) */
	{ "flush.held", "held/flush", MK_PART, DK_FLUSH, 0, PART_HELD },
	{ "flush.wait", "wait/flush", MK_PART, DK_FLUSH, 0, PART_WAIT },
	{ "flush.irq", "irq/flush", MK_PART, DK_FLUSH, 0, PART_IRQ },
	{ "flush.offcpu", "offcpu/flush", MK_PART, DK_FLUSH, 0, PART_OFFCPU },
	{ "flush.self", "self/flush", MK_PART, DK_FLUSH, 0, PART_SELF },
	{ "flush.other", "other/flush", MK_PART, DK_FLUSH, 0, PART_OTHER },
	/* system-wide, on the total: irqs-off outside rstat (trace), tick lateness (sample) */
	DIST_METRICS(DK_OUTSIDE, "irqoff_outside"),
	DIST_METRICS(DK_LATE, "tick_late"),
};

const char *const verdict_names[] = {
	[V_NA] = "n/a",
	[V_TOO_FEW] = "too_few",
	[V_SAME] = "unchanged",
	[V_NOISE] = "within_noise",
	[V_HIGHER] = "higher",
	[V_LOWER] = "lower",
};

bool metric_shown(const struct cmp_row *row, int i)
{
	const struct cell *c = &row->cells[i];

	if (metrics[i].dist != DK_OUTSIDE && metrics[i].dist != DK_LATE &&
	    metrics[i].kind != MK_PART)
		return true;
	if (metrics[i].kind == MK_PART)
		return c->has_before || c->has_after;
	return row->total && (c->has_before || c->has_after);
}

int metric_find(const char *s)
{
	/* the old spellings, from before "locked" was the one word for it */
	if (!strcmp(s, "events"))
		s = "locked";
	else if (!strcmp(s, "events.rate"))
		s = "locked.rate";
	for (int i = 0; i < NMETRICS; i++)
		if (!strcmp(s, metrics[i].name))
			return i;
	return -1;
}

/* A row's distribution of kind k; irqs-off as the report has them, or NULL. */
static const struct dist *dist_of(const struct report *r, const struct row *row,
				  enum dist_kind k)
{
	switch (k) {
	case DK_OUTSIDE:
		/* build_total()'s rows, and only they, have no path */
		return !row->path && r->irqoff.trace ? &r->irqoff.other : NULL;
	case DK_LATE:
		return !row->path && r->irqoff.sample ? &r->irqoff.late : NULL;
	case DK_WAIT:
		return &row->wait;
	case DK_FLUSH:
		return &row->flush;
	case DK_IRQOFF:
		return row_irqoff(r, row);
	case DK_HOLD:
	case DK_MAX:
		break;
	}
	return &row->hold;
}

static double seconds(const struct report *r)
{
	return (double)r->duration_ns / 1e9;
}

/* The metric's value for one side; false when that side has no data. */
static bool metric_value(const struct metric_def *m, const struct row *row,
			 const struct report *r, double *v)
{
	const struct dist *d;

	if (!row)
		return false;
	switch (m->kind) {
	case MK_COUNT:
		*v = (double)row->locked;
		return true;
	case MK_RATE:
		*v = seconds(r) > 0 ? (double)row->locked / seconds(r) : 0;
		return seconds(r) > 0;
	case MK_SHARE:
		*v = row->locked ? (double)row->contended / (double)row->locked : 0;
		return row->locked > 0;
	case MK_QUANTILE:
	case MK_MAX:
		d = dist_of(r, row, m->dist);
		if (!d)
			return false;
		*v = m->kind == MK_MAX ? (double)d->max : (double)dist_quantile(d, m->q);
		return d->count > 0;
	case MK_MEAN_HOLDS:
		*v = row->flush.count ? (double)row->flush_holds / (double)row->flush.count : 0;
		return row->flush.count > 0;
	case MK_PART:
		*v = row->flush.count ? (double)row->part[m->part] / (double)row->flush.count : 0;
		return report_part_measured(r, m->part) && row->flush.count > 0;
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
static double holds_per_flush_p(const struct row *b, const struct row *a)
{
	return poisson_rate_p(b->flush_holds, (double)b->flush.count, a->flush_holds,
			      (double)a->flush.count);
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
		return V_NA;
	case MK_PART:
		/* sums only, no spread of single flushes: replicated runs test them */
		return V_TOO_FEW;
	case MK_MEAN_HOLDS:
		return by_p(holds_per_flush_p(b, a), alpha);
	case MK_RATE:
		return by_p(poisson_rate_p(b->locked, seconds(c->before.r), a->locked,
					   seconds(c->after.r)), alpha);
	case MK_SHARE:
		if (!b->contended && !a->contended)
			return V_SAME;
		return by_p(two_proportion_p(b->contended, b->locked, a->contended, a->locked),
			    alpha);
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
	if (compare_replicated(c) && metrics[mi].kind != MK_COUNT) {
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
	for (int i = 0; i < NMETRICS; i++) {
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
		    metrics[i].kind == MK_MEAN_HOLDS || metrics[i].kind == MK_PART)
			continue;
		if (cell->verdict == V_HIGHER && cell->ratio > row->worst) {
			row->worst = cell->ratio;
			row->worst_metric = i;
		}
	}
}

const char *row_label(const struct cmp_row *r)
{
	const struct row *src = r->after ? r->after : r->before;

	if (r->total)
		return "total";
	if (r->label)
		return r->label;
	return src->path && src->path[0] ? src->path : "(unknown path)";
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

static int build_total(const struct report *r, struct row *total)
{
	memset(total, 0, sizeof(*total));
	for (size_t i = 0; i < r->ncgroups; i++)
		if (row_merge(total, &r->cgroups[i]))
			return -1;
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
	double z = z_two_sided(2 * c->gate_alpha), n = (double)a->locked;

	if (m->kind == MK_MEAN_HOLDS) {
		double h = (double)a->flush_holds, fl = (double)a->flush.count;

		if (a->flush_holds < 5 || !a->flush.count)
			return false;
		*lo = (h - z * sqrt(h)) / fl;
		*hi = (h + z * sqrt(h)) / fl;
		return true;
	}
	if (m->kind == MK_SHARE) {
		if (n * fmin(v, 1 - v) < 5)
			return false;
		*lo = v - z * sqrt(v * (1 - v) / n);
		*hi = v + z * sqrt(v * (1 - v) / n);
		return true;
	}
	if (a->locked < 5)
		return false;
	*lo = (n - z * sqrt(n)) / seconds(c->after.r);
	*hi = (n + z * sqrt(n)) / seconds(c->after.r);
	return true;
}

/* "comm on /path" for a -p row. */
static char *flusher_label(const struct row *r)
{
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
		/* a maximum is a measured event, a part's mean one of every flush: not estimates */
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
	case MK_MEAN_HOLDS:
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
		p = poisson_rate_p(b->locked, seconds(c->before.r), a->locked, seconds(c->after.r));
		break;
	case MK_SHARE:
		p = two_proportion_p(b->contended, b->locked, a->contended, a->locked);
		break;
	case MK_MEAN_HOLDS:
		p = holds_per_flush_p(b, a);
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

/* irqoff_outside.* and tick_late.*: measured for the whole system, on the total only. */
static bool system_wide(const struct gate *g)
{
	return metrics[g->metric].dist == DK_OUTSIDE || metrics[g->metric].dist == DK_LATE;
}

/* Whether a side did not measure what the gate asks: system-wide figures, flush parts. */
static bool unmeasured(const struct comparison *c, const struct gate *g)
{
	int part = metrics[g->metric].part;

	if (metrics[g->metric].kind == MK_PART)
		return !parts_comparable(c->before.r, c->after.r, part);
	return system_wide(g);
}

static void run_gate(struct comparison *c, const struct gate *g, const struct cmp_row *row)
{
	struct gate_result *res = &c->results[c->nresults++];
	const struct cell *cell = &row->cells[g->metric];

	res->gate = g;
	res->row = row;
	if (!cell->has_before || !cell->has_after ||
	    (metrics[g->metric].kind == MK_PART && unmeasured(c, g)))
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
		for (size_t i = 0; i < c->nrows; i++)
			if (!strcmp(row_label(&c->rows[i]), c->command_rows[k]))
				out[n++] = &c->rows[i];
	return n;
}

static int run_gates(struct comparison *c, const struct gate *gates, size_t ngates,
		     const struct cmp_row *only, char *err, size_t errlen)
{
	const struct cmp_row *cmd[COMMAND_CGROUPS_MAX];
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
	out->locked = r->cpu_lock.locked;
	out->contended = r->cpu_lock.contended;
	return !out->path || dist_copy(&out->hold, &r->cpu_lock.hold) ||
	       dist_copy(&out->wait, &r->cpu_lock.wait) ? -1 : 0;
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
		if (build_total(&s->runs[i], &rr->totals[i]) ||
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

static const struct cmp_row *find_row(const struct comparison *c, const char *path)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(row_label(&c->rows[i]), path))
			return &c->rows[i];
	return NULL;
}

/* "(command)" for "/rstatlat-41", "memory:(command)" for "memory:/rstatlat-41". */
static int command_label(char *buf, size_t len, const char *path, const char *rest)
{
	const char *colon = strchr(path, ':'), *slash = strchr(path, '/');
	int prefix = colon && (!slash || colon < slash) ? (int)(colon - path) + 1 : 0;
	int n = snprintf(buf, len, "%.*s" COMMAND_LABEL "%s", prefix, path, rest);

	return n < 0 || (size_t)n >= len ? -1 : 0;
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

	if (c->before.nruns > MAX_RUNS || c->after.nruns > MAX_RUNS) {
		snprintf(err, errlen, "more than %d runs a side", MAX_RUNS);
		return -1;
	}
	if (build_total(c->before.r, &c->total_before) ||
	    build_total(c->after.r, &c->total_after) ||
	    pair_rows(c->before.r->cgroups, c->before.r->ncgroups, c->after.r->cgroups,
		      c->after.r->ncgroups, NULL, &c->rows, &c->nrows) ||
	    index_runs(&c->before, &c->runs[0]) || index_runs(&c->after, &c->runs[1]))
		return -2;
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
		only = find_row(c, cgroup);
		if (!only) {
			snprintf(err, errlen, "cgroup %s is in neither file", cgroup);
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
		/* a bare number would be ambiguous: insist on a unit */
		if (!*s || !isalpha((unsigned char)s[strlen(s) - 1]) ||
		    parse_duration(s, 1, &ns))
			return -1;
		g->limit = (double)ns;
		return 0;
	case MK_SHARE:
		return parse_percent(s, &g->limit) || g->limit > 1 ? -1 : 0;
	case MK_RATE:
	case MK_MEAN_HOLDS:
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
		return "+N% or -N% (relative) or a time with a unit: 500ns, 100us, 5ms, 1s";
	case MK_SHARE:
		return "+N% or -N% (relative) or N% (absolute share of acquisitions)";
	case MK_MEAN_HOLDS:
		return "+N% or -N% (relative) or holds per flush";
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

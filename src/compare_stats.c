// SPDX-License-Identifier: GPL-2.0
/*
 * compare's significance tests: which test serves which metric, and why, is
 * in rstatlat(8), SIGNIFICANCE; a metric's verdict on a row, and its ratio.
 */
#include <math.h>
#include "compare_int.h"
#include "stats.h"

/*
 * Holds per flush: the holds as events over the flushes as exposure, the
 * rate test of locked/s with flushes for seconds. (A flush takes a fixed
 * number of holds on a given kernel and machine; what moves it is the
 * kernel, which is what a gate on it asks about.)
 */
double per_value_p(const struct metric_def *m, const struct comparison *c, const struct row *b,
		   const struct row *a)
{
	const struct report *rb = c->before.r, *ra = c->after.r;

	return poisson_rate_p(metric_numerator(m, rb, b), (double)metric_denominator(m, rb, b),
			      metric_numerator(m, ra, a), (double)metric_denominator(m, ra, a));
}

/* A rate per second: counts as events over the window as exposure. */
double rate_p(const struct metric_def *m, const struct comparison *c, const struct row *b,
	      const struct row *a)
{
	return poisson_rate_p(metric_numerator(m, c->before.r, b), metric_seconds(m, c->before.r),
			      metric_numerator(m, c->after.r, a), metric_seconds(m, c->after.r));
}

/* A share: two proportions, its count out of its whole on each side. */
double share_p(const struct metric_def *m, const struct comparison *c, const struct row *b,
	       const struct row *a)
{
	const struct report *rb = c->before.r, *ra = c->after.r;

	return two_proportion_p(metric_numerator(m, rb, b), metric_denominator(m, rb, b),
				metric_numerator(m, ra, a), metric_denominator(m, ra, a));
}

/*
 * A mean per flush: the wall time's, or a part's. A part of a flush lies
 * between 0 and its wall time, so the flush histogram bounds its variance
 * (part_var_bound): a conservative normal test, from one run a side.
 */
double mean_p(const struct metric_def *m, const struct comparison *c, const struct row *b,
	      const struct row *a)
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
 * values, a small one still needs many (enum shift: compare_int.h).
 */
enum shift quantile_shift(const struct dist *b, const struct dist *a, double q, double alpha,
			  bool higher)
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
enum verdict max_test(const struct dist *b, const struct dist *a, double alpha)
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
		if (!metric_numerator(m, c->before.r, b) && !metric_numerator(m, c->after.r, a))
			return V_SAME;
		return by_p(share_p(m, c, b, a), alpha);
	case MK_QUANTILE:
		return db && da ? quantile_test(db, da, m->q, alpha) : V_NA;
	case MK_MAX:
		return db && da ? max_test(db, da, alpha) : V_NA;
	}
	return V_NA;
}

double value_ratio(double before, double after)
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
double between_runs_p(const struct comparison *c, const struct cmp_row *row, int mi, bool higher)
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

enum verdict verdict_at(const struct comparison *c, const struct cmp_row *row, int mi, double alpha)
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

// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include "stats.h"

#define MIN_EXPECTED 5.0	/* the usual bound for the normal approximation */

double p_two_sided(double z)
{
	return erfc(fabs(z) / M_SQRT2);
}

double z_two_sided(double alpha)
{
	/* a compare asks for a few alphas, each for thousands of rows: kept */
	static _Thread_local double last_alpha = -1, last_z;
	double lo = 0, hi = 40;

	if (alpha == last_alpha)
		return last_z;
	/* p_two_sided falls monotonically: bisect (alpha is tiny at worst) */
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (p_two_sided(mid) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	last_alpha = alpha;
	last_z = hi;
	return hi;
}

/*
 * Sums of the pmf up to this many values (at most ~1100 terms a bound);
 * above, the normal approximation's rank corrected to the exact one with
 * the incomplete beta (a few evaluations): a compare of 10 000 rows tests
 * 12 quantiles each, twice.
 */
#define EXACT_MAX 2000
/*
 * The sums start this many standard deviations (plus a few values) from
 * the mean: the binomial mass beyond is below 1e-15 even in the skewed
 * tail of a p99 (failures nearly Poisson), far under any alpha.
 */
#define TAIL_SDS 12.0

static uint64_t sum_start_below(uint64_t n, double q)
{
	double k = (double)n * q - TAIL_SDS * sqrt((double)n * q * (1 - q)) - 20;

	return k > 0 ? (uint64_t)k : 0;
}

static double beta_inc(double a, double b, double x);

/* P(Bin(n, q) <= k), exactly: I_{1-q}(n - k, k + 1). */
static double binom_cdf(uint64_t n, double q, uint64_t k)
{
	return k >= n ? 1 : beta_inc((double)(n - k), (double)k + 1, 1 - q);
}

/* Beyond EXACT_MAX: how far a one-sided bound's rank lies from nq. */
static double normal_reach(uint64_t n, double q, double alpha)
{
	return z_two_sided(2 * alpha) * sqrt((double)n * q * (1 - q));
}

static double log_binom_pmf(uint64_t n, uint64_t k, double lq, double lp)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
	       (double)k * lq + (double)(n - k) * lp;
}

/*
 * Lower: the largest r with P(Bin(n, q) <= r - 1) <= alpha, since
 * P(X(r) <= quantile) = P(Bin(n, q) >= r). Summed upwards.
 */
uint64_t quantile_lower_rank(uint64_t n, double q, double alpha)
{
	double lq = log(q), lp = log1p(-q), cdf = 0;
	uint64_t k;

	if (!n || q <= 0 || q >= 1)
		return 0;
	if (n > EXACT_MAX) {
		/* the normal guess, moved to the exact rank (the binomial is skewed) */
		double g = floor((double)n * q - normal_reach(n, q, alpha));
		uint64_t r = g >= 1 ? (uint64_t)g : 1;

		while (r > 1 && binom_cdf(n, q, r - 1) > alpha)
			r--;
		while (r < n && binom_cdf(n, q, r) <= alpha)
			r++;
		return binom_cdf(n, q, r - 1) <= alpha ? r : 0;
	}
	k = sum_start_below(n, q);
	/* the pmf from term to term: one log and one exp a step, not three lgammas */
	for (double lpmf = log_binom_pmf(n, k, lq, lp); k < n; k++) {
		cdf += exp(lpmf);
		if (cdf > alpha)
			break;
		lpmf += log((double)(n - k) / (double)(k + 1)) + lq - lp;
	}
	/* cdf(k - 1) <= alpha < cdf(k): r - 1 = k - 1 */
	return k;
}

/*
 * Upper: the smallest s with P(Bin(n, q) >= s) <= alpha, since
 * P(X(s) >= quantile) = P(Bin(n, q) <= s - 1). By symmetry (the values
 * reversed, q becomes 1 - q) that is the lower rank of the (1 - q)-quantile
 * counted from the top; the sums stay in the small tail, so keep their
 * precision.
 */
uint64_t quantile_upper_rank(uint64_t n, double q, double alpha)
{
	uint64_t r = q > 0 && q < 1 ? quantile_lower_rank(n, 1 - q, alpha) : 0;

	return r ? n + 1 - r : 0;
}

bool quantile_lower_bound(const struct dist *d, double q, double alpha, uint64_t *v)
{
	uint64_t r = quantile_lower_rank(d->count, q, alpha);

	if (!r)
		return false;
	*v = hist_bucket_lower(dist_rank_bucket(d, r));
	return true;
}

bool quantile_upper_bound(const struct dist *d, double q, double alpha, uint64_t *v)
{
	uint64_t s = quantile_upper_rank(d->count, q, alpha);

	if (!s)
		return false;
	*v = hist_bucket_upper(dist_rank_bucket(d, s)) - 1;
	if (*v > d->max)
		*v = d->max;
	return true;
}

double part_var_bound(const struct dist *d, double sum)
{
	double left = sum, squares = 0, mean;

	if (!d->count)
		return 0;
	for (uint32_t i = d->n; i-- > 0 && left > 0;) {
		/* the top bucket holds everything above its range: its values reach the max */
		double w = i == d->n - 1 ? (double)d->max :
			   fmin((double)hist_bucket_upper(d->b[i].index), (double)d->max);
		double whole;

		if (w <= 0)
			break;
		/* as many of this bucket's values as the sum left fills whole, then a share of one */
		whole = fmin((double)d->b[i].count, floor(left / w));
		squares += whole * w * w;
		left -= whole * w;
		if (whole < (double)d->b[i].count && left > 0) {
			squares += left * left;
			left = 0;
		}
	}
	mean = sum / (double)d->count;
	return fmax(squares / (double)d->count - mean * mean, 0);
}

double mean_diff_p(uint64_t n1, double mean1, double var1, uint64_t n2, double mean2,
		   double var2)
{
	double se;

	if (n1 < MEAN_TEST_MIN || n2 < MEAN_TEST_MIN)
		return -1;
	se = sqrt(var1 / (double)n1 + var2 / (double)n2);
	if (se == 0)
		return mean1 == mean2 ? 1 : 0;
	return p_two_sided(fabs(mean2 - mean1) / se);
}

double top_k_p(uint64_t n_top, uint64_t n_other, uint64_t k)
{
	double n = (double)n_top, all = (double)(n_top + n_other), kk = (double)k;

	if (k > n_top)
		return 0;
	if (!n_other || !k)
		return 1;
	/* C(n_top, k) / C(n_top + n_other, k), in logs: O(1), not O(k) */
	return exp(lgamma(n + 1) - lgamma(n - kk + 1) - lgamma(all + 1) + lgamma(all - kk + 1));
}

uint64_t count_above_max(const struct dist *a, const struct dist *b)
{
	unsigned int top = hist_bucket(b->max);
	uint64_t n = 0;

	for (uint32_t i = a->n; i > 0 && a->b[i - 1].index > top; i--)
		n += a->b[i - 1].count;
	return n;
}

double two_proportion_p(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2)
{
	double p, se;

	if (!n1 || !n2)
		return -1;
	p = (double)(x1 + x2) / (double)(n1 + n2);
	if (fmin(n1, n2) * fmin(p, 1 - p) < MIN_EXPECTED)
		return -1;
	se = sqrt(p * (1 - p) * (1.0 / (double)n1 + 1.0 / (double)n2));
	return p_two_sided(((double)x2 / (double)n2 - (double)x1 / (double)n1) / se);
}

double poisson_rate_p(uint64_t k1, double t1, uint64_t k2, double t2)
{
	double n = (double)(k1 + k2), p0;

	if (t1 <= 0 || t2 <= 0)
		return -1;
	/* given k1 + k2 events, k2 ~ Binomial(k1 + k2, t2 / (t1 + t2)) */
	p0 = t2 / (t1 + t2);
	if (n * fmin(p0, 1 - p0) < MIN_EXPECTED)
		return -1;
	return p_two_sided(((double)k2 - n * p0) / sqrt(n * p0 * (1 - p0)));
}

/* The continued fraction of the regularized incomplete beta (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2 * m, num = m * (b - m) * x / ((a + m2 - 1) * (a + m2)), delta;

		d = 1 + num * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	/* the fraction converges fast below the mean, so use the symmetry above it */
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double t_upper_tail(double t, double df)
{
	double tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));

	return t > 0 ? tail : 1 - tail;
}

static void mean_var(const double *v, size_t n, double *mean, double *var)
{
	double m = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		m += v[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	*mean = m;
	*var = ss / (double)(n - 1);
}

double welch_greater_p(const double *x, size_t nx, const double *y, size_t ny, double min_var)
{
	double mx, vx, my, vy, se2, df;

	if (nx < 2 || ny < 2)
		return -1;
	mean_var(x, nx, &mx, &vx);
	mean_var(y, ny, &my, &vy);
	vx = fmax(vx, min_var);
	vy = fmax(vy, min_var);
	se2 = vx / (double)nx + vy / (double)ny;
	if (se2 <= 0)
		return my > mx ? 0 : 1;
	df = se2 * se2 / (vx * vx / ((double)nx * nx * (nx - 1)) +
			  vy * vy / ((double)ny * ny * (ny - 1)));
	return t_upper_tail((my - mx) / sqrt(se2), df);
}

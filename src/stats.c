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
	double lo = 0, hi = 40;

	/* p_two_sided falls monotonically: bisect (alpha is tiny at worst) */
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (p_two_sided(mid) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

bool quantile_ci(const struct dist *d, double q, double alpha, uint64_t *lo, uint64_t *hi)
{
	double n = (double)d->count, half, rlo, rhi;
	int blo, bhi;

	if (!d->count)
		return false;
	half = z_two_sided(alpha) * sqrt(n * q * (1 - q));
	rlo = floor(n * q - half);
	rhi = ceil(n * q + half) + 1;
	if (rlo < 1 || rhi > n)
		return false;
	blo = dist_rank_bucket(d, (uint64_t)rlo);
	bhi = dist_rank_bucket(d, (uint64_t)rhi);
	*lo = hist_bucket_lower(blo);
	*hi = hist_bucket_upper(bhi) - 1;
	if (*hi > d->max)
		*hi = d->max;
	return true;
}

double top_k_p(uint64_t n_top, uint64_t n_other, uint64_t k)
{
	double p = 1;

	if (k > n_top)
		return 0;
	for (uint64_t i = 0; i < k && p > 0; i++)
		p *= (double)(n_top - i) / (double)(n_top + n_other - i);
	return p;
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

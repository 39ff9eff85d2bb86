/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Significance tests for compare, on the binned data a report holds.
 * Pure math: no report I/O, no printing. The choice of tests is explained
 * in rstatlat(8), SIGNIFICANCE.
 */
#ifndef RSTATLAT_STATS_H
#define RSTATLAT_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "report.h"

/* The z with P(|Z| > z) = alpha for a standard normal Z. */
double z_two_sided(double alpha);
/* Two-sided p-value of a standard normal statistic. */
double p_two_sided(double z);

/*
 * One-sided order-statistic bounds of the q-quantile of n values at level
 * 1 - alpha, as 1-based ranks: X(lower) <= the q-quantile with probability
 * at least 1 - alpha, likewise X(upper) >= it, exactly (binomial sums, or
 * the incomplete beta above 2000 values). 0: no such rank (too few values
 * for that side of the question).
 */
uint64_t quantile_lower_rank(uint64_t n, double q, double alpha);
uint64_t quantile_upper_rank(uint64_t n, double q, double alpha);
/*
 * The values of those bounds in d, from the buckets holding the ranks
 * (the lower edge of the lower one, the upper edge of the upper one, at
 * most the max). False when the rank does not exist.
 */
bool quantile_lower_bound(const struct dist *d, double q, double alpha, uint64_t *v);
bool quantile_upper_bound(const struct dist *d, double q, double alpha, uint64_t *v);

/*
 * Exact permutation p-value that the top k values of the pooled sample all
 * come from the side with n_top values (the other side has n_other):
 * C(n_top, k) / C(n_top + n_other, k).
 */
double top_k_p(uint64_t n_top, uint64_t n_other, uint64_t k);
/* How many of a's values lie in buckets above the one holding b's max. */
uint64_t count_above_max(const struct dist *a, const struct dist *b);

/*
 * Two-sided p-value for equal proportions x1/n1 and x2/n2 (pooled z-test).
 * Returns -1 when an expected count is below 5: too few to say.
 */
double two_proportion_p(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2);
/*
 * Two-sided p-value for equal Poisson rates k1/t1 and k2/t2 (conditional
 * binomial test, normal approximation). -1 when too few events.
 */
double poisson_rate_p(uint64_t k1, double t1, uint64_t k2, double t2);

/*
 * Welch's t-test that the mean of y exceeds the mean of x: the one-sided
 * p-value, from Student's t with the Welch-Satterthwaite degrees of
 * freedom. Needs at least 2 values on each side (else -1). Each side's
 * variance is at least min_var (the values' own grain, e.g. a histogram
 * bucket's); with min_var 0, equal values on both sides give p = 0 when
 * y's are larger, 1 otherwise.
 */
double welch_greater_p(const double *x, size_t nx, const double *y, size_t ny, double min_var);
/*
 * A bound on the variance of n parts x_i, one of each of d's values w_i,
 * with 0 <= x_i <= w_i and sum x_i = sum: E[x^2] is largest when the sum
 * lies on the largest values, whole (each at its bucket's upper edge, at
 * most d's max; the highest bucket's at the max, as the last bucket of
 * the layout holds every value above its range), so E[x^2] - mean^2
 * bounds the variance from above. With
 * sum = d's own sum it bounds the variance of d's values. A test with it
 * is conservative: it needs no more than sums and the histogram of the
 * whole (a flush's wall time, of which each part is a share).
 */
double part_var_bound(const struct dist *d, double sum);
/*
 * Two-sided p that two means differ, each of n values with a variance of
 * at most var: the normal test on their difference. -1 with fewer than
 * MEAN_TEST_MIN values on a side (the normal approximation needs many).
 */
#define MEAN_TEST_MIN 30
double mean_diff_p(uint64_t n1, double mean1, double var1, uint64_t n2, double mean2,
		   double var2);
/* P(T > t) for Student's t with df degrees of freedom. */
double t_upper_tail(double t, double df);

#endif

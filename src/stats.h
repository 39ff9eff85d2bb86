/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Significance tests for compare, on the binned data a report holds.
 * Pure math: no report I/O, no printing. The choice of tests is explained
 * in rstatlat(8), SIGNIFICANCE.
 */
#ifndef RSTATLAT_STATS_H
#define RSTATLAT_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include "report.h"

/* The z with P(|Z| > z) = alpha for a standard normal Z. */
double z_two_sided(double alpha);
/* Two-sided p-value of a standard normal statistic. */
double p_two_sided(double z);

/*
 * Distribution-free confidence interval for the q-quantile (nearest rank)
 * at two-sided level 1 - alpha: the order statistics at ranks
 * nq -/+ z*sqrt(nq(1-q)) (normal approximation to the binomial), widened
 * to the bounds of the buckets holding them. Returns false when a rank
 * falls outside 1..count: too few values to say.
 */
bool quantile_ci(const struct dist *d, double q, double alpha, uint64_t *lo, uint64_t *hi);

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

#endif

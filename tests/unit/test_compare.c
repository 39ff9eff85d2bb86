// SPDX-License-Identifier: GPL-2.0
/*
 * compare on synthetic pairs with known shifts: the significance tests,
 * the gates (fire exactly when they should), matching and the verdicts.
 */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "compare.h"
#include "escape.h"
#include "stats.h"

static uint64_t rng_state;

static double uniform(void)
{
	/* xorshift64*: deterministic, so every run checks the same pairs */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* Log-normal around 1 us, about the spread of real holds. */
static uint64_t hold_sample(double scale)
{
	double u1 = uniform(), u2 = uniform();
	double n = sqrt(-2 * log(u1 > 0 ? u1 : 1e-12)) * cos(2 * M_PI * u2);

	return (uint64_t)(scale * exp(log(1000) + 0.5 * n));
}

struct pair {
	struct row rb, ra;
	struct report b, a;
	struct comparison c;
};

static void fill(struct row *row, const char *path, uint64_t n, double scale,
		 double contended)
{
	memset(row, 0, sizeof(*row));
	row->path = (char *)path;
	row->cgid = 42;
	for (uint64_t i = 0; i < n; i++) {
		dist_add_value(&row->dist[DIST_HOLD], hold_sample(scale));
		row->count[COUNT_LOCKED]++;
		if (uniform() < contended) {
			row->count[COUNT_CONTENDED]++;
			dist_add_value(&row->dist[DIST_WAIT], hold_sample(scale));
		}
	}
}

/* The figures a test row owns (its path is a literal). */
static void figures_free(struct row *row)
{
	dist_free(&row->dist[DIST_HOLD]);
	dist_free(&row->dist[DIST_WAIT]);
	dist_free(&row->dist[DIST_FLUSH]);
}

/* Builds BEFORE (nb values, scale 1) and AFTER (na values, scale), and gates. */
static void build_sized(struct pair *p, uint64_t nb, uint64_t na, double scale, double cb,
			double ca, const char *const *gate_texts, size_t ngates, struct gate *gates)
{
	char err[256];

	fill(&p->rb, "/w", nb, 1, cb);
	fill(&p->ra, "/w", na, scale, ca);
	/* as the reader gives files without irqoff_ns: the holds are irqs-off */
	p->b = (struct report){ .duration_ns = 1000000000, .cgroups = &p->rb, .ncgroups = 1,
				.attach = "tracepoint", .irqoff_rows = IRQOFF_ROWS_LOCK };
	p->a = p->b;
	p->a.cgroups = &p->ra;
	memset(&p->c, 0, sizeof(p->c));
	p->c.before = (struct side){ .file = "b", .r = &p->b, .irqoff_source = "lock" };
	p->c.after = (struct side){ .file = "a", .r = &p->a, .irqoff_source = "lock" };
	p->c.alpha = 0.01;
	p->c.noise = 0.05;
	for (size_t i = 0; i < ngates; i++)
		CHECK(gate_parse(gate_texts[i], &gates[i], err, sizeof(err)) == 0, "%s", err);
	CHECK(compare_build(&p->c, gates, ngates, NULL, err, sizeof(err)) == 0, "%s", err);
}

static void build(struct pair *p, uint64_t n, double scale, double cb, double ca,
		  const char *const *gate_texts, size_t ngates, struct gate *gates)
{
	build_sized(p, n, n, scale, cb, ca, gate_texts, ngates, gates);
}

static void release(struct pair *p, struct gate *gates, size_t ngates)
{
	compare_free(&p->c);
	figures_free(&p->rb);
	figures_free(&p->ra);
	for (size_t i = 0; i < ngates; i++)
		free(gates[i].text);
}

static enum gate_outcome total_outcome(const struct pair *p, size_t gate)
{
	for (size_t i = 0; i < p->c.nresults; i++)
		if (p->c.results[i].gate == p->c.results[0].gate + gate && p->c.results[i].row->total)
			return p->c.results[i].outcome;
	return G_NA;
}

static void test_stats(void)
{
	struct dist d = { 0 };
	uint64_t lo, hi;

	CHECK(fabs(z_two_sided(0.05) - 1.959964) < 1e-4, "z(0.05) = %f", z_two_sided(0.05));
	CHECK(fabs(p_two_sided(2.575829) - 0.01) < 1e-5, "p(2.576)");
	CHECK(fabs(top_k_p(10, 10, 1) - 0.5) < 1e-12, "top 1 of 10+10");
	CHECK(fabs(top_k_p(10, 10, 2) - 90.0 / 380) < 1e-12, "top 2 of 10+10");
	CHECK(top_k_p(3, 10, 4) == 0, "more than n_top");
	CHECK(top_k_p(50000000, 0, 50000000) == 1, "no other side: certain, and at once");
	CHECK(two_proportion_p(100, 10000, 100, 10000) > 0.99, "equal shares");
	CHECK(two_proportion_p(100, 10000, 200, 10000) < 1e-6, "doubled share");
	CHECK(two_proportion_p(1, 100, 2, 100) == -1, "too few contended");
	CHECK(poisson_rate_p(1000, 1, 2000, 2) > 0.99, "equal rates, different windows");
	CHECK(poisson_rate_p(1000, 1, 1300, 1) < 1e-6, "30%% more events");
	CHECK(poisson_rate_p(1, 1, 2, 1) == -1, "too few events");

	for (uint64_t v = 1; v <= 1000; v++)
		dist_add_value(&d, v * 100);
	CHECK(quantile_lower_bound(&d, 0.5, 0.005, &lo) &&
	      quantile_upper_bound(&d, 0.5, 0.005, &hi), "median of 1000");
	CHECK(lo <= 50000 && hi >= 50000 && hi - lo < 12000, "median bounds [%lu, %lu]",
	      (unsigned long)lo, (unsigned long)hi);
	CHECK(quantile_lower_bound(&d, 0.99, 0.005, &lo) &&
	      quantile_upper_bound(&d, 0.99, 0.005, &hi), "p99 of 1000");
	CHECK(lo <= 99000 && hi >= 99000, "p99 bounds [%lu, %lu]", (unsigned long)lo,
	      (unsigned long)hi);
	dist_free(&d);
	for (uint64_t v = 1; v <= 100; v++)
		dist_add_value(&d, v * 100);
	/* 100 values bound a p99 from below (its 95th or so), never from above */
	CHECK(quantile_lower_bound(&d, 0.99, 0.005, &lo) && lo < 99000, "p99 of 100 from below");
	CHECK(!quantile_upper_bound(&d, 0.99, 0.005, &hi), "p99 of 100 from above: too few");
	dist_free(&d);
}

/* P(Bin(n, q) <= k), by the recurrence of the pmf, in long double: a second way. */
static long double binom_cdf(uint64_t n, double q, uint64_t k)
{
	long double pmf = powl(1 - (long double)q, (long double)n), cdf = 0;

	for (uint64_t i = 0; i <= k && i <= n; i++) {
		cdf += pmf;
		pmf *= (long double)(n - i) / (long double)(i + 1) * q / (1 - (long double)q);
	}
	return cdf;
}

/* The ranks are the extreme ones whose coverage is at least 1 - alpha. */
static void test_rank_bounds(void)
{
	static const uint64_t ns[] = { 1, 2, 11, 56, 200, 846, 1820, 5000 };
	static const double qs[] = { 0.5, 0.9, 0.99 }, alphas[] = { 0.05, 0.005, 1e-4 };

	for (size_t i = 0; i < sizeof(ns) / sizeof(*ns); i++)
		for (size_t j = 0; j < 3; j++)
			for (size_t k = 0; k < 3; k++) {
				uint64_t n = ns[i], r = quantile_lower_rank(n, qs[j], alphas[k]);
				uint64_t s = quantile_upper_rank(n, qs[j], alphas[k]);
				double a = alphas[k], q = qs[j];

				if (powl(1 - (long double)q, (long double)n) == 0)
					continue;	/* the reference's start underflows */

				/* beyond the exact sums: conservative, within a few ranks */
				if (n > 2000) {
					CHECK(r && binom_cdf(n, q, r - 1) <= a &&
					      binom_cdf(n, q, r + 3) > a, "approx lower %lu, n %lu q %g "
					      "alpha %g", (unsigned long)r, (unsigned long)n, q, a);
					CHECK(s && 1 - binom_cdf(n, q, s - 1) <= a * (1 + 1e-6) &&
					      1 - binom_cdf(n, q, s - 5) > a, "approx upper %lu, n %lu q %g "
					      "alpha %g", (unsigned long)s, (unsigned long)n, q, a);
					continue;
				}
				/* lower: P(B <= r-1) <= alpha < P(B <= r), or none when P(B = 0) > alpha */
				if (r)
					CHECK(binom_cdf(n, q, r - 1) <= a * (1 + 1e-9) &&
					      (r == n || binom_cdf(n, q, r) > a * (1 - 1e-9)),
					      "lower rank %lu of n %lu q %g alpha %g", (unsigned long)r,
					      (unsigned long)n, q, a);
				else
					CHECK(binom_cdf(n, q, 0) > a, "no lower rank for n %lu q %g alpha %g",
					      (unsigned long)n, q, a);
				/* upper: P(B >= s) <= alpha < P(B >= s-1), or none when P(B = n) > alpha */
				if (s)
					CHECK(1 - binom_cdf(n, q, s - 1) <= a * (1 + 1e-6) &&
					      (s == 1 || 1 - binom_cdf(n, q, s - 2) > a * (1 - 1e-6)),
					      "upper rank %lu of n %lu q %g alpha %g", (unsigned long)s,
					      (unsigned long)n, q, a);
				else
					CHECK(powl(q, (long double)n) > a, "no upper rank for n %lu q %g "
					      "alpha %g", (unsigned long)n, q, a);
			}
	/* the sizes the man page quotes: the first n with both two-sided bounds at 0.01 */
	CHECK(quantile_upper_rank(846, 0.99, 0.005) && !quantile_upper_rank(500, 0.99, 0.005),
	      "p99 from above needs some hundreds of values");
	/* beyond the exact sums, the normal approximation stays in the middle */
	CHECK(quantile_lower_rank(5000000, 0.99, 0.005) < 4950000 &&
	      quantile_upper_rank(5000000, 0.99, 0.005) > 4950000, "large n");
}

/* Shifts below the gate's limit never fire; shifts above it always do. */
static void test_relative_shifts(void)
{
	static const char *const texts[] = { "hold.p99>+20%", "hold.p50>+20%" };
	static const struct { double scale; bool fires; } cases[] = {
		{ 1.00, false }, { 1.05, false }, { 1.10, false },
		{ 1.35, true }, { 1.50, true }, { 2.00, true },
	};
	struct gate gates[2];
	struct pair p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		for (uint64_t seed = 1; seed <= 5; seed++) {
			rng_state = seed * 0x9E3779B97F4A7C15ULL;
			build(&p, 20000, cases[i].scale, 0, 0, texts, 2, gates);
			for (size_t g = 0; g < 2; g++)
				CHECK((total_outcome(&p, g) == G_FAIL) == cases[i].fires,
				      "%s at x%.2f seed %lu: outcome %d", texts[g], cases[i].scale,
				      (unsigned long)seed, total_outcome(&p, g));
			CHECK((p.c.failed > 0) == cases[i].fires, "exit status at x%.2f",
			      cases[i].scale);
			release(&p, gates, 2);
		}
	}
	/* the other direction */
	{
		static const char *const down[] = { "hold.p50<-20%" };

		rng_state = 7;
		build(&p, 20000, 0.6, 0, 0, down, 1, gates);
		CHECK(total_outcome(&p, 0) == G_FAIL, "40%% faster fires a < gate");
		release(&p, gates, 1);
		rng_state = 7;
		build(&p, 20000, 0.9, 0, 0, down, 1, gates);
		CHECK(total_outcome(&p, 0) == G_PASS, "10%% faster does not");
		release(&p, gates, 1);
	}
}

/* Student's t against known quantiles, and Welch's test on small samples. */
static void test_welch(void)
{
	static const double x[] = { 1.0, 1.1, 0.9, 1.05 }, y[] = { 2.0, 2.1, 1.9, 2.05 };
	static const double same[] = { 1.02, 0.97, 1.01, 1.0 }, flat[] = { 3, 3, 3 };

	/* t(0.975) for 1, 5, 30 degrees of freedom: 12.706, 2.571, 2.042 */
	CHECK(fabs(t_upper_tail(12.706, 1) - 0.025) < 1e-4, "df 1: %g", t_upper_tail(12.706, 1));
	CHECK(fabs(t_upper_tail(2.571, 5) - 0.025) < 1e-4, "df 5: %g", t_upper_tail(2.571, 5));
	CHECK(fabs(t_upper_tail(2.042, 30) - 0.025) < 1e-4, "df 30: %g", t_upper_tail(2.042, 30));
	CHECK(fabs(t_upper_tail(0, 7) - 0.5) < 1e-12 && fabs(t_upper_tail(-2.571, 5) - 0.975) < 1e-4,
	      "symmetry");
	CHECK(welch_greater_p(x, 4, y, 4, 0) < 1e-4, "doubled: %g", welch_greater_p(x, 4, y, 4, 0));
	CHECK(welch_greater_p(y, 4, x, 4, 0) > 0.999, "the other way: %g", welch_greater_p(y, 4, x, 4, 0));
	CHECK(welch_greater_p(x, 4, same, 4, 0) > 0.05, "same: %g", welch_greater_p(x, 4, same, 4, 0));
	CHECK(welch_greater_p(x, 1, y, 4, 0) == -1, "one run is too few");
	CHECK(welch_greater_p(flat, 3, flat, 3, 0) == 1, "no spread, no change");
	{
		/* three runs a side, one bucket (1/16 octave) apart, no spread: the grain decides */
		double lo[3], hi[3], grain = log1p(1.0 / 16) * log1p(1.0 / 16) / 12;

		for (int i = 0; i < 3; i++)
			lo[i] = log1p(1000), hi[i] = log1p(1062);
		CHECK(welch_greater_p(lo, 3, hi, 3, 0) == 0, "without a grain: certain");
		CHECK(welch_greater_p(lo, 3, hi, 3, grain) > 1e-3, "with it: %g",
		      welch_greater_p(lo, 3, hi, 3, grain));
	}
	CHECK(welch_greater_p(same, 3, flat, 3, 0) < 1e-3, "one side without spread: %g",
	      welch_greater_p(same, 3, flat, 3, 0));
}

/* Few values: a crossing the data cannot confirm is inconclusive, never a pass. */
static void test_few_values_fail_closed(void)
{
	static const char *const texts[] = { "hold.p99>+20%" };
	struct gate gates[1];
	struct pair p;

	rng_state = 3;
	build(&p, 200, 3.0, 0, 0, texts, 1, gates);
	CHECK(total_outcome(&p, 0) == G_INCONCLUSIVE, "p99 of 200 values: inconclusive");
	CHECK(p.c.failed == 0 && p.c.inconclusive == 2, "total and /w: inconclusive");
	CHECK_STR(compare_result(&p.c), "inconclusive");
	CHECK(p.c.total.cells[metric_find("hold.p99")].verdict == V_TOO_FEW, "verdict");
	CHECK(p.c.total.cells[metric_find("hold.p50")].verdict == V_HIGHER,
	      "a median of 200 is testable: x3 is higher");
	release(&p, gates, 1);
	/* no crossing: a pass, however few the values */
	rng_state = 3;
	build(&p, 20, 0.5, 0, 0, texts, 1, gates);
	CHECK(total_outcome(&p, 0) == G_PASS && !p.c.inconclusive, "faster: pass");
	release(&p, gates, 1);
}

/*
 * The seed's shape: 1820 short holds before, 56 holds 40x longer after
 * (Linux 0efc297a reverted). One-sided, 56 values bound the p99 from
 * below and 1820 bound it from above: the gate fails in this direction
 * and passes in the other.
 */
static void test_large_change_few_values(void)
{
	static const char *const texts[] = { "hold.p99>+100%", "hold.p90>+100%" };
	struct gate gates[2];
	struct pair p;

	for (uint64_t seed = 1; seed <= 5; seed++) {
		rng_state = seed * 0x9E3779B97F4A7C15ULL;
		build_sized(&p, 1820, 56, 40.0, 0, 0, texts, 2, gates);
		CHECK(total_outcome(&p, 0) == G_FAIL && total_outcome(&p, 1) == G_FAIL,
		      "seed %lu: x40 on 56 values: %d %d", (unsigned long)seed,
		      total_outcome(&p, 0), total_outcome(&p, 1));
		CHECK(p.c.total.cells[metric_find("hold.p99")].verdict == V_HIGHER, "verdict");
		release(&p, gates, 2);
		rng_state = seed * 0x9E3779B97F4A7C15ULL;
		build_sized(&p, 56, 1820, 1 / 40.0, 0, 0, texts, 2, gates);
		CHECK(p.c.failed == 0 && p.c.inconclusive == 0, "seed %lu: the way back passes",
		      (unsigned long)seed);
		CHECK(p.c.total.cells[metric_find("hold.p99")].verdict == V_LOWER, "lower");
		release(&p, gates, 2);
	}
	/* a small change on the same few values is seen, not confirmed */
	{
		static const char *const small[] = { "hold.p99>+20%" };

		rng_state = 11;
		build_sized(&p, 1820, 56, 1.4, 0, 0, small, 1, gates);
		CHECK(total_outcome(&p, 0) == G_INCONCLUSIVE, "x1.4 on 56 values: %d",
		      total_outcome(&p, 0));
		release(&p, gates, 1);
	}
}

/* Sampling noise alone (same distribution, new draws) never fails. */
static void test_same_distribution(void)
{
	static const char *const texts[] = {
		"hold.p50>+10%", "hold.p90>+10%", "hold.p99>+10%", "hold.max>+10%",
		"wait.p99>+10%", "contended.rate>+10%", "locked.rate>+10%",
		"hold.p99<-10%", "contended.rate<-10%",
	};
	struct gate gates[9];
	struct pair p;
	int failures = 0, higher = 0;

	for (uint64_t seed = 1; seed <= 40; seed++) {
		rng_state = seed * 0xD1B54A32D192ED03ULL;
		build(&p, 10000, 1.0, 0.05, 0.05, texts, 9, gates);
		failures += p.c.failed > 0;
		for (int m = 0; m < nmetrics; m++)
			higher += p.c.total.cells[m].verdict == V_HIGHER ||
				  p.c.total.cells[m].verdict == V_LOWER;
		release(&p, gates, 9);
	}
	CHECK(failures == 0, "%d of 40 same-distribution pairs failed a gate", failures);
	/* per value at alpha 0.01 over 40 x 12 tested values: a handful at most */
	CHECK(higher <= 5, "%d values changed between same-distribution pairs", higher);
}

static void test_identical(void)
{
	static const char *const texts[] = { "hold.p99>+1%", "irqoff.max>+1%",
					     "contended.rate>+1%", "wait.p50>+1%" };
	struct gate gates[4];
	struct pair p;

	rng_state = 11;
	build(&p, 5000, 1.0, 0.1, 0.1, texts, 4, gates);
	/* make AFTER an exact copy of BEFORE */
	compare_free(&p.c);
	figures_free(&p.ra);
	CHECK(row_copy(&p.ra, &p.rb) == 0, "copy");
	free(p.ra.path);
	p.ra.path = p.rb.path;
	CHECK(compare_build(&p.c, gates, 4, NULL, (char[64]){ 0 }, 64) == 0, "rebuild");
	for (int m = 0; m < nmetrics; m++) {
		enum verdict v = p.c.total.cells[m].verdict;

		CHECK(v == V_SAME || v == V_NA || v == V_TOO_FEW, "%s: %s", metrics[m].name,
		      verdict_names[v]);
		CHECK(p.c.total.cells[m].ratio == 1, "%s ratio", metrics[m].name);
	}
	CHECK(p.c.failed == 0, "identical inputs fail no gate");
	release(&p, gates, 4);
}

/* Absolute gates look at AFTER, and a maximum is a measured fact. */
static void test_absolute(void)
{
	static const char *const texts[] = { "irqoff.max>5ms", "hold.p99>100us",
					     "contended.rate>20%" };
	struct gate gates[3];
	struct pair p;

	rng_state = 5;
	build(&p, 5000, 1.0, 0.1, 0.3, texts, 3, gates);
	CHECK(total_outcome(&p, 0) == G_PASS, "no 5 ms interval yet");
	CHECK(total_outcome(&p, 1) == G_PASS, "p99 near 2 us");
	CHECK(total_outcome(&p, 2) == G_FAIL, "30%% contended > 20%%");
	release(&p, gates, 3);

	rng_state = 5;
	build(&p, 5000, 1.0, 0.1, 0.1, texts, 3, gates);
	compare_free(&p.c);
	dist_add_value(&p.ra.dist[DIST_HOLD], 6000000);	/* one 6 ms hold */
	p.ra.count[COUNT_LOCKED]++;
	CHECK(compare_build(&p.c, gates, 3, NULL, (char[64]){ 0 }, 64) == 0, "rebuild");
	CHECK(total_outcome(&p, 0) == G_FAIL, "one 6 ms irqs-off interval fires irqoff.max>5ms");
	CHECK(total_outcome(&p, 2) == G_PASS, "10%% contended < 20%%");
	CHECK(p.c.total.cells[metric_find("irqoff.max")].verdict == V_SAME,
	      "but one outlier is not a significant change of the max");
	release(&p, gates, 3);
}

/*
 * Flush parts, mean ns per flush: an absolute gate fails when crossed (the
 * mean is of every flush); a relative one on one run a side is confirmed
 * by the bounded test (part_var_bound) with enough flushes, and not with
 * too few; a side that did not measure parts makes a gate inconclusive,
 * not a pass.
 */
static void test_flush_parts(void)
{
	static const char *const texts[] = { "flush.irq>1us", "flush.held>+20%", "flush.other>1ms" };
	struct gate gates[3];
	struct pair p;

	rng_state = 9;
	build(&p, 1000, 1.0, 0, 0, texts, 3, gates);
	compare_free(&p.c);
	for (int i = 0; i < 100; i++) {
		dist_add_value(&p.rb.dist[DIST_FLUSH], 10000);
		dist_add_value(&p.ra.dist[DIST_FLUSH], 12000);
	}
	p.rb.part[PART_HELD] = 100 * 6000;
	p.ra.part[PART_HELD] = 100 * 9000;	/* +50% */
	p.rb.part[PART_IRQ] = 100 * 500;
	p.ra.part[PART_IRQ] = 100 * 2000;	/* 2 us per flush */
	p.b.flush_parts = p.a.flush_parts = true;
	p.b.parts_from = p.a.parts_from = PARTS_FROM_TIMED;
	p.b.parts_measured = p.a.parts_measured = (1U << PART_MAX) - 1;
	CHECK(compare_build(&p.c, gates, 3, NULL, (char[64]){ 0 }, 64) == 0, "build");
	CHECK(p.c.total.cells[metric_find("flush.irq")].after == 2000, "irq per flush %.0f",
	      p.c.total.cells[metric_find("flush.irq")].after);
	CHECK(total_outcome(&p, 0) == G_FAIL, "2 us of irq per flush > 1 us");
	CHECK(total_outcome(&p, 1) == G_FAIL, "+50%% held over 100 flushes a side: confirmed");
	CHECK(total_outcome(&p, 2) == G_PASS, "no other time");
	CHECK(p.c.total.cells[metric_find("flush.held")].verdict == V_HIGHER, "held tested: %s",
	      verdict_names[p.c.total.cells[metric_find("flush.held")].verdict]);
	CHECK(p.c.total.cells[metric_find("flush.mean")].verdict == V_HIGHER &&
	      p.c.total.cells[metric_find("flush.mean")].after == 12000, "wall 10 -> 12 us");
	compare_free(&p.c);
	/* the same means over 20 flushes a side: too few for the normal test */
	{
		struct dist fb = p.rb.dist[DIST_FLUSH], fa = p.ra.dist[DIST_FLUSH];
		uint64_t hb = p.rb.part[PART_HELD], ha = p.ra.part[PART_HELD];
		uint64_t ib = p.rb.part[PART_IRQ], ia = p.ra.part[PART_IRQ];

		memset(&p.rb.dist[DIST_FLUSH], 0, sizeof(struct dist));
		memset(&p.ra.dist[DIST_FLUSH], 0, sizeof(struct dist));
		for (int i = 0; i < 20; i++) {
			dist_add_value(&p.rb.dist[DIST_FLUSH], 10000);
			dist_add_value(&p.ra.dist[DIST_FLUSH], 12000);
		}
		p.rb.part[PART_HELD] = 20 * 6000;
		p.ra.part[PART_HELD] = 20 * 9000;
		p.rb.part[PART_IRQ] = 20 * 500;
		p.ra.part[PART_IRQ] = 20 * 2000;
		CHECK(compare_build(&p.c, gates, 3, NULL, (char[64]){ 0 }, 64) == 0, "build");
		CHECK(total_outcome(&p, 1) == G_INCONCLUSIVE &&
		      p.c.total.cells[metric_find("flush.held")].verdict == V_TOO_FEW,
		      "+50%% held over 20 flushes: crossed, not confirmed");
		compare_free(&p.c);
		dist_free(&p.rb.dist[DIST_FLUSH]);
		dist_free(&p.ra.dist[DIST_FLUSH]);
		p.rb.dist[DIST_FLUSH] = fb;
		p.ra.dist[DIST_FLUSH] = fa;
		p.rb.part[PART_HELD] = hb;
		p.ra.part[PART_HELD] = ha;
		p.rb.part[PART_IRQ] = ib;
		p.ra.part[PART_IRQ] = ia;
	}
	/* parts from the kernel on one side: its irq is in other, not measured */
	p.a.parts_from = PARTS_FROM_KERNEL;
	p.a.parts_measured &= ~(1U << PART_IRQ);
	CHECK(compare_build(&p.c, gates, 3, NULL, (char[64]){ 0 }, 64) == 0, "build");
	CHECK(total_outcome(&p, 0) == G_INCONCLUSIVE && total_outcome(&p, 2) == G_INCONCLUSIVE &&
	      total_outcome(&p, 1) == G_FAIL,
	      "irq not measured by AFTER: its gate inconclusive, and other's (AFTER's holds irq); "
	      "held still alike and tested");
	CHECK(p.c.results[0].why && strstr(p.c.results[0].why, "not measured on both"),
	      "why irq's check has no values: %s", p.c.results[0].why ? p.c.results[0].why : "-");
	compare_free(&p.c);
	/* the same parts measured on both sides: other is alike again */
	p.b.parts_from = PARTS_FROM_KERNEL;
	p.b.parts_measured = p.a.parts_measured;
	CHECK(compare_build(&p.c, gates, 3, NULL, (char[64]){ 0 }, 64) == 0, "build");
	CHECK(total_outcome(&p, 2) == G_PASS, "kernel parts both sides: other tested");
	compare_free(&p.c);
	p.b.flush_parts = false;
	CHECK(compare_build(&p.c, gates, 3, NULL, (char[64]){ 0 }, 64) == 0, "build");
	CHECK(total_outcome(&p, 0) == G_INCONCLUSIVE && total_outcome(&p, 2) == G_INCONCLUSIVE,
	      "BEFORE without parts: every part gate inconclusive");
	CHECK(p.c.results[0].why && !strcmp(p.c.results[0].why, "no flush parts in BEFORE"),
	      "and says why, with no ratio: %s", p.c.results[0].why ? p.c.results[0].why : "-");
	release(&p, gates, 3);
}

/*
 * part_var_bound: for parts 0 <= x <= wall of each flush, the bound is at
 * least their variance, whatever the split; and the test made with it
 * rejects equal means at most as often as alpha says (conservative).
 */
static void test_part_var_bound(void)
{
	int rejected = 0, trials = 400;

	rng_state = 13;
	for (int t = 0; t < trials; t++) {
		struct dist w[2] = { 0 };
		double sum[2] = { 0 }, sq[2] = { 0 }, mean[2], bound[2];
		/* a part that is now a small share of each flush, now most of one */
		double share = uniform() < 0.5 ? 0.05 : 0.8;

		for (int s = 0; s < 2; s++) {
			for (int i = 0; i < 500; i++) {
				uint64_t wall = hold_sample(1000);
				double x = (double)wall * share * 2 * uniform();

				x = x > (double)wall ? (double)wall : x;
				dist_add_value(&w[s], wall);
				sum[s] += x;
				sq[s] += x * x;
			}
			mean[s] = sum[s] / 500;
			bound[s] = part_var_bound(&w[s], sum[s]);
			CHECK(bound[s] >= sq[s] / 500 - mean[s] * mean[s],
			      "bound %.4g below the variance %.4g", bound[s],
			      sq[s] / 500 - mean[s] * mean[s]);
		}
		rejected += mean_diff_p(500, mean[0], bound[0], 500, mean[1], bound[1]) < 0.05;
		dist_free(&w[0]);
		dist_free(&w[1]);
	}
	CHECK(rejected <= trials * 0.05, "%d of %d equal means rejected at 0.05", rejected, trials);
	CHECK(mean_diff_p(29, 1, 1, 500, 2, 1) < 0, "29 flushes: too few");
	{
		/* the last bucket holds what lies above its range: a 10 s flush is 10 s there */
		struct dist d = { 0 };
		double s = 0, sq = 0, var;

		for (int i = 0; i < 100; i++) {
			uint64_t v = i ? 1000 : 10000000000ULL;

			dist_add_value(&d, v);
			s += (double)v;
			sq += (double)v * (double)v;
		}
		var = sq / 100 - (s / 100) * (s / 100);
		CHECK(part_var_bound(&d, s) >= var, "beyond the last bucket: bound %.4g, variance %.4g",
		      part_var_bound(&d, s), var);
		dist_free(&d);
	}
	{
		/* the whole wall time: the bound is the walls' own spread, within a bucket */
		struct dist d = { 0 };
		double s = 0, sq = 0;

		for (int i = 0; i < 1000; i++) {
			uint64_t v = hold_sample(1000);

			dist_add_value(&d, v);
			s += (double)v;
			sq += (double)v * (double)v;
		}
		double var = sq / 1000 - (s / 1000) * (s / 1000), b = part_var_bound(&d, s);

		CHECK(b >= var && b < var * 1.25, "wall's bound %.4g against its variance %.4g", b,
		      var);
		dist_free(&d);
	}
}

/*
 * A metric made from the counters' table (flush.offcpu_share, a share of
 * the flushes): tested as a proportion; "-" and an inconclusive gate where
 * a side did not measure the counter; left out where neither did.
 */
static void test_counter_metric(void)
{
	static const char *const texts[] = { "flush.offcpu_share>+50%", "flush.offcpu_share>20%" };
	int m = metric_find("flush.offcpu_share");
	struct gate gates[2];
	struct pair p;

	CHECK(m >= 0 && metrics[m].kind == MK_SHARE && metrics[m].dist == DIST_FLUSH &&
	      metrics[m].count == COUNT_FLUSHES_OFFCPU && metrics[m].of < 0, "built from count_defs");
	rng_state = 11;
	build(&p, 1000, 1.0, 0, 0, texts, 2, gates);
	compare_free(&p.c);
	for (int i = 0; i < 400; i++) {
		dist_add_value(&p.rb.dist[DIST_FLUSH], 10000);
		dist_add_value(&p.ra.dist[DIST_FLUSH], 10000);
	}
	p.rb.count[COUNT_FLUSHES_OFFCPU] = 20;	/* 5% */
	p.ra.count[COUNT_FLUSHES_OFFCPU] = 120;	/* 30% */
	CHECK(compare_build(&p.c, gates, 2, NULL, (char[64]){ 0 }, 64) == 0, "build");
	CHECK(fabs(p.c.total.cells[m].after - 0.30) < 1e-9, "share %.3f",
	      p.c.total.cells[m].after);
	CHECK(p.c.total.cells[m].verdict == V_HIGHER, "5%% -> 30%% of 400 flushes: higher");
	CHECK(total_outcome(&p, 0) == G_FAIL && total_outcome(&p, 1) == G_FAIL, "both gates fail");
	CHECK(metric_shown(&p.c.total, m), "shown where measured");
	compare_free(&p.c);
	/* BEFORE did not measure it (a file from before it, or no offcpu part) */
	p.b.counts_unmeasured = 1U << COUNT_FLUSHES_OFFCPU;
	CHECK(compare_build(&p.c, gates, 2, NULL, (char[64]){ 0 }, 64) == 0, "build");
	CHECK(!p.c.total.cells[m].has_before && p.c.total.cells[m].has_after &&
	      metric_shown(&p.c.total, m), "BEFORE's \"-\", AFTER's shown");
	CHECK(total_outcome(&p, 0) == G_INCONCLUSIVE && total_outcome(&p, 1) == G_INCONCLUSIVE,
	      "a gate on what a side did not measure is inconclusive, not a pass");
	compare_free(&p.c);
	p.a.counts_unmeasured = p.b.counts_unmeasured;
	CHECK(compare_build(&p.c, gates, 2, NULL, (char[64]){ 0 }, 64) == 0, "build");
	CHECK(!metric_shown(&p.c.total, m), "neither side measured it: left out");
	release(&p, gates, 2);
}

/*
 * -f mail of c with --metric glob: within MAIL_COLUMNS, and every value of
 * BEFORE ends where the "before" heading does.
 */
static void check_mail_aligned(struct comparison *c, const char *glob)
{
	const char *const globs[] = { glob };
	const struct comparison *cs[1] = { c };
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0, edge = 0, rows = 0;
	FILE *f = open_memstream(&buf, &len);

	c->shown.metrics = globs;
	c->shown.nmetrics = 1;
	compare_mail_print(f, cs, 1, 0);
	fclose(f);
	c->shown.nmetrics = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		CHECK(text_columns(line) <= MAIL_COLUMNS, "%s", line);
		if (!strncmp(line, "metric ", 7))
			edge = (size_t)(strstr(line, "before") - line) + 6;
		else if (edge && !strncmp(line, "workload.", 9) && ++rows)
			CHECK(strlen(line) > edge && line[edge - 1] != ' ' && line[edge] == ' ',
			      "not aligned under \"before\": %s", line);
	}
	CHECK(rows >= 5, "%zu workload rows in the mail", rows);
	free(buf);
}

/* A hammer's figures: n reads of scale x 1 us in wall_ns. */
static void workload_fill(struct workload_info *w, uint64_t n, double scale, uint64_t wall_ns)
{
	*w = (struct workload_info){ .present = true, .runs = 1, .name = "hammer",
				     .wall_ns = wall_ns, .measured = 1U << WL_READS };
	w->count[WL_READS] = n;
	for (uint64_t i = 0; i < n; i++)
		dist_add_value(&w->read, hold_sample(scale));
}

/*
 * The workload's figures are the total's metrics: a slower workload fails
 * workload.reads.rate and workload.read.p99 gates; the same one passes; a
 * side without a workload is inconclusive, never a pass; a workload that
 * has no rounds shows none.
 */
static void test_workload_metrics(void)
{
	static const char *const texts[] = { "workload.reads.rate<-10%", "workload.read.p99>+20%",
					     "workload.rounds.late>10%" };
	int rate = metric_find("workload.reads.rate"), p99 = metric_find("workload.read.p99");
	int late = metric_find("workload.rounds.late");
	struct gate gates[3];
	struct pair p;

	CHECK(rate >= 0 && p99 >= 0 && late >= 0 && metrics[rate].workload &&
	      metrics[p99].dist == DIST_READ, "workload metrics built");
	rng_state = 17;
	build(&p, 100, 1.0, 0, 0, texts, 3, gates);
	compare_free(&p.c);
	/* AFTER: reads 1.5x slower, 1.5x longer */
	workload_fill(&p.b.workload, 20000, 1.0, 1000000000);
	workload_fill(&p.a.workload, 20000, 1.5, 1500000000);
	CHECK(compare_build(&p.c, gates, 3, NULL, (char[64]){ 0 }, 64) == 0, "build");
	CHECK(fabs(p.c.total.cells[rate].ratio - 1 / 1.5) < 1e-9 &&
	      p.c.total.cells[rate].verdict == V_LOWER, "reads/s: %.3fx",
	      p.c.total.cells[rate].ratio);
	CHECK(total_outcome(&p, 0) == G_FAIL && total_outcome(&p, 1) == G_FAIL,
	      "slower reads fail both gates");
	CHECK(total_outcome(&p, 2) == G_INCONCLUSIVE && !metric_shown(&p.c.total, late),
	      "no rounds on either side: not shown, its gate inconclusive");
	for (size_t i = 0; i < p.c.nrows; i++)
		CHECK(!p.c.rows[i].cells[rate].has_before && !metric_shown(&p.c.rows[i], rate),
		      "a cgroup has no workload figures");
	compare_free(&p.c);
	workload_free(&p.a.workload);
	workload_fill(&p.a.workload, 20000, 1.0, 1000000000);
	CHECK(compare_build(&p.c, gates, 3, NULL, (char[64]){ 0 }, 64) == 0, "build");
	CHECK(total_outcome(&p, 0) == G_PASS && total_outcome(&p, 1) == G_PASS,
	      "the same workload passes");
	compare_free(&p.c);
	workload_free(&p.a.workload);
	CHECK(compare_build(&p.c, gates, 3, NULL, (char[64]){ 0 }, 64) == 0, "build");
	CHECK(total_outcome(&p, 0) == G_INCONCLUSIVE && total_outcome(&p, 1) == G_INCONCLUSIVE,
	      "AFTER ran no workload: inconclusive");
	CHECK(p.c.total.cells[rate].has_before && !p.c.total.cells[rate].has_after,
	      "BEFORE's shown, AFTER's \"-\"");
	compare_free(&p.c);
	/* in a mail: names longer than the metric column and rates of 8 digits keep it aligned */
	workload_fill(&p.a.workload, 20000, 1.0, 1000000);
	CHECK(compare_build(&p.c, gates, 3, NULL, (char[64]){ 0 }, 64) == 0, "build");
	check_mail_aligned(&p.c, "workload.*");
	workload_free(&p.a.workload);
	workload_free(&p.b.workload);
	release(&p, gates, 3);
}

static void test_max_shift(void)
{
	static const char *const texts[] = { "hold.max>+50%" };
	struct gate gates[1];
	struct pair p;

	rng_state = 9;
	build(&p, 20000, 3.0, 0, 0, texts, 1, gates);
	CHECK(total_outcome(&p, 0) == G_FAIL, "whole distribution x3: max fires");
	release(&p, gates, 1);
}

static void test_gate_parse(void)
{
	static const char *const good[] = {
		"hold.p99>+20%", "irqoff.max>5ms", "hold.p99>100us", "wait.p50>1.5us",
		"contended.rate>+10%", "contended.rate>5%", "events.rate<-50%",
		"locked.rate>1000", "irqoff.p90>2s", "workload.reads.rate<-10%",
		"workload.read.p99>+20%", "workload.rounds.late>5%",
	};
	static const char *const bad[] = {
		"", "hold.p99", "hold.p99>", "hold.p99>20", "hold.p99>20%", "hold.p98>+20%",
		"events>+10%", "irqoff.max>5 ms", "irqoff.max>5xs", "contended.rate>150%",
		"hold.p99>+abc%", "hold.p99>+20", "events.rate>-", "x>1ms",
		"hold.p99>-10%", "hold.p99<+10%",
		"an.extremely.long.metric.name.that.overflows>1ms",
	};
	struct gate g;
	char err[256];

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		CHECK(gate_parse(good[i], &g, err, sizeof(err)) == 0, "%s: %s", good[i], err);
		free(g.text);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		CHECK(gate_parse(bad[i], &g, err, sizeof(err)) == -1, "accepted '%s'", bad[i]);
		CHECK(strchr(err, '\n') == NULL && err[0], "one line: %s", err);
	}
	CHECK(gate_parse("irqoff.max>5ms", &g, err, sizeof(err)) == 0 && !g.relative &&
	      g.above && g.limit == 5e6, "5ms in ns");
	free(g.text);
	CHECK(gate_parse("locked.rate<-50%", &g, err, sizeof(err)) == 0 && g.relative &&
	      !g.above && g.limit == -0.5, "-50%%");
	free(g.text);
	/* the mode is one bucket, not an estimate to test: shown, and said so when gated */
	CHECK(gate_parse("workload.read.mode>+20%", &g, err, sizeof(err)) == -1 &&
	      strstr(err, "workload.read.mode is shown, not tested or gated"), "%s", err);
	/* the old spellings of locked still parse, to the same metric */
	CHECK(metric_find("events.rate") == metric_find("locked.rate") &&
	      metric_find("events") == metric_find("locked") && metric_find("locked") >= 0,
	      "old spellings");
}

/* Rows pair by hierarchy and path, by id when the path is unknown. */
static void test_matching(void)
{
	struct row b[3] = {
		{ .cgid = 1, .hierarchy = 4, .path = "memory:/a", .count[COUNT_LOCKED] = 1 },
		{ .cgid = 7, .hierarchy = 0, .path = "", .count[COUNT_LOCKED] = 1 },
		{ .cgid = 3, .hierarchy = 0, .path = "/gone", .count[COUNT_LOCKED] = 1 },
	};
	struct row a[3] = {
		{ .cgid = 99, .hierarchy = 4, .path = "memory:/a", .count[COUNT_LOCKED] = 1 },
		{ .cgid = 7, .hierarchy = 0, .path = "", .count[COUNT_LOCKED] = 1 },
		{ .cgid = 5, .hierarchy = 0, .path = "/new", .count[COUNT_LOCKED] = 1 },
	};
	struct report rb = { .duration_ns = 1000000000, .cgroups = b, .ncgroups = 3,
			     .attach = "", .irqoff_rows = IRQOFF_ROWS_LOCK };
	struct report ra = rb;
	struct comparison c = { .alpha = 0.01, .noise = 0.05 };
	int both = 0, only_b = 0, only_a = 0;
	char err[128];

	ra.cgroups = a;
	c.before = (struct side){ .file = "b", .r = &rb, .irqoff_source = "lock" };
	c.after = (struct side){ .file = "a", .r = &ra, .irqoff_source = "lock" };
	CHECK(compare_build(&c, NULL, 0, NULL, err, sizeof(err)) == 0, "%s", err);
	CHECK(c.nrows == 4, "4 rows, got %zu", c.nrows);
	for (size_t i = 0; i < c.nrows; i++) {
		both += c.rows[i].presence == BOTH;
		only_b += c.rows[i].presence == ONLY_BEFORE;
		only_a += c.rows[i].presence == ONLY_AFTER;
	}
	CHECK(both == 2 && only_b == 1 && only_a == 1, "pairs %d %d %d", both, only_b, only_a);
	compare_free(&c);
	memset(&c.total, 0, sizeof(c.total));
	CHECK(compare_build(&c, NULL, 0, "/gone", err, sizeof(err)) == -1 &&
	      strstr(err, "only in BEFORE"), "--cgroup of a row only in BEFORE: %s", err);
	compare_free(&c);
	CHECK(compare_build(&c, NULL, 0, "/nowhere", err, sizeof(err)) == -1 &&
	      strstr(err, "neither"), "--cgroup nowhere: %s", err);
	compare_free(&c);
}

/*
 * Rows of a cgroup under two locks pair by cgroup and lock, labelled
 * "/a [lock]"; -c takes the label, and refuses the bare path of a cgroup
 * that has a row per lock instead of choosing one.
 */
static void test_lock_rows(void)
{
	struct row b[2] = {
		{ .cgid = 1, .path = "/a", .lock = "base", .count[COUNT_LOCKED] = 1 },
		{ .cgid = 1, .path = "/a", .lock = "memory", .lock_type = "read",
		  .count[COUNT_LOCKED] = 2 },
	};
	struct row a[2] = {
		{ .cgid = 1, .path = "/a", .lock = "memory", .lock_type = "read",
		  .count[COUNT_LOCKED] = 4 },
		{ .cgid = 1, .path = "/a", .lock = "base", .count[COUNT_LOCKED] = 2 },
	};
	struct report rb = { .duration_ns = 1000000000, .cgroups = b, .ncgroups = 2,
			     .attach = "", .irqoff_rows = IRQOFF_ROWS_LOCK, .lock_rows = true };
	struct report ra = rb;
	struct comparison c = { .alpha = 0.01, .noise = 0.05 };
	int paired = 0;
	char err[128];

	ra.cgroups = a;
	c.before = (struct side){ .file = "b", .r = &rb, .irqoff_source = "lock" };
	c.after = (struct side){ .file = "a", .r = &ra, .irqoff_source = "lock" };
	CHECK(compare_build(&c, NULL, 0, NULL, err, sizeof(err)) == 0, "%s", err);
	for (size_t i = 0; i < c.nrows; i++) {
		const struct cmp_row *r = &c.rows[i];

		paired += r->presence == BOTH && !strcmp(r->before->lock, r->after->lock) &&
			  r->after->count[COUNT_LOCKED] == r->before->count[COUNT_LOCKED] * 2 &&
			  strstr(row_label(r), "/a [") != NULL;
	}
	CHECK(c.nrows == 2 && paired == 2, "%zu rows, %d paired by lock", c.nrows, paired);
	compare_free(&c);
	memset(&c.total, 0, sizeof(c.total));
	CHECK(compare_build(&c, NULL, 0, "/a", err, sizeof(err)) == -1 &&
	      strstr(err, "has a row per lock"), "-c of a cgroup with two locks: %s", err);
	compare_free(&c);
	CHECK(compare_build(&c, NULL, 0, "/a [memory read]", err, sizeof(err)) == 0,
	      "-c a lock and its type: %s", err);
	compare_free(&c);
}

/* A run of -- COMMAND: its command cgroups, and rows (paths owned). */
static void command_run(struct report *r, struct row *rows, size_t n, const char *cg,
			const char *const *paths, const double *scales)
{
	static char *argv[] = { "make", "test" };

	for (size_t i = 0; i < n; i++) {
		fill(&rows[i], "", 2000, scales[i], 0);
		rows[i].path = strdup(paths[i]);
	}
	*r = (struct report){ .duration_ns = 1000000000, .cgroups = rows, .ncgroups = n,
			      .attach = "tracepoint", .irqoff_rows = IRQOFF_ROWS_LOCK };
	r->command = (struct command_info){
		.present = true, .argv = argv, .argc = 2, .ended = true, .ncgroups = 2,
		.cgroups = { { .id = 7, .hierarchy = 0, .path = (char *)cg },
			     { .id = 8, .hierarchy = 4 } },
	};
	r->command.cgroups[1].path = strstr(cg, "memory:") ? (char *)cg : "memory:/rstatlat-x";
}

static void command_rows_free(struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		figures_free(&rows[i]);
		free(rows[i].path);
	}
}

/*
 * Runs of a command pair their command cgroups, each named after its own
 * run, as "(command)" (and what is below them), and the gates check only
 * those rows: a background cgroup that doubled is shown, not gated. A
 * command row one side lacks, or none at all, is inconclusive, with why.
 */
static void test_command_rows(void)
{
	static const char *const bp[] = { "/rstatlat-10", "/rstatlat-10/sub", "/bg" };
	static const char *const ap[] = { "/rstatlat-20", "/rstatlat-20/sub", "/bg" };
	static const double bs[] = { 1, 1, 1 }, as[] = { 3, 1, 5 };
	struct row rb[3], ra[3];
	struct report b, a;
	const struct command_info *cmds[2] = { &b.command, &a.command };
	struct comparison c = { .alpha = 0.01, .noise = 0.05 };
	struct gate g;
	char err[128];
	size_t paired = 0;

	command_run(&b, rb, 3, "/rstatlat-10", bp, bs);
	command_run(&a, ra, 3, "/rstatlat-20", ap, as);
	CHECK(gate_parse("hold.p99>+50%", &g, err, sizeof(err)) == 0, "%s", err);
	CHECK(compare_relabel_command(&b) == 0 && compare_relabel_command(&a) == 0, "relabel");
	CHECK_STR(rb[0].path, "(command)");
	CHECK_STR(ra[1].path, "(command)/sub");
	CHECK_STR(rb[2].path, "/bg");
	CHECK(compare_command_rows(&c, cmds, 2) == 0 && c.ncommand_rows == 2, "labels");
	CHECK_STR(c.command_rows[1], "memory:(command)");
	c.before = (struct side){ .file = "b", .r = &b, .runs = &b, .nruns = 1,
				  .irqoff_source = "lock" };
	c.after = (struct side){ .file = "a", .r = &a, .runs = &a, .nruns = 1,
				 .irqoff_source = "lock" };
	CHECK(compare_build(&c, &g, 1, NULL, err, sizeof(err)) == 0, "%s", err);
	for (size_t i = 0; i < c.nrows; i++)
		paired += c.rows[i].presence == BOTH;
	CHECK(paired == 3 && c.nrows == 3, "%zu rows, %zu paired", c.nrows, paired);
	CHECK(c.nresults == 1 && !strcmp(row_label(c.results[0].row), "(command)") &&
	      c.results[0].outcome == G_FAIL && c.failed == 1, "%zu checks, first on %s: %d",
	      c.nresults, c.nresults ? row_label(c.results[0].row) : "-",
	      c.nresults ? (int)c.results[0].outcome : -1);
	compare_free(&c);
	/* --cgroup takes over */
	c = (struct comparison){ .alpha = 0.01, .noise = 0.05, .before = c.before, .after = c.after };
	CHECK(compare_command_rows(&c, cmds, 2) == 0, "labels");
	CHECK(compare_build(&c, &g, 1, "/bg", err, sizeof(err)) == 0, "%s", err);
	CHECK(c.nresults == 1 && !strcmp(row_label(c.results[0].row), "/bg"), "--cgroup /bg");
	compare_free(&c);
	/* AFTER's command flushed nothing: inconclusive, and why */
	c = (struct comparison){ .alpha = 0.01, .noise = 0.05, .before = c.before, .after = c.after };
	free(ra[0].path);
	ra[0].path = strdup("/other");
	CHECK(compare_command_rows(&c, cmds, 2) == 0, "labels");
	CHECK(compare_build(&c, &g, 1, NULL, err, sizeof(err)) == 0, "%s", err);
	CHECK(c.nresults == 1 && c.results[0].outcome == G_INCONCLUSIVE && c.results[0].why &&
	      strstr(c.results[0].why, "AFTER") && c.inconclusive == 1, "only in BEFORE");
	compare_free(&c);
	/* neither side did */
	c = (struct comparison){ .alpha = 0.01, .noise = 0.05, .before = c.before, .after = c.after };
	free(rb[0].path);
	rb[0].path = strdup("/else");
	CHECK(compare_command_rows(&c, cmds, 2) == 0, "labels");
	CHECK(compare_build(&c, &g, 1, NULL, err, sizeof(err)) == 0, "%s", err);
	CHECK(c.nresults == 1 && c.results[0].outcome == G_INCONCLUSIVE &&
	      !strcmp(row_label(c.results[0].row), "(command)") && c.results[0].why,
	      "no command rows at all");
	compare_free(&c);
	command_rows_free(rb, 3);
	command_rows_free(ra, 3);
	free(g.text);
}

/* Regressions sort first; rows only on one side last. */
static void test_sorting(void)
{
	struct row b[3], a[3];
	struct report rb = { .duration_ns = 1000000000, .cgroups = b, .ncgroups = 3,
			     .attach = "", .irqoff_rows = IRQOFF_ROWS_LOCK };
	struct report ra = rb;
	struct comparison c = { .alpha = 0.01, .noise = 0.05 };
	char err[128];

	rng_state = 21;
	fill(&b[0], "/steady", 5000, 1, 0);
	fill(&a[0], "/steady", 5000, 1, 0);
	fill(&b[1], "/worse", 5000, 1, 0);
	fill(&a[1], "/worse", 5000, 2, 0);
	fill(&b[2], "/much-worse", 5000, 1, 0);
	fill(&a[2], "/much-worse", 5000, 4, 0);
	ra.cgroups = a;
	c.before = (struct side){ .file = "b", .r = &rb, .irqoff_source = "lock" };
	c.after = (struct side){ .file = "a", .r = &ra, .irqoff_source = "lock" };
	CHECK(compare_build(&c, NULL, 0, NULL, err, sizeof(err)) == 0, "%s", err);
	CHECK_STR(row_label(&c.rows[0]), "/much-worse");
	CHECK_STR(row_label(&c.rows[1]), "/worse");
	CHECK_STR(row_label(&c.rows[2]), "/steady");
	compare_free(&c);
	for (int i = 0; i < 3; i++) {
		figures_free(&b[i]);
		figures_free(&a[i]);
	}
}

/*
 * -f mail holds every line to MAIL_COLUMNS, whatever the cgroup's name
 * (long, multi-byte, with control bytes), the title, the notes, the gate
 * text and the values: here with three pairs, one line of pairs wrapped.
 */
static void test_mail_width(void)
{
	static const char *const texts[] = { "hold.p99>+10%", "irqoff.max>1ns" };
	static const char *const notes[] = {
		"a note far longer than any line of a mail may be, to be cut at the edge of it",
	};
	char path[300] = "/", *buf = NULL, *line, *save = NULL;
	const struct comparison *cs[3];
	struct gate gates[2];
	size_t len = 0, lines = 0, widest = 0;
	struct pair p;
	FILE *f;

	/* "/éé...日日...\x1b[2J": narrow 2-byte and wide 3-byte characters, an escape */
	for (int i = 0; i < 40; i++)
		strcat(path, "\xc3\xa9");
	for (int i = 0; i < 40; i++)
		strcat(path, "\xe6\x97\xa5");
	strcat(path, "\x1b[2J");
	rng_state = 17;
	build(&p, 2000, 300.0, 0.1, 0.2, texts, 2, gates);
	compare_free(&p.c);
	p.rb.path = p.ra.path = path;
	p.c.title = path;
	p.c.notes = notes;
	p.c.nnotes = 1;
	CHECK(compare_build(&p.c, gates, 2, path, (char[64]){ 0 }, 64) == 0, "build");
	cs[0] = cs[1] = cs[2] = &p.c;
	f = open_memstream(&buf, &len);
	compare_mail_print(f, cs, 3, 0);
	fclose(f);
	CHECK(!strchr(buf, '\x1b'), "a terminal escape reached the mail");
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t cols = text_columns(line);

		CHECK(cols <= MAIL_COLUMNS, "%zu columns: %s", cols, line);
		widest = cols > widest ? cols : widest;
		lines++;
	}
	CHECK(lines > 30 && widest >= MAIL_COLUMNS - 1, "%zu lines, the widest %zu columns",
	      lines, widest);
	free(buf);
	p.rb.path = p.ra.path = "/w";
	release(&p, gates, 2);
}

int main(void)
{
	RUN_TEST(test_stats());
	RUN_TEST(test_part_var_bound());
	RUN_TEST(test_mail_width());
	RUN_TEST(test_relative_shifts());
	RUN_TEST(test_rank_bounds());
	RUN_TEST(test_welch());
	RUN_TEST(test_few_values_fail_closed());
	RUN_TEST(test_large_change_few_values());
	RUN_TEST(test_same_distribution());
	RUN_TEST(test_identical());
	RUN_TEST(test_absolute());
	RUN_TEST(test_max_shift());
	RUN_TEST(test_flush_parts());
	RUN_TEST(test_counter_metric());
	RUN_TEST(test_workload_metrics());
	RUN_TEST(test_gate_parse());
	RUN_TEST(test_matching());
	RUN_TEST(test_lock_rows());
	RUN_TEST(test_command_rows());
	RUN_TEST(test_sorting());
	return check_done("test_compare");
}

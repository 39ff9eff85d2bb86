// SPDX-License-Identifier: GPL-2.0
/* Histogram layout and quantiles against exact values from sorted data. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include "check.h"
#include "dist_check.h"
#include "report.h"

#include "rng.h"

static double uniform01(void)
{
	return (double)(xorshift() >> 11) / (double)(1ULL << 53);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t exact_quantile(const uint64_t *sorted, size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);

	return sorted[(rank ? rank : 1) - 1];
}

static void test_layout(void)
{
	CHECK(hist_bucket(0) == 0, "0");
	CHECK(hist_bucket((1 << HIST_LOW_SHIFT) - 1) == 0, "below the log range");
	CHECK(hist_bucket(1 << HIST_LOW_SHIFT) == 1, "first log bucket");
	CHECK(hist_bucket(~0ULL) == HIST_BUCKETS - 1, "max");
	for (unsigned int b = 0; b + 1 < HIST_BUCKETS; b++)
		CHECK(hist_bucket_upper(b) == hist_bucket_lower(b + 1), "bucket %u contiguous", b);
	for (unsigned int b = 1; b < HIST_BUCKETS; b++) {
		uint64_t lo = hist_bucket_lower(b), hi = hist_bucket_upper(b);

		CHECK((hi - lo) * HIST_SUB <= lo, "bucket %u wider than 1/%d", b, HIST_SUB);
		CHECK(hist_bucket(lo) == b && hist_bucket(hi - 1) == b, "bucket %u bounds", b);
	}
	/* ~100 ns to >= 4 s at full resolution (a longer hold is a stalled machine) */
	CHECK(hist_bucket_lower(HIST_BUCKETS - 1) >= 4000000000ULL, "covers 4 s");
	for (int i = 0; i < 100000; i++) {
		uint64_t v = xorshift() >> (xorshift() % 64);
		unsigned int b = hist_bucket(v);

		CHECK(b < HIST_BUCKETS, "in range");
		if (b < HIST_BUCKETS - 1)
			CHECK(hist_bucket_lower(b) <= v && v < hist_bucket_upper(b),
			      "%llu in bucket %u", (unsigned long long)v, b);
	}
}

typedef uint64_t (*sampler)(void);

static uint64_t s_uniform(void) { return 200 + xorshift() % 5000; }
static uint64_t s_lognormal(void)
{
	double u1 = uniform01() + 1e-12, u2 = uniform01();
	double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);

	return (uint64_t)exp(8.0 + 1.5 * z);	/* median ~3 us, long tail */
}
static uint64_t s_bimodal(void) { return xorshift() % 10 ? 150 + xorshift() % 50 : 2000000 + xorshift() % 100000; }
static uint64_t s_constant(void) { return 1234; }
static uint64_t s_heavy(void) { return (uint64_t)(100.0 / pow(uniform01() + 1e-9, 1.2)); }

static void test_quantiles_against(const char *name, sampler f, size_t n)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	uint64_t *v = malloc(n * sizeof(*v));
	struct dist d = { 0 };

	for (size_t i = 0; i < n; i++) {
		v[i] = f();
		dist_add_value(&d, v[i]);
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	CHECK(d.count == n && d.max == v[n - 1], "%s count/max", name);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t exact = exact_quantile(v, n, qs[i]), est = dist_quantile(&d, qs[i]);
		double err = fabs((double)est - (double)exact) / (double)exact;

		/* midpoint of a bucket at most 1/HIST_SUB wide */
		CHECK(exact < (1 << HIST_LOW_SHIFT) || err <= 0.5 / HIST_SUB, "%s p%g: exact %llu est %llu err %.3f", name,
		      qs[i] * 100, (unsigned long long)exact, (unsigned long long)est, err);
	}
	dist_free(&d);
	free(v);
}

static void test_merge(void)
{
	struct dist a = { 0 }, b = { 0 }, all = { 0 };

	for (int i = 0; i < 1000; i++) {
		uint64_t x = s_lognormal();

		dist_add_value(i % 3 ? &a : &b, x);
		dist_add_value(&all, x);
	}
	dist_merge(&a, &b);
	CHECK(same_dist(&a, &all), "merge equals adding everything");
	CHECK(dist_quantile(&(struct dist){ 0 }, 0.99) == 0, "empty dist");
	dist_free(&a);
	dist_free(&b);
	dist_free(&all);
}

int main(void)
{
	rng_seed(88172645463325252ULL);
	RUN_TEST(test_layout());
	RUN_TEST(test_quantiles_against("uniform", s_uniform, 20000));
	RUN_TEST(test_quantiles_against("lognormal", s_lognormal, 50000));
	RUN_TEST(test_quantiles_against("bimodal", s_bimodal, 30000));
	RUN_TEST(test_quantiles_against("constant", s_constant, 1000));
	RUN_TEST(test_quantiles_against("heavy", s_heavy, 50000));
	RUN_TEST(test_quantiles_against("small", s_lognormal, 7));
	RUN_TEST(test_merge());
	return check_done("test_hist");
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Sparse distributions: adding in and out of order, merging, copying,
 * freeing; quantiles and rank walks equal to the dense implementation they
 * replaced (kept below as the reference); rows that own their
 * distributions; and where rows' irqs-off come from.
 */
#include <math.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "dist_check.h"
#include "report.h"
#include "stats.h"

#include "rng.h"

/* Buckets ascending, each non-empty, adding up to count. */
static bool well_formed(const struct dist *d)
{
	uint64_t sum = 0;

	if (d->n > d->cap || (d->n && !d->b))
		return false;
	for (uint32_t i = 0; i < d->n; i++) {
		if (!d->b[i].count || d->b[i].index >= HIST_BUCKETS ||
		    (i && d->b[i].index <= d->b[i - 1].index))
			return false;
		sum += d->b[i].count;
	}
	return sum == d->count;
}

static void test_append(void)
{
	struct dist d = { 0 };
	uint32_t caps = 0, last_cap = 0;

	for (unsigned int b = 0; b < HIST_BUCKETS; b++) {
		CHECK(dist_add(&d, b, b + 1) == 0, "append %u", b);
		if (d.cap != last_cap) {
			caps++;
			last_cap = d.cap;
		}
	}
	CHECK(d.n == HIST_BUCKETS && well_formed(&d), "all %u buckets", d.n);
	CHECK(d.count == (uint64_t)HIST_BUCKETS * (HIST_BUCKETS + 1) / 2, "count %llu",
	      (unsigned long long)d.count);
	CHECK(d.sum == 0 && d.max == 0, "dist_add leaves sum and max alone");
	/* amortized O(1): the array doubles, it does not grow by one */
	CHECK(caps <= 8, "%u allocations for %d appends", caps, HIST_BUCKETS);
	CHECK(dist_add(&d, HIST_BUCKETS - 1, 5) == 0 && d.n == HIST_BUCKETS &&
	      dist_bucket_count(&d, HIST_BUCKETS - 1) == HIST_BUCKETS + 5, "add to the top");
	dist_free(&d);
}

static void test_insert(void)
{
	struct dist d = { 0 };
	static const unsigned int want[] = { 5, 10, 20, 30, 440 };

	dist_add(&d, 10, 1);
	dist_add(&d, 30, 3);
	dist_add(&d, 20, 2);	/* between */
	dist_add(&d, 5, 4);	/* below all */
	dist_add(&d, 440, 6);	/* above all */
	dist_add(&d, 20, 10);	/* an existing bucket in the middle */
	CHECK(d.n == 5 && well_formed(&d), "n %u", d.n);
	for (uint32_t i = 0; i < d.n && i < 5; i++)
		CHECK(d.b[i].index == want[i], "position %u: %u", i, d.b[i].index);
	CHECK(dist_bucket_count(&d, 20) == 12 && dist_bucket_count(&d, 5) == 4 &&
	      dist_bucket_count(&d, 440) == 6 && dist_bucket_count(&d, 21) == 0 &&
	      dist_bucket_count(&d, 0) == 0, "bucket counts");
	CHECK(d.count == 26, "count %llu", (unsigned long long)d.count);
	/* beyond the layout: the last bucket, which holds everything beyond */
	CHECK(dist_add(&d, HIST_BUCKETS + 7, 1) == 0 &&
	      dist_bucket_count(&d, HIST_BUCKETS - 1) == 1 && well_formed(&d), "index clamped");
	dist_free(&d);

	/* random order equals sorted order */
	{
		struct dist a = { 0 }, s = { 0 };
		uint64_t dense[HIST_BUCKETS] = { 0 };

		for (int i = 0; i < 5000; i++) {
			unsigned int b = (unsigned int)(xorshift() % HIST_BUCKETS);
			uint64_t n = xorshift() % 4;

			dist_add(&a, b, n);
			dense[b] += n;
		}
		for (unsigned int b = 0; b < HIST_BUCKETS; b++)
			dist_add(&s, b, dense[b]);
		CHECK(well_formed(&a) && same_dist(&a, &s), "random order: %u buckets", a.n);
		dist_free(&a);
		dist_free(&s);
	}
}

static void test_empty_and_zero(void)
{
	struct dist d = { 0 }, c = { 0 };

	CHECK(dist_add(&d, 17, 0) == 0 && d.n == 0 && d.b == NULL && d.count == 0,
	      "n == 0 on an empty dist allocates nothing");
	dist_add(&d, 17, 2);
	CHECK(dist_add(&d, 3, 0) == 0 && d.n == 1 && d.count == 2 &&
	      dist_bucket_count(&d, 3) == 0, "n == 0 adds no bucket");
	dist_free(&d);
	CHECK(d.b == NULL && d.n == 0 && d.cap == 0 && d.count == 0, "freed: all zero");
	dist_free(&d);	/* twice is harmless */
	CHECK(dist_quantile(&d, 0.5) == 0 && dist_rank_bucket(&d, 1) == 0, "empty quantiles");
	CHECK(dist_bucket_count(&d, 0) == 0, "empty bucket count");
	CHECK(dist_copy(&c, &d) == 0 && c.b == NULL && c.n == 0, "copy of empty");
	CHECK(dist_merge(&c, &d) == 0 && c.b == NULL && c.count == 0, "merge of empties");
	dist_free(&c);
}

static void test_merge(void)
{
	struct dist a = { 0 }, b = { 0 }, all = { 0 }, e = { 0 };
	uint32_t nb = 0;

	/* interleaved: evens in a, odds and every fifth in b */
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		if (i % 2 == 0) {
			dist_add(&a, i, i + 1);
			dist_add(&all, i, i + 1);
		}
		if (i % 2 || i % 5 == 0) {
			dist_add(&b, i, 2);
			dist_add(&all, i, 2);
			nb++;
		}
	}
	a.sum = 10, a.max = 7;
	b.sum = 5, b.max = 9;
	all.sum = 15, all.max = 9;
	CHECK(dist_merge(&a, &b) == 0 && well_formed(&a), "merged");
	CHECK(same_dist(&a, &all), "interleaved merge: %u buckets", a.n);
	CHECK(b.n == nb && b.count == 2 * nb && well_formed(&b), "from unchanged: %u", b.n);
	/* into empty, from empty */
	CHECK(dist_merge(&e, &b) == 0 && same_dist(&e, &b) && e.b != b.b, "into empty");
	CHECK(dist_merge(&e, &(struct dist){ 0 }) == 0 && same_dist(&e, &b), "from empty");
	/* a distribution merged with itself doubles */
	dist_free(&all);
	dist_copy(&all, &b);
	for (uint32_t i = 0; i < all.n; i++)
		all.b[i].count *= 2;
	all.count *= 2;
	all.sum *= 2;
	CHECK(dist_merge(&b, &b) == 0 && same_dist(&b, &all), "self merge");
	dist_free(&a);
	dist_free(&b);
	dist_free(&e);
	dist_free(&all);
}

static void test_copy(void)
{
	struct dist src = { 0 }, dst;

	for (int i = 0; i < 1000; i++)
		dist_add_value(&src, xorshift() % 1000000);
	memset(&dst, 0, sizeof(dst));
	CHECK(dist_copy(&dst, &src) == 0 && same_dist(&dst, &src), "copy equals");
	CHECK(dst.b != src.b && dst.cap == dst.n, "its own exact array");
	dst.b[0].count++;
	dst.count++;
	CHECK(src.b[0].count + 1 == dst.b[0].count, "independent");
	dist_free(&src);
	CHECK(well_formed(&dst), "outlives its source");
	dist_free(&dst);
}

/* --- the dense implementation the sparse one replaced, as the reference --- */

struct dense {
	uint64_t count, sum, max;
	uint64_t buckets[HIST_BUCKETS];
};

static uint64_t dense_estimate(const struct dense *d, int b)
{
	uint64_t mid = hist_bucket_lower(b) + (hist_bucket_upper(b) - hist_bucket_lower(b)) / 2;

	return d->max && mid > d->max ? d->max : mid;
}

static int dense_rank_bucket(const struct dense *d, uint64_t rank)
{
	uint64_t seen = 0;
	int b = 0;

	if (rank >= d->count / 2) {
		uint64_t from_top = d->count - rank + 1;

		b = d->max ? (int)hist_bucket(d->max) : HIST_BUCKETS - 1;
		while (b > 0 && seen + d->buckets[b] < from_top)
			seen += d->buckets[b--];
		return b;
	}
	while (b < HIST_BUCKETS - 1 && seen + d->buckets[b] < rank)
		seen += d->buckets[b++];
	return b;
}

static uint64_t dense_quantile(const struct dense *d, double q)
{
	uint64_t rank;

	if (!d->count)
		return 0;
	rank = (uint64_t)ceil(q * (double)d->count);
	rank = rank < 1 ? 1 : rank > d->count ? d->count : rank;
	return dense_estimate(d, dense_rank_bucket(d, rank));
}

static uint64_t dense_above_max(const struct dense *a, const struct dense *b)
{
	uint64_t n = 0;

	for (int i = (int)hist_bucket(b->max) + 1; i < HIST_BUCKETS; i++)
		n += a->buckets[i];
	return n;
}

static void dense_add(struct dense *d, uint64_t v)
{
	d->buckets[hist_bucket(v)]++;
	d->count++;
	d->sum += v;
	if (v > d->max)
		d->max = v;
}

/* Values of one of a few shapes, all of them in the tails of the layout. */
static uint64_t sample(int shape)
{
	switch (shape) {
	case 0: return xorshift() % 20;				/* bucket 0 and 1 */
	case 1: return 100 + xorshift() % 5000;
	case 2: return xorshift() >> (xorshift() % 64);		/* every octave */
	case 3: return xorshift() % 10 ? 150 : 40000000000ULL + xorshift() % 1000;
	default: return 1234;
	}
}

static void test_against_dense(void)
{
	static const double qs[] = { 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0 };
	static const double down[] = { 0.999, 0.99, 0.5, 0.9, 0.0, 1.0, 0.25, 0.999 };
	int mismatches = 0, checked = 0;

	for (int t = 0; t < 400; t++) {
		struct dist d = { 0 }, other = { 0 };
		struct dense *r = calloc(1, sizeof(*r)), *ro = calloc(1, sizeof(*ro));
		size_t n = t % 7 == 0 ? (size_t)(1 + t % 5) : (size_t)(xorshift() % 20000 + 1);
		int shape = t % 5;
		uint64_t got[10], got_down[8];

		for (size_t i = 0; i < n; i++) {
			uint64_t v = sample(shape);

			dist_add_value(&d, v);
			dense_add(r, v);
			v = sample((shape + 1) % 5);
			dist_add_value(&other, v);
			dense_add(ro, v);
		}
		/* quantiles, all at once in both orders and one by one */
		dist_quantiles(&d, qs, 10, got);
		dist_quantiles(&d, down, 8, got_down);
		for (int i = 0; i < 10; i++) {
			mismatches += got[i] != dense_quantile(r, qs[i]);
			mismatches += dist_quantile(&d, qs[i]) != dense_quantile(r, qs[i]);
			checked += 2;
		}
		for (int i = 0; i < 8; i++, checked++)
			mismatches += got_down[i] != dense_quantile(r, down[i]);
		/* every rank for small ones, random ranks for large */
		for (int i = 0; i < 200; i++, checked++) {
			uint64_t rank = n <= 200 ? (uint64_t)i % n + 1 : xorshift() % n + 1;

			mismatches += dist_rank_bucket(&d, rank) != dense_rank_bucket(r, rank);
		}
		mismatches += count_above_max(&d, &other) != dense_above_max(r, ro);
		mismatches += count_above_max(&other, &d) != dense_above_max(ro, r);
		checked += 2;
		/* and after a merge */
		dist_merge(&d, &other);
		for (int i = 0; i < HIST_BUCKETS; i++)
			r->buckets[i] += ro->buckets[i];
		r->count += ro->count;
		r->max = r->max > ro->max ? r->max : ro->max;
		for (int i = 0; i < 10; i++, checked++)
			mismatches += dist_quantile(&d, qs[i]) != dense_quantile(r, qs[i]);
		mismatches += !well_formed(&d);
		dist_free(&d);
		dist_free(&other);
		free(r);
		free(ro);
	}
	CHECK(mismatches == 0, "%d of %d quantiles and ranks differ from the dense reference",
	      mismatches, checked);
}

/* --- rows own what they point to --- */

static void fill_row(struct row *row, bool irqoff)
{
	memset(row, 0, sizeof(*row));
	row->path = strdup("/a/b");
	row->own_cgroup = strdup("/own");
	row->count[COUNT_LOCKED] = 10;
	row->exited = 2;
	row->removed_cgroups = 3;
	for (int i = 0; i < 50; i++) {
		dist_add_value(&row->dist[DIST_HOLD], 100 + xorshift() % 100000);
		dist_add_value(&row->dist[DIST_WAIT], 100 + xorshift() % 1000);
		dist_add_value(&row->dist[DIST_FLUSH], 100 + xorshift() % 10000000);
	}
	if (irqoff)
		dist_add_value(&row->dist[DIST_IRQOFF], 12345);
	row->count[COUNT_FLUSH_HOLDS] = 7;
	row->count[COUNT_FLUSH_HOLDS_MAX] = 5;
}

static bool shares(const struct row *a, const struct row *b)
{
	for (int k = 0; k < DIST_ROW_MAX; k++)
		if (a->dist[k].b && a->dist[k].b == b->dist[k].b)
			return true;
	return a->path == b->path || a->own_cgroup == b->own_cgroup;
}

static bool same_dists(const struct row *a, const struct row *b)
{
	for (int k = 0; k < DIST_ROW_MAX; k++)
		if (!same_dist(&a->dist[k], &b->dist[k]))
			return false;
	return true;
}

static void test_rows(void)
{
	struct row src, dst, sum;

	fill_row(&src, true);
	CHECK(row_copy(&dst, &src) == 0, "copy");
	CHECK(!shares(&dst, &src), "a copy shares nothing");
	CHECK(!strcmp(dst.path, "/a/b") && !strcmp(dst.own_cgroup, "/own") && same_dists(&dst, &src) &&
	      !memcmp(dst.count, src.count, sizeof(dst.count)) && dst.exited == 2 &&
	      dst.removed_cgroups == 3, "a copy is equal");
	row_free(&src);
	CHECK(src.path == NULL && src.dist[DIST_IRQOFF].b == NULL && src.dist[DIST_HOLD].b == NULL,
	      "freed: zeroed");
	CHECK(well_formed(&dst.dist[DIST_HOLD]) && dst.dist[DIST_IRQOFF].count == 1,
	      "the copy outlives its source");

	/* merge: into has no irqoff, from has one; never aliased */
	memset(&sum, 0, sizeof(sum));
	CHECK(row_merge(&sum, &dst) == 0 && row_merge(&sum, &dst) == 0, "merge twice");
	CHECK(!shares(&sum, &dst), "a merge shares nothing");
	CHECK(sum.count[COUNT_LOCKED] == 20 && sum.dist[DIST_HOLD].count == 100 &&
	      sum.dist[DIST_IRQOFF].count == 2 && sum.exited == 4 && sum.removed_cgroups == 6,
	      "merged figures");
	/* the counters' table: sums add, maxima keep the largest */
	CHECK(sum.count[COUNT_FLUSH_HOLDS] == 14 && sum.count[COUNT_FLUSH_HOLDS_MAX] == 5,
	      "flush_holds %" PRIu64 ", flush_holds_max %" PRIu64, sum.count[COUNT_FLUSH_HOLDS],
	      sum.count[COUNT_FLUSH_HOLDS_MAX]);
	CHECK(dst.dist[DIST_HOLD].count == 50 && dst.dist[DIST_IRQOFF].count == 1 && dst.exited == 2,
	      "from unchanged");
	CHECK(sum.path == NULL, "identity left alone");
	row_free(&dst);
	CHECK(well_formed(&sum.dist[DIST_HOLD]) && sum.dist[DIST_IRQOFF].count == 2,
	      "the sum outlives its parts");
	row_free(&sum);

	/* a row without irqoff copies without one */
	fill_row(&src, false);
	CHECK(row_copy(&dst, &src) == 0 && dst.dist[DIST_IRQOFF].count == 0 &&
	      dst.dist[DIST_IRQOFF].b == NULL, "no irqoff, none invented");
	row_free(&src);
	row_free(&dst);
}

static void test_row_irqoff(void)
{
	struct report r = { 0 };
	struct row row;
	const struct dist *d;

	fill_row(&row, false);
	CHECK(row_irqoff(&r, &row) == NULL, "zeroed report: none");
	r.irqoff_rows = IRQOFF_ROWS_NONE;
	CHECK(row_irqoff(&r, &row) == NULL, "none");
	r.irqoff_rows = IRQOFF_ROWS_LOCK;
	CHECK(row_irqoff(&r, &row) == &row.dist[DIST_HOLD], "holds");
	r.irqoff_rows = IRQOFF_ROWS_TRACED;
	d = row_irqoff(&r, &row);
	CHECK(d && d->count == 0 && d->n == 0 && d->max == 0, "traced, none seen: empty");
	dist_add_value(&row.dist[DIST_IRQOFF], 777);
	CHECK(row_irqoff(&r, &row) == &row.dist[DIST_IRQOFF], "traced: measured");
	r.irqoff_rows = IRQOFF_ROWS_LOCK;
	CHECK(row_irqoff(&r, &row) == &row.dist[DIST_HOLD], "holds, whatever irqoff holds");
	r.irqoff_rows = IRQOFF_ROWS_NONE;
	CHECK(row_irqoff(&r, &row) == NULL, "none, whatever irqoff holds");
	row_free(&row);
}

/* report_free frees rows and the summaries' distributions (valgrind says). */
static void test_report_free(void)
{
	struct report r = { 0 };
	size_t cap = 0;

	for (int i = 0; i < 3; i++)
		fill_row(report_add_row(&r.cgroups, &r.ncgroups, &cap), i == 1);
	cap = 0;
	fill_row(report_add_row(&r.processes, &r.nprocesses, &cap), true);
	dist_add_value(&r.cpu_lock.hold, 1);
	dist_add_value(&r.cpu_lock.wait, 2);
	dist_add_value(&r.irqoff.outside, 3);
	dist_add_value(&r.irqoff.late, 4);
	report_free(&r);
	CHECK(r.cgroups == NULL && r.ncgroups == 0 && r.cpu_lock.hold.b == NULL &&
	      r.irqoff.late.b == NULL, "all freed");
}

/*
 * Sums never wrap: a merge past 2^64-1 stays there, and the check a
 * reader makes first names the key (counts, a distribution's count or
 * sum, flush parts).
 */
static void test_merge_saturates(void)
{
	struct row a = { 0 }, b = { 0 };
	const uint64_t big = 6148914691236517206ULL;	/* three pass 2^64-1 */

	a.count[COUNT_LOCKED] = b.count[COUNT_LOCKED] = big;
	CHECK(!row_merge_overflows(&a, &b), "two fit");
	CHECK(row_merge(&a, &b) == 0 && a.count[COUNT_LOCKED] == 2 * big, "added");
	CHECK(row_merge_overflows(&a, &b) && !strcmp(row_merge_overflows(&a, &b), "locked"),
	      "the third names locked: %s", row_merge_overflows(&a, &b));
	CHECK(row_merge(&a, &b) == 0 && a.count[COUNT_LOCKED] == UINT64_MAX, "saturated, not %" PRIu64,
	      a.count[COUNT_LOCKED]);
	memset(&a.count, 0, sizeof(a.count));
	memset(&b.count, 0, sizeof(b.count));
	CHECK(dist_add(&a.dist[DIST_HOLD], 10, big) == 0 && dist_add(&b.dist[DIST_HOLD], 10, big) == 0 &&
	      dist_add(&b.dist[DIST_HOLD], 12, big) == 0, "dists");
	CHECK(row_merge_overflows(&a, &b) && !strcmp(row_merge_overflows(&a, &b), "hold_ns"),
	      "a distribution's count names it");
	CHECK(row_merge(&a, &b) == 0 && a.dist[DIST_HOLD].count == UINT64_MAX &&
	      a.dist[DIST_HOLD].b[0].count == 2 * big, "count saturated, buckets added");
	a.part[PART_HELD] = b.part[PART_HELD] = UINT64_MAX - 1;
	dist_free(&b.dist[DIST_HOLD]);
	CHECK(row_merge_overflows(&a, &b) && !strcmp(row_merge_overflows(&a, &b), "flush_parts"),
	      "parts");
	row_free(&a);
	row_free(&b);
}

/* The mode by powers of two adds up an octave's 16 buckets; a tie keeps the lower. */
static void test_mode_octave(void)
{
	struct dist d = { 0 };

	CHECK(dist_mode_octave(&d) == 0, "empty: 0");
	/* 600-700 ns in three buckets of [512, 1024) beat one big bucket at 2000 ns */
	CHECK(!dist_add_value(&d, 600) && !dist_add_value(&d, 650) && !dist_add_value(&d, 700) &&
	      !dist_add_value(&d, 2000) && !dist_add_value(&d, 2000), "add");
	CHECK(dist_mode_octave(&d) == 512, "mode %" PRIu64 ", want 512", dist_mode_octave(&d));
	CHECK(!dist_add_value(&d, 2001), "add");	/* 3 and 3: the lower */
	CHECK(dist_mode_octave(&d) == 512, "mode %" PRIu64 ", want 512", dist_mode_octave(&d));
	CHECK(!dist_add_value(&d, 1500) && !dist_add_value(&d, 3000), "add");
	CHECK(dist_mode_octave(&d) == 1024, "mode %" PRIu64 ", want 1024", dist_mode_octave(&d));
	CHECK(!dist_add_value(&d, 5), "add");	/* below 16 ns: octave 0 */
	CHECK(!dist_add_value(&d, 9) && !dist_add_value(&d, 15) && !dist_add_value(&d, 1) &&
	      !dist_add_value(&d, 2), "add");
	CHECK(dist_mode_octave(&d) == 0, "mode %" PRIu64 ", want 0 (5 values below 16 ns)",
	      dist_mode_octave(&d));
	dist_free(&d);
	/* a tie: the lower octave */
	CHECK(!dist_add_value(&d, 100) && !dist_add_value(&d, 300), "add");
	CHECK(dist_mode_octave(&d) == 64, "tie: mode %" PRIu64 ", want 64", dist_mode_octave(&d));
	dist_free(&d);
}

int main(void)
{
	rng_seed(0x2545F4914F6CDD1DULL);
	RUN_TEST(test_append());
	RUN_TEST(test_merge_saturates());
	RUN_TEST(test_insert());
	RUN_TEST(test_empty_and_zero());
	RUN_TEST(test_merge());
	RUN_TEST(test_copy());
	RUN_TEST(test_against_dense());
	RUN_TEST(test_rows());
	RUN_TEST(test_row_irqoff());
	RUN_TEST(test_report_free());
	RUN_TEST(test_mode_octave());
	return check_done("test_dist");
}

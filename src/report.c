// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

const char *const lost_names[LOST_MAX] = {
	[LOST_SLOTS_FULL] = "slots_full",
	[LOST_RINGBUF_FULL] = "ringbuf_full",
	[LOST_UNPAIRED_UNLOCK] = "unpaired_unlock",
	[LOST_RELOCKED] = "relocked",
	[LOST_WAIT_MIGRATED] = "wait_migrated",
	[LOST_STACK] = "stack_missing",
	[LOST_FLUSH_OPEN] = "flush_unfinished",
	[LOST_RETIRED] = "retired_dropped",
};

void dist_add_value(struct dist *d, uint64_t v)
{
	d->buckets[hist_bucket(v)]++;
	d->count++;
	d->sum += v;
	if (v > d->max)
		d->max = v;
}

void dist_merge(struct dist *into, const struct dist *from)
{
	into->count += from->count;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
	for (int b = 0; b < HIST_BUCKETS; b++)
		into->buckets[b] += from->buckets[b];
}

static uint64_t bucket_estimate(const struct dist *d, int b)
{
	uint64_t mid = hist_bucket_lower(b) + (hist_bucket_upper(b) - hist_bucket_lower(b)) / 2;

	return d->max && mid > d->max ? d->max : mid;
}

/* Walks down from the max's bucket: a p99 is a few buckets away. */
static int bucket_from_top(const struct dist *d, uint64_t rank)
{
	uint64_t from_top = d->count - rank + 1, seen = 0;
	int b = d->max ? (int)hist_bucket(d->max) : HIST_BUCKETS - 1;

	while (b > 0 && seen + d->buckets[b] < from_top)
		seen += d->buckets[b--];
	return b;
}

/*
 * Ranks at or above the median are found from the top, where the max bounds
 * the walk instead of hundreds of buckets below. Needs every value <= max:
 * dist_add_value() keeps it so, collect.c's delta_dist() never leaves max
 * below the highest bucket touched, and report_read.c refuses files where
 * it does not hold.
 */
int dist_rank_bucket(const struct dist *d, uint64_t rank)
{
	uint64_t seen = 0;
	int b = 0;

	if (rank >= d->count / 2)
		return bucket_from_top(d, rank);
	while (b < HIST_BUCKETS - 1 && seen + d->buckets[b] < rank)
		seen += d->buckets[b++];
	return b;
}

void dist_quantiles(const struct dist *d, const double *qs, int n, uint64_t *out)
{
	uint64_t rank;

	for (int i = 0; i < n; i++) {
		if (d->count == 0) {
			out[i] = 0;
			continue;
		}
		rank = (uint64_t)ceil(qs[i] * (double)d->count);
		rank = rank < 1 ? 1 : rank > d->count ? d->count : rank;
		out[i] = bucket_estimate(d, dist_rank_bucket(d, rank));
	}
}

uint64_t dist_quantile(const struct dist *d, double q)
{
	uint64_t v;

	dist_quantiles(d, &q, 1, &v);
	return v;
}

struct row *report_add_row(struct row **rows, size_t *n, size_t *cap)
{
	struct row *r;

	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct row *nr = realloc(*rows, ncap * sizeof(**rows));

		if (!nr)
			return NULL;
		*rows = nr;
		*cap = ncap;
	}
	r = &(*rows)[(*n)++];
	memset(r, 0, sizeof(*r));
	return r;
}

int row_merge(struct row *into, const struct row *from)
{
	into->locked += from->locked;
	into->contended += from->contended;
	dist_merge(&into->hold, &from->hold);
	dist_merge(&into->wait, &from->wait);
	dist_merge(&into->flush, &from->flush);
	into->flush_holds += from->flush_holds;
	if (from->flush_holds_max > into->flush_holds_max)
		into->flush_holds_max = from->flush_holds_max;
	if (from->irqoff) {
		if (!into->irqoff)
			into->irqoff = calloc(1, sizeof(*into->irqoff));
		if (!into->irqoff)
			return -1;
		dist_merge(into->irqoff, from->irqoff);
	}
	return 0;
}

static bool row_has_path(const struct row *r)
{
	return r->path && r->path[0];
}

static size_t row_hash(const struct row *r)
{
	uint64_t h = 1469598103934665603ULL ^ r->hierarchy;	/* FNV-1a */

	if (row_has_path(r)) {
		for (const unsigned char *p = (const unsigned char *)r->path; *p; p++)
			h = (h ^ *p) * 1099511628211ULL;
	} else {
		h = (h ^ r->cgid) * 1099511628211ULL;
	}
	return (size_t)(h ^ (h >> 29));
}

static bool row_same_cgroup(const struct row *a, const struct row *b)
{
	if (a->hierarchy != b->hierarchy || row_has_path(a) != row_has_path(b))
		return false;
	return row_has_path(a) ? !strcmp(a->path, b->path) : a->cgid == b->cgid;
}

long row_index_find(const struct row_index *ix, const struct row *rows,
		    const struct row *key)
{
	if (!ix->cap)
		return -1;
	for (size_t i = row_hash(key) & (ix->cap - 1); ix->slot[i]; i = (i + 1) & (ix->cap - 1))
		if (row_same_cgroup(&rows[ix->slot[i] - 1], key))
			return (long)(ix->slot[i] - 1);
	return -1;
}

static void index_put(size_t *slot, size_t cap, const struct row *rows, size_t pos)
{
	size_t i = row_hash(&rows[pos]) & (cap - 1);

	while (slot[i])
		i = (i + 1) & (cap - 1);
	slot[i] = pos + 1;
}

int row_index_add(struct row_index *ix, const struct row *rows, size_t pos)
{
	/* keep the load factor at or below one half */
	if ((ix->used + 1) * 2 > ix->cap) {
		size_t ncap = ix->cap ? ix->cap * 2 : 64;
		size_t *nslot = calloc(ncap, sizeof(*nslot));

		if (!nslot)
			return -1;
		for (size_t i = 0; i < ix->cap; i++)
			if (ix->slot[i])
				index_put(nslot, ncap, rows, ix->slot[i] - 1);
		free(ix->slot);
		ix->slot = nslot;
		ix->cap = ncap;
	}
	index_put(ix->slot, ix->cap, rows, pos);
	ix->used++;
	return 0;
}

void row_index_free(struct row_index *ix)
{
	free(ix->slot);
	memset(ix, 0, sizeof(*ix));
}

static void rows_free(struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].path);
		free(rows[i].own_cgroup);
		free(rows[i].irqoff);
	}
	free(rows);
}

void report_free(struct report *r)
{
	rows_free(r->cgroups, r->ncgroups);
	rows_free(r->processes, r->nprocesses);
	free(r->owned);
	r->owned = NULL;
	r->cgroups = r->processes = NULL;
	r->ncgroups = r->nprocesses = 0;
}

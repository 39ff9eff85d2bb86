// SPDX-License-Identifier: GPL-2.0
#include <math.h>
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

uint64_t dist_quantile(const struct dist *d, double q)
{
	uint64_t total = 0, rank, seen = 0, mid;
	int b;

	for (b = 0; b < HIST_BUCKETS; b++)
		total += d->buckets[b];
	if (total == 0)
		return 0;
	rank = (uint64_t)ceil(q * (double)total);
	if (rank < 1)
		rank = 1;
	if (rank > total)
		rank = total;
	for (b = 0; b < HIST_BUCKETS; b++) {
		seen += d->buckets[b];
		if (seen >= rank)
			break;
	}
	mid = hist_bucket_lower(b) + (hist_bucket_upper(b) - hist_bucket_lower(b)) / 2;
	return d->max && mid > d->max ? d->max : mid;
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

void row_merge(struct row *into, const struct row *from)
{
	into->locked += from->locked;
	into->contended += from->contended;
	dist_merge(&into->hold, &from->hold);
	dist_merge(&into->wait, &from->wait);
}

static void rows_free(struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].path);
		free(rows[i].own_cgroup);
	}
	free(rows);
}

void report_free(struct report *r)
{
	rows_free(r->cgroups, r->ncgroups);
	rows_free(r->processes, r->nprocesses);
	r->cgroups = r->processes = NULL;
	r->ncgroups = r->nprocesses = 0;
}

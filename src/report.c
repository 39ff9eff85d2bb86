// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

const char *const lost_names[LOST_MAX] = {
	[LOST_ENTRIES_FULL] = "entries_full",
	[LOST_RINGBUF_FULL] = "ringbuf_full",
	[LOST_UNPAIRED_UNLOCK] = "unpaired_unlock",
	[LOST_RELOCKED] = "relocked",
	[LOST_WAIT_MIGRATED] = "wait_migrated",
	[LOST_STACK] = "stack_missing",
	[LOST_FLUSH_OPEN] = "flush_unfinished",
	[LOST_RETIRED] = "retired_dropped",
	[LOST_CAUSE_STACK] = "cause_stack_missing",
	[LOST_SKIP_UNTRACKED] = "memcg_skips_untracked",
	[LOST_FLUSH_UNSEEN] = "flush_start_unseen",
	[LOST_LOCK_SCOPE] = "lock_scope_full",
	[LOST_PROG_SKIPPED] = "program_skipped",
	[LOST_FLUSHERS_FULL] = "flushers_full",
	[LOST_SLOW_UNPRINTED] = "slow_unprinted",
	[LOST_ENTRIES_GROWING] = "entries_growing",
	[LOST_STAGE_UNNAMED] = "stage_unnamed",
};

/* Room for at least want buckets; doubling keeps appends O(1) amortized. */
static int dist_reserve(struct dist *d, uint32_t want)
{
	uint32_t ncap = d->cap ? d->cap : 8;
	struct bucket *nb;

	if (want <= d->cap)
		return 0;
	while (ncap < want)
		ncap *= 2;
	nb = realloc(d->b, ncap * sizeof(*nb));
	if (!nb)
		return -1;
	d->b = nb;
	d->cap = ncap;
	return 0;
}

/* The position of the first bucket with an index >= index. */
static uint32_t dist_lower_bound(const struct dist *d, unsigned int index)
{
	uint32_t lo = 0, hi = d->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->b[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int dist_add(struct dist *d, unsigned int index, uint64_t n)
{
	uint32_t pos;

	if (!n)
		return 0;
	if (index >= HIST_BUCKETS)
		index = HIST_BUCKETS - 1;
	/* added in ascending order (the collector, the reader): at the top */
	if (d->n && d->b[d->n - 1].index == index) {
		d->b[d->n - 1].count += n;
		d->count += n;
		return 0;
	}
	pos = d->n && d->b[d->n - 1].index > index ? dist_lower_bound(d, index) : d->n;
	if (pos < d->n && d->b[pos].index == index) {
		d->b[pos].count += n;
		d->count += n;
		return 0;
	}
	if (dist_reserve(d, d->n + 1))
		return -1;
	memmove(&d->b[pos + 1], &d->b[pos], (d->n - pos) * sizeof(*d->b));
	d->b[pos] = (struct bucket){ .index = index, .count = n };
	d->n++;
	d->count += n;
	return 0;
}

int dist_add_value(struct dist *d, uint64_t v)
{
	if (dist_add(d, hist_bucket(v), 1))
		return -1;
	d->sum += v;
	if (v > d->max)
		d->max = v;
	return 0;
}

/* Buckets in a or b or both. */
static uint32_t union_size(const struct dist *a, const struct dist *b)
{
	uint32_t i = 0, j = 0, n = 0;

	while (i < a->n && j < b->n) {
		unsigned int x = a->b[i].index, y = b->b[j].index;

		i += x <= y;
		j += y <= x;
		n++;
	}
	return n + (a->n - i) + (b->n - j);
}

static bool dist_is_empty(const struct dist *d)
{
	return !d->n && !d->count && !d->sum && !d->max;
}

/*
 * Merges from the top down inside into's own array: the write position
 * never falls below the read position, so no second array is needed.
 */
int dist_merge(struct dist *into, const struct dist *from)
{
	uint32_t i = into->n, j = from->n, k;

	if (dist_is_empty(from))
		return 0;
	/* into a new row (a summary's): a copy */
	if (dist_is_empty(into)) {
		dist_free(into);
		return dist_copy(into, from);
	}

	k = union_size(into, from);
	if (dist_reserve(into, k))
		return -1;
	into->n = k;
	while (j > 0) {
		struct bucket f = from->b[j - 1];

		if (i > 0 && into->b[i - 1].index > f.index) {
			into->b[--k] = into->b[--i];
			continue;
		}
		if (i > 0 && into->b[i - 1].index == f.index)
			f.count = sat_add(f.count, into->b[--i].count);
		into->b[--k] = f;
		j--;
	}
	/* what is left of into is below every bucket of from, already in place */
	into->count = sat_add(into->count, from->count);
	into->sum = sat_add(into->sum, from->sum);
	if (from->max > into->max)
		into->max = from->max;
	return 0;
}

bool dist_merge_overflows(const struct dist *into, const struct dist *from)
{
	return from->count > UINT64_MAX - into->count || from->sum > UINT64_MAX - into->sum;
}

int dist_copy(struct dist *dst, const struct dist *src)
{
	*dst = *src;
	dst->b = NULL;
	dst->n = dst->cap = 0;
	if (!src->n)
		return 0;
	dst->b = malloc(src->n * sizeof(*dst->b));
	if (!dst->b) {
		memset(dst, 0, sizeof(*dst));
		return -1;
	}
	memcpy(dst->b, src->b, src->n * sizeof(*dst->b));
	dst->n = dst->cap = src->n;
	return 0;
}

void dist_free(struct dist *d)
{
	free(d->b);
	memset(d, 0, sizeof(*d));
}

uint64_t dist_bucket_count(const struct dist *d, unsigned int index)
{
	uint32_t pos = dist_lower_bound(d, index);

	return pos < d->n && d->b[pos].index == index ? d->b[pos].count : 0;
}

static uint64_t bucket_estimate(const struct dist *d, int b)
{
	uint64_t mid = hist_bucket_lower(b) + (hist_bucket_upper(b) - hist_bucket_lower(b)) / 2;

	return d->max && mid > d->max ? d->max : mid;
}

/* Walks down from the top bucket: a p99 is a few buckets away. */
static int bucket_from_top(const struct dist *d, uint64_t rank)
{
	uint64_t from_top = d->count - rank + 1, seen = 0;
	uint32_t i = d->n - 1;

	while (i > 0 && seen + d->b[i].count < from_top)
		seen += d->b[i--].count;
	return (int)d->b[i].index;
}

/*
 * Ranks at or above the median are found from the top, where the max
 * bounds the walk instead of the buckets below. Needs every value <= max:
 * dist_add_value() keeps it so, fold.c's fold_finish() never
 * leaves max below the highest bucket touched, and report_read.c refuses
 * files where it does not hold.
 */
int dist_rank_bucket(const struct dist *d, uint64_t rank)
{
	uint64_t seen = 0;
	uint32_t i = 0;

	if (!d->n)
		return 0;
	if (rank >= d->count / 2)
		return bucket_from_top(d, rank);
	while (i < d->n - 1 && seen + d->b[i].count < rank)
		seen += d->b[i++].count;
	return (int)d->b[i].index;
}

/* A walk down from the top bucket: seen values lie above bucket b[i]. */
struct top_walk {
	uint32_t i;
	uint64_t seen;
};

/* As bucket_from_top(), resuming w when rank is no higher than w's last. */
static int walk_from_top(const struct dist *d, struct top_walk *w, uint64_t rank)
{
	uint64_t from_top = d->count - rank + 1;

	if (!d->n)
		return 0;
	if (w->seen >= from_top) {	/* the last rank was lower: start over */
		w->i = d->n - 1;
		w->seen = 0;
	}
	while (w->i > 0 && w->seen + d->b[w->i].count < from_top)
		w->seen += d->b[w->i--].count;
	return (int)d->b[w->i].index;
}

/*
 * Highest quantile first, so that p99, p90 and p50 share one walk down
 * from the top: the table and JSON ask for those on every row.
 */
void dist_quantiles(const struct dist *d, const double *qs, int n, uint64_t *out)
{
	struct top_walk w = { .i = d->n ? d->n - 1 : 0 };
	uint64_t rank;
	int b;

	for (int k = n - 1; k >= 0; k--) {
		if (d->count == 0) {
			out[k] = 0;
			continue;
		}
		rank = (uint64_t)ceil(qs[k] * (double)d->count);
		rank = rank < 1 ? 1 : rank > d->count ? d->count : rank;
		b = rank >= d->count / 2 ? walk_from_top(d, &w, rank) : dist_rank_bucket(d, rank);
		out[k] = bucket_estimate(d, b);
	}
}

uint64_t dist_quantile(const struct dist *d, double q)
{
	uint64_t v;

	dist_quantiles(d, &q, 1, &v);
	return v;
}

uint64_t dist_mode_octave(const struct dist *d)
{
	uint64_t best = 0, best_lo = 0, count = 0, lo = 0;

	for (uint32_t i = 0; i < d->n; i++) {
		uint64_t b_lo = hist_bucket_lower(d->b[i].index);
		uint64_t o_lo = b_lo < (1ULL << HIST_LOW_SHIFT) ? 0 : 1ULL << hist_msb(b_lo);

		if (o_lo != lo)
			count = 0;
		lo = o_lo;
		count += d->b[i].count;
		if (count > best) {
			best = count;
			best_lo = lo;
		}
	}
	return best_lo;
}

struct row *report_append_row(struct row **rows, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct row *nr = realloc(*rows, ncap * sizeof(**rows));

		if (!nr)
			return NULL;
		*rows = nr;
		*cap = ncap;
	}
	return &(*rows)[(*n)++];
}

struct row *report_add_row(struct row **rows, size_t *n, size_t *cap)
{
	struct row *r = report_append_row(rows, n, cap);

	if (r)
		memset(r, 0, sizeof(*r));
	return r;
}

const char *const part_names[PART_MAX] = {
	[PART_HELD] = "held", [PART_WAIT] = "wait", [PART_IRQ] = "irq",
	[PART_OFFCPU] = "offcpu", [PART_SELF] = "self", [PART_OTHER] = "other",
};

const char *const parts_from_names[] = {
	[PARTS_FROM_NONE] = "", [PARTS_FROM_KERNEL] = "kernel", [PARTS_FROM_TIMED] = "timed",
};

bool report_part_measured(const struct report *r, int k)
{
	return r->flush_parts && k >= 0 && k < PART_MAX && (r->parts_measured >> k & 1);
}

bool report_count_measured(const struct report *r, int k)
{
	return k >= 0 && k < COUNT_MAX && !(r->counts_unmeasured >> k & 1);
}

const char *const decision_names[DECISION_MAX] = {
	[DECISION_ASKED] = "asked", [DECISION_FORCED] = "forced", [DECISION_SKIPPED] = "skipped",
};

void row_clear_causes(struct row *r)
{
	for (size_t i = 0; i < r->ncauses; i++)
		free(r->causes[i].name);
	free(r->causes);
	r->causes = NULL;
	r->ncauses = 0;
}

int row_add_cause(struct row *r, const char *name, uint64_t samples, uint64_t weight,
		  uint64_t weight_ns)
{
	struct cause *nc;

	for (size_t i = 0; i < r->ncauses; i++) {
		if (!strcmp(r->causes[i].name, name)) {
			r->causes[i].samples += samples;
			r->causes[i].weight += weight;
			r->causes[i].weight_ns += weight_ns;
			return 0;
		}
	}
	nc = realloc(r->causes, (r->ncauses + 1) * sizeof(*nc));
	if (!nc)
		return -1;
	r->causes = nc;
	nc[r->ncauses].name = strdup(name);
	if (!nc[r->ncauses].name)
		return -1;
	nc[r->ncauses].samples = samples;
	nc[r->ncauses].weight = weight;
	nc[r->ncauses].weight_ns = weight_ns;
	r->ncauses++;
	return 0;
}

/* from's causes added to into's (row_add_cause); -1 out of memory. */
static int row_add_causes(struct row *into, const struct row *from)
{
	for (size_t i = 0; i < from->ncauses; i++)
		if (row_add_cause(into, from->causes[i].name, from->causes[i].samples,
				  from->causes[i].weight, from->causes[i].weight_ns))
			return -1;
	return 0;
}

/* total * part / whole, without overflowing 64 bits on the way */
static uint64_t share_of(uint64_t total, uint64_t part, uint64_t whole)
{
	return whole ? (uint64_t)((long double)total * part / whole + 0.5L) : 0;
}

uint64_t cause_flushes(const struct row *r, const struct cause *c)
{
	uint64_t whole = 0;

	for (size_t i = 0; i < r->ncauses; i++)
		whole += r->causes[i].weight;
	return share_of(r->dist[DIST_FLUSH].count, c->weight, whole);
}

uint64_t cause_flush_ns(const struct row *r, const struct cause *c)
{
	uint64_t whole = 0;

	for (size_t i = 0; i < r->ncauses; i++)
		whole += r->causes[i].weight_ns;
	return share_of(r->dist[DIST_FLUSH].sum, c->weight_ns, whole);
}

/* The flush order: the most flushes (weight) first, names breaking ties. */
static int cause_order(const struct cause *x, const struct cause *y)
{
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cause_cmp(const void *a, const void *b, void *arg)
{
	const struct cause *c = arg;

	return cause_order(&c[*(const size_t *)a], &c[*(const size_t *)b]);
}

const struct cause *row_top_cause(const struct row *r)
{
	const struct cause *top = r->ncauses ? &r->causes[0] : NULL;

	for (size_t i = 1; i < r->ncauses; i++)
		if (cause_order(&r->causes[i], top) < 0)
			top = &r->causes[i];
	return top;
}

size_t *row_causes_by_flushes(const struct row *r)
{
	size_t *order = malloc((r->ncauses ? r->ncauses : 1) * sizeof(*order));

	if (!order)
		return NULL;
	for (size_t i = 0; i < r->ncauses; i++)
		order[i] = i;
	qsort_r(order, r->ncauses, sizeof(*order), cause_cmp, r->causes);
	return order;
}

void row_free(struct row *r)
{
	row_clear_causes(r);
	free(r->path);
	free(r->own_cgroup);
	for (int k = 0; k < DIST_ROW_MAX; k++)
		dist_free(&r->dist[k]);
	memset(r, 0, sizeof(*r));
}

static int copy_str(char **dst, const char *src)
{
	*dst = src ? strdup(src) : NULL;
	return src && !*dst ? -1 : 0;
}

int row_copy(struct row *dst, const struct row *src)
{
	*dst = *src;
	dst->path = dst->own_cgroup = NULL;
	memset(dst->dist, 0, sizeof(dst->dist));
	dst->causes = NULL;
	dst->ncauses = 0;
	if (row_add_causes(dst, src))
		goto oom;
	if (copy_str(&dst->path, src->path) || copy_str(&dst->own_cgroup, src->own_cgroup))
		goto oom;
	for (int k = 0; k < DIST_ROW_MAX; k++)
		if (dist_copy(&dst->dist[k], &src->dist[k]))
			goto oom;
	return 0;
oom:
	row_free(dst);
	return -1;
}

int row_merge(struct row *into, const struct row *from)
{
	for (int k = 0; k < COUNT_MAX; k++)
		count_merge(k, &into->count[k], from->count[k]);
	for (int k = 0; k < DIST_ROW_MAX; k++)
		if (dist_merge(&into->dist[k], &from->dist[k]))
			return -1;
	into->exited = into->exited > UINT32_MAX - from->exited ? UINT32_MAX :
		       into->exited + from->exited;
	into->removed_cgroups = into->removed_cgroups > UINT32_MAX - from->removed_cgroups ?
				UINT32_MAX : into->removed_cgroups + from->removed_cgroups;
	for (int k = 0; k < PART_MAX; k++)
		into->part[k] = sat_add(into->part[k], from->part[k]);
	for (int k = 0; k < DECISION_MAX; k++)
		into->decisions[k] = sat_add(into->decisions[k], from->decisions[k]);
	return row_add_causes(into, from);
}

const char *row_merge_overflows(const struct row *into, const struct row *from)
{
	for (int k = 0; k < COUNT_SUMS; k++)
		if (from->count[k] > UINT64_MAX - into->count[k])
			return count_defs[k].json;
	for (int k = 0; k < DIST_ROW_MAX; k++)
		if (dist_merge_overflows(&into->dist[k], &from->dist[k]))
			return dist_defs[k].json;
	for (int k = 0; k < PART_MAX; k++)
		if (from->part[k] > UINT64_MAX - into->part[k])
			return "flush_parts";
	for (int k = 0; k < DECISION_MAX; k++)
		if (from->decisions[k] > UINT64_MAX - into->decisions[k])
			return "memcg_decisions";
	return NULL;
}

/* The one place that knows a hold under spin_lock_irq is an irqs-off interval. */
bool report_irqoff_is_lock(const struct report *r)
{
	return r->irqoff_rows == IRQOFF_ROWS_LOCK;
}

const struct dist *row_irqoff(const struct report *r, const struct row *row)
{
	switch (r->irqoff_rows) {
	case IRQOFF_ROWS_LOCK:
		return &row->dist[DIST_HOLD];
	case IRQOFF_ROWS_TRACED:
		return &row->dist[DIST_IRQOFF];
	case IRQOFF_ROWS_NONE:
		break;
	}
	return NULL;
}

static bool row_has_path(const struct row *r)
{
	return r->path && r->path[0];
}

static uint64_t row_hash(const struct row *r)
{
	uint64_t h = FNV1A_OFFSET ^ r->hierarchy;

	if (row_has_path(r)) {
		for (const unsigned char *p = (const unsigned char *)r->path; *p; p++)
			h = (h ^ *p) * FNV1A_PRIME;
	} else {
		h = (h ^ r->cgid) * FNV1A_PRIME;
	}
	h = row_lock_hash(h, r);
	return h ^ (h >> 29);
}

uint64_t row_lock_hash(uint64_t h, const struct row *r)
{
	for (const unsigned char *p = (const unsigned char *)r->lock; *p; p++)
		h = (h ^ *p) * FNV1A_PRIME;
	for (const unsigned char *p = (const unsigned char *)r->lock_type; *p; p++)
		h = (h ^ *p) * FNV1A_PRIME;
	return h;
}

bool row_same_lock(const struct row *a, const struct row *b)
{
	/* most hosts tell no locks apart: both "" */
	return a->lock[0] == b->lock[0] && a->lock_type[0] == b->lock_type[0] &&
	       (!a->lock[0] || !strcmp(a->lock, b->lock)) &&
	       (!a->lock_type[0] || !strcmp(a->lock_type, b->lock_type));
}

/*
 * The same cgroup under the same lock and lock type (each "" where not
 * told apart).
 */
static bool row_same_cgroup(const struct row *a, const struct row *b)
{
	if (a->hierarchy != b->hierarchy || row_has_path(a) != row_has_path(b) ||
	    !row_same_lock(a, b))
		return false;
	return row_has_path(a) ? !strcmp(a->path, b->path) : a->cgid == b->cgid;
}

static const struct row_identity by_path = { row_hash, row_same_cgroup };

static uint64_t flusher_hash(const struct row *r)
{
	uint64_t h = row_hash(r);

	for (const unsigned char *p = (const unsigned char *)r->comm; *p; p++)
		h = (h ^ *p) * FNV1A_PRIME;
	return h ^ (h >> 29);
}

static bool same_flusher(const struct row *a, const struct row *b)
{
	return row_same_cgroup(a, b) && !strcmp(a->comm, b->comm);
}

const struct row_identity row_by_flusher = { flusher_hash, same_flusher };

static const struct row_identity *identity_of(const struct row_index *ix)
{
	return ix->identity ? ix->identity : &by_path;
}

long row_index_find(const struct row_index *ix, const struct row *rows,
		    const struct row *key)
{
	const struct row_identity *id = identity_of(ix);

	if (!ix->cap)
		return -1;
	for (size_t i = id->hash(key) & (ix->cap - 1); ix->slot[i]; i = (i + 1) & (ix->cap - 1))
		if (id->same(&rows[ix->slot[i] - 1], key))
			return (long)(ix->slot[i] - 1);
	return -1;
}

bool row_index_same(const struct row_index *ix, const struct row *a, const struct row *b)
{
	return identity_of(ix)->same(a, b);
}

static void index_put(const struct row_identity *id, size_t *slot, size_t cap,
		      const struct row *rows, size_t pos)
{
	size_t i = id->hash(&rows[pos]) & (cap - 1);

	while (slot[i])
		i = (i + 1) & (cap - 1);
	slot[i] = pos + 1;
}

int row_index_add(struct row_index *ix, const struct row *rows, size_t pos)
{
	const struct row_identity *id = identity_of(ix);

	/* keep the load factor at or below one half */
	if ((ix->used + 1) * 2 > ix->cap) {
		size_t ncap = ix->cap ? ix->cap * 2 : 64;
		size_t *nslot = calloc(ncap, sizeof(*nslot));

		if (!nslot)
			return -1;
		for (size_t i = 0; i < ix->cap; i++)
			if (ix->slot[i])
				index_put(id, nslot, ncap, rows, ix->slot[i] - 1);
		free(ix->slot);
		ix->slot = nslot;
		ix->cap = ncap;
	}
	index_put(id, ix->slot, ix->cap, rows, pos);
	ix->used++;
	return 0;
}

void row_index_free(struct row_index *ix)
{
	free(ix->slot);
	ix->slot = NULL;
	ix->cap = ix->used = 0;
}

static void rows_free(struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		row_free(&rows[i]);
	free(rows);
}

void report_free(struct report *r)
{
	if (!r->shared)
		rows_free(r->cgroups, r->ncgroups);
	rows_free(r->processes, r->nprocesses);
	rows_free(r->flushers, r->nflushers);
	dist_free(&r->cpu_lock.hold);
	dist_free(&r->cpu_lock.wait);
	dist_free(&r->irqoff.outside);
	dist_free(&r->irqoff.late);
	free(r->owned);
	r->owned = NULL;
	command_free(&r->command);
	workload_free(&r->workload);
	r->cgroups = r->processes = r->flushers = NULL;
	r->ncgroups = r->nprocesses = r->nflushers = 0;
}

void command_free(struct command_info *c)
{
	for (int i = 0; c->argv && i < c->argc; i++)
		free(c->argv[i]);
	free(c->argv);
	for (int i = 0; i < c->ncgroups; i++)
		free(c->cgroups[i].path);
	memset(c, 0, sizeof(*c));
}

int command_copy(struct command_info *dst, const struct command_info *src)
{
	*dst = *src;
	dst->argv = calloc((size_t)src->argc + 1, sizeof(*dst->argv));
	dst->ncgroups = 0;
	if (!dst->argv) {
		dst->argc = 0;
		return -1;
	}
	for (int i = 0; i < src->argc; i++)
		if (!(dst->argv[i] = strdup(src->argv[i])))
			goto fail;
	for (; dst->ncgroups < src->ncgroups; dst->ncgroups++) {
		struct command_cgroup *g = &dst->cgroups[dst->ncgroups];

		g->path = strdup(src->cgroups[dst->ncgroups].path);
		if (!g->path)
			goto fail;
	}
	return 0;
fail:
	command_free(dst);
	return -1;
}

int command_cgroup_of(const struct command_info *c, const char *path, const char **rest)
{
	for (int i = 0; path && i < c->ncgroups; i++) {
		size_t n = strlen(c->cgroups[i].path);

		if (!strncmp(path, c->cgroups[i].path, n) && (path[n] == '\0' || path[n] == '/')) {
			*rest = path + n;
			return i;
		}
	}
	return -1;
}

const char *const workload_count_names[WL_COUNT_MAX] = {
	[WL_READS] = "reads", [WL_ROUNDS] = "rounds", [WL_ROUNDS_LATE] = "rounds_late",
	[WL_HOGS_STARTED] = "hogs_started", [WL_OOM_KILLS] = "oom_kills",
};

void workload_free(struct workload_info *w)
{
	for (int i = 0; i < w->noptions; i++)
		free(w->options[i].text);
	dist_free(&w->read);
	dist_free(&w->round);
	memset(w, 0, sizeof(*w));
}

/* into (empty) takes from's identity: name, where, options. */
static int workload_identity(struct workload_info *into, const struct workload_info *from)
{
	memcpy(into->name, from->name, sizeof(into->name));
	memcpy(into->hierarchy, from->hierarchy, sizeof(into->hierarchy));
	memcpy(into->stopped_by, from->stopped_by, sizeof(into->stopped_by));
	into->mixed = from->mixed;
	for (; into->noptions < from->noptions; into->noptions++) {
		const struct workload_option *o = &from->options[into->noptions];
		struct workload_option *to = &into->options[into->noptions];

		*to = *o;
		if (o->text && !(to->text = strdup(o->text)))
			return -1;
	}
	return 0;
}

bool workload_alike(const struct workload_info *a, const struct workload_info *b)
{
	if (strcmp(a->name, b->name) || a->noptions != b->noptions)
		return false;
	for (int i = 0; i < a->noptions; i++) {
		const struct workload_option *x = &a->options[i], *y = &b->options[i];

		if (strcmp(x->key, y->key) || !x->text != !y->text ||
		    (x->text ? strcmp(x->text, y->text) : x->number != y->number))
			return false;
	}
	return true;
}

int workload_merge(struct workload_info *into, const struct workload_info *from)
{
	if (!from->present)
		return 0;
	if (!into->present) {
		if (workload_identity(into, from))
			return -1;
		into->present = true;
	} else {
		into->mixed |= from->mixed || !workload_alike(into, from);
		if (!into->stopped_by[0])
			memcpy(into->stopped_by, from->stopped_by, sizeof(into->stopped_by));
	}
	into->runs = into->runs > UINT32_MAX - from->runs ? UINT32_MAX : into->runs + from->runs;
	into->wall_ns = sat_add(into->wall_ns, from->wall_ns);
	into->measured |= from->measured;
	for (int k = 0; k < WL_COUNT_MAX; k++)
		into->count[k] = sat_add(into->count[k], from->count[k]);
	return dist_merge(&into->read, &from->read) || dist_merge(&into->round, &from->round) ?
	       -1 : 0;
}

/* overflow (NULL: not asked): the first sum the merge saturated, when none was yet. */
static int pool_row(struct row **rows, size_t *n, size_t *cap, struct row_index *ix,
		    const struct row *from, const char **overflow)
{
	long at = row_index_find(ix, *rows, from);
	struct row *into;

	if (at >= 0) {
		if (overflow && !*overflow)
			*overflow = row_merge_overflows(&(*rows)[at], from);
		return row_merge(&(*rows)[at], from);
	}
	into = report_add_row(rows, n, cap);
	if (!into)
		return -1;
	into->cgid = from->cgid;
	into->hierarchy = from->hierarchy;
	memcpy(into->comm, from->comm, sizeof(into->comm));
	memcpy(into->lock, from->lock, sizeof(into->lock));
	memcpy(into->lock_type, from->lock_type, sizeof(into->lock_type));
	into->path = from->path ? strdup(from->path) : NULL;
	if ((from->path && !into->path) || row_merge(into, from))
		return -1;
	return row_index_add(ix, *rows, *n - 1);
}

const char *const lock_scope_names[LOCKS_MAX] = {
	[LOCKS_GLOBAL] = "global", [LOCKS_PER_SUBSYSTEM] = "per-subsystem",
};

int report_pool_add(struct report_pool *p, const struct report *run)
{
	if (!p->r.attach) {
		p->r.type = run->type;
		p->r.kernel = run->kernel;
		p->r.attach = run->attach;
		p->r.locks = run->locks;
		p->r.lock_rows = run->lock_rows;
		p->r.locks_folded = run->locks_folded;
		p->r.lock_types = run->lock_types;
		p->r.irqoff_rows = run->irqoff_rows;
		p->r.start_ns = run->start_ns;
		p->r.flush_parts = run->flush_parts;
		p->r.parts_from = run->parts_from;
		p->r.parts_measured = run->parts_measured;
		p->r.cause_sample = run->cause_sample;
		p->r.cause_budgeted = run->cause_budgeted;
		p->r.memcg_decisions = run->memcg_decisions;
	}
	if (run->duration_ns > UINT64_MAX - p->r.duration_ns && !p->overflow)
		p->overflow = "duration_ns";
	p->r.duration_ns = sat_add(p->r.duration_ns, run->duration_ns);
	/* a counter one run did not measure is not the pool's */
	p->r.counts_unmeasured |= run->counts_unmeasured;
	if (run->cpu_lock.present) {
		p->r.cpu_lock.present = true;
		if (!p->overflow &&
		    (run->cpu_lock.locked > UINT64_MAX - p->r.cpu_lock.locked ||
		     dist_merge_overflows(&p->r.cpu_lock.hold, &run->cpu_lock.hold) ||
		     dist_merge_overflows(&p->r.cpu_lock.wait, &run->cpu_lock.wait)))
			p->overflow = "cpu_lock";
		p->r.cpu_lock.locked = sat_add(p->r.cpu_lock.locked, run->cpu_lock.locked);
		p->r.cpu_lock.contended = sat_add(p->r.cpu_lock.contended, run->cpu_lock.contended);
		if (dist_merge(&p->r.cpu_lock.hold, &run->cpu_lock.hold) ||
		    dist_merge(&p->r.cpu_lock.wait, &run->cpu_lock.wait))
			return -1;
	}
	p->r.irqoff.trace |= run->irqoff.trace;
	p->r.irqoff.sample |= run->irqoff.sample;
	if (dist_merge(&p->r.irqoff.outside, &run->irqoff.outside) ||
	    dist_merge(&p->r.irqoff.late, &run->irqoff.late))
		return -1;
	if (workload_merge(&p->r.workload, &run->workload))
		return -1;
	p->pix.identity = &row_by_flusher;
	p->r.per_process |= run->per_process;
	for (size_t i = 0; i < run->ncgroups; i++)
		if (pool_row(&p->r.cgroups, &p->r.ncgroups, &p->cap, &p->ix, &run->cgroups[i],
			     &p->overflow))
			return -1;
	for (size_t i = 0; i < run->nprocesses; i++)
		if (pool_row(&p->r.processes, &p->r.nprocesses, &p->pcap, &p->pix,
			     &run->processes[i], &p->overflow))
			return -1;
	return 0;
}

/*
 * One list's rows added up per cgroup (or flusher): their locks, or lock
 * types, forgotten.
 */
static int fold_lock_list(struct row **rows, size_t *n, const struct row_identity *id,
			  bool locks, bool types)
{
	struct row *out = NULL;
	size_t nout = 0, cap = 0;
	struct row_index ix = { .identity = id };
	int err = 0;

	for (size_t i = 0; i < *n && !err; i++) {
		if (locks)
			(*rows)[i].lock[0] = '\0';
		if (types)
			(*rows)[i].lock_type[0] = '\0';
		err = pool_row(&out, &nout, &cap, &ix, &(*rows)[i], NULL);
	}
	row_index_free(&ix);
	for (size_t i = 0; i < (err ? nout : *n); i++)
		row_free(err ? &out[i] : &(*rows)[i]);
	if (err) {
		free(out);
		return -1;
	}
	free(*rows);
	*rows = out;
	*n = nout;
	return 0;
}

int report_fold_locks(struct report *r, bool locks, bool types)
{
	locks = locks && r->lock_rows;
	types = types && r->lock_types;
	if (!locks && !types)
		return 0;
	if (fold_lock_list(&r->cgroups, &r->ncgroups, NULL, locks, types) ||
	    fold_lock_list(&r->processes, &r->nprocesses, &row_by_flusher, locks, types))
		return -1;
	r->lock_rows = r->lock_rows && !locks;
	r->lock_types = r->lock_types && !types;
	r->locks_folded = true;
	return 0;
}

int report_fold_alike(struct report *r)
{
	return fold_lock_list(&r->cgroups, &r->ncgroups, NULL, false, false) ||
	       fold_lock_list(&r->processes, &r->nprocesses, &row_by_flusher, false, false) ?
	       -1 : 0;
}

void report_pool_free(struct report_pool *p)
{
	report_free(&p->r);
	row_index_free(&p->ix);
	row_index_free(&p->pix);
}

bool dist_octaves(const struct dist *d, uint64_t octave[64], int *lo, int *hi)
{
	memset(octave, 0, 64 * sizeof(*octave));
	*lo = 64;
	*hi = -1;
	for (uint32_t i = 0; i < d->n; i++) {
		uint64_t lower = hist_bucket_lower(d->b[i].index);
		int o = lower ? 63 - __builtin_clzll(lower) : 0;

		octave[o] += d->b[i].count;
		*lo = o < *lo ? o : *lo;
		*hi = o > *hi ? o : *hi;
	}
	return *hi >= 0;
}

int octave_next(int o)
{
	return o ? o + 1 : HIST_LOW_SHIFT;
}

void octave_bounds(int o, uint64_t *from, uint64_t *to)
{
	*from = o ? 1ULL << o : 0;
	*to = o ? (1ULL << (o + 1)) - 1 : (1ULL << HIST_LOW_SHIFT) - 1;
}

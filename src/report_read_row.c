// SPDX-License-Identifier: GPL-2.0
/*
 * A row of a report read back (report_read.c): its identity, its
 * histograms (checked against the rstatlat/1 bucket layout, and read in
 * the layout before it), its counters and flush figures.
 */
#include <inttypes.h>
#include <string.h>
#include "report_read_int.h"

/*
 * A bucket above 2^32 ns of the layout that ran to 2^35 ns (rstatlat 0.1.0
 * before issue 13): 16 sub-buckets per octave, the last one open-ended.
 */
#define OLD_HIGH_SHIFT 34

static bool old_layout_bucket(uint64_t ge, uint64_t le)
{
	unsigned int msb = hist_msb(ge);
	uint64_t width = 1ULL << (msb - HIST_SUB_BITS);

	if (msb > OLD_HIGH_SHIFT || (ge & (width - 1)))
		return false;
	if (ge == (2 * HIST_SUB - 1ULL) << (OLD_HIGH_SHIFT - HIST_SUB_BITS))
		return le >= ge;
	return le == ge + width - 1;
}

/*
 * One {ge, le, count} bucket: it must be a bucket of this layout, or one
 * beyond its last (files of a layout that ran to 2^35 ns), which folds
 * into the last.
 */
static int read_bucket(struct reader *rd, const struct jt *b, const char *sub, size_t i,
		       struct dist *d, int *last, uint64_t *last_ge)
{
	const struct jt *gev = jt_get(b, "ge"), *lev = jt_get(b, "le"), *cv = jt_get(b, "count");
	uint64_t ge, le, count;
	unsigned int idx;
	bool beyond;
	char ctx[288];
	const char *why;

	/* a file has thousands of buckets: where one is, only said when it is wrong */
	if (!jt_is(gev, JT_UINT) || !jt_is(lev, JT_UINT) || !jt_is(cv, JT_UINT)) {
		snprintf(ctx, sizeof(ctx), "%s.buckets[%zu]", sub, i);
		if (!jt_is(b, JT_OBJECT))
			return fail(rd, "%s: not an object", ctx);
		/* one of them is missing or not an integer: get_u64 says which */
		(void)(get_u64(rd, b, ctx, "ge", &ge) || get_u64(rd, b, ctx, "le", &le) ||
		       get_u64(rd, b, ctx, "count", &count));
		return -1;
	}
	ge = gev->u;
	le = lev->u;
	count = cv->u;
	idx = hist_bucket(ge);
	beyond = idx == HIST_BUCKETS - 1 && ge > hist_bucket_lower(idx);
	if (beyond ? !old_layout_bucket(ge, le) : hist_bucket_lower(idx) != ge ||
	    (idx < HIST_BUCKETS - 1 ? le != hist_bucket_upper(idx) - 1 : le < ge))
		why = "is not a " SCHEMA " bucket";
	else if ((int)idx < *last || ((int)idx == *last && (!beyond || ge <= *last_ge)))
		why = "out of order";
	else if (count == 0 || count > UINT64_MAX - d->count)
		why = "has a bad count";
	else
		why = NULL;
	if (why)
		return fail(rd, "%s.buckets[%zu]: [%" PRIu64 ", %" PRIu64 "] %s", sub, i, ge, le,
			    why);
	*last_ge = ge;
	*last = (int)idx;
	/* in ascending order: an append */
	if (dist_add(d, idx, count))
		return fail(rd, "out of memory");
	return 0;
}

/* A {count, sum, max, buckets} distribution whose buckets add up; d is empty. */
int read_dist(struct reader *rd, const struct jt *obj, const char *ctx, const char *key,
	      struct dist *d)
{
	char sub[256];
	uint64_t count;
	const struct jt *v, *buckets, *b;
	uint64_t last_ge = 0;
	size_t i;
	int last = -1;

	snprintf(sub, sizeof(sub), "%s%s%s", ctx, *ctx ? "." : "", key);
	v = get_typed(rd, obj, ctx, key, false);
	if (!v)
		return -1;
	if (get_u64(rd, v, sub, "count", &count) || get_u64(rd, v, sub, "sum", &d->sum) ||
	    get_u64(rd, v, sub, "max", &d->max))
		return -1;
	buckets = get_typed(rd, v, sub, "buckets", true);
	if (!buckets)
		return -1;
	jt_foreach(buckets, i, b)
		if (read_bucket(rd, b, sub, i, d, &last, &last_ge))
			return -1;
	if (d->count != count)
		return fail(rd, "%s: buckets hold %" PRIu64 " values, count says %" PRIu64,
			    sub, d->count, count);
	/* quantile estimates rely on every value being <= max */
	if (count ? hist_bucket(d->max) != (unsigned int)last : d->max || d->sum)
		return fail(rd, "%s: max %" PRIu64 " does not fit its buckets", sub, d->max);
	return 0;
}

/* An optional name of 1 to len - 1 bytes, into buf. */
static int read_name(struct reader *rd, const struct jt *obj, const char *ctx, const char *key,
		     char *buf, size_t len)
{
	const struct jt *v = jt_get(obj, key);

	if (!v)
		return 0;
	if (!jt_is(v, JT_STRING) || !v->str.len || v->str.len >= len)
		return fail(rd, "%s.%s: not a name of 1 to %zu bytes", ctx, key, len - 1);
	memcpy(buf, v->str.s, v->str.len + 1);
	return 0;
}

/*
 * A row's lock (files with lock_rows) and lock type (lock_types): absent
 * where not told apart.
 */
static int read_lock(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row)
{
	return read_name(rd, obj, ctx, "lock", row->lock, sizeof(row->lock)) ||
	       read_name(rd, obj, ctx, "lock_type", row->lock_type, sizeof(row->lock_type));
}

/* A row's cgroup: id, hierarchy and path, in obj. */
int read_identity(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row)
{
	const char *path;

	if (!jt_is(obj, JT_OBJECT))
		return fail(rd, "%s: not an object", ctx);
	if (get_u64(rd, obj, ctx, "id", &row->cgid) ||
	    get_u32(rd, obj, ctx, "hierarchy", &row->hierarchy))
		return -1;
	path = get_str(rd, obj, ctx, "path");
	if (!path || read_lock(rd, obj, ctx, row))
		return -1;
	row->path = strdup(path);
	return row->path ? 0 : fail(rd, "out of memory");
}

/* "flush_parts" of a row: its wall_ns must be the row's flush_ns sum. */
static int read_flush_parts(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row)
{
	const struct jt *fp = get_typed(rd, obj, ctx, "flush_parts", false);
	char key[32], sub[64];
	uint64_t wall;

	if (!fp)
		return -1;
	snprintf(sub, sizeof(sub), "%s.flush_parts", ctx);
	if (get_u64(rd, fp, sub, "wall_ns", &wall))
		return -1;
	if (wall != row->dist[DIST_FLUSH].sum)
		return fail(rd, "%s.wall_ns: not the flush_ns sum", sub);
	for (int k = 0; k < PART_MAX; k++) {
		snprintf(key, sizeof(key), "%s_ns", part_names[k]);
		/* files before self was a part of its own have it in other */
		if (k == PART_SELF && !jt_get(fp, key))
			continue;
		if (get_u64(rd, fp, sub, key, &row->part[k]))
			return -1;
	}
	return 0;
}

/*
 * "flush_causes": [{cause, flushes, flush_ns, samples}]. The shared-out
 * flushes and flush_ns are in proportion to the weights they came from,
 * so they stand in for them.
 */
static int read_flush_causes(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row)
{
	const struct jt *list = get_typed(rd, obj, ctx, "flush_causes", true), *c;
	char sub[64];
	size_t i;

	if (!list)
		return -1;
	jt_foreach(list, i, c) {
		uint64_t samples, flushes, ns;
		const char *name;

		snprintf(sub, sizeof(sub), "%s.flush_causes[%zu]", ctx, i);
		if (!jt_is(c, JT_OBJECT))
			return fail(rd, "%s: not an object", sub);
		name = get_str(rd, c, sub, "cause");
		if (!name || get_u64(rd, c, sub, "samples", &samples) ||
		    get_u64(rd, c, sub, "flushes", &flushes) || get_u64(rd, c, sub, "flush_ns", &ns))
			return -1;
		/* "(not sampled)", 0 samples: derived from the row, not a cause */
		if (samples && row_add_cause(row, name, samples, flushes, ns))
			return fail(rd, "out of memory");
	}
	return 0;
}

static int read_decisions(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row)
{
	const struct jt *d = get_typed(rd, obj, ctx, "memcg_decisions", false);
	char sub[64];

	if (!d)
		return -1;
	snprintf(sub, sizeof(sub), "%s.memcg_decisions", ctx);
	for (int k = 0; k < DECISION_MAX; k++)
		if (get_u64(rd, d, sub, decision_names[k], &row->decisions[k]))
			return -1;
	return 0;
}

/* The flush figures of issue 13 arrived within rstatlat/1: older files lack them. */
static int read_flush_extras(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row)
{
	if (jt_get(obj, "flush_parts") && read_flush_parts(rd, obj, ctx, row))
		return -1;
	if (jt_get(obj, "flush_causes") && read_flush_causes(rd, obj, ctx, row))
		return -1;
	if (jt_get(obj, "memcg_decisions") && read_decisions(rd, obj, ctx, row))
		return -1;
	return 0;
}

/* Counters files may lack (count_def.json_optional): 1 << COUNT_* each. */
unsigned int optional_counts(void)
{
	unsigned int m = 0;

	for (int k = 0; k < COUNT_MAX; k++)
		m |= (unsigned int)count_defs[k].json_optional << k;
	return m;
}

/*
 * The counters listed after distribution after (-1: before them all). An
 * optional one a row lacks was not measured (a file from before it, its
 * part off): the report says so (counts_unmeasured).
 */
static int read_counts_after(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row,
			     int after)
{
	for (int k = 0; k < COUNT_MAX; k++) {
		const struct count_def *cd = &count_defs[k];

		if (cd->after != after)
			continue;
		if (cd->json_optional && !jt_get(obj, cd->json)) {
			rd->counts_missing |= 1U << k;
			continue;
		}
		rd->counts_seen |= 1U << k;
		if (get_u64(rd, obj, ctx, cd->json, &row->count[k]))
			return -1;
	}
	return 0;
}

/* What cgroup and process rows both carry: counters and distributions (metrics.h). */
static int read_figures(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row)
{
	if (read_counts_after(rd, obj, ctx, row, -1))
		return -1;
	for (int i = 0; i < DIST_ROW_MAX; i++) {
		enum dist_id k = dist_shown[i];
		const struct jt *v = jt_get(obj, dist_defs[k].json);
		bool absent = !v || jt_is(v, JT_NULL);

		if (absent && dist_defs[k].json_optional)
			continue;
		/* rows that have irqoff_ns measured them (IRQOFF_ROWS_TRACED) */
		rd->irqoff_rows |= k == DIST_IRQOFF;
		if (read_dist(rd, obj, ctx, dist_defs[k].json, &row->dist[k]) ||
		    read_counts_after(rd, obj, ctx, row, k))
			return -1;
	}
	return read_flush_extras(rd, obj, ctx, row);
}

int read_row(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row)
{
	if (read_identity(rd, obj, ctx, row) || read_figures(rd, obj, ctx, row))
		return -1;
	/* the aggregate row of removed cgroups (optional: 0 is not written) */
	if (jt_get(obj, "removed_cgroups") &&
	    get_u32(rd, obj, ctx, "removed_cgroups", &row->removed_cgroups))
		return -1;
	return 0;
}

/*
 * A -p row: a flusher of a cgroup. Kept by comm, not pid (pids differ
 * between runs), so one comm's processes on one cgroup merge.
 */
int read_process_row(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row)
{
	char sub[64];
	const char *comm;
	const struct jt *cg;

	if (!jt_is(obj, JT_OBJECT))
		return fail(rd, "%s: not an object", ctx);
	comm = get_str(rd, obj, ctx, "comm");
	cg = comm ? get_typed(rd, obj, ctx, "cgroup", false) : NULL;
	if (!cg)
		return -1;
	snprintf(row->comm, sizeof(row->comm), "%s", comm);
	snprintf(sub, sizeof(sub), "%s.cgroup", ctx);
	if (read_identity(rd, cg, sub, row) || read_figures(rd, obj, ctx, row))
		return -1;
	if (jt_get(obj, "exited") && get_u32(rd, obj, ctx, "exited", &row->exited))
		return -1;
	return 0;
}

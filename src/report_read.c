// SPDX-License-Identifier: GPL-2.0
/*
 * JSON lines -> report, with jansson. Everything in the file is untrusted:
 * every key is checked for presence and type, every histogram for the
 * rstatlat/1 bucket layout and for counts that add up, and the first
 * problem ends the read with one line saying where it is.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "report_read.h"

#define SCHEMA_PREFIX "rstatlat/"
#define SCHEMA "rstatlat/1"

/* Objects of one type, merged: rows matched by cgroup identity. */
struct acc {
	struct report r;
	struct row_index ix;
	size_t cap;
	struct row_index pix;	/* -p rows, by cgroup and comm */
	size_t pcap;
	size_t objects;
	size_t self_objects;	/* objects that carried "self" */
};

struct reader {
	size_t line;
	char *err;
	size_t errlen;
	struct acc acc[2];	/* [0] intervals, [1] summaries */
	bool have_kernel;
	struct kernel_info kernel;
	char attach[64];
	enum lock_scope locks;	/* absent before it was recorded: unknown */
	bool lock_rows;		/* rows carry their lock */
	bool lock_types;	/* ... and their lock type */
	struct read_info *info;
	bool irqoff_rows;	/* a row had irqoff_ns: measured per row (IRQOFF_ROWS_TRACED) */
	/* 1 << COUNT_*: optional counters some row had, and some row lacked */
	unsigned int counts_seen, counts_missing;
	/*
	 * The line's "cgroups" and "processes" arrays as text, each row parsed
	 * alone (split_rows); the object itself is parsed with them emptied.
	 */
	struct raw_list {
		const char *at;		/* '[' ... ']'; NULL: in the parsed object */
		size_t len;
	} raw[2];
};

__attribute__((format(printf, 2, 3)))
static int fail(struct reader *rd, const char *fmt, ...)
{
	int n = snprintf(rd->err, rd->errlen, "line %zu: ", rd->line);
	va_list ap;

	if (n < 0 || (size_t)n >= rd->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(rd->err + n, rd->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static json_t *get(struct reader *rd, json_t *obj, const char *ctx, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		fail(rd, "%s%smissing key \"%s\"", ctx, *ctx ? ": " : "", key);
	return v;
}

static int get_u64(struct reader *rd, json_t *obj, const char *ctx, const char *key,
		   uint64_t *out)
{
	json_t *v = get(rd, obj, ctx, key);

	if (!v)
		return -1;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return fail(rd, "%s%s\"%s\" is not a non-negative integer", ctx,
			    *ctx ? ": " : "", key);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_u32(struct reader *rd, json_t *obj, const char *ctx, const char *key,
		   uint32_t *out)
{
	uint64_t v;

	if (get_u64(rd, obj, ctx, key, &v))
		return -1;
	if (v > UINT32_MAX)
		return fail(rd, "%s%s\"%s\" is out of range", ctx, *ctx ? ": " : "", key);
	*out = (uint32_t)v;
	return 0;
}

static const char *get_str(struct reader *rd, json_t *obj, const char *ctx, const char *key)
{
	json_t *v = get(rd, obj, ctx, key);

	if (v && !json_is_string(v)) {
		fail(rd, "%s%s\"%s\" is not a string", ctx, *ctx ? ": " : "", key);
		return NULL;
	}
	return v ? json_string_value(v) : NULL;
}

static json_t *get_typed(struct reader *rd, json_t *obj, const char *ctx, const char *key,
			 bool array)
{
	json_t *v = get(rd, obj, ctx, key);

	if (v && (array ? !json_is_array(v) : !json_is_object(v))) {
		fail(rd, "%s%s\"%s\" is not an %s", ctx, *ctx ? ": " : "", key,
		     array ? "array" : "object");
		return NULL;
	}
	return v;
}

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
static int read_bucket(struct reader *rd, json_t *b, const char *ctx, struct dist *d,
		       int *last, uint64_t *last_ge)
{
	uint64_t ge, le, count;
	unsigned int idx;
	bool beyond;

	if (!json_is_object(b))
		return fail(rd, "%s: not an object", ctx);
	if (get_u64(rd, b, ctx, "ge", &ge) || get_u64(rd, b, ctx, "le", &le) ||
	    get_u64(rd, b, ctx, "count", &count))
		return -1;
	idx = hist_bucket(ge);
	beyond = idx == HIST_BUCKETS - 1 && ge > hist_bucket_lower(idx);
	if (beyond ? !old_layout_bucket(ge, le) : hist_bucket_lower(idx) != ge ||
	    (idx < HIST_BUCKETS - 1 ? le != hist_bucket_upper(idx) - 1 : le < ge))
		return fail(rd, "%s: [%" PRIu64 ", %" PRIu64 "] is not a " SCHEMA " bucket",
			    ctx, ge, le);
	if ((int)idx < *last || ((int)idx == *last && (!beyond || ge <= *last_ge)))
		return fail(rd, "%s: buckets out of order", ctx);
	*last_ge = ge;
	if (count == 0 || count > UINT64_MAX - d->count)
		return fail(rd, "%s: bad count", ctx);
	*last = (int)idx;
	/* in ascending order: an append */
	if (dist_add(d, idx, count))
		return fail(rd, "out of memory");
	return 0;
}

/* A {count, sum, max, buckets} distribution whose buckets add up; d is empty. */
static int read_dist(struct reader *rd, json_t *obj, const char *ctx, const char *key,
		     struct dist *d)
{
	char sub[256], bctx[288];
	uint64_t count;
	json_t *v, *buckets, *b;
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
	json_array_foreach(buckets, i, b) {
		snprintf(bctx, sizeof(bctx), "%s.buckets[%zu]", sub, i);
		if (read_bucket(rd, b, bctx, d, &last, &last_ge))
			return -1;
	}
	if (d->count != count)
		return fail(rd, "%s: buckets hold %" PRIu64 " values, count says %" PRIu64,
			    sub, d->count, count);
	/* quantile estimates rely on every value being <= max */
	if (count ? hist_bucket(d->max) != (unsigned int)last : d->max || d->sum)
		return fail(rd, "%s: max %" PRIu64 " does not fit its buckets", sub, d->max);
	return 0;
}

/* An optional name of 1 to len - 1 bytes, into buf. */
static int read_name(struct reader *rd, json_t *obj, const char *ctx, const char *key,
		     char *buf, size_t len)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		return 0;
	if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) >= len)
		return fail(rd, "%s.%s: not a name of 1 to %zu bytes", ctx, key, len - 1);
	memcpy(buf, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

/*
 * A row's lock (files with lock_rows) and lock type (lock_types): absent
 * where not told apart.
 */
static int read_lock(struct reader *rd, json_t *obj, const char *ctx, struct row *row)
{
	return read_name(rd, obj, ctx, "lock", row->lock, sizeof(row->lock)) ||
	       read_name(rd, obj, ctx, "lock_type", row->lock_type, sizeof(row->lock_type));
}

/* A row's cgroup: id, hierarchy and path, in obj. */
static int read_identity(struct reader *rd, json_t *obj, const char *ctx, struct row *row)
{
	const char *path;

	if (!json_is_object(obj))
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
static int read_flush_parts(struct reader *rd, json_t *obj, const char *ctx, struct row *row)
{
	json_t *fp = get_typed(rd, obj, ctx, "flush_parts", false);
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
		if (k == PART_SELF && !json_object_get(fp, key))
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
static int read_flush_causes(struct reader *rd, json_t *obj, const char *ctx, struct row *row)
{
	json_t *list = get_typed(rd, obj, ctx, "flush_causes", true), *c;
	char sub[64];
	size_t i;

	if (!list)
		return -1;
	json_array_foreach(list, i, c) {
		uint64_t samples, flushes, ns;
		const char *name;

		snprintf(sub, sizeof(sub), "%s.flush_causes[%zu]", ctx, i);
		if (!json_is_object(c))
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

static int read_decisions(struct reader *rd, json_t *obj, const char *ctx, struct row *row)
{
	json_t *d = get_typed(rd, obj, ctx, "memcg_decisions", false);
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
static int read_flush_extras(struct reader *rd, json_t *obj, const char *ctx, struct row *row)
{
	if (json_object_get(obj, "flush_parts") && read_flush_parts(rd, obj, ctx, row))
		return -1;
	if (json_object_get(obj, "flush_causes") && read_flush_causes(rd, obj, ctx, row))
		return -1;
	if (json_object_get(obj, "memcg_decisions") && read_decisions(rd, obj, ctx, row))
		return -1;
	return 0;
}

/* Counters files may lack (count_def.json_optional): 1 << COUNT_* each. */
static unsigned int optional_counts(void)
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
static int read_counts_after(struct reader *rd, json_t *obj, const char *ctx, struct row *row,
			     int after)
{
	for (int k = 0; k < COUNT_MAX; k++) {
		const struct count_def *cd = &count_defs[k];

		if (cd->after != after)
			continue;
		if (cd->json_optional && !json_object_get(obj, cd->json)) {
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
static int read_figures(struct reader *rd, json_t *obj, const char *ctx, struct row *row)
{
	if (read_counts_after(rd, obj, ctx, row, -1))
		return -1;
	for (int i = 0; i < DIST_ROW_MAX; i++) {
		enum dist_id k = dist_shown[i];
		json_t *v = json_object_get(obj, dist_defs[k].json);
		bool absent = !v || json_is_null(v);

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

static int read_row(struct reader *rd, json_t *obj, const char *ctx, struct row *row)
{
	if (read_identity(rd, obj, ctx, row) || read_figures(rd, obj, ctx, row))
		return -1;
	/* the aggregate row of removed cgroups (optional: 0 is not written) */
	if (json_object_get(obj, "removed_cgroups") &&
	    get_u32(rd, obj, ctx, "removed_cgroups", &row->removed_cgroups))
		return -1;
	return 0;
}

/*
 * A -p row: a flusher of a cgroup. Kept by comm, not pid (pids differ
 * between runs), so one comm's processes on one cgroup merge.
 */
static int read_process_row(struct reader *rd, json_t *obj, const char *ctx, struct row *row)
{
	char sub[64];
	const char *comm;
	json_t *cg;

	if (!json_is_object(obj))
		return fail(rd, "%s: not an object", ctx);
	comm = get_str(rd, obj, ctx, "comm");
	cg = comm ? get_typed(rd, obj, ctx, "cgroup", false) : NULL;
	if (!cg)
		return -1;
	snprintf(row->comm, sizeof(row->comm), "%s", comm);
	snprintf(sub, sizeof(sub), "%s.cgroup", ctx);
	if (read_identity(rd, cg, sub, row) || read_figures(rd, obj, ctx, row))
		return -1;
	if (json_object_get(obj, "exited") && get_u32(rd, obj, ctx, "exited", &row->exited))
		return -1;
	return 0;
}

/* The rows of one list in an accumulator, merged by their identity. */
struct acc_rows {
	struct row **rows;
	size_t *n, *cap;
	struct row_index *ix;
};

/* into += v, refusing to wrap: merged objects add their counts. */
static int add_u64(struct reader *rd, const char *ctx, uint64_t *into, uint64_t v,
		   const char *key)
{
	if (v > UINT64_MAX - *into)
		return fail(rd, "%s: \"%s\" overflows", ctx, key);
	*into += v;
	return 0;
}

/* Adds one parsed row, merging it into the row of the same identity. */
static int acc_add_row(struct reader *rd, const struct acc_rows *l, struct row *row)
{
	long pos = row_index_find(l->ix, *l->rows, row);
	struct row *dst;

	if (pos >= 0) {
		const char *key = row_merge_overflows(&(*l->rows)[pos], row);

		/* summaries and intervals add up: a sum past 2^64-1 is no measurement */
		if (key)
			return fail(rd, "%s: %s passes 2^64-1 added to the rows before it",
				    row->path ? row->path : "(no path)", key);
		if (row_merge(&(*l->rows)[pos], row))
			return fail(rd, "out of memory");
		row_free(row);
		return 0;
	}
	if (*l->n >= READ_ROWS_MAX)
		return fail(rd, "more than %d rows merged", READ_ROWS_MAX);
	dst = report_add_row(l->rows, l->n, l->cap);
	if (!dst)
		return fail(rd, "out of memory");
	*dst = *row;
	/* the index hashes the row's identity: add it once the row is filled */
	if (row_index_add(l->ix, *l->rows, *l->n - 1)) {
		memset(dst, 0, sizeof(*dst));
		(*l->n)--;
		return fail(rd, "out of memory");
	}
	memset(row, 0, sizeof(*row));
	return 0;
}

typedef int (*read_one_fn)(struct reader *, json_t *, const char *, struct row *);

static int read_one_row(struct reader *rd, json_t *v, const char *key, size_t i,
			const struct acc_rows *l, read_one_fn read_one)
{
	struct row row;
	char ctx[48];

	if (i >= READ_ROWS_MAX)
		return fail(rd, "%s: more than %d rows", key, READ_ROWS_MAX);
	memset(&row, 0, sizeof(row));
	snprintf(ctx, sizeof(ctx), "%s[%zu]", key, i);
	if (read_one(rd, v, ctx, &row) || acc_add_row(rd, l, &row)) {
		row_free(&row);
		return -1;
	}
	return 0;
}

/*
 * The end of the JSON value at s (a string, or an object or array with
 * everything in it; a scalar up to the next ',' ']' or '}' at its depth),
 * or NULL where the text ends first.
 */
static const char *value_end(const char *s, const char *end)
{
	int depth = 0;

	for (const char *p = s; p < end; p++) {
		if (*p == '"') {
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\')
					p++;
			if (p >= end)
				return NULL;
			if (!depth)
				return p + 1;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (!depth)
				return p;
			if (!--depth)
				return p + 1;
		} else if (*p == ',' && !depth) {
			return p;
		}
	}
	return NULL;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && strchr(" \t\r\n", *p))
		p++;
	return p;
}

/* Rows of an array's text, each parsed alone: a row's tree, never the whole list's. */
static int read_raw_list(struct reader *rd, const struct raw_list *raw, const char *key,
			 const struct acc_rows *l, read_one_fn read_one)
{
	const char *p = skip_blank(raw->at + 1, raw->at + raw->len), *end = raw->at + raw->len - 1;
	json_error_t jerr;
	size_t i = 0;

	while (p < end) {
		const char *e = value_end(p, end);
		json_t *v;
		int ret;

		if (!e)
			return fail(rd, "%s: not JSON", key);
		v = json_loadb(p, (size_t)(e - p), JSON_REJECT_DUPLICATES, &jerr);
		if (!v)
			return fail(rd, "%s[%zu]: not JSON: %s", key, i, jerr.text);
		ret = read_one_row(rd, v, key, i++, l, read_one);
		json_decref(v);
		if (ret)
			return -1;
		p = skip_blank(e, end);
		if (p < end && *p == ',')
			p = skip_blank(p + 1, end);
	}
	return 0;
}

static int read_list(struct reader *rd, json_t *rows, const char *key, const struct acc_rows *l,
		     read_one_fn read_one, const struct raw_list *raw)
{
	size_t i;
	json_t *v;

	if (raw->at)
		return read_raw_list(rd, raw, key, l, read_one);
	json_array_foreach(rows, i, v)
		if (read_one_row(rd, v, key, i, l, read_one))
			return -1;
	return 0;
}

static int read_rows(struct reader *rd, json_t *obj, struct acc *a)
{
	json_t *rows = get_typed(rd, obj, "", "cgroups", true), *procs;
	struct acc_rows cg = { &a->r.cgroups, &a->r.ncgroups, &a->cap, &a->ix };
	struct acc_rows pr = { &a->r.processes, &a->r.nprocesses, &a->pcap, &a->pix };

	if (!rows || read_list(rd, rows, "cgroups", &cg, read_row, &rd->raw[0]))
		return -1;
	procs = json_object_get(obj, "processes");
	if (!procs || json_is_null(procs))
		return 0;
	if (!json_is_array(procs))
		return fail(rd, "\"processes\" is not an array");
	a->r.per_process = true;
	a->pix.identity = &row_by_flusher;
	return read_list(rd, procs, "processes", &pr, read_process_row, &rd->raw[1]);
}

static int read_lost(struct reader *rd, json_t *obj, struct acc *a)
{
	json_t *lost = get_typed(rd, obj, "", "lost", false);
	uint64_t v;

	if (!lost)
		return -1;
	/* counters a newer rstatlat/1 adds are not known here: skipped */
	for (int i = 0; i < LOST_MAX; i++) {
		/* files written before "entry" was the one word say slots_full */
		const char *key = i == LOST_ENTRIES_FULL && !json_object_get(lost, lost_names[i]) ?
				  "slots_full" : lost_names[i];

		if (!json_object_get(lost, key))
			continue;
		if (get_u64(rd, lost, "lost", key, &v) || add_u64(rd, "lost", &a->r.lost[i], v, key))
			return -1;
	}
	return 0;
}


/* The per-CPU lock (6.10-6.16), system-wide: null when its tracepoints were not attached. */
static int read_cpu_lock(struct reader *rd, json_t *obj, struct acc *a)
{
	json_t *v = json_object_get(obj, "cpu_lock");
	struct lock_summary l = { .present = true }, *into = &a->r.cpu_lock;
	int ret;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return fail(rd, "\"cpu_lock\" is not an object");
	/* a failure ends the read, so a half-added lock is never used */
	ret = get_u64(rd, v, "cpu_lock", "locked", &l.locked) ||
	      get_u64(rd, v, "cpu_lock", "contended", &l.contended) ||
	      read_dist(rd, v, "cpu_lock", "hold_ns", &l.hold) ||
	      read_dist(rd, v, "cpu_lock", "wait_ns", &l.wait) ||
	      add_u64(rd, "cpu_lock", &into->locked, l.locked, "locked") ||
	      add_u64(rd, "cpu_lock", &into->contended, l.contended, "contended");
	if (!ret && (dist_merge_overflows(&into->hold, &l.hold) ||
		     dist_merge_overflows(&into->wait, &l.wait)))
		ret = fail(rd, "cpu_lock: a sum passes 2^64-1 added to the objects before it");
	if (!ret && (dist_merge(&into->hold, &l.hold) || dist_merge(&into->wait, &l.wait)))
		ret = fail(rd, "out of memory");
	into->present = into->present || !ret;
	dist_free(&l.hold);
	dist_free(&l.wait);
	return ret ? -1 : 0;
}

/* A number, or null for unknown; *known says which. */
static int get_u64_or_null(struct reader *rd, json_t *obj, const char *ctx, const char *key,
			   uint64_t *out, bool *known)
{
	json_t *v = get(rd, obj, ctx, key);

	if (!v)
		return -1;
	*known = !json_is_null(v);
	*out = 0;
	return *known ? get_u64(rd, obj, ctx, key, out) : 0;
}

/*
 * rstatlat's own costs, when the object has them. Merged objects add
 * their CPU and BPF time; the last one says how many entries were in use.
 */
static int read_self(struct reader *rd, json_t *obj, struct acc *a)
{
	json_t *v = json_object_get(obj, "self");
	struct self_costs c = { .present = true }, *into = &a->r.self;
	bool runs_known;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return fail(rd, "\"self\" is not an object");
	if (get_u64(rd, v, "self", "map_bytes", &c.map_bytes) ||
	    get_u32(rd, v, "self", "entries", &c.entries) ||
	    get_u32(rd, v, "self", "entries_used", &c.entries_used) ||
	    get_u64(rd, v, "self", "cpu_user_ns", &c.cpu_user_ns) ||
	    get_u64(rd, v, "self", "cpu_system_ns", &c.cpu_system_ns) ||
	    get_u64_or_null(rd, v, "self", "bpf_ns", &c.bpf_ns, &c.bpf_stats) ||
	    get_u64_or_null(rd, v, "self", "bpf_runs", &c.bpf_runs, &runs_known) ||
	    get_u64(rd, v, "self", "rss_max_bytes", &c.rss_max_bytes))
		return -1;
	if (c.bpf_stats != runs_known)
		return fail(rd, "self: \"bpf_ns\" and \"bpf_runs\" must both be numbers "
			    "or both null");
	if (!a->self_objects++) {
		*into = c;
		return 0;
	}
	if (add_u64(rd, "self", &into->cpu_user_ns, c.cpu_user_ns, "cpu_user_ns") ||
	    add_u64(rd, "self", &into->cpu_system_ns, c.cpu_system_ns, "cpu_system_ns") ||
	    add_u64(rd, "self", &into->bpf_ns, c.bpf_ns, "bpf_ns") ||
	    add_u64(rd, "self", &into->bpf_runs, c.bpf_runs, "bpf_runs"))
		return -1;
	into->bpf_stats = into->bpf_stats && c.bpf_stats;
	into->map_bytes = c.map_bytes;
	into->entries = c.entries;
	into->entries_used = c.entries_used;
	if (c.rss_max_bytes > into->rss_max_bytes)
		into->rss_max_bytes = c.rss_max_bytes;
	return 0;
}

/* "locks": one of lock_scope_names, or absent (LOCKS_UNKNOWN). */
static int read_locks(struct reader *rd, json_t *obj, enum lock_scope *locks)
{
	json_t *v = json_object_get(obj, "locks");

	*locks = LOCKS_UNKNOWN;
	if (!v)
		return 0;
	for (int k = 0; k < LOCKS_MAX; k++) {
		if (lock_scope_names[k] && json_is_string(v) &&
		    !strcmp(json_string_value(v), lock_scope_names[k])) {
			*locks = (enum lock_scope)k;
			return 0;
		}
	}
	return fail(rd, "locks: not \"global\" or \"per-subsystem\"");
}

/* Every object of a file must come from one kernel and one attach plan. */
static int read_kernel(struct reader *rd, json_t *obj)
{
	json_t *k = get_typed(rd, obj, "", "kernel", false);
	struct kernel_info ki = { 0 };
	const char *release, *attach;
	enum lock_scope locks;
	json_t *lock_rows = json_object_get(obj, "lock_rows");
	json_t *lock_types = json_object_get(obj, "lock_types");
	uint32_t possible, online;

	if (!k)
		return -1;
	release = get_str(rd, k, "kernel", "release");
	if (!release || get_u32(rd, k, "kernel", "cpus_possible", &possible) ||
	    get_u32(rd, k, "kernel", "cpus_online", &online))
		return -1;
	attach = get_str(rd, obj, "", "attach");
	if (!attach || read_locks(rd, obj, &locks))
		return -1;
	if ((lock_rows && !json_is_boolean(lock_rows)) ||
	    (lock_types && !json_is_boolean(lock_types)))
		return fail(rd, "%s: not a boolean", lock_rows && !json_is_boolean(lock_rows) ?
			    "lock_rows" : "lock_types");
	snprintf(ki.release, sizeof(ki.release), "%s", release);
	ki.cpus_possible = (int)(possible > INT32_MAX ? INT32_MAX : possible);
	ki.cpus_online = (int)(online > INT32_MAX ? INT32_MAX : online);
	if (!rd->have_kernel) {
		rd->kernel = ki;
		snprintf(rd->attach, sizeof(rd->attach), "%s", attach);
		rd->locks = locks;
		rd->lock_rows = json_is_true(lock_rows);
		rd->lock_types = json_is_true(lock_types);
		rd->have_kernel = true;
		return 0;
	}
	if (strcmp(ki.release, rd->kernel.release) || strcmp(attach, rd->attach) ||
	    locks != rd->locks || json_is_true(lock_rows) != rd->lock_rows ||
	    json_is_true(lock_types) != rd->lock_types)
		return fail(rd, "objects from different kernels or attach points in one file");
	return 0;
}

static int read_irqoff_source(struct reader *rd, json_t *obj)
{
	json_t *irq = json_object_get(obj, "irqoff");
	const char *src;

	if (!irq || json_is_null(irq))
		return 0;
	if (!json_is_object(irq))
		return fail(rd, "\"irqoff\" is not an object");
	src = get_str(rd, irq, "irqoff", "source");
	if (!src)
		return -1;
	snprintf(rd->info->irqoff_buf, sizeof(rd->info->irqoff_buf), "%s", src);
	rd->info->irqoff_source = rd->info->irqoff_buf;
	return 0;
}

/* One of irqoff's system-wide distributions (null when its source was off), merged. */
static int read_system_dist(struct reader *rd, json_t *irq, const char *key, struct dist *into,
			    bool *present)
{
	json_t *v = json_object_get(irq, key);
	struct dist d = { 0 };
	int ret;

	if (!v || json_is_null(v))
		return 0;
	ret = read_dist(rd, irq, "irqoff", key, &d);
	if (!ret && dist_merge_overflows(into, &d))
		ret = fail(rd, "irqoff.%s: a sum passes 2^64-1 added to the objects before it", key);
	if (!ret && dist_merge(into, &d))
		ret = fail(rd, "out of memory");
	dist_free(&d);
	*present = *present || !ret;
	return ret;
}

/* Irqs-off outside rstat (trace) and tick lateness (sample), system-wide. */
static int read_irqoff_system(struct reader *rd, json_t *obj, struct acc *a)
{
	json_t *irq = json_object_get(obj, "irqoff");
	const char *outside;

	if (!irq || !json_is_object(irq))
		return 0;
	/* files written before "outside" was the one word for them say other_ns */
	outside = json_object_get(irq, "outside_ns") ? "outside_ns" : "other_ns";
	return read_system_dist(rd, irq, outside, &a->r.irqoff.outside, &a->r.irqoff.trace) ||
	       read_system_dist(rd, irq, "late_ns", &a->r.irqoff.late, &a->r.irqoff.sample);
}

/* More arguments than this is not a command rstatlat ran (ARG_MAX allows more, no CI does). */
#define COMMAND_ARGS_MAX 4096

/* "status" or "signal" of a command: null until it ended, else 0..255. */
static int read_end_figure(struct reader *rd, json_t *cmd, const char *key, bool *ended, int *out)
{
	json_t *v = get(rd, cmd, "command", key);

	if (!v)
		return -1;
	if (json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 255)
		return fail(rd, "command: \"%s\" is not null or 0..255", key);
	*out = (int)json_integer_value(v);
	*ended = true;
	return 0;
}

static int read_command_cgroups(struct reader *rd, json_t *list, struct command_info *c)
{
	size_t i;
	json_t *v;

	if (json_array_size(list) > COMMAND_CGROUPS_MAX)
		return fail(rd, "command: more than %d cgroups", COMMAND_CGROUPS_MAX);
	json_array_foreach(list, i, v) {
		struct row id = { 0 };
		char ctx[48];

		snprintf(ctx, sizeof(ctx), "command.cgroups[%zu]", i);
		if (read_identity(rd, v, ctx, &id))
			return -1;
		c->cgroups[c->ncgroups++] = (struct command_cgroup){
			.id = id.cgid, .hierarchy = id.hierarchy, .path = id.path,
		};
	}
	return 0;
}

static int read_command_argv(struct reader *rd, json_t *list, struct command_info *c)
{
	size_t i, n = json_array_size(list);
	json_t *v;

	if (!n || n > COMMAND_ARGS_MAX)
		return fail(rd, "command: \"argv\" must hold 1 to %d strings", COMMAND_ARGS_MAX);
	c->argv = calloc(n + 1, sizeof(*c->argv));
	if (!c->argv)
		return fail(rd, "out of memory");
	json_array_foreach(list, i, v) {
		if (!json_is_string(v))
			return fail(rd, "command: argv[%zu] is not a string", i);
		c->argv[c->argc] = strdup(json_string_value(v));
		if (!c->argv[c->argc++])
			return fail(rd, "out of memory");
	}
	return 0;
}

/*
 * "command" (-- COMMAND): the first object's, with how it ended from the
 * object that knows (the summary). Absent in runs without a command.
 */
static int read_command(struct reader *rd, json_t *obj, struct acc *a)
{
	json_t *cmd = json_object_get(obj, "command"), *argv, *cgroups;
	struct command_info *c = &a->r.command, got = { 0 };
	int ret;

	if (!cmd)
		return 0;
	if (!json_is_object(cmd))
		return fail(rd, "\"command\" is not an object");
	if (read_end_figure(rd, cmd, "status", &got.ended, &got.status) ||
	    read_end_figure(rd, cmd, "signal", &got.ended, &got.signal))
		return -1;
	if (c->present) {
		if (got.ended) {
			c->ended = true;
			c->status = got.status;
			c->signal = got.signal;
		}
		return 0;
	}
	argv = get_typed(rd, cmd, "command", "argv", true);
	cgroups = argv ? get_typed(rd, cmd, "command", "cgroups", true) : NULL;
	ret = !cgroups || get_u32(rd, cmd, "command", "pid", &got.pid) ||
	      read_command_argv(rd, argv, &got) || read_command_cgroups(rd, cgroups, &got);
	if (ret) {
		command_free(&got);
		return -1;
	}
	got.present = true;
	*c = got;
	return 0;
}

static int check_schema(struct reader *rd, json_t *obj)
{
	json_t *v = json_is_object(obj) ? json_object_get(obj, "schema") : NULL;
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;

	if (!s || strncmp(s, SCHEMA_PREFIX, strlen(SCHEMA_PREFIX)))
		return fail(rd, "not rstatlat -j output (no \"schema\": \"" SCHEMA "\")");
	if (strcmp(s, SCHEMA))
		return fail(rd, "unsupported schema \"%.32s\" (this rstatlat reads " SCHEMA ")", s);
	return 0;
}

/* A part's number from its name ("irq"), or -1. */
static int part_named(const char *name)
{
	for (int k = 0; k < PART_MAX; k++)
		if (!strcmp(part_names[k], name))
			return k;
	return -1;
}

/*
 * Where the parts came from, and which were measured. Files from before
 * --flush-parts kernel timed every part but self (then in other).
 */
static int read_parts_from(struct reader *rd, json_t *obj, struct acc *a)
{
	json_t *from = json_object_get(obj, "flush_parts_from");
	json_t *un = json_object_get(obj, "flush_parts_unmeasured"), *v;
	unsigned int measured = (1U << PART_MAX) - 1;
	size_t i;
	int k;

	a->r.parts_from = PARTS_FROM_TIMED;
	if (!from) {
		a->r.parts_measured = measured & ~(1U << PART_SELF);
		return 0;
	}
	if (!json_is_string(from) || !strcmp(json_string_value(from), ""))
		return fail(rd, "flush_parts_from: not kernel or timed");
	if (!strcmp(json_string_value(from), "kernel"))
		a->r.parts_from = PARTS_FROM_KERNEL;
	else if (strcmp(json_string_value(from), "timed"))
		return fail(rd, "flush_parts_from: not kernel or timed");
	if (!json_is_array(un))
		return fail(rd, "flush_parts_unmeasured: not an array");
	json_array_foreach(un, i, v) {
		k = json_is_string(v) ? part_named(json_string_value(v)) : -1;
		if (k < 0 || k == PART_OTHER)
			return fail(rd, "flush_parts_unmeasured[%zu]: not a part's name", i);
		measured &= ~(1U << k);
	}
	a->r.parts_measured = measured;
	return 0;
}

/* What a run measured of its flushes; absent in older files. */
static int read_flush_sources(struct reader *rd, json_t *obj, struct acc *a)
{
	json_t *parts = json_object_get(obj, "flush_parts");
	json_t *memcg = json_object_get(obj, "memcg_decisions"), *budget;

	if ((parts && !json_is_boolean(parts)) || (memcg && !json_is_boolean(memcg)))
		return fail(rd, "flush_parts, memcg_decisions: not true or false");
	if (json_is_true(parts) && read_parts_from(rd, obj, a))
		return -1;
	a->r.flush_parts |= json_is_true(parts);
	a->r.memcg_decisions |= json_is_true(memcg);
	if (json_object_get(obj, "cause_sample") &&
	    get_u32(rd, obj, "", "cause_sample", &a->r.cause_sample))
		return -1;
	/* absent before the stack budget: a fixed 1 in cause_sample */
	budget = json_object_get(obj, "cause_budget");
	if (budget && !json_is_boolean(budget))
		return fail(rd, "cause_budget: not true or false");
	a->r.cause_budgeted |= json_is_true(budget);
	return 0;
}

static int read_object(struct reader *rd, json_t *obj)
{
	const char *type;
	struct acc *a;
	uint64_t start, dur;

	if (check_schema(rd, obj))
		return -1;
	type = get_str(rd, obj, "", "type");
	if (!type)
		return -1;
	if (!strcmp(type, "slow"))
		return 0;
	if (strcmp(type, "interval") && strcmp(type, "summary"))
		return fail(rd, "unknown object type \"%.32s\"", type);
	a = &rd->acc[!strcmp(type, "summary")];
	if (get_u64(rd, obj, "", "start_ns", &start) ||
	    get_u64(rd, obj, "", "duration_ns", &dur) || read_kernel(rd, obj) ||
	    read_irqoff_source(rd, obj) || read_rows(rd, obj, a) || read_lost(rd, obj, a) ||
	    read_self(rd, obj, a) || read_cpu_lock(rd, obj, a) || read_irqoff_system(rd, obj, a) ||
	    read_flush_sources(rd, obj, a) || read_command(rd, obj, a))
		return -1;
	if (dur > UINT64_MAX - a->r.duration_ns)
		return fail(rd, "durations overflow");
	if (!a->objects || start < a->r.start_ns)
		a->r.start_ns = start;
	a->r.duration_ns += dur;
	a->r.type = a == &rd->acc[1] ? REPORT_SUMMARY : REPORT_INTERVAL;
	a->objects++;
	return 0;
}

/*
 * A summary of thousands of cgroups is one line of tens of MiB, and
 * jansson's tree of it several times that: the top-level "cgroups" and
 * "processes" arrays are cut out of the line into rd->raw (each row is
 * then parsed alone) and the object is parsed with them as "[]". Returns
 * the object's text (malloced), or NULL to parse the line whole (nothing
 * to cut, out of memory, or text the cut cannot follow: jansson says why).
 */
static char *split_rows(struct reader *rd, const char *line, size_t len)
{
	static const char *const keys[] = { "cgroups", "processes" };
	const char *end = line + len, *p = skip_blank(line, end);
	const struct raw_list *cut[2] = { &rd->raw[0], &rd->raw[1] };
	char *skel, *out;

	memset(rd->raw, 0, sizeof(rd->raw));
	if (p == end || *p != '{')
		return NULL;
	/* "key": value pairs at the top level */
	for (p = skip_blank(p + 1, end); p < end && *p == '"';) {
		const char *key = p + 1, *key_end = value_end(p, end), *v, *v_end;

		if (!key_end)
			return NULL;
		v = skip_blank(key_end, end);
		if (v == end || *v != ':')
			return NULL;
		v = skip_blank(v + 1, end);
		v_end = value_end(v, end);
		if (!v_end || v_end == v)
			return NULL;
		for (int k = 0; k < 2; k++)
			if (*v == '[' && (size_t)(key_end - 1 - key) == strlen(keys[k]) &&
			    !strncmp(key, keys[k], strlen(keys[k])) && !rd->raw[k].at)
				rd->raw[k] = (struct raw_list){ v, (size_t)(v_end - v) };
		p = skip_blank(v_end, end);
		if (p < end && *p == ',')
			p = skip_blank(p + 1, end);
	}
	if (!rd->raw[0].at && !rd->raw[1].at)
		return NULL;
	/* the cuts in the line's order */
	if (cut[1]->at && (!cut[0]->at || cut[1]->at < cut[0]->at)) {
		cut[0] = &rd->raw[1];
		cut[1] = &rd->raw[0];
	}
	skel = out = malloc(len + 5 - rd->raw[0].len - rd->raw[1].len);
	if (!skel) {
		memset(rd->raw, 0, sizeof(rd->raw));
		return NULL;
	}
	p = line;
	for (int k = 0; k < 2; k++) {
		if (!cut[k]->at)
			continue;
		memcpy(out, p, (size_t)(cut[k]->at - p));
		out += cut[k]->at - p;
		memcpy(out, "[]", 2);
		out += 2;
		p = cut[k]->at + cut[k]->len;
	}
	memcpy(out, p, (size_t)(end - p));
	out[end - p] = '\0';
	return skel;
}

static int read_line(struct reader *rd, const char *line, size_t len)
{
	json_error_t jerr;
	json_t *obj;
	char *skel;
	int ret;

	if (strlen(line) != len)
		return fail(rd, "NUL byte in input");
	skel = split_rows(rd, line, len);
	if (skel) {
		obj = json_loads(skel, JSON_REJECT_DUPLICATES, &jerr);
		free(skel);
		if (obj) {
			ret = read_object(rd, obj);
			json_decref(obj);
			memset(rd->raw, 0, sizeof(rd->raw));
			return ret;
		}
		/* the whole line's error says where, in its own columns */
		memset(rd->raw, 0, sizeof(rd->raw));
	}
	obj = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!obj) {
		/* only the last line can lack its newline: the file was cut */
		if (line[len - 1] != '\n')
			return fail(rd, "truncated: %s", jerr.text);
		return fail(rd, "not JSON: %s (column %d)", jerr.text, jerr.column);
	}
	ret = read_object(rd, obj);
	json_decref(obj);
	return ret;
}

static void acc_free(struct acc *a)
{
	report_free(&a->r);
	row_index_free(&a->ix);
	row_index_free(&a->pix);
}

static bool blank(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

/*
 * The next line into *buf, at most READ_LINE_MAX bytes, the file at most
 * READ_FILE_MAX: its length, 0 at the end, -1 with rd's error set. A line
 * that cannot be JSON (a NUL byte, or a first character that begins no
 * JSON value) fails at once, so an endless stream of garbage (/dev/zero,
 * yes) is refused without reading it.
 */
static ssize_t read_bounded(struct reader *rd, FILE *f, char **buf, size_t *cap,
			    uint64_t *total)
{
	size_t len = 0;
	bool text = false;	/* a character other than blank seen */
	int c = 0;

	flockfile(f);
	while ((c = getc_unlocked(f)) != EOF) {
		if (len + 2 > *cap) {
			size_t want = *cap ? 2 * *cap : 4096;

			/* never more than a line may hold: memory stays bounded */
			if (want > READ_LINE_MAX + 2)
				want = READ_LINE_MAX + 2;
			char *p = realloc(*buf, want);

			if (!p) {
				funlockfile(f);
				return fail(rd, "out of memory");
			}
			*buf = p;
			*cap = want;
		}
		(*buf)[len++] = (char)c;
		/* what can begin no JSON value ends the read at once */
		if (!c || (!text && !strchr(" \t\r\n{[\"-0123456789tfn", c)) ||
		    len > READ_LINE_MAX ||
		    ++*total > READ_FILE_MAX)
			break;
		text = text || !strchr(" \t\r\n", c);
		if (c == '\n')
			break;
	}
	funlockfile(f);
	if (len)
		(*buf)[len] = '\0';
	if (c == 0)
		return fail(rd, "a NUL byte: not a file rstatlat wrote");
	if (c != EOF && c != '\n' && !text)
		return fail(rd, "not JSON: a line begins with '%c'", c);
	if (len > READ_LINE_MAX)
		return fail(rd, "longer than %zu MiB: not a file rstatlat wrote", READ_LINE_MAX >> 20);
	if (*total > READ_FILE_MAX)
		return fail(rd, "past %llu GiB: more than compare reads",
			    (unsigned long long)(READ_FILE_MAX >> 30));
	return (ssize_t)len;
}

int report_read(FILE *f, struct report *r, struct read_info *info, char *err, size_t errlen)
{
	struct reader rd = { .err = err, .errlen = errlen, .info = info };
	char *line = NULL;
	size_t cap = 0;
	uint64_t total = 0;
	ssize_t len;
	struct acc *use;
	int ret = 0;

	memset(info, 0, sizeof(*info));
	info->irqoff_source = "";
	memset(r, 0, sizeof(*r));
	while (rd.line++, (len = read_bounded(&rd, f, &line, &cap, &total)) > 0) {
		if (blank(line))
			continue;
		ret = read_line(&rd, line, (size_t)len);
		if (ret)
			break;
	}
	if (len < 0)
		ret = -1;
	else if (!ret)
		rd.line--;	/* counted once more at the end */
	free(line);
	if (!ret && ferror(f))
		ret = fail(&rd, "read error: %s", strerror(errno));
	if (!ret && !rd.acc[0].objects && !rd.acc[1].objects) {
		snprintf(err, errlen, "%s", rd.line ? "no interval or summary object" : "empty file");
		ret = -1;
	}
	if (ret) {
		acc_free(&rd.acc[0]);
		acc_free(&rd.acc[1]);
		return -1;
	}
	/* a summary covers the whole run; intervals only when there is none */
	use = rd.acc[1].objects ? &rd.acc[1] : &rd.acc[0];
	info->summaries = rd.acc[1].objects;
	info->intervals = rd.acc[0].objects;
	*r = use->r;
	memset(&use->r, 0, sizeof(use->r));
	/* rows without irqoff_ns: the holds, which are irqs-off under spin_lock_irq */
	r->irqoff_rows = rd.irqoff_rows ? IRQOFF_ROWS_TRACED : IRQOFF_ROWS_LOCK;
	r->counts_unmeasured = optional_counts() & (~rd.counts_seen | rd.counts_missing);
	/* costs of part of the window only would mislead */
	if (use->self_objects != use->objects)
		memset(&r->self, 0, sizeof(r->self));
	r->kernel = rd.kernel;
	r->owned = strdup(rd.attach);
	r->attach = r->owned ? r->owned : "";
	r->locks = rd.locks;
	r->lock_rows = rd.lock_rows;
	r->lock_types = rd.lock_types;
	acc_free(&rd.acc[0]);
	acc_free(&rd.acc[1]);
	return 0;
}

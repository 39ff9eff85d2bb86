// SPDX-License-Identifier: GPL-2.0
/*
 * JSON lines -> report, through jtree (yajl). Everything in the file is untrusted:
 * every key is checked for presence and type, every histogram for the
 * rstatlat/1 bucket layout and for counts that add up, and the first
 * problem ends the read with one line saying where it is.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jtree.h"
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

/* The top-level lists of rows, each row read alone as it comes (jtree). */
enum { LIST_CGROUPS, LIST_PROCESSES, LIST_MAX };
static const char *const list_keys[LIST_MAX] = { "cgroups", "processes" };

struct reader {
	struct jt_parser *jp;
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
	/* objects of type "workload" (rstatlat load -j), merged */
	struct workload_info workload;
	size_t workload_lines;
	/* rows of the object being read that came before its "type" */
	struct pending {
		struct row *rows;
		size_t n, cap;
	} pending[LIST_MAX];
};

/*
 * Says what is wrong in rd->err; fail() is that and -1, as an expression,
 * so that every caller's "return fail(...)" is seen to return -1 (a
 * checker does not follow a variadic call's return value).
 */
#define fail(rd, ...) (say_failure((rd), __VA_ARGS__), -1)

static void say_failure(struct reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say_failure(struct reader *rd, const char *fmt, ...)
{
	/* the line the parser has reached: where the problem is */
	int n = snprintf(rd->err, rd->errlen, "line %zu: ", rd->jp ? jt_line(rd->jp) : 0);
	va_list ap;

	if (n < 0 || (size_t)n >= rd->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(rd->err + n, rd->errlen - n, fmt, ap);
	va_end(ap);
}

static const struct jt *get(struct reader *rd, const struct jt *obj, const char *ctx, const char *key)
{
	const struct jt *v = jt_get(obj, key);

	if (!v)
		say_failure(rd, "%s%smissing key \"%s\"", ctx, *ctx ? ": " : "", key);
	return v;
}

static int get_u64(struct reader *rd, const struct jt *obj, const char *ctx, const char *key,
		   uint64_t *out)
{
	const struct jt *v = get(rd, obj, ctx, key);

	if (!v)
		return -1;
	if (!jt_is(v, JT_UINT))
		return fail(rd, "%s%s\"%s\" is not a non-negative integer", ctx,
			    *ctx ? ": " : "", key);
	*out = v->u;
	return 0;
}

static int get_u32(struct reader *rd, const struct jt *obj, const char *ctx, const char *key,
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

static const char *get_str(struct reader *rd, const struct jt *obj, const char *ctx, const char *key)
{
	const struct jt *v = get(rd, obj, ctx, key);

	if (v && !jt_is(v, JT_STRING)) {
		say_failure(rd, "%s%s\"%s\" is not a string", ctx, *ctx ? ": " : "", key);
		return NULL;
	}
	return v ? v->str.s : NULL;
}

static const struct jt *get_typed(struct reader *rd, const struct jt *obj, const char *ctx, const char *key,
			 bool array)
{
	const struct jt *v = get(rd, obj, ctx, key);

	if (v && (array ? !jt_is(v, JT_ARRAY) : !jt_is(v, JT_OBJECT))) {
		say_failure(rd, "%s%s\"%s\" is not an %s", ctx, *ctx ? ": " : "", key,
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
static int read_dist(struct reader *rd, const struct jt *obj, const char *ctx, const char *key,
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
static int read_identity(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row)
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

static int read_row(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row)
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
static int read_process_row(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row)
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

static int check_schema(struct reader *rd, const struct jt *obj);

/* Where a list's rows go in an accumulator: cgroup rows by cgroup, -p rows by cgroup and comm. */
static struct acc_rows acc_list(struct acc *a, int list)
{
	if (list == LIST_CGROUPS)
		return (struct acc_rows){ &a->r.cgroups, &a->r.ncgroups, &a->cap, &a->ix };
	a->r.per_process = true;
	a->pix.identity = &row_by_flusher;
	return (struct acc_rows){ &a->r.processes, &a->r.nprocesses, &a->pcap, &a->pix };
}

/*
 * The accumulator of the object whose members so far are top, by its
 * "type"; NULL for a "slow" object or one whose type is not known yet
 * (*known false: its rows wait in rd->pending).
 */
static struct acc *object_acc(struct reader *rd, const struct jt *top, bool *known)
{
	const struct jt *t = jt_get(top, "type");

	*known = jt_is(t, JT_STRING);
	if (*known && !strcmp(t->str.s, "summary"))
		return &rd->acc[1];
	if (*known && !strcmp(t->str.s, "interval"))
		return &rd->acc[0];
	return NULL;
}

static int pending_add(struct reader *rd, int list, struct row *row)
{
	struct pending *p = &rd->pending[list];

	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct row *rows = realloc(p->rows, cap * sizeof(*rows));

		if (!rows)
			return fail(rd, "out of memory");
		p->rows = rows;
		p->cap = cap;
	}
	p->rows[p->n++] = *row;
	memset(row, 0, sizeof(*row));
	return 0;
}

static void pending_free(struct reader *rd)
{
	for (int list = 0; list < LIST_MAX; list++) {
		struct pending *p = &rd->pending[list];

		for (size_t i = 0; i < p->n; i++)
			row_free(&p->rows[i]);
		free(p->rows);
		memset(p, 0, sizeof(*p));
	}
}

/*
 * jtree's element callback: the i-th row of a list of the object being
 * read, parsed alone and merged into its accumulator (or kept until the
 * object's type is known), its tree freed after.
 */
static int on_row(void *ctx, const struct jt *top, int list, size_t i, const struct jt *v)
{
	struct reader *rd = ctx;
	const struct jt *schema = jt_get(top, "schema");
	struct row row;
	struct acc *a;
	struct acc_rows l;
	bool known;
	char where[48];
	int ret;

	/* the schema comes first in rstatlat's files: rows of another are not read */
	if (schema && check_schema(rd, top))
		return -1;
	if (i >= READ_ROWS_MAX)
		return fail(rd, "%s: more than %d rows", list_keys[list], READ_ROWS_MAX);
	/* rows of a "slow" object, or of a type read_object refuses, are not read */
	a = object_acc(rd, top, &known);
	if (known && !a)
		return 0;
	memset(&row, 0, sizeof(row));
	snprintf(where, sizeof(where), "%s[%zu]", list_keys[list], i);
	ret = list == LIST_CGROUPS ? read_row(rd, v, where, &row) :
				     read_process_row(rd, v, where, &row);
	if (!ret && !known) {
		ret = pending_add(rd, list, &row);
	} else if (!ret) {
		l = acc_list(a, list);
		ret = acc_add_row(rd, &l, &row);
	}
	row_free(&row);
	return ret;
}

/* The rows were read as they came (on_row); here what the object says of them. */
static int read_rows(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *procs = jt_get(obj, "processes");

	if (!get_typed(rd, obj, "", "cgroups", true))
		return -1;
	if (procs && !jt_is(procs, JT_NULL) && !jt_is(procs, JT_ARRAY))
		return fail(rd, "\"processes\" is not an array");
	if (jt_is(procs, JT_ARRAY))
		acc_list(a, LIST_PROCESSES);
	/* rows that came before the object's "type" */
	for (int list = 0; list < LIST_MAX; list++) {
		struct pending *p = &rd->pending[list];
		struct acc_rows l;

		if (!p->n)
			continue;
		l = acc_list(a, list);
		for (size_t i = 0; i < p->n; i++)
			if (acc_add_row(rd, &l, &p->rows[i]))
				return -1;
	}
	return 0;
}

static int read_lost(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *lost = get_typed(rd, obj, "", "lost", false);
	uint64_t v;

	if (!lost)
		return -1;
	/* counters a newer rstatlat/1 adds are not known here: skipped */
	for (int i = 0; i < LOST_MAX; i++) {
		/* files written before "entry" was the one word say slots_full */
		const char *key = i == LOST_ENTRIES_FULL && !jt_get(lost, lost_names[i]) ?
				  "slots_full" : lost_names[i];

		if (!jt_get(lost, key))
			continue;
		if (get_u64(rd, lost, "lost", key, &v) || add_u64(rd, "lost", &a->r.lost[i], v, key))
			return -1;
	}
	return 0;
}


/* The per-CPU lock (6.10-6.16), system-wide: null when its tracepoints were not attached. */
static int read_cpu_lock(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *v = jt_get(obj, "cpu_lock");
	struct lock_summary l = { .present = true }, *into = &a->r.cpu_lock;
	int ret;

	if (!v || jt_is(v, JT_NULL))
		return 0;
	if (!jt_is(v, JT_OBJECT))
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
static int get_u64_or_null(struct reader *rd, const struct jt *obj, const char *ctx, const char *key,
			   uint64_t *out, bool *known)
{
	const struct jt *v = get(rd, obj, ctx, key);

	if (!v)
		return -1;
	*known = !jt_is(v, JT_NULL);
	*out = 0;
	return *known ? get_u64(rd, obj, ctx, key, out) : 0;
}

/*
 * rstatlat's own costs, when the object has them. Merged objects add
 * their CPU and BPF time; the last one says how many entries were in use.
 */
static int read_self(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *v = jt_get(obj, "self");
	struct self_costs c = { .present = true }, *into = &a->r.self;
	bool runs_known;

	if (!v || jt_is(v, JT_NULL))
		return 0;
	if (!jt_is(v, JT_OBJECT))
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
	/* the sampled BPF time, in files from rstatlat/1 files that have it */
	if (jt_get(v, "map_bytes_ceiling") &&
	    get_u64(rd, v, "self", "map_bytes_ceiling", &c.map_bytes_ceiling))
		return -1;
	c.own_known = jt_get(v, "bpf_sampled_ns") != NULL;
	if (c.own_known && (get_u64(rd, v, "self", "bpf_sampled_ns", &c.bpf_sampled_ns) ||
			    get_u64(rd, v, "self", "lock_events", &c.lock_events)))
		return -1;
	if (!a->self_objects++) {
		*into = c;
		return 0;
	}
	if (add_u64(rd, "self", &into->cpu_user_ns, c.cpu_user_ns, "cpu_user_ns") ||
	    add_u64(rd, "self", &into->cpu_system_ns, c.cpu_system_ns, "cpu_system_ns") ||
	    add_u64(rd, "self", &into->bpf_ns, c.bpf_ns, "bpf_ns") ||
	    add_u64(rd, "self", &into->bpf_runs, c.bpf_runs, "bpf_runs") ||
	    add_u64(rd, "self", &into->bpf_sampled_ns, c.bpf_sampled_ns, "bpf_sampled_ns") ||
	    add_u64(rd, "self", &into->lock_events, c.lock_events, "lock_events"))
		return -1;
	into->bpf_stats = into->bpf_stats && c.bpf_stats;
	into->own_known = into->own_known && c.own_known;
	into->map_bytes = c.map_bytes;
	into->map_bytes_ceiling = c.map_bytes_ceiling;
	into->entries = c.entries;
	into->entries_used = c.entries_used;
	if (c.rss_max_bytes > into->rss_max_bytes)
		into->rss_max_bytes = c.rss_max_bytes;
	return 0;
}

/* "locks": one of lock_scope_names, or absent (LOCKS_UNKNOWN). */
static int read_locks(struct reader *rd, const struct jt *obj, enum lock_scope *locks)
{
	const struct jt *v = jt_get(obj, "locks");

	*locks = LOCKS_UNKNOWN;
	if (!v)
		return 0;
	for (int k = 0; k < LOCKS_MAX; k++) {
		if (lock_scope_names[k] && jt_is(v, JT_STRING) &&
		    !strcmp(v->str.s, lock_scope_names[k])) {
			*locks = (enum lock_scope)k;
			return 0;
		}
	}
	return fail(rd, "locks: not \"global\" or \"per-subsystem\"");
}

/* Every object of a file must come from one kernel and one attach plan. */
static int read_kernel(struct reader *rd, const struct jt *obj)
{
	const struct jt *k = get_typed(rd, obj, "", "kernel", false);
	struct kernel_info ki = { 0 };
	const char *release, *attach;
	enum lock_scope locks;
	const struct jt *lock_rows = jt_get(obj, "lock_rows");
	const struct jt *lock_types = jt_get(obj, "lock_types");
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
	if ((lock_rows && !jt_is_bool(lock_rows)) ||
	    (lock_types && !jt_is_bool(lock_types)))
		return fail(rd, "%s: not a boolean", lock_rows && !jt_is_bool(lock_rows) ?
			    "lock_rows" : "lock_types");
	snprintf(ki.release, sizeof(ki.release), "%s", release);
	ki.cpus_possible = (int)(possible > INT32_MAX ? INT32_MAX : possible);
	ki.cpus_online = (int)(online > INT32_MAX ? INT32_MAX : online);
	if (!rd->have_kernel) {
		rd->kernel = ki;
		snprintf(rd->attach, sizeof(rd->attach), "%s", attach);
		rd->locks = locks;
		rd->lock_rows = jt_is(lock_rows, JT_TRUE);
		rd->lock_types = jt_is(lock_types, JT_TRUE);
		rd->have_kernel = true;
		return 0;
	}
	if (strcmp(ki.release, rd->kernel.release) || strcmp(attach, rd->attach) ||
	    locks != rd->locks || jt_is(lock_rows, JT_TRUE) != rd->lock_rows ||
	    jt_is(lock_types, JT_TRUE) != rd->lock_types)
		return fail(rd, "objects from different kernels or attach points in one file");
	return 0;
}

static int read_irqoff_source(struct reader *rd, const struct jt *obj)
{
	const struct jt *irq = jt_get(obj, "irqoff");
	const char *src;

	if (!irq || jt_is(irq, JT_NULL))
		return 0;
	if (!jt_is(irq, JT_OBJECT))
		return fail(rd, "\"irqoff\" is not an object");
	src = get_str(rd, irq, "irqoff", "source");
	if (!src)
		return -1;
	snprintf(rd->info->irqoff_buf, sizeof(rd->info->irqoff_buf), "%s", src);
	rd->info->irqoff_source = rd->info->irqoff_buf;
	return 0;
}

/* One of irqoff's system-wide distributions (null when its source was off), merged. */
static int read_system_dist(struct reader *rd, const struct jt *irq, const char *key, struct dist *into,
			    bool *present)
{
	const struct jt *v = jt_get(irq, key);
	struct dist d = { 0 };
	int ret;

	if (!v || jt_is(v, JT_NULL))
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
static int read_irqoff_system(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *irq = jt_get(obj, "irqoff");
	const char *outside;

	if (!irq || !jt_is(irq, JT_OBJECT))
		return 0;
	/* files written before "outside" was the one word for them say other_ns */
	outside = jt_get(irq, "outside_ns") ? "outside_ns" : "other_ns";
	/* absent before it was recorded; a long hold there may be a vCPU stall (findings) */
	a->r.irqoff.virtual_machine |= jt_is(jt_get(irq, "virtual_machine"), JT_TRUE);
	return read_system_dist(rd, irq, outside, &a->r.irqoff.outside, &a->r.irqoff.trace) ||
	       read_system_dist(rd, irq, "late_ns", &a->r.irqoff.late, &a->r.irqoff.sample);
}

/* More arguments than this is not a command rstatlat ran (ARG_MAX allows more, no CI does). */
#define COMMAND_ARGS_MAX 4096

/* "status" or "signal" of a command: null until it ended, else 0..255. */
static int read_end_figure(struct reader *rd, const struct jt *cmd, const char *key, bool *ended, int *out)
{
	const struct jt *v = get(rd, cmd, "command", key);

	if (!v)
		return -1;
	if (jt_is(v, JT_NULL))
		return 0;
	if (!jt_is(v, JT_UINT) || v->u > 255)
		return fail(rd, "command: \"%s\" is not null or 0..255", key);
	*out = (int)v->u;
	*ended = true;
	return 0;
}

static int read_command_cgroups(struct reader *rd, const struct jt *list, struct command_info *c)
{
	size_t i;
	const struct jt *v;

	if (list->n > COMMAND_CGROUPS_MAX)
		return fail(rd, "command: more than %d cgroups", COMMAND_CGROUPS_MAX);
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): each path is kept in c, freed with it */
	jt_foreach(list, i, v) {
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

static int read_command_argv(struct reader *rd, const struct jt *list, struct command_info *c)
{
	size_t i, n = list->n;
	const struct jt *v;

	if (!n || n > COMMAND_ARGS_MAX)
		return fail(rd, "command: \"argv\" must hold 1 to %d strings", COMMAND_ARGS_MAX);
	c->argv = calloc(n + 1, sizeof(*c->argv));
	if (!c->argv)
		return fail(rd, "out of memory");
	jt_foreach(list, i, v) {
		if (!jt_is(v, JT_STRING))
			return fail(rd, "command: argv[%zu] is not a string", i);
		c->argv[c->argc] = strdup(v->str.s);
		if (!c->argv[c->argc++])
			return fail(rd, "out of memory");
	}
	return 0;
}

/*
 * "command" (-- COMMAND): the first object's, with how it ended from the
 * object that knows (the summary). Absent in runs without a command.
 */
static int read_command(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *cmd = jt_get(obj, "command"), *argv, *cgroups;
	struct command_info *c = &a->r.command, got = { 0 };
	int ret;

	if (!cmd)
		return 0;
	if (!jt_is(cmd, JT_OBJECT))
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

/*
 * A workload's name or option key: a word of ours, [a-z0-9_-], 1 to len - 1
 * bytes; upper: A-Z too (a signal's name, "TERM").
 */
static bool workload_word(const char *s, size_t len, bool upper)
{
	size_t n = strlen(s);

	if (!n || n >= len)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      (upper && s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

#define WORKLOAD_TEXT_MAX 4096	/* an option's string value */

static int read_workload_options(struct reader *rd, const struct jt *opts,
				 struct workload_info *w)
{
	if (opts->n > WORKLOAD_OPTIONS_MAX)
		return fail(rd, "workload.options: more than %d", WORKLOAD_OPTIONS_MAX);
	for (const struct jt *v = opts->kids.first; v; v = v->next) {
		struct workload_option *o = &w->options[w->noptions];
		const char *key = v->key;

		if (!workload_word(key, sizeof(o->key), false))
			return fail(rd, "workload.options: a key is not a word of %d bytes at most",
				    WORKLOAD_KEY_LEN - 1);
		snprintf(o->key, sizeof(o->key), "%s", key);
		if (jt_is(v, JT_UINT)) {
			o->number = v->u;
		} else if (jt_is(v, JT_STRING) && strlen(v->str.s) <= WORKLOAD_TEXT_MAX) {
			if (!(o->text = strdup(v->str.s)))
				return fail(rd, "out of memory");
		} else {
			return fail(rd, "workload.options.%s: not an integer or a string of %d bytes "
				    "at most", o->key, WORKLOAD_TEXT_MAX);
		}
		w->noptions++;
	}
	return 0;
}

/* A short string of the workload's ("name", "hierarchy"; "stopped_by": a signal, or null). */
static int read_workload_word(struct reader *rd, const struct jt *obj, const char *key,
			      bool signal, char *out, size_t len)
{
	const struct jt *v = get(rd, obj, "workload", key);

	if (!v)
		return -1;
	if (signal && jt_is(v, JT_NULL))
		return 0;
	if (!jt_is(v, JT_STRING) || !workload_word(v->str.s, len, signal))
		return fail(rd, "workload: \"%s\" is not a word of %zu bytes at most", key, len - 1);
	snprintf(out, len, "%s", v->str.s);
	return 0;
}

/* The counters it has: reads always; rounds with round_ns; the rest as they come. */
static int read_workload_counts(struct reader *rd, const struct jt *obj, struct workload_info *w)
{
	for (int k = 0; k < WL_COUNT_MAX; k++) {
		if (k != WL_READS && !jt_get(obj, workload_count_names[k]))
			continue;
		if (get_u64(rd, obj, "workload", workload_count_names[k], &w->count[k]))
			return -1;
		w->measured |= 1U << k;
	}
	if (w->count[WL_ROUNDS_LATE] > w->count[WL_ROUNDS])
		return fail(rd, "workload: more rounds_late than rounds");
	if (read_dist(rd, obj, "workload", "read_ns", &w->read))
		return -1;
	if (w->read.count != w->count[WL_READS])
		return fail(rd, "workload: read_ns.count is not reads");
	if (!(w->measured & (1U << WL_ROUNDS)))
		return 0;
	if (read_dist(rd, obj, "workload", "round_ns", &w->round))
		return -1;
	return w->round.count == w->count[WL_ROUNDS] ? 0 :
	       fail(rd, "workload: round_ns.count is not rounds");
}

/* How many workloads a summary's has added up (1 unless said), and whether of different kinds. */
static int read_workload_pool(struct reader *rd, const struct jt *obj, struct workload_info *w)
{
	const struct jt *runs = jt_get(obj, "runs"), *mixed = jt_get(obj, "mixed");

	w->present = true;
	w->runs = 1;
	if (runs && (!jt_is(runs, JT_UINT) || !runs->u || runs->u > UINT32_MAX))
		return fail(rd, "workload: \"runs\" is not 1 to 2^32-1");
	if (mixed && !jt_is_bool(mixed))
		return fail(rd, "workload: \"mixed\" is not true or false");
	w->runs = runs ? (unsigned int)runs->u : 1;
	w->mixed = jt_is(mixed, JT_TRUE);
	return 0;
}

/* The members of a workload (rstatlat load): the summary's "workload", or a line of its own. */
static int read_workload_members(struct reader *rd, const struct jt *obj, struct workload_info *w)
{
	const struct jt *opts;

	memset(w, 0, sizeof(*w));
	if (read_workload_word(rd, obj, "name", false, w->name, sizeof(w->name)) ||
	    read_workload_word(rd, obj, "hierarchy", false, w->hierarchy, sizeof(w->hierarchy)) ||
	    read_workload_word(rd, obj, "stopped_by", true, w->stopped_by, sizeof(w->stopped_by)) ||
	    !(opts = get_typed(rd, obj, "workload", "options", false)) ||
	    read_workload_options(rd, opts, w) ||
	    get_u64(rd, obj, "workload", "wall_ns", &w->wall_ns) || read_workload_counts(rd, obj, w))
		return -1;
	return read_workload_pool(rd, obj, w);
}

/* One workload into into (the file's summaries', or its workload lines'). */
static int read_workload_into(struct reader *rd, const struct jt *obj, struct workload_info *into)
{
	struct workload_info w;
	int ret = read_workload_members(rd, obj, &w);

	if (!ret && workload_merge(into, &w))
		ret = fail(rd, "out of memory");
	workload_free(&w);
	return ret;
}

/* "workload": a summary of a command that ran rstatlat load. */
static int read_workload(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *v = jt_get(obj, "workload");

	if (!v)
		return 0;
	if (!jt_is(v, JT_OBJECT))
		return fail(rd, "\"workload\" is not an object");
	return read_workload_into(rd, v, &a->r.workload);
}

static int check_schema(struct reader *rd, const struct jt *obj)
{
	const struct jt *v = jt_is(obj, JT_OBJECT) ? jt_get(obj, "schema") : NULL;
	const char *s = jt_is(v, JT_STRING) ? v->str.s : NULL;

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
static int read_parts_from(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *from = jt_get(obj, "flush_parts_from");
	const struct jt *un = jt_get(obj, "flush_parts_unmeasured"), *v;
	unsigned int measured = (1U << PART_MAX) - 1;
	size_t i;
	int k;

	a->r.parts_from = PARTS_FROM_TIMED;
	if (!from) {
		a->r.parts_measured = measured & ~(1U << PART_SELF);
		return 0;
	}
	if (!jt_is(from, JT_STRING) || !strcmp(from->str.s, ""))
		return fail(rd, "flush_parts_from: not kernel or timed");
	if (!strcmp(from->str.s, "kernel"))
		a->r.parts_from = PARTS_FROM_KERNEL;
	else if (strcmp(from->str.s, "timed"))
		return fail(rd, "flush_parts_from: not kernel or timed");
	if (!jt_is(un, JT_ARRAY))
		return fail(rd, "flush_parts_unmeasured: not an array");
	jt_foreach(un, i, v) {
		k = jt_is(v, JT_STRING) ? part_named(v->str.s) : -1;
		if (k < 0 || k == PART_OTHER)
			return fail(rd, "flush_parts_unmeasured[%zu]: not a part's name", i);
		measured &= ~(1U << k);
	}
	a->r.parts_measured = measured;
	return 0;
}

/* What a run measured of its flushes; absent in older files. */
static int read_flush_sources(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *parts = jt_get(obj, "flush_parts");
	const struct jt *memcg = jt_get(obj, "memcg_decisions"), *budget;

	if ((parts && !jt_is_bool(parts)) || (memcg && !jt_is_bool(memcg)))
		return fail(rd, "flush_parts, memcg_decisions: not true or false");
	if (jt_is(parts, JT_TRUE) && read_parts_from(rd, obj, a))
		return -1;
	a->r.flush_parts |= jt_is(parts, JT_TRUE);
	a->r.memcg_decisions |= jt_is(memcg, JT_TRUE);
	if (jt_get(obj, "cause_sample") &&
	    get_u32(rd, obj, "", "cause_sample", &a->r.cause_sample))
		return -1;
	/* absent before the stack budget: a fixed 1 in cause_sample */
	budget = jt_get(obj, "cause_budget");
	if (budget && !jt_is_bool(budget))
		return fail(rd, "cause_budget: not true or false");
	a->r.cause_budgeted |= jt_is(budget, JT_TRUE);
	return 0;
}

static int read_object(struct reader *rd, const struct jt *obj)
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
	if (!strcmp(type, "workload")) {
		rd->workload_lines++;
		return read_workload_into(rd, obj, &rd->workload);
	}
	if (strcmp(type, "interval") && strcmp(type, "summary"))
		return fail(rd, "unknown object type \"%.32s\"", type);
	a = &rd->acc[!strcmp(type, "summary")];
	if (get_u64(rd, obj, "", "start_ns", &start) ||
	    get_u64(rd, obj, "", "duration_ns", &dur) || read_kernel(rd, obj) ||
	    read_irqoff_source(rd, obj) || read_rows(rd, obj, a) || read_lost(rd, obj, a) ||
	    read_self(rd, obj, a) || read_cpu_lock(rd, obj, a) || read_irqoff_system(rd, obj, a) ||
	    read_flush_sources(rd, obj, a) || read_command(rd, obj, a) ||
	    (a == &rd->acc[1] && read_workload(rd, obj, a)))
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

static void acc_free(struct acc *a)
{
	report_free(&a->r);
	row_index_free(&a->ix);
	row_index_free(&a->pix);
}

/* jtree's value callback: a whole top-level value, one object of the file. */
static int on_object(void *ctx, const struct jt *v)
{
	struct reader *rd = ctx;
	int ret = read_object(rd, v);

	pending_free(rd);
	return ret;
}

/*
 * What is there, up to len bytes: read(2) where f has a descriptor (no
 * stdio buffer of it is used: f is fresh), so the first bytes of a slow
 * pipe are parsed, and refused, as they come, not after 64 KiB of it.
 * 0 at the end, -1 on an error (errno).
 */
static ssize_t read_some(FILE *f, char *buf, size_t len)
{
	int fd = fileno(f);
	ssize_t n;

	if (fd < 0) {
		n = (ssize_t)fread(buf, 1, len, f);
		return !n && ferror(f) ? -1 : n;
	}
	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/*
 * The text through jtree, READ_CHUNK bytes at a time: memory is the chunk,
 * the tree of one row and the object around it, and the rows merged.
 */
static int read_text(struct reader *rd, FILE *f, uint64_t *total)
{
	static const size_t READ_CHUNK = 64 << 10;
	char *buf = malloc(READ_CHUNK);
	ssize_t got = 0;
	size_t n;
	int ret = 0;

	if (!buf)
		return fail(rd, "out of memory");
	while (!ret && (got = read_some(f, buf, READ_CHUNK)) > 0) {
		n = (size_t)got;
		*total += n;
		/* what cannot be JSON (a NUL byte) fails in jt_feed: /dev/zero is refused unread */
		if (*total > READ_FILE_MAX) {
			ret = fail(rd, "past %llu GiB: more than compare reads",
				   (unsigned long long)(READ_FILE_MAX >> 30));
		} else if (jt_feed(rd->jp, buf, n)) {
			ret = jt_failed(rd->jp) ? fail(rd, "%s", jt_error(rd->jp)) : -1;
		}
	}
	free(buf);
	if (!ret && got < 0)
		ret = fail(rd, "read error: %s", strerror(errno));
	/* a number at the very end is only read now: the callbacks may fail too */
	if (!ret && jt_finish(rd->jp))
		ret = jt_failed(rd->jp) ? fail(rd, "%s%s", jt_truncated(rd->jp) ? "truncated: " : "",
					       jt_error(rd->jp)) : -1;
	return ret;
}

/* Every object of f through rd; *total: the bytes read. */
static int read_file(struct reader *rd, FILE *f, uint64_t *total)
{
	struct jt_handler h = {
		.stream_keys = list_keys, .nstream_keys = LIST_MAX,
		.element = on_row, .value = on_object, .ctx = rd,
	};
	int ret;

	memset(rd->info, 0, sizeof(*rd->info));
	rd->info->irqoff_source = "";
	rd->jp = jt_parser_new(&h);
	ret = rd->jp ? read_text(rd, f, total) : fail(rd, "out of memory");
	pending_free(rd);
	jt_parser_free(rd->jp);
	rd->jp = NULL;
	return ret;
}

static void reader_free(struct reader *rd)
{
	acc_free(&rd->acc[0]);
	acc_free(&rd->acc[1]);
	workload_free(&rd->workload);
}

int workload_read(FILE *f, struct workload_info *w, char *err, size_t errlen)
{
	struct read_info info;
	struct reader rd = { .err = err, .errlen = errlen, .info = &info };
	uint64_t total = 0;
	int ret = read_file(&rd, f, &total);

	memset(w, 0, sizeof(*w));
	if (!ret && !rd.workload_lines) {
		snprintf(err, errlen, "%s", total ? "no workload object" : "empty file");
		ret = -1;
	}
	if (!ret) {
		*w = rd.workload;
		memset(&rd.workload, 0, sizeof(rd.workload));
	}
	reader_free(&rd);
	return ret;
}

int report_read(FILE *f, struct report *r, struct read_info *info, char *err, size_t errlen)
{
	struct reader rd = { .err = err, .errlen = errlen, .info = info };
	uint64_t total = 0;
	struct acc *use;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = read_file(&rd, f, &total);
	if (!ret && !rd.acc[0].objects && !rd.acc[1].objects) {
		snprintf(err, errlen, "%s", total ? "no interval or summary object" : "empty file");
		ret = -1;
	}
	if (ret) {
		reader_free(&rd);
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
	reader_free(&rd);
	return 0;
}

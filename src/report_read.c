// SPDX-License-Identifier: GPL-2.0
/*
 * JSON lines -> report, through jtree (yajl). Everything in the file is untrusted:
 * every key is checked for presence and type, every histogram for the
 * rstatlat/1 bucket layout and for counts that add up, and the first
 * problem ends the read with one line saying where it is. This file reads
 * the lines and merges their objects; a row's figures are
 * report_read_row.c's, what the objects say of their run
 * report_read_run.c's, the checked getters report_read_get.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report_read_int.h"

static const char *const list_keys[LIST_MAX] = { "cgroups", "processes" };

/* The rows of one list in an accumulator, merged by their identity. */
struct acc_rows {
	struct row **rows;
	size_t *n, *cap;
	struct row_index *ix;
};


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

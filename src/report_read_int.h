/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of report_read share: the reader, its accumulators, and
 * the checked getters every read goes through.
 */
#ifndef RSTATLAT_REPORT_READ_INT_H
#define RSTATLAT_REPORT_READ_INT_H

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

void say_failure(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* report_read_get.c: the checked getters, and a sum that refuses to wrap */
const struct jt *get(struct reader *rd, const struct jt *obj, const char *ctx, const char *key);
const struct jt *get_typed(struct reader *rd, const struct jt *obj, const char *ctx,
			   const char *key, bool array);
int get_u64(struct reader *rd, const struct jt *obj, const char *ctx, const char *key,
	    uint64_t *out);
int get_u32(struct reader *rd, const struct jt *obj, const char *ctx, const char *key,
	    uint32_t *out);
const char *get_str(struct reader *rd, const struct jt *obj, const char *ctx, const char *key);
int add_u64(struct reader *rd, const char *ctx, uint64_t *into, uint64_t v, const char *key);

/* report_read_row.c */
int read_dist(struct reader *rd, const struct jt *obj, const char *ctx, const char *key,
	      struct dist *d);
int read_identity(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row);
unsigned int optional_counts(void);
int read_row(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row);
int read_process_row(struct reader *rd, const struct jt *obj, const char *ctx, struct row *row);

/* report_read_run.c */
int read_lost(struct reader *rd, const struct jt *obj, struct acc *a);
int read_cpu_lock(struct reader *rd, const struct jt *obj, struct acc *a);
int read_self(struct reader *rd, const struct jt *obj, struct acc *a);
int read_kernel(struct reader *rd, const struct jt *obj);
int read_irqoff_source(struct reader *rd, const struct jt *obj);
int read_irqoff_system(struct reader *rd, const struct jt *obj, struct acc *a);
int read_command(struct reader *rd, const struct jt *obj, struct acc *a);
int read_workload_into(struct reader *rd, const struct jt *obj, struct workload_info *into);
int read_workload(struct reader *rd, const struct jt *obj, struct acc *a);
int check_schema(struct reader *rd, const struct jt *obj);
int read_flush_sources(struct reader *rd, const struct jt *obj, struct acc *a);

#endif /* RSTATLAT_REPORT_READ_INT_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * compare: match the cgroups of two reports (compare_pair.c), give every
 * metric of every row a verdict (compare_stats.c) and evaluate the gates
 * (compare_gate.c): the comparison the views show. The metrics and their
 * values are compare_metric.c's.
 */
#include <stdlib.h>
#include <string.h>
#include "compare_int.h"

static void fill_row(const struct comparison *c, struct cmp_row *row)
{
	row->worst = 1;
	row->worst_metric = -1;
	for (int i = 0; i < nmetrics; i++) {
		struct cell *cell = &row->cells[i];

		cell->has_before = metric_value(&metrics[i], row->before, c->before.r,
						&cell->before);
		cell->has_after = metric_value(&metrics[i], row->after, c->after.r, &cell->after);
		cell->ratio = value_ratio(cell->before, cell->after);
		cell->verdict = verdict_at(c, row, i, c->alpha);
		/* a part of another meaning on each side is shown, not tested */
		if (metrics[i].kind == MK_PART &&
		    !parts_comparable(c->before.r, c->after.r, metrics[i].part))
			cell->verdict = V_NA;
		/* more acquisitions is not a regression; everything else is */
		if (metrics[i].kind == MK_COUNT || metrics[i].kind == MK_RATE ||
		    metrics[i].kind == MK_PER_VALUE || metrics[i].kind == MK_PART ||
		    metrics[i].kind == MK_MODE)
			continue;
		if (cell->verdict == V_HIGHER && cell->ratio > row->worst) {
			row->worst = cell->ratio;
			row->worst_metric = i;
		}
	}
}

/*
 * Rows that are a cgroup under one lock (report.lock_rows) say which:
 * "/a [memory]", and their lock type (lock_types): "/a [memory read]".
 */
static int label_locks(struct comparison *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		struct cmp_row *r = &c->rows[i];
		const struct row *src = r->after ? r->after : r->before;

		if ((src->lock[0] || src->lock_type[0]) &&
		    asprintf(&r->lock_label, "%s [%s%s%s]", row_path(r), src->lock,
			     src->lock[0] && src->lock_type[0] ? " " : "", src->lock_type) < 0) {
			r->lock_label = NULL;
			return -1;
		}
	}
	return 0;
}

static int by_regression(const void *pa, const void *pb)
{
	const struct cmp_row *a = pa, *b = pb;

	if (a->presence != b->presence)
		return (int)a->presence - (int)b->presence;
	if (a->worst != b->worst)
		return a->worst > b->worst ? -1 : 1;
	return strcmp(row_label(a), row_label(b));
}

/* The rows added up; *overflow: the first sum that passed 2^64-1 (saturated there). */
static int build_total(const struct report *r, struct row *total, const char **overflow)
{
	memset(total, 0, sizeof(*total));
	for (size_t i = 0; i < r->ncgroups; i++) {
		if (overflow && !*overflow)
			*overflow = row_merge_overflows(total, &r->cgroups[i]);
		if (row_merge(total, &r->cgroups[i]))
			return -1;
	}
	return 0;
}

/* The per-CPU lock as a row: the same metrics then apply to it. */
static int lock_row(const struct report *r, struct row *out)
{
	memset(out, 0, sizeof(*out));
	if (!r->cpu_lock.present)
		return 0;
	out->path = strdup("(per-CPU lock)");
	out->count[COUNT_LOCKED] = r->cpu_lock.locked;
	out->count[COUNT_CONTENDED] = r->cpu_lock.contended;
	return !out->path || dist_copy(&out->dist[DIST_HOLD], &r->cpu_lock.hold) ||
	       dist_copy(&out->dist[DIST_WAIT], &r->cpu_lock.wait) ? -1 : 0;
}

/* Each run's rows by cgroup, its total and per-CPU lock, for the between-run test. */
static int index_runs(const struct side *s, struct run_rows *rr)
{
	if (s->nruns < 2)
		return 0;
	rr->ix = calloc(s->nruns, sizeof(*rr->ix));
	rr->totals = calloc(s->nruns, sizeof(*rr->totals));
	rr->cpu_locks = calloc(s->nruns, sizeof(*rr->cpu_locks));
	rr->pix = calloc(s->nruns, sizeof(*rr->pix));
	if (!rr->ix || !rr->totals || !rr->cpu_locks || !rr->pix)
		return -1;
	for (size_t i = 0; i < s->nruns; i++) {
		if (build_total(&s->runs[i], &rr->totals[i], NULL) ||
		    lock_row(&s->runs[i], &rr->cpu_locks[i]))
			return -1;
		rr->pix[i].identity = &row_by_flusher;
		for (size_t j = 0; j < s->runs[i].nprocesses; j++)
			if (row_index_add(&rr->pix[i], s->runs[i].processes, j))
				return -1;
		for (size_t j = 0; j < s->runs[i].ncgroups; j++)
			if (row_index_add(&rr->ix[i], s->runs[i].cgroups, j))
				return -1;
	}
	return 0;
}

static void free_runs(const struct side *s, struct run_rows *rr)
{
	for (size_t i = 0; i < s->nruns; i++) {
		if (rr->ix)
			row_index_free(&rr->ix[i]);
		if (rr->totals)
			row_free(&rr->totals[i]);
		if (rr->cpu_locks)
			row_free(&rr->cpu_locks[i]);
		if (rr->pix)
			row_index_free(&rr->pix[i]);
	}
	free(rr->pix);
	rr->pix = NULL;
	free(rr->ix);
	free(rr->totals);
	free(rr->cpu_locks);
	rr->ix = NULL;
	rr->totals = NULL;
	rr->cpu_locks = NULL;
}

int compare_build(struct comparison *c, const struct gate *gates, size_t ngates,
		  const char *cgroup, char *err, size_t errlen)
{
	const struct cmp_row *only = NULL;
	const char *overflow = NULL;

	if (c->before.nruns > MAX_RUNS || c->after.nruns > MAX_RUNS) {
		snprintf(err, errlen, "more than %d runs a side", MAX_RUNS);
		return -1;
	}
	if (build_total(c->before.r, &c->total_before, &overflow) ||
	    build_total(c->after.r, &c->total_after, &overflow) ||
	    pair_rows(c->before.r->cgroups, c->before.r->ncgroups, c->after.r->cgroups,
		      c->after.r->ncgroups, NULL, &c->rows, &c->nrows) || label_locks(c) ||
	    index_runs(&c->before, &c->runs[0]) || index_runs(&c->after, &c->runs[1]))
		return -2;
	/* a total past 2^64-1 is no measurement: refused, not saturated */
	if (overflow) {
		snprintf(err, errlen, "the cgroups' %s add up past 2^64-1", overflow);
		return -1;
	}
	c->total = (struct cmp_row){
		.before = &c->total_before, .after = &c->total_after,
		.total = true, .presence = BOTH,
	};
	fill_row(c, &c->total);
	c->has_cpu_lock = c->before.r->cpu_lock.present && c->after.r->cpu_lock.present;
	if (c->has_cpu_lock) {
		if (lock_row(c->before.r, &c->cpu_lock_before) ||
		    lock_row(c->after.r, &c->cpu_lock_after))
			return -2;
		c->cpu_lock = (struct cmp_row){
			.before = &c->cpu_lock_before, .after = &c->cpu_lock_after,
			.cpu_lock = true, .presence = BOTH,
		};
		fill_row(c, &c->cpu_lock);
	}
	for (size_t i = 0; i < c->nrows; i++)
		fill_row(c, &c->rows[i]);
	qsort(c->rows, c->nrows, sizeof(*c->rows), by_regression);
	if (match_processes(c))
		return -2;
	for (size_t i = 0; i < c->nprows; i++)
		fill_row(c, &c->prows[i]);
	qsort(c->prows, c->nprows, sizeof(*c->prows), by_regression);
	c->gated_cgroup = cgroup;
	if (cgroup) {
		bool several;

		only = c->gated_row = find_row(c, cgroup, &several);
		if (!only) {
			snprintf(err, errlen, several ? "cgroup %s has a row per lock: name one, as "
				 "in \"%s [memory]\"" : "cgroup %s is in neither file", cgroup, cgroup);
			return -1;
		}
	}
	return run_gates(c, gates, ngates, only, err, errlen);
}

const char *compare_result(const struct comparison *c)
{
	return c->failed ? "fail" : c->inconclusive ? "inconclusive" : "pass";
}

void compare_free(struct comparison *c)
{
	for (size_t i = 0; i < c->ncommand_rows; i++)
		free(c->command_rows[i]);
	c->ncommand_rows = 0;
	free_runs(&c->before, &c->runs[0]);
	free_runs(&c->after, &c->runs[1]);
	row_free(&c->total_before);
	row_free(&c->total_after);
	row_free(&c->cpu_lock_before);
	row_free(&c->cpu_lock_after);
	c->has_cpu_lock = false;
	for (size_t i = 0; i < c->nprows; i++)
		free(c->prows[i].label);
	free(c->prows);
	c->prows = NULL;
	c->nprows = 0;
	for (size_t i = 0; i < c->nrows; i++)
		free(c->rows[i].lock_label);
	free(c->rows);
	free(c->results);
	c->rows = NULL;
	c->results = NULL;
	c->nrows = c->nresults = c->failed = c->inconclusive = 0;
}

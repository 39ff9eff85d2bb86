// SPDX-License-Identifier: GPL-2.0
/*
 * A read's build phase (collect_int.h, one read): each changed slot's
 * delta into the open interval's rows, the slot's totals and the sum of
 * every row; and the builder, which finds a report's rows by identity,
 * for the summaries too (collect.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "collect_int.h"
#include "fmt.h"

void builder_start(struct builder *bd, struct report *r, enum report_type type, bool per_process)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->per_process = per_process;
	memset(bd, 0, sizeof(*bd));
	bd->r = r;
	bd->cg_ix.identity = &cgroup_ident;
	bd->proc_ix.identity = &process_ident;
}

/* Room for n cgroup rows at once, without a chain of reallocs copying them. */
int builder_reserve(struct builder *bd, size_t n)
{
	struct row *rows;

	if (n <= bd->cap_cg)
		return 0;
	rows = realloc(bd->r->cgroups, n * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	bd->r->cgroups = rows;
	bd->cap_cg = n;
	return 0;
}

void builder_end(struct builder *bd)
{
	row_index_free(&bd->cg_ix);
	row_index_free(&bd->proc_ix);
}

/* The row of who in rows[], appended (identity, no figures) if new. */
static struct row *builder_row(struct builder *bd, const struct ident *who, bool process)
{
	struct row **rows = process ? &bd->r->processes : &bd->r->cgroups;
	size_t *n = process ? &bd->r->nprocesses : &bd->r->ncgroups;
	size_t *cap = process ? &bd->cap_proc : &bd->cap_cg;
	struct row_index *ix = process ? &bd->proc_ix : &bd->cg_ix;
	struct row key, *row;
	long at;

	ident_key(&key, who, process);
	at = row_index_find(ix, *rows, &key);
	if (at >= 0)
		return &(*rows)[at];
	row = report_add_row(rows, n, cap);
	if (!row)
		return NULL;
	row->cgid = key.cgid;
	row->hierarchy = key.hierarchy;
	row->tgid = key.tgid;
	memcpy(row->comm, key.comm, sizeof(row->comm));
	memcpy(row->lock, key.lock, sizeof(row->lock));
	memcpy(row->lock_type, key.lock_type, sizeof(row->lock_type));
	row->path = who->cg->path ? strdup(who->cg->path) : NULL;
	if (process && who->own_cgroup)
		row->own_cgroup = strdup(who->own_cgroup);
	if (!process)
		row->removed_cgroups = who->cg->removed_cgroups;
	if (row_index_add(ix, *rows, (size_t)(row - *rows)))
		return NULL;
	return row;
}

/* The flusher with most acquisitions is the cgroup row's top flusher. */
static void keep_top(struct row *into, uint32_t tgid, const char *comm, uint64_t votes)
{
	if (votes > into->top_locked || (!into->top_tgid && !into->top_comm[0])) {
		into->top_locked = votes;
		into->top_tgid = tgid;
		fmt_copy(into->top_comm, sizeof(into->top_comm), comm);
	}
}

/*
 * Adds figures (a row without identity) under who: with -p a process row
 * and its cgroup's row, which stays the sum of its process rows.
 * newly_exited counts processes whose exit this adds.
 */
int builder_add(struct builder *bd, const struct ident *who, const struct row *fig,
		uint32_t newly_exited)
{
	struct row *cg, *p = NULL;

	if (bd->r->per_process) {
		p = builder_row(bd, who, true);
		if (!p || row_merge(p, fig))
			return -ENOMEM;
		p->exited += newly_exited;
		if (!p->exited)
			p->top_tgid = p->tgid;
		fmt_copy(p->top_comm, sizeof(p->top_comm), p->comm);
	}
	cg = builder_row(bd, who, false);
	if (!cg || row_merge(cg, fig))
		return -ENOMEM;
	if (p)
		keep_top(cg, p->tgid, p->comm, p->count[COUNT_LOCKED]);
	else if (fig->top_tgid || fig->top_comm[0])
		keep_top(cg, fig->top_tgid, fig->top_comm, fig->top_locked);
	return 0;
}

/*
 * A slot's totals changed (build_batch): its shared row is stale. A slot
 * without one is a new row: every row is made again.
 */
void shared_slot_changed(struct collector *c, struct slot *s)
{
	if (s->cg->excluded)
		return;		/* never a row */
	if (!s->shared_row) {
		c->rows_gen++;
		return;
	}
	if (!s->shared_stale) {
		s->shared_stale = true;
		c->changed[c->nchanged++] = (uint32_t)(s - c->slots);
	}
}

/*
 * The build phase: the named slots of the batch whose deltas hold figures
 * go to the open interval (where intervals are reported), their totals,
 * and report.all; every delta is emptied for the next read.
 */
int build_batch(struct collector *c, struct read_batch *b)
{
	int err = 0;

	for (size_t i = 0; i < b->n; i++) {
		const struct read_slot *rs = &b->s[i];
		struct slot *s = &c->slots[rs->slot];

		if (!err && rs->changed) {
			/* every row's: own time served them all */
			c->locked += s->delta.count[COUNT_LOCKED];
			if (!s->cg->excluded && c->src.intervals)
				err = builder_add(&c->open_bd, &rs->who, &s->delta,
						  rs->newly_exited);
			if (!err)
				err = row_merge(&s->total, &s->delta) ? -ENOMEM : 0;
			shared_slot_changed(c, s);
			/* rows move (slot, kept rows, removed), never leave: their sum grows only here */
			if (!err && !s->cg->excluded && !c->per_process)
				err = row_merge(&c->all, &s->delta) ? -ENOMEM : 0;
		}
		delta_clear(&s->delta);
	}
	return err;
}

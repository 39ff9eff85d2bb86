// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus view's state: which cgroups and flushers are named (the
 * cardinality bound), and their figures folded so that counters stay
 * monotonic while cgroups come and go.
 */
#include <stdlib.h>
#include <string.h>
#include "prom_int.h"

/* ---- state ---- */

static int namer_init(struct namer *nm, size_t max)
{
	nm->max = max;
	nm->named = calloc(max ? max : 1, sizeof(*nm->named));
	nm->parked = calloc(max ? max : 1, sizeof(*nm->parked));
	return nm->named && nm->parked ? 0 : -1;
}

static void forget_tracks(struct namer *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->keys[i].path);
	nm->n = 0;
	row_index_free(&nm->ix);
}

static void namer_free(struct namer *nm)
{
	forget_tracks(nm);
	free(nm->keys);
	free(nm->t);
	free(nm->named);
	free(nm->parked);
	free(nm->hint);
}

struct prom_state *prom_new(const struct prom_opts *o)
{
	struct prom_state *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->o = *o;
	p->fl.ix.identity = &row_by_flusher;
	if (namer_init(&p->cg, o->max_cgroups) || namer_init(&p->fl, o->max_flushers)) {
		prom_free(p);
		return NULL;
	}
	p->classic.nbounds = o->nbounds;
	memcpy(p->classic.bound_ns, o->bound_ns, sizeof(o->bound_ns));
	/* fine buckets never straddle a power of two: each lies in one bin */
	for (unsigned int b = 0; b < HIST_BUCKETS; b++) {
		int i = 0;

		while (i < o->nbounds && hist_bucket_upper(b) > o->bound_ns[i])
			i++;
		p->classic.bin_of[b] = (uint8_t)i;
	}
	for (int i = 0; i < o->nbounds; i++)
		snprintf(p->classic.le[i], sizeof(p->classic.le[i]), "%.11g",
			 (double)o->bound_ns[i] / 1e9);
	return p;
}

void prom_free(struct prom_state *p)
{
	if (!p)
		return;
	namer_free(&p->cg);
	namer_free(&p->fl);
	free(p);
}

size_t prom_named(const struct prom_state *p)
{
	return p->cg.nnamed;
}

size_t prom_named_flushers(const struct prom_state *p)
{
	return p->fl.nnamed;
}

size_t prom_rows_hinted(const struct prom_state *p)
{
	return p->cg.hinted;
}

/* The track of row's labels, added if new (born in refresh gen); -1 out of memory. */
static long track_of(struct namer *nm, const struct row *row, uint32_t gen)
{
	long at = row_index_find(&nm->ix, nm->keys, row);

	if (at >= 0)
		return at;
	if (nm->n == nm->cap) {
		size_t cap = nm->cap ? 2 * nm->cap : 256;
		struct row *keys = realloc(nm->keys, cap * sizeof(*keys));
		struct track *t;

		if (!keys)
			return -1;
		nm->keys = keys;
		t = realloc(nm->t, cap * sizeof(*t));
		if (!t)
			return -1;
		nm->t = t;
		nm->cap = cap;
	}
	memset(&nm->keys[nm->n], 0, sizeof(nm->keys[nm->n]));
	nm->keys[nm->n].cgid = row->cgid;
	nm->keys[nm->n].hierarchy = row->hierarchy;
	memcpy(nm->keys[nm->n].lock, row->lock, sizeof(row->lock));
	memcpy(nm->keys[nm->n].lock_type, row->lock_type, sizeof(row->lock_type));
	memcpy(nm->keys[nm->n].comm, row->comm, sizeof(row->comm));
	if (row->path && !(nm->keys[nm->n].path = strdup(row->path)))
		return -1;
	nm->t[nm->n] = (struct track){ .born = gen, .cgid = row->cgid, .hierarchy = row->hierarchy,
				       .lockless = !row->lock[0] && !row->lock_type[0] };
	if (row_index_add(&nm->ix, nm->keys, nm->n)) {
		free(nm->keys[nm->n].path);
		return -1;
	}
	return (long)nm->n++;
}

/*
 * Rows that are "(other)" already: the aggregate of cgroups removed beyond
 * the kept ones, and the flushers that found the kernel's record full or
 * call themselves "(other)" (a comm is anything a process sets).
 */
static bool is_aggregate(const struct row *row)
{
	/* a cgroup row's comm is "": no call for each of 10 000 */
	return row->removed_cgroups > 0 ||
	       (row->comm[0] == FLUSHERS_OTHER[0] && !strcmp(row->comm, FLUSHERS_OTHER));
}

/*
 * Row i's track if it is the one row i had in the last refresh, else -1.
 * A shared summary's row has its cgroup record's path: the same pointer,
 * with the same cgroup id (a record made later at a freed one's address
 * has another), is the same path, not compared again.
 */
static long hinted_track(const struct namer *nm, const struct row *row, size_t i)
{
	long h = i < nm->nhint ? nm->hint[i] : -1;
	const struct track *t = h >= 0 && (size_t)h < nm->n ? &nm->t[h] : NULL;

	if (!t)
		return -1;
	if (row->path && row->path == t->path_seen && row->cgid == t->cgid &&
	    row->hierarchy == t->hierarchy &&
	    (t->lockless ? !row->lock[0] && !row->lock_type[0] : row_same_lock(row, &nm->keys[h])))
		return h;
	return row_index_same(&nm->ix, &nm->keys[h], row) ? h : -1;
}

/*
 * Sums each label set's locks; pos[i] is row i's track (-1: aggregate).
 * pos is nm->hint, room for nrows: row i's hint is read before pos[i]
 * is written, and this refresh's tracks are the next one's hints.
 */
static int see_rows(struct prom_state *p, struct namer *nm, const struct row *rows,
		    size_t nrows, long *pos)
{
	nm->hinted = 0;
	for (size_t i = 0; i < nrows; i++) {
		const struct row *row = &rows[i];
		struct track *t;
		bool aggregate = is_aggregate(row);
		/* row i's hint is pos[i] of the last refresh: read before it is written */
		long at = aggregate ? -1 : hinted_track(nm, row, i);

		nm->hinted += at >= 0;
		if (!aggregate && at < 0 && (at = track_of(nm, row, p->gen)) < 0)
			return -1;
		pos[i] = at;
		if (aggregate)
			continue;
		t = &nm->t[at];
		t->path_seen = row->path;
		t->more_rows = t->gen == p->gen;
		if (t->gen != p->gen) {
			t->gen = p->gen;
			t->locked = 0;
			t->row = i;
		}
		t->locked += row->count[COUNT_LOCKED];
	}
	nm->nhint = nrows;
	return 0;
}

static void pfig_add(struct pfig *into, const struct pfig *a, int sign)
{
	uint64_t *x = (uint64_t *)into;
	const uint64_t *y = (const uint64_t *)a;

	/* struct pfig is all uint64_t: added field by field */
	for (size_t i = 0; i < sizeof(*into) / sizeof(uint64_t); i++)
		x[i] = sign > 0 ? x[i] + y[i] : x[i] - y[i];
}

/*
 * Whether a field of a is below b's. Compared as a signed difference: a
 * field of cur - base that wrapped below zero is below, however large.
 */
static bool pfig_below(const struct pfig *a, const struct pfig *b)
{
	const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;

	for (size_t i = 0; i < sizeof(*a) / sizeof(uint64_t); i++)
		if ((int64_t)(x[i] - y[i]) < 0)
			return true;
	return false;
}

/*
 * A series' figures fig, exported before as last: where any field would
 * go down (its rows lost figures: a removed cgroup's kept row folded into
 * the removed aggregate, a flusher's record dropped), every field stays
 * at last and held grows by the difference, so the series goes on from
 * there and its histogram stays whole. Returns whether it held.
 */
static bool held_above(struct pfig *fig, const struct pfig *last, struct pfig *held)
{
	if (!pfig_below(fig, last))
		return false;
	pfig_add(held, last, +1);
	pfig_add(held, fig, -1);
	*fig = *last;
	return true;
}

static void unname(struct namer *nm, size_t track)
{
	size_t k = nm->t[track].named - 1;

	if (nm->named[k].folded)
		pfig_add(&nm->named_exp, &nm->named[k].exp, -1);
	nm->t[track].named = 0;
	if (k != nm->nnamed - 1) {
		nm->named[k] = nm->named[nm->nnamed - 1];
		nm->t[nm->named[k].track].named = k + 1;
	}
	nm->nnamed--;
}

static void unpark(struct namer *nm, size_t track)
{
	size_t k = nm->t[track].parked - 1;

	nm->t[track].parked = 0;
	if (k != nm->nparked - 1) {
		nm->parked[k] = nm->parked[nm->nparked - 1];
		nm->t[nm->parked[k].track].parked = k + 1;
	}
	nm->nparked--;
}

/* An idle named cgroup leaves, keeping its figures (struct parked). */
static void park(struct namer *nm, size_t track)
{
	const struct named *n = &nm->named[nm->t[track].named - 1];

	if (nm->nparked == nm->max)
		unpark(nm, nm->parked[0].track);
	nm->parked[nm->nparked] = (struct parked){ .track = track, .fig = n->cur };
	nm->t[track].parked = ++nm->nparked;
	unname(nm, track);
}

static void name(struct namer *nm, size_t track, uint32_t gen)
{
	struct named *n = &nm->named[nm->nnamed++];
	struct track *t = &nm->t[track];

	memset(n, 0, sizeof(*n));
	n->track = track;
	if (t->parked) {
		n->base = nm->parked[t->parked - 1].fig;
		unpark(nm, track);
	} else {
		n->from_now = t->born != gen;
	}
	t->named = nm->nnamed;
}

/* Whether a track saw no lock for the idle time (o.idle_ns). */
static bool idle(const struct prom_state *p, const struct track *t)
{
	return p->now_ns - t->active_ns > p->o.idle_ns;
}

/* Ranks and ages every track; unseen and idle ones lose their names. */
static void age_tracks(struct prom_state *p, struct namer *nm)
{
	for (size_t i = 0; i < nm->n; i++) {
		struct track *t = &nm->t[i];
		uint64_t d;

		if (t->gen != p->gen) {
			if (t->named)
				unname(nm, i);
			if (t->parked)
				unpark(nm, i);
			continue;
		}
		d = t->locked > t->last_locked ? t->locked - t->last_locked : 0;
		t->last_locked = t->locked;
		t->recent = t->recent * 0.8 + (double)d;
		t->grew = d > 0;
		if (d || t->born == p->gen)
			t->active_ns = p->now_ns;
		if (t->named && idle(p, t))
			park(nm, i);
	}
}

#define MAX_SWAPS 8
/* Up to this many wanted, one pass beats sorting every unnamed cgroup. */
#define PARTIAL_MAX 64

static int by_recent_desc(const void *a, const void *b, void *tracks)
{
	const struct track *t = tracks;
	double x = t[*(const size_t *)a].recent, y = t[*(const size_t *)b].recent;

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * The k busiest of cand[0..n) moved to its front, busiest first. Each
 * refresh needs only the free names and MAX_SWAPS: for a few, one pass
 * that mostly compares with the k-th; for many (a large
 * --prom-max-cgroups still filling), a sort.
 */
static void busiest_first(struct track *t, size_t *cand, size_t n, size_t k)
{
	if (k > n)
		k = n;
	if (k > PARTIAL_MAX) {
		qsort_r(cand, n, sizeof(*cand), by_recent_desc, t);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		size_t c = cand[i], j = i < k ? i : k;

		if (j == k && (k == 0 || t[c].recent <= t[cand[k - 1]].recent))
			continue;
		if (j == k)
			cand[i] = cand[--j];	/* the k-th falls out of the front */
		for (; j > 0 && t[cand[j - 1]].recent < t[c].recent; j--)
			cand[j] = cand[j - 1];
		cand[j] = c;
	}
}

/*
 * Fills free names with the busiest unnamed cgroups, then swaps in a few
 * that took over twice the locks of the least busy named one: a bounded,
 * sticky set, so series neither flap nor stay stuck on idle cgroups.
 */
static int choose_named(struct prom_state *p, struct namer *nm)
{
	size_t *cand = malloc((nm->n + 1) * sizeof(*cand)), nc = 0, c = 0;
	size_t *mine = malloc((nm->nnamed + 1) * sizeof(*mine)), nmine = nm->nnamed;

	if (!cand || !mine) {
		free(cand);
		free(mine);
		return -1;
	}
	for (size_t i = 0; i < nm->n; i++)
		if (nm->t[i].gen == p->gen && !nm->t[i].named && !idle(p, &nm->t[i]))
			cand[nc++] = i;
	for (size_t k = 0; k < nmine; k++)
		mine[k] = nm->named[k].track;
	busiest_first(nm->t, cand, nc, nm->max - nm->nnamed + MAX_SWAPS);
	qsort_r(mine, nmine, sizeof(*mine), by_recent_desc, nm->t);
	while (c < nc && nm->nnamed < nm->max)
		name(nm, cand[c++], p->gen);
	for (int swaps = 0; swaps < MAX_SWAPS && c < nc && nmine > 0; swaps++, c++) {
		size_t worst = mine[--nmine];

		if (nm->t[cand[c]].recent <= 2 * nm->t[worst].recent)
			break;
		unname(nm, worst);
		name(nm, cand[c], p->gen);
	}
	/* grown and still unnamed: what it had parked is in "(other)" now */
	for (size_t i = 0; i < nm->n; i++)
		if (nm->t[i].parked && nm->t[i].grew && !nm->t[i].named)
			unpark(nm, i);
	free(cand);
	free(mine);
	return 0;
}

/* Drops tracks no row has any more; renumbers the rest and the names. */
static int drop_unseen(struct prom_state *p, struct namer *nm)
{
	size_t w = 0;
	bool any = false;

	for (size_t i = 0; i < nm->n; i++)
		any |= nm->t[i].gen != p->gen;
	if (!any)
		return 0;
	nm->nhint = 0;	/* the tracks are renumbered */
	row_index_free(&nm->ix);
	for (size_t i = 0; i < nm->n; i++) {
		if (nm->t[i].gen != p->gen) {
			free(nm->keys[i].path);
			continue;
		}
		nm->keys[w] = nm->keys[i];
		nm->t[w] = nm->t[i];
		if (nm->t[w].named)
			nm->named[nm->t[w].named - 1].track = w;
		if (nm->t[w].parked)
			nm->parked[nm->t[w].parked - 1].track = w;
		if (row_index_add(&nm->ix, nm->keys, w))
			return -1;
		w++;
	}
	nm->n = w;
	return 0;
}

/* ---- folding ---- */

void phist_fold(struct phist *h, const struct dist *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->n; i++)
		h->fine[d->b[i].index] += d->b[i].count;
	h->count += d->count;
	h->sum_ns += d->sum;
}

static void fold_row(const struct report *r, struct pfig *f, const struct row *row)
{
	for (int k = 0; k < COUNT_SUMS; k++)
		f->count[k] += row->count[k];
	for (int k = 0; k < PART_MAX; k++)
		f->part[k] += row->part[k];
	for (int k = 0; k < DECISION_MAX; k++)
		f->decisions[k] += row->decisions[k];
	for (int k = 0; k < DIST_ROW_MAX; k++)
		if (k != DIST_IRQOFF)
			phist_fold(&f->h[k], &row->dist[k]);
	if (!report_irqoff_is_lock(r))
		phist_fold(&f->h[DIST_IRQOFF], row_irqoff(r, row));
}

/* irqs-off per row are the holds themselves: copied once, not folded twice */
static void copy_holds_to_irqoff(const struct report *r, struct pfig *f)
{
	if (report_irqoff_is_lock(r))
		f->h[DIST_IRQOFF] = f->h[DIST_HOLD];
}

/* Whether each named label set has one row this refresh (track.row). */
static bool one_row_each(const struct namer *nm)
{
	for (size_t k = 0; k < nm->nnamed; k++)
		if (nm->t[nm->named[k].track].more_rows)
			return false;
	return true;
}

/*
 * A row's figures added up: every one only grows, so any change of the
 * row changes this. Never 0: 0 stands for "fold again".
 */
static uint64_t row_signature(const struct row *row)
{
	uint64_t s = 1;

	for (int k = 0; k < COUNT_MAX; k++)
		s += row->count[k];
	for (int k = 0; k < DIST_ROW_MAX; k++)
		s += row->dist[k].count + row->dist[k].sum;
	for (int k = 0; k < PART_MAX; k++)
		s += row->part[k];
	for (int k = 0; k < DECISION_MAX; k++)
		s += row->decisions[k];
	return s;
}

/*
 * n's exported figures from its cur, into nm->named_exp: fresh ones count
 * from now, and so do ones named again whose rows have less than they had
 * when they left (a path that came back as a new cgroup), never from a
 * base above them.
 */
static void export_named(struct namer *nm, const struct report *r, struct named *n, uint64_t sig)
{
	struct pfig exp;

	copy_holds_to_irqoff(r, &n->cur);
	if (n->from_now || (!n->folded && pfig_below(&n->cur, &n->base))) {
		n->base = n->cur;
		n->from_now = false;
	}
	exp = n->cur;
	pfig_add(&exp, &n->base, -1);
	pfig_add(&exp, &n->held, +1);
	if (n->folded && held_above(&exp, &n->exp, &n->held))
		nm->holds++;
	n->exp = exp;
	pfig_add(&nm->named_exp, &n->exp, +1);
	n->folded = true;
	n->sig = sig;
}

/* With one row each: only the named cgroups whose row changed are folded again (most are idle). */
static void fold_changed(struct namer *nm, const struct report *r, const struct row *rows)
{
	for (size_t k = 0; k < nm->nnamed; k++) {
		struct named *n = &nm->named[k];
		const struct row *row = &rows[nm->t[n->track].row];
		uint64_t sig = row_signature(row);

		if (n->folded && sig == n->sig && !n->from_now)
			continue;
		if (n->folded)
			pfig_add(&nm->named_exp, &n->exp, -1);
		memset(&n->cur, 0, sizeof(n->cur));
		fold_row(r, &n->cur, row);
		export_named(nm, r, n, sig);
	}
}

/*
 * Every row walked: each named label set's rows folded, and without
 * all every other row into "(other)", with the named ones' bases.
 */
static void fold_every_row(struct namer *nm, const struct report *r, const struct row *rows,
			   size_t nrows, const long *pos, bool all)
{
	memset(&nm->other, 0, sizeof(nm->other));
	memset(&nm->named_exp, 0, sizeof(nm->named_exp));
	for (size_t k = 0; k < nm->nnamed; k++)
		memset(&nm->named[k].cur, 0, sizeof(nm->named[k].cur));
	for (size_t i = 0; i < nrows; i++) {
		size_t k = pos[i] >= 0 ? nm->t[pos[i]].named : 0;

		if (k)
			fold_row(r, &nm->named[k - 1].cur, &rows[i]);
		else if (!all)
			fold_row(r, &nm->other, &rows[i]);
	}
	for (size_t k = 0; k < nm->nnamed; k++) {
		struct named *n = &nm->named[k];

		export_named(nm, r, n, 0);	/* rows not signed: folded again next time */
		if (!all) {	/* (other) + the named exp is every row */
			pfig_add(&nm->other, &n->base, +1);
			pfig_add(&nm->other, &n->held, -1);
		}
	}
}

/*
 * Each named label set's figures and "(other)"'s, from rows (pos: their
 * tracks). irqoff: a cgroup's irqs-off are its holds (--irqoff lock).
 * With all, the rows added up (report.all), "(other)" is all but the
 * named ones: only theirs are folded, not every idle cgroup's.
 */
static void fold_rows(struct namer *nm, const struct report *r, const struct row *rows,
		      size_t nrows, const long *pos, const struct row *all)
{
	if (all && one_row_each(nm))
		fold_changed(nm, r, rows);
	else
		fold_every_row(nm, r, rows, nrows, pos, all != NULL);
	if (all) {
		memset(&nm->other, 0, sizeof(nm->other));
		fold_row(r, &nm->other, all);
		pfig_add(&nm->other, &nm->named_exp, -1);
	}
	copy_holds_to_irqoff(r, &nm->other);
	/* less than before where figures left every row (a flusher's record dropped) */
	pfig_add(&nm->other, &nm->other_held, +1);
	if (nm->other_exported && held_above(&nm->other, &nm->other_last, &nm->other_held))
		nm->holds++;
	nm->other_last = nm->other;
	nm->other_exported = true;
}

/* One kind's label sets brought up to date with rows. */
static int refresh_namer(struct prom_state *p, struct namer *nm, const struct report *r,
			 const struct row *rows, size_t nrows, const struct row *all)
{
	long *pos = realloc(nm->hint, (nrows + 1) * sizeof(*pos));
	int err;

	if (!pos)
		return -1;
	nm->hint = pos;
	err = see_rows(p, nm, rows, nrows, pos);
	if (!err) {
		age_tracks(p, nm);
		err = choose_named(p, nm);
	}
	if (!err) {
		fold_rows(nm, r, rows, nrows, pos, all);
		err = drop_unseen(p, nm);
	}
	return err;
}

int prom_refresh(struct prom_state *p, const struct report *r, uint64_t now_ns)
{
	p->gen++;
	p->now_ns = now_ns;
	if (refresh_namer(p, &p->cg, r, r->cgroups, r->ncgroups, r->all))
		return -1;
	return r->flushers_counted && p->fl.max ?
	       refresh_namer(p, &p->fl, r, r->flushers, r->nflushers, NULL) : 0;
}

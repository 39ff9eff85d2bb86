// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus view (prom.h): families, cardinality bound, and the
 * state that keeps counters monotonic while cgroups come and go.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "prom.h"
#include "findings.h"
#include "fmt.h"
#include "hist.h"
#include "metrics.h"
#include "prom_sink.h"

/* What a cgroup (or "(other)") exports: the summed counters, parts, decisions, histograms. */
struct pfig {
	uint64_t count[COUNT_MAX];	/* maxima (>= COUNT_SUMS) stay 0: no counters */
	uint64_t part[PART_MAX], decisions[DECISION_MAX];
	struct phist h[DIST_ROW_MAX];
};

/* One label set (hierarchy, cgroup) of the summary's rows. */
struct track {
	uint64_t locked;	/* this refresh: all rows with these labels */
	uint64_t last_locked;
	double recent;		/* decaying sum of new locks per refresh: the rank */
	uint64_t active_ns;	/* last refresh that saw new locks */
	uint32_t gen;		/* last refresh that saw it */
	size_t named;		/* its place in named[] + 1; 0: in "(other)" */
	size_t parked;		/* its place in parked[] + 1, or 0 */
	uint32_t born;		/* the refresh that first saw it: then it counts from zero */
	const char *path_seen;	/* its row's path pointer in the last refresh (hinted_track) */
	/* its key's, copied here: a hint is checked without touching the key */
	uint64_t cgid;
	uint32_t hierarchy;
	bool lockless;		/* no lock, no lock type */
	bool grew;		/* took locks since the last refresh */
	size_t row;		/* its first row of this refresh */
	bool more_rows;		/* and it has more (a live slot and kept rows) */
};

struct named {
	size_t track;
	bool from_now;		/* named this refresh, not fresh: base is now */
	bool folded;		/* cur and exp hold its rows as of sig */
	uint64_t sig;		/* its rows' signature when folded (row_signature) */
	struct pfig base, cur;
	/*
	 * Exported: cur - base + held, never below what it was (a series
	 * does not go down while it is exported): held is what its rows
	 * lost, e.g. a removed cgroup's row folded into the removed aggregate
	 * while its path came back as a new cgroup (held_above).
	 */
	struct pfig exp, held;
};

/*
 * A cgroup that left idle keeps its figures of then, so that if it wakes
 * it is named again counting from them: its new locks show in its series,
 * not in "(other)", which keeps what it took over. Valid only while it has
 * not grown unnamed: the first refresh that sees it grow names it or
 * forgets this.
 */
struct parked {
	size_t track;
	struct pfig fig;
};

/*
 * The label sets of one kind (cgroups, flushers) across refreshes: a
 * track each, and which are named (at most max); the rest are "(other)".
 */
struct namer {
	size_t max;
	struct row *keys;	/* identity of each track: cgroup, lock, comm */
	struct track *t;
	size_t n, cap;
	struct row_index ix;
	struct named *named;
	size_t nnamed;
	struct parked *parked;	/* at most max */
	size_t nparked;
	struct pfig other;
	/* what "(other)" exported last, and what it holds above its rows (held_above) */
	struct pfig other_last, other_held;
	bool other_exported;
	uint64_t holds;		/* series held, one a refresh each (held_above) */
	struct pfig named_exp;	/* the named ones' exp added up (with report.all) */
	/*
	 * The track of each row of the last refresh, by the row's place (the
	 * positions see_rows finds): summaries list their rows in the same
	 * order from one refresh to the next, so a row's track is usually
	 * found without hashing its path.
	 */
	long *hint;
	size_t nhint;
	size_t hinted;		/* rows of the last refresh found by their hint */
};

struct prom_state {
	struct prom_opts o;
	struct prom_classic classic;
	struct namer cg;	/* cgroups, by cgroup and lock */
	struct namer fl;	/* flushers, by comm (report.flushers) */
	uint32_t gen;
	uint64_t now_ns;	/* this refresh */
};

/* ---- options ---- */

/* The power of two nearest v (in log terms), v > 0. */
static int log2_nearest(uint64_t v)
{
	int lo = (int)hist_msb(v);

	if (lo >= 63)
		return 63;
	return (double)v / (double)(1ULL << lo) >= 1.4142135623730951 ? lo + 1 : lo;
}

int prom_buckets_parse(const char *s, struct prom_opts *o, const char **why)
{
	char buf[96], *min, *max, *factor;
	uint64_t lo_ns, hi_ns, step = 2;
	int lo, hi, k;

	if (strlen(s) >= sizeof(buf)) {
		*why = "too long";
		return -1;
	}
	strcpy(buf, s);
	min = buf;
	max = strchr(min, ':');
	if (!max) {
		*why = "expected MIN:MAX[:FACTOR]";
		return -1;
	}
	*max++ = '\0';
	factor = strchr(max, ':');
	if (factor)
		*factor++ = '\0';
	if (parse_duration(min, 1, &lo_ns) || parse_duration(max, 1, &hi_ns) || !lo_ns ||
	    (factor && parse_uint(factor, 1 << 20, &step))) {
		*why = "expected durations MIN:MAX (e.g. 128ns:128ms) and a power of two FACTOR";
		return -1;
	}
	if (step < 2 || (step & (step - 1))) {
		*why = "FACTOR must be a power of two, at least 2";
		return -1;
	}
	lo = log2_nearest(lo_ns);
	hi = log2_nearest(hi_ns);
	/* above 2^31 ns the layout's last bucket is open-ended: it can only go to +Inf */
	if (lo < HIST_LOW_SHIFT || hi > HIST_HIGH_SHIFT || lo >= hi) {
		*why = "MIN below MAX, from 16ns to 2.1s (2^31 ns)";
		return -1;
	}
	o->nbounds = 0;
	for (k = lo; k <= hi; k += (int)hist_msb(step)) {
		if (o->nbounds == PROM_MAX_BOUNDS) {
			*why = "more than 32 buckets";
			return -1;
		}
		o->bound_ns[o->nbounds++] = 1ULL << k;
	}
	return 0;
}

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

static void fold(struct phist *h, const struct dist *d)
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
			fold(&f->h[k], &row->dist[k]);
	if (!report_irqoff_is_lock(r))
		fold(&f->h[DIST_IRQOFF], row_irqoff(r, row));
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

static int refresh(struct prom_state *p, const struct report *r, uint64_t now_ns)
{
	p->gen++;
	p->now_ns = now_ns;
	if (refresh_namer(p, &p->cg, r, r->cgroups, r->ncgroups, r->all))
		return -1;
	return r->flushers_counted && p->fl.max ?
	       refresh_namer(p, &p->fl, r, r->flushers, r->nflushers, NULL) : 0;
}

/* ---- families ---- */

/*
 * hierarchy="v2",cgroup="/a/b" from a display path ("/a/b", "memory:/a/b"),
 * and lock="memory" where the host tells locks apart (report.lock_rows),
 * lock_type="read" where the tracepoints pass one (report.lock_types).
 */
static void cgroup_labels(struct prom_labels *ls, const struct row *key)
{
	const char *path = key->path, *colon = path ? strstr(path, ":/") : NULL;
	struct prom_label *l = ls->l;

	memset(ls, 0, sizeof(*ls));
	l[0].name = "hierarchy";
	l[1].name = "cgroup";
	if (path && path[0] == '/') {
		l[0].value = "v2";
		l[1].value = path;
	} else if (colon && (size_t)(colon - path) < sizeof(ls->scratch)) {
		memcpy(ls->scratch, path, (size_t)(colon - path));
		ls->scratch[colon - path] = '\0';
		l[0].value = ls->scratch;
		l[1].value = colon + 1;
	} else {
		l[0].value = key->hierarchy ? "v1" : "v2";
		snprintf(ls->scratch, sizeof(ls->scratch), "(id %" PRIu64 ")", key->cgid);
		l[1].value = ls->scratch;
	}
	ls->n = 2;
	if (key->lock[0])
		l[ls->n++] = (struct prom_label){ "lock", key->lock };
	if (key->lock_type[0])
		l[ls->n++] = (struct prom_label){ "lock_type", key->lock_type };
}

static void other_cgroup_labels(struct prom_labels *ls)
{
	memset(ls, 0, sizeof(*ls));
	ls->l[0] = (struct prom_label){ "hierarchy", "(other)" };
	ls->l[1] = (struct prom_label){ "cgroup", "(other)" };
	ls->n = 2;
}

/* comm="..." of a flusher row */
static void flusher_labels(struct prom_labels *ls, const struct row *key)
{
	memset(ls, 0, sizeof(*ls));
	ls->l[0] = (struct prom_label){ "comm", key ? key->comm : FLUSHERS_OTHER };
	ls->n = 1;
}

/* What one kind's label sets export: each named one's and then "(other)"'s. */
struct exported {
	size_t n;		/* named; figs[n] and labels[n] are "(other)" */
	const struct pfig **figs;	/* the namer's: named exp, then other */
	struct prom_labels *labels;
};

static void exported_free(struct exported *e)
{
	for (size_t k = 0; e->labels && k <= e->n; k++)
		prom_labels_free(&e->labels[k]);
	free(e->labels);
	free(e->figs);
}

/* Each named label set's figures since it was named (exp), with its labels. */
static int exported_of(const struct namer *nm, bool flushers, struct exported *e)
{
	e->n = nm->nnamed;
	e->figs = calloc(e->n + 1, sizeof(*e->figs));
	e->labels = calloc(e->n + 1, sizeof(*e->labels));
	if (!e->figs || !e->labels)
		return -1;
	for (size_t k = 0; k < e->n; k++) {
		const struct row *key = &nm->keys[nm->named[k].track];

		e->figs[k] = &nm->named[k].exp;
		if (flushers)
			flusher_labels(&e->labels[k], key);
		else
			cgroup_labels(&e->labels[k], key);
	}
	e->figs[e->n] = &nm->other;
	if (flushers)
		flusher_labels(&e->labels[e->n], NULL);
	else
		other_cgroup_labels(&e->labels[e->n]);
	return 0;
}

struct row_family {
	const char *name, *help;
	enum prom_type type;
	int dist;		/* a histogram of the distribution, or -1 */
	size_t counter;		/* offset in struct pfig */
};

#define PFIG_COUNT(k) (offsetof(struct pfig, count) + (size_t)(k) * sizeof(uint64_t))
#define PFIG_VALUES(k) (offsetof(struct pfig, h) + (size_t)(k) * sizeof(struct phist) + \
			offsetof(struct phist, count))

static void add_counters_after(const struct report *r, struct row_family *out, size_t *n,
			       int after)
{
	for (int k = 0; k < COUNT_MAX; k++)
		if (count_defs[k].after == after && count_defs[k].prom && k < COUNT_SUMS &&
		    report_count_measured(r, k))
			out[(*n)++] = (struct row_family){ count_defs[k].prom,
							   count_defs[k].prom_help, PROM_COUNTER,
							   -1, PFIG_COUNT(k) };
}

/*
 * The per-row families, from the tables of metrics.h: a histogram of
 * each distribution, then the counters (those of a distribution after
 * it, its values counted first).
 */
static size_t row_families(const struct report *r,
			   struct row_family out[2 * DIST_ROW_MAX + COUNT_MAX])
{
	size_t n = 0;

	for (int k = 0; k < DIST_ROW_MAX; k++)
		out[n++] = (struct row_family){ dist_defs[k].prom, dist_defs[k].prom_help,
						PROM_HISTOGRAM, k, 0 };
	add_counters_after(r, out, &n, -1);
	for (int k = 0; k < DIST_ROW_MAX; k++) {
		if (dist_defs[k].prom_count)
			out[n++] = (struct row_family){ dist_defs[k].prom_count,
							dist_defs[k].prom_count_help,
							PROM_COUNTER, -1, PFIG_VALUES(k) };
		add_counters_after(r, out, &n, k);
	}
	return n;
}

static void put_row_family(struct prom_sink *s, const struct row_family *rf,
			   const struct exported *e)
{
	bool any = rf->dist < 0;

	for (size_t k = 0; k <= e->n && !any; k++)
		any = e->figs[k]->h[rf->dist].count > 0;
	if (!any)
		return;
	s->ops->family(s, rf->name, rf->type, rf->help);
	for (size_t k = 0; k <= e->n; k++) {
		const struct pfig *fig = e->figs[k];

		if (rf->dist < 0)
			s->ops->value(s, &e->labels[k], NULL,
				      *(const uint64_t *)((const char *)fig + rf->counter), false);
		else if (fig->h[rf->dist].count)
			s->ops->hist(s, &e->labels[k], &fig->h[rf->dist], PHIST_FINE);
	}
}

/*
 * A counter family with one more label: flush parts by part (seconds),
 * memcg decisions by decision. The values of label set k are the array at
 * offset in its figures, one per label value; only the values in the mask
 * shown have series (a part not measured has none).
 */
static void put_labelled_family(struct prom_sink *s, const char *name, const char *help,
				const char *label, const char *const *values, int nvalues,
				unsigned int shown, const struct exported *e, size_t offset,
				bool seconds)
{
	s->ops->family(s, name, PROM_COUNTER, help);
	for (int i = 0; i < nvalues; i++) {
		struct prom_label extra = { label, values[i] };

		for (size_t k = 0; (shown >> i & 1) && k <= e->n; k++) {
			const uint64_t *v = (const uint64_t *)((const char *)e->figs[k] + offset);

			s->ops->value(s, &e->labels[k], &extra, v[i], seconds);
		}
	}
}

static struct prom_labels no_labels;

/*
 * Irqs-off, machine-wide only: under --irqoff lock a cgroup's are its
 * holds (rstatlat_lock_hold_seconds has them), and one histogram a host
 * is what an alert on long irqs-off needs, at a twentieth of the series.
 * The label sets' figures add up to the whole run's, so it never goes down.
 */
static void put_irqoff(struct prom_sink *s, const struct exported *e)
{
	const struct dist_def *d = &dist_defs[DIST_IRQOFF];
	struct phist *all = calloc(1, sizeof(*all));

	if (!all) {
		s->failed = true;
		return;
	}
	for (size_t k = 0; k <= e->n; k++) {
		const struct phist *h = &e->figs[k]->h[DIST_IRQOFF];

		for (unsigned int b = 0; b < HIST_BUCKETS; b++)
			all->fine[b] += h->fine[b];
		all->count += h->count;
		all->sum_ns += h->sum_ns;
	}
	s->ops->family(s, d->prom, PROM_HISTOGRAM, d->prom_help);
	s->ops->hist(s, &no_labels, all, PHIST_FINE);
	free(all);
}

/* The per-cgroup families: the named cgroups, then "(other)". */
static void put_rows(struct prom_sink *s, const struct prom_state *p, const struct report *r)
{
	struct row_family rf[2 * DIST_ROW_MAX + COUNT_MAX];
	size_t nrf = row_families(r, rf);
	struct exported e = { 0 };

	if (exported_of(&p->cg, false, &e)) {
		s->failed = true;
		exported_free(&e);
		return;
	}
	for (size_t i = 0; i < nrf; i++)
		if (rf[i].dist != DIST_IRQOFF)
			put_row_family(s, &rf[i], &e);
	if (r->irqoff_rows != IRQOFF_ROWS_NONE)
		put_irqoff(s, &e);
	if (r->flush_parts)
		put_labelled_family(s, "rstatlat_flush_part_seconds_total",
				    "Where whole flushes' wall time went: held, wait, irq, "
				    "offcpu, self (rstatlat's own programs), other; a part "
				    "not measured has no series, its time is in other.",
				    "part", part_names, PART_MAX, r->parts_measured, &e,
				    offsetof(struct pfig, part), true);
	if (r->memcg_decisions)
		put_labelled_family(s, "rstatlat_memcg_flush_decisions_total",
				    "memcg:memcg_flush_stats: flushes asked for, forced, and "
				    "skipped for too few updates.", "decision", decision_names,
				    DECISION_MAX, (1U << DECISION_MAX) - 1, &e,
				    offsetof(struct pfig, decisions), false);
	exported_free(&e);
}

/*
 * The flushers' families (report.flushers): each named comm's holds and
 * flushes, then "(other)"'s. Octave buckets: every power-of-two bound
 * counts exactly.
 */
static void put_flushers(struct prom_sink *s, const struct prom_state *p)
{
	static const struct {
		const char *name, *help;
		int dist;
	} fams[] = {
		{ "rstatlat_flusher_hold_seconds", "How long the flushes of each comm (the flushing "
		  "process's) held the rstat lock: one value per hold of its flushes.", DIST_HOLD },
		{ "rstatlat_flusher_flush_seconds", "Whole flushes of each comm, first acquisition "
		  "(or wait) to last release: their count, time and length.", DIST_FLUSH },
	};
	struct exported e = { 0 };

	if (exported_of(&p->fl, true, &e)) {
		s->failed = true;
		exported_free(&e);
		return;
	}
	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
		bool any = false;

		for (size_t k = 0; k <= e.n && !any; k++)
			any = e.figs[k]->h[fams[i].dist].count > 0;
		if (!any)
			continue;
		s->ops->family(s, fams[i].name, PROM_HISTOGRAM, fams[i].help);
		for (size_t k = 0; k <= e.n; k++)
			if (e.figs[k]->h[fams[i].dist].count)
				s->ops->hist(s, &e.labels[k], &e.figs[k]->h[fams[i].dist],
					     PHIST_OCTAVES);
	}
	exported_free(&e);
}

static void put_dist_family(struct prom_sink *s, const char *name, const char *help,
			    const struct dist *d)
{
	struct phist *h = calloc(1, sizeof(*h));

	if (!h) {
		s->failed = true;
		return;
	}
	fold(h, d);
	s->ops->family(s, name, PROM_HISTOGRAM, help);
	s->ops->hist(s, &no_labels, h, PHIST_FINE);
	free(h);
}

static void put_scalar(struct prom_sink *s, const char *name, enum prom_type type,
		       const char *help, uint64_t v)
{
	s->ops->family(s, name, type, help);
	s->ops->value(s, &no_labels, NULL, v, false);
}

static void put_seconds_scalar(struct prom_sink *s, const char *name, enum prom_type type,
			       const char *help, uint64_t ns)
{
	s->ops->family(s, name, type, help);
	s->ops->value(s, &no_labels, NULL, ns, true);
}

/* One family of a label with a value each: reason="...", mode="...". */
static void put_by_label(struct prom_sink *s, const char *label, const char *const *names,
			 const uint64_t *v, int n, bool seconds)
{
	for (int i = 0; i < n; i++)
		s->ops->value(s, &no_labels, &(struct prom_label){ label, names[i] }, v[i],
			      seconds);
}

/*
 * Flush causes, machine-wide: sampled flushes by cause. Samples, not the
 * shared-out flushes, since a share may shrink as samples come: a counter
 * must not. One flush in rstatlat_cause_sample at most was sampled
 * (rstatlat.h, causes: fewer where flushes come fast).
 */
/* row's causes' samples added to into's, each weighing its samples (the order). */
static int add_samples(struct row *into, const struct row *row)
{
	for (size_t c = 0; c < row->ncauses; c++)
		if (row_add_cause(into, row->causes[c].name, row->causes[c].samples,
				  row->causes[c].samples, 0))
			return -1;
	return 0;
}

static void put_causes(struct prom_sink *s, const struct report *r)
{
	struct row all = { 0 };
	size_t *order;
	int err = r->all ? add_samples(&all, r->all) : 0;

	for (size_t i = 0; !r->all && i < r->ncgroups && !err; i++)
		err = add_samples(&all, &r->cgroups[i]);
	order = err ? NULL : row_causes_by_flushes(&all);
	if (!order) {
		row_free(&all);
		s->failed = true;
		return;
	}
	put_scalar(s, "rstatlat_cause_sample", PROM_GAUGE,
		   "A flush names its cause from its stack with probability 1 in this at most "
		   "(less where flushes come fast: a few ns a hold; flushes of 1 ms or more "
		   "first).", r->cause_sample);
	s->ops->family(s, "rstatlat_flush_cause_samples_total", PROM_COUNTER,
		       "Sampled flushes by what asked for them (a stat file, a kernel path).");
	for (size_t i = 0; i < all.ncauses; i++)
		put_by_label(s, "cause", (const char *const[]){ all.causes[order[i]].name },
			     &all.causes[order[i]].samples, 1, false);
	free(order);
	row_free(&all);
}

static void put_system(struct prom_sink *s, const struct report *r)
{
	if (r->cpu_lock.present) {
		put_dist_family(s, "rstatlat_cpu_lock_hold_seconds",
				"How long the per-CPU rstat lock was held, all CPUs.", &r->cpu_lock.hold);
		put_dist_family(s, "rstatlat_cpu_lock_wait_seconds",
				"How long the per-CPU rstat lock was waited for.", &r->cpu_lock.wait);
		put_scalar(s, "rstatlat_cpu_locks_total", PROM_COUNTER,
			   "Acquisitions of the per-CPU rstat lock.", r->cpu_lock.locked);
		put_scalar(s, "rstatlat_cpu_locks_contended_total", PROM_COUNTER,
			   "Per-CPU lock acquisitions that found it taken.", r->cpu_lock.contended);
	}
	if (r->irqoff.trace)
		put_dist_family(s, "rstatlat_irqoff_outside_seconds",
				"Irqs-off intervals with no rstat hold inside, system-wide.",
				&r->irqoff.outside);
	if (r->irqoff.sample) {
		put_dist_family(s, "rstatlat_tick_late_seconds",
				"How late cpu-clock ticks came: irqs-off as sampled.", &r->irqoff.late);
		put_scalar(s, "rstatlat_ticks_total", PROM_COUNTER, "Cpu-clock ticks sampled.",
			   r->irqoff.ticks);
	}
}

/*
 * What stands out in the run so far (findings.h): a series per finding
 * that fires, 1 while it does, so that an alert can name it. Its text
 * stays in the table and JSON: a label would make a series per figure.
 */
static void put_findings(struct prom_sink *s, const struct findings *fs)
{
	if (!fs->n)
		return;
	s->ops->family(s, "rstatlat_finding", PROM_GAUGE,
		       "A finding that fires, by its id (rstatlat(8), FINDINGS): 1 while it does.");
	for (int i = 0; i < fs->n; i++) {
		/* labels of their own: a sink keeps what it made of them */
		struct prom_labels ls = { .n = 1 };

		ls.l[0] = (struct prom_label){ "id", finding_names[fs->f[i].id] };
		s->ops->value(s, &ls, &(struct prom_label){ "severity",
							    severity_names[fs->f[i].severity] },
			      1, false);
		prom_labels_free(&ls);
	}
}

static void put_costs(struct prom_sink *s, const struct report *r)
{
	static const char *const modes[] = { "user", "system" };
	const struct self_costs *c = &r->self;

	s->ops->family(s, "rstatlat_lost_total", PROM_COUNTER,
		       "What rstatlat could not count or show, by reason.");
	put_by_label(s, "reason", lost_names, r->lost, LOST_MAX, false);
	if (!c->present)
		return;
	put_scalar(s, "rstatlat_map_bytes", PROM_GAUGE, "Kernel memory of rstatlat's BPF maps.",
		   c->map_bytes);
	if (c->map_bytes_ceiling)
		put_scalar(s, "rstatlat_map_bytes_ceiling", PROM_GAUGE,
			   "Kernel memory rstatlat's BPF maps would take at --max-entries.",
			   c->map_bytes_ceiling);
	put_scalar(s, "rstatlat_entries", PROM_GAUGE,
		   "Cgroups (x processes) the maps hold (--max-entries).", c->entries);
	put_scalar(s, "rstatlat_entries_used", PROM_GAUGE, "Entries in use.", c->entries_used);
	s->ops->family(s, "rstatlat_cpu_seconds_total", PROM_COUNTER, "rstatlat's own CPU time.");
	put_by_label(s, "mode", modes, (const uint64_t[]){ c->cpu_user_ns, c->cpu_system_ns }, 2,
		     true);
	if (c->bpf_stats) {
		put_seconds_scalar(s, "rstatlat_bpf_run_seconds_total", PROM_COUNTER,
				   "Run time of rstatlat's BPF programs (kernel.bpf_stats_enabled).",
				   c->bpf_ns);
		put_scalar(s, "rstatlat_bpf_runs_total", PROM_COUNTER,
			   "Runs of rstatlat's BPF programs.", c->bpf_runs);
	}
	if (c->own_known) {
		put_seconds_scalar(s, "rstatlat_bpf_sampled_seconds_total", PROM_COUNTER,
				   "rstatlat's BPF time on the rstat path, from its own sampled "
				   "clock reads (without kernel.bpf_stats_enabled).",
				   c->bpf_sampled_ns);
		put_scalar(s, "rstatlat_lock_events_total", PROM_COUNTER,
			   "Lock events rstatlat's programs served (every cgroup's).",
			   c->lock_events);
	}
	put_scalar(s, "rstatlat_resident_memory_max_bytes", PROM_GAUGE,
		   "Peak resident memory of rstatlat.", c->rss_max_bytes);
}

static void put_exporter(struct prom_sink *s, const struct prom_state *p,
			 const struct report *r, const struct prom_http_counts *http,
			 uint64_t now_real_ns)
{
	static const char *const cpu_states[] = { "possible", "online" };
	/* 408: closed unanswered, the request's headers not whole in time */
	static const char *const codes[] = { "200", "404", "405", "408" };

	put_scalar(s, "rstatlat_exported_cgroups", PROM_GAUGE,
		   "Cgroups with series of their own (--prom-max-cgroups).", p->cg.nnamed);
	put_scalar(s, "rstatlat_tracked_cgroups", PROM_GAUGE,
		   "Cgroups seen, named or in (other).", p->cg.n);
	put_scalar(s, "rstatlat_series_held_total", PROM_COUNTER,
		   "Times a series' counters (a series in a refresh) were held where they would have "
		   "gone down (its rows lost figures: a removed cgroup's row folded into the "
		   "removed aggregate while its path came back as a new cgroup).",
		   p->cg.holds + p->fl.holds);
	s->ops->family(s, "rstatlat_cpus", PROM_GAUGE, "CPUs of the machine.");
	put_by_label(s, "state", cpu_states,
		     (const uint64_t[]){ (uint64_t)r->kernel.cpus_possible,
					 (uint64_t)r->kernel.cpus_online }, 2, false);
	if (http && http->present) {
		s->ops->family(s, "rstatlat_http_requests_total", PROM_COUNTER,
			       "Requests to the /metrics endpoint, by status code (408: closed "
			       "unanswered, the headers not whole within 5 s).");
		put_by_label(s, "code", codes,
			     (const uint64_t[]){ http->ok, http->not_found, http->bad_method,
						 http->slow_closed }, 4, false);
	}
	put_seconds_scalar(s, "rstatlat_start_time_seconds", PROM_GAUGE,
			   "When tracing started, seconds since the epoch.", r->start_ns);
	put_seconds_scalar(s, "rstatlat_refresh_timestamp_seconds", PROM_GAUGE,
			   "When these figures were read, seconds since the epoch.", now_real_ns);
}

/* Last in the text, always: a reader can tell a whole file from a cut one. */
static void put_info(struct prom_sink *s, const struct prom_state *p, const struct report *r)
{
	struct prom_labels ls = { .n = 4 };
	/* which hosts add up holds under several locks in a row (6.16+) */
	const char *locks = lock_scope_names[r->locks];

	ls.l[0] = (struct prom_label){ "version", p->o.version };
	ls.l[1] = (struct prom_label){ "kernel", r->kernel.release };
	ls.l[2] = (struct prom_label){ "attach", r->attach ? r->attach : "" };
	ls.l[3] = (struct prom_label){ "irqoff_source", r->irqoff.source ? r->irqoff.source : "" };
	s->ops->family(s, "rstatlat_info", PROM_GAUGE, "rstatlat and the kernel it traces.");
	s->ops->value(s, &ls, &(struct prom_label){ "locks", locks ? locks : "" }, 1, false);
	prom_labels_free(&ls);
}

/* Every family, in the order of the text format, through one sink. */
static int put_all(struct prom_sink *s, const struct prom_state *p, const struct report *r,
		   const struct findings *fs, const struct prom_http_counts *http,
		   uint64_t now_real_ns)
{
	put_rows(s, p, r);
	if (r->flushers_counted && p->fl.max)
		put_flushers(s, p);
	if (r->cause_sample)
		put_causes(s, r);
	put_system(s, r);
	put_findings(s, fs);
	put_costs(s, r);
	put_exporter(s, p, r, http, now_real_ns);
	/* itself and rstatlat_info, which follow: counted as written, so every family is in it */
	put_scalar(s, "rstatlat_series", PROM_GAUGE,
		   "Samples in this exposition, this one included: what rstatlat costs "
		   "the time series database (docs/fleet.md, Series budget).", s->samples + 2);
	put_info(s, p, r);
	return s->ops->finish(s);
}

int prom_write(struct prom_state *p, const struct report *summary,
	       const struct prom_http_counts *http, uint64_t now_mono_ns,
	       uint64_t now_real_ns, FILE *text, FILE *protobuf)
{
	struct findings fs;	/* the same in both formats: derived once */
	struct prom_sink *s;
	int err;

	if (refresh(p, summary, now_mono_ns))
		return -1;
	findings_of(summary, &fs);
	s = prom_text_sink(&p->classic, text);
	err = s ? put_all(s, p, summary, &fs, http, now_real_ns) : -1;
	if (s)
		s->ops->free(s);
	if (err || !protobuf)
		return err;
	s = prom_pb_sink(&p->classic, p->o.classic_in_protobuf, protobuf);
	err = s ? put_all(s, p, summary, &fs, http, now_real_ns) : -1;
	if (s)
		s->ops->free(s);
	return err;
}

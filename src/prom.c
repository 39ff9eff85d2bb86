// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus view (prom.h): families, cardinality bound, and the
 * state that keeps counters monotonic while cgroups come and go.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "prom.h"
#include "escape.h"
#include "fmt.h"
#include "hist.h"
#include "metrics.h"

/* A distribution folded to the bounds: bin[i] < bound[i], bin[nbounds] the rest. */
struct phist {
	uint64_t bin[PROM_MAX_BOUNDS + 1];
	uint64_t sum_ns, count;
};

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
	bool fresh;		/* first seen in this refresh: it counts from zero */
	const char *path_seen;	/* its row's path pointer in the last refresh (hinted_track) */
	bool grew;		/* took locks since the last refresh */
};

struct named {
	size_t track;
	bool from_now;		/* named this refresh, not fresh: base is now */
	struct pfig base, cur;	/* exported: cur - base */
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
	/*
	 * The track of each row of the last refresh, by the row's place (the
	 * positions see_rows finds): summaries list their rows in the same
	 * order from one refresh to the next, so a row's track is usually
	 * found without hashing its path.
	 */
	long *hint;
	size_t nhint;
};

struct prom_state {
	struct prom_opts o;
	uint8_t bin_of[HIST_BUCKETS];
	char le[PROM_MAX_BOUNDS][24];
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
	/* fine buckets never straddle a power of two: each lies in one bin */
	for (unsigned int b = 0; b < HIST_BUCKETS; b++) {
		int i = 0;

		while (i < o->nbounds && hist_bucket_upper(b) > o->bound_ns[i])
			i++;
		p->bin_of[b] = (uint8_t)i;
	}
	for (int i = 0; i < o->nbounds; i++)
		snprintf(p->le[i], sizeof(p->le[i]), "%.11g", (double)o->bound_ns[i] / 1e9);
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

/* The track of row's labels, added if new; -1 out of memory. */
static long track_of(struct namer *nm, const struct row *row)
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
	nm->t[nm->n] = (struct track){ .fresh = true };
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
	return row->removed_cgroups > 0 || !strcmp(row->comm, FLUSHERS_OTHER);
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
	const struct row *key = h >= 0 && (size_t)h < nm->n ? &nm->keys[h] : NULL;

	if (!key)
		return -1;
	if (row->path && row->path == nm->t[h].path_seen && row->cgid == key->cgid &&
	    row->hierarchy == key->hierarchy && row_same_lock(row, key))
		return h;
	return row_index_same(&nm->ix, key, row) ? h : -1;
}

/*
 * Sums each label set's locks; pos[i] is row i's track (-1: aggregate).
 * pos is nm->hint, room for nrows: row i's hint is read before pos[i]
 * is written, and this refresh's tracks are the next one's hints.
 */
static int see_rows(struct prom_state *p, struct namer *nm, const struct row *rows,
		    size_t nrows, long *pos)
{
	for (size_t i = 0; i < nrows; i++) {
		const struct row *row = &rows[i];
		struct track *t;

		pos[i] = -1;
		if (is_aggregate(row))
			continue;
		pos[i] = hinted_track(nm, row, i);
		if (pos[i] < 0)
			pos[i] = track_of(nm, row);
		if (pos[i] < 0)
			return -1;
		t = &nm->t[pos[i]];
		t->path_seen = row->path;
		if (t->gen != p->gen) {
			t->gen = p->gen;
			t->locked = 0;
		}
		t->locked += row->count[COUNT_LOCKED];
	}
	nm->nhint = nrows;
	return 0;
}

static void unname(struct namer *nm, size_t track)
{
	size_t k = nm->t[track].named - 1;

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

static void name(struct namer *nm, size_t track)
{
	struct named *n = &nm->named[nm->nnamed++];
	struct track *t = &nm->t[track];

	memset(n, 0, sizeof(*n));
	n->track = track;
	if (t->parked) {
		n->base = nm->parked[t->parked - 1].fig;
		unpark(nm, track);
	} else {
		n->from_now = !t->fresh;
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
		if (d || t->fresh)
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
		name(nm, cand[c++]);
	for (int swaps = 0; swaps < MAX_SWAPS && c < nc && nmine > 0; swaps++, c++) {
		size_t worst = mine[--nmine];

		if (nm->t[cand[c]].recent <= 2 * nm->t[worst].recent)
			break;
		unname(nm, worst);
		name(nm, cand[c]);
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

static void fold(const struct prom_state *p, struct phist *h, const struct dist *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->n; i++)
		h->bin[p->bin_of[d->b[i].index]] += d->b[i].count;
	h->count += d->count;
	h->sum_ns += d->sum;
}

static void fold_row(const struct prom_state *p, const struct report *r, struct pfig *f,
		     const struct row *row)
{
	for (int k = 0; k < COUNT_SUMS; k++)
		f->count[k] += row->count[k];
	for (int k = 0; k < PART_MAX; k++)
		f->part[k] += row->part[k];
	for (int k = 0; k < DECISION_MAX; k++)
		f->decisions[k] += row->decisions[k];
	for (int k = 0; k < DIST_ROW_MAX; k++)
		if (k != DIST_IRQOFF)
			fold(p, &f->h[k], &row->dist[k]);
	if (!report_irqoff_is_lock(r))
		fold(p, &f->h[DIST_IRQOFF], row_irqoff(r, row));
}

/* irqs-off per row are the holds themselves: copied once, not folded twice */
static void copy_holds_to_irqoff(const struct report *r, struct pfig *f)
{
	if (report_irqoff_is_lock(r))
		f->h[DIST_IRQOFF] = f->h[DIST_HOLD];
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
 * Each named label set's figures and "(other)"'s, from rows (pos: their
 * tracks). irqoff: a cgroup's irqs-off are its holds (--irqoff lock).
 */
static void fold_rows(struct prom_state *p, struct namer *nm, const struct report *r,
		      const struct row *rows, size_t nrows, const long *pos)
{
	memset(&nm->other, 0, sizeof(nm->other));
	for (size_t k = 0; k < nm->nnamed; k++)
		memset(&nm->named[k].cur, 0, sizeof(nm->named[k].cur));
	for (size_t i = 0; i < nrows; i++) {
		size_t k = pos[i] >= 0 ? nm->t[pos[i]].named : 0;

		fold_row(p, r, k ? &nm->named[k - 1].cur : &nm->other, &rows[i]);
	}
	copy_holds_to_irqoff(r, &nm->other);
	for (size_t k = 0; k < nm->nnamed; k++) {
		struct named *n = &nm->named[k];

		copy_holds_to_irqoff(r, &n->cur);
		if (n->from_now) {
			n->base = n->cur;
			n->from_now = false;
		}
		pfig_add(&nm->other, &n->base, +1);
	}
	for (size_t i = 0; i < nm->n; i++)
		nm->t[i].fresh = false;
}

/* One kind's label sets brought up to date with rows. */
static int refresh_namer(struct prom_state *p, struct namer *nm, const struct report *r,
			 const struct row *rows, size_t nrows)
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
		fold_rows(p, nm, r, rows, nrows, pos);
		err = drop_unseen(p, nm);
	}
	return err;
}

static int refresh(struct prom_state *p, const struct report *r, uint64_t now_ns)
{
	p->gen++;
	p->now_ns = now_ns;
	if (refresh_namer(p, &p->cg, r, r->cgroups, r->ncgroups))
		return -1;
	return r->flushers_counted && p->fl.max ?
	       refresh_namer(p, &p->fl, r, r->flushers, r->nflushers) : 0;
}

/* ---- writing ---- */

static void put_seconds(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64, ns / 1000000000, ns % 1000000000);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * hierarchy="v2",cgroup="/a/b" from a display path ("/a/b", "memory:/a/b"),
 * and lock="memory" where the host tells locks apart (report.lock_rows),
 * lock_type="read" where the tracepoints pass one (report.lock_types).
 */
static void put_cgroup_labels(FILE *f, const struct row *key)
{
	const char *path = key->path, *colon = path ? strstr(path, ":/") : NULL;
	char hier[160];

	fputs("hierarchy=\"", f);
	if (path && path[0] == '/') {
		fputs("v2\",cgroup=\"", f);
		prom_write_label(f, path);
	} else if (colon && (size_t)(colon - path) < sizeof(hier)) {
		memcpy(hier, path, (size_t)(colon - path));
		hier[colon - path] = '\0';
		prom_write_label(f, hier);
		fputs("\",cgroup=\"", f);
		prom_write_label(f, colon + 1);
	} else {
		fprintf(f, "%s\",cgroup=\"(id %" PRIu64 ")", key->hierarchy ? "v1" : "v2", key->cgid);
	}
	fputc('"', f);
	if (key->lock[0]) {
		fputs(",lock=\"", f);
		prom_write_label(f, key->lock);
		fputc('"', f);
	}
	if (key->lock_type[0]) {
		fputs(",lock_type=\"", f);
		prom_write_label(f, key->lock_type);
		fputc('"', f);
	}
}

static const char other_labels[] = "hierarchy=\"(other)\",cgroup=\"(other)\"";

/*
 * name_bucket{labels,le="..."} cumulative count, up to +Inf: the bulk of the
 * exposition (4 histograms x 22 lines x 101 label sets by default), so each
 * line is built behind one prefix and written once. fprintf, parsing its
 * format for every line, cost a third of a 10 000-row refresh's
 * instructions (docs/performance.md).
 */
static int put_buckets(const struct prom_state *p, FILE *f, const char *name,
		       const char *labels, const struct phist *h)
{
	size_t name_len = strlen(name), labels_len = strlen(labels);
	size_t room = name_len + labels_len + 96;	/* _bucket{ , le=" +Inf or le "} digits */
	char small[512], *line = room <= sizeof(small) ? small : malloc(room), *prefix_end;
	uint64_t cum = 0;

	if (!line)
		return -1;
	prefix_end = stpcpy(mempcpy(line, name, name_len), "_bucket{");
	prefix_end = mempcpy(prefix_end, labels, labels_len);
	prefix_end = stpcpy(prefix_end, labels_len ? ",le=\"" : "le=\"");
	for (int i = 0; i <= p->o.nbounds; i++) {
		char *q = stpcpy(prefix_end, i < p->o.nbounds ? p->le[i] : "+Inf");

		cum = i < p->o.nbounds ? cum + h->bin[i] : h->count;
		q = fmt_put_uint(stpcpy(q, "\"} "), cum);
		*q++ = '\n';
		fwrite(line, 1, (size_t)(q - line), f);
	}
	if (line != small)
		free(line);
	return 0;
}

static int put_hist(const struct prom_state *p, FILE *f, const char *name, const char *labels,
		    const struct phist *h)
{
	if (put_buckets(p, f, name, labels, h))
		return -1;
	fprintf(f, labels[0] ? "%s_sum{%s} " : "%s_sum%s ", name, labels);
	put_seconds(f, h->sum_ns);
	fprintf(f, labels[0] ? "\n%s_count{%s} %" PRIu64 "\n" : "\n%s_count%s %" PRIu64 "\n", name,
		labels, h->count);
	return 0;
}

/* comm="..." of a flusher row */
static void put_flusher_labels(FILE *f, const struct row *key)
{
	fputs("comm=\"", f);
	prom_write_label(f, key->comm);
	fputc('"', f);
}

/* A row's labels into buf (the same text for every family of the row). */
static const char *row_labels(const struct namer *nm, size_t k,
			      void (*put_labels)(FILE *f, const struct row *key), char **buf)
{
	size_t len;
	FILE *m = open_memstream(buf, &len);

	if (!m)
		return NULL;
	put_labels(m, &nm->keys[nm->named[k].track]);
	return fclose(m) ? NULL : *buf;
}

/* What one kind's label sets export: each named one's and then "(other)"'s. */
struct exported {
	size_t n;		/* named; figs[n] is "(other)" */
	struct pfig *figs;
	char **labels;
};

static void exported_free(struct exported *e)
{
	for (size_t k = 0; e->labels && k < e->n; k++)
		free(e->labels[k]);
	free(e->labels);
	free(e->figs);
}

/* Each named label set's figures since it was named (cur - base), with its labels. */
static int exported_of(const struct namer *nm, void (*put_labels)(FILE *f, const struct row *key),
		       struct exported *e)
{
	e->n = nm->nnamed;
	e->figs = calloc(e->n + 1, sizeof(*e->figs));
	e->labels = calloc(e->n + 1, sizeof(*e->labels));
	if (!e->figs || !e->labels)
		return -1;
	for (size_t k = 0; k < e->n; k++) {
		e->figs[k] = nm->named[k].cur;
		pfig_add(&e->figs[k], &nm->named[k].base, -1);
		if (!row_labels(nm, k, put_labels, &e->labels[k]))
			return -1;
	}
	e->figs[e->n] = nm->other;
	return 0;
}

struct row_family {
	const char *name, *type, *help;
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
			out[(*n)++] = (struct row_family){ count_defs[k].prom, "counter",
							   count_defs[k].prom_help, -1,
							   PFIG_COUNT(k) };
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
		out[n++] = (struct row_family){ dist_defs[k].prom, "histogram",
						dist_defs[k].prom_help, k, 0 };
	add_counters_after(r, out, &n, -1);
	for (int k = 0; k < DIST_ROW_MAX; k++) {
		if (dist_defs[k].prom_count)
			out[n++] = (struct row_family){ dist_defs[k].prom_count, "counter",
							dist_defs[k].prom_count_help, -1,
							PFIG_VALUES(k) };
		add_counters_after(r, out, &n, k);
	}
	return n;
}

static int put_row_family(const struct prom_state *p, FILE *f, const struct row_family *rf,
			  const struct pfig *figs, char **labels, size_t n)
{
	bool any = rf->dist < 0;

	for (size_t k = 0; k <= n && !any; k++)
		any = figs[k].h[rf->dist].count > 0;
	if (!any)
		return 0;
	family(f, rf->name, rf->type, rf->help);
	for (size_t k = 0; k <= n; k++) {
		const char *lab = k < n ? labels[k] : other_labels;

		if (rf->dist >= 0) {
			if (figs[k].h[rf->dist].count &&
			    put_hist(p, f, rf->name, lab, &figs[k].h[rf->dist]))
				return -1;
		} else {
			fprintf(f, "%s{%s} %" PRIu64 "\n", rf->name, lab,
				*(const uint64_t *)((const char *)&figs[k] + rf->counter));
		}
	}
	return 0;
}

/*
 * A counter family with one more label: flush parts by part (seconds),
 * memcg decisions by decision. The values of label set k are the array at
 * offset in figs[k], one per label value; only the values in the mask
 * shown have series (a part not measured has none).
 */
static void put_labelled_family(FILE *f, const char *name, const char *help, const char *label,
				const char *const *values, int nvalues, unsigned int shown,
				const struct pfig *figs, char **labels, size_t n, size_t offset,
				bool seconds)
{
	family(f, name, "counter", help);
	for (int i = 0; i < nvalues; i++) {
		for (size_t k = 0; (shown >> i & 1) && k <= n; k++) {
			const uint64_t *v = (const uint64_t *)((const char *)&figs[k] + offset);

			fprintf(f, "%s{%s,%s=\"%s\"} ", name, k < n ? labels[k] : other_labels, label,
				values[i]);
			if (seconds)
				put_seconds(f, v[i]);
			else
				fprintf(f, "%" PRIu64, v[i]);
			fputc('\n', f);
		}
	}
}

/*
 * Irqs-off, machine-wide only: under --irqoff lock a cgroup's are its
 * holds (rstatlat_lock_hold_seconds has them), and one histogram a host
 * is what an alert on long irqs-off needs, at a twentieth of the series.
 * The label sets' figures add up to the whole run's, so it never goes down.
 */
static void put_irqoff(const struct prom_state *p, FILE *f, const struct pfig *figs, size_t n)
{
	const struct dist_def *d = &dist_defs[DIST_IRQOFF];
	struct phist all;

	memset(&all, 0, sizeof(all));
	for (size_t k = 0; k <= n; k++) {
		const struct phist *h = &figs[k].h[DIST_IRQOFF];

		for (int i = 0; i <= p->o.nbounds; i++)
			all.bin[i] += h->bin[i];
		all.count += h->count;
		all.sum_ns += h->sum_ns;
	}
	family(f, d->prom, "histogram", d->prom_help);
	(void)put_hist(p, f, d->prom, "", &all);
}

/* The per-cgroup families: the named cgroups, then "(other)". */
static int put_rows(const struct prom_state *p, const struct report *r, FILE *f)
{
	struct exported e = { 0 };
	int err = exported_of(&p->cg, put_cgroup_labels, &e);
	struct pfig *figs = e.figs;
	char **labels = e.labels;
	size_t n = e.n;

	if (!err) {
		struct row_family rf[2 * DIST_ROW_MAX + COUNT_MAX];
		size_t nrf = row_families(r, rf);

		for (size_t i = 0; i < nrf && !err; i++)
			if (rf[i].dist != DIST_IRQOFF)
				err = put_row_family(p, f, &rf[i], figs, labels, n);
	}
	if (!err && r->irqoff_rows != IRQOFF_ROWS_NONE)
		put_irqoff(p, f, figs, n);
	if (!err) {
		if (r->flush_parts)
			put_labelled_family(f, "rstatlat_flush_part_seconds_total",
					    "Where whole flushes' wall time went: held, wait, irq, "
					    "offcpu, self (rstatlat's own programs), other; a part "
					    "not measured has no series, its time is in other.",
					    "part", part_names, PART_MAX, r->parts_measured, figs,
					    labels, n, offsetof(struct pfig, part), true);
		if (r->memcg_decisions)
			put_labelled_family(f, "rstatlat_memcg_flush_decisions_total",
					    "memcg:memcg_flush_stats: flushes asked for, forced, and "
					    "skipped for too few updates.", "decision", decision_names,
					    DECISION_MAX, (1U << DECISION_MAX) - 1, figs, labels, n,
					    offsetof(struct pfig, decisions), false);
	}
	exported_free(&e);
	return err;
}

/*
 * The flushers' families (report.flushers): each named comm's holds and
 * flushes, then "(other)"'s. Octave buckets: every power-of-two bound
 * counts exactly.
 */
static int put_flushers(const struct prom_state *p, FILE *f)
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
	int err = exported_of(&p->fl, put_flusher_labels, &e);

	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]) && !err; i++) {
		bool any = false;

		for (size_t k = 0; k <= e.n && !any; k++)
			any = e.figs[k].h[fams[i].dist].count > 0;
		if (!any)
			continue;
		family(f, fams[i].name, "histogram", fams[i].help);
		for (size_t k = 0; k <= e.n && !err; k++)
			if (e.figs[k].h[fams[i].dist].count)
				err = put_hist(p, f, fams[i].name,
					       k < e.n ? e.labels[k] : "comm=\"" FLUSHERS_OTHER "\"",
					       &e.figs[k].h[fams[i].dist]);
	}
	exported_free(&e);
	return err;
}

static void put_dist_family(const struct prom_state *p, FILE *f, const char *name,
			    const char *help, const struct dist *d)
{
	struct phist h;

	memset(&h, 0, sizeof(h));
	fold(p, &h, d);
	family(f, name, "histogram", help);
	(void)put_hist(p, f, name, "", &h);	/* no labels: the line fits on the stack */
}

static void put_scalar(FILE *f, const char *name, const char *type, const char *help,
		       uint64_t v)
{
	family(f, name, type, help);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

static void put_seconds_scalar(FILE *f, const char *name, const char *type, const char *help,
			       uint64_t ns)
{
	family(f, name, type, help);
	fprintf(f, "%s ", name);
	put_seconds(f, ns);
	fputc('\n', f);
}

/*
 * Flush causes, machine-wide: sampled flushes by cause. Samples, not the
 * shared-out flushes, since a share may shrink as samples come: a counter
 * must not. One flush in rstatlat_cause_sample at most was sampled
 * (rstatlat.h, causes: fewer where flushes come fast).
 */
static int put_causes(const struct report *r, FILE *f)
{
	struct row all = { 0 };
	size_t *order;
	int err = 0;

	for (size_t i = 0; i < r->ncgroups && !err; i++)
		for (size_t c = 0; c < r->cgroups[i].ncauses && !err; c++)
			err = row_add_cause(&all, r->cgroups[i].causes[c].name,
					    r->cgroups[i].causes[c].samples,
					    r->cgroups[i].causes[c].samples, 0);
	order = err ? NULL : row_causes_by_flushes(&all);
	if (!order) {
		row_free(&all);
		return -1;
	}
	put_scalar(f, "rstatlat_cause_sample", "gauge",
		   "A flush names its cause from its stack with probability 1 in this at most "
		   "(less where flushes come fast: a few ns a hold; flushes of 1 ms or more "
		   "first).", r->cause_sample);
	family(f, "rstatlat_flush_cause_samples_total", "counter",
	       "Sampled flushes by what asked for them (a stat file, a kernel path).");
	for (size_t i = 0; i < all.ncauses; i++) {
		fputs("rstatlat_flush_cause_samples_total{cause=\"", f);
		prom_write_label(f, all.causes[order[i]].name);
		fprintf(f, "\"} %" PRIu64 "\n", all.causes[order[i]].samples);
	}
	free(order);
	row_free(&all);
	return 0;
}

static void put_system(const struct prom_state *p, const struct report *r, FILE *f)
{
	if (r->cpu_lock.present) {
		put_dist_family(p, f, "rstatlat_cpu_lock_hold_seconds",
				"How long the per-CPU rstat lock was held, all CPUs.", &r->cpu_lock.hold);
		put_dist_family(p, f, "rstatlat_cpu_lock_wait_seconds",
				"How long the per-CPU rstat lock was waited for.", &r->cpu_lock.wait);
		put_scalar(f, "rstatlat_cpu_locks_total", "counter",
			   "Acquisitions of the per-CPU rstat lock.", r->cpu_lock.locked);
		put_scalar(f, "rstatlat_cpu_locks_contended_total", "counter",
			   "Per-CPU lock acquisitions that found it taken.", r->cpu_lock.contended);
	}
	if (r->irqoff.trace)
		put_dist_family(p, f, "rstatlat_irqoff_outside_seconds",
				"Irqs-off intervals with no rstat hold inside, system-wide.",
				&r->irqoff.outside);
	if (r->irqoff.sample) {
		put_dist_family(p, f, "rstatlat_tick_late_seconds",
				"How late cpu-clock ticks came: irqs-off as sampled.", &r->irqoff.late);
		put_scalar(f, "rstatlat_ticks_total", "counter", "Cpu-clock ticks sampled.",
			   r->irqoff.ticks);
	}
}

static void put_costs(const struct report *r, FILE *f)
{
	const struct self_costs *s = &r->self;

	family(f, "rstatlat_lost_total", "counter",
	       "What rstatlat could not count or show, by reason.");
	for (int i = 0; i < LOST_MAX; i++)
		fprintf(f, "rstatlat_lost_total{reason=\"%s\"} %" PRIu64 "\n", lost_names[i],
			r->lost[i]);
	if (!s->present)
		return;
	put_scalar(f, "rstatlat_map_bytes", "gauge", "Kernel memory of rstatlat's BPF maps.",
		   s->map_bytes);
	put_scalar(f, "rstatlat_entries", "gauge", "Cgroups (x processes) the maps hold (--max-entries).",
		   s->entries);
	put_scalar(f, "rstatlat_entries_used", "gauge", "Entries in use.", s->entries_used);
	family(f, "rstatlat_cpu_seconds_total", "counter", "rstatlat's own CPU time.");
	fputs("rstatlat_cpu_seconds_total{mode=\"user\"} ", f);
	put_seconds(f, s->cpu_user_ns);
	fputs("\nrstatlat_cpu_seconds_total{mode=\"system\"} ", f);
	put_seconds(f, s->cpu_system_ns);
	fputc('\n', f);
	if (s->bpf_stats) {
		put_seconds_scalar(f, "rstatlat_bpf_run_seconds_total", "counter",
				   "Run time of rstatlat's BPF programs (kernel.bpf_stats_enabled).",
				   s->bpf_ns);
		put_scalar(f, "rstatlat_bpf_runs_total", "counter", "Runs of rstatlat's BPF programs.",
			   s->bpf_runs);
	}
	put_scalar(f, "rstatlat_resident_memory_max_bytes", "gauge",
		   "Peak resident memory of rstatlat.", s->rss_max_bytes);
}

static void put_exporter(const struct prom_state *p, const struct report *r,
			 const struct prom_http_counts *http, uint64_t now_real_ns, FILE *f)
{
	put_scalar(f, "rstatlat_exported_cgroups", "gauge",
		   "Cgroups with series of their own (--prom-max-cgroups).", p->cg.nnamed);
	put_scalar(f, "rstatlat_tracked_cgroups", "gauge", "Cgroups seen, named or in (other).",
		   p->cg.n);
	family(f, "rstatlat_cpus", "gauge", "CPUs of the machine.");
	fprintf(f, "rstatlat_cpus{state=\"possible\"} %d\nrstatlat_cpus{state=\"online\"} %d\n",
		r->kernel.cpus_possible, r->kernel.cpus_online);
	if (http && http->present) {
		family(f, "rstatlat_http_requests_total", "counter",
		       "Requests answered by the /metrics endpoint, by status code.");
		fprintf(f, "rstatlat_http_requests_total{code=\"200\"} %" PRIu64 "\n"
			"rstatlat_http_requests_total{code=\"404\"} %" PRIu64 "\n"
			"rstatlat_http_requests_total{code=\"405\"} %" PRIu64 "\n",
			http->ok, http->not_found, http->bad_method);
	}
	put_seconds_scalar(f, "rstatlat_start_time_seconds", "gauge",
			   "When tracing started, seconds since the epoch.", r->start_ns);
	put_seconds_scalar(f, "rstatlat_refresh_timestamp_seconds", "gauge",
			   "When these figures were read, seconds since the epoch.", now_real_ns);
}

/* Last in the text, always: a reader can tell a whole file from a cut one. */
static void put_info(const struct prom_state *p, const struct report *r, FILE *f)
{
	family(f, "rstatlat_info", "gauge", "rstatlat and the kernel it traces.");
	fputs("rstatlat_info{version=\"", f);
	prom_write_label(f, p->o.version);
	fputs("\",kernel=\"", f);
	prom_write_label(f, r->kernel.release);
	fputs("\",attach=\"", f);
	prom_write_label(f, r->attach ? r->attach : "");
	fputs("\",irqoff_source=\"", f);
	prom_write_label(f, r->irqoff.source ? r->irqoff.source : "");
	/* which hosts add up holds under several locks in a row (6.16+) */
	fputs("\",locks=\"", f);
	prom_write_label(f, lock_scope_names[r->locks] ? lock_scope_names[r->locks] : "");
	fputs("\"} 1\n", f);
}

/*
 * The samples written through a stream (its lines that are not comments):
 * rstatlat_series, counted as written rather than worked out, so that
 * every family, present or future, is in it.
 */
struct sample_count {
	FILE *to;
	size_t samples;
	bool line_start, comment;
};

static ssize_t count_samples(void *cookie, const char *buf, size_t len)
{
	struct sample_count *c = cookie;
	const char *at = buf, *end = buf + len;

	while (at < end) {
		const char *nl;

		if (c->line_start)
			c->comment = *at == '#';
		nl = memchr(at, '\n', (size_t)(end - at));
		c->line_start = nl != NULL;
		if (!nl)
			break;
		c->samples += !c->comment;
		at = nl + 1;
	}
	return fwrite(buf, 1, len, c->to) == len ? (ssize_t)len : -1;
}

int prom_write(struct prom_state *p, const struct report *summary,
	       const struct prom_http_counts *http, uint64_t now_mono_ns,
	       uint64_t now_real_ns, FILE *f)
{
	struct sample_count c = { .to = f, .line_start = true };
	FILE *out = fopencookie(&c, "w", (cookie_io_functions_t){ .write = count_samples });
	int err = out ? 0 : -1;

	if (!err && (refresh(p, summary, now_mono_ns) || put_rows(p, summary, out) ||
		     (summary->flushers_counted && p->fl.max && put_flushers(p, out)) ||
		     (summary->cause_sample && put_causes(summary, out))))
		err = -1;
	if (!err) {
		put_system(p, summary, out);
		put_costs(summary, out);
		put_exporter(p, summary, http, now_real_ns, out);
		err = fflush(out) ? -1 : 0;
	}
	if (!err) {
		/* itself and rstatlat_info, which follow */
		put_scalar(out, "rstatlat_series", "gauge",
			   "Samples in this exposition, this one included: what rstatlat costs "
			   "the time series database (docs/fleet.md, Series budget).", c.samples + 2);
		put_info(p, summary, out);
	}
	if (out && fclose(out))
		err = -1;
	return err;
}

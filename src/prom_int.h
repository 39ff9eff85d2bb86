/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the Prometheus view's files share: the state prom_track.c keeps and
 * prom.c writes families from.
 */
#ifndef RSTATLAT_PROM_INT_H
#define RSTATLAT_PROM_INT_H

#include "prom.h"
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

/* prom_track.c: a distribution added to an exported histogram */
void phist_fold(struct phist *h, const struct dist *d);
/* ... and the state brought to a summary: who is named, their figures folded */
int prom_refresh(struct prom_state *p, const struct report *r, uint64_t now_ns);

#endif /* RSTATLAT_PROM_INT_H */

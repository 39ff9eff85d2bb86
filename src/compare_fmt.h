/* SPDX-License-Identifier: GPL-2.0 */
/* What the views of a comparison share: labels and value formats (compare_fmt.c). */
#ifndef RSTATLAT_COMPARE_FMT_H
#define RSTATLAT_COMPARE_FMT_H

#include <stdbool.h>
#include <stdio.h>
#include "compare.h"
#include "findings.h"

/* The longest label or line a view builds */
#define TEXT_MAX 512

extern const char *const cmp_verdict_text[];	/* "HIGHER", "too few", ... */
extern const char *const cmp_outcome_names[];	/* "pass", "fail", "inconclusive", "n/a" */
/* A metric's value as the tables show it ("4.48us", "0.38%", "-" without data). */
const char *cmp_fmt_value(char *buf, size_t len, const struct metric_def *m, bool has,
			  double v);
/* The ratio: "19.81x", "1/44x", "from 0", "to 0", "-". */
const char *cmp_fmt_ratio(char *buf, size_t len, const struct cell *c);
/* Where a side's irqs-off figures come from, in words. */
const char *cmp_source_text(const struct side *s);
/*
 * BEFORE and AFTER folded to powers of two over one range of octaves
 * (lo to hi by octave_next), each octave as a count and a share of its side.
 */
struct octave_pair {
	uint64_t count[2][64];	/* [0] before, [1] after */
	double share[2][64];
	int lo, hi;
	double peak;		/* the largest share on either side */
};
/* Fills p; false when both sides are empty (or NULL). */
bool octave_pair(const struct dist *b, const struct dist *a, struct octave_pair *p);

/*
 * A check as one line, without its outcome word: "hold.p99>+20% on total:
 * 90ns -> 94ns, 1.04x (limit 1.20x)", or with the reason a check has no
 * values to weigh; label_max cuts the row's label (0: whole). Not
 * escaped: it holds the gate as given and a cgroup's name, which each
 * view escapes for its medium.
 */
const char *cmp_gate_text(char *buf, size_t len, const struct gate_result *g, size_t label_max);
/*
 * The finding (of fs, the AFTER side's) behind a check of a rise that
 * failed or was inconclusive, if one fired; else NULL: its why.
 */
const struct finding *cmp_gate_finding(const struct findings *fs, const struct gate_result *g);
/* "pass", "FAIL", "INCONCLUSIVE", "n/a": as the text views name an outcome. */
extern const char *const cmp_outcome_text[];
/*
 * The checks a view lists, in order: every one that did not pass (fail
 * closed), then the passes closest to their limit first, at most limit of
 * them (0: all). Returns how many are in out (nresults long); *more: the
 * passes left out.
 */
size_t cmp_gates_listed(const struct comparison *c, size_t limit,
			const struct gate_result **out, size_t *more);
/* The notes of a comparison, compare's own then the user's: the i-th, or NULL past the last. */
const char *cmp_note(const struct comparison *c, size_t i);
/*
 * The rows a view shows, of rows[0..n): compare_shows_row's, at most limit
 * (0: all). Returns how many are in out; *more: the selected rows left out.
 */
size_t cmp_rows_listed(const struct comparison *c, const struct cmp_row *rows, size_t n,
		       size_t limit, const struct cmp_row **out, size_t *more);
/*
 * One line of a row's flush split, formatted for any view: the wall time
 * per flush (flush.mean) or a part, each side's value and share of its
 * wall time, the delta and its share of the wall time's.
 */
struct split_cells {
	const char *name, *verdict;
	enum verdict v;
	bool has;		/* both sides have the value */
	char before[32], share_before[16], after[32], share_after[16], delta[32],
	     delta_share[16];
};
/*
 * The split's lines: the wall time's first (i = wall), then each part the
 * view shows; returns the metric after i, or -1 past the last.
 */
int cmp_split_next(const struct comparison *c, const struct cmp_row *row, int wall, int i);
void cmp_split_cells(const struct cmp_row *row, int i, int wall, struct split_cells *out);
/*
 * "unpaired, only in AFTER (2): /a, /b" (ten named at most), or NULL when
 * side (ONLY_BEFORE or ONLY_AFTER) has none; unescaped.
 */
const char *cmp_unpaired_text(char *buf, size_t len, const struct comparison *c,
			      enum presence side);
extern const char cmp_unpaired_hint[];
/* "+5.75ms", "-300us", "0": a signed difference of ns. */
const char *cmp_fmt_delta(char *buf, size_t len, double ns);

#endif

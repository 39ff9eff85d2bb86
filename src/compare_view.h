/* SPDX-License-Identifier: GPL-2.0 */
/* What the views of a comparison share: labels and value formats. */
#ifndef RSTATLAT_COMPARE_VIEW_H
#define RSTATLAT_COMPARE_VIEW_H

#include <stdbool.h>
#include <stdio.h>
#include "compare.h"

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
/* The self-contained HTML view (compare_html.c). */
void compare_html_print(FILE *f, const struct comparison *c, size_t rows);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Views of a report. None of them knows about BPF. */
#ifndef RSTATLAT_VIEW_H
#define RSTATLAT_VIEW_H

#include <stdbool.h>
#include <stdio.h>
#include "report.h"

enum sort_key {
	SORT_HOLD_P99,
	SORT_HOLD_P50,
	SORT_HOLD_MAX,
	SORT_WAIT_P99,
	SORT_WAIT_MAX,
	SORT_LOCKED,		/* lock acquisitions */
	SORT_FLUSH_P99,
	SORT_CONTENDED,
	SORT_PATH,
	SORT_MAX_KEY,
};

extern const char *const sort_names[SORT_MAX_KEY];

struct view_opts {
	enum sort_key sort;
	size_t rows;		/* 0: all */
	bool histograms;	/* -H */
	bool timestamp;		/* -T */
	bool flush;		/* --flush: the flush table */
	bool clear;		/* redraw in place (stdout is a terminal) */
};

int sort_key_parse(const char *s, enum sort_key *key);
void table_print(FILE *f, const struct report *r, const struct view_opts *o);
void json_print(FILE *f, const struct report *r);
/* A workload's figures alone, as one line of type "workload" (rstatlat load -j). */
void json_print_workload(FILE *f, const struct workload_info *w);

#endif

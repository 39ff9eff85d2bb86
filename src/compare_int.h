/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What compare's files (compare_build.c and compare_{metric,stats,pair,gate}.c)
 * call in one another; the views see compare.h only.
 */
#ifndef RSTATLAT_COMPARE_INT_H
#define RSTATLAT_COMPARE_INT_H

#include "compare.h"

/* Whether AFTER's quantile lies beyond BEFORE's (compare_stats.c, quantile_shift) */
enum shift { SHIFT_YES, SHIFT_NO, SHIFT_UNTESTABLE };

/* compare_metric.c */
bool count_measured(const struct metric_def *m, const struct report *r);
uint64_t metric_denominator(const struct metric_def *m, const struct report *r,
			    const struct row *row);
const struct dist *dist_of(const struct report *r, const struct row *row, enum dist_id k);
bool metric_value(const struct metric_def *m, const struct row *row, const struct report *r,
		  double *v);
uint64_t metric_numerator(const struct metric_def *m, const struct report *r,
			  const struct row *row);
bool parts_comparable(const struct report *a, const struct report *b, int k);
double metric_seconds(const struct metric_def *m, const struct report *r);
bool system_metric(const struct metric_def *m);

/* compare_stats.c */
double between_runs_p(const struct comparison *c, const struct cmp_row *row, int mi, bool higher);
enum verdict max_test(const struct dist *b, const struct dist *a, double alpha);
double mean_p(const struct metric_def *m, const struct comparison *c, const struct row *b,
	      const struct row *a);
double per_value_p(const struct metric_def *m, const struct comparison *c, const struct row *b,
		   const struct row *a);
enum shift quantile_shift(const struct dist *b, const struct dist *a, double q, double alpha,
			  bool higher);
double rate_p(const struct metric_def *m, const struct comparison *c, const struct row *b,
	      const struct row *a);
double value_ratio(double before, double after);
double share_p(const struct metric_def *m, const struct comparison *c, const struct row *b,
	       const struct row *a);
enum verdict verdict_at(const struct comparison *c, const struct cmp_row *row, int mi,
			double alpha);

/* compare_pair.c */
const char *row_path(const struct cmp_row *r);
const struct cmp_row *find_row(const struct comparison *c, const char *path, bool *several);
int match_processes(struct comparison *c);
int pair_rows(const struct row *b, size_t nb, const struct row *a, size_t na,
	      const struct row_identity *id, struct cmp_row **out, size_t *nout);

/* compare_gate.c */
int run_gates(struct comparison *c, const struct gate *gates, size_t ngates,
	      const struct cmp_row *only, char *err, size_t errlen);

#endif /* RSTATLAT_COMPARE_INT_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * compare's gates: parsed from --gate, and evaluated on the comparison,
 * failing closed (a crossing the data cannot confirm is inconclusive).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compare_int.h"
#include "fmt.h"
#include "stats.h"

/*
 * Gates fail closed. A check whose observed value does not cross its limit
 * passes. One that crosses fails when a one-sided test at the gate's level
 * confirms it, and is inconclusive when the data cannot: never a silent
 * pass of a regression that was seen.
 */
static bool crosses(const struct gate *g, double v)
{
	return g->above ? v > g->limit : v < g->limit;
}

/* One-sided normal bounds of a share or a rate of AFTER; false when too few. */
static bool after_bounds(const struct metric_def *m, const struct comparison *c,
			 const struct row *a, double v, double *lo, double *hi)
{
	const struct report *r = c->after.r;
	double z = z_two_sided(2 * c->gate_alpha), n = (double)metric_numerator(m, r, a);

	if (m->kind == MK_PER_VALUE) {
		double values = (double)metric_denominator(m, r, a);

		if (metric_numerator(m, r, a) < 5 || !values)
			return false;
		*lo = (n - z * sqrt(n)) / values;
		*hi = (n + z * sqrt(n)) / values;
		return true;
	}
	if (m->kind == MK_SHARE) {
		double whole = (double)metric_denominator(m, r, a);

		if (whole * fmin(v, 1 - v) < 5)
			return false;
		*lo = v - z * sqrt(v * (1 - v) / whole);
		*hi = v + z * sqrt(v * (1 - v) / whole);
		return true;
	}
	if (metric_numerator(m, r, a) < 5)
		return false;
	*lo = (n - z * sqrt(n)) / metric_seconds(m, r);
	*hi = (n + z * sqrt(n)) / metric_seconds(m, r);
	return true;
}

/* Absolute gates: is AFTER's value beyond the limit, with confidence? */
static enum gate_outcome absolute_gate(const struct gate *g, const struct comparison *c,
				       const struct cmp_row *row, double *value)
{
	const struct metric_def *m = &metrics[g->metric];
	const struct dist *d = dist_of(c->after.r, row->after, m->dist);
	double v = row->cells[g->metric].after, lo, hi;
	uint64_t bound;

	*value = v;
	if (!crosses(g, v))
		return G_PASS;
	switch (m->kind) {
	case MK_MAX:
	case MK_PART:
	case MK_MEAN:
		/* a maximum is a measured event, a mean one of every flush: not estimates */
		return G_FAIL;
	case MK_QUANTILE:
		if (!d)
			return G_INCONCLUSIVE;
		if (g->above)
			return quantile_lower_bound(d, m->q, c->gate_alpha, &bound) &&
			       (double)bound > g->limit ? G_FAIL : G_INCONCLUSIVE;
		return quantile_upper_bound(d, m->q, c->gate_alpha, &bound) &&
		       (double)bound < g->limit ? G_FAIL : G_INCONCLUSIVE;
	case MK_SHARE:
	case MK_RATE:
	case MK_PER_VALUE:
		if (!after_bounds(m, c, row->after, v, &lo, &hi))
			return G_INCONCLUSIVE;
		return (g->above ? lo > g->limit : hi < g->limit) ? G_FAIL : G_INCONCLUSIVE;
	default:
		return G_NA;
	}
}

/* Whether a one-sided test at the gate's level finds AFTER moved in the gate's direction. */
static bool shift_confirmed(const struct gate *g, const struct comparison *c,
			    const struct cmp_row *row)
{
	const struct metric_def *m = &metrics[g->metric];
	const struct dist *db = dist_of(c->before.r, row->before, m->dist);
	const struct dist *da = dist_of(c->after.r, row->after, m->dist);
	const struct row *b = row->before, *a = row->after;
	double p;

	if (compare_replicated(c)) {
		p = between_runs_p(c, row, g->metric, g->above);
		return p >= 0 && p < c->gate_alpha;
	}
	switch (m->kind) {
	case MK_QUANTILE:
		return db && da && quantile_shift(db, da, m->q, c->gate_alpha, g->above) == SHIFT_YES;
	case MK_MAX:
		return db && da && max_test(db, da, c->gate_alpha) == (g->above ? V_HIGHER : V_LOWER);
	case MK_RATE:
		p = rate_p(m, c, b, a);
		break;
	case MK_SHARE:
		p = share_p(m, c, b, a);
		break;
	case MK_PER_VALUE:
		p = per_value_p(m, c, b, a);
		break;
	case MK_PART:
	case MK_MEAN:
		p = mean_p(m, c, b, a);
		break;
	default:
		return false;
	}
	/* the observed change is in the gate's direction: half the two-sided p */
	return p >= 0 && p / 2 < c->gate_alpha;
}

/* Relative gates: a change beyond the limit (and the noise floor), confirmed. */
static enum gate_outcome relative_gate(const struct gate *g, const struct comparison *c,
				       const struct cmp_row *row, double *value)
{
	const struct cell *cell = &row->cells[g->metric];
	double change = cell->ratio - 1;

	*value = cell->ratio;
	if (!crosses(g, change) || fabs(change) <= c->noise)
		return G_PASS;
	return shift_confirmed(g, c, row) ? G_FAIL : G_INCONCLUSIVE;
}

static bool system_wide(const struct gate *g)
{
	return system_metric(&metrics[g->metric]);
}

/* Whether a side did not measure the counter a gate's metric is made of. */
static bool count_unmeasured(const struct comparison *c, const struct gate *g)
{
	return !count_measured(&metrics[g->metric], c->before.r) ||
	       !count_measured(&metrics[g->metric], c->after.r);
}

/* Whether a side did not measure what the gate asks: system-wide figures, flush parts. */
static bool unmeasured(const struct comparison *c, const struct gate *g)
{
	int part = metrics[g->metric].part;

	if (metrics[g->metric].kind == MK_PART)
		return !parts_comparable(c->before.r, c->after.r, part);
	return system_wide(g) || count_unmeasured(c, g);
}

/*
 * Why a check has no two values to weigh: the side that did not measure
 * the figure, or has none of it; NULL when both have one.
 */
static const char *missing_value(const struct comparison *c, const struct gate *g,
				 const struct cell *cell)
{
	const struct metric_def *m = &metrics[g->metric];
	bool before = c->before.r->flush_parts, after = c->after.r->flush_parts;

	if (m->kind == MK_PART) {
		if (!before || !after)
			return !before && !after ? "no flush parts on either side" :
			       !before ? "no flush parts in BEFORE" : "no flush parts in AFTER";
		if (!parts_comparable(c->before.r, c->after.r, m->part))
			return m->part == PART_OTHER ? "other holds different parts on each side" :
			       "this part is not measured on both sides";
	}
	if (system_wide(g) && (!cell->has_before || !cell->has_after))
		return "not measured on both sides (a system-wide figure)";
	if (count_unmeasured(c, g))
		return !count_measured(m, c->before.r) ? "not measured in BEFORE" :
		       "not measured in AFTER";
	if (!cell->has_before || !cell->has_after)
		return !cell->has_before && !cell->has_after ? "no values on either side" :
		       !cell->has_before ? "no values in BEFORE" : "no values in AFTER";
	return NULL;
}

static void run_gate(struct comparison *c, const struct gate *g, const struct cmp_row *row)
{
	struct gate_result *res = &c->results[c->nresults++];
	const struct cell *cell = &row->cells[g->metric];

	res->gate = g;
	res->row = row;
	res->why = missing_value(c, g, cell);
	if (res->why)
		/* a figure a side did not measure (or not alike): asked, and not answerable */
		res->outcome = unmeasured(c, g) ? G_INCONCLUSIVE : G_NA;
	else if (g->relative)
		res->outcome = relative_gate(g, c, row, &res->value);
	else
		res->outcome = absolute_gate(g, c, row, &res->value);
	c->failed += res->outcome == G_FAIL;
	c->inconclusive += res->outcome == G_INCONCLUSIVE;
}

/*
 * The command's rows (every run ran one): a check of a row one side lacks,
 * or of none at all when no run flushed them, is inconclusive. A regression
 * may be what made the row appear or vanish.
 */
static void run_command_gate(struct comparison *c, const struct gate *g,
			     const struct cmp_row *const *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (rows[i]->presence == BOTH) {
			run_gate(c, g, rows[i]);
			continue;
		}
		c->results[c->nresults++] = (struct gate_result){
			.gate = g, .row = rows[i], .outcome = G_INCONCLUSIVE,
			.why = rows[i]->presence == ONLY_AFTER ? "no lock events in BEFORE" :
			       "no lock events in AFTER",
		};
		c->inconclusive++;
	}
	if (n)
		return;
	c->results[c->nresults++] = (struct gate_result){
		.gate = g, .row = &c->command_absent, .outcome = G_INCONCLUSIVE,
		.why = "no run has lock events of the command's cgroups (gate another with --cgroup)",
	};
	c->inconclusive++;
}

/* The rows of the command's cgroups that either side has. */
static size_t command_rows(const struct comparison *c, const struct cmp_row **out)
{
	size_t n = 0;

	for (size_t k = 0; k < c->ncommand_rows; k++)
		for (size_t i = 0; i < c->nrows && n < COMMAND_ROWS_MAX; i++)
			if (!c->rows[i].total && !strcmp(row_path(&c->rows[i]), c->command_rows[k]))
				out[n++] = &c->rows[i];
	return n;
}

int run_gates(struct comparison *c, const struct gate *gates, size_t ngates,
	      const struct cmp_row *only, char *err, size_t errlen)
{
	const struct cmp_row *cmd[COMMAND_ROWS_MAX];
	size_t nrows = 0, ncmd = 0, checks;
	bool by_command = !only && c->ncommand_rows;

	if (only && only->presence != BOTH) {
		snprintf(err, errlen, "cgroup %s is only in %s", row_label(only),
			 only->presence == ONLY_BEFORE ? "BEFORE" : "AFTER");
		return -1;
	}
	for (size_t i = 0; i < c->nrows; i++)
		nrows += c->rows[i].presence == BOTH;
	if (by_command) {
		ncmd = command_rows(c, cmd);
		nrows = ncmd ? ncmd : 1;
	} else {
		nrows = only ? 1 : nrows + 1 + c->has_cpu_lock;
	}
	checks = 0;
	for (size_t g = 0; g < ngates; g++)
		checks += system_wide(&gates[g]) ? 1 : nrows;
	/* Bonferroni: every check runs at alpha / checks */
	c->gate_alpha = c->alpha / (double)(checks > 0 ? checks : 1);
	c->results = calloc(checks + 1, sizeof(*c->results));
	if (!c->results)
		return -2;
	for (size_t g = 0; g < ngates; g++) {
		if (system_wide(&gates[g])) {
			run_gate(c, &gates[g], &c->total);	/* whatever the scope */
			continue;
		}
		if (only) {
			run_gate(c, &gates[g], only);
			continue;
		}
		if (by_command) {
			run_command_gate(c, &gates[g], cmd, ncmd);
			continue;
		}
		run_gate(c, &gates[g], &c->total);
		if (c->has_cpu_lock)
			run_gate(c, &gates[g], &c->cpu_lock);
		for (size_t i = 0; i < c->nrows; i++)
			if (c->rows[i].presence == BOTH)
				run_gate(c, &gates[g], &c->rows[i]);
	}
	return 0;
}

/* "+20%", "-5%", or with no sign an absolute "5%" (shares). */
static int parse_percent(const char *s, double *out)
{
	if (parse_number(s, "%", out))
		return -1;
	*out /= 100;
	return 0;
}

static int parse_limit(const char *s, const struct metric_def *m, struct gate *g)
{
	uint64_t ns;

	g->relative = *s == '+' || *s == '-';
	if (g->relative)
		return parse_percent(s, &g->limit);
	switch (m->kind) {
	case MK_QUANTILE:
	case MK_MAX:
	case MK_PART:
	case MK_MEAN:
		/* a bare number would be ambiguous: insist on a unit */
		if (!*s || !isalpha((unsigned char)s[strlen(s) - 1]) ||
		    parse_duration(s, 1, &ns))
			return -1;
		g->limit = (double)ns;
		return 0;
	case MK_SHARE:
		return parse_percent(s, &g->limit) || g->limit > 1 ? -1 : 0;
	case MK_RATE:
	case MK_PER_VALUE:
		return parse_number(s, "", &g->limit) || g->limit < 0 ? -1 : 0;
	default:
		return -1;
	}
}

static const char *limit_help(const struct metric_def *m)
{
	switch (m->kind) {
	case MK_QUANTILE:
	case MK_MAX:
	case MK_PART:
	case MK_MEAN:
		return "+N% or -N% (relative) or a time with a unit: 500ns, 100us, 5ms, 1s";
	case MK_SHARE:
		return "+N% or -N% (relative) or N% (an absolute share)";
	case MK_PER_VALUE:
		return "+N% or -N% (relative) or a number per value (holds per flush)";
	default:
		return "+N% or -N% (relative) or acquisitions per second";
	}
}

int gate_parse(const char *s, struct gate *g, char *err, size_t errlen)
{
	size_t len = strcspn(s, "<>");
	char name[32];

	memset(g, 0, sizeof(*g));
	if (!s[len] || len >= sizeof(name)) {
		snprintf(err, errlen, "bad gate '%.64s': expected METRIC>LIMIT or METRIC<LIMIT", s);
		return -1;
	}
	memcpy(name, s, len);
	name[len] = '\0';
	g->metric = metric_find(name);
	if (g->metric >= 0 && metrics[g->metric].kind == MK_MODE) {
		snprintf(err, errlen, "bad gate '%.64s': %s is shown, not tested or gated", s, name);
		return -1;
	}
	if (g->metric < 0 || metrics[g->metric].kind == MK_COUNT) {
		snprintf(err, errlen, "bad gate '%.64s': unknown metric '%s' (see rstatlat(8), GATES)",
			 s, name);
		return -1;
	}
	g->above = s[len] == '>';
	if (parse_limit(s + len + 1, &metrics[g->metric], g)) {
		snprintf(err, errlen, "bad gate '%.64s': limit must be %s", s,
			 limit_help(&metrics[g->metric]));
		return -1;
	}
	/* a directional test asks one question: higher by +N%, or lower by -N% */
	if (g->relative && (g->above ? g->limit < 0 : g->limit > 0)) {
		snprintf(err, errlen, "bad gate '%.64s': use > with +N%% and < with -N%%", s);
		return -1;
	}
	g->text = strdup(s);
	if (!g->text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * What the views of a comparison share (compare_fmt.h): the words for
 * verdicts and outcomes, values, ratios and deltas formatted, the checks
 * and rows a view lists, a row's flush split, histograms by octave.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compare_fmt.h"
#include "escape.h"
#include "fmt.h"

const char *const cmp_verdict_text[] = {
	[V_NA] = "",
	[V_TOO_FEW] = "too few",
	[V_SAME] = "same",
	[V_NOISE] = "noise",
	[V_HIGHER] = "HIGHER",
	[V_LOWER] = "lower",
};

const char *const cmp_outcome_names[] = {
	[G_PASS] = "pass", [G_FAIL] = "fail", [G_INCONCLUSIVE] = "inconclusive", [G_NA] = "n/a",
};

const char *const cmp_outcome_text[] = {
	[G_PASS] = "pass", [G_FAIL] = "FAIL", [G_INCONCLUSIVE] = "INCONCLUSIVE", [G_NA] = "n/a",
};

const char *cmp_fmt_delta(char *buf, size_t len, double ns)
{
	char d[32];

	if (ns == 0 || !isfinite(ns)) {
		snprintf(buf, len, isfinite(ns) ? "0" : "-");
		return buf;
	}
	fmt_duration(d, sizeof(d), (uint64_t)fabs(ns));
	snprintf(buf, len, "%c%s", ns > 0 ? '+' : '-', d);
	return buf;
}

/* A gate's limit as its values read: "1.20x" (relative), "5ms", "10.00%". */
static const char *fmt_limit(char *buf, size_t len, const struct gate *g)
{
	if (g->relative)
		snprintf(buf, len, "%.2fx", 1 + g->limit);
	else
		cmp_fmt_value(buf, len, &metrics[g->metric], true, g->limit);
	return buf;
}

const char *cmp_gate_text(char *buf, size_t len, const struct gate_result *g, size_t label_max)
{
	const struct metric_def *m = &metrics[g->gate->metric];
	const struct cell *c = &g->row->cells[g->gate->metric];
	char label[TEXT_MAX], b[32], a[32], r[32], l[32];
	size_t at;

	/* cut in columns, at a whole character (the view escapes the line) */
	snprintf(label, sizeof(label), "%s", row_label(g->row));
	if (label_max > 3 && text_columns(label) > label_max)
		memcpy(label + text_fit(label, label_max - 3), "...", 4);
	at = (size_t)snprintf(buf, len, "%s on %s: ", g->gate->text, label);
	if (at >= len)
		return buf;
	if (g->why)
		snprintf(buf + at, len - at, "%s", g->why);
	else if (g->gate->relative)
		at += (size_t)snprintf(buf + at, len - at, "%s -> %s, %s (limit %s)",
				       cmp_fmt_value(b, sizeof(b), m, c->has_before, c->before),
				       cmp_fmt_value(a, sizeof(a), m, c->has_after, c->after),
				       cmp_fmt_ratio(r, sizeof(r), c),
				       fmt_limit(l, sizeof(l), g->gate));
	else
		at += (size_t)snprintf(buf + at, len - at, "%s (limit %s)",
				       cmp_fmt_value(a, sizeof(a), m, c->has_after, c->after),
				       fmt_limit(l, sizeof(l), g->gate));
	if (!g->why && g->outcome == G_INCONCLUSIVE && at < len)
		snprintf(buf + at, len - at, ": crossed, but the data cannot confirm it");
	return buf;
}

/* How near a passed check came to its limit: 1 at the limit, 0 or less far from it. */
static double closeness(const struct gate_result *g)
{
	const struct gate *gt = g->gate;
	double v = gt->relative ? g->value - 1 : g->value;

	if (gt->limit == 0 || !isfinite(v))
		return 0;
	if (gt->relative || gt->above)
		return v / gt->limit;
	return v ? gt->limit / v : 0;
}

static int by_closeness(const void *pa, const void *pb)
{
	double a = closeness(*(const struct gate_result *const *)pa);
	double b = closeness(*(const struct gate_result *const *)pb);

	return a > b ? -1 : a < b;
}

size_t cmp_gates_listed(const struct comparison *c, size_t limit,
			const struct gate_result **out, size_t *more)
{
	static const enum gate_outcome order[] = { G_FAIL, G_INCONCLUSIVE, G_NA };
	size_t n = 0, passes;

	/* what did not pass, by outcome: failures first */
	for (size_t k = 0; k < sizeof(order) / sizeof(*order); k++)
		for (size_t i = 0; i < c->nresults; i++)
			if (c->results[i].outcome == order[k])
				out[n++] = &c->results[i];
	passes = n;
	for (size_t i = 0; i < c->nresults; i++)
		if (c->results[i].outcome == G_PASS)
			out[n++] = &c->results[i];
	qsort(out + passes, n - passes, sizeof(*out), by_closeness);
	*more = 0;
	if (limit && n - passes > limit) {
		*more = n - passes - limit;
		n = passes + limit;
	}
	return n;
}

const char *cmp_note(const struct comparison *c, size_t i)
{
	const char *own = compare_one_run_note(c);

	if (own && i-- == 0)
		return own;
	return i < c->nnotes ? c->notes[i] : NULL;
}

size_t cmp_rows_listed(const struct comparison *c, const struct cmp_row *rows, size_t n,
		       size_t limit, const struct cmp_row **out, size_t *more)
{
	size_t listed = 0;

	*more = 0;
	for (size_t i = 0; i < n; i++) {
		if (!compare_shows_row(c, &rows[i]))
			continue;
		if (limit && listed == limit)
			(*more)++;
		else
			out[listed++] = &rows[i];
	}
	return listed;
}

#define UNPAIRED_NAMED 10

const char cmp_unpaired_hint[] =
	"(a cgroup renamed between the runs pairs with --pair BEFORE=AFTER)";

const char *cmp_unpaired_text(char *buf, size_t len, const struct comparison *c,
			      enum presence side)
{
	size_t n = 0, at;

	for (size_t i = 0; i < c->nrows; i++)
		n += c->rows[i].presence == side;
	if (!n)
		return NULL;
	at = (size_t)snprintf(buf, len, "unpaired, only in %s (%zu):",
			      side == ONLY_BEFORE ? "BEFORE" : "AFTER", n);
	n = 0;
	for (size_t i = 0; i < c->nrows && at < len; i++) {
		if (c->rows[i].presence != side)
			continue;
		if (n++ == UNPAIRED_NAMED) {
			snprintf(buf + at, len - at, ", ...");
			break;
		}
		at += (size_t)snprintf(buf + at, len - at, "%s %s", n > 1 ? "," : "",
				       row_label(&c->rows[i]));
	}
	return buf;
}

/* "12%": a share as the split shows it, or "-" without one. */
static void fmt_percent(char *buf, size_t len, bool has, double share)
{
	if (has && isfinite(share))
		snprintf(buf, len, "%.0f%%", share * 100);
	else
		snprintf(buf, len, "-");
}

int cmp_split_next(const struct comparison *c, const struct cmp_row *row, int wall, int i)
{
	/* after the wall time, the parts from the first */
	for (int k = i == wall ? 0 : i + 1; k < nmetrics; k++)
		if (metrics[k].kind == MK_PART && compare_shows_metric(c, row, k))
			return k;
	return -1;
}

void cmp_split_cells(const struct cmp_row *row, int i, int wall, struct split_cells *out)
{
	const struct cell *p = &row->cells[i], *w = &row->cells[wall];
	const struct metric_def *m = &metrics[i];

	out->name = m->name;
	out->v = p->verdict;
	out->verdict = cmp_verdict_text[p->verdict];
	out->has = p->has_before && p->has_after;
	cmp_fmt_value(out->before, sizeof(out->before), m, p->has_before, p->before);
	cmp_fmt_value(out->after, sizeof(out->after), m, p->has_after, p->after);
	fmt_percent(out->share_before, sizeof(out->share_before), p->has_before && w->before > 0,
		    p->before / w->before);
	fmt_percent(out->share_after, sizeof(out->share_after), p->has_after && w->after > 0,
		    p->after / w->after);
	cmp_fmt_delta(out->delta, sizeof(out->delta), out->has ? p->after - p->before : NAN);
	fmt_percent(out->delta_share, sizeof(out->delta_share), out->has,
		    split_delta_share(row, i, wall));
}

const char *cmp_fmt_value(char *buf, size_t len, const struct metric_def *m, bool has,
			  double v)
{
	if (!has)
		snprintf(buf, len, "-");
	else if (m->kind == MK_COUNT)
		snprintf(buf, len, "%.0f", v);
	else if (m->kind == MK_RATE)
		snprintf(buf, len, "%.1f", v);
	else if (m->kind == MK_SHARE)
		snprintf(buf, len, "%.2f%%", v * 100);
	else if (m->kind == MK_PER_VALUE)
		snprintf(buf, len, "%.2f", v);
	else
		fmt_duration(buf, len, (uint64_t)v);
	return buf;
}

const char *cmp_fmt_ratio(char *buf, size_t len, const struct cell *c)
{
	if (!c->has_before || !c->has_after)
		snprintf(buf, len, "-");
	else if (isinf(c->ratio))
		snprintf(buf, len, "from 0");
	else if (c->ratio == 0)
		snprintf(buf, len, "to 0");
	else if (c->ratio < 0.1)
		/* a 512-fold drop reads as such, not as 0.00x */
		snprintf(buf, len, "1/%.0fx", 1 / c->ratio);
	else
		snprintf(buf, len, "%.2fx", c->ratio);
	return buf;
}

const char *cmp_source_text(const struct side *s)
{
	return strcmp(s->irqoff_source, "lock") ? s->irqoff_source :
	       "lock (each hold: the lock is held with irqs off)";
}

/* The finding (of the AFTER side) behind a gate's metric, as findings.h has them: -1 none. */
static int finding_behind(const char *metric)
{
	static const struct { const char *prefix; enum finding_id id; } behind[] = {
		{ "contended", FIND_READERS_FIGHT }, { "wait.", FIND_READERS_FIGHT },
		{ "flush.wait", FIND_READERS_FIGHT }, { "irqoff.", FIND_LONG_IRQOFF },
		{ "hold.max", FIND_LONG_IRQOFF }, { "flush.p", FIND_FLUSH_TIME },
		{ "flush.max", FIND_FLUSH_TIME }, { "flush.mean", FIND_FLUSH_TIME },
		{ "flush.irq", FIND_FLUSH_TIME }, { "flush.offcpu", FIND_FLUSH_TIME },
		{ "flush.self", FIND_FLUSH_TIME }, { "flush.other", FIND_FLUSH_TIME },
		{ "locked", FIND_WHO_FLUSHES },
	};

	for (size_t i = 0; i < sizeof(behind) / sizeof(behind[0]); i++)
		if (!strncmp(metric, behind[i].prefix, strlen(behind[i].prefix)))
			return (int)behind[i].id;
	return -1;
}

/*
 * The finding behind a check of a rise that failed or was inconclusive, if
 * one fired in the AFTER runs; else NULL. A finding says what is high: it
 * explains no fall, and its cgroup may be another than the check's.
 */
const struct finding *cmp_gate_finding(const struct findings *fs, const struct gate_result *g)
{
	bool unmet = g->outcome == G_FAIL || g->outcome == G_INCONCLUSIVE;
	int id = unmet && g->gate->above ? finding_behind(metrics[g->gate->metric].name) : -1;

	for (int i = 0; id >= 0 && i < fs->n; i++)
		if ((int)fs->f[i].id == id)
			return &fs->f[i];
	return NULL;
}

bool octave_pair(const struct dist *b, const struct dist *a, struct octave_pair *p)
{
	const struct dist *d[2] = { b, a };
	int lo[2], hi[2];
	bool has[2];

	memset(p, 0, sizeof(*p));
	for (int s = 0; s < 2; s++)
		has[s] = d[s] && d[s]->count && dist_octaves(d[s], p->count[s], &lo[s], &hi[s]);
	if (!has[0] && !has[1])
		return false;
	p->lo = has[0] && (!has[1] || lo[0] < lo[1]) ? lo[0] : lo[1];
	p->hi = has[0] && (!has[1] || hi[0] > hi[1]) ? hi[0] : hi[1];
	for (int s = 0; s < 2; s++) {
		if (!has[s]) {
			memset(p->count[s], 0, sizeof(p->count[s]));
			continue;
		}
		for (int o = p->lo; o <= p->hi; o = octave_next(o)) {
			p->share[s][o] = (double)p->count[s][o] / (double)d[s]->count;
			p->peak = fmax(p->peak, p->share[s][o]);
		}
	}
	return true;
}

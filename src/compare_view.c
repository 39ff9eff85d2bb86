// SPDX-License-Identifier: GPL-2.0
/* Views of a comparison: text for terminals, Markdown, JSON (HTML: compare_html.c). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "compare_view.h"
#include "escape.h"
#include "fmt.h"

#define TEXT_MAX 512

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

/*
 * Terminal text, or Markdown in which the marks that GitHub's Markdown acts
 * on inside a table cell or heading are backslash-escaped.
 */
static const char *safe(char *buf, size_t len, const char *s, bool md)
{
	char tmp[4 * TEXT_MAX];
	size_t o = 0;

	if (!md) {
		term_escape(buf, len, s);
		return buf;
	}
	term_escape(tmp, sizeof(tmp), s);
	for (const char *p = tmp; *p && o + 3 < len; p++) {
		if (strchr("\\`*_[]<>|~&$#!", *p))
			buf[o++] = '\\';
		buf[o++] = *p;
	}
	buf[o] = '\0';
	return buf;
}

const char *cmp_source_text(const struct side *s)
{
	return strcmp(s->irqoff_source, "lock") ? s->irqoff_source :
	       "lock (each hold: the lock is held with irqs off)";
}

/* The header's columns: a name, BEFORE's value, AFTER's, within HEADER_COLS. */
#define HEADER_COLS	80
#define HEADER_NAME	12	/* the name and its gap */
#define HEADER_BEFORE	38	/* BEFORE's value and its gap */
#define HEADER_WIDE (HEADER_COLS - HEADER_NAME - 7) /* after "BEFORE ", "AFTER  " or "both   " */

/* v within width columns: its end kept (a file's name), "..." before it. */
static const char *header_fit(const char *v, int width)
{
	int len = (int)strlen(v);

	return len <= width ? v : v + len - (width - 3);
}

/*
 * One line of the header, BEFORE's value beside AFTER's. Where they do not
 * fit in HEADER_COLS, one value said for both when they are alike, else
 * one line each; a value longer than a line keeps its end.
 */
static void header_line(FILE *f, bool md, const char *name, const char *b, const char *a)
{
	const char *fb, *fa;

	if (md) {
		fprintf(f, "| %s | %s | %s |\n", name, b, a);
		return;
	}
	if (strlen(b) <= HEADER_BEFORE - 2 &&
	    strlen(a) <= HEADER_COLS - HEADER_NAME - HEADER_BEFORE) {
		fprintf(f, "%-10s  %-36s  %s\n", name, b, a);
		return;
	}
	fb = header_fit(b, HEADER_WIDE);
	fa = header_fit(a, HEADER_WIDE);
	if (!strcmp(b, a)) {
		fprintf(f, "%-10s  both   %s%s\n", name, fb == b ? "" : "...", fb);
		return;
	}
	fprintf(f, "%-10s  BEFORE %s%s\n", name, fb == b ? "" : "...", fb);
	fprintf(f, "%-10s  AFTER  %s%s\n", "", fa == a ? "" : "...", fa);
}

/* "make test: exit 0", cut to len - 1 characters: the first run's command. */
static void command_summary(char *buf, size_t len, const struct command_info *cmd)
{
	size_t at = 0;

	snprintf(buf, len, "-");
	for (int i = 0; cmd->present && i < cmd->argc && at + 1 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", cmd->argv[i]);
	if (cmd->present && at + 1 < len)
		at += (size_t)snprintf(buf + at, len - at, cmd->ended ? ": exit %d" : ": running",
				       cmd->status);
	if (at + 1 >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

/* "hammer threads=10 reads=10000 ...": the workload a side ran, cut to len - 1 bytes. */
static void workload_summary(char *buf, size_t len, const struct workload_info *w)
{
	size_t at;

	snprintf(buf, len, "%s%s", w->present ? w->name : "-", w->mixed ? " (and others)" : "");
	at = strlen(buf);
	for (int i = 0; w->present && i < w->noptions && at + 1 < len; i++) {
		const struct workload_option *o = &w->options[i];

		if (o->text)
			at += (size_t)snprintf(buf + at, len - at, " %s=%s", o->key, o->text);
		else
			at += (size_t)snprintf(buf + at, len - at, " %s=%llu", o->key,
					       (unsigned long long)o->number);
	}
	if (at + 1 >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

/*
 * Whether the sides ran different workloads, or one asked otherwise, or
 * one none: their figures are unlike.
 */
static bool workloads_differ(const struct comparison *c)
{
	const struct workload_info *b = &c->before.r->workload, *a = &c->after.r->workload;

	return b->present != a->present || b->mixed || a->mixed ||
	       (b->present && !workload_alike(b, a));
}

/* Every run's file, BEFORE's beside AFTER's: one line each, the first one "file". */
static void print_files(FILE *f, const struct comparison *c, bool md)
{
	const struct side *s[2] = { &c->before, &c->after };
	size_t n = s[0]->nruns > s[1]->nruns ? s[0]->nruns : s[1]->nruns;
	char v[2][TEXT_MAX];

	for (size_t k = 0; k < (n ? n : 1); k++) {
		for (int i = 0; i < 2; i++)
			safe(v[i], TEXT_MAX, side_file(s[i], k) ? side_file(s[i], k) : "", md);
		header_line(f, md, k ? "" : n > 1 ? "files" : "file", v[0], v[1]);
	}
}

/* Rows one side lacks, named: a cgroup renamed between runs shows here, to --pair. */
static void print_unpaired(FILE *f, const struct comparison *c, bool md)
{
	char raw[TEXT_MAX], v[4 * TEXT_MAX];
	bool any = false;

	for (enum presence side = ONLY_BEFORE; side <= ONLY_AFTER; side++) {
		if (!cmp_unpaired_text(raw, sizeof(raw), c, side))
			continue;
		fprintf(f, "%s%s\n", md ? "\n" : "", safe(v, sizeof(v), raw, md));
		any = true;
	}
	if (any)
		fprintf(f, "%s%s\n", md ? "\n" : "", cmp_unpaired_hint);
}

/* What the gates check: one cgroup, the command's, or every row and the total. */
static void print_gated(FILE *f, const struct comparison *c, bool md)
{
	char v[TEXT_MAX];

	fprintf(f, "%sgated: ", md ? "\n" : "");
	if (c->gated_cgroup) {
		fprintf(f, "cgroup %s\n", safe(v, sizeof(v), c->gated_cgroup, md));
		return;
	}
	if (!c->ncommand_rows) {
		fputs("every cgroup and the total\n", f);
		return;
	}
	for (size_t i = 0; i < c->ncommand_rows; i++)
		fprintf(f, "%s%s", i ? ", " : "", safe(v, sizeof(v), c->command_rows[i], md));
	fputs(": the cgroups the command ran in, paired across runs whatever their names\n", f);
}

static void print_header(FILE *f, const struct comparison *c, bool md)
{
	const struct side *s[2] = { &c->before, &c->after };
	char v[2][TEXT_MAX], raw[TEXT_MAX];

	if (md) {
		fprintf(f, "### %s\n\n|  | BEFORE | AFTER |\n|---|---|---|\n",
			c->title ? safe(raw, sizeof(raw), c->title, md) : "rstatlat compare");
	} else {
		if (c->title)
			fprintf(f, "%s\n\n", safe(raw, sizeof(raw), c->title, md));
		header_line(f, md, "", "BEFORE", "AFTER");
	}
	print_files(f, c, md);
	for (int i = 0; i < 2; i++)
		safe(v[i], TEXT_MAX, s[i]->r->kernel.release, md);
	header_line(f, md, "kernel", v[0], v[1]);
	for (int i = 0; i < 2; i++)
		snprintf(v[i], TEXT_MAX, "%d online, %d possible", s[i]->r->kernel.cpus_online,
			 s[i]->r->kernel.cpus_possible);
	header_line(f, md, "cpus", v[0], v[1]);
	for (int i = 0; i < 2; i++) {
		char d[32];

		if (s[i]->nruns > 1)
			snprintf(v[i], TEXT_MAX, "%zu runs, %s in all", s[i]->nruns,
				 fmt_duration(d, sizeof(d), s[i]->r->duration_ns));
		else
			snprintf(v[i], TEXT_MAX, "%s, %s", fmt_duration(d, sizeof(d),
				 s[i]->r->duration_ns), s[i]->summaries ? "summary" : "intervals merged");
	}
	header_line(f, md, "window", v[0], v[1]);
	for (int i = 0; i < 2; i++)
		safe(v[i], TEXT_MAX, s[i]->r->attach, md);
	header_line(f, md, "attach", v[0], v[1]);
	/* 6.15 against 6.16+: one lock against one per subsystem, said */
	if (s[0]->r->locks != LOCKS_UNKNOWN || s[1]->r->locks != LOCKS_UNKNOWN ||
	    s[0]->r->lock_types || s[1]->r->lock_types) {
		for (int i = 0; i < 2; i++)
			snprintf(v[i], TEXT_MAX, "%s%s%s", s[i]->r->locks == LOCKS_UNKNOWN ? "-" :
				 lock_scope_names[s[i]->r->locks], s[i]->r->lock_rows ?
				 ", a row per lock" : s[i]->r->locks_folded ? ", rows added up" : "",
				 s[i]->r->lock_types ? ", and lock type" : "");
		header_line(f, md, "locks", v[0], v[1]);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(raw, sizeof(raw), "%s", cmp_source_text(s[i]));
		safe(v[i], TEXT_MAX, raw, md);
	}
	header_line(f, md, "irqs-off", v[0], v[1]);
	if (side_command(s[0])->present || side_command(s[1])->present) {
		for (int i = 0; i < 2; i++) {
			command_summary(raw, 37, side_command(s[i]));
			safe(v[i], TEXT_MAX, raw, md);
		}
		header_line(f, md, "command", v[0], v[1]);
	}
	if (s[0]->r->workload.present || s[1]->r->workload.present) {
		for (int i = 0; i < 2; i++) {
			workload_summary(raw, 37, &s[i]->r->workload);
			safe(v[i], TEXT_MAX, raw, md);
		}
		header_line(f, md, "workload", v[0], v[1]);
	}
	print_gated(f, c, md);
	fprintf(f, "%stests: %s, alpha %g, %.3g per gate check; noise floor %g%%\n",
		md ? "\n" : "", compare_replicated(c) ? "between runs (Welch's t)" :
		"on the values", c->alpha, c->gate_alpha, c->noise * 100);
	for (size_t i = 0; cmp_note(c, i); i++)
		fprintf(f, "%snote: %s\n", md ? "\n" : "", safe(raw, sizeof(raw), cmp_note(c, i), md));
	print_unpaired(f, c, md);
	if (strcmp(c->before.irqoff_source, c->after.irqoff_source))
		fprintf(f, "%swarning: irqs-off comes from different sources on the two sides\n",
			md ? "\n" : "");
	if (workloads_differ(c))
		fprintf(f, "%swarning: the sides' workloads are unlike (name, options, or one has none)\n", md ? "\n" : "");
}

/*
 * Where the wall time per flush went, and where it changed: each part's
 * mean and share of the wall time on each side, its change and its share
 * of the wall time's change, and its verdict (docs/flushes.md).
 */
static void print_split(FILE *f, const struct comparison *c, const struct cmp_row *row, bool md)
{
	struct split_cells s;
	int wall;

	if (!compare_shows_split(c, row, &wall))
		return;
	if (md)
		fputs("\n| flush split | before | share | after | share | delta | of delta | verdict |\n"
		      "|---|--:|--:|--:|--:|--:|--:|---|\n", f);
	else
		fprintf(f, "\n  %-20s %9s %5s %9s %5s %9s %8s  %s\n", "flush split", "before",
			"share", "after", "share", "delta", "of delta", "verdict");
	for (int i = wall; i >= 0; i = cmp_split_next(c, row, wall, i)) {
		cmp_split_cells(row, i, wall, &s);
		if (md)
			fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", s.name, s.before,
				s.share_before, s.after, s.share_after, s.delta, s.delta_share,
				s.verdict);
		else
			fprintf(f, "  %-20s %9s %5s %9s %5s %9s %8s  %s\n", s.name, s.before,
				s.share_before, s.after, s.share_after, s.delta, s.delta_share,
				s.verdict);
	}
}

static void print_row(FILE *f, const struct comparison *c, const struct cmp_row *row, bool md)
{
	char name[TEXT_MAX], b[32], a[32], r[32];
	bool split = compare_shows_split(c, row, &(int){ 0 });

	safe(name, sizeof(name), row_label(row), md);
	if (md)
		fprintf(f, "\n#### %s%s\n\n| metric | before | after | change | verdict |\n"
			"|---|--:|--:|--:|---|\n", name,
			row->presence == ONLY_BEFORE ? " (only in BEFORE)" :
			row->presence == ONLY_AFTER ? " (only in AFTER)" : "");
	else
		fprintf(f, "\n%s%s\n  %-20s %12s %12s %9s  %s\n", name,
			row->presence == ONLY_BEFORE ? "  (only in BEFORE)" :
			row->presence == ONLY_AFTER ? "  (only in AFTER)" : "",
			"metric", "before", "after", "change", "verdict");
	for (int i = 0; i < nmetrics; i++) {
		const struct cell *cl = &row->cells[i];
		const struct metric_def *m = &metrics[i];

		/* the flush's mean and parts are the split's */
		if (!compare_shows_metric(c, row, i) ||
		    (split && (m->kind == MK_PART || m->kind == MK_MEAN)))
			continue;
		cmp_fmt_value(b, sizeof(b), m, cl->has_before, cl->before);
		cmp_fmt_value(a, sizeof(a), m, cl->has_after, cl->after);
		cmp_fmt_ratio(r, sizeof(r), cl);
		if (md)
			fprintf(f, "| %s | %s | %s | %s | %s |\n", m->name, b, a, r,
				cmp_verdict_text[cl->verdict]);
		else
			fprintf(f, "  %-20s %12s %12s %9s  %s\n", m->name, b, a, r,
				cmp_verdict_text[cl->verdict]);
	}
	print_split(f, c, row, md);
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

/* ... explained under it: in text within 80 columns, in markdown one line of its item. */
static void print_why(FILE *f, const struct findings *fs, const struct gate_result *g, bool md)
{
	const struct finding *fd = cmp_gate_finding(fs, g);
	char v[8 * FINDING_TEXT_LEN];

	if (fd && md)
		fprintf(f, "    why: %s\n", safe(v, sizeof(v), fd->text, md));
	else if (fd)
		term_wrap(f, "  why: ", "       ", fd->text, 80);
}

static void print_gates(FILE *f, const struct comparison *c, bool md, size_t limit)
{
	const struct gate_result **listed;
	char line[3 * TEXT_MAX], v[4 * TEXT_MAX];
	struct findings fs;
	size_t n, more;

	if (!c->nresults) {
		fprintf(f, "\n%sno gates%s\n", md ? "**" : "", md ? "**" : "");
		return;
	}
	fprintf(f, "\n%sgates: %zu checks, %zu failed, %zu inconclusive%s\n",
		md ? "**" : "", c->nresults, c->failed, c->inconclusive, md ? "**\n" : "");
	listed = calloc(c->nresults, sizeof(*listed));
	n = listed ? cmp_gates_listed(c, limit, listed, &more) : 0;
	findings_of(c->after.r, &fs);
	/* every check that did not pass, then the passes nearest their limits */
	for (size_t i = 0; i < n; i++) {
		cmp_gate_text(line, sizeof(line), listed[i], 0);
		fprintf(f, "%s%s %s\n", md ? "- " : "", cmp_outcome_text[listed[i]->outcome],
			safe(v, sizeof(v), line, md));
		print_why(f, &fs, listed[i], md);
	}
	if (!listed)
		fputs("(out of memory listing the checks)\n", f);
	else if (more)
		fprintf(f, "%s(%zu more passed; -n 0 shows all)\n", md ? "- " : "", more);
	free(listed);
	fprintf(f, "%sresult: %s%s\n", md ? "\n**" : "", compare_result(c), md ? "**" : "");
}

#define HIST_BAR 16	/* two bars and their counts in 80 columns */

static void hist_bar(char *bar, double share, double peak)
{
	double w = peak > 0 && isfinite(share / peak) ? share / peak * HIST_BAR + 0.5 : 0;
	int n = w < 0 ? 0 : w > HIST_BAR ? HIST_BAR : (int)w;

	memset(bar, '*', (size_t)n);
	memset(bar + n, ' ', (size_t)(HIST_BAR - n));
	bar[HIST_BAR] = '\0';
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

/*
 * BEFORE and AFTER side by side, folded to powers of two, as one pastes
 * into a mail (80 columns): each bar is the octave's share of its own
 * side, so sides with very different counts compare by shape.
 */
static void print_hist_pair(FILE *f, const char *label, const struct dist *b,
			    const struct dist *a)
{
	struct octave_pair p;

	if (!octave_pair(b, a, &p))
		return;
	fprintf(f, "  %-19s %9s %*s  %9s\n", label, "BEFORE", HIST_BAR + 2, "", "AFTER");
	for (int o = p.lo; o <= p.hi; o = octave_next(o)) {
		char bb[HIST_BAR + 1], ba[HIST_BAR + 1], lo[32], hi[32];
		uint64_t from, to;

		octave_bounds(o, &from, &to);
		hist_bar(bb, p.share[0][o], p.peak);
		hist_bar(ba, p.share[1][o], p.peak);
		/* each octave from its lowest value to the next one's: units as the tables' */
		fprintf(f, "  %8s - %-8s %9llu |%s|  %9llu |%s|\n",
			fmt_duration(lo, sizeof(lo), from), fmt_duration(hi, sizeof(hi), to + 1),
			(unsigned long long)p.count[0][o], bb, (unsigned long long)p.count[1][o], ba);
	}
}

static void print_row_hists(FILE *f, const struct comparison *c, const struct cmp_row *row)
{
	const struct row *b = row->before, *a = row->after;
	const struct report *rb = c->before.r, *ra = c->after.r;

	fputc('\n', f);
	print_hist_pair(f, "hold histogram", b ? &b->dist[DIST_HOLD] : NULL,
			a ? &a->dist[DIST_HOLD] : NULL);
	print_hist_pair(f, "flush histogram", b ? &b->dist[DIST_FLUSH] : NULL,
			a ? &a->dist[DIST_FLUSH] : NULL);
	print_hist_pair(f, "irqs-off histogram", b ? row_irqoff(rb, b) : NULL,
			a ? row_irqoff(ra, a) : NULL);
}

/* A row, and its histograms when asked for (text only). */
static void print_row_with(FILE *f, const struct comparison *c, const struct cmp_row *row,
			   bool md, bool histograms)
{
	print_row(f, c, row, md);
	if (histograms && !md)
		print_row_hists(f, c, row);
}

/* The rows asked for, up to `limit` (0: all), then how many were left out and of what. */
static void print_rows(FILE *f, const struct comparison *c, const struct cmp_row *rows,
		       size_t n, size_t limit, const char *what, bool md, bool histograms)
{
	const struct cmp_row **listed = calloc(n + 1, sizeof(*listed));
	size_t shown, more;

	if (!listed) {
		fputs("\n(out of memory listing the rows)\n", f);
		return;
	}
	shown = cmp_rows_listed(c, rows, n, limit, listed, &more);
	for (size_t i = 0; i < shown; i++)
		print_row_with(f, c, listed[i], md, histograms);
	if (more)
		fprintf(f, "\n(%zu more %s; -n 0 shows all)\n", more, what);
	free(listed);
}

static void print_readable(FILE *f, const struct comparison *c, bool md, size_t rows,
			   bool histograms)
{
	print_header(f, c, md);
	print_row_with(f, c, &c->total, md, histograms);
	if (c->has_cpu_lock)
		print_row_with(f, c, &c->cpu_lock, md, histograms);
	print_rows(f, c, c->rows, c->nrows, rows, "cgroups", md, histograms);
	/* the -p rows, paired by cgroup and comm: shown with verdicts, not gated */
	if (cmp_rows_listed(c, c->prows, c->nprows, 1, (const struct cmp_row *[1]){ 0 },
			    &(size_t){ 0 })) {
		fprintf(f, "\n%sflushers (-p), paired by cgroup and comm; not gated%s\n",
			md ? "### " : "", md ? "" : ":");
		print_rows(f, c, c->prows, c->nprows, rows, "flushers", md, histograms);
	}
	print_gates(f, c, md, rows);
}

static void json_number(FILE *f, bool has, double v)
{
	char digits[24], *p = digits + sizeof(digits);
	uint64_t u;

	if (!has || !isfinite(v)) {
		fputs("null", f);
		return;
	}
	/*
	 * Most values are whole (counts, nanoseconds): written as %.17g
	 * writes them, without its cost (a JSON of 8 000 rows has 10^6).
	 */
	if (v != trunc(v) || fabs(v) >= 0x1p53 || (v == 0 && signbit(v))) {
		fprintf(f, "%.17g", v);
		return;
	}
	u = (uint64_t)fabs(v);
	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	fputs(p, f);
}

/* The first run's command, or null: what it ran, where, and its status. */
static void json_command(FILE *f, const struct command_info *cmd)
{
	if (!cmd->present) {
		fputs("null", f);
		return;
	}
	fputs("{\"argv\":[", f);
	for (int i = 0; i < cmd->argc; i++) {
		if (i)
			fputc(',', f);
		json_write_string(f, cmd->argv[i]);
	}
	fputs("],\"cgroups\":[", f);
	for (int i = 0; i < cmd->ncgroups; i++) {
		if (i)
			fputc(',', f);
		json_write_string(f, cmd->cgroups[i].path);
	}
	fputs("],\"status\":", f);
	json_number(f, cmd->ended, cmd->status);
	fputc('}', f);
}

static void json_strings(FILE *f, const char *const *s, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		json_write_string(f, s[i]);
	}
	fputc(']', f);
}

/* The workload a side ran (its figures are the total's workload.* metrics), or null. */
static void json_workload(FILE *f, const struct workload_info *w)
{
	fputs(",\"workload\":", f);
	if (!w->present) {
		fputs("null", f);
		return;
	}
	fputs("{\"name\":", f);
	json_write_string(f, w->name);
	fprintf(f, ",\"mixed\":%s,\"runs\":%u,\"options\":{", w->mixed ? "true" : "false",
		w->runs);
	for (int i = 0; i < w->noptions; i++) {
		if (i)
			fputc(',', f);
		json_write_string(f, w->options[i].key);
		fputc(':', f);
		if (w->options[i].text)
			json_write_string(f, w->options[i].text);
		else
			fprintf(f, "%" PRIu64, w->options[i].number);
	}
	fputs("}}", f);
}

static void json_side(FILE *f, const char *key, const struct side *s)
{
	fprintf(f, "\"%s\":{\"file\":", key);
	json_write_string(f, s->file);
	fputs(",\"files\":[", f);
	for (size_t k = 0; side_file(s, k); k++) {
		if (k)
			fputc(',', f);
		json_write_string(f, side_file(s, k));
	}
	fputc(']', f);
	fputs(",\"kernel\":{\"release\":", f);
	json_write_string(f, s->r->kernel.release);
	fprintf(f, ",\"cpus_possible\":%d,\"cpus_online\":%d},\"duration_ns\":%" PRIu64
		",\"summaries\":%zu,\"intervals\":%zu,\"attach\":", s->r->kernel.cpus_possible,
		s->r->kernel.cpus_online, s->r->duration_ns, s->summaries, s->intervals);
	json_write_string(f, s->r->attach);
	if (s->r->locks != LOCKS_UNKNOWN) {
		fputs(",\"locks\":", f);
		json_write_string(f, lock_scope_names[s->r->locks]);
	}
	if (s->r->lock_rows)
		fputs(",\"lock_rows\":true", f);
	if (s->r->lock_types)
		fputs(",\"lock_types\":true", f);
	if (s->r->locks_folded)
		fputs(",\"locks_added_up\":true", f);
	fputs(",\"irqoff_source\":", f);
	json_write_string(f, s->irqoff_source);
	fputs(",\"command\":", f);
	json_command(f, side_command(s));
	json_workload(f, &s->r->workload);
	fprintf(f, ",\"runs\":%zu}", s->nruns ? s->nruns : 1);
}

static void json_cgroup(FILE *f, const struct cmp_row *row)
{
	const struct row *src = row->after ? row->after : row->before;
	static const char *const presence[] = { "both", "before", "after" };

	if (row->total || row->cpu_lock) {
		fputs("\"cgroup\":null,\"presence\":\"both\"", f);
		return;
	}
	fprintf(f, "\"cgroup\":{\"id\":%" PRIu64 ",\"hierarchy\":%u,\"path\":", src->cgid,
		src->hierarchy);
	json_write_string(f, src->path ? src->path : "");
	if (src->lock[0]) {
		fputs(",\"lock\":", f);
		json_write_string(f, src->lock);
	}
	if (src->lock_type[0]) {
		fputs(",\"lock_type\":", f);
		json_write_string(f, src->lock_type);
	}
	fprintf(f, "},\"presence\":\"%s\"", presence[row->presence]);
	if (row->process) {
		fputs(",\"comm\":", f);
		json_write_string(f, src->comm);
	}
}

/* The flush split of a part (or of the wall time): its shares, its change and that change's share. */
static void json_split(FILE *f, const struct cmp_row *row, int i, int wall)
{
	const struct cell *c = &row->cells[i], *w = &row->cells[wall];

	fputs(",\"share_before\":", f);
	json_number(f, c->has_before && w->before > 0, c->before / w->before);
	fputs(",\"share_after\":", f);
	json_number(f, c->has_after && w->after > 0, c->after / w->after);
	fputs(",\"delta\":", f);
	json_number(f, c->has_before && c->has_after, c->after - c->before);
	fputs(",\"delta_share\":", f);
	json_number(f, true, split_delta_share(row, i, wall));
}

static void json_row(FILE *f, const struct comparison *cmp, const struct cmp_row *row)
{
	bool first = true;
	int wall;
	bool split = compare_split(row, &wall);

	fputc('{', f);
	json_cgroup(f, row);
	fputs(",\"metrics\":{", f);
	for (int i = 0; i < nmetrics; i++) {
		const struct cell *c = &row->cells[i];

		if (!compare_metric_asked(cmp, i))
			continue;
		fprintf(f, "%s\"%s\":{\"before\":", first ? "" : ",", metrics[i].name);
		first = false;
		json_number(f, c->has_before, c->before);
		fputs(",\"after\":", f);
		json_number(f, c->has_after, c->after);
		fputs(",\"ratio\":", f);
		json_number(f, c->has_before && c->has_after, c->ratio);
		if (split && (metrics[i].kind == MK_PART || i == wall))
			json_split(f, row, i, wall);
		fprintf(f, ",\"verdict\":\"%s\"}", verdict_names[c->verdict]);
	}
	fputs("}}", f);
}

/* The rows of a list the selection shows, as a JSON array (no -n: JSON is for machines). */
static void json_rows(FILE *f, const struct comparison *c, const struct cmp_row *rows, size_t n)
{
	bool first = true;

	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (!compare_shows_row(c, &rows[i]))
			continue;
		if (!first)
			fputc(',', f);
		first = false;
		json_row(f, c, &rows[i]);
	}
	fputc(']', f);
}

/* What the gates check: null for every row, else the rows named. */
static void json_gated(FILE *f, const struct comparison *c)
{
	if (c->gated_cgroup) {
		fputc('[', f);
		json_write_string(f, c->gated_cgroup);
		fputc(']', f);
		return;
	}
	if (!c->ncommand_rows) {
		fputs("null", f);
		return;
	}
	for (size_t i = 0; i < c->ncommand_rows; i++) {
		fputc(i ? ',' : '[', f);
		json_write_string(f, c->command_rows[i]);
	}
	fputc(']', f);
}

static void print_json(FILE *f, const struct comparison *c)
{
	struct findings fs;

	fputs("{\"schema\":\"rstatlat-compare/2\",\"title\":", f);
	if (c->title)
		json_write_string(f, c->title);
	else
		fputs("null", f);
	fputc(',', f);
	json_side(f, "before", &c->before);
	fputc(',', f);
	json_side(f, "after", &c->after);
	fputs(",\"gated\":", f);
	json_gated(f, c);
	fprintf(f, ",\"alpha\":%g,\"gate_alpha\":%g,\"noise\":%g,\"notes\":[", c->alpha,
		c->gate_alpha, c->noise);
	for (size_t i = 0; cmp_note(c, i); i++) {
		if (i)
			fputc(',', f);
		json_write_string(f, cmp_note(c, i));
	}
	fputs("],\"shown\":{\"rows\":", f);
	json_strings(f, c->shown.rows, c->shown.nrows);
	fputs(",\"metrics\":", f);
	json_strings(f, c->shown.metrics, c->shown.nmetrics);
	fputs("},\"total\":", f);
	json_row(f, c, &c->total);
	fputs(",\"cpu_lock\":", f);
	if (c->has_cpu_lock)
		json_row(f, c, &c->cpu_lock);
	else
		fputs("null", f);
	fputs(",\"cgroups\":", f);
	json_rows(f, c, c->rows, c->nrows);
	fputs(",\"processes\":", f);
	json_rows(f, c, c->prows, c->nprows);
	fputs(",\"gates\":[", f);
	findings_of(c->after.r, &fs);
	for (size_t i = 0; i < c->nresults; i++) {
		const struct gate_result *g = &c->results[i];
		const struct finding *fd = cmp_gate_finding(&fs, g);

		fputs(i ? ",{\"gate\":" : "{\"gate\":", f);
		json_write_string(f, g->gate->text);
		fputs(",\"cgroup\":", f);
		if (g->row->total)
			fputs("null", f);
		else
			json_write_string(f, row_label(g->row));
		fprintf(f, ",\"outcome\":\"%s\",\"value\":", cmp_outcome_names[g->outcome]);
		json_number(f, g->outcome != G_NA && !g->why, g->value);
		/* relative: a ratio like value; absolute: in the metric's units */
		fputs(",\"limit\":", f);
		json_number(f, true, g->gate->relative ? 1 + g->gate->limit : g->gate->limit);
		if (g->why) {
			fputs(",\"why\":", f);
			json_write_string(f, g->why);
		}
		if (fd) {
			fprintf(f, ",\"finding\":{\"id\":\"%s\",\"text\":", finding_names[fd->id]);
			json_write_string(f, fd->text);
			fputc('}', f);
		}
		fputc('}', f);
	}
	fprintf(f, "],\"failed\":%zu,\"inconclusive\":%zu,\"result\":\"%s\"}\n", c->failed,
		c->inconclusive, compare_result(c));
}

void compare_print(FILE *f, const struct comparison *c, enum cmp_format fmt, size_t rows,
		   bool histograms)
{
	if (fmt == FMT_JSON)
		print_json(f, c);
	else if (fmt == FMT_HTML)
		compare_html_print(f, c, rows);
	else if (fmt == FMT_MAIL)
		compare_mail_print(f, &c, 1, rows);
	else
		print_readable(f, c, fmt == FMT_MD, rows, histograms);
	fflush(f);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML view of a comparison: one self-contained file (no scripts, no
 * external resources) for a CI artifact. Per row, the metrics table and
 * SVG histograms of hold, flush and irqs-off folded to powers of two,
 * BEFORE over AFTER, each bar the octave's share of its side. Every bar
 * carries its side, octave, count and share as data attributes, so what
 * it draws can be checked against the buckets (tests/cli).
 */
#include <stdlib.h>
#include <string.h>
#include "compare_view.h"
#include "escape.h"
#include "fmt.h"

#define BAR_W 26		/* px per octave */
#define PANEL_H 60		/* px of the tallest bar */
#define LEFT 70			/* px for the side labels */

static const char style[] =
	"body{font:14px sans-serif;margin:1.5em}table{border-collapse:collapse}"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
	"th:first-child,td:first-child{text-align:left}.HIGHER,.fail{color:#b00;font-weight:bold}"
	".inconclusive{color:#a60;font-weight:bold}.lower{color:#070}"
	"rect.before{fill:#4a7bb7}rect.after{fill:#d9822b}svg text{font:10px sans-serif}";

static void cell(FILE *f, const char *tag, const char *cls, const char *text)
{
	fprintf(f, "<%s%s%s%s>", tag, cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	html_write_text(f, text);
	fprintf(f, "</%s>", tag);
}

/* Rows one side lacks, named as the text names them (a cgroup renamed between runs: --pair). */
static void unpaired(FILE *f, const struct comparison *c)
{
	char text[1024];

	for (enum presence side = ONLY_BEFORE; side <= ONLY_AFTER; side++) {
		if (!cmp_unpaired_text(text, sizeof(text), c, side))
			continue;
		fputs("<p class=\"unpaired\">", f);
		html_write_text(f, text);
		fputc(' ', f);
		html_write_text(f, cmp_unpaired_hint);
		fputs("</p>\n", f);
	}
}

static void header(FILE *f, const struct comparison *c)
{
	const struct side *s[2] = { &c->before, &c->after };
	char v[64];

	fputs("<table><tr><th></th><th>BEFORE</th><th>AFTER</th></tr>", f);
	fputs("<tr><td>files</td>", f);
	for (int i = 0; i < 2; i++) {
		/* every run's file, one a line */
		fputs("<td>", f);
		for (size_t k = 0; side_file(s[i], k); k++) {
			fputs(k ? "<br>" : "", f);
			html_write_text(f, side_file(s[i], k));
		}
		fputs("</td>", f);
	}
	fputs("</tr><tr><td>kernel</td>", f);
	for (int i = 0; i < 2; i++)
		cell(f, "td", NULL, s[i]->r->kernel.release);
	fputs("</tr><tr><td>cpus</td>", f);
	for (int i = 0; i < 2; i++) {
		snprintf(v, sizeof(v), "%d online, %d possible", s[i]->r->kernel.cpus_online,
			 s[i]->r->kernel.cpus_possible);
		cell(f, "td", NULL, v);
	}
	fputs("</tr><tr><td>runs</td>", f);
	for (int i = 0; i < 2; i++) {
		char d[32];

		snprintf(v, sizeof(v), "%zu, %s", s[i]->nruns ? s[i]->nruns : 1,
			 fmt_duration(d, sizeof(d), s[i]->r->duration_ns));
		cell(f, "td", NULL, v);
	}
	fputs("</tr><tr><td>irqs-off</td>", f);
	for (int i = 0; i < 2; i++)
		cell(f, "td", NULL, cmp_source_text(s[i]));
	fputs("</tr></table>\n", f);
	for (size_t i = 0; cmp_note(c, i); i++) {
		fputs("<p class=\"note\">note: ", f);
		html_write_text(f, cmp_note(c, i));
		fputs("</p>\n", f);
	}
	unpaired(f, c);
}

static void metrics_table(FILE *f, const struct comparison *cmp, const struct cmp_row *row)
{
	char b[32], a[32], r[32];
	bool split = compare_shows_split(cmp, row, &(int){ 0 });

	fputs("<table><tr><th>metric</th><th>before</th><th>after</th><th>change</th>"
	      "<th>verdict</th></tr>\n", f);
	for (int i = 0; i < nmetrics; i++) {
		const struct cell *c = &row->cells[i];
		const char *verdict = cmp_verdict_text[c->verdict];

		/* the flush's mean and parts are the split's (split_table) */
		if (!compare_shows_metric(cmp, row, i) ||
		    (split && (metrics[i].kind == MK_PART || metrics[i].kind == MK_MEAN)))
			continue;
		fputs("<tr>", f);
		cell(f, "td", NULL, metrics[i].name);
		cell(f, "td", NULL, cmp_fmt_value(b, sizeof(b), &metrics[i], c->has_before, c->before));
		cell(f, "td", NULL, cmp_fmt_value(a, sizeof(a), &metrics[i], c->has_after, c->after));
		cell(f, "td", NULL, cmp_fmt_ratio(r, sizeof(r), c));
		cell(f, "td", verdict[0] ? verdict : NULL, verdict);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The flush split (compare_view.c's print_split): the wall time per flush and its parts. */
static void split_table(FILE *f, const struct comparison *c, const struct cmp_row *row)
{
	struct split_cells s;
	int wall;

	if (!compare_shows_split(c, row, &wall))
		return;
	fputs("<table class=\"split\"><tr><th>flush split</th><th>before</th><th>share</th>"
	      "<th>after</th><th>share</th><th>delta</th><th>of delta</th><th>verdict</th></tr>\n",
	      f);
	for (int i = wall; i >= 0; i = cmp_split_next(c, row, wall, i)) {
		cmp_split_cells(row, i, wall, &s);
		fprintf(f, "<tr data-metric=\"%s\">", s.name);
		cell(f, "td", NULL, s.name);
		cell(f, "td", NULL, s.before);
		cell(f, "td", NULL, s.share_before);
		cell(f, "td", NULL, s.after);
		cell(f, "td", NULL, s.share_after);
		cell(f, "td", NULL, s.delta);
		cell(f, "td", NULL, s.delta_share);
		cell(f, "td", s.verdict[0] ? s.verdict : NULL, s.verdict);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The column of octave o when the first is lo (octave 0 is followed by HIST_LOW_SHIFT). */
static int slot(int o, int lo)
{
	return lo == 0 && o > 0 ? o - HIST_LOW_SHIFT + 1 : o - lo;
}

/* One side's bars, in a panel whose baseline is at y = base. */
static void bars(FILE *f, const char *side, const struct octave_pair *p, int s, int base)
{
	for (int o = p->lo; o <= p->hi; o = octave_next(o)) {
		double h = p->peak > 0 ? p->share[s][o] / p->peak * PANEL_H : 0;

		fprintf(f, "<rect class=\"%s\" data-side=\"%s\" data-octave=\"%d\" data-count=\"%llu\" "
			"data-share=\"%.6f\" x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\"/>",
			side, side, o, (unsigned long long)p->count[s][o], p->share[s][o],
			LEFT + slot(o, p->lo) * BAR_W, base - h, BAR_W - 2, h);
	}
}

static void histogram(FILE *f, const char *label, const struct dist *b, const struct dist *a)
{
	struct octave_pair p;
	int width;

	if (!octave_pair(b, a, &p))
		return;
	width = LEFT + (slot(p.hi, p.lo) + 1) * BAR_W + 10;
	fprintf(f, "<figure><figcaption>%s, log2 octaves (ns); each bar its share of its side"
		"</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"data-metric=\"%s\">", label, width, 2 * PANEL_H + 60, label);
	fprintf(f, "<text x=\"0\" y=\"%d\">BEFORE</text><text x=\"0\" y=\"%d\">AFTER</text>",
		PANEL_H / 2, PANEL_H + 10 + PANEL_H / 2);
	bars(f, "before", &p, 0, PANEL_H);
	bars(f, "after", &p, 1, 2 * PANEL_H + 10);
	for (int o = p.lo; o <= p.hi; o = octave_next(o)) {
		int x = LEFT + slot(o, p.lo) * BAR_W;
		uint64_t from, to;
		char d[32];

		octave_bounds(o, &from, &to);
		fprintf(f, "<text x=\"%d\" y=\"%d\" transform=\"rotate(45 %d %d)\">%s</text>",
			x, 2 * PANEL_H + 22, x, 2 * PANEL_H + 22, fmt_duration(d, sizeof(d), from));
	}
	fputs("</svg></figure>\n", f);
}

static void row_section(FILE *f, const struct comparison *c, const struct cmp_row *row)
{
	const struct row *b = row->before, *a = row->after;

	fputs("<section class=\"row\" data-row=\"", f);
	html_write_text(f, row_label(row));
	fputs("\"><h2>", f);
	html_write_text(f, row_label(row));
	fprintf(f, "%s</h2>\n", row->presence == ONLY_BEFORE ? " (only in BEFORE)" :
		row->presence == ONLY_AFTER ? " (only in AFTER)" : "");
	metrics_table(f, c, row);
	split_table(f, c, row);
	histogram(f, "hold", b ? &b->dist[DIST_HOLD] : NULL, a ? &a->dist[DIST_HOLD] : NULL);
	histogram(f, "flush", b ? &b->dist[DIST_FLUSH] : NULL, a ? &a->dist[DIST_FLUSH] : NULL);
	histogram(f, "irqs-off", b ? row_irqoff(c->before.r, b) : NULL,
		  a ? row_irqoff(c->after.r, a) : NULL);
	fputs("</section>\n", f);
}

static void gates(FILE *f, const struct comparison *c, size_t limit)
{
	const struct gate_result **listed = calloc(c->nresults + 1, sizeof(*listed));
	size_t n = listed ? cmp_gates_listed(c, limit, listed, &(size_t){ 0 }) : 0;
	char line[1024];
	struct findings fs;

	findings_of(c->after.r, &fs);

	fprintf(f, "<h2>gates: %zu checks, %zu failed, %zu inconclusive; result: "
		"<span class=\"%s\">%s</span></h2>\n<ul>", c->nresults, c->failed, c->inconclusive,
		compare_result(c), compare_result(c));
	/* as the text lists them: what did not pass, then the passes nearest their limits */
	for (size_t i = 0; i < n; i++) {
		const struct finding *why = cmp_gate_finding(&fs, listed[i]);

		fprintf(f, "<li class=\"%s\">%s ", cmp_outcome_names[listed[i]->outcome],
			cmp_outcome_text[listed[i]->outcome]);
		html_write_text(f, cmp_gate_text(line, sizeof(line), listed[i], 0));
		if (why) {
			fputs("<br><span class=\"why\">why: ", f);
			html_write_text(f, why->text);
			fputs("</span>", f);
		}
		fputs("</li>", f);
	}
	if (n < c->nresults)
		fprintf(f, "<li>%zu more %s</li>", c->nresults - n,
			listed ? "passed; -n 0 shows all" : "(out of memory listing them)");
	fputs("</ul>\n", f);
	free(listed);
}

/* The rows asked for, up to `limit` (0: all), then how many were left out. */
static void row_sections(FILE *f, const struct comparison *c, const struct cmp_row *rows,
			 size_t n, size_t limit, const char *heading, const char *what)
{
	const struct cmp_row **listed = calloc(n + 1, sizeof(*listed));
	size_t shown, more;

	if (!listed) {
		fputs("<p>(out of memory listing the rows)</p>\n", f);
		return;
	}
	shown = cmp_rows_listed(c, rows, n, limit, listed, &more);
	if (shown && heading)
		fprintf(f, "<h2>%s</h2>\n", heading);
	for (size_t i = 0; i < shown; i++)
		row_section(f, c, listed[i]);
	if (more)
		fprintf(f, "<p>%zu more %s; -n 0 shows all</p>\n", more, what);
	free(listed);
}

void compare_html_print(FILE *f, const struct comparison *c, size_t rows)
{
	const char *title = c->title ? c->title : "rstatlat compare";

	fputs("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>", f);
	html_write_text(f, title);
	fprintf(f, "</title><style>%s</style></head><body>\n<h1>", style);
	html_write_text(f, title);
	fputs("</h1>\n", f);
	header(f, c);
	gates(f, c, rows);
	row_section(f, c, &c->total);
	if (c->has_cpu_lock)
		row_section(f, c, &c->cpu_lock);
	row_sections(f, c, c->rows, c->nrows, rows, NULL, "cgroups");
	row_sections(f, c, c->prows, c->nprows, rows,
		     "flushers (-p), paired by cgroup and comm; not gated", "flushers");
	fputs("</body></html>\n", f);
}

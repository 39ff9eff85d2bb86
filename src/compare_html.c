// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML view of a comparison: one self-contained file (no scripts, no
 * external resources) for a CI artifact. Per row, the metrics table and
 * SVG histograms of hold, flush and irqs-off folded to powers of two,
 * BEFORE over AFTER, each bar the octave's share of its side. Every bar
 * carries its side, octave, count and share as data attributes, so what
 * it draws can be checked against the buckets (tests/cli).
 */
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

static void header(FILE *f, const struct comparison *c)
{
	const struct side *s[2] = { &c->before, &c->after };
	char v[64];

	fputs("<table><tr><th></th><th>BEFORE</th><th>AFTER</th></tr>", f);
	fputs("<tr><td>file</td>", f);
	for (int i = 0; i < 2; i++)
		cell(f, "td", NULL, s[i]->file);
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
	if (compare_one_run_note(c)) {
		fputs("<p class=\"note\">note: ", f);
		html_write_text(f, compare_one_run_note(c));
		fputs("</p>\n", f);
	}
}

static void metrics_table(FILE *f, const struct cmp_row *row)
{
	char b[32], a[32], r[32];

	fputs("<table><tr><th>metric</th><th>before</th><th>after</th><th>change</th>"
	      "<th>verdict</th></tr>\n", f);
	for (int i = 0; i < nmetrics; i++) {
		const struct cell *c = &row->cells[i];
		const char *verdict = cmp_verdict_text[c->verdict];

		if (!metric_shown(row, i))
			continue;
		fputs("<tr>", f);
		cell(f, "td", NULL, metrics[i].label);
		cell(f, "td", NULL, cmp_fmt_value(b, sizeof(b), &metrics[i], c->has_before, c->before));
		cell(f, "td", NULL, cmp_fmt_value(a, sizeof(a), &metrics[i], c->has_after, c->after));
		cell(f, "td", NULL, cmp_fmt_ratio(r, sizeof(r), c));
		cell(f, "td", verdict[0] ? verdict : NULL, verdict);
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
	metrics_table(f, row);
	histogram(f, "hold", b ? &b->dist[DIST_HOLD] : NULL, a ? &a->dist[DIST_HOLD] : NULL);
	histogram(f, "flush", b ? &b->dist[DIST_FLUSH] : NULL, a ? &a->dist[DIST_FLUSH] : NULL);
	histogram(f, "irqs-off", b ? row_irqoff(c->before.r, b) : NULL,
		  a ? row_irqoff(c->after.r, a) : NULL);
	fputs("</section>\n", f);
}

static void gates(FILE *f, const struct comparison *c)
{
	fprintf(f, "<h2>gates: %zu checks, %zu failed, %zu inconclusive; result: "
		"<span class=\"%s\">%s</span></h2>\n<ul>", c->nresults, c->failed, c->inconclusive,
		compare_result(c), compare_result(c));
	for (size_t i = 0; i < c->nresults; i++) {
		const struct gate_result *g = &c->results[i];

		if (g->outcome != G_FAIL && g->outcome != G_INCONCLUSIVE)
			continue;
		fprintf(f, "<li class=\"%s\">%s ", cmp_outcome_names[g->outcome],
			g->outcome == G_FAIL ? "FAIL" : "INCONCLUSIVE");
		html_write_text(f, g->gate->text);
		fputs(" on ", f);
		html_write_text(f, row_label(g->row));
		if (g->why) {
			fputs(": ", f);
			html_write_text(f, g->why);
		}
		fputs("</li>", f);
	}
	fputs("</ul>\n", f);
}

void compare_html_print(FILE *f, const struct comparison *c, size_t rows)
{
	size_t n = rows && rows < c->nrows ? rows : c->nrows;

	fprintf(f, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>rstatlat compare"
		"</title><style>%s</style></head><body>\n<h1>rstatlat compare</h1>\n", style);
	header(f, c);
	gates(f, c);
	row_section(f, c, &c->total);
	if (c->has_cpu_lock)
		row_section(f, c, &c->cpu_lock);
	for (size_t i = 0; i < n; i++)
		row_section(f, c, &c->rows[i]);
	if (n < c->nrows)
		fprintf(f, "<p>%zu more cgroups; -n 0 shows all</p>\n", c->nrows - n);
	n = rows && rows < c->nprows ? rows : c->nprows;
	if (n)
		fputs("<h2>flushers (-p), paired by cgroup and comm; not gated</h2>\n", f);
	for (size_t i = 0; i < n; i++)
		row_section(f, c, &c->prows[i]);
	fputs("</body></html>\n", f);
}

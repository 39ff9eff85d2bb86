// SPDX-License-Identifier: GPL-2.0
/* Views of a comparison: text for terminals, Markdown, JSON (HTML: compare_html.c). */
#include <inttypes.h>
#include <math.h>
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
	char tmp[TEXT_MAX];
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

static void header_line(FILE *f, bool md, const char *name, const char *b, const char *a)
{
	if (md)
		fprintf(f, "| %s | %s | %s |\n", name, b, a);
	else
		fprintf(f, "%-10s  %-36s  %s\n", name, b, a);
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

	if (md)
		fputs("### rstatlat compare\n\n|  | BEFORE | AFTER |\n|---|---|---|\n", f);
	else
		header_line(f, md, "", "BEFORE", "AFTER");
	for (int i = 0; i < 2; i++)
		safe(v[i], TEXT_MAX, s[i]->file, md);
	header_line(f, md, "file", v[0], v[1]);
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
	print_gated(f, c, md);
	fprintf(f, "%stests: %s, alpha %g, %.3g per gate check; noise floor %g%%\n",
		md ? "\n" : "", compare_replicated(c) ? "between runs (Welch's t)" :
		"on the values", c->alpha, c->gate_alpha, c->noise * 100);
	if (compare_one_run_note(c))
		fprintf(f, "%snote: %s\n", md ? "\n" : "", compare_one_run_note(c));
	if (strcmp(c->before.irqoff_source, c->after.irqoff_source))
		fprintf(f, "%swarning: irqs-off comes from different sources on the two sides\n",
			md ? "\n" : "");
}

static void print_row(FILE *f, const struct cmp_row *row, bool md)
{
	char name[TEXT_MAX], b[32], a[32], r[32];

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
		const struct cell *c = &row->cells[i];
		const struct metric_def *m = &metrics[i];

		if (!metric_shown(row, i))
			continue;
		cmp_fmt_value(b, sizeof(b), m, c->has_before, c->before);
		cmp_fmt_value(a, sizeof(a), m, c->has_after, c->after);
		cmp_fmt_ratio(r, sizeof(r), c);
		if (md)
			fprintf(f, "| %s | %s | %s | %s | %s |\n", m->label, b, a, r,
				cmp_verdict_text[c->verdict]);
		else
			fprintf(f, "  %-20s %12s %12s %9s  %s\n", m->label, b, a, r,
				cmp_verdict_text[c->verdict]);
	}
}

static void print_result(FILE *f, const struct gate_result *g, bool md)
{
	const struct metric_def *m = &metrics[g->gate->metric];
	const struct cell *c = &g->row->cells[g->gate->metric];
	char name[TEXT_MAX], expr[TEXT_MAX], b[32], a[32];

	safe(name, sizeof(name), row_label(g->row), md);
	safe(expr, sizeof(expr), g->gate->text, md);
	cmp_fmt_value(b, sizeof(b), m, c->has_before, c->before);
	cmp_fmt_value(a, sizeof(a), m, c->has_after, c->after);
	fprintf(f, "%s%s %s on %s: %s -> %s", md ? "- " : "",
		g->outcome == G_FAIL ? "FAIL" : "INCONCLUSIVE", expr, name, b, a);
	if (g->why) {
		fprintf(f, ": %s\n", g->why);
		return;
	}
	if (g->gate->relative && !isinf(c->ratio))
		fprintf(f, " (%.2fx)", c->ratio);
	fputs(g->outcome == G_FAIL ? "\n" : ": crossed, but the data cannot confirm it\n", f);
}

static void print_gates(FILE *f, const struct comparison *c, bool md)
{
	if (!c->nresults) {
		fprintf(f, "\n%sno gates%s\n", md ? "**" : "", md ? "**" : "");
		return;
	}
	fprintf(f, "\n%sgates: %zu checks, %zu failed, %zu inconclusive%s\n",
		md ? "**" : "", c->nresults, c->failed, c->inconclusive, md ? "**\n" : "");
	for (size_t i = 0; i < c->nresults; i++) {
		const struct gate_result *g = &c->results[i];

		/* every check that did not pass is named: fail closed */
		if (g->outcome == G_FAIL || g->outcome == G_INCONCLUSIVE)
			print_result(f, g, md);
	}
	fprintf(f, "%sresult: %s%s\n", md ? "\n**" : "", compare_result(c), md ? "**" : "");
}

#define HIST_BAR 20

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
 * into a mail: each bar is the octave's share of its own side, so sides
 * with very different counts compare by shape.
 */
static void print_hist_pair(FILE *f, const char *label, const struct dist *b,
			    const struct dist *a)
{
	struct octave_pair p;

	if (!octave_pair(b, a, &p))
		return;
	fprintf(f, "  %-26s %10s %*s  %10s\n", label, "BEFORE", HIST_BAR + 2, "", "AFTER");
	for (int o = p.lo; o <= p.hi; o = octave_next(o)) {
		char bb[HIST_BAR + 1], ba[HIST_BAR + 1];
		uint64_t from, to;

		octave_bounds(o, &from, &to);
		hist_bar(bb, p.share[0][o], p.peak);
		hist_bar(ba, p.share[1][o], p.peak);
		fprintf(f, "  %11llu -> %-11llu %10llu |%s|  %10llu |%s|\n",
			(unsigned long long)from, (unsigned long long)to,
			(unsigned long long)p.count[0][o], bb, (unsigned long long)p.count[1][o], ba);
	}
}

static void print_row_hists(FILE *f, const struct comparison *c, const struct cmp_row *row)
{
	const struct row *b = row->before, *a = row->after;
	const struct report *rb = c->before.r, *ra = c->after.r;

	fputc('\n', f);
	print_hist_pair(f, "hold (ns)", b ? &b->dist[DIST_HOLD] : NULL, a ? &a->dist[DIST_HOLD] : NULL);
	print_hist_pair(f, "flush (ns)", b ? &b->dist[DIST_FLUSH] : NULL, a ? &a->dist[DIST_FLUSH] : NULL);
	print_hist_pair(f, "irqs-off (ns)", b ? row_irqoff(rb, b) : NULL, a ? row_irqoff(ra, a) : NULL);
}

/* A row, and its histograms when asked for (text only). */
static void print_row_with(FILE *f, const struct comparison *c, const struct cmp_row *row,
			   bool md, bool histograms)
{
	print_row(f, row, md);
	if (histograms && !md)
		print_row_hists(f, c, row);
}

/* Up to `limit` rows (0: all), then how many were left out and of what. */
static void print_rows(FILE *f, const struct comparison *c, const struct cmp_row *rows,
		       size_t n, size_t limit, const char *what, bool md, bool histograms)
{
	size_t shown = limit && limit < n ? limit : n;

	for (size_t i = 0; i < shown; i++)
		print_row_with(f, c, &rows[i], md, histograms);
	if (shown < n)
		fprintf(f, "\n(%zu more %s; -n 0 shows all)\n", n - shown, what);
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
	if (c->nprows) {
		fprintf(f, "\n%sflushers (-p), paired by cgroup and comm; not gated%s\n",
			md ? "### " : "", md ? "" : ":");
		print_rows(f, c, c->prows, c->nprows, rows, "flushers", md, histograms);
	}
	print_gates(f, c, md);
}

static void json_number(FILE *f, bool has, double v)
{
	if (has && isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
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

static void json_side(FILE *f, const char *key, const struct side *s)
{
	fprintf(f, "\"%s\":{\"file\":", key);
	json_write_string(f, s->file);
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

static void json_row(FILE *f, const struct cmp_row *row)
{
	fputc('{', f);
	json_cgroup(f, row);
	fputs(",\"metrics\":{", f);
	for (int i = 0; i < nmetrics; i++) {
		const struct cell *c = &row->cells[i];

		fprintf(f, "%s\"%s\":{\"before\":", i ? "," : "", metrics[i].name);
		json_number(f, c->has_before, c->before);
		fputs(",\"after\":", f);
		json_number(f, c->has_after, c->after);
		fputs(",\"ratio\":", f);
		json_number(f, c->has_before && c->has_after, c->ratio);
		fprintf(f, ",\"verdict\":\"%s\"}", verdict_names[c->verdict]);
	}
	fputs("}}", f);
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
	fputs("{\"schema\":\"rstatlat-compare/2\",", f);
	json_side(f, "before", &c->before);
	fputc(',', f);
	json_side(f, "after", &c->after);
	fputs(",\"gated\":", f);
	json_gated(f, c);
	fprintf(f, ",\"alpha\":%g,\"gate_alpha\":%g,\"noise\":%g,\"notes\":[", c->alpha,
		c->gate_alpha, c->noise);
	if (compare_one_run_note(c))
		json_write_string(f, compare_one_run_note(c));
	fputs("],\"total\":", f);
	json_row(f, &c->total);
	fputs(",\"cpu_lock\":", f);
	if (c->has_cpu_lock)
		json_row(f, &c->cpu_lock);
	else
		fputs("null", f);
	fputs(",\"cgroups\":[", f);
	for (size_t i = 0; i < c->nrows; i++) {
		if (i)
			fputc(',', f);
		json_row(f, &c->rows[i]);
	}
	fputs("],\"processes\":[", f);
	for (size_t i = 0; i < c->nprows; i++) {
		if (i)
			fputc(',', f);
		json_row(f, &c->prows[i]);
	}
	fputs("],\"gates\":[", f);
	for (size_t i = 0; i < c->nresults; i++) {
		const struct gate_result *g = &c->results[i];

		fputs(i ? ",{\"gate\":" : "{\"gate\":", f);
		json_write_string(f, g->gate->text);
		fputs(",\"cgroup\":", f);
		if (g->row->total)
			fputs("null", f);
		else
			json_write_string(f, row_label(g->row));
		fprintf(f, ",\"outcome\":\"%s\",\"value\":", cmp_outcome_names[g->outcome]);
		json_number(f, g->outcome != G_NA && !g->why, g->value);
		if (g->why) {
			fputs(",\"why\":", f);
			json_write_string(f, g->why);
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
	else
		print_readable(f, c, fmt == FMT_MD, rows, histograms);
	fflush(f);
}

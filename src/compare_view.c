// SPDX-License-Identifier: GPL-2.0
/*
 * Views of a comparison: text for terminals and Markdown; compare_print
 * hands JSON, HTML and mail to their files (compare_view.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compare_view.h"
#include "escape.h"
#include "fmt.h"

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

void compare_print(FILE *f, const struct comparison *c, enum cmp_format fmt, size_t rows,
		   bool histograms)
{
	if (fmt == FMT_JSON)
		compare_json_print(f, c);
	else if (fmt == FMT_HTML)
		compare_html_print(f, c, rows);
	else if (fmt == FMT_MAIL)
		compare_mail_print(f, &c, 1, rows);
	else
		print_readable(f, c, fmt == FMT_MD, rows, histograms);
	fflush(f);
}

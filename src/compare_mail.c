// SPDX-License-Identifier: GPL-2.0
/*
 * compare -f mail: comparisons of several pairs of files as plain text
 * within MAIL_COLUMNS columns, to paste into a reply on a list. Per row
 * (the total, -c's cgroup, --row's), the metrics asked for with each
 * pair's BEFORE, AFTER and change side by side, then the flush split:
 * each part's change of the wall time per flush and its share of it.
 * Every line goes through mail_line, which holds it to the width.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "compare_fmt.h"
#include "escape.h"
#include "fmt.h"

#define LINE_MAX_BYTES 1024
#define NAME_W 16		/* the metric column, at least: as wide as the longest name shown */
#define VALUE_W 8
#define RATIO_W 7
/* " before after change mark" per pair; as many pairs a line as fit */
#define PAIR_W (3 + VALUE_W + 1 + VALUE_W + 1 + RATIO_W + 2)

/* Without --metric: what a reply on the rstat lock quotes. */
static const char *const default_metrics[] = {
	"flush.holds", "hold.p50", "hold.p99", "irqoff.p99", "irqoff.max", "flush.p50",
	"flush.p99", "flush.mean",
};

/* Writes one line, terminal-escaped, cut to MAIL_COLUMNS with "..." where wider. */
__attribute__((format(printf, 2, 3)))
static void mail_line(FILE *f, const char *fmt, ...)
{
	char raw[LINE_MAX_BYTES], line[4 * LINE_MAX_BYTES];
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	term_escape(line, sizeof(line), raw);
	len = strlen(line);
	while (len && line[len - 1] == ' ')
		line[--len] = '\0';
	/* whole characters, counted in columns (a CJK one takes two) */
	if (text_columns(line) > MAIL_COLUMNS)
		memcpy(line + text_fit(line, MAIL_COLUMNS - 3), "...", 4);
	fprintf(f, "%s\n", line);
}

/* A file's name as fits width columns: whole, its base name, or "..." and its tail. */
static const char *file_name(char *buf, size_t len, const char *s, size_t width)
{
	const char *base = strrchr(s, '/');
	size_t n = strlen(s);

	if (n <= width)
		return s;
	if (base && strlen(base + 1) <= width)
		return base + 1;
	snprintf(buf, len, "...%s", s + n - (width - 3));
	return buf;
}

static void legend(FILE *f, const struct comparison *const *cs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct side *s[2] = { &cs[i]->before, &cs[i]->after };

		for (int k = 0; k < 2; k++) {
			char pair[24] = "", runs[32] = "", head[128], name[LINE_MAX_BYTES];
			size_t used;

			if (!k)
				snprintf(pair, sizeof(pair), "%zu:", i + 1);
			if (s[k]->nruns > 1)
				snprintf(runs, sizeof(runs), " +%zu runs", s[k]->nruns - 1);
			used = (size_t)snprintf(head, sizeof(head), "%-3s %-6s %.32s, %d CPUs possible: ",
						pair, k ? "AFTER" : "BEFORE", s[k]->r->kernel.release,
						s[k]->r->kernel.cpus_possible) + strlen(runs);
			mail_line(f, "%s%s%s", head, file_name(name, sizeof(name), s[k]->file,
				  used + 8 < MAIL_COLUMNS ? MAIL_COLUMNS - used : 8), runs);
		}
	}
	/* the notes are alike for every pair: several pairs are one run a side each */
	for (size_t k = 0; cmp_note(cs[0], k); k++)
		mail_line(f, "note: %s", cmp_note(cs[0], k));
}

/* The row of c labelled label (the total: NULL), or NULL when c has none. */
static const struct cmp_row *row_of(const struct comparison *c, const char *label)
{
	if (!label)
		return &c->total;
	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(row_label(&c->rows[i]), label))
			return &c->rows[i];
	return NULL;
}

/* --metric's, or without it the default list (the split shows every part) */
static bool metric_asked(const struct comparison *c, int i)
{
	if (c->shown.nmetrics || metrics[i].kind == MK_PART)
		return compare_metric_asked(c, i);
	for (size_t k = 0; k < sizeof(default_metrics) / sizeof(*default_metrics); k++)
		if (!strcmp(metrics[i].name, default_metrics[k]))
			return true;
	return false;
}

/* The verdict as one character: ^ higher, v lower, ~ noise, ? too few. */
static char mark(enum verdict v)
{
	switch (v) {
	case V_HIGHER: return '^';
	case V_LOWER: return 'v';
	case V_NOISE: return '~';
	case V_TOO_FEW: return '?';
	default: return ' ';
	}
}

/* One row's block of pairs from..to: each pair's comparison and its row (NULL: none). */
struct block {
	const struct comparison *const *cs;
	const struct cmp_row *const *rows;	/* by pair */
	size_t from, to;
	int name_w;		/* the metric column */
};

/* The metric column: NAME_W, or the longest name asked (workload.oom_kills.rate). */
static int name_width(const struct comparison *c)
{
	int w = NAME_W;

	for (int i = 0; i < nmetrics; i++)
		if (metric_asked(c, i) && (int)strlen(metrics[i].name) > w)
			w = (int)strlen(metrics[i].name);
	return w;
}

/*
 * A value in VALUE_W columns: a rate past them (2690029.7 locks a second)
 * without its tenth, then in 3 digits.
 */
static void mail_value(char *buf, size_t len, const struct metric_def *m, bool has, double v)
{
	cmp_fmt_value(buf, len, m, has, v);
	if (m->kind == MK_RATE && has && strlen(buf) > VALUE_W)
		snprintf(buf, len, "%.0f", v);
	if (m->kind == MK_RATE && has && strlen(buf) > VALUE_W)
		snprintf(buf, len, "%.3g", v);
}

/* One pair's columns at line + at: three values and a mark. Returns the new end. */
static size_t put_cells(char *line, size_t at, const char *a, const char *b, const char *c,
			char mark)
{
	if (at < LINE_MAX_BYTES)
		at += (size_t)snprintf(line + at, LINE_MAX_BYTES - at, "   %*s %*s %*s %c", VALUE_W,
				       a, VALUE_W, b, RATIO_W, c, mark);
	return at;
}

/* Whether a pair of the block has the row's flush split. */
static bool any_split(const struct block *bl)
{
	for (size_t p = bl->from; p < bl->to; p++) {
		int wall;

		if (bl->rows[p] && compare_shows_split(bl->cs[p], bl->rows[p], &wall))
			return true;
	}
	return false;
}

/* A block's heading, then a line per metric any of its pairs has. */
static void metric_block(FILE *f, const struct block *bl)
{
	char line[LINE_MAX_BYTES];
	size_t at;

	at = (size_t)snprintf(line, sizeof(line), "%-*s", bl->name_w, "");
	for (size_t p = bl->from; p < bl->to && at < sizeof(line); p++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "   %*s%-*zu", VALUE_W, "pair ",
				       VALUE_W + RATIO_W + 3, p + 1);
	mail_line(f, "%s", line);
	at = (size_t)snprintf(line, sizeof(line), "%-*s", bl->name_w, "metric");
	for (size_t p = bl->from; p < bl->to; p++)
		at = put_cells(line, at, "before", "after", "change", ' ');
	mail_line(f, "%s", line);
	for (int i = 0; i < nmetrics; i++) {
		bool any = false;

		/* the parts are the split's */
		if (!metric_asked(bl->cs[0], i) || metrics[i].kind == MK_PART)
			continue;
		at = (size_t)snprintf(line, sizeof(line), "%-*s", bl->name_w, metrics[i].name);
		for (size_t p = bl->from; p < bl->to; p++) {
			const struct cmp_row *row = bl->rows[p];
			const struct cell *c = row ? &row->cells[i] : NULL;
			char b[32] = "-", a[32] = "-", r[32] = "-";
			bool shown = c && compare_shows_metric(bl->cs[p], row, i);

			if (shown) {
				any = true;
				mail_value(b, sizeof(b), &metrics[i], c->has_before, c->before);
				mail_value(a, sizeof(a), &metrics[i], c->has_after, c->after);
				cmp_fmt_ratio(r, sizeof(r), c);
			}
			at = put_cells(line, at, b, a, r, shown ? mark(c->verdict) : ' ');
		}
		if (any)
			mail_line(f, "%s", line);
	}
}

/*
 * Each part's mean per flush in AFTER, its change, and its share of the
 * change of flush.mean (the metrics above): a pair without parts shows "-".
 */
static void split_block(FILE *f, const struct block *bl)
{
	char line[LINE_MAX_BYTES];
	size_t at;

	if (!any_split(bl))
		return;
	at = (size_t)snprintf(line, sizeof(line), "%-*s", bl->name_w, "flush split");
	for (size_t p = bl->from; p < bl->to; p++)
		at = put_cells(line, at, "after", "delta", "of it", ' ');
	mail_line(f, "%s", line);
	for (int i = 0; i < nmetrics; i++) {
		bool has = false;

		if (metrics[i].kind != MK_PART || !metric_asked(bl->cs[0], i))
			continue;
		at = (size_t)snprintf(line, sizeof(line), "%-*s", bl->name_w, metrics[i].name);
		for (size_t p = bl->from; p < bl->to; p++) {
			struct split_cells s = { .after = "-", .delta = "-", .delta_share = "-" };
			int wall;

			if (bl->rows[p] && compare_shows_split(bl->cs[p], bl->rows[p], &wall)) {
				cmp_split_cells(bl->rows[p], i, wall, &s);
				has = has || s.has;
			}
			at = put_cells(line, at, s.has ? s.after : "-", s.delta, s.delta_share,
				       s.has ? mark(s.v) : ' ');
		}
		if (has)
			mail_line(f, "%s", line);
	}
}

/*
 * The labels of the rows to show (NULL: the total), each once: a reply
 * quotes what it is about, so -c's and --row's rows, and the total only
 * without them or when --row names it ("total").
 */
static size_t row_labels(const struct comparison *const *cs, size_t n, size_t limit,
			 const char **out, size_t max, bool *more)
{
	const struct selection *s = &cs[0]->shown;
	bool chosen = cs[0]->gated_row || s->nrows;
	size_t k = 0;

	*more = false;
	for (size_t i = 0; i < s->nrows && chosen; i++)
		if (!fnmatch(s->rows[i], "total", 0))
			chosen = false;
	if (!chosen)
		out[k++] = NULL;
	for (size_t p = 0; p < n && (cs[p]->gated_row || s->nrows); p++)
		for (size_t i = 0; i < cs[p]->nrows; i++) {
			const struct cmp_row *row = &cs[p]->rows[i];
			bool seen = false;

			if (!compare_shows_row(cs[p], row))
				continue;
			for (size_t j = 0; j < k && !seen; j++)
				seen = out[j] && !strcmp(out[j], row_label(row));
			if (seen)
				continue;
			if (k == max || (limit && k == limit))
				*more = true;
			else
				out[k++] = row_label(row);
		}
	return k;
}

#define MAIL_ROWS_MAX 64

static void gates(FILE *f, const struct comparison *const *cs, size_t n, size_t limit)
{
	for (size_t p = 0; p < n; p++) {
		const struct comparison *c = cs[p];
		const struct gate_result **listed = calloc(c->nresults + 1, sizeof(*listed));
		char text[LINE_MAX_BYTES];
		size_t shown, more = 0;

		struct findings fs;

		mail_line(f, "pair %zu: %s; %zu checks, %zu failed, %zu inconclusive", p + 1,
			  compare_result(c), c->nresults, c->failed, c->inconclusive);
		shown = listed ? cmp_gates_listed(c, limit, listed, &more) : 0;
		findings_of(c->after.r, &fs);
		for (size_t i = 0; i < shown; i++) {
			const struct finding *why = cmp_gate_finding(&fs, listed[i]);

			mail_line(f, "  %s %s", cmp_outcome_text[listed[i]->outcome],
				  cmp_gate_text(text, sizeof(text), listed[i], 24));
			if (why)
				term_wrap(f, "    why: ", "         ", why->text, 80);
		}
		if (more)
			mail_line(f, "  (%zu more passed; -n 0 shows all)", more);
		free(listed);
	}
}

void compare_mail_print(FILE *f, const struct comparison *const *cs, size_t n, size_t rows)
{
	const char *labels[MAIL_ROWS_MAX];
	const struct cmp_row **found = calloc(n, sizeof(*found));
	bool more;
	size_t nlabels = row_labels(cs, n, rows, labels, MAIL_ROWS_MAX, &more);

	if (cs[0]->title)
		mail_line(f, "%s", cs[0]->title);
	legend(f, cs, n);
	for (size_t r = 0; r < nlabels && found; r++) {
		struct block bl = { .cs = cs, .rows = found, .name_w = name_width(cs[0]) };
		size_t per_line = (size_t)(MAIL_COLUMNS - bl.name_w) / PAIR_W;

		/* each pair's row looked up once, not once a metric */
		for (size_t p = 0; p < n; p++)
			found[p] = row_of(cs[p], labels[r]);
		per_line = per_line ? per_line : 1;
		for (bl.from = 0; bl.from < n; bl.from += per_line) {
			bl.to = bl.from + per_line < n ? bl.from + per_line : n;
			fputc('\n', f);
			mail_line(f, "%s", labels[r] ? labels[r] : "total");
			metric_block(f, &bl);
			split_block(f, &bl);
		}
	}
	if (!found)
		mail_line(f, "(out of memory: no rows)");
	free(found);
	/* how many more is not counted: pairs share rows, and finding which costs a pass each */
	if (more) {
		fputc('\n', f);
		mail_line(f, "(more rows: -n 0 shows all, up to %d)", MAIL_ROWS_MAX);
	}
	fputc('\n', f);
	mail_line(f, "^ v significantly higher, lower; ~ within the noise floor; ? too few");
	gates(f, cs, n, rows);
	fflush(f);
}

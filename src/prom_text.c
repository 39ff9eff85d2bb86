// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus text exposition format 0.0.4 (prom_sink.h): what
 * node_exporter's textfile collector reads and every scraper understands.
 */
#include <inttypes.h>
#include <string.h>
#include "prom_sink.h"
#include "escape.h"
#include "fmt.h"

struct text_sink {
	struct prom_sink s;
	const char *name;	/* the family being written */
};

static const char *type_names[] = {
	[PROM_COUNTER] = "counter", [PROM_GAUGE] = "gauge", [PROM_HISTOGRAM] = "histogram",
};

/* ns as seconds with 9 decimals at p ("1.000000250"); returns the end. */
static char *put_seconds_at(char *p, uint64_t ns)
{
	uint64_t frac = ns % 1000000000;

	p = fmt_put_uint(p, ns / 1000000000);
	*p++ = '.';
	for (uint64_t d = 100000000; d; d /= 10)
		*p++ = (char)('0' + frac / d % 10);
	return p;
}

static void put_seconds(FILE *f, uint64_t ns)
{
	char buf[32];
	size_t n = (size_t)(put_seconds_at(buf, ns) - buf);

	fwrite(buf, 1, n, f);
}

static void text_family(struct prom_sink *s, const char *name, enum prom_type type,
			const char *help)
{
	((struct text_sink *)s)->name = name;
	fprintf(s->f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type_names[type]);
}

static void put_label(FILE *f, const struct prom_label *l)
{
	fputs(l->name, f);
	fputs("=\"", f);
	prom_write_label(f, l->value);
	fputc('"', f);
}

/*
 * hierarchy="v2",cgroup="/a",... once per label set: the same text goes
 * in front of every family of a cgroup. "" without labels (or out of
 * memory: s->failed says so).
 */
static const char *labels_text(struct prom_sink *s, struct prom_labels *ls)
{
	size_t len;
	FILE *m;

	if (ls->text || !ls->n)
		return ls->n ? ls->text : "";
	m = open_memstream(&ls->text, &len);
	if (!m) {
		s->failed = true;
		return "";
	}
	for (int i = 0; i < ls->n; i++) {
		if (i)
			fputc(',', m);
		put_label(m, &ls->l[i]);
	}
	if (fclose(m)) {
		s->failed = true;
		ls->text = NULL;
		return "";
	}
	return ls->text;
}

/* name{labels,extra="..."} value: a line each counter of each label set, written whole. */
static void text_value(struct prom_sink *s, struct prom_labels *ls, const struct prom_label *extra,
		       uint64_t v, bool seconds)
{
	const char *lab = labels_text(s, ls);
	char tail[48], *t = tail;

	fputs(((struct text_sink *)s)->name, s->f);
	if (lab[0] || extra) {
		fputc('{', s->f);
		fputs(lab, s->f);
		if (extra) {
			if (lab[0])
				fputc(',', s->f);
			put_label(s->f, extra);
		}
		*t++ = '}';
	}
	*t++ = ' ';
	t = seconds ? put_seconds_at(t, v) : fmt_put_uint(t, v);
	*t++ = '\n';
	fwrite(tail, 1, (size_t)(t - tail), s->f);
	s->samples++;
}

/*
 * name_bucket{labels,le="..."} cumulative count, up to +Inf: the bulk of the
 * exposition (4 histograms x 22 lines x 101 label sets by default), so each
 * line is built behind one prefix and written once. fprintf, parsing its
 * format for every line, cost a third of a 10 000-row refresh's
 * instructions (docs/performance.md).
 */
static void put_buckets(struct prom_sink *s, const char *name, const char *labels,
			const struct phist *h)
{
	const struct prom_classic *c = s->classic;
	size_t name_len = strlen(name), labels_len = strlen(labels);
	size_t room = name_len + labels_len + 96;	/* _bucket{ , le=" +Inf or le "} digits */
	char small[512], *line = room <= sizeof(small) ? small : malloc(room), *prefix_end;
	uint64_t bin[PROM_MAX_BOUNDS + 1], cum = 0;

	if (!line) {
		s->failed = true;
		return;
	}
	prom_classic_bins(c, h, bin);
	prefix_end = stpcpy(mempcpy(line, name, name_len), "_bucket{");
	prefix_end = mempcpy(prefix_end, labels, labels_len);
	prefix_end = stpcpy(prefix_end, labels_len ? ",le=\"" : "le=\"");
	for (int i = 0; i <= c->nbounds; i++) {
		char *q = stpcpy(prefix_end, i < c->nbounds ? c->le[i] : "+Inf");

		cum = i < c->nbounds ? cum + bin[i] : h->count;
		q = fmt_put_uint(stpcpy(q, "\"} "), cum);
		*q++ = '\n';
		fwrite(line, 1, (size_t)(q - line), s->f);
	}
	s->samples += (size_t)c->nbounds + 1;
	if (line != small)
		free(line);
}

static void text_hist(struct prom_sink *s, struct prom_labels *ls, const struct phist *h,
		      enum phist_layout layout)
{
	const char *name = ((struct text_sink *)s)->name, *lab = labels_text(s, ls);

	(void)layout;	/* octaves' bounds are powers of two: each bin counts exactly */
	put_buckets(s, name, lab, h);
	fprintf(s->f, lab[0] ? "%s_sum{%s} " : "%s_sum%s ", name, lab);
	put_seconds(s->f, h->sum_ns);
	fprintf(s->f, lab[0] ? "\n%s_count{%s} %" PRIu64 "\n" : "\n%s_count%s %" PRIu64 "\n", name,
		lab, h->count);
	s->samples += 2;
}

static int text_finish(struct prom_sink *s)
{
	return s->failed || fflush(s->f) ? -1 : 0;
}

static void text_free(struct prom_sink *s)
{
	free(s);
}

static const struct prom_sink_ops text_ops = {
	.family = text_family, .value = text_value, .hist = text_hist,
	.finish = text_finish, .free = text_free,
};

struct prom_sink *prom_text_sink(const struct prom_classic *c, FILE *f)
{
	struct text_sink *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->s = (struct prom_sink){ .ops = &text_ops, .classic = c, .f = f };
	return &t->s;
}

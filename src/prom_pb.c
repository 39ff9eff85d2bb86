// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus protobuf format (prom_sink.h): length-delimited
 * io.prometheus.client.MetricFamily messages, encoded by protobuf-c from
 * the schema Debian ships with client_model. What Prometheus asks for
 * when native histograms are on (--enable-feature=native-histograms): a
 * histogram is then one series with exponential buckets instead of one
 * series per classic bucket.
 *
 * Native buckets: schema 4 (16 a power of two) for rstatlat's buckets,
 * 16 linear ones a power of two (hist.h), each counted in the native
 * bucket of its midpoint, so a quantile moves by at most about one native
 * bucket (4.4%); schema 0 for the flushers' octaves. Buckets are in
 * seconds, like the classic ones; the zero bucket is sub-ns (1e-9 s):
 * nothing rstatlat measures is that short (its first bucket, 0 to 16 ns,
 * counts at 8 ns).
 */
#include <math.h>
#include <string.h>
#include "prom_sink.h"
#include "escape.h"
#include "io/prometheus/client/metrics.pb-c.h"

typedef Io__Prometheus__Client__MetricFamily pb_family;
typedef Io__Prometheus__Client__Metric pb_metric;
typedef Io__Prometheus__Client__LabelPair pb_label;
typedef Io__Prometheus__Client__Histogram pb_hist;
typedef Io__Prometheus__Client__BucketSpan pb_span;
typedef Io__Prometheus__Client__Bucket pb_bucket;

#define ZERO_THRESHOLD_S	1e-9

/* What one family's messages are made of, freed when it is written. */
struct block {
	struct block *next;
	max_align_t data[];
};

struct pb_sink {
	struct prom_sink s;
	bool classic;		/* classic buckets beside the native ones */
	pb_family fam;		/* the family being built; name NULL before the first */
	size_t cap;		/* room in fam.metric */
	struct block *blocks;
};

/*
 * Each fine bucket's and each octave's native bucket (native_tables): the
 * same for every refresh, made by the first sink (the main thread's).
 */
static int16_t native_fine[HIST_BUCKETS], native_octave[HIST_OCTAVES];
static bool native_made;

static const Io__Prometheus__Client__MetricType pb_types[] = {
	[PROM_COUNTER] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER,
	[PROM_GAUGE] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE,
	[PROM_HISTOGRAM] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM,
};

int prom_native_index(int schema, double ns)
{
	return (int)ceil(log2(ns * 1e-9) * (double)(1 << schema));
}

/* Zeroed memory that lives until the family is written; NULL and failed set when out of it. */
static void *pb_alloc(struct pb_sink *p, size_t size)
{
	struct block *b = calloc(1, sizeof(*b) + size);

	if (!b) {
		p->s.failed = true;
		return NULL;
	}
	b->next = p->blocks;
	p->blocks = b;
	return b->data;
}

static void free_blocks(struct pb_sink *p)
{
	while (p->blocks) {
		struct block *b = p->blocks;

		p->blocks = b->next;
		free(b);
	}
}

static void put_varint(FILE *f, size_t v)
{
	do {
		fputc((int)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)), f);
		v >>= 7;
	} while (v);
}

/* The family built so far, its length first; then the next starts empty. */
static void write_family(struct pb_sink *p)
{
	size_t len;
	uint8_t *buf;

	if (!p->fam.name)
		return;
	len = io__prometheus__client__metric_family__get_packed_size(&p->fam);
	buf = malloc(len ? len : 1);
	if (!buf) {
		p->s.failed = true;
	} else {
		io__prometheus__client__metric_family__pack(&p->fam, buf);
		put_varint(p->s.f, len);
		fwrite(buf, 1, len, p->s.f);
		free(buf);
	}
	free(p->fam.metric);
	free_blocks(p);
	io__prometheus__client__metric_family__init(&p->fam);
	p->cap = 0;
}

static void pb_family_start(struct prom_sink *s, const char *name, enum prom_type type,
			    const char *help)
{
	struct pb_sink *p = (struct pb_sink *)s;

	write_family(p);
	p->fam.name = (char *)name;
	p->fam.help = (char *)help;
	p->fam.has_type = true;
	p->fam.type = pb_types[type];
}

/* A label value as the text format shows it once unescaped: terminal-safe, valid UTF-8. */
static char *label_value(struct pb_sink *p, const char *v)
{
	size_t room = 4 * strlen(v) + 1;
	char *out = pb_alloc(p, room);

	if (out)
		term_escape(out, room, v);
	return out;
}

/* A metric of the family with the labels of ls and extra, or NULL. */
static pb_metric *new_metric(struct pb_sink *p, const struct prom_labels *ls,
			     const struct prom_label *extra)
{
	size_t n = (size_t)ls->n + (extra != NULL);
	pb_metric *m = pb_alloc(p, sizeof(*m) + n * (sizeof(pb_label) + sizeof(pb_label *)));

	if (!m)
		return NULL;
	if (p->fam.n_metric == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		pb_metric **grown = realloc(p->fam.metric, cap * sizeof(*grown));

		if (!grown) {
			p->s.failed = true;
			return NULL;
		}
		p->fam.metric = grown;
		p->cap = cap;
	}
	io__prometheus__client__metric__init(m);
	m->n_label = n;
	m->label = (pb_label **)(m + 1);
	for (size_t i = 0; i < n; i++) {
		pb_label *l = (pb_label *)(m->label + n) + i;
		const struct prom_label *from = i < (size_t)ls->n ? &ls->l[i] : extra;

		io__prometheus__client__label_pair__init(l);
		l->name = (char *)from->name;
		l->value = label_value(p, from->value);
		if (!l->value)
			return NULL;
		m->label[i] = l;
	}
	p->fam.metric[p->fam.n_metric++] = m;
	return m;
}

static void pb_value(struct prom_sink *s, struct prom_labels *ls, const struct prom_label *extra,
		     uint64_t v, bool seconds)
{
	struct pb_sink *p = (struct pb_sink *)s;
	pb_metric *m = new_metric(p, ls, extra);
	double x = seconds ? (double)v / 1e9 : (double)v;

	if (!m)
		return;
	if (p->fam.type == IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER) {
		m->counter = pb_alloc(p, sizeof(*m->counter));
		if (!m->counter)
			return;
		io__prometheus__client__counter__init(m->counter);
		m->counter->has_value = true;
		m->counter->value = x;
	} else {
		m->gauge = pb_alloc(p, sizeof(*m->gauge));
		if (!m->gauge)
			return;
		io__prometheus__client__gauge__init(m->gauge);
		m->gauge->has_value = true;
		m->gauge->value = x;
	}
	s->samples++;
}

/*
 * The native buckets of h, in index order: spans of consecutive indexes,
 * each count as the delta from the bucket before. Fine buckets map to
 * native indexes that never go down, several to one at most where the
 * native ones are wider (below 2^4 of a bucket's width).
 */
static int native_buckets(struct pb_sink *p, pb_hist *ph, const struct phist *h,
			  enum phist_layout layout)
{
	int nsrc = layout == PHIST_OCTAVES ? HIST_OCTAVES : HIST_BUCKETS;
	const int16_t *index = layout == PHIST_OCTAVES ? native_octave : native_fine;
	pb_span *spans = pb_alloc(p, (size_t)nsrc * sizeof(*spans));
	pb_span **span_ptrs = pb_alloc(p, (size_t)nsrc * sizeof(*span_ptrs));
	int64_t *deltas = pb_alloc(p, (size_t)nsrc * sizeof(*deltas));
	int64_t prev_count = 0;
	int last = 0;
	size_t nd = 0, ns = 0;

	if (!spans || !span_ptrs || !deltas)
		return -1;
	for (int i = 0; i < nsrc; i++) {
		unsigned int b = layout == PHIST_OCTAVES ? hist_octave_bucket((unsigned int)i) :
			(unsigned int)i;
		uint64_t c = h->fine[b];
		int at = index[i];

		if (!c)
			continue;
		if (nd && at == last) {		/* one more fine bucket in the same native one */
			deltas[nd - 1] += (int64_t)c;
			prev_count += (int64_t)c;
			continue;
		}
		if (!nd || at != last + 1) {
			pb_span *sp = &spans[ns];

			io__prometheus__client__bucket_span__init(sp);
			sp->has_offset = sp->has_length = true;
			sp->offset = nd ? at - last - 1 : at;
			span_ptrs[ns++] = sp;
		}
		spans[ns - 1].length++;
		deltas[nd++] = (int64_t)c - prev_count;
		prev_count = (int64_t)c;
		last = at;
	}
	ph->has_schema = true;
	ph->schema = layout == PHIST_OCTAVES ? PROM_NATIVE_SCHEMA_OCTAVES : PROM_NATIVE_SCHEMA_FINE;
	ph->has_zero_threshold = ph->has_zero_count = true;
	ph->zero_threshold = ZERO_THRESHOLD_S;
	ph->n_positive_span = ns;
	ph->positive_span = span_ptrs;
	ph->n_positive_delta = nd;
	ph->positive_delta = deltas;
	return 0;
}

/* The classic buckets (--prom-buckets), cumulative; +Inf is the count. */
static int classic_buckets(struct pb_sink *p, pb_hist *ph, const struct phist *h)
{
	const struct prom_classic *c = p->s.classic;
	size_t n = (size_t)c->nbounds;
	pb_bucket *b = pb_alloc(p, n * sizeof(*b) + 1);
	pb_bucket **ptrs = pb_alloc(p, n * sizeof(*ptrs) + 1);
	uint64_t bin[PROM_MAX_BOUNDS + 1], cum = 0;

	if (!b || !ptrs)
		return -1;
	prom_classic_bins(c, h, bin);
	for (size_t i = 0; i < n; i++) {
		io__prometheus__client__bucket__init(&b[i]);
		cum += bin[i];
		b[i].has_cumulative_count = b[i].has_upper_bound = true;
		b[i].cumulative_count = cum;
		b[i].upper_bound = (double)c->bound_ns[i] / 1e9;
		ptrs[i] = &b[i];
	}
	ph->n_bucket = n;
	ph->bucket = ptrs;
	p->s.samples += n + 3;		/* as the text counts them: le="+Inf", _sum, _count */
	return 0;
}

static void pb_hist_put(struct prom_sink *s, struct prom_labels *ls, const struct phist *h,
			enum phist_layout layout)
{
	struct pb_sink *p = (struct pb_sink *)s;
	pb_metric *m = new_metric(p, ls, NULL);
	pb_hist *ph = m ? pb_alloc(p, sizeof(*ph)) : NULL;

	if (!ph)
		return;
	io__prometheus__client__histogram__init(ph);
	ph->has_sample_count = ph->has_sample_sum = true;
	ph->sample_count = h->count;
	ph->sample_sum = (double)h->sum_ns / 1e9;
	if (native_buckets(p, ph, h, layout) || (p->classic && classic_buckets(p, ph, h)))
		return;
	m->histogram = ph;
	s->samples++;
}

static int pb_finish(struct prom_sink *s)
{
	write_family((struct pb_sink *)s);
	return s->failed || fflush(s->f) ? -1 : 0;
}

static void pb_free(struct prom_sink *s)
{
	struct pb_sink *p = (struct pb_sink *)s;

	free(p->fam.metric);
	free_blocks(p);
	free(p);
}

static const struct prom_sink_ops pb_ops = {
	.family = pb_family_start, .value = pb_value, .hist = pb_hist_put,
	.finish = pb_finish, .free = pb_free,
};

/* Each fine bucket's and each octave's native bucket: that of its midpoint. */
static void native_tables(void)
{
	for (unsigned int b = 0; b < HIST_BUCKETS; b++)
		native_fine[b] = (int16_t)prom_native_index(PROM_NATIVE_SCHEMA_FINE,
			((double)hist_bucket_lower(b) + (double)hist_bucket_upper(b)) / 2);
	for (unsigned int k = 0; k < HIST_OCTAVES; k++)
		native_octave[k] = (int16_t)prom_native_index(PROM_NATIVE_SCHEMA_OCTAVES,
			k ? 1.5 * (double)(1ULL << (k + HIST_LOW_SHIFT - 1)) :
			    (double)(1ULL << HIST_LOW_SHIFT) / 2);
	native_made = true;
}

struct prom_sink *prom_pb_sink(const struct prom_classic *c, bool classic, FILE *f)
{
	struct pb_sink *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->s = (struct prom_sink){ .ops = &pb_ops, .classic = c, .f = f };
	p->classic = classic;
	io__prometheus__client__metric_family__init(&p->fam);
	if (!native_made)
		native_tables();
	return &p->s;
}

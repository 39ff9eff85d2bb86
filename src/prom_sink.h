/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the Prometheus view (prom.c: which families, which label sets,
 * what values) and its formats: the text exposition (prom_text.c) and the
 * protobuf one with native histograms (prom_pb.c). prom.c walks the
 * families once per format through a sink; a sink knows formats, not
 * reports.
 */
#ifndef RSTATLAT_PROM_SINK_H
#define RSTATLAT_PROM_SINK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prom.h"
#include "hist.h"

/*
 * A distribution as the exporter keeps it: rstatlat's buckets (hist.h),
 * from which a format makes its own (classic bounds, native buckets).
 * Flushers' histograms count octaves, each at its octave's first bucket
 * (hist_octave_bucket).
 */
struct phist {
	uint64_t fine[HIST_BUCKETS];
	uint64_t sum_ns, count;
};

enum phist_layout { PHIST_FINE, PHIST_OCTAVES };

/* The classic buckets (--prom-buckets): what each fine bucket folds into. */
struct prom_classic {
	int nbounds;
	uint64_t bound_ns[PROM_MAX_BOUNDS];
	uint8_t bin_of[HIST_BUCKETS];	/* bin i counts values < bound_ns[i]; nbounds: the rest */
	char le[PROM_MAX_BOUNDS][24];	/* the bounds in seconds, as written */
};

/* h folded into the classic bins: bin[i] counts values < bound_ns[i], bin[nbounds] the rest. */
static inline void prom_classic_bins(const struct prom_classic *c, const struct phist *h,
				     uint64_t bin[PROM_MAX_BOUNDS + 1])
{
	memset(bin, 0, (PROM_MAX_BOUNDS + 1) * sizeof(*bin));
	for (unsigned int b = 0; b < HIST_BUCKETS; b++)
		bin[c->bin_of[b]] += h->fine[b];
}

struct prom_label {
	const char *name, *value;	/* value raw: each format escapes it */
};

#define PROM_MAX_LABELS	4

/* The labels of a series; extra, one more, is added by the sample that needs it. */
struct prom_labels {
	struct prom_label l[PROM_MAX_LABELS];
	int n;
	char *text;		/* the text format's rendering, made once (prom_text.c) */
	char scratch[160];	/* room for a value made up from a path */
};

static inline void prom_labels_free(struct prom_labels *ls)
{
	free(ls->text);
	ls->text = NULL;
}

enum prom_type { PROM_COUNTER, PROM_GAUGE, PROM_HISTOGRAM };

struct prom_sink;

struct prom_sink_ops {
	void (*family)(struct prom_sink *s, const char *name, enum prom_type type,
		       const char *help);
	/* a counter or gauge: v, or v ns written as seconds */
	void (*value)(struct prom_sink *s, struct prom_labels *ls, const struct prom_label *extra,
		      uint64_t v, bool seconds);
	void (*hist)(struct prom_sink *s, struct prom_labels *ls, const struct phist *h,
		     enum phist_layout layout);
	/* the last family written; returns 0 or -1 (out of memory, a write failed) */
	int (*finish)(struct prom_sink *s);
	void (*free)(struct prom_sink *s);
};

struct prom_sink {
	const struct prom_sink_ops *ops;
	const struct prom_classic *classic;
	FILE *f;
	size_t samples;		/* series written so far: rstatlat_series */
	bool failed;		/* out of memory on the way: the output is not whole */
};

/* The text format 0.0.4 into f. */
struct prom_sink *prom_text_sink(const struct prom_classic *c, FILE *f);

/*
 * The protobuf format (delimited io.prometheus.client.MetricFamily) into
 * f: every histogram native, and with classic buckets too when asked.
 */
struct prom_sink *prom_pb_sink(const struct prom_classic *c, bool classic, FILE *f);

/* The native buckets (schema, index) a fine bucket or an octave is counted in. */
#define PROM_NATIVE_SCHEMA_FINE		4	/* 16 a power of two: hist.h's resolution */
#define PROM_NATIVE_SCHEMA_OCTAVES	0
int prom_native_index(int schema, double ns);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus view: a report of the whole run (collector_summary) as the
 * text exposition format 0.0.4, and as the protobuf format with native
 * histograms (prom_sink.h has the formats). Knows reports, not BPF, nor
 * how the text is served (serve.c).
 *
 * Cardinality is bounded: at most max_cgroups cgroups get series of their
 * own, the rest are summed under cgroup="(other)". Counters must never go
 * down, so which cgroups are named is state kept across refreshes: a
 * cgroup named when first seen counts from zero; one named later counts
 * from then on (what it had before stays in "(other)"); one that leaves
 * gives its counts back to "(other)". A series never goes down while it
 * is exported: where its rows lose figures (a removed cgroup's row folded
 * into the removed aggregate while its path came back as a new cgroup) it
 * is held where it was, and counted (rstatlat_series_held_total).
 * Flushers (report.flushers) are
 * named the same way, by comm, at most max_flushers, the rest under
 * comm="(other)".
 */
#ifndef RSTATLAT_PROM_H
#define RSTATLAT_PROM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "report.h"

#define PROM_MAX_BOUNDS	32
/*
 * The defaults keep a host within its series budget: at most 3 000
 * samples with 100 busy cgroups (docs/fleet.md, Series budget, has the
 * arithmetic; the unit test holds it).
 */
#define PROM_DEFAULT_BUCKETS	"256ns:64ms:4"
#define PROM_DEFAULT_MAX_CGROUPS 40
#define PROM_DEFAULT_MAX_FLUSHERS 20
#define PROM_SERIES_BUDGET	3000

struct prom_opts {
	uint64_t bound_ns[PROM_MAX_BOUNDS];	/* histogram bucket bounds, powers of two */
	int nbounds;
	size_t max_cgroups;		/* cgroups with series of their own */
	size_t max_flushers;		/* comms with flusher series of their own; 0: none */
	uint64_t idle_ns;		/* a named cgroup without locks this long leaves */
	bool classic_in_protobuf;	/* --prom-classic: classic buckets beside native ones */
	const char *version;
};

/* What the HTTP server counted, shown as rstatlat_http_requests_total. */
struct prom_http_counts {
	bool present;
	/* slow_closed: connections shut unanswered, their headers not whole in time */
	uint64_t ok, not_found, bad_method, slow_closed;
};

/*
 * "MIN:MAX[:FACTOR]", durations rounded to powers of two of ns, FACTOR a
 * power of two. Returns 0, or -1 with *why set.
 */
int prom_buckets_parse(const char *s, struct prom_opts *o, const char **why);

struct prom_state;

struct prom_state *prom_new(const struct prom_opts *o);
void prom_free(struct prom_state *p);

/*
 * Writes the exposition of summary (a REPORT_SUMMARY) to text, and when
 * protobuf is not NULL the same in the protobuf format (native histograms)
 * to protobuf, first updating which cgroups are named. now_mono_ns paces
 * --prom-idle; now_real_ns and start_real_ns are wall-clock times shown as
 * gauges. Returns 0, or -1 out of memory (nothing useful written).
 */
int prom_write(struct prom_state *p, const struct report *summary,
	       const struct prom_http_counts *http, uint64_t now_mono_ns,
	       uint64_t now_real_ns, FILE *text, FILE *protobuf);

/* Cgroups, and flushers, named after the last prom_write (for the unit tests). */
size_t prom_named(const struct prom_state *p);
size_t prom_named_flushers(const struct prom_state *p);
/* The last refresh's cgroup rows found by their place in the one before, without a lookup. */
size_t prom_rows_hinted(const struct prom_state *p);

#endif

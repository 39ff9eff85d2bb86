// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus view: bucket options, folded histograms, the bound on
 * cgroups with series of their own, counters that never go down while
 * cgroups come, go and change places, and escaped labels.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "rng.h"
#include "prom.h"
#include "prom_sink.h"
#include "io/prometheus/client/metrics.pb-c.h"

#define SEC 1000000000ULL

static struct prom_opts opts(size_t max_cgroups)
{
	struct prom_opts o = { .max_cgroups = max_cgroups, .idle_ns = 300 * SEC,
			       .version = "test" };
	const char *why;

	if (prom_buckets_parse("128ns:128ms:2", &o, &why))
		abort();
	return o;
}

/* A cgroup row: locked acquisitions, each held hold_ns. */
static void add_row(struct report *r, size_t *cap, const char *path, uint64_t cgid,
		    uint64_t locked, uint64_t hold_ns)
{
	struct row *row = report_add_row(&r->cgroups, &r->ncgroups, cap);

	row->cgid = cgid;
	row->hierarchy = path[0] == '/' ? 0 : 3;
	row->path = strdup(path);
	row->count[COUNT_LOCKED] = locked;
	for (uint64_t i = 0; i < locked; i++)
		dist_add_value(&row->dist[DIST_HOLD], hold_ns);
}

/* The exposition of r, freshly malloced. */
static char *expose(struct prom_state *p, const struct report *r, uint64_t now_s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CHECK(prom_write(p, r, NULL, now_s * SEC, now_s * SEC, f, NULL) == 0, "prom_write failed");
	fclose(f);
	return text;
}

/* The value of the series written exactly as series ("name{labels}"), or -1. */
static double value_of(const char *text, const char *series)
{
	size_t n = strlen(series);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, series, n) && l[n] == ' ')
			return strtod(l + n + 1, NULL);
	return -1;
}

static double locks_of(const char *text, const char *cgroup)
{
	char series[256];

	snprintf(series, sizeof(series),
		 "rstatlat_locks_total{hierarchy=\"v2\",cgroup=\"%s\"}", cgroup);
	return value_of(text, series);
}

static double other_locks(const char *text)
{
	return value_of(text, "rstatlat_locks_total{hierarchy=\"(other)\",cgroup=\"(other)\"}");
}

/* A flusher row: flushes of holds holds each, each hold hold_ns, each flush flush_ns. */
static void add_flusher(struct report *r, size_t *cap, const char *comm, uint64_t flushes,
			uint64_t holds, uint64_t hold_ns, uint64_t flush_ns)
{
	struct row *row = report_add_row(&r->flushers, &r->nflushers, cap);

	r->flushers_counted = true;
	snprintf(row->comm, sizeof(row->comm), "%s", comm);
	row->count[COUNT_LOCKED] = row->count[COUNT_FLUSH_HOLDS] = flushes * holds;
	dist_add(&row->dist[DIST_HOLD], hist_octave_bucket(hist_octave(hold_ns)), flushes * holds);
	row->dist[DIST_HOLD].sum = flushes * holds * hold_ns;
	dist_add(&row->dist[DIST_FLUSH], hist_octave_bucket(hist_octave(flush_ns)), flushes);
	row->dist[DIST_FLUSH].sum = flushes * flush_ns;
}

static double flusher_value(const char *text, const char *what, const char *comm)
{
	char series[256];

	snprintf(series, sizeof(series), "rstatlat_flusher_%s{comm=\"%s\"}", what, comm);
	return value_of(text, series);
}

static void test_buckets_parse(void)
{
	struct prom_opts o;
	const char *why;

	CHECK(!prom_buckets_parse("1us:1ms", &o, &why), "%s", why);
	/* 1us -> 1024 ns, 1ms -> 2^20 ns: the nearest powers of two */
	CHECK(o.nbounds == 11 && o.bound_ns[0] == 1024 && o.bound_ns[10] == 1ULL << 20,
	      "%d bounds, %" PRIu64 "..%" PRIu64, o.nbounds, o.bound_ns[0], o.bound_ns[o.nbounds - 1]);
	CHECK(!prom_buckets_parse("256ns:64ms:4", &o, &why), "%s", why);
	CHECK(o.nbounds == 10 && o.bound_ns[1] == 1024, "factor 4: %d bounds", o.nbounds);
	CHECK(prom_buckets_parse("1ms:1us", &o, &why), "reversed accepted");
	CHECK(prom_buckets_parse("1us:1ms:3", &o, &why), "factor 3 accepted");
	CHECK(prom_buckets_parse("1ns:1ms", &o, &why), "below 16 ns accepted");
	CHECK(prom_buckets_parse("1us", &o, &why), "no MAX accepted");
	CHECK(prom_buckets_parse("16ns:32s:1", &o, &why), "factor 1 accepted");
	CHECK(prom_buckets_parse("x:1ms", &o, &why), "garbage accepted");
	/* the last fine bucket is open-ended above 2^32 ns: no bound may cut it */
	CHECK(!prom_buckets_parse("1ms:2s", &o, &why) && o.bound_ns[o.nbounds - 1] == 1ULL << 31,
	      "2 s (2^31 ns) is the highest bound: %s", why);
	CHECK(prom_buckets_parse("1ms:4s", &o, &why), "4 s (2^32 ns) accepted");
}

/* Cumulative buckets end at +Inf = _count; _sum in seconds. */
static void test_histogram_folds(void)
{
	struct prom_opts o = opts(10);
	struct prom_state *p = prom_new(&o);
	struct report r = { .type = REPORT_SUMMARY };
	size_t cap = 0;
	char *text;

	add_row(&r, &cap, "/a", 1, 3, 300);	/* 300 ns: in (256, 512] */
	dist_add_value(&r.cgroups[0].dist[DIST_HOLD], 5000000000ULL);	/* beyond 128 ms */
	text = expose(p, &r, 1);
	CHECK(value_of(text, "rstatlat_lock_hold_seconds_bucket{hierarchy=\"v2\",cgroup=\"/a\","
			     "le=\"2.56e-07\"}") == 0, "below 256 ns");
	CHECK(value_of(text, "rstatlat_lock_hold_seconds_bucket{hierarchy=\"v2\",cgroup=\"/a\","
			     "le=\"5.12e-07\"}") == 3, "up to 512 ns");
	CHECK(value_of(text, "rstatlat_lock_hold_seconds_bucket{hierarchy=\"v2\",cgroup=\"/a\","
			     "le=\"0.134217728\"}") == 3, "up to 128 ms");
	CHECK(value_of(text, "rstatlat_lock_hold_seconds_bucket{hierarchy=\"v2\",cgroup=\"/a\","
			     "le=\"+Inf\"}") == 4, "+Inf");
	CHECK(value_of(text, "rstatlat_lock_hold_seconds_count{hierarchy=\"v2\",cgroup=\"/a\"}") == 4,
	      "count");
	CHECK(strstr(text, "rstatlat_lock_hold_seconds_sum{hierarchy=\"v2\",cgroup=\"/a\"} "
			   "5.000000900\n"), "sum: %s", text);
	CHECK(!strstr(text, "rstatlat_lock_wait_seconds_bucket"), "an empty histogram shown");
	CHECK(!strstr(text, "rstatlat_irqoff_seconds"), "irqoff without a source");
	free(text);
	report_free(&r);
	prom_free(p);
}

/*
 * Rows of one cgroup under two locks (report.lock_rows) are two label sets
 * with a lock label each, escaped as any label; rows without a lock have
 * none.
 */
static void test_lock_label(void)
{
	struct prom_opts o = opts(10);
	struct prom_state *p = prom_new(&o);
	struct report r = { .type = REPORT_SUMMARY, .lock_rows = true };
	size_t cap = 0;
	char *text;

	add_row(&r, &cap, "/a", 1, 3, 300);
	add_row(&r, &cap, "/a", 1, 5, 300);
	add_row(&r, &cap, "/b", 2, 7, 300);
	strcpy(r.cgroups[0].lock, "base");
	strcpy(r.cgroups[1].lock, "mem\"ory");
	strcpy(r.cgroups[2].lock, "io");
	strcpy(r.cgroups[2].lock_type, "read");
	text = expose(p, &r, 1);
	CHECK(value_of(text, "rstatlat_locks_total{hierarchy=\"v2\",cgroup=\"/a\",lock=\"base\"}") ==
	      3, "base lock row: %s", text);
	CHECK(value_of(text, "rstatlat_locks_total{hierarchy=\"v2\",cgroup=\"/a\","
			     "lock=\"mem\\\"ory\"}") == 5, "second lock row, escaped");
	CHECK(value_of(text, "rstatlat_lock_hold_seconds_count{hierarchy=\"v2\",cgroup=\"/b\","
			     "lock=\"io\",lock_type=\"read\"}") == 7,
	      "histograms carry the lock and its type");
	CHECK(locks_of(text, "/a") == -1, "a row without its lock label");
	free(text);
	report_free(&r);
	prom_free(p);
}

/* v1 rows: hierarchy from the display path; hostile names escaped. */
static void test_labels(void)
{
	struct prom_opts o = opts(10);
	struct prom_state *p = prom_new(&o);
	struct report r = { .type = REPORT_SUMMARY };
	size_t cap = 0;
	char *text;

	char long_path[3001], *series;

	memset(long_path, 'x', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = '\0';
	add_row(&r, &cap, "memory:/x/y", 1, 1, 100);
	add_row(&r, &cap, "/q\"b\\s\x1b[31m\n\xff", 2, 1, 100);
	add_row(&r, &cap, long_path, 3, 2, 300);	/* bucket lines longer than the stack's */
	r.kernel = (struct kernel_info){ .release = "6.18\"evil" };
	text = expose(p, &r, 1);
	for (int i = 0; i < 2; i++) {
		CHECK(asprintf(&series, "rstatlat_lock_hold_seconds_bucket{hierarchy=\"v2\","
			       "cgroup=\"%s\",le=\"%s\"}", long_path, i ? "+Inf" : "5.12e-07") > 0,
		      "series");
		CHECK(value_of(text, series) == 2, "a 3000-byte path's bucket line %d", i);
		free(series);
	}
	CHECK(locks_of(text, "/q\\\"b\\\\\\\\s\\\\x1b[31m\\\\x0a\\\\xff") == 1,
	      "hostile name: %s", text);
	CHECK(value_of(text, "rstatlat_locks_total{hierarchy=\"memory\",cgroup=\"/x/y\"}") == 1,
	      "v1 row");
	CHECK(strstr(text, "kernel=\"6.18\\\"evil\""), "kernel label escaped");
	const char *c = text;

	while (*c && ((unsigned char)*c >= 0x20 || *c == '\n'))
		c++;
	CHECK(!*c, "raw control byte 0x%02x", (unsigned char)*c);
	free(text);
	report_free(&r);
	prom_free(p);
}

/* The busiest get names; the rest, and nothing else, sum under (other). */
static void test_cardinality_bound(void)
{
	struct prom_opts o = opts(3);
	struct prom_state *p = prom_new(&o);
	struct report r = { .type = REPORT_SUMMARY };
	size_t cap = 0;
	char path[16], *text;

	for (int i = 1; i <= 6; i++) {
		snprintf(path, sizeof(path), "/c%d", i);
		add_row(&r, &cap, path, (uint64_t)i, (uint64_t)i * 10, 100);
	}
	text = expose(p, &r, 1);
	CHECK(prom_named(p) == 3, "%zu named", prom_named(p));
	CHECK(locks_of(text, "/c6") == 60 && locks_of(text, "/c5") == 50 &&
	      locks_of(text, "/c4") == 40 && locks_of(text, "/c3") == -1, "the busiest named");
	CHECK(other_locks(text) == 60, "(other) = 10 + 20 + 30, got %g", other_locks(text));
	free(text);
	report_free(&r);
	prom_free(p);
}

/*
 * Among many more than the names, in any order, the busiest still win:
 * with few names free (one pass) and with many (a sort).
 */
static void test_busiest_of_many(int names)
{
	struct prom_opts o = opts((size_t)names);
	struct prom_state *p = prom_new(&o);
	struct report r = { .type = REPORT_SUMMARY };
	size_t cap = 0;
	char path[16], *text;
	int named = 0;

	for (int i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "/m%d", (i * 7919) % 300);
		add_row(&r, &cap, path, (uint64_t)i + 1, (uint64_t)(i * 7919) % 300 + 1, 100);
	}
	text = expose(p, &r, 1);
	for (int v = 300 - names; v < 300; v++) {
		snprintf(path, sizeof(path), "/m%d", v);
		named += locks_of(text, path) == v + 1;
	}
	CHECK(named == names && prom_named(p) == (size_t)names, "%d of the %d busiest named",
	      named, names);
	free(text);
	report_free(&r);
	prom_free(p);
}

/*
 * Counters never go down: a cgroup taking over from a named one counts
 * from then on, one leaving gives back to (other), a re-created path (two
 * rows, one label set) sums.
 */
/*
 * The machine-wide irqs-off histogram when irqs-off are the holds
 * (IRQOFF_ROWS_LOCK): each of its lines the sum of the hold lines of every
 * label set with the same le (or _sum, _count). Returns its _count, or -1
 * at a mismatch or with no such histogram.
 */
static double irqoff_is_holds(const char *text)
{
	static const char irq[] = "rstatlat_irqoff_seconds";
	static const char hold[] = "rstatlat_lock_hold_seconds";
	const char *l = strstr(text, "\nrstatlat_irqoff_seconds");

	if (!l)
		return -1;
	for (l++; !strncmp(l, irq, sizeof(irq) - 1); l = strchr(l, '\n') + 1) {
		const char *suffix = l + sizeof(irq) - 1, *sp = strchr(l, ' ');
		const char *le = strstr(suffix, "le=\"");
		size_t slen = strcspn(suffix, "{ "), lelen = le ? strcspn(le + 4, "\"") + 5 : 0;
		double want = 0;

		/* every hold line of that suffix (_bucket, _sum, _count) and le */
		for (const char *h = strstr(text, hold); h; h = strstr(h + 1, hold)) {
			const char *hs = h + sizeof(hold) - 1, *hsp = strchr(h, ' ');

			if (h[-1] != '\n' || strncmp(hs, suffix, slen) || (hs[slen] != '{' &&
									   hs[slen] != ' '))
				continue;
			if (le && (hsp - hs < (long)lelen ||
				   strncmp(hsp - lelen - 1, le, lelen)))	/* ,le="X"} */
				continue;
			want += strtod(hsp + 1, NULL);
		}
		/* sums in seconds of 9 decimals: added as doubles, not exactly */
		if (fabs(strtod(sp + 1, NULL) - want) > 1e-12)
			return -1;
		if (!strncmp(suffix, "_count ", 7))
			return want;
	}
	return -1;
}

static void test_counters_monotonic(enum irqoff_rows irqoff)
{
	struct prom_opts o = opts(2);
	struct prom_state *p = prom_new(&o);
	struct report r1 = { .type = REPORT_SUMMARY, .irqoff_rows = irqoff }, r2 = r1, r3 = r1;
	size_t c1 = 0, c2 = 0, c3 = 0;
	char *t1, *t2, *t3;

	add_row(&r1, &c1, "/a", 1, 100, 100);
	add_row(&r1, &c1, "/b", 2, 50, 100);
	add_row(&r1, &c1, "/c", 3, 10, 100);
	t1 = expose(p, &r1, 1);
	/* c now takes far more than b: it replaces it, counting from now */
	add_row(&r2, &c2, "/a", 1, 200, 100);
	add_row(&r2, &c2, "/b", 2, 51, 100);
	add_row(&r2, &c2, "/c", 3, 1000, 100);
	t2 = expose(p, &r2, 2);
	CHECK(locks_of(t2, "/c") == 0 && locks_of(t2, "/b") == -1 && locks_of(t2, "/a") == 200,
	      "c replaces b: a %g b %g c %g", locks_of(t2, "/a"), locks_of(t2, "/b"),
	      locks_of(t2, "/c"));
	CHECK(other_locks(t2) == 51 + 1000 && other_locks(t2) >= other_locks(t1),
	      "(other) %g then %g", other_locks(t1), other_locks(t2));
	/* /a re-created: its old row and a new one with the same path */
	add_row(&r3, &c3, "/a", 1, 200, 100);
	add_row(&r3, &c3, "/a", 9, 5, 100);
	add_row(&r3, &c3, "/b", 2, 51, 100);
	add_row(&r3, &c3, "/c", 3, 1100, 100);
	t3 = expose(p, &r3, 3);
	CHECK(locks_of(t3, "/a") == 205, "re-created path sums: %g", locks_of(t3, "/a"));
	CHECK(locks_of(t3, "/c") == 100, "c counts from its naming: %g", locks_of(t3, "/c"));
	CHECK(other_locks(t3) == other_locks(t2), "(other) moved: %g", other_locks(t3));
	if (irqoff == IRQOFF_ROWS_LOCK)
		CHECK(irqoff_is_holds(t1) == 160 && irqoff_is_holds(t2) == 1251 &&
		      irqoff_is_holds(t3) == 1356, "irqs-off, machine-wide, all the holds: %g, %g, %g",
		      irqoff_is_holds(t1), irqoff_is_holds(t2), irqoff_is_holds(t3));
	else
		CHECK(!strstr(t1, "rstatlat_irqoff_seconds"), "irqs-off without a source");
	free(t1);
	free(t2);
	free(t3);
	report_free(&r1);
	report_free(&r2);
	report_free(&r3);
	prom_free(p);
}

/*
 * Irqs-off that are the holds (IRQOFF_ROWS_LOCK): one machine-wide
 * histogram, the sum of every label set's holds, whole as cgroups change
 * places and one is named later (counting from then), and never per cgroup.
 */
static void test_irqoff_of_holds(void)
{
	struct prom_opts o = opts(1);
	struct prom_state *p = prom_new(&o);
	struct report r[3] = { { .type = REPORT_SUMMARY, .irqoff_rows = IRQOFF_ROWS_LOCK } };
	size_t cap[3] = { 0 };
	char *t[3];
	double n[3];

	r[2] = r[1] = r[0];
	add_row(&r[0], &cap[0], "/a", 1, 100, 300);
	add_row(&r[0], &cap[0], "/b", 2, 10, 70000);
	add_row(&r[1], &cap[1], "/a", 1, 101, 300);
	add_row(&r[1], &cap[1], "/b", 2, 1000, 70000);	/* replaces /a, counting from now */
	add_row(&r[2], &cap[2], "/a", 1, 102, 300);
	add_row(&r[2], &cap[2], "/b", 2, 1500, 70000);
	dist_add_value(&r[2].cgroups[1].dist[DIST_HOLD], 9000000);
	for (int i = 0; i < 3; i++) {
		t[i] = expose(p, &r[i], 1 + (uint64_t)i);
		n[i] = irqoff_is_holds(t[i]);
	}
	CHECK(n[0] == 110 && n[1] == 1101 && n[2] == 1603, "irqs-off, all the holds: %g, %g, %g",
	      n[0], n[1], n[2]);
	CHECK(!strstr(t[2], "rstatlat_irqoff_seconds_count{"), "irqs-off per cgroup");
	for (int i = 0; i < 3; i++) {
		free(t[i]);
		report_free(&r[i]);
	}
	prom_free(p);
}

/*
 * A cgroup without locks for --prom-idle leaves; its counts go to (other).
 * Woken, it is named again with its new locks, and (other) keeps the old.
 */
static void test_idle_cgroups_leave(enum irqoff_rows irqoff)
{
	struct prom_opts o = opts(5);
	struct prom_state *p = prom_new(&o);
	struct report r = { .type = REPORT_SUMMARY, .irqoff_rows = irqoff };
	size_t cap = 0;
	char *t1, *t2, *t3, *t4;

	add_row(&r, &cap, "/gone", 1, 7, 100);
	t1 = expose(p, &r, 1);
	t2 = expose(p, &r, 200);
	t3 = expose(p, &r, 302);
	CHECK(locks_of(t1, "/gone") == 7 && locks_of(t2, "/gone") == 7, "named while fresh");
	CHECK(locks_of(t3, "/gone") == -1 && other_locks(t3) == 7,
	      "idle: %g in (other), series %g", other_locks(t3), locks_of(t3, "/gone"));
	CHECK(prom_named(p) == 0, "still named: %zu", prom_named(p));
	r.cgroups[0].count[COUNT_LOCKED] += 60;
	for (int i = 0; i < 60; i++)
		dist_add_value(&r.cgroups[0].dist[DIST_HOLD], 5000);
	t4 = expose(p, &r, 303);
	CHECK(locks_of(t4, "/gone") == 60 && other_locks(t4) == 7,
	      "woken: series %g, (other) %g", locks_of(t4, "/gone"), other_locks(t4));
	if (irqoff == IRQOFF_ROWS_LOCK)
		CHECK(irqoff_is_holds(t3) == 7 && irqoff_is_holds(t4) == 67,
		      "parked and woken: irqs-off all the holds (%g, %g)", irqoff_is_holds(t3),
		      irqoff_is_holds(t4));
	free(t1);
	free(t2);
	free(t3);
	free(t4);
	report_free(&r);
	prom_free(p);
}

/* Family order and the last line: what a reader of a textfile checks. */
static void test_families_whole(void)
{
	struct prom_opts o = opts(5);
	struct prom_state *p = prom_new(&o);
	struct report r = { .type = REPORT_SUMMARY };
	size_t cap = 0, len;
	char *text;

	add_row(&r, &cap, "/a", 1, 2, 100);
	add_row(&r, &cap, "/b", 2, 2, 100);
	r.self.present = true;
	text = expose(p, &r, 1);
	len = strlen(text);
	CHECK(len > 2 && text[len - 1] == '\n', "ends with a newline");
	CHECK(strstr(text, "\nrstatlat_info{version=\"test\",") &&
	      !strchr(strstr(text, "\nrstatlat_info{") + 1, '\n')[1], "rstatlat_info last");
	/* one HELP per family, whatever the rows: grouped, as the format requires */
	CHECK(strstr(text, "# TYPE rstatlat_locks_total counter") ==
	      strstr(text, "# TYPE rstatlat_locks_total"), "TYPE");
	CHECK(!strstr(strstr(text, "# HELP rstatlat_locks_total") + 1, "# HELP rstatlat_locks_total "),
	      "a family twice");
	CHECK(value_of(text, "rstatlat_lost_total{reason=\"entries_full\"}") == 0, "lost shown at 0");
	/* nothing stands out: no finding series */
	CHECK(!strstr(text, "rstatlat_finding"), "a finding family with nothing firing");
	free(text);
	/* a loss: its finding fires, one series named by id, a gauge at 1 */
	r.lost[LOST_ENTRIES_FULL] = 3;
	text = expose(p, &r, 2);
	CHECK(strstr(text, "# TYPE rstatlat_finding gauge\n") &&
	      value_of(text, "rstatlat_finding{id=\"rstatlat_itself\",severity=\"warning\"}") == 1,
	      "finding series: %s", strstr(text, "rstatlat_finding") ? strstr(text, "rstatlat_finding")
								  : "none");
	free(text);
	report_free(&r);
	prom_free(p);
}

/*
 * Flush parts and memcg decisions per cgroup (seconds, counts) with their
 * own label, named and "(other)"; sampled causes machine-wide, escaped.
 */
static void test_flush_families(void)
{
	struct prom_opts o = opts(1);
	struct prom_state *p = prom_new(&o);
	struct report r = { .type = REPORT_SUMMARY, .flush_parts = true, .memcg_decisions = true,
			    .parts_from = PARTS_FROM_TIMED, .parts_measured = (1U << PART_MAX) - 1,
			    .cause_sample = 16 };
	size_t cap = 0;
	char *text;

	add_row(&r, &cap, "/busy", 1, 50, 100);
	add_row(&r, &cap, "/quiet", 2, 1, 100);
	r.cgroups[0].part[PART_HELD] = 1500000000;	/* 1.5 s */
	r.cgroups[0].part[PART_IRQ] = 2500;
	r.cgroups[1].part[PART_OTHER] = 7;
	r.cgroups[1].decisions[DECISION_SKIPPED] = 9;
	CHECK(row_add_cause(&r.cgroups[0], "cpu.stat", 3, 48, 30) == 0 &&
	      row_add_cause(&r.cgroups[1], "cpu.stat", 2, 32, 20) == 0 &&
	      row_add_cause(&r.cgroups[1], "other:\"x\\\n", 1, 1, 10) == 0, "causes");
	text = expose(p, &r, 1);
	CHECK(value_of(text, "rstatlat_flush_part_seconds_total{hierarchy=\"v2\",cgroup=\"/busy\","
		       "part=\"held\"}") == 1.5, "held of the named cgroup");
	CHECK(strstr(text, "rstatlat_flush_part_seconds_total{hierarchy=\"v2\",cgroup=\"/busy\","
		     "part=\"irq\"} 0.000002500\n"), "irq in seconds, all digits");
	CHECK(value_of(text, "rstatlat_flush_part_seconds_total{hierarchy=\"(other)\","
		       "cgroup=\"(other)\",part=\"other\"}") == 7e-9, "the unnamed cgroup in (other)");
	CHECK(value_of(text, "rstatlat_memcg_flush_decisions_total{hierarchy=\"(other)\","
		       "cgroup=\"(other)\",decision=\"skipped\"}") == 9, "decisions");
	CHECK(value_of(text, "rstatlat_flush_cause_samples_total{cause=\"cpu.stat\"}") == 5,
	      "samples of one cause summed over cgroups");
	/* as the table shows it (term_escape), then the format's \\ and \" */
	CHECK(value_of(text, "rstatlat_flush_cause_samples_total{cause=\"other:\\\"x\\\\\\\\\\\\x0a\"}") == 1,
	      "a symbol escaped as a label: %s", strstr(text, "cause=\"other"));
	CHECK(value_of(text, "rstatlat_cause_sample") == 16, "the sampling said");
	free(text);
	/* parts from the kernel: no irq series, its time is in other */
	r.parts_from = PARTS_FROM_KERNEL;
	r.parts_measured &= ~(1U << PART_IRQ);
	text = expose(p, &r, 2);
	CHECK(!strstr(text, "part=\"irq\"") && strstr(text, "part=\"self\"") &&
	      value_of(text, "rstatlat_flush_part_seconds_total{hierarchy=\"v2\",cgroup=\"/busy\","
		       "part=\"held\"}") == 1.5, "kernel parts: held and self, no irq");
	free(text);
	/* neither measured: no family at all */
	r.flush_parts = r.memcg_decisions = false;
	r.cause_sample = 0;
	text = expose(p, &r, 2);
	CHECK(!strstr(text, "rstatlat_flush_part") && !strstr(text, "rstatlat_memcg") &&
	      !strstr(text, "rstatlat_flush_cause") && !strstr(text, "rstatlat_cause_sample"),
	      "nothing of what was not measured");
	free(text);
	report_free(&r);
	prom_free(p);
}

/* The samples of an exposition: its lines that are not comments. */
static size_t samples_in(const char *text)
{
	size_t n = 0;

	for (const char *l = text; *l; l = strchr(l, '\n') + 1)
		n += *l != '#';
	return n;
}

/*
 * The series budget at the defaults (PROM_DEFAULT_*): a host with 100 busy
 * cgroups, each with every per-cgroup family (holds spread over every
 * bucket, waits, flushes, timed parts, memcg decisions), the per-CPU lock,
 * traced irqs-off and causes, stays within PROM_SERIES_BUDGET samples, and
 * rstatlat_series says how many there are, itself included.
 */
/*
 * Flushers: the busiest comms by holds named, the rest (and the kernel's
 * overflow, and a comm that calls itself "(other)") under comm="(other)";
 * a comm that ranks in later counts from then on, so nothing goes down;
 * octave buckets count exactly at the bounds; hostile comms escaped.
 */
static void test_flushers(void)
{
	struct prom_opts o = opts(10);
	struct prom_state *p;
	struct report r = { .type = REPORT_SUMMARY };
	size_t cap = 0;
	char comm[16], *text;
	double v;

	o.max_flushers = 3;
	p = prom_new(&o);
	for (int i = 1; i <= 5; i++) {
		snprintf(comm, sizeof(comm), "agent%d", i);
		add_flusher(&r, &cap, comm, (uint64_t)i * 10, 4, 200, 3000);
	}
	add_flusher(&r, &cap, FLUSHERS_OTHER, 1000, 4, 200, 3000);	/* the overflow */
	add_flusher(&r, &cap, "q\"\\\n\x1b", 100, 4, 100, 100);
	text = expose(p, &r, 1);
	CHECK(prom_named_flushers(p) == 3, "%zu flushers named", prom_named_flushers(p));
	CHECK(flusher_value(text, "flush_seconds_count", "agent5") == 50 &&
	      flusher_value(text, "flush_seconds_count", "agent4") == 40 &&
	      flusher_value(text, "flush_seconds_count", "agent3") == -1, "the busiest named: %s",
	      text);
	CHECK(flusher_value(text, "flush_seconds_count", FLUSHERS_OTHER) == 1000 + 10 + 20 + 30,
	      "(other): %g", flusher_value(text, "flush_seconds_count", FLUSHERS_OTHER));
	v = flusher_value(text, "hold_seconds_sum", "agent5");
	CHECK(flusher_value(text, "hold_seconds_count", "agent5") == 200 &&
	      fabs(v - 200 * 200e-9) < 1e-12, "agent5's holds: sum %g", v);
	CHECK(value_of(text, "rstatlat_flusher_hold_seconds_bucket{comm=\"agent5\",le=\"1.28e-07\"}")
	      == 0 && value_of(text, "rstatlat_flusher_hold_seconds_bucket{comm=\"agent5\","
			       "le=\"2.56e-07\"}") == 200, "200 ns is above 128 ns, below 256 ns");
	CHECK(strstr(text, "rstatlat_flusher_flush_seconds_count{comm=\"q\\\"\\\\\\\\\\\\x0a\\\\x1b\"} 100"),
	      "escaped comm: %s", text);
	free(text);
	/* agent1 grows past the others: named, counting from then, (other) keeps its past */
	r.flushers[0].count[COUNT_LOCKED] += 100000;
	text = (expose(p, &r, 2));
	free(text);
	dist_add(&r.flushers[0].dist[DIST_FLUSH], hist_octave_bucket(hist_octave(3000)), 7);
	text = expose(p, &r, 3);
	CHECK(flusher_value(text, "flush_seconds_count", "agent1") == 7,
	      "agent1 counts from when it was named: %g",
	      flusher_value(text, "flush_seconds_count", "agent1"));
	CHECK(flusher_value(text, "flush_seconds_count", FLUSHERS_OTHER) >= 1000 + 10 + 20 + 30,
	      "(other) never goes down: %g", flusher_value(text, "flush_seconds_count",
							   FLUSHERS_OTHER));
	free(text);
	report_free(&r);
	prom_free(p);
}

typedef Io__Prometheus__Client__MetricFamily pb_family;

/* The text and the protobuf exposition of r, the latter unpacked family by family. */
static char *expose_both(struct prom_state *p, const struct report *r, pb_family ***fams,
			 size_t *nfams)
{
	char *text = NULL, *pb = NULL;
	size_t len = 0, pb_len = 0, cap = 0;
	FILE *f = open_memstream(&text, &len), *g = open_memstream(&pb, &pb_len);

	CHECK(prom_write(p, r, NULL, SEC, SEC, f, g) == 0, "prom_write failed");
	fclose(f);
	fclose(g);
	*fams = NULL;
	*nfams = 0;
	for (size_t at = 0; at < pb_len; ) {
		size_t n = 0;
		int shift = 0;

		while (at < pb_len && pb[at] & 0x80)
			n |= (size_t)(pb[at++] & 0x7f) << shift, shift += 7;
		n |= (size_t)(pb[at++] & 0x7f) << shift;
		CHECK(at + n <= pb_len, "a family runs past the end");
		if (at + n > pb_len)
			break;
		if (*nfams == cap) {
			cap = cap ? 2 * cap : 64;
			*fams = realloc(*fams, cap * sizeof(**fams));
		}
		(*fams)[*nfams] = io__prometheus__client__metric_family__unpack(NULL, n,
									 (uint8_t *)pb + at);
		CHECK((*fams)[*nfams], "family %zu does not unpack", *nfams);
		if (!(*fams)[*nfams])
			break;
		(*nfams)++;
		at += n;
	}
	free(pb);
	return text;
}

static void free_families(pb_family **fams, size_t n)
{
	for (size_t i = 0; i < n; i++)
		io__prometheus__client__metric_family__free_unpacked(fams[i], NULL);
	free(fams);
}

static const pb_family *family_of(pb_family **fams, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(fams[i]->name, name))
			return fams[i];
	return NULL;
}

/* The metric of family f whose label name has value, or NULL. */
static const Io__Prometheus__Client__Metric *metric_of(const pb_family *f, const char *name,
						       const char *value)
{
	for (size_t i = 0; f && i < f->n_metric; i++)
		for (size_t l = 0; l < f->metric[i]->n_label; l++)
			if (!strcmp(f->metric[i]->label[l]->name, name) &&
			    !strcmp(f->metric[i]->label[l]->value, value))
				return f->metric[i];
	return NULL;
}

/*
 * A native histogram's buckets as (index, count), from its spans and
 * deltas; returns how many, or -1 when they do not add up.
 */
static int native_of(const Io__Prometheus__Client__Histogram *h, int *index, uint64_t *count,
		     int max)
{
	int n = 0, at = 0;
	int64_t c = 0;
	size_t d = 0;

	for (size_t s = 0; s < h->n_positive_span; s++) {
		at += h->positive_span[s]->offset;	/* the gap after the span before */
		for (uint32_t k = 0; k < h->positive_span[s]->length; k++) {
			if (d >= h->n_positive_delta || n >= max)
				return -1;
			c += h->positive_delta[d++];
			index[n] = at + (int)k;
			count[n++] = (uint64_t)c;
		}
		at += (int)h->positive_span[s]->length;
	}
	return d == h->n_positive_delta ? n : -1;
}

/*
 * A row's track is looked for first where it was in the last refresh (and
 * found there, without a lookup, when it stayed: prom_rows_hinted):
 * rows that change places (or a row that takes another's place) still
 * count under their own labels.
 */
static void test_rows_change_places(void)
{
	struct prom_opts o = opts(10);
	struct prom_state *p = prom_new(&o);
	struct report r = { .type = REPORT_SUMMARY };
	size_t cap = 0;
	struct row tmp;
	char *text;

	add_row(&r, &cap, "/a", 1, 10, 100);
	add_row(&r, &cap, "/b", 2, 20, 100);
	add_row(&r, &cap, "/c", 3, 30, 100);
	free(expose(p, &r, 1));
	CHECK(prom_rows_hinted(p) == 0, "%zu rows hinted in the first refresh", prom_rows_hinted(p));
	free(expose(p, &r, 2));
	/* the same rows in the same places: each found where it was, no lookup */
	CHECK(prom_rows_hinted(p) == 3, "%zu of 3 rows found by their hint", prom_rows_hinted(p));
	tmp = r.cgroups[0];
	r.cgroups[0] = r.cgroups[2];
	r.cgroups[2] = tmp;
	r.cgroups[1].count[COUNT_LOCKED] = 25;
	text = expose(p, &r, 3);
	CHECK(prom_rows_hinted(p) == 1, "%zu rows hinted after a swap: only /b's", prom_rows_hinted(p));
	CHECK(locks_of(text, "/a") == 10 && locks_of(text, "/b") == 25 && locks_of(text, "/c") == 30,
	      "after a swap: /a %g, /b %g, /c %g", locks_of(text, "/a"), locks_of(text, "/b"),
	      locks_of(text, "/c"));
	free(text);
	report_free(&r);
	prom_free(p);
}

/* Every row's figures added up, as the collector keeps them (report.all). */
static void add_up(const struct report *r, struct row *all)
{
	row_free(all);
	for (size_t i = 0; i < r->ncgroups; i++)
		CHECK(row_merge(all, &r->cgroups[i]) == 0, "row_merge");
}

/*
 * "(other)" from the rows added up (report.all, the collector's shared
 * summaries) is the same as from every row: through refreshes that name,
 * swap, park and drop cgroups, with an aggregate row and causes, under
 * each kind of irqs-off rows.
 */
static struct row *row_of(struct report *r, const char *path)
{
	for (size_t i = 0; i < r->ncgroups; i++)
		if (!strcmp(r->cgroups[i].path, path))
			return &r->cgroups[i];
	return NULL;
}

static void test_other_from_all(enum irqoff_rows irqoff, bool kept_row)
{
	struct prom_opts o = opts(2);
	struct prom_state *each, *whole;
	struct report r = { .type = REPORT_SUMMARY, .irqoff_rows = irqoff };
	struct row all = { 0 };
	size_t cap = 0;

	o.idle_ns = 3 * SEC;
	each = prom_new(&o);
	whole = prom_new(&o);
	add_row(&r, &cap, "/a", 1, 10, 100);
	add_row(&r, &cap, "/b", 2, 20, 1000);
	add_row(&r, &cap, "memory:/c", 3, 5, 10000);
	add_row(&r, &cap, "(removed cgroups)", 0, 7, 300);
	r.cgroups[3].removed_cgroups = 2;
	if (kept_row)	/* /c's row of an earlier slot, kept: one label set, two rows */
		add_row(&r, &cap, "memory:/c", 3, 4, 5000);
	r.cause_sample = 64;	/* machine-wide causes, from all's too */
	CHECK(row_add_cause(&r.cgroups[0], "memory.stat", 3, 3, 100) == 0 &&
	      row_add_cause(&r.cgroups[3], "memory.stat", 2, 2, 100) == 0 &&
	      row_add_cause(&r.cgroups[3], "memcg_periodic", 1, 1, 100) == 0, "causes");
	for (int step = 1; step <= 12; step++) {
		/* /c grows fast from step 3 and takes a name; /a goes idle and leaves */
		struct row *c = row_of(&r, "memory:/c"), *removed = row_of(&r, "(removed cgroups)");
		struct row *b = row_of(&r, "/b");
		char *text_each, *text_whole;

		if (step >= 3)
			for (int k = 0; k < 50 * step; k++)
				dist_add_value(&c->dist[DIST_HOLD], 20000 + (uint64_t)k);
		c->count[COUNT_LOCKED] += step >= 3 ? 50 * (uint64_t)step : 0;
		if (b) {
			b->count[COUNT_LOCKED] += 3;
			dist_add_value(&b->dist[DIST_HOLD], 900);
		}
		dist_add_value(&removed->dist[DIST_WAIT], 64);
		removed->count[COUNT_LOCKED]++;
		if (kept_row && step == 6) {	/* another of /c's slots retires into it */
			struct row *kept = &r.cgroups[r.ncgroups - 1];

			kept->count[COUNT_LOCKED] += 40;
			dist_add_value(&kept->dist[DIST_HOLD], 7000);
		}
		if (step == 8) {	/* /b removed: its row goes into the aggregate */
			CHECK(row_merge(removed, b) == 0, "merge");
			removed->removed_cgroups++;
			row_free(b);
			memmove(b, b + 1, (size_t)(&r.cgroups[r.ncgroups] - (b + 1)) * sizeof(*b));
			r.ncgroups--;
		}
		add_up(&r, &all);
		r.all = NULL;
		text_each = expose(each, &r, (uint64_t)step);
		r.all = &all;
		text_whole = expose(whole, &r, (uint64_t)step);
		CHECK(!strcmp(text_each, text_whole), "step %d: the exposition from report.all "
		      "differs", step);
		CHECK(step > 1 || strstr(text_whole, "cause=\"memory.stat\"} 5\n"), "causes from all");
		free(text_each);
		free(text_whole);
	}
	/* /a left idle, /b was removed: /c alone is named */
	CHECK(prom_named(whole) == 1, "%zu named", prom_named(whole));
	r.all = NULL;
	row_free(&all);
	report_free(&r);
	prom_free(each);
	prom_free(whole);
}

/* ---- counters through churn ---- */

/* One sample of an exposition: its series (name and labels) and value. */
struct sample {
	char *key;
	double v;
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct sample *)a)->key, ((const struct sample *)b)->key);
}

/* Whether a sample is a counter's: a _total, or a histogram's _count, _sum, _bucket. */
static bool counter_sample(const char *key)
{
	static const char *const ends[] = { "_total", "_count", "_sum", "_bucket" };
	size_t n = strcspn(key, "{");

	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		size_t e = strlen(ends[i]);

		if (n >= e && !strncmp(key + n - e, ends[i], e))
			return true;
	}
	return false;
}

/* The counter samples of text, sorted by series; *n of them. */
static struct sample *counter_samples(const char *text, size_t *n)
{
	struct sample *s = NULL;
	size_t cap = 0;

	*n = 0;
	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		const char *end = strchr(l, '\n'), *sp = end;

		while (sp > l && sp[-1] != ' ')
			sp--;
		if (*l == '#' || sp == l || !counter_sample(l))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			s = realloc(s, cap * sizeof(*s));
			CHECK(s != NULL, "realloc");
		}
		s[*n].key = strndup(l, (size_t)(sp - 1 - l));
		s[(*n)++].v = strtod(sp, NULL);
	}
	qsort(s, *n, sizeof(*s), by_key);
	return s;
}

static void free_samples(struct sample *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].key);
	free(s);
}

/*
 * Every counter of now against the same series in before (when it was
 * there): none went down, none is near 2^64 (a difference that wrapped).
 * Returns the locks of every series added up.
 */
static double check_counters(const struct sample *before, size_t nb, const struct sample *now,
			     size_t nn, const char *what)
{
	double locks = 0;

	for (size_t i = 0; i < nn; i++) {
		const struct sample *was = nb ? bsearch(&now[i], before, nb, sizeof(*before), by_key) :
					   NULL;

		CHECK(now[i].v < 0x1p63, "%s: %s is %g, wrapped", what, now[i].key, now[i].v);
		CHECK(!was || now[i].v >= was->v, "%s: %s went down, %g to %g", what, now[i].key,
		      was ? was->v : 0, now[i].v);
		if (!strncmp(now[i].key, "rstatlat_locks_total{", 21))
			locks += now[i].v;
	}
	return locks;
}

/*
 * A host's churn as the summary shows it: paths whose cgroup is removed
 * (its row kept, later folded into the removed aggregate, row 0) and
 * made again under the same path, cgroups that go idle and wake, and
 * flushers whose record is dropped and comes back with less.
 */
struct churn {
	struct report r;
	size_t cap, fcap;
	uint64_t cgid;
};

static size_t pick(size_t n)
{
	return (size_t)(xorshift() % n);
}

static void grow_row(struct row *row, uint64_t n)
{
	row->count[COUNT_LOCKED] += n;
	for (uint64_t i = 0; i < n; i++)
		dist_add_value(&row->dist[DIST_HOLD], 100 + xorshift() % 100000);
}

static void churn_step(struct churn *c, int paths, int comms)
{
	struct report *r = &c->r;
	char name[32];

	switch (xorshift() % 6) {
	case 0:	/* a path's cgroup made (again): a new row beside any kept ones */
		snprintf(name, sizeof(name), "/p%zu", pick((size_t)paths));
		add_row(r, &c->cap, name, ++c->cgid, xorshift() % 3, 500);
		break;
	case 1:	/* a row folded into the removed aggregate */
		if (r->ncgroups > 1) {
			size_t i = 1 + pick(r->ncgroups - 1);

			CHECK(row_merge(&r->cgroups[0], &r->cgroups[i]) == 0, "row_merge");
			r->cgroups[0].removed_cgroups++;
			row_free(&r->cgroups[i]);
			r->cgroups[i] = r->cgroups[--r->ncgroups];
		}
		break;
	case 2:	/* a flusher's record dropped; another comes, or it comes back */
		if (r->nflushers && xorshift() % 2) {
			size_t i = pick(r->nflushers);

			row_free(&r->flushers[i]);
			r->flushers[i] = r->flushers[--r->nflushers];
		} else {
			snprintf(name, sizeof(name), "agent%zu", pick((size_t)comms));
			add_flusher(r, &c->fcap, name, 1 + xorshift() % 5, 2, 300, 4000);
		}
		break;
	default:	/* one cgroup or flusher busy, at a rate of its own */
		if (r->ncgroups > 1)
			grow_row(&r->cgroups[1 + pick(r->ncgroups - 1)], xorshift() % 40);
		if (r->nflushers) {
			struct row *f = &r->flushers[pick(r->nflushers)];

			f->count[COUNT_LOCKED] += 2;
			dist_add(&f->dist[DIST_FLUSH], hist_octave_bucket(hist_octave(5000)), 1);
			f->dist[DIST_FLUSH].sum += 5000;
		}
	}
}

static double rows_locked(const struct report *r)
{
	double n = 0;

	for (size_t i = 0; i < r->ncgroups; i++)
		n += (double)r->cgroups[i].count[COUNT_LOCKED];
	return n;
}

/*
 * Names reused under a small --prom-max-cgroups, in every order of park
 * (--prom-idle), rename, reuse of a path by a new cgroup and retirement
 * of the old one's row into the removed aggregate, and flushers dropped
 * and coming back: no counter of any series goes down or wraps, the
 * locks of all series add up to all rows' exactly, and report.all gives
 * the same exposition as every row.
 */
static void churn_one(uint64_t seed)
{
	struct prom_opts o = opts(3);
	struct prom_state *each, *whole;
	struct churn c = { .r = { .type = REPORT_SUMMARY, .irqoff_rows = IRQOFF_ROWS_LOCK } };
	struct sample *before = NULL;
	size_t nb = 0;
	struct row all = { 0 };
	char *t_each = NULL, *t_whole = NULL;

	rng_seed(seed);
	o.idle_ns = 3 * SEC;
	o.max_flushers = 2;
	each = prom_new(&o);
	whole = prom_new(&o);
	add_row(&c.r, &c.cap, "(removed cgroups)", 0, 0, 0);
	for (uint64_t step = 1, failed = (uint64_t)checks_failed;
	     step <= 60 && (uint64_t)checks_failed == failed; step++) {
		struct sample *now;
		size_t nn;
		double locks;

		for (int k = 0; k < 6; k++)
			churn_step(&c, 8, 4);
		add_up(&c.r, &all);
		c.r.all = NULL;
		t_each = expose(each, &c.r, step);
		c.r.all = &all;
		t_whole = expose(whole, &c.r, step);
		c.r.all = NULL;
		CHECK(!strcmp(t_each, t_whole), "seed %" PRIu64 " step %" PRIu64 ": from "
		      "report.all differs", seed, step);
		now = counter_samples(t_whole, &nn);
		locks = check_counters(before, nb, now, nn, "churn");
		CHECK(locks == rows_locked(&c.r), "seed %" PRIu64 " step %" PRIu64 ": the series "
		      "add up to %g locks, the rows %g", seed, step, locks, rows_locked(&c.r));
		free_samples(before, nb);
		before = now;
		nb = nn;
		free(t_each);
		free(t_whole);
	}
	free_samples(before, nb);
	row_free(&all);
	report_free(&c.r);
	prom_free(each);
	prom_free(whole);
}

static void test_counters_through_churn(void)
{
	/* 300 orders of events; the first that fails stops it */
	for (uint64_t seed = 1, failed = (uint64_t)checks_failed;
	     seed <= 300 && (uint64_t)checks_failed == failed; seed++)
		churn_one(seed);
}

/*
 * The reproducer of the wrap, in order: /p named, idle and parked with
 * its figures; its cgroup removed (row folded into the aggregate) and
 * made again with less, which (other) takes; woken, it is named counting
 * from its new figures, not below the parked ones. And a named path whose
 * old row retires while a new cgroup has it: held where it was, counted.
 */
static void test_path_back_as_new_cgroup(void)
{
	struct prom_opts o = opts(2);
	struct prom_state *p;
	struct report r = { .type = REPORT_SUMMARY };
	size_t cap = 0;
	struct row *old;
	char *t[5];

	o.idle_ns = 3 * SEC;
	p = prom_new(&o);
	add_row(&r, &cap, "(removed cgroups)", 0, 0, 0);
	r.cgroups[0].removed_cgroups = 1;
	add_row(&r, &cap, "/p", 1, 50, 300);
	add_row(&r, &cap, "/q", 2, 10, 300);
	t[0] = expose(p, &r, 1);
	t[1] = expose(p, &r, 5);	/* both idle: parked */
	CHECK(locks_of(t[1], "/p") == -1 && other_locks(t[1]) == 60, "parked: %g, (other) %g",
	      locks_of(t[1], "/p"), other_locks(t[1]));
	/* /p removed, made again: 3 locks against the 50 it parked with */
	CHECK(row_merge(&r.cgroups[0], &r.cgroups[1]) == 0, "merge");
	row_free(&r.cgroups[1]);
	r.cgroups[1] = r.cgroups[--r.ncgroups];
	add_row(&r, &cap, "/p", 3, 3, 300);
	t[2] = expose(p, &r, 6);
	CHECK(locks_of(t[2], "/p") == -1 && other_locks(t[2]) == 63,
	      "back with less: %g, (other) %g", locks_of(t[2], "/p"), other_locks(t[2]));
	grow_row(row_of(&r, "/p"), 4);
	t[3] = expose(p, &r, 7);
	CHECK(locks_of(t[3], "/p") == 0 && other_locks(t[3]) == 67,
	      "woken, counting from now: %g, (other) %g", locks_of(t[3], "/p"),
	      other_locks(t[3]));
	/* /q comes back while named: its old row retires, the new one has less */
	grow_row(row_of(&r, "/q"), 5);
	free(expose(p, &r, 8));
	old = row_of(&r, "/q");	/* the first /q row: the old cgroup's */
	CHECK(row_merge(&r.cgroups[0], old) == 0, "merge");
	row_free(old);
	*old = r.cgroups[--r.ncgroups];
	add_row(&r, &cap, "/q", 4, 1, 300);
	t[4] = expose(p, &r, 9);
	CHECK(locks_of(t[4], "/q") == 5 && other_locks(t[4]) == 68 &&
	      value_of(t[4], "rstatlat_series_held_total") == 1,
	      "/q held at %g, (other) %g, held %g", locks_of(t[4], "/q"), other_locks(t[4]),
	      value_of(t[4], "rstatlat_series_held_total"));
	for (int i = 0; i < 5; i++)
		free(t[i]);
	report_free(&r);
	prom_free(p);
}

static void test_series_budget(void)
{
	struct prom_opts o = { .max_cgroups = PROM_DEFAULT_MAX_CGROUPS,
			       .max_flushers = PROM_DEFAULT_MAX_FLUSHERS, .idle_ns = 300 * SEC,
			       .version = "test" };
	struct report r = { .type = REPORT_SUMMARY, .irqoff_rows = IRQOFF_ROWS_TRACED,
			    .flush_parts = true, .memcg_decisions = true,
			    .parts_from = PARTS_FROM_TIMED, .parts_measured = (1U << PART_MAX) - 1,
			    .cause_sample = 64 };
	struct prom_http_counts http = { .present = true };
	struct prom_state *p;
	size_t cap = 0, fcap = 0, len = 0, n, nfams, native = 0;
	char path[32], cause[32], *text = NULL;
	pb_family **fams;
	const char *why;
	FILE *f;

	CHECK(!prom_buckets_parse(PROM_DEFAULT_BUCKETS, &o, &why), "%s", why);
	p = prom_new(&o);
	for (int i = 0; i < 100; i++) {
		struct row *row;

		snprintf(path, sizeof(path), "/kubepods/pod%d", i);
		add_row(&r, &cap, path, (uint64_t)i + 1, 1000, 100);
		row = &r.cgroups[i];
		for (uint64_t v = 16; v < 4 * SEC; v *= 2) {
			for (int k = 0; k < DIST_ROW_MAX; k++)
				dist_add_value(&row->dist[k], v);
		}
		row->count[COUNT_CONTENDED] = 10;
		row->count[COUNT_FLUSH_HOLDS] = 100;
		row->count[COUNT_FLUSHES_OFFCPU] = 1;
		for (int k = 0; k < PART_MAX; k++)
			row->part[k] = 1000;
		for (int k = 0; k < DECISION_MAX; k++)
			row->decisions[k] = 5;
		snprintf(cause, sizeof(cause), "cause%d", i % 10);
		CHECK(row_add_cause(row, cause, 1, 1, 1) == 0, "cause");
	}
	/* 100 flushing comms, holds and flushes in every octave */
	for (int i = 0; i < 100; i++) {
		snprintf(cause, sizeof(cause), "agent%d", i);
		for (uint64_t v = 8; v < 4 * SEC; v *= 2)
			add_flusher(&r, &fcap, cause, (uint64_t)i + 1, 2, v, v);
	}
	r.cpu_lock.present = r.irqoff.trace = r.self.present = r.self.bpf_stats = true;
	for (uint64_t v = 16; v < 4 * SEC; v *= 2) {
		dist_add_value(&r.cpu_lock.hold, v);
		dist_add_value(&r.cpu_lock.wait, v);
		dist_add_value(&r.irqoff.outside, v);
	}
	f = open_memstream(&text, &len);
	CHECK(prom_write(p, &r, &http, SEC, SEC, f, NULL) == 0, "prom_write failed");
	fclose(f);
	n = samples_in(text);
	/* the same host scraped with native histograms: one sample a histogram */
	free(expose_both(p, &r, &fams, &nfams));
	for (size_t i = 0; i < nfams; i++)
		native += fams[i]->n_metric;
	free_families(fams, nfams);
	CHECK(native < n / 2, "%zu native samples, %zu classic", native, n);
	CHECK(n <= PROM_SERIES_BUDGET, "%zu samples at the defaults, the budget %d", n,
	      PROM_SERIES_BUDGET);
	CHECK(value_of(text, "rstatlat_series") == (double)n, "rstatlat_series %g, %zu samples",
	      value_of(text, "rstatlat_series"), n);
	CHECK(prom_named(p) == PROM_DEFAULT_MAX_CGROUPS, "%zu named", prom_named(p));
	CHECK(prom_named_flushers(p) == PROM_DEFAULT_MAX_FLUSHERS, "%zu flushers named",
	      prom_named_flushers(p));
	printf("test_prom: %zu samples with 100 busy cgroups and 100 flushing comms at the "
	       "defaults, %zu with native histograms\n", n, native);
	free(text);
	report_free(&r);
	prom_free(p);
}

/*
 * The protobuf format: the same families in the same order as the text,
 * every histogram native (schema 4, or 0 for the flushers' octaves) whose
 * buckets hold each value where its fine bucket's midpoint falls and add
 * up to the count, labels escaped as the text shows them, rstatlat_series
 * one a native histogram; with --prom-classic the classic buckets too,
 * equal to the text's.
 */
static void test_protobuf(bool classic)
{
	struct prom_opts o = opts(10);
	struct prom_state *p;
	struct report r = { .type = REPORT_SUMMARY };
	size_t cap = 0, fcap = 0, nfams, metrics = 0, types = 0, hists = 0;
	pb_family **fams;
	const pb_family *f;
	const Io__Prometheus__Client__Metric *m;
	int index[16];
	uint64_t count[16];
	char *text;
	int n;

	o.classic_in_protobuf = classic;
	o.max_flushers = 5;
	p = prom_new(&o);
	add_row(&r, &cap, "/a", 1, 3, 300);
	dist_add_value(&r.cgroups[0].dist[DIST_HOLD], 5000000000ULL);	/* the last bucket */
	add_row(&r, &cap, "memory:/b\x1b[31m", 2, 2, 100000);
	add_flusher(&r, &fcap, "kubelet", 5, 2, 1000, 50000);
	text = expose_both(p, &r, &fams, &nfams);
	/* the same families, in the same order */
	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		const char *name = l + 7;

		if (strncmp(l, "# TYPE ", 7))
			continue;
		CHECK(types < nfams && !strncmp(name, fams[types]->name, strlen(fams[types]->name)) &&
		      name[strlen(fams[types]->name)] == ' ', "family %zu: text %.40s, protobuf %s",
		      types, name, types < nfams ? fams[types]->name : "none");
		types++;
	}
	CHECK(types == nfams && nfams > 10, "%zu text families, %zu protobuf", types, nfams);
	for (size_t i = 0; i < nfams; i++) {
		metrics += fams[i]->n_metric;
		for (size_t k = 0; k < fams[i]->n_metric; k++)
			hists += fams[i]->metric[k]->histogram != NULL;
	}

	f = family_of(fams, nfams, "rstatlat_lock_hold_seconds");
	m = metric_of(f, "cgroup", "/a");
	CHECK(f && f->type == IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM && m && m->histogram,
	      "/a's holds");
	if (m && m->histogram) {
		const Io__Prometheus__Client__Histogram *h = m->histogram;
		unsigned int b300 = hist_bucket(300), last = HIST_BUCKETS - 1;

		CHECK(h->schema == PROM_NATIVE_SCHEMA_FINE && h->zero_threshold == 1e-9 &&
		      h->zero_count == 0 && h->sample_count == 4 &&
		      fabs(h->sample_sum - 5.0000009) < 1e-12, "schema %d, zero %g/%" PRIu64
		      ", count %" PRIu64 ", sum %.9f", h->schema, h->zero_threshold, h->zero_count,
		      h->sample_count, h->sample_sum);
		n = native_of(h, index, count, 16);
		CHECK(n == 2 && count[0] == 3 && count[1] == 1 &&
		      index[0] == prom_native_index(4, (double)(hist_bucket_lower(b300) +
							      hist_bucket_upper(b300)) / 2) &&
		      index[1] == prom_native_index(4, (double)(hist_bucket_lower(last) +
							      hist_bucket_upper(last)) / 2),
		      "%d native buckets: %d:%" PRIu64 " %d:%" PRIu64, n, index[0], count[0],
		      index[1], count[1]);
		/*
		 * 300 ns (in [288, 304) ns, midpoint 296): native bucket i holds
		 * (2^((i-1)/16), 2^(i/16)] s; 300 ns is in that one or the next.
		 */
		CHECK(n > 0 && pow(2, (index[0] + 1) / 16.0) >= 300e-9 &&
		      pow(2, (index[0] - 1) / 16.0) < 300e-9, "300 ns in native bucket %d",
		      index[0]);
		CHECK((h->n_bucket > 0) == classic, "%zu classic buckets", h->n_bucket);
		if (classic && h->n_bucket == (size_t)o.nbounds)
			CHECK(h->bucket[1]->upper_bound == 2.56e-07 &&
			      h->bucket[1]->cumulative_count == 0 &&
			      h->bucket[2]->cumulative_count == 3 &&
			      h->bucket[o.nbounds - 1]->cumulative_count == 3,
			      "classic buckets unlike the text's");
	}
	/* a v1 path: its hierarchy label, and the name as the text shows it unescaped */
	m = metric_of(f, "cgroup", "/b\\x1b[31m");
	CHECK(m && m->n_label == 2 && !strcmp(m->label[0]->value, "memory"),
	      "the escaped v1 cgroup's labels");
	CHECK(strstr(text, "cgroup=\"/b\\\\x1b[31m\""), "text label of the escape");

	f = family_of(fams, nfams, "rstatlat_flusher_flush_seconds");
	m = metric_of(f, "comm", "kubelet");
	CHECK(m && m->histogram && m->histogram->schema == PROM_NATIVE_SCHEMA_OCTAVES,
	      "kubelet's flushes");
	if (m && m->histogram) {
		n = native_of(m->histogram, index, count, 16);
		/* 50 us: octave [32768, 65536) ns, its midpoint 49152 ns */
		CHECK(n == 1 && count[0] == 5 && index[0] == prom_native_index(0, 49152) &&
		      pow(2, index[0]) >= 49152e-9 && pow(2, index[0] - 1) < 49152e-9,
		      "%d native buckets, first %d:%" PRIu64, n, index[0], count[0]);
	}
	f = family_of(fams, nfams, "rstatlat_locks_total");
	m = metric_of(f, "cgroup", "/a");
	CHECK(m && m->counter && m->counter->value == 3, "/a's locks");
	f = family_of(fams, nfams, "rstatlat_series");
	CHECK(f && f->n_metric == 1 && f->metric[0]->gauge, "rstatlat_series");
	if (f && f->n_metric == 1 && f->metric[0]->gauge) {
		double series = f->metric[0]->gauge->value;

		/* the classic series, as the text counts them, and the native ones */
		if (classic)
			CHECK(series == value_of(text, "rstatlat_series") + (double)hists,
			      "rstatlat_series %g, the text's %g and %zu histograms", series,
			      value_of(text, "rstatlat_series"), hists);
		else
			CHECK(series == (double)metrics, "rstatlat_series %g, %zu metrics", series,
			      metrics);
	}
	free_families(fams, nfams);
	free(text);
	report_free(&r);
	prom_free(p);
}

/*
 * dist/rstatlat.rules.yml's RstatlatLongIrqsOff counts, under native
 * histograms, what lies above 0.0170392 s: exact only if every fine bucket
 * below 2^24 ns (the classic bound 0.016777216) goes to a native bucket
 * whose upper bound is at most that, and every one from 2^24 ns on to one
 * whose lower bound is at least the bound 2^(-94/16) s just under it.
 */
static void test_native_bound_of_the_irqoff_rule(void)
{
	const double rule_bound = 0.0170392;
	unsigned int split = hist_bucket(1ULL << 24);
	int below = -1000, above = 1000;

	for (unsigned int b = 0; b < HIST_BUCKETS; b++) {
		int i = prom_native_index(PROM_NATIVE_SCHEMA_FINE,
					  ((double)hist_bucket_lower(b) + (double)hist_bucket_upper(b)) / 2);

		if (b < split && i > below)
			below = i;
		if (b >= split && i < above)
			above = i;
	}
	CHECK(hist_bucket_lower(split) == 1ULL << 24, "2^24 ns is no bucket's lower bound");
	CHECK(pow(2, below / 16.0) <= rule_bound && pow(2, (above - 1) / 16.0) < rule_bound &&
	      pow(2, (above - 1) / 16.0) > rule_bound * (1 - 1e-6) && below < above,
	      "below 2^24 ns up to native bucket %d (%.9f s), from it on %d (from %.9f s); "
	      "the rule counts above %.7f", below, pow(2, below / 16.0), above,
	      pow(2, (above - 1) / 16.0), rule_bound);
}

int main(void)
{
	RUN_TEST(test_buckets_parse());
	RUN_TEST(test_histogram_folds());
	RUN_TEST(test_lock_label());
	RUN_TEST(test_labels());
	RUN_TEST(test_cardinality_bound());
	RUN_TEST(test_busiest_of_many(5));
	RUN_TEST(test_busiest_of_many(100));
	RUN_TEST(test_counters_monotonic(IRQOFF_ROWS_NONE));
	RUN_TEST(test_counters_monotonic(IRQOFF_ROWS_LOCK));
	RUN_TEST(test_idle_cgroups_leave(IRQOFF_ROWS_NONE));
	RUN_TEST(test_idle_cgroups_leave(IRQOFF_ROWS_LOCK));
	RUN_TEST(test_families_whole());
	RUN_TEST(test_flush_families());
	RUN_TEST(test_irqoff_of_holds());
	RUN_TEST(test_flushers());
	RUN_TEST(test_rows_change_places());
	RUN_TEST(test_series_budget());
	RUN_TEST(test_other_from_all(IRQOFF_ROWS_NONE, false));
	RUN_TEST(test_other_from_all(IRQOFF_ROWS_LOCK, false));
	RUN_TEST(test_other_from_all(IRQOFF_ROWS_TRACED, false));
	RUN_TEST(test_other_from_all(IRQOFF_ROWS_LOCK, true));
	RUN_TEST(test_path_back_as_new_cgroup());
	RUN_TEST(test_counters_through_churn());
	RUN_TEST(test_protobuf(false));
	RUN_TEST(test_protobuf(true));
	RUN_TEST(test_native_bound_of_the_irqoff_rule());
	return check_done("test_prom");
}

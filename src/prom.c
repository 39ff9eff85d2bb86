// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus view (prom.h): its options and its families, written from
 * the state prom_track.c keeps.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "prom_int.h"
#include "findings.h"
#include "fmt.h"

/* ---- options ---- */

/* The power of two nearest v (in log terms), v > 0. */
static int log2_nearest(uint64_t v)
{
	int lo = (int)hist_msb(v);

	if (lo >= 63)
		return 63;
	return (double)v / (double)(1ULL << lo) >= 1.4142135623730951 ? lo + 1 : lo;
}

int prom_buckets_parse(const char *s, struct prom_opts *o, const char **why)
{
	char buf[96], *min, *max, *factor;
	uint64_t lo_ns, hi_ns, step = 2;
	int lo, hi, k;

	if (strlen(s) >= sizeof(buf)) {
		*why = "too long";
		return -1;
	}
	strcpy(buf, s);
	min = buf;
	max = strchr(min, ':');
	if (!max) {
		*why = "expected MIN:MAX[:FACTOR]";
		return -1;
	}
	*max++ = '\0';
	factor = strchr(max, ':');
	if (factor)
		*factor++ = '\0';
	if (parse_duration(min, 1, &lo_ns) || parse_duration(max, 1, &hi_ns) || !lo_ns ||
	    (factor && parse_uint(factor, 1 << 20, &step))) {
		*why = "expected durations MIN:MAX (e.g. 128ns:128ms) and a power of two FACTOR";
		return -1;
	}
	if (step < 2 || (step & (step - 1))) {
		*why = "FACTOR must be a power of two, at least 2";
		return -1;
	}
	lo = log2_nearest(lo_ns);
	hi = log2_nearest(hi_ns);
	/* above 2^31 ns the layout's last bucket is open-ended: it can only go to +Inf */
	if (lo < HIST_LOW_SHIFT || hi > HIST_HIGH_SHIFT || lo >= hi) {
		*why = "MIN below MAX, from 16ns to 2.1s (2^31 ns)";
		return -1;
	}
	o->nbounds = 0;
	for (k = lo; k <= hi; k += (int)hist_msb(step)) {
		if (o->nbounds == PROM_MAX_BOUNDS) {
			*why = "more than 32 buckets";
			return -1;
		}
		o->bound_ns[o->nbounds++] = 1ULL << k;
	}
	return 0;
}


/* ---- families ---- */

/*
 * hierarchy="v2",cgroup="/a/b" from a display path ("/a/b", "memory:/a/b"),
 * and lock="memory" where the host tells locks apart (report.lock_rows),
 * lock_type="read" where the tracepoints pass one (report.lock_types).
 */
static void cgroup_labels(struct prom_labels *ls, const struct row *key)
{
	const char *path = key->path, *colon = path ? strstr(path, ":/") : NULL;
	struct prom_label *l = ls->l;

	memset(ls, 0, sizeof(*ls));
	l[0].name = "hierarchy";
	l[1].name = "cgroup";
	if (path && path[0] == '/') {
		l[0].value = "v2";
		l[1].value = path;
	} else if (colon && (size_t)(colon - path) < sizeof(ls->scratch)) {
		memcpy(ls->scratch, path, (size_t)(colon - path));
		ls->scratch[colon - path] = '\0';
		l[0].value = ls->scratch;
		l[1].value = colon + 1;
	} else {
		l[0].value = key->hierarchy ? "v1" : "v2";
		snprintf(ls->scratch, sizeof(ls->scratch), "(id %" PRIu64 ")", key->cgid);
		l[1].value = ls->scratch;
	}
	ls->n = 2;
	if (key->lock[0])
		l[ls->n++] = (struct prom_label){ "lock", key->lock };
	if (key->lock_type[0])
		l[ls->n++] = (struct prom_label){ "lock_type", key->lock_type };
}

static void other_cgroup_labels(struct prom_labels *ls)
{
	memset(ls, 0, sizeof(*ls));
	ls->l[0] = (struct prom_label){ "hierarchy", "(other)" };
	ls->l[1] = (struct prom_label){ "cgroup", "(other)" };
	ls->n = 2;
}

/* comm="..." of a flusher row */
static void flusher_labels(struct prom_labels *ls, const struct row *key)
{
	memset(ls, 0, sizeof(*ls));
	ls->l[0] = (struct prom_label){ "comm", key ? key->comm : FLUSHERS_OTHER };
	ls->n = 1;
}

/* What one kind's label sets export: each named one's and then "(other)"'s. */
struct exported {
	size_t n;		/* named; figs[n] and labels[n] are "(other)" */
	const struct pfig **figs;	/* the namer's: named exp, then other */
	struct prom_labels *labels;
};

static void exported_free(struct exported *e)
{
	for (size_t k = 0; e->labels && k <= e->n; k++)
		prom_labels_free(&e->labels[k]);
	free(e->labels);
	free(e->figs);
}

/* Each named label set's figures since it was named (exp), with its labels. */
static int exported_of(const struct namer *nm, bool flushers, struct exported *e)
{
	e->n = nm->nnamed;
	e->figs = calloc(e->n + 1, sizeof(*e->figs));
	e->labels = calloc(e->n + 1, sizeof(*e->labels));
	if (!e->figs || !e->labels)
		return -1;
	for (size_t k = 0; k < e->n; k++) {
		const struct row *key = &nm->keys[nm->named[k].track];

		e->figs[k] = &nm->named[k].exp;
		if (flushers)
			flusher_labels(&e->labels[k], key);
		else
			cgroup_labels(&e->labels[k], key);
	}
	e->figs[e->n] = &nm->other;
	if (flushers)
		flusher_labels(&e->labels[e->n], NULL);
	else
		other_cgroup_labels(&e->labels[e->n]);
	return 0;
}

struct row_family {
	const char *name, *help;
	enum prom_type type;
	int dist;		/* a histogram of the distribution, or -1 */
	size_t counter;		/* offset in struct pfig */
};

#define PFIG_COUNT(k) (offsetof(struct pfig, count) + (size_t)(k) * sizeof(uint64_t))
#define PFIG_VALUES(k) (offsetof(struct pfig, h) + (size_t)(k) * sizeof(struct phist) + \
			offsetof(struct phist, count))

static void add_counters_after(const struct report *r, struct row_family *out, size_t *n,
			       int after)
{
	for (int k = 0; k < COUNT_MAX; k++)
		if (count_defs[k].after == after && count_defs[k].prom && k < COUNT_SUMS &&
		    report_count_measured(r, k))
			out[(*n)++] = (struct row_family){ count_defs[k].prom,
							   count_defs[k].prom_help, PROM_COUNTER,
							   -1, PFIG_COUNT(k) };
}

/*
 * The per-row families, from the tables of metrics.h: a histogram of
 * each distribution, then the counters (those of a distribution after
 * it, its values counted first).
 */
static size_t row_families(const struct report *r,
			   struct row_family out[2 * DIST_ROW_MAX + COUNT_MAX])
{
	size_t n = 0;

	for (int k = 0; k < DIST_ROW_MAX; k++)
		out[n++] = (struct row_family){ dist_defs[k].prom, dist_defs[k].prom_help,
						PROM_HISTOGRAM, k, 0 };
	add_counters_after(r, out, &n, -1);
	for (int k = 0; k < DIST_ROW_MAX; k++) {
		if (dist_defs[k].prom_count)
			out[n++] = (struct row_family){ dist_defs[k].prom_count,
							dist_defs[k].prom_count_help,
							PROM_COUNTER, -1, PFIG_VALUES(k) };
		add_counters_after(r, out, &n, k);
	}
	return n;
}

static void put_row_family(struct prom_sink *s, const struct row_family *rf,
			   const struct exported *e)
{
	bool any = rf->dist < 0;

	for (size_t k = 0; k <= e->n && !any; k++)
		any = e->figs[k]->h[rf->dist].count > 0;
	if (!any)
		return;
	s->ops->family(s, rf->name, rf->type, rf->help);
	for (size_t k = 0; k <= e->n; k++) {
		const struct pfig *fig = e->figs[k];

		if (rf->dist < 0)
			s->ops->value(s, &e->labels[k], NULL,
				      *(const uint64_t *)((const char *)fig + rf->counter), false);
		else if (fig->h[rf->dist].count)
			s->ops->hist(s, &e->labels[k], &fig->h[rf->dist], PHIST_FINE);
	}
}

/*
 * A counter family with one more label: flush parts by part (seconds),
 * memcg decisions by decision. The values of label set k are the array at
 * offset in its figures, one per label value; only the values in the mask
 * shown have series (a part not measured has none).
 */
static void put_labelled_family(struct prom_sink *s, const char *name, const char *help,
				const char *label, const char *const *values, int nvalues,
				unsigned int shown, const struct exported *e, size_t offset,
				bool seconds)
{
	s->ops->family(s, name, PROM_COUNTER, help);
	for (int i = 0; i < nvalues; i++) {
		struct prom_label extra = { label, values[i] };

		for (size_t k = 0; (shown >> i & 1) && k <= e->n; k++) {
			const uint64_t *v = (const uint64_t *)((const char *)e->figs[k] + offset);

			s->ops->value(s, &e->labels[k], &extra, v[i], seconds);
		}
	}
}

static struct prom_labels no_labels;

/*
 * Irqs-off, machine-wide only: under --irqoff lock a cgroup's are its
 * holds (rstatlat_lock_hold_seconds has them), and one histogram a host
 * is what an alert on long irqs-off needs, at a twentieth of the series.
 * The label sets' figures add up to the whole run's, so it never goes down.
 */
static void put_irqoff(struct prom_sink *s, const struct exported *e)
{
	const struct dist_def *d = &dist_defs[DIST_IRQOFF];
	struct phist *all = calloc(1, sizeof(*all));

	if (!all) {
		s->failed = true;
		return;
	}
	for (size_t k = 0; k <= e->n; k++) {
		const struct phist *h = &e->figs[k]->h[DIST_IRQOFF];

		for (unsigned int b = 0; b < HIST_BUCKETS; b++)
			all->fine[b] += h->fine[b];
		all->count += h->count;
		all->sum_ns += h->sum_ns;
	}
	s->ops->family(s, d->prom, PROM_HISTOGRAM, d->prom_help);
	s->ops->hist(s, &no_labels, all, PHIST_FINE);
	free(all);
}

/* The per-cgroup families: the named cgroups, then "(other)". */
static void put_rows(struct prom_sink *s, const struct prom_state *p, const struct report *r)
{
	struct row_family rf[2 * DIST_ROW_MAX + COUNT_MAX];
	size_t nrf = row_families(r, rf);
	struct exported e = { 0 };

	if (exported_of(&p->cg, false, &e)) {
		s->failed = true;
		exported_free(&e);
		return;
	}
	for (size_t i = 0; i < nrf; i++)
		if (rf[i].dist != DIST_IRQOFF)
			put_row_family(s, &rf[i], &e);
	if (r->irqoff_rows != IRQOFF_ROWS_NONE)
		put_irqoff(s, &e);
	if (r->flush_parts)
		put_labelled_family(s, "rstatlat_flush_part_seconds_total",
				    "Where whole flushes' wall time went: held, wait, irq, "
				    "offcpu, self (rstatlat's own programs), other; a part "
				    "not measured has no series, its time is in other.",
				    "part", part_names, PART_MAX, r->parts_measured, &e,
				    offsetof(struct pfig, part), true);
	if (r->memcg_decisions)
		put_labelled_family(s, "rstatlat_memcg_flush_decisions_total",
				    "memcg:memcg_flush_stats: flushes asked for, forced, and "
				    "skipped for too few updates.", "decision", decision_names,
				    DECISION_MAX, (1U << DECISION_MAX) - 1, &e,
				    offsetof(struct pfig, decisions), false);
	exported_free(&e);
}

/*
 * The flushers' families (report.flushers): each named comm's holds and
 * flushes, then "(other)"'s. Octave buckets: every power-of-two bound
 * counts exactly.
 */
static void put_flushers(struct prom_sink *s, const struct prom_state *p)
{
	static const struct {
		const char *name, *help;
		int dist;
	} fams[] = {
		{ "rstatlat_flusher_hold_seconds", "How long the flushes of each comm (the flushing "
		  "process's) held the rstat lock: one value per hold of its flushes.", DIST_HOLD },
		{ "rstatlat_flusher_flush_seconds", "Whole flushes of each comm, first acquisition "
		  "(or wait) to last release: their count, time and length.", DIST_FLUSH },
	};
	struct exported e = { 0 };

	if (exported_of(&p->fl, true, &e)) {
		s->failed = true;
		exported_free(&e);
		return;
	}
	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
		bool any = false;

		for (size_t k = 0; k <= e.n && !any; k++)
			any = e.figs[k]->h[fams[i].dist].count > 0;
		if (!any)
			continue;
		s->ops->family(s, fams[i].name, PROM_HISTOGRAM, fams[i].help);
		for (size_t k = 0; k <= e.n; k++)
			if (e.figs[k]->h[fams[i].dist].count)
				s->ops->hist(s, &e.labels[k], &e.figs[k]->h[fams[i].dist],
					     PHIST_OCTAVES);
	}
	exported_free(&e);
}

static void put_dist_family(struct prom_sink *s, const char *name, const char *help,
			    const struct dist *d)
{
	struct phist *h = calloc(1, sizeof(*h));

	if (!h) {
		s->failed = true;
		return;
	}
	phist_fold(h, d);
	s->ops->family(s, name, PROM_HISTOGRAM, help);
	s->ops->hist(s, &no_labels, h, PHIST_FINE);
	free(h);
}

static void put_scalar(struct prom_sink *s, const char *name, enum prom_type type,
		       const char *help, uint64_t v)
{
	s->ops->family(s, name, type, help);
	s->ops->value(s, &no_labels, NULL, v, false);
}

static void put_seconds_scalar(struct prom_sink *s, const char *name, enum prom_type type,
			       const char *help, uint64_t ns)
{
	s->ops->family(s, name, type, help);
	s->ops->value(s, &no_labels, NULL, ns, true);
}

/* One family of a label with a value each: reason="...", mode="...". */
static void put_by_label(struct prom_sink *s, const char *label, const char *const *names,
			 const uint64_t *v, int n, bool seconds)
{
	for (int i = 0; i < n; i++)
		s->ops->value(s, &no_labels, &(struct prom_label){ label, names[i] }, v[i],
			      seconds);
}

/*
 * Flush causes, machine-wide: sampled flushes by cause. Samples, not the
 * shared-out flushes, since a share may shrink as samples come: a counter
 * must not. One flush in rstatlat_cause_sample at most was sampled
 * (rstatlat.h, causes: fewer where flushes come fast).
 */
/* row's causes' samples added to into's, each weighing its samples (the order). */
static int add_samples(struct row *into, const struct row *row)
{
	for (size_t c = 0; c < row->ncauses; c++)
		if (row_add_cause(into, row->causes[c].name, row->causes[c].samples,
				  row->causes[c].samples, 0))
			return -1;
	return 0;
}

static void put_causes(struct prom_sink *s, const struct report *r)
{
	struct row all = { 0 };
	size_t *order;
	int err = r->all ? add_samples(&all, r->all) : 0;

	for (size_t i = 0; !r->all && i < r->ncgroups && !err; i++)
		err = add_samples(&all, &r->cgroups[i]);
	order = err ? NULL : row_causes_by_flushes(&all);
	if (!order) {
		row_free(&all);
		s->failed = true;
		return;
	}
	put_scalar(s, "rstatlat_cause_sample", PROM_GAUGE,
		   "A flush names its cause from its stack with probability 1 in this at most "
		   "(less where flushes come fast: a few ns a hold; flushes of 1 ms or more "
		   "first).", r->cause_sample);
	s->ops->family(s, "rstatlat_flush_cause_samples_total", PROM_COUNTER,
		       "Sampled flushes by what asked for them (a stat file, a kernel path).");
	for (size_t i = 0; i < all.ncauses; i++)
		put_by_label(s, "cause", (const char *const[]){ all.causes[order[i]].name },
			     &all.causes[order[i]].samples, 1, false);
	free(order);
	row_free(&all);
}

static void put_system(struct prom_sink *s, const struct report *r)
{
	if (r->cpu_lock.present) {
		put_dist_family(s, "rstatlat_cpu_lock_hold_seconds",
				"How long the per-CPU rstat lock was held, all CPUs.", &r->cpu_lock.hold);
		put_dist_family(s, "rstatlat_cpu_lock_wait_seconds",
				"How long the per-CPU rstat lock was waited for.", &r->cpu_lock.wait);
		put_scalar(s, "rstatlat_cpu_locks_total", PROM_COUNTER,
			   "Acquisitions of the per-CPU rstat lock.", r->cpu_lock.locked);
		put_scalar(s, "rstatlat_cpu_locks_contended_total", PROM_COUNTER,
			   "Per-CPU lock acquisitions that found it taken.", r->cpu_lock.contended);
	}
	if (r->irqoff.trace)
		put_dist_family(s, "rstatlat_irqoff_outside_seconds",
				"Irqs-off intervals with no rstat hold inside, system-wide.",
				&r->irqoff.outside);
	if (r->irqoff.sample) {
		put_dist_family(s, "rstatlat_tick_late_seconds",
				"How late cpu-clock ticks came: irqs-off as sampled.", &r->irqoff.late);
		put_scalar(s, "rstatlat_ticks_total", PROM_COUNTER, "Cpu-clock ticks sampled.",
			   r->irqoff.ticks);
	}
}

/*
 * What stands out in the run so far (findings.h): a series per finding
 * that fires, 1 while it does, so that an alert can name it. Its text
 * stays in the table and JSON: a label would make a series per figure.
 */
static void put_findings(struct prom_sink *s, const struct findings *fs)
{
	if (!fs->n)
		return;
	s->ops->family(s, "rstatlat_finding", PROM_GAUGE,
		       "A finding that fires, by its id (rstatlat(8), FINDINGS): 1 while it does.");
	for (int i = 0; i < fs->n; i++) {
		/* labels of their own: a sink keeps what it made of them */
		struct prom_labels ls = { .n = 1 };

		ls.l[0] = (struct prom_label){ "id", finding_names[fs->f[i].id] };
		s->ops->value(s, &ls, &(struct prom_label){ "severity",
							    severity_names[fs->f[i].severity] },
			      1, false);
		prom_labels_free(&ls);
	}
}

static void put_costs(struct prom_sink *s, const struct report *r)
{
	static const char *const modes[] = { "user", "system" };
	const struct self_costs *c = &r->self;

	s->ops->family(s, "rstatlat_lost_total", PROM_COUNTER,
		       "What rstatlat could not count or show, by reason.");
	put_by_label(s, "reason", lost_names, r->lost, LOST_MAX, false);
	if (!c->present)
		return;
	put_scalar(s, "rstatlat_map_bytes", PROM_GAUGE, "Kernel memory of rstatlat's BPF maps.",
		   c->map_bytes);
	if (c->map_bytes_ceiling)
		put_scalar(s, "rstatlat_map_bytes_ceiling", PROM_GAUGE,
			   "Kernel memory rstatlat's BPF maps would take at --max-entries.",
			   c->map_bytes_ceiling);
	put_scalar(s, "rstatlat_entries", PROM_GAUGE,
		   "Cgroups (x processes) the maps hold (--max-entries).", c->entries);
	put_scalar(s, "rstatlat_entries_used", PROM_GAUGE, "Entries in use.", c->entries_used);
	put_scalar(s, "rstatlat_entries_peak", PROM_GAUGE,
		   "The most entries held at once since the start: what the maps grew for.",
		   c->entries_peak);
	s->ops->family(s, "rstatlat_cpu_seconds_total", PROM_COUNTER, "rstatlat's own CPU time.");
	put_by_label(s, "mode", modes, (const uint64_t[]){ c->cpu_user_ns, c->cpu_system_ns }, 2,
		     true);
	if (c->bpf_stats) {
		put_seconds_scalar(s, "rstatlat_bpf_run_seconds_total", PROM_COUNTER,
				   "Run time of rstatlat's BPF programs (kernel.bpf_stats_enabled).",
				   c->bpf_ns);
		put_scalar(s, "rstatlat_bpf_runs_total", PROM_COUNTER,
			   "Runs of rstatlat's BPF programs.", c->bpf_runs);
	}
	if (c->own_known) {
		put_seconds_scalar(s, "rstatlat_bpf_sampled_seconds_total", PROM_COUNTER,
				   "rstatlat's BPF time on the rstat path, from its own sampled "
				   "clock reads (without kernel.bpf_stats_enabled).",
				   c->bpf_sampled_ns);
		put_scalar(s, "rstatlat_lock_events_total", PROM_COUNTER,
			   "Lock events rstatlat's programs served (every cgroup's).",
			   c->lock_events);
	}
	put_scalar(s, "rstatlat_resident_memory_max_bytes", PROM_GAUGE,
		   "Peak resident memory of rstatlat.", c->rss_max_bytes);
}

static void put_exporter(struct prom_sink *s, const struct prom_state *p,
			 const struct report *r, const struct prom_http_counts *http,
			 uint64_t now_real_ns)
{
	static const char *const cpu_states[] = { "possible", "online" };
	/* 408: closed unanswered, the request's headers not whole in time */
	static const char *const codes[] = { "200", "404", "405", "408" };

	put_scalar(s, "rstatlat_exported_cgroups", PROM_GAUGE,
		   "Cgroups with series of their own (--prom-max-cgroups).", p->cg.nnamed);
	put_scalar(s, "rstatlat_tracked_cgroups", PROM_GAUGE,
		   "Cgroups seen, named or in (other).", p->cg.n);
	put_scalar(s, "rstatlat_series_held_total", PROM_COUNTER,
		   "Times a series' counters (a series in a refresh) were held where they would have "
		   "gone down (its rows lost figures: a removed cgroup's row folded into the "
		   "removed aggregate while its path came back as a new cgroup).",
		   p->cg.holds + p->fl.holds);
	s->ops->family(s, "rstatlat_cpus", PROM_GAUGE, "CPUs of the machine.");
	put_by_label(s, "state", cpu_states,
		     (const uint64_t[]){ (uint64_t)r->kernel.cpus_possible,
					 (uint64_t)r->kernel.cpus_online }, 2, false);
	if (http && http->present) {
		s->ops->family(s, "rstatlat_http_requests_total", PROM_COUNTER,
			       "Requests to the /metrics endpoint, by status code (408: closed "
			       "unanswered, the headers not whole within 5 s).");
		put_by_label(s, "code", codes,
			     (const uint64_t[]){ http->ok, http->not_found, http->bad_method,
						 http->slow_closed }, 4, false);
	}
	put_seconds_scalar(s, "rstatlat_start_time_seconds", PROM_GAUGE,
			   "When tracing started, seconds since the epoch.", r->start_ns);
	put_seconds_scalar(s, "rstatlat_refresh_timestamp_seconds", PROM_GAUGE,
			   "When these figures were read, seconds since the epoch.", now_real_ns);
}

/* Last in the text, always: a reader can tell a whole file from a cut one. */
static void put_info(struct prom_sink *s, const struct prom_state *p, const struct report *r)
{
	struct prom_labels ls = { .n = 4 };
	/* which hosts add up holds under several locks in a row (6.16+) */
	const char *locks = lock_scope_names[r->locks];

	ls.l[0] = (struct prom_label){ "version", p->o.version };
	ls.l[1] = (struct prom_label){ "kernel", r->kernel.release };
	ls.l[2] = (struct prom_label){ "attach", r->attach ? r->attach : "" };
	ls.l[3] = (struct prom_label){ "irqoff_source", r->irqoff.source ? r->irqoff.source : "" };
	s->ops->family(s, "rstatlat_info", PROM_GAUGE, "rstatlat and the kernel it traces.");
	s->ops->value(s, &ls, &(struct prom_label){ "locks", locks ? locks : "" }, 1, false);
	prom_labels_free(&ls);
}

/* Every family, in the order of the text format, through one sink. */
static int put_all(struct prom_sink *s, const struct prom_state *p, const struct report *r,
		   const struct findings *fs, const struct prom_http_counts *http,
		   uint64_t now_real_ns)
{
	put_rows(s, p, r);
	if (r->flushers_counted && p->fl.max)
		put_flushers(s, p);
	if (r->cause_sample)
		put_causes(s, r);
	put_system(s, r);
	put_findings(s, fs);
	put_costs(s, r);
	put_exporter(s, p, r, http, now_real_ns);
	/* itself and rstatlat_info, which follow: counted as written, so every family is in it */
	put_scalar(s, "rstatlat_series", PROM_GAUGE,
		   "Samples in this exposition, this one included: what rstatlat costs "
		   "the time series database (docs/fleet.md, Series budget).", s->samples + 2);
	put_info(s, p, r);
	return s->ops->finish(s);
}

int prom_write(struct prom_state *p, const struct report *summary,
	       const struct prom_http_counts *http, uint64_t now_mono_ns,
	       uint64_t now_real_ns, FILE *text, FILE *protobuf)
{
	struct findings fs;	/* the same in both formats: derived once */
	struct prom_sink *s;
	int err;

	if (prom_refresh(p, summary, now_mono_ns))
		return -1;
	findings_of(summary, &fs);
	s = prom_text_sink(&p->classic, text);
	err = s ? put_all(s, p, summary, &fs, http, now_real_ns) : -1;
	if (s)
		s->ops->free(s);
	if (err || !protobuf)
		return err;
	s = prom_pb_sink(&p->classic, p->o.classic_in_protobuf, protobuf);
	err = s ? put_all(s, p, summary, &fs, http, now_real_ns) : -1;
	if (s)
		s->ops->free(s);
	return err;
}

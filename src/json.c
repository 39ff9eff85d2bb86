// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON view: one object per line, schema "rstatlat/1" (rstatlat(8)).
 *
 * Written by hand into one buffer that leaves in large fwrite()s: 10 000
 * rows are ~40 MB and a million bucket objects, and printf took 110 ms
 * over them. Numbers go through fmt_put_uint(), every bucket's
 * {"ge":..,"le":..,"count": prefix comes from a table built once.
 */
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "findings.h"
#include "fmt.h"
#include "metrics.h"
#include "view.h"

#define OUT_SIZE (256 * 1024)	/* stays in L2 while it fills */
#define NUM_MAX 20		/* digits of a uint64_t */
#define BUCKET_MAX 80		/* one bucket object, comma included */
#define BUCKET_BATCH 256	/* buckets per reserve: 20 KiB */

/* The output buffer. Not reentrant: the views run on one thread. */
struct out {
	FILE *f;
	char *p, *end;
	unsigned long flushes;	/* text written before the last flush is gone */
};

static char out_buf[OUT_SIZE];

static void out_flush(struct out *o)
{
	fwrite(out_buf, 1, (size_t)(o->p - out_buf), o->f);
	o->p = out_buf;
	o->flushes++;
}

/* Room for n more bytes (n <= OUT_SIZE): write at the result, then set o->p. */
static inline char *out_room(struct out *o, size_t n)
{
	if ((size_t)(o->end - o->p) < n)
		out_flush(o);
	return o->p;
}

#define PUT_LIT(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* Counts are mostly one digit. */
static inline char *put_u64(char *p, uint64_t v)
{
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	return fmt_put_uint(p, v);
}

static char *put_int(char *p, int v)
{
	if (v < 0) {
		*p++ = '-';
		return fmt_put_uint(p, (uint64_t)-(int64_t)v);
	}
	return fmt_put_uint(p, (uint64_t)v);
}

static inline void put_mem(struct out *o, const char *s, size_t n)
{
	char *p = out_room(o, n);

	memcpy(p, s, n);
	o->p = p + n;
}

/* A string literal, its length known at compile time. */
#define put_lit(o, s) put_mem(o, "" s, sizeof(s) - 1)

static void put_cstr(struct out *o, const char *s)
{
	put_mem(o, s, strlen(s));
}

static void put_num(struct out *o, uint64_t v)
{
	o->p = put_u64(out_room(o, NUM_MAX), v);
}

/* A number, then a literal. */
#define put_u64_lit(o, v, then) (put_num(o, v), put_lit(o, then))

/* A JSON string literal; one longer than the buffer goes to the FILE as is. */
static void put_str(struct out *o, const char *s)
{
	size_t room = JSON_STRING_ROOM(s ? strlen(s) : 0);

	if (room > OUT_SIZE) {
		out_flush(o);
		json_write_string(o->f, s);
		return;
	}
	o->p = json_put_string(out_room(o, room), s);
}

/*
 * ",{"ge":LO,"le":HI,"count":" of every bucket, built on first use. The
 * longest (the last bucket, 11 digits twice) is 44 bytes; each is copied
 * whole at 48 and the cursor advanced by its length.
 */
struct bucket_keys {
	char s[HIST_BUCKETS][48];
	uint8_t len[HIST_BUCKETS];
};

static char *put_bucket_key(char *p, uint64_t ge, uint64_t le)
{
	p = PUT_LIT(p, ",{\"ge\":");
	p = fmt_put_uint(p, ge);
	p = PUT_LIT(p, ",\"le\":");
	p = fmt_put_uint(p, le);
	return PUT_LIT(p, ",\"count\":");
}

static const struct bucket_keys *bucket_keys(void)
{
	static struct bucket_keys k;

	if (k.len[0])
		return &k;
	for (unsigned int b = 0; b < HIST_BUCKETS; b++) {
		char tmp[2 * BUCKET_MAX];
		size_t n = (size_t)(put_bucket_key(tmp, hist_bucket_lower(b),
						   hist_bucket_upper(b) - 1) - tmp);

		memcpy(k.s[b], tmp, n);
		k.len[b] = (uint8_t)n;
	}
	return &k;
}

static inline char *put_bucket(char *p, const struct bucket_keys *k, const struct dist *d,
			       const struct bucket *b)
{
	/* the last bucket also holds everything beyond its range */
	if (b->index == HIST_BUCKETS - 1 && d->max >= hist_bucket_upper(HIST_BUCKETS - 1)) {
		p = put_bucket_key(p, hist_bucket_lower(b->index), d->max);
	} else {
		memcpy(p, k->s[b->index], sizeof(k->s[b->index]));
		p += k->len[b->index];
	}
	p = put_u64(p, b->count);
	*p++ = '}';
	return p;
}

/*
 * The non-empty buckets as [{"ge","le","count"},...], inclusive bounds.
 * Every bucket object starts with a comma: the first one's becomes '['.
 */
static void put_buckets(struct out *o, const struct dist *d)
{
	const struct bucket_keys *k = bucket_keys();
	bool open = true;

	if (!d->n) {
		put_lit(o, "[");
		return;
	}
	for (uint32_t i = 0; i < d->n;) {
		uint32_t stop = d->n - i > BUCKET_BATCH ? i + BUCKET_BATCH : d->n;
		char *p = out_room(o, (size_t)(stop - i) * BUCKET_MAX), *first = p;

		for (; i < stop; i++)
			p = put_bucket(p, k, d, &d->b[i]);
		if (open)
			*first = '[';
		open = false;
		o->p = p;
	}
}

static void put_dist_value(struct out *o, const struct dist *d)
{
	static const double qs[] = { 0.50, 0.90, 0.99 };
	uint64_t q[3];
	char *p = out_room(o, 128 + 6 * NUM_MAX);

	dist_quantiles(d, qs, 3, q);
	p = PUT_LIT(p, "{\"count\":");
	p = put_u64(p, d->count);
	p = PUT_LIT(p, ",\"sum\":");
	p = put_u64(p, d->sum);
	p = PUT_LIT(p, ",\"max\":");
	p = put_u64(p, d->max);
	p = PUT_LIT(p, ",\"p50\":");
	p = put_u64(p, q[0]);
	p = PUT_LIT(p, ",\"p90\":");
	p = put_u64(p, q[1]);
	p = PUT_LIT(p, ",\"p99\":");
	p = put_u64(p, q[2]);
	o->p = PUT_LIT(p, ",\"buckets\":");
	put_buckets(o, d);
	put_lit(o, "]}");
}

/* "key": distribution; key is one of ours, never kernel text. */
static void put_dist(struct out *o, const char *key, const struct dist *d)
{
	put_lit(o, "\"");
	put_cstr(o, key);
	put_lit(o, "\":");
	put_dist_value(o, d);
}

/* Where the row's flush time went; wall_ns is flush_ns's sum. */
static void put_flush_parts(struct out *o, const struct row *row)
{
	put_lit(o, ",\"flush_parts\":{\"flushes\":");
	put_u64_lit(o, row->dist[DIST_FLUSH].count, ",\"wall_ns\":");
	put_num(o, row->dist[DIST_FLUSH].sum);
	for (int k = 0; k < PART_MAX; k++) {
		put_lit(o, ",\"");
		put_cstr(o, part_names[k]);
		put_lit(o, "_ns\":");
		put_num(o, row->part[k]);
	}
	put_lit(o, "}");
}

/* Causes, the most flushes first (unordered out of memory); flushes and flush_ns shared out. */
static void put_flush_causes(struct out *o, const struct row *row)
{
	size_t *order = row_causes_by_flushes(row);
	uint64_t samples = 0;

	for (size_t i = 0; i < row->ncauses; i++)
		samples += row->causes[i].samples;
	put_lit(o, ",\"flush_causes\":[");
	/* flushes of which none was sampled still add up: under a cause of their own */
	if (!samples && row->dist[DIST_FLUSH].count) {
		put_lit(o, "{\"cause\":\"" NOT_SAMPLED "\",\"flushes\":");
		put_u64_lit(o, row->dist[DIST_FLUSH].count, ",\"flush_ns\":");
		put_u64_lit(o, row->dist[DIST_FLUSH].sum, ",\"samples\":0}");
	}
	for (size_t i = 0; i < row->ncauses; i++) {
		const struct cause *c = &row->causes[order ? order[i] : i];

		if (i || (!samples && row->dist[DIST_FLUSH].count))
			put_lit(o, ",");
		put_lit(o, "{\"cause\":");
		put_str(o, c->name);
		put_lit(o, ",\"flushes\":");
		put_u64_lit(o, cause_flushes(row, c), ",\"flush_ns\":");
		put_u64_lit(o, cause_flush_ns(row, c), ",\"samples\":");
		put_u64_lit(o, c->samples, "}");
	}
	put_lit(o, "]");
	free(order);
}

static void put_decisions(struct out *o, const struct row *row)
{
	put_lit(o, ",\"memcg_decisions\":{");
	for (int k = 0; k < DECISION_MAX; k++) {
		if (k)
			put_lit(o, ",");
		put_lit(o, "\"");
		put_cstr(o, decision_names[k]);
		put_lit(o, "\":");
		put_num(o, row->decisions[k]);
	}
	put_lit(o, "}");
}

/* A value written earlier, while it is still in the buffer (see put_counts). */
struct written {
	const char *at;
	size_t len;
	unsigned long flushes;
};

static void put_dist_again(struct out *o, const char *key, const struct dist *d,
			   const struct written *w)
{
	if (!w->at || w->flushes != o->flushes || (size_t)(o->end - o->p) < w->len + 64) {
		put_dist(o, key, d);
		return;
	}
	put_lit(o, "\"");
	put_cstr(o, key);
	put_lit(o, "\":");
	memcpy(o->p, w->at, w->len);
	o->p += w->len;
}

/* The counters listed after distribution after (-1: before them all), each after a comma but the first. */
static void put_counts_after(struct out *o, const struct report *r, const struct row *row,
			     int after, bool *first)
{
	for (int k = 0; k < COUNT_MAX; k++) {
		if (count_defs[k].after != after || !report_count_measured(r, k))
			continue;
		if (*first)
			put_lit(o, "\"");
		else
			put_lit(o, ",\"");
		*first = false;
		put_cstr(o, count_defs[k].json);
		put_lit(o, "\":");
		put_num(o, row->count[k]);
	}
}

/* The row's counters and distributions (metrics.h), then its flush parts, causes, decisions. */
static void put_counts(struct out *o, const struct report *r, const struct row *row)
{
	const struct dist *irqoff = row_irqoff(r, row);
	struct written hold = { 0 };
	bool first = true;

	put_counts_after(o, r, row, -1, &first);
	for (int i = 0; i < DIST_ROW_MAX; i++) {
		enum dist_id k = dist_shown[i];
		const struct dist *d = k == DIST_IRQOFF ? irqoff : &row->dist[k];

		if (!d)
			continue;
		if (!first)
			put_lit(o, ",");
		first = false;
		if (k == DIST_HOLD) {
			/* irqs-off per row are often the holds themselves: their text is copied */
			put_lit(o, "\"");
			put_cstr(o, dist_defs[k].json);
			put_lit(o, "\":");
			hold.at = out_room(o, 1);
			hold.flushes = o->flushes;
			put_dist_value(o, d);
			hold.len = (size_t)(o->p - hold.at);
		} else if (d == &row->dist[DIST_HOLD]) {
			put_dist_again(o, dist_defs[k].json, d, &hold);
		} else {
			put_dist(o, dist_defs[k].json, d);
		}
		put_counts_after(o, r, row, k, &first);
	}
	if (r->flush_parts)
		put_flush_parts(o, row);
	if (r->cause_sample)
		put_flush_causes(o, row);
	if (r->memcg_decisions)
		put_decisions(o, row);
}

static void put_irqoff(struct out *o, const struct irqoff_summary *q)
{
	char *p;

	put_lit(o, ",\"irqoff\":{\"source\":");
	put_str(o, q->source ? q->source : "off");
	if (q->virtual_machine)
		put_lit(o, ",\"virtual_machine\":true,\"outside_ns\":");
	else
		put_lit(o, ",\"virtual_machine\":false,\"outside_ns\":");
	if (q->trace)
		put_dist_value(o, &q->outside);
	else
		put_lit(o, "null");
	put_lit(o, ",\"late_ns\":");
	if (q->sample)
		put_dist_value(o, &q->late);
	else
		put_lit(o, "null");
	p = out_room(o, 64 + 3 * NUM_MAX);
	p = PUT_LIT(p, ",\"ticks\":");
	p = put_u64(p, q->ticks);
	p = PUT_LIT(p, ",\"sample_hz\":");
	p = put_u64(p, q->sample_hz);
	p = PUT_LIT(p, ",\"sample_events\":");
	p = put_int(p, q->sample_events);
	o->p = PUT_LIT(p, "}");
}

static void put_cpu_lock(struct out *o, const struct lock_summary *l)
{
	if (!l->present) {
		put_lit(o, ",\"cpu_lock\":null");
		return;
	}
	put_lit(o, ",\"cpu_lock\":{\"locked\":");
	put_u64_lit(o, l->locked, ",\"contended\":");
	put_u64_lit(o, l->contended, ",");
	put_dist(o, "hold_ns", &l->hold);
	put_lit(o, ",");
	put_dist(o, "wait_ns", &l->wait);
	put_lit(o, "}");
}

static void put_cgroup_ref(struct out *o, const struct row *row)
{
	char *p = out_room(o, 32 + 2 * NUM_MAX);

	p = PUT_LIT(p, "\"id\":");
	p = put_u64(p, row->cgid);
	p = PUT_LIT(p, ",\"hierarchy\":");
	p = put_u64(p, row->hierarchy);
	o->p = PUT_LIT(p, ",\"path\":");
	put_str(o, row->path ? row->path : "");
	if (row->lock[0]) {
		put_lit(o, ",\"lock\":");
		put_str(o, row->lock);
	}
	if (row->lock_type[0]) {
		put_lit(o, ",\"lock_type\":");
		put_str(o, row->lock_type);
	}
}

static void put_cgroup_row(struct out *o, const struct report *r, const struct row *row)
{
	put_lit(o, "{");
	put_cgroup_ref(o, row);
	put_lit(o, ",");
	put_counts(o, r, row);
	put_lit(o, ",\"top_flusher\":");
	if (row->top_tgid || row->top_comm[0]) {
		put_lit(o, "{\"pid\":");
		put_u64_lit(o, row->top_tgid, ",\"comm\":");
		put_str(o, row->top_comm);
		put_lit(o, "}");
	} else {
		put_lit(o, "null");
	}
	if (row->removed_cgroups) {
		put_lit(o, ",\"removed_cgroups\":");
		put_num(o, row->removed_cgroups);
	}
	put_lit(o, "}");
}

static void put_process_row(struct out *o, const struct report *r, const struct row *row)
{
	put_lit(o, "{\"pid\":");
	put_u64_lit(o, row->tgid, ",\"comm\":");
	put_str(o, row->comm);
	put_lit(o, ",\"own_cgroup\":");
	if (row->own_cgroup)
		put_str(o, row->own_cgroup);
	else
		put_lit(o, "null");
	put_lit(o, ",\"cgroup\":{");
	put_cgroup_ref(o, row);
	put_lit(o, "},");
	put_counts(o, r, row);
	if (row->exited) {
		put_lit(o, ",\"exited\":");
		put_num(o, row->exited);
	}
	put_lit(o, "}");
}

static void put_list(struct out *o, const struct report *r, const char *key,
		     const struct row *rows, size_t n,
		     void (*put_row)(struct out *, const struct report *, const struct row *))
{
	put_lit(o, ",\"");
	put_cstr(o, key);
	put_lit(o, "\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			put_lit(o, ",");
		put_row(o, r, &rows[i]);
	}
	put_lit(o, "]");
}

static void put_header(struct out *o, const struct report *r)
{
	char *p;

	if (r->type == REPORT_SUMMARY)
		put_lit(o, "{\"schema\":\"rstatlat/1\",\"type\":\"summary\"");
	else
		put_lit(o, "{\"schema\":\"rstatlat/1\",\"type\":\"interval\"");
	put_lit(o, ",\"start_ns\":");
	put_u64_lit(o, r->start_ns, ",\"duration_ns\":");
	put_u64_lit(o, r->duration_ns, ",\"kernel\":{\"release\":");
	put_str(o, r->kernel.release);
	p = out_room(o, 64 + 2 * NUM_MAX);
	p = PUT_LIT(p, ",\"cpus_possible\":");
	p = put_int(p, r->kernel.cpus_possible);
	p = PUT_LIT(p, ",\"cpus_online\":");
	p = put_int(p, r->kernel.cpus_online);
	o->p = PUT_LIT(p, "},\"attach\":");
	put_str(o, r->attach ? r->attach : "");
	put_lit(o, ",\"attach_points\":[");
	for (int i = 0; i < r->nattach_points; i++) {
		if (i)
			put_lit(o, ",");
		put_str(o, r->attach_points[i]);
	}
	put_lit(o, "]");
	if (r->locks != LOCKS_UNKNOWN) {
		put_lit(o, ",\"locks\":");
		put_str(o, lock_scope_names[r->locks]);
	}
	if (r->lock_rows)
		put_lit(o, ",\"lock_rows\":true");
	if (r->lock_types)
		put_lit(o, ",\"lock_types\":true");
	put_lit(o, ",\"flush_parts\":");
	put_cstr(o, r->flush_parts ? "true" : "false");
	if (r->flush_parts) {
		bool first = true;

		put_lit(o, ",\"flush_parts_from\":");
		put_str(o, parts_from_names[r->parts_from]);
		put_lit(o, ",\"flush_parts_unmeasured\":[");
		for (int k = 0; k < PART_MAX; k++) {
			if (report_part_measured(r, k))
				continue;
			if (!first)
				put_lit(o, ",");
			put_lit(o, "\"");
			put_cstr(o, part_names[k]);
			put_lit(o, "\"");
			first = false;
		}
		put_lit(o, "]");
	}
	put_lit(o, ",\"cause_sample\":");
	put_num(o, r->cause_sample);
	if (r->cause_sample) {
		put_lit(o, ",\"cause_budget\":");
		put_cstr(o, r->cause_budgeted ? "true" : "false");
	}
	put_lit(o, ",\"memcg_decisions\":");
	put_cstr(o, r->memcg_decisions ? "true" : "false");
}

/* A number, or null when unknown. */
static void put_num_or_null(struct out *o, bool known, uint64_t v)
{
	if (known)
		put_num(o, v);
	else
		put_lit(o, "null");
}

/* -- COMMAND: what ran, where, and how it ended (null until it has). */
static void put_command(struct out *o, const struct command_info *c)
{
	if (!c->present)
		return;
	put_lit(o, ",\"command\":{\"argv\":[");
	for (int i = 0; i < c->argc; i++) {
		if (i)
			put_lit(o, ",");
		put_str(o, c->argv[i]);
	}
	put_lit(o, "],\"pid\":");
	put_u64_lit(o, c->pid, ",\"cgroups\":[");
	for (int i = 0; i < c->ncgroups; i++) {
		if (i)
			put_lit(o, ",");
		put_lit(o, "{\"id\":");
		put_u64_lit(o, c->cgroups[i].id, ",\"hierarchy\":");
		put_u64_lit(o, c->cgroups[i].hierarchy, ",\"path\":");
		put_str(o, c->cgroups[i].path);
		put_lit(o, "}");
	}
	put_lit(o, "],\"status\":");
	put_num_or_null(o, c->ended, (uint64_t)c->status);
	put_lit(o, ",\"signal\":");
	put_num_or_null(o, c->ended && c->signal, (uint64_t)c->signal);
	put_lit(o, "}");
}

/* The workload's options: numbers and strings, as it was given them. */
static void put_workload_options(struct out *o, const struct workload_info *w)
{
	put_lit(o, "\"options\":{");
	for (int i = 0; i < w->noptions; i++) {
		const struct workload_option *opt = &w->options[i];

		if (i)
			put_lit(o, ",");
		put_str(o, opt->key);
		put_lit(o, ":");
		if (opt->text)
			put_str(o, opt->text);
		else
			put_num(o, opt->number);
	}
	put_lit(o, "}");
}

/*
 * The workload's name, options and figures: the summary's "workload"
 * object and the line `rstatlat load -j` prints have the same members.
 * reads_per_s and read_mode_ns are derived, for a reader of the line.
 */
static void put_workload_members(struct out *o, const struct workload_info *w)
{
	double secs = (double)w->wall_ns / 1e9;
	uint64_t mode = dist_mode_octave(&w->read);
	char rate[48];

	put_lit(o, "\"name\":");
	put_str(o, w->name);
	/* several added up (under one command, or read back and merged): said, and of what kinds */
	if (w->runs > 1) {
		put_lit(o, ",\"runs\":");
		put_num(o, w->runs);
	}
	if (w->mixed)
		put_lit(o, ",\"mixed\":true");
	put_lit(o, ",");
	put_workload_options(o, w);
	put_lit(o, ",\"hierarchy\":");
	put_str(o, w->hierarchy);
	put_lit(o, ",\"wall_ns\":");
	put_num(o, w->wall_ns);
	for (int k = 0; k < WL_COUNT_MAX; k++) {
		if (!(w->measured & (1U << k)))
			continue;
		put_lit(o, ",\"");
		put_cstr(o, workload_count_names[k]);
		put_lit(o, "\":");
		put_num(o, w->count[k]);
	}
	snprintf(rate, sizeof(rate), ",\"reads_per_s\":%.1f,",
		 secs > 0 ? (double)w->count[WL_READS] / secs : 0.0);
	put_cstr(o, rate);
	put_dist(o, "read_ns", &w->read);
	put_lit(o, ",\"read_mode_ns\":{\"ge\":");
	put_u64_lit(o, mode, ",\"lt\":");
	put_u64_lit(o, mode_octave_end(mode), "}");
	if (w->measured & (1U << WL_ROUNDS)) {
		put_lit(o, ",");
		put_dist(o, "round_ns", &w->round);
	}
	put_lit(o, ",\"stopped_by\":");
	if (w->stopped_by[0])
		put_str(o, w->stopped_by);
	else
		put_lit(o, "null");
}

static void put_workload(struct out *o, const struct workload_info *w)
{
	if (!w->present)
		return;
	put_lit(o, ",\"workload\":{");
	put_workload_members(o, w);
	put_lit(o, "}");
}

static void put_lost(struct out *o, const struct report *r)
{
	put_lit(o, ",\"lost\":{");
	for (int i = 0; i < LOST_MAX; i++) {
		if (i)
			put_lit(o, ",");
		put_lit(o, "\"");
		put_cstr(o, lost_names[i]);
		put_lit(o, "\":");
		put_num(o, r->lost[i]);
	}
	put_lit(o, "}");
}

static void put_self(struct out *o, const struct self_costs *c)
{
	if (!c->present)
		return;
	put_lit(o, ",\"self\":{\"map_bytes\":");
	if (c->map_bytes_ceiling)
		put_u64_lit(o, c->map_bytes, ",\"map_bytes_ceiling\":");
	put_u64_lit(o, c->map_bytes_ceiling ? c->map_bytes_ceiling : c->map_bytes,
		    ",\"entries\":");
	put_u64_lit(o, c->entries, ",\"entries_used\":");
	put_u64_lit(o, c->entries_used, ",\"entries_peak\":");
	put_u64_lit(o, c->entries_peak, ",\"cpu_user_ns\":");
	put_u64_lit(o, c->cpu_user_ns, ",\"cpu_system_ns\":");
	put_u64_lit(o, c->cpu_system_ns, ",\"bpf_ns\":");
	put_num_or_null(o, c->bpf_stats, c->bpf_ns);
	put_lit(o, ",\"bpf_runs\":");
	put_num_or_null(o, c->bpf_stats, c->bpf_runs);
	if (c->own_known) {
		put_lit(o, ",\"bpf_sampled_ns\":");
		put_u64_lit(o, c->bpf_sampled_ns, ",\"lock_events\":");
		put_num(o, c->lock_events);
	}
	put_lit(o, ",\"rss_max_bytes\":");
	put_u64_lit(o, c->rss_max_bytes, "}");
}

/* A summary's findings (findings.h): derived here from the report, as every view does. */
static void put_findings(struct out *o, const struct report *r)
{
	struct findings fs;

	if (r->type != REPORT_SUMMARY)
		return;
	findings_of(r, &fs);
	put_lit(o, ",\"findings\":[");
	for (int i = 0; i < fs.n; i++) {
		const struct finding *f = &fs.f[i];

		if (i)
			put_lit(o, ",");
		put_lit(o, "{\"id\":");
		put_str(o, finding_names[f->id]);
		put_lit(o, ",\"severity\":");
		put_str(o, severity_names[f->severity]);
		put_lit(o, ",\"text\":");
		put_str(o, f->text);
		put_lit(o, ",\"figures\":{");
		for (int k = 0; k < f->nfigures; k++) {
			if (k)
				put_lit(o, ",");
			put_str(o, f->figures[k].key);
			put_lit(o, ":");
			if (f->figures[k].text)
				put_str(o, f->figures[k].text);
			else
				put_num(o, f->figures[k].number);
		}
		put_lit(o, "}}");
	}
	put_lit(o, "]");
}

void json_print(FILE *f, const struct report *r)
{
	struct out o = { .f = f, .p = out_buf, .end = out_buf + OUT_SIZE };

	put_header(&o, r);
	put_command(&o, &r->command);
	put_workload(&o, &r->workload);
	put_cpu_lock(&o, &r->cpu_lock);
	put_irqoff(&o, &r->irqoff);
	put_list(&o, r, "cgroups", r->cgroups, r->ncgroups, put_cgroup_row);
	if (r->per_process)
		put_list(&o, r, "processes", r->processes, r->nprocesses, put_process_row);
	put_lost(&o, r);
	put_self(&o, &r->self);
	put_findings(&o, r);
	put_lit(&o, "}\n");
	out_flush(&o);
	fflush(f);
}

void json_print_workload(FILE *f, const struct workload_info *w)
{
	struct out o = { .f = f, .p = out_buf, .end = out_buf + OUT_SIZE };

	put_lit(&o, "{\"schema\":\"rstatlat/1\",\"type\":\"workload\",");
	put_workload_members(&o, w);
	put_lit(&o, "}\n");
	out_flush(&o);
	fflush(f);
}

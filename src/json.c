// SPDX-License-Identifier: GPL-2.0
/* The JSON view: one object per line, schema "rstatlat/1" (rstatlat(8)). */
#include <inttypes.h>
#include "escape.h"
#include "view.h"

static void print_dist_value(FILE *f, const struct dist *d)
{
	static const double qs[] = { 0.50, 0.90, 0.99 };
	uint64_t q[3];
	bool first = true;

	dist_quantiles(d, qs, 3, q);
	fprintf(f, "{\"count\":%" PRIu64 ",\"sum\":%" PRIu64 ",\"max\":%" PRIu64
		",\"p50\":%" PRIu64 ",\"p90\":%" PRIu64 ",\"p99\":%" PRIu64 ",\"buckets\":[",
		d->count, d->sum, d->max, q[0], q[1], q[2]);
	for (uint32_t i = 0; i < d->n; i++) {
		unsigned int b = d->b[i].index;
		uint64_t le = hist_bucket_upper(b) - 1;

		/* the last bucket also holds everything beyond its range */
		if (b == HIST_BUCKETS - 1 && d->max > le)
			le = d->max;
		fprintf(f, "%s{\"ge\":%" PRIu64 ",\"le\":%" PRIu64 ",\"count\":%" PRIu64 "}",
			first ? "" : ",", (uint64_t)hist_bucket_lower(b), le, d->b[i].count);
		first = false;
	}
	fputs("]}", f);
}

static void print_dist(FILE *f, const char *key, const struct dist *d)
{
	fprintf(f, "\"%s\":", key);
	print_dist_value(f, d);
}

static void print_counts(FILE *f, const struct report *r, const struct row *row)
{
	const struct dist *irqoff = row_irqoff(r, row);

	fprintf(f, "\"locked\":%" PRIu64 ",\"contended\":%" PRIu64 ",",
		row->locked, row->contended);
	print_dist(f, "hold_ns", &row->hold);
	fputc(',', f);
	print_dist(f, "wait_ns", &row->wait);
	if (irqoff) {
		fputc(',', f);
		print_dist(f, "irqoff_ns", irqoff);
	}
	fputc(',', f);
	print_dist(f, "flush_ns", &row->flush);
	fprintf(f, ",\"flush_holds\":%" PRIu64 ",\"flush_holds_max\":%" PRIu64,
		row->flush_holds, row->flush_holds_max);
}

static void print_irqoff(FILE *f, const struct irqoff_summary *q)
{
	fputs(",\"irqoff\":{\"source\":", f);
	json_write_string(f, q->source ? q->source : "off");
	fprintf(f, ",\"virtual_machine\":%s,\"other_ns\":", q->virtual_machine ? "true" : "false");
	if (q->trace)
		print_dist_value(f, &q->other);
	else
		fputs("null", f);
	fputs(",\"late_ns\":", f);
	if (q->sample)
		print_dist_value(f, &q->late);
	else
		fputs("null", f);
	fprintf(f, ",\"ticks\":%" PRIu64 ",\"sample_hz\":%u,\"sample_events\":%d}",
		q->ticks, q->sample_hz, q->sample_events);
}

static void print_cpu_lock(FILE *f, const struct lock_summary *l)
{
	if (!l->present) {
		fputs(",\"cpu_lock\":null", f);
		return;
	}
	fprintf(f, ",\"cpu_lock\":{\"locked\":%" PRIu64 ",\"contended\":%" PRIu64 ",",
		l->locked, l->contended);
	print_dist(f, "hold_ns", &l->hold);
	fputc(',', f);
	print_dist(f, "wait_ns", &l->wait);
	fputc('}', f);
}

static void print_cgroup_ref(FILE *f, const struct row *row)
{
	fprintf(f, "\"id\":%" PRIu64 ",\"hierarchy\":%u,\"path\":", row->cgid, row->hierarchy);
	json_write_string(f, row->path ? row->path : "");
}

static void print_cgroup_row(FILE *f, const struct report *r, const struct row *row)
{
	fputc('{', f);
	print_cgroup_ref(f, row);
	fputc(',', f);
	print_counts(f, r, row);
	fputs(",\"top_flusher\":", f);
	if (row->top_tgid || row->top_comm[0]) {
		fprintf(f, "{\"pid\":%u,\"comm\":", row->top_tgid);
		json_write_string(f, row->top_comm);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fputc('}', f);
}

static void print_process_row(FILE *f, const struct report *r, const struct row *row)
{
	fprintf(f, "{\"pid\":%u,\"comm\":", row->tgid);
	json_write_string(f, row->comm);
	fputs(",\"own_cgroup\":", f);
	if (row->own_cgroup)
		json_write_string(f, row->own_cgroup);
	else
		fputs("null", f);
	fputs(",\"cgroup\":{", f);
	print_cgroup_ref(f, row);
	fputs("},", f);
	print_counts(f, r, row);
	fputc('}', f);
}

static void print_list(FILE *f, const struct report *r, const char *key,
		       const struct row *rows, size_t n,
		       void (*print_row)(FILE *, const struct report *, const struct row *))
{
	fprintf(f, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		print_row(f, r, &rows[i]);
	}
	fputc(']', f);
}

void json_print(FILE *f, const struct report *r)
{
	fprintf(f, "{\"schema\":\"rstatlat/1\",\"type\":\"%s\",\"start_ns\":%" PRIu64
		",\"duration_ns\":%" PRIu64 ",\"kernel\":{\"release\":",
		r->type == REPORT_SUMMARY ? "summary" : "interval", r->start_ns, r->duration_ns);
	json_write_string(f, r->kernel.release);
	fprintf(f, ",\"cpus_possible\":%d,\"cpus_online\":%d},\"attach\":",
		r->kernel.cpus_possible, r->kernel.cpus_online);
	json_write_string(f, r->attach ? r->attach : "");
	fputs(",\"attach_points\":[", f);
	for (int i = 0; i < r->nattach_points; i++) {
		if (i)
			fputc(',', f);
		json_write_string(f, r->attach_points[i]);
	}
	fputc(']', f);
	print_cpu_lock(f, &r->cpu_lock);
	print_irqoff(f, &r->irqoff);
	print_list(f, r, "cgroups", r->cgroups, r->ncgroups, print_cgroup_row);
	if (r->per_process)
		print_list(f, r, "processes", r->processes, r->nprocesses, print_process_row);
	fputs(",\"lost\":{", f);
	for (int i = 0; i < LOST_MAX; i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", lost_names[i], r->lost[i]);
	fputs("}}\n", f);
	fflush(f);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A run's reports (run.h): described with what the run knows beyond the
 * collector's figures, printed as a table or JSON to where reports go,
 * exported to /metrics and the textfile; and -t's slow events.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include "clock.h"
#include "escape.h"
#include "prom.h"
#include "run.h"

/* where reports go (run.h) */
FILE *report_out;
struct outfile report_outfile;

/* An exporter's blocks below this come from the heap (start_export). */
#define EXPORT_HEAP_BYTES (32 << 20)

/* What every report of this run carries beyond the collector's figures. */
static int describe_run(struct run *run, struct report *r)
{
	r->kernel = run->kernel;
	r->attach = run->source;
	r->locks = run->plan->locks;
	r->lock_rows = run->plan->lock_rows;
	r->lock_types = run->plan->lock_types;
	for (int i = 0; i < run->plan->n && r->nattach_points < MAX_ATTACH_POINTS; i++)
		if (run->plan->points[i].chosen)
			r->attach_points[r->nattach_points++] = run->plan->points[i].name;
	r->irqoff.sample_hz = run->plan->irqoff_sample ? (unsigned int)opts.sample_hz : 0;
	r->irqoff.sample_events = run->nticks;
	r->irqoff.virtual_machine = run->virtual_machine;
	memset(&r->self, 0, sizeof(r->self));
	self_window(&run->self, &r->self, r->type == REPORT_SUMMARY);
	collector_own_time(run->collector, r->type == REPORT_SUMMARY, &r->self.bpf_sampled_ns,
			   &r->self.lock_events);
	r->self.own_known = true;
	/* the per-slot maps' chunks are made as entries are used (collect_chunks.c) */
	r->self.map_bytes_ceiling = r->self.map_bytes +
				    collector_chunk_bytes_ceiling(run->collector);
	r->self.map_bytes += collector_chunk_bytes(run->collector);
	r->self.entries = run->skel->rodata->max_slots;
	r->self.entries_used = collector_entries_used(run->collector);
	r->self.entries_peak = collector_entries_peak(run->collector);
	if (r->type == REPORT_SUMMARY && workload_merge(&r->workload, run->workload))
		return -1;
	return opts.command ? command_describe(run->cmd, &r->command) : 0;
}

static int emit(struct run *run, struct report *r)
{
	int err = describe_run(run, r) ? -ENOMEM : 0;

	if (!err && opts.json)
		json_print(report_out, r);
	else if (!err)
		table_print(report_out, r, &opts.view);
	report_free(r);
	return err ? err : ferror(report_out) ? -EIO : 0;
}

int emit_interval(struct run *run)
{
	struct report r;
	uint64_t mono = clock_ns(CLOCK_MONOTONIC), real = clock_ns(CLOCK_REALTIME);
	int err = collector_interval(run->collector, &r);

	if (err) {
		report_free(&r);
		return err;
	}
	r.start_ns = run->last_real;
	r.duration_ns = mono - run->last_mono;
	run->last_mono = mono;
	run->last_real = real;
	return emit(run, &r);
}

int emit_summary(struct run *run)
{
	struct report r;
	int err = collector_summary(run->collector, &r);

	if (err) {
		report_free(&r);
		return err;
	}
	r.start_ns = run->start_real;
	r.duration_ns = clock_ns(CLOCK_MONOTONIC) - run->start_mono;
	return emit(run, &r);
}

/* The textfile could not be rewritten: one line when that starts or ends. */
static void note_textfile(struct run *run, int err)
{
	if (err == run->textfile_err)
		return;
	if (err)
		fprintf(stderr, "rstatlat: cannot rewrite %s: %s (the old one stays)\n",
			opts.textfile, outfile_why(err));
	else
		fprintf(stderr, "rstatlat: %s rewritten again\n", opts.textfile);
	run->textfile_err = err;
}

/*
 * The whole run as the Prometheus view shows it, for /metrics (every read)
 * and the textfile (when asked). Returns 0, -errno, or with textfile the
 * rewrite's -errno.
 */
static int export_refresh(struct run *run, bool textfile)
{
	struct prom_http_counts http = { 0 };
	uint64_t mono = clock_ns(CLOCK_MONOTONIC);
	char *text = NULL, *pb = NULL;
	size_t len = 0, pb_len = 0;
	struct report r;
	FILE *m, *m_pb = NULL;
	/* the text is built before the next read: the rows need not be copied */
	int err = opts.per_process ? collector_summary(run->collector, &r) :
		  collector_summary_shared(run->collector, &r);

	r.start_ns = run->start_real;
	r.duration_ns = mono - run->start_mono;
	if (!err && describe_run(run, &r))
		err = -ENOMEM;
	if (run->server) {
		metrics_counts(run->server, &http);
		if (metrics_protobuf_wanted(run->server, mono) &&
		    !(m_pb = open_memstream(&pb, &pb_len)))
			err = -ENOMEM;
	}
	m = open_memstream(&text, &len);
	if (!m)
		err = -ENOMEM;
	if (!err && prom_write(run->prom, &r, &http, mono, clock_ns(CLOCK_REALTIME), m, m_pb))
		err = -ENOMEM;
	if (m && fclose(m) && !err)
		err = -ENOMEM;
	if (m_pb && fclose(m_pb) && !err)
		err = -ENOMEM;
	report_free(&r);
	if (err) {
		free(text);
		free(pb);
		return err;
	}
	if (textfile)
		err = textfile_write(opts.textfile, text, len);
	if (run->server) {
		metrics_publish(run->server, text, len, pb, pb_len);
	} else {
		free(text);
		free(pb);
	}
	return err;
}

/*
 * Prints slow events for about ms (at least one when any waits). BPF
 * wakes the poll only once the ring is half full (an interrupt per event
 * would be rstatlat's own cost between holds), so what came meanwhile is
 * read after every wait; slow_handle ends the call at the deadline
 * however fast they come.
 */
void read_slow_events(struct run *run, int ms)
{
	run->slow->until_ns = clock_ns(CLOCK_MONOTONIC) + (uint64_t)ms * 1000000;
	if (ring_buffer__poll(run->rb, ms) != SLOW_PAUSED)
		ring_buffer__consume(run->rb);
}

/*
 * The end: what waits is printed for a second at most (a flood would
 * keep the run going for as long as it lasts); the rest is counted
 * (lost.slow_unprinted), as fast as it comes, for 100 ms at most.
 */
void drain_slow_events(struct run *run)
{
	run->slow->until_ns = clock_ns(CLOCK_MONOTONIC) + 1000000000ULL;
	if (ring_buffer__consume(run->rb) != SLOW_PAUSED)
		return;
	run->slow->counting = true;
	run->slow->until_ns = clock_ns(CLOCK_MONOTONIC) + 100000000ULL;
	ring_buffer__consume(run->rb);
	collector_set_slow_unprinted(run->collector, run->slow->unprinted);
}

/* Serves slow events for up to 10 ms: what a read does while it waits. */
void serve_slow_events(void *run)
{
	read_slow_events(run, 10);
}

/* After a read: /metrics always, the textfile when it is due. */
int export_after_read(struct run *run, uint64_t *next_textfile, uint64_t step)
{
	bool textfile = opts.textfile && clock_ns(CLOCK_MONOTONIC) >= *next_textfile;
	int err;

	if (!run->prom)
		return 0;
	if (textfile)
		*next_textfile = clock_ns(CLOCK_MONOTONIC) + step;
	err = export_refresh(run, textfile);
	if (textfile && err != -ENOMEM) {
		note_textfile(run, err);
		err = 0;
	}
	return err;
}

/* Exporting: the view's state, and the port bound while still root. */
void start_export(struct run *run)
{
	const char *why;

	if (!opts.serve && !opts.textfile)
		return;
	/*
	 * Each refresh builds a summary of every row and its text, megabytes
	 * at 10 000 cgroups, and frees them: kept in the heap for the next
	 * one, not mapped afresh (page faults were a fifth of a refresh).
	 */
	mallopt(M_MMAP_THRESHOLD, EXPORT_HEAP_BYTES);
	mallopt(M_TRIM_THRESHOLD, 2 * EXPORT_HEAP_BYTES);
	run->prom = prom_new(&opts.prom);
	if (!run->prom)
		die(EXIT_RUNTIME, "out of memory");
	if (!opts.serve)
		return;
	run->server = metrics_serve(&opts.listen, &why);
	if (!run->server)
		die(EXIT_ENV, "cannot serve on %s: %s", opts.listen.shown, why);
}

/*
 * The first figures, before the first read: /metrics answers 503 only
 * until now, and the textfile exists from the start or rstatlat says why
 * it cannot.
 */
void first_export(struct run *run)
{
	int err;

	if (!run->prom)
		return;
	err = export_refresh(run, opts.textfile != NULL);
	if (err == -ENOMEM)
		die(EXIT_RUNTIME, "out of memory");
	if (err)
		die(EXIT_ENV, "cannot write %s: %s", opts.textfile, outfile_why(err));
}

/* Before anything is traced: a FILE that cannot be written fails the run at once. */
void output_open(void)
{
	int err;

	report_out = opts.command ? stderr : stdout;
	if (!opts.output || !strcmp(opts.output, "-")) {
		if (opts.output)
			report_out = stdout;
		return;
	}
	err = outfile_open(&report_outfile, opts.output, OUTFILE_MODE_LIKE_SHELL);
	if (err)
		die(EXIT_ENV, "cannot write %s: %s", opts.output, outfile_why(err));
	report_out = report_outfile.f;
}

/* The reports are complete: FILE appears, whole. Returns 0 or -errno. */
int output_close(void)
{
	int err;

	if (report_out != report_outfile.f)
		return fflush(report_out) ? -EIO : 0;
	err = outfile_commit(&report_outfile);
	report_out = stdout;
	if (err)
		fprintf(stderr, "rstatlat: cannot write %s: %s\n", opts.output, outfile_why(err));
	return err;
}


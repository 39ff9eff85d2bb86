// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON reader: what json.c writes reads back into the same report,
 * intervals merge, and every kind of bad input is refused with one line.
 * Also the compare views: valid JSON out, hostile names kept inert.
 */
#include <stdlib.h>
#include <yajl/yajl_tree.h>
#include "check.h"
#include "dist_check.h"
#include "compare.h"
#include "report_read.h"
#include "view.h"

/*
 * What json.c and the compare views write, parsed by yajl's own tree (not
 * jtree, which the reader uses): an independent check that it is JSON.
 */
static yajl_val parse_json(const char *text, char *err, size_t errlen)
{
	err[0] = '\0';
	return yajl_tree_parse(text, err, errlen);
}

static bool json_same(yajl_val a, yajl_val b)
{
	if (!a || !b || a->type != b->type)
		return a == b;
	switch (a->type) {
	case yajl_t_string:
		return !strcmp(a->u.string, b->u.string);
	case yajl_t_number:
		return !strcmp(a->u.number.r, b->u.number.r);
	case yajl_t_object:
		if (a->u.object.len != b->u.object.len)
			return false;
		for (size_t i = 0; i < a->u.object.len; i++)
			if (strcmp(a->u.object.keys[i], b->u.object.keys[i]) ||
			    !json_same(a->u.object.values[i], b->u.object.values[i]))
				return false;
		return true;
	case yajl_t_array:
		if (a->u.array.len != b->u.array.len)
			return false;
		for (size_t i = 0; i < a->u.array.len; i++)
			if (!json_same(a->u.array.values[i], b->u.array.values[i]))
				return false;
		return true;
	default:
		return true;
	}
}

static yajl_val member(yajl_val obj, const char *key)
{
	const char *path[] = { key, NULL };

	return yajl_tree_get(obj, path, yajl_t_any);
}

static char *print_report(const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	json_print(f, r);
	fclose(f);
	return buf;
}

static int read_text(const char *text, struct report *r, struct read_info *info, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!strlen(text))
		f = fopen("/dev/null", "r");
	ret = report_read(f, r, info, err, 256);
	fclose(f);
	return ret;
}

static void sample_report(struct report *r, struct row *rows)
{
	memset(rows, 0, 2 * sizeof(*rows));
	rows[0] = (struct row){ .cgid = 5, .hierarchy = 0, .path = "/a\"b\n\x1b[31m",
				.count[COUNT_LOCKED] = 10, .count[COUNT_CONTENDED] = 2 };
	rows[1] = (struct row){ .cgid = 9, .hierarchy = 4, .path = "memory:/m", .count[COUNT_LOCKED] = 3 };
	for (uint64_t v = 1; v <= 10; v++)
		dist_add_value(&rows[0].dist[DIST_HOLD], v * 777);
	dist_add_value(&rows[0].dist[DIST_WAIT], 50);
	dist_add_value(&rows[0].dist[DIST_WAIT], 40000000000ULL);	/* beyond the last bucket */
	for (uint64_t v = 1; v <= 3; v++)
		dist_add_value(&rows[1].dist[DIST_HOLD], v);
	*r = (struct report){ .type = REPORT_SUMMARY, .duration_ns = 2000000000,
			      .start_ns = 123, .attach = "tracepoint", .cgroups = rows,
			      .ncgroups = 2 };
	strcpy(r->kernel.release, "6.18.0-test");
	r->kernel.cpus_possible = 8;
	r->kernel.cpus_online = 2;
	r->lost[LOST_ENTRIES_FULL] = 4;
}

/* The sample's rows own their distributions, not their literal paths. */
static void sample_free(struct row *rows)
{
	for (int i = 0; i < 2; i++) {
		dist_free(&rows[i].dist[DIST_HOLD]);
		dist_free(&rows[i].dist[DIST_WAIT]);
	}
}

static void test_round_trip(void)
{
	struct report r, back;
	struct row rows[2];
	struct read_info info;
	char err[256] = "", *text;

	sample_report(&r, rows);
	text = print_report(&r);
	CHECK(read_text(text, &back, &info, err) == 0, "%s", err);
	CHECK(back.ncgroups == 2, "rows %zu", back.ncgroups);
	CHECK_STR(back.cgroups[0].path, rows[0].path);
	CHECK(same_dist(&back.cgroups[0].dist[DIST_HOLD], &rows[0].dist[DIST_HOLD]), "hold read back");
	CHECK(same_dist(&back.cgroups[0].dist[DIST_WAIT], &rows[0].dist[DIST_WAIT]), "wait beyond range read back");
	CHECK(back.cgroups[1].hierarchy == 4 && back.cgroups[1].cgid == 9, "identity");
	CHECK(back.duration_ns == r.duration_ns && back.lost[LOST_ENTRIES_FULL] == 4, "totals");
	CHECK_STR(back.kernel.release, "6.18.0-test");
	CHECK(back.kernel.cpus_possible == 8 && back.kernel.cpus_online == 2, "cpus");
	CHECK_STR(back.attach, "tracepoint");
	CHECK(info.summaries == 1 && info.intervals == 0, "one summary");
	CHECK(back.cgroups[0].dist[DIST_IRQOFF].count == 0 && back.cgroups[0].dist[DIST_IRQOFF].n == 0,
	      "no irqoff data: none invented");
	CHECK(back.irqoff_rows == IRQOFF_ROWS_LOCK, "without irqoff_ns the holds stand for it");
	CHECK_STR(info.irqoff_source, "off");
	report_free(&back);
	/* lost.entries_full, and slots_full in files written before it was renamed */
	CHECK(strstr(text, "\"lost\":{\"entries_full\":4,") != NULL, "entries_full written");
	memcpy(strstr(text, "\"entries_full\""), "\"slots_full\"  ", 14);
	CHECK(read_text(text, &back, &info, err) == 0 && back.lost[LOST_ENTRIES_FULL] == 4,
	      "an older file's slots_full read as entries_full: %s", err);
	report_free(&back);
	free(text);

	/* --irqoff trace: per-row irqoff_ns and the source read back */
	{
		struct dist *irq = &rows[0].dist[DIST_IRQOFF];

		dist_add_value(irq, 12345);
		r.irqoff.source = "trace";
		r.irqoff.trace = true;
		r.irqoff_rows = IRQOFF_ROWS_TRACED;
		text = print_report(&r);
		CHECK(read_text(text, &back, &info, err) == 0, "%s", err);
		CHECK(same_dist(&back.cgroups[0].dist[DIST_IRQOFF], irq), "irqoff_ns read back");
		CHECK(back.irqoff_rows == IRQOFF_ROWS_TRACED, "irqoff_ns: traced");
		CHECK(back.cgroups[1].dist[DIST_IRQOFF].count == 0,
		      "a traced row without intervals: empty irqoff_ns read back");
		CHECK_STR(info.irqoff_source, "trace");
		report_free(&back);
		free(text);
		/* irqs-off outside rstat: outside_ns, and other_ns in files written before */
		dist_add_value(&r.irqoff.outside, 4321);
		text = print_report(&r);
		CHECK(strstr(text, "\"outside_ns\":{\"count\":1") && !strstr(text, "\"other_ns\""),
		      "outside_ns written");
		memcpy(strstr(text, "\"outside_ns\""), "\"other_ns\"  ", 12);
		CHECK(read_text(text, &back, &info, err) == 0, "%s", err);
		CHECK(back.irqoff.trace && same_dist(&back.irqoff.outside, &r.irqoff.outside),
		      "an older file's other_ns read as outside");
		report_free(&back);
		free(text);
		dist_free(&r.irqoff.outside);
		dist_free(irq);
	}
	sample_free(rows);
}

/*
 * Flush parts, causes and memcg decisions: written, read back, checked by
 * the reader (wall_ns is flush_ns's sum), and the causes shared out.
 */
static void test_flush_figures(void)
{
	struct report r, back;
	struct row rows[2];
	struct read_info info;
	char err[256] = "", *text, *bad;

	sample_report(&r, rows);
	for (uint64_t v = 1; v <= 9; v++)
		dist_add_value(&rows[0].dist[DIST_FLUSH], v * 1000);	/* 9 flushes, 45 us */
	rows[0].part[PART_HELD] = 20000;
	rows[0].part[PART_IRQ] = 5000;
	rows[0].part[PART_OTHER] = 20000;
	rows[0].decisions[DECISION_ASKED] = 7;
	rows[0].decisions[DECISION_SKIPPED] = 3;
	/*
	 * Sampled 1 in 4: two samples of cpu.stat (2 and 3 us, each standing
	 * for 4 flushes), and a long flush (always sampled: weight 1) of a
	 * hostile name, 4 us.
	 */
	CHECK(row_add_cause(&rows[0], "cpu.stat", 1, 4, 8000) == 0 &&
	      row_add_cause(&rows[0], "other:\"x\x1b", 1, 1, 4000) == 0 &&
	      row_add_cause(&rows[0], "cpu.stat", 1, 4, 12000) == 0, "causes added");
	CHECK(rows[0].ncauses == 2 && rows[0].causes[0].samples == 2, "one entry per name");
	CHECK(cause_flushes(&rows[0], &rows[0].causes[0]) == 8 &&
	      cause_flushes(&rows[0], &rows[0].causes[1]) == 1, "9 flushes shared 8:1 by weight");
	CHECK(cause_flush_ns(&rows[0], &rows[0].causes[0]) == 37500, "45 us shared 5:1: %llu",
	      (unsigned long long)cause_flush_ns(&rows[0], &rows[0].causes[0]));
	dist_add_value(&rows[1].dist[DIST_FLUSH], 5000);	/* a flush none of whose stacks was taken */
	r.flush_parts = r.memcg_decisions = true;
	r.parts_from = PARTS_FROM_KERNEL;
	r.parts_measured = ((1U << PART_MAX) - 1) & ~(1U << PART_IRQ);
	r.cause_sample = 3;
	text = print_report(&r);
	CHECK(strstr(text, "\"flush_parts\":true,\"flush_parts_from\":\"kernel\","
			   "\"flush_parts_unmeasured\":[\"irq\"]"), "parts' source written: %.400s",
	      strstr(text, "\"flush_parts\":t"));
	CHECK(strstr(text, "\"flush_causes\":[{\"cause\":\"(not sampled)\",\"flushes\":1,"
			   "\"flush_ns\":5000,\"samples\":0}]"), "unsampled flushes still add up");
	CHECK(strstr(text, "\"flush_parts\":{\"flushes\":9,\"wall_ns\":45000,\"held_ns\":20000"),
	      "flush_parts written: %.300s", text);
	CHECK(read_text(text, &back, &info, err) == 0, "%s", err);
	CHECK(back.flush_parts && back.memcg_decisions && back.cause_sample == 3, "sources");
	CHECK(back.parts_from == PARTS_FROM_KERNEL && back.parts_measured == r.parts_measured,
	      "parts' source read back: %d %#x", back.parts_from, back.parts_measured);
	CHECK(back.cgroups[0].part[PART_IRQ] == 5000 && back.cgroups[0].part[PART_OTHER] == 20000,
	      "parts read back");
	CHECK(back.cgroups[0].decisions[DECISION_SKIPPED] == 3 &&
	      back.cgroups[0].decisions[DECISION_ASKED] == 7, "decisions read back");
	CHECK(back.cgroups[0].ncauses == 2 && !strcmp(back.cgroups[0].causes[0].name, "cpu.stat") &&
	      back.cgroups[0].causes[0].samples == 2, "causes read back, most flushes first");
	CHECK(cause_flushes(&back.cgroups[0], &back.cgroups[0].causes[0]) == 8 &&
	      cause_flush_ns(&back.cgroups[0], &back.cgroups[0].causes[1]) == 7500,
	      "shared out the same after reading");
	CHECK_STR(back.cgroups[0].causes[1].name, "other:\"x\x1b");
	CHECK(back.cgroups[1].ncauses == 0, "(not sampled) is derived, not read as a cause");
	report_free(&back);
	/* a wall time that is not the flushes' is refused */
	bad = strdup(text);
	memcpy(strstr(bad, "\"wall_ns\":45000") + 10, "45001", 5);
	CHECK(read_text(bad, &back, &info, err) == -1 && strstr(err, "wall_ns"), "%s", err);
	free(bad);
	free(text);
	row_clear_causes(&rows[0]);
	dist_free(&rows[0].dist[DIST_FLUSH]);
	dist_free(&rows[1].dist[DIST_FLUSH]);
	sample_free(rows);
}

/*
 * A counter measured only with its flush part (flushes_offcpu, offcpu):
 * written and read back where measured; left out where not, and read back
 * as not measured, as from a file written before the counter existed.
 */
static void test_counter_measured(void)
{
	struct report r, back;
	struct row rows[2];
	struct read_info info;
	char err[256] = "", *text;

	sample_report(&r, rows);
	for (int i = 0; i < 4; i++)
		dist_add_value(&rows[0].dist[DIST_FLUSH], 10000);
	rows[0].count[COUNT_FLUSH_HOLDS] = 8;
	rows[0].count[COUNT_FLUSHES_OFFCPU] = 3;
	rows[0].count[COUNT_FLUSH_HOLDS_MAX] = 2;
	r.flush_parts = true;
	r.parts_from = PARTS_FROM_KERNEL;
	r.parts_measured = ((1U << PART_MAX) - 1) & ~(1U << PART_IRQ);
	r.counts_unmeasured = counts_unmeasured_without(r.parts_measured);
	CHECK(r.counts_unmeasured == 0, "with offcpu every counter is measured: %#x",
	      r.counts_unmeasured);
	text = print_report(&r);
	/* the table's order: the counters of the flush distribution after it */
	CHECK(strstr(text, "\"flush_holds\":8,\"flushes_offcpu\":3,\"flush_holds_max\":2"),
	      "written after flush_ns: %.200s", strstr(text, "\"flush_holds\""));
	CHECK(read_text(text, &back, &info, err) == 0, "%s", err);
	CHECK(report_count_measured(&back, COUNT_FLUSHES_OFFCPU) &&
	      back.cgroups[0].count[COUNT_FLUSHES_OFFCPU] == 3 &&
	      back.cgroups[0].count[COUNT_FLUSH_HOLDS_MAX] == 2, "read back");
	report_free(&back);
	free(text);

	/* without offcpu (no sched_info): not measured, so not written */
	r.parts_measured &= ~(1U << PART_OFFCPU);
	r.counts_unmeasured = counts_unmeasured_without(r.parts_measured);
	CHECK(r.counts_unmeasured == 1U << COUNT_FLUSHES_OFFCPU, "only flushes_offcpu: %#x",
	      r.counts_unmeasured);
	text = print_report(&r);
	CHECK(!strstr(text, "flushes_offcpu") && strstr(text, "\"flush_holds\":8,"
							  "\"flush_holds_max\":2"),
	      "left out: %.200s", strstr(text, "\"flush_holds\""));
	CHECK(read_text(text, &back, &info, err) == 0, "%s", err);
	CHECK(!report_count_measured(&back, COUNT_FLUSHES_OFFCPU) &&
	      report_count_measured(&back, COUNT_FLUSH_HOLDS), "read back as not measured");
	report_free(&back);
	free(text);
	dist_free(&rows[0].dist[DIST_FLUSH]);
	sample_free(rows);
}

/* The table's top cause: the first of the flush order, ties by name, found without sorting. */
static void test_top_cause(void)
{
	static const char *const names[] = { "memory.stat", "io.stat", "cpu.stat", "oom", "zswap" };
	static const uint64_t weights[][5] = { { 1, 9, 9, 2, 0 }, { 64, 1, 1, 1, 64 }, { 3, 0, 0, 0, 0 },
					       { 0, 0, 0, 0, 0 } };
	struct row row = { 0 };

	CHECK(row_top_cause(&row) == NULL, "no cause, no top");
	for (size_t t = 0; t < sizeof(weights) / sizeof(weights[0]); t++) {
		size_t *order;

		for (size_t i = 0; i < 5; i++)
			if (weights[t][i] || t == 3)
				CHECK(row_add_cause(&row, names[i], 1, weights[t][i], 10) == 0, "added");
		order = row_causes_by_flushes(&row);
		CHECK(order && row_top_cause(&row) == &row.causes[order[0]],
		      "case %zu: top %s, sorted first %s", t,
		      row_top_cause(&row) ? row_top_cause(&row)->name : "none",
		      order ? row.causes[order[0]].name : "?");
		free(order);
		row_clear_causes(&row);
	}
}

/* Files of the layout that ran to 2^35 ns: buckets above 2^32 fold into the last. */
/*
 * A file from before parts had a source (tests/data, recorded with every
 * part timed): read as timed parts without self, whose time is in other,
 * and the parts of each row add up to its wall time.
 */
static void test_parts_of_older_files(void)
{
	FILE *f = fopen("tests/data/flushparts-6.12-stock-64cpus.json", "r");
	struct read_info info;
	struct report back;
	char err[256] = "";
	size_t rows = 0;

	CHECK(f && report_read(f, &back, &info, err, sizeof(err)) == 0, "read: %s", err);
	if (f)
		fclose(f);
	CHECK(back.flush_parts && back.parts_from == PARTS_FROM_TIMED &&
	      !report_part_measured(&back, PART_SELF) && report_part_measured(&back, PART_IRQ) &&
	      report_part_measured(&back, PART_OTHER), "older file: from %d, measured %#x",
	      back.parts_from, back.parts_measured);
	CHECK(!back.cause_budgeted, "a fixed 1 in cause_sample then");
	for (size_t i = 0; i < back.ncgroups; i++) {
		const struct row *r = &back.cgroups[i];
		uint64_t sum = 0;

		for (int k = 0; k < PART_MAX; k++)
			sum += r->part[k];
		CHECK(r->part[PART_SELF] == 0 && (!r->dist[DIST_FLUSH].count || sum == r->dist[DIST_FLUSH].sum),
		      "%s: self %llu, parts %llu of %llu", r->path,
		      (unsigned long long)r->part[PART_SELF], (unsigned long long)sum,
		      (unsigned long long)r->dist[DIST_FLUSH].sum);
		rows += r->dist[DIST_FLUSH].count > 0;
	}
	CHECK(rows > 0, "rows with flushes");
	report_free(&back);
}

static void test_old_layout_buckets(void)
{
	struct report r, back;
	struct row rows[2];
	struct read_info info;
	char err[256] = "", *text, *old, *at;
	const char *last = "{\"ge\":4160749568,\"le\":20000000000,\"count\":2}";
	const char *was = "{\"ge\":8589934592,\"le\":9126805503,\"count\":1},"
			  "{\"ge\":19327352832,\"le\":20401094655,\"count\":1}";

	sample_report(&r, rows);
	dist_add_value(&rows[1].dist[DIST_HOLD], 10000000000ULL);
	dist_add_value(&rows[1].dist[DIST_HOLD], 20000000000ULL);
	text = print_report(&r);
	at = strstr(text, last);
	CHECK(at != NULL, "a 10 s and a 20 s hold in the last bucket: %.200s", strstr(text, "memory:/m"));
	old = calloc(1, strlen(text) + strlen(was) + 1);
	if (at && old) {
		memcpy(old, text, (size_t)(at - text));
		strcat(old, was);
		strcat(old, at + strlen(last));
		CHECK(read_text(old, &back, &info, err) == 0, "%s", err);
		CHECK(dist_bucket_count(&back.cgroups[1].dist[DIST_HOLD], HIST_BUCKETS - 1) == 2 &&
		      back.cgroups[1].dist[DIST_HOLD].max == 20000000000ULL, "folded into the last bucket");
		report_free(&back);
		/* old buckets beyond the last are still in order */
		{
			char *swapped = strdup(old), *p1 = strstr(swapped, "{\"ge\":8589934592");

			if (p1) {
				size_t l1 = strlen("{\"ge\":8589934592,\"le\":9126805503,\"count\":1}");
				char first[128];

				memcpy(first, p1, l1);
				memmove(p1, p1 + l1 + 1, strlen("{\"ge\":19327352832,\"le\":20401094655,\"count\":1}"));
				p1[strlen("{\"ge\":19327352832,\"le\":20401094655,\"count\":1}")] = ',';
				memcpy(p1 + strlen("{\"ge\":19327352832,\"le\":20401094655,\"count\":1}") + 1, first, l1);
				CHECK(read_text(swapped, &back, &info, err) == -1 && strstr(err, "order"),
				      "%s", err);
			}
			free(swapped);
		}
		/* a bucket of neither layout is still refused */
		memcpy(strstr(old, "8589934592"), "8589934593", 10);
		CHECK(read_text(old, &back, &info, err) == -1 && strstr(err, "bucket"), "%s", err);
	}
	free(old);
	free(text);
	sample_free(rows);
}

static const struct self_costs sample_self = {
	.present = true,
	.map_bytes = 64172032,
	.entries = 10000,
	.entries_used = 12,
	.entries_peak = 40,
	.cpu_user_ns = 50000000,
	.cpu_system_ns = 20000000,
	.bpf_stats = true,
	.bpf_ns = 1230000000,
	.bpf_runs = 12300000,
	.rss_max_bytes = 15204352,
	.own_known = true,
	.bpf_sampled_ns = 1110000000,
	.lock_events = 3000000,
	.map_bytes_ceiling = 66617148,
};

static bool same_self(const struct self_costs *a, const struct self_costs *b)
{
	return a->present == b->present && a->map_bytes == b->map_bytes &&
	       a->entries == b->entries && a->entries_used == b->entries_used &&
	       a->entries_peak == b->entries_peak && a->cpu_user_ns == b->cpu_user_ns &&
	       a->cpu_system_ns == b->cpu_system_ns && a->bpf_stats == b->bpf_stats &&
	       a->bpf_ns == b->bpf_ns && a->bpf_runs == b->bpf_runs &&
	       a->rss_max_bytes == b->rss_max_bytes && a->own_known == b->own_known &&
	       a->bpf_sampled_ns == b->bpf_sampled_ns && a->lock_events == b->lock_events &&
	       a->map_bytes_ceiling == b->map_bytes_ceiling;
}

static int occurrences(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

/* rstatlat's own costs, the folded rows of exited processes and removed cgroups. */
static void test_self_and_folds(void)
{
	struct report r, back;
	struct row rows[2], proc = { .comm = "cat", .exited = 731, .count[COUNT_LOCKED] = 1, .path = "/x" };
	struct read_info info;
	char err[256] = "", jerr[256], *text;
	yajl_val j;

	sample_report(&r, rows);
	r.self = sample_self;
	rows[1].path = "(removed cgroups)";
	rows[1].cgid = 0;
	rows[1].hierarchy = 0;
	rows[1].removed_cgroups = 1976;
	r.per_process = true;
	r.processes = &proc;
	r.nprocesses = 1;
	text = print_report(&r);
	j = parse_json(text, jerr, sizeof(jerr));
	CHECK(j != NULL, "valid JSON: %s", jerr);
	yajl_tree_free(j);
	CHECK(strstr(text,
		     ",\"retired_dropped\":0,\"cause_stack_missing\":0,\"memcg_skips_untracked\":0,"
		     "\"flush_start_unseen\":0,\"lock_scope_full\":0,\"program_skipped\":0,"
		     "\"flushers_full\":0,\"slow_unprinted\":0,\"entries_growing\":0,\"stage_"
		     "unnamed\":0},"
		     "\"self\":{\"map_bytes\":64172032,\"map_bytes_ceiling\":66617148,"
		     "\"entries\":10000,\"entries_used\":12,\"entries_peak\":40,"
		     "\"cpu_user_ns\":50000000,"
		     "\"cpu_system_ns\":20000000,\"bpf_ns\":1230000000,\"bpf_runs\":12300000,"
		     "\"bpf_sampled_ns\":1110000000,\"lock_events\":3000000,"
		     "\"rss_max_bytes\":15204352},\"findings\":[{\"id\":\"rstatlat_itself\","
		     "\"severity\":\"warning\",\"text\":\"rstatlat lost 4 events: entries_full 4 "
		     "(raise --max-entries); its own BPF time is 55.5% of one CPU\",\"figures\":"
		     "{\"lost\":4,\"bpf_cpu_ppm\":555000}}]}\n") != NULL,
	      "self after lost, the findings last: %s", text);
	CHECK(occurrences(text, "\"removed_cgroups\":") == 1 &&
	      strstr(text, "\"top_flusher\":null,\"removed_cgroups\":1976}") != NULL,
	      "removed_cgroups on the aggregate row only");
	CHECK(occurrences(text, "\"exited\":") == 1 &&
	      strstr(text, "\"flush_holds_max\":0,\"exited\":731}]") != NULL,
	      "exited on the folded process row only");
	CHECK(read_text(text, &back, &info, err) == 0, "%s", err);
	CHECK(same_self(&back.self, &sample_self), "self read back");
	CHECK(back.ncgroups == 2 && back.cgroups[1].removed_cgroups == 1976 &&
	      back.cgroups[0].removed_cgroups == 0 && !strcmp(back.cgroups[1].path,
							     "(removed cgroups)"),
	      "removed_cgroups read back");
	report_free(&back);
	free(text);

	/* BPF run time unknown: null, read back as unknown */
	r.self.bpf_stats = false;
	text = print_report(&r);
	CHECK(strstr(text, "\"bpf_ns\":null,\"bpf_runs\":null,") != NULL, "nulls: %s", text);
	CHECK(read_text(text, &back, &info, err) == 0 && back.self.present &&
	      !back.self.bpf_stats && back.self.bpf_ns == 0 && back.self.bpf_runs == 0 &&
	      back.self.cpu_user_ns == 50000000, "%s", err);
	report_free(&back);
	free(text);

	/* a file from before the sampled time: not known, and not made up */
	r.self.own_known = false;
	text = print_report(&r);
	CHECK(!strstr(text, "bpf_sampled_ns") && !strstr(text, "lock_events"), "%s", text);
	CHECK(read_text(text, &back, &info, err) == 0 && back.self.present &&
	      !back.self.own_known && back.self.bpf_sampled_ns == 0, "%s", err);
	report_free(&back);
	free(text);

	/* none: no key, nothing read back */
	memset(&r.self, 0, sizeof(r.self));
	rows[1].removed_cgroups = 0;
	proc.exited = 0;
	text = print_report(&r);
	CHECK(!strstr(text, "\"self\"") && !strstr(text, "removed_cgroups") &&
	      !strstr(text, "exited"), "nothing when absent or zero: %s", text);
	CHECK(read_text(text, &back, &info, err) == 0 && !back.self.present, "%s", err);
	report_free(&back);
	free(text);
	sample_free(rows);
}

/* Intervals merge their costs: CPU and BPF time add, the last says what is in use. */
static void test_self_merge(void)
{
	struct report r, back;
	struct row rows[2];
	struct read_info info;
	char err[256] = "", *one, *two, *all;

	sample_report(&r, rows);
	r.type = REPORT_INTERVAL;
	r.self = sample_self;
	rows[1].removed_cgroups = 5;
	one = print_report(&r);
	r.self.entries_used = 30;
	r.self.entries_peak = 45;
	r.self.rss_max_bytes = 1000;
	r.self.bpf_runs = 1;
	rows[1].removed_cgroups = 7;
	two = print_report(&r);
	all = malloc(strlen(one) + strlen(two) + 1);
	strcat(strcpy(all, one), two);
	CHECK(read_text(all, &back, &info, err) == 0, "%s", err);
	CHECK(back.self.present && back.self.cpu_user_ns == 100000000 &&
		      back.self.cpu_system_ns == 40000000 && back.self.bpf_ns == 2460000000ULL &&
		      back.self.own_known && back.self.bpf_sampled_ns == 2220000000ULL &&
		      back.self.lock_events == 6000000 && back.self.bpf_runs == 12300001 &&
		      back.self.entries_used == 30 && back.self.entries_peak == 45 &&
		      back.self.entries == 10000 && back.self.rss_max_bytes == 15204352 &&
		      back.self.bpf_stats,
	      "merged costs");
	CHECK(back.cgroups[1].removed_cgroups == 12, "removed cgroups add up");
	report_free(&back);
	/* an object without costs: the merged window's are not known */
	free(two);
	memset(&r.self, 0, sizeof(r.self));
	two = print_report(&r);
	strcat(strcpy(all, one), two);
	CHECK(read_text(all, &back, &info, err) == 0 && !back.self.present, "%s", err);
	report_free(&back);
	free(one);
	free(two);
	free(all);
	sample_free(rows);
}

/* A name longer than the JSON view's buffer is written whole, escaped alike. */
static void test_long_name(void)
{
	struct report r, back;
	struct row rows[2];
	struct read_info info;
	char err[256] = "", *text, *path = malloc(100001);

	for (int i = 0; i < 100000; i++)
		path[i] = i % 1000 == 7 ? '"' : (char)('a' + i % 26);
	path[100000] = '\0';
	sample_report(&r, rows);
	rows[0].path = path;
	text = print_report(&r);
	CHECK(read_text(text, &back, &info, err) == 0, "%s", err);
	CHECK(back.ncgroups == 2 && !strcmp(back.cgroups[0].path, path), "long path read back");
	report_free(&back);
	free(text);
	free(path);
	sample_free(rows);
}

/* Intervals merge row by row; a summary, when present, wins. */
static void test_merge(void)
{
	struct report r, back;
	struct row rows[2];
	struct read_info info;
	char err[256] = "", *one, *two;

	sample_report(&r, rows);
	r.type = REPORT_INTERVAL;
	one = print_report(&r);
	two = malloc(2 * strlen(one) + 1);
	strcpy(two, one);
	strcat(two, one);
	CHECK(read_text(two, &back, &info, err) == 0, "%s", err);
	CHECK(info.intervals == 2 && back.ncgroups == 2, "two intervals, two rows: %zu %zu", info.intervals, back.ncgroups);
	CHECK(back.cgroups[0].count[COUNT_LOCKED] == 20 && back.cgroups[0].dist[DIST_HOLD].count == 20, "merged");
	CHECK(back.duration_ns == 2 * r.duration_ns, "durations add");
	report_free(&back);
	free(one);

	r.type = REPORT_SUMMARY;
	r.duration_ns = 7;
	one = print_report(&r);
	two = realloc(two, strlen(two) + strlen(one) + 1);
	strcat(two, one);
	CHECK(read_text(two, &back, &info, err) == 0, "%s", err);
	CHECK(info.summaries == 1 && back.duration_ns == 7 && back.cgroups[0].count[COUNT_LOCKED] == 10,
	      "the summary is used, not the intervals");
	report_free(&back);
	free(one);
	free(two);
	sample_free(rows);
}

/*
 * Rows are parsed one at a time out of the line's text (split_rows): a
 * path holding what the cut looks for ('"]', '},{', '\\"', "processes")
 * comes back whole, and so do rows after it.
 */
static void test_rows_read_one_at_a_time(void)
{
	struct report r, back;
	struct row rows[2];
	struct read_info info;
	char err[256] = "", *text;
	static const char hostile[] = "/x\"],\"processes\":[{\"y\\\"}]},{\"z";

	sample_report(&r, rows);
	rows[0].path = (char *)hostile;
	text = print_report(&r);
	CHECK(read_text(text, &back, &info, err) == 0, "%s", err);
	CHECK(back.ncgroups == 2 && !strcmp(back.cgroups[0].path, hostile) &&
	      !strcmp(back.cgroups[1].path, "memory:/m") &&
	      back.cgroups[0].dist[DIST_HOLD].count == 10 &&
	      back.cgroups[1].count[COUNT_LOCKED] == 3, "rows %zu, first path %s", back.ncgroups,
	      back.ncgroups ? back.cgroups[0].path : "-");
	report_free(&back);
	free(text);
	sample_free(rows);
}

static void expect_bad(const char *text, const char *want)
{
	struct report back;
	struct read_info info;
	char err[256] = "";

	CHECK(read_text(text, &back, &info, err) == -1, "accepted: %.60s", text);
	CHECK(strstr(err, want) != NULL, "error '%s' lacks '%s'", err, want);
	CHECK(!strchr(err, '\n'), "one line: %s", err);
	CHECK(back.ncgroups == 0 && back.cgroups == NULL, "nothing half-read");
}

static char *replaced(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *out = malloc(strlen(text) + strlen(to) + 1);

	if (!at) {
		strcpy(out, "(pattern not found)");
		return out;
	}
	memcpy(out, text, at - text);
	strcpy(out + (at - text), to);
	strcat(out, at + strlen(from));
	return out;
}

/*
 * Counters are u64: 2^64-1 reads as itself. Rows read before the object
 * says its type (keys in another order: jq -S) go where the type says.
 */
static void test_u64_and_key_order(void)
{
	struct report r, back;
	struct row rows[2];
	struct read_info info;
	char err[256] = "", *text, *moved;

	sample_report(&r, rows);
	rows[0].count[COUNT_LOCKED] = UINT64_MAX;
	rows[1].count[COUNT_CONTENDED] = UINT64_MAX - 1;
	text = print_report(&r);
	CHECK(read_text(text, &back, &info, err) == 0, "%s", err);
	CHECK(back.ncgroups == 2 && back.cgroups[0].count[COUNT_LOCKED] == UINT64_MAX &&
	      back.cgroups[1].count[COUNT_CONTENDED] == UINT64_MAX - 1, "u64 read back");
	report_free(&back);
	/* "type" after the rows, and after "processes" of none: the line's one "}\n" */
	moved = replaced(text, "\"type\":\"summary\",", "");
	{
		char *out = replaced(moved, "}\n", ",\"type\":\"summary\"}\n");

		CHECK(read_text(out, &back, &info, err) == 0, "%s", err);
		CHECK(back.ncgroups == 2 && info.summaries == 1 &&
		      back.cgroups[0].count[COUNT_LOCKED] == UINT64_MAX &&
		      same_dist(&back.cgroups[0].dist[DIST_HOLD], &rows[0].dist[DIST_HOLD]),
		      "rows before the type: %zu rows", back.ncgroups);
		CHECK(!back.per_process, "no processes list: not a -p file");
		report_free(&back);
		free(out);
	}
	free(moved);
	/* the rows of a "slow" object are skipped unread, whatever they hold */
	moved = malloc(strlen(text) + 128);
	sprintf(moved, "{\"schema\":\"rstatlat/1\",\"type\":\"slow\",\"cgroups\":[{},7]}\n%s", text);
	CHECK(read_text(moved, &back, &info, err) == 0 && back.ncgroups == 2, "slow rows: %s", err);
	report_free(&back);
	free(moved);
	free(text);
	sample_free(rows);
}

/*
 * "locks": global or per-subsystem read back; absent (files from before)
 * unknown and not written; anything else, or two in one file, refused.
 */
static void test_locks(void)
{
	struct report r, back;
	struct row rows[2];
	struct read_info info;
	char err[256] = "", *text, *bad, *two;

	sample_report(&r, rows);
	text = print_report(&r);
	CHECK(!strstr(text, "\"locks\""), "unknown locks written");
	CHECK(read_text(text, &back, &info, err) == 0 && back.locks == LOCKS_UNKNOWN,
	      "absent: unknown (%s)", err);
	report_free(&back);
	free(text);
	for (int k = LOCKS_GLOBAL; k < LOCKS_MAX; k++) {
		r.locks = (enum lock_scope)k;
		text = print_report(&r);
		CHECK(read_text(text, &back, &info, err) == 0 && back.locks == r.locks,
		      "%s read back as %d (%s)", lock_scope_names[k], back.locks, err);
		report_free(&back);
		free(text);
	}
	text = print_report(&r);
	bad = replaced(text, "\"per-subsystem\"", "\"subsystem\"");
	expect_bad(bad, "locks: not \"global\" or \"per-subsystem\"");
	free(bad);
	bad = replaced(text, "\"per-subsystem\"", "7");
	expect_bad(bad, "locks: not");
	free(bad);
	two = replaced(text, "\"per-subsystem\"", "\"global\"");
	bad = malloc(strlen(text) + strlen(two) + 1);
	strcpy(bad, text);
	strcat(bad, two);
	expect_bad(bad, "line 2: objects from different kernels or attach points");
	free(bad);
	free(two);
	free(text);
	sample_free(rows);
}

/*
 * Rows of one cgroup under two locks (lock_rows, 6.16+ with fentry) stay
 * two rows through JSON; "lock_rows" and each row's "lock" read back; a
 * lock name too long or not a string is refused; and compare's fold adds
 * them up into one row per cgroup, as a kernel that does not tell them
 * apart has it.
 */
static void test_lock_rows(void)
{
	struct report r, back;
	struct row rows[2];
	struct read_info info;
	char err[256] = "", *text, *bad;

	sample_report(&r, rows);
	rows[1].cgid = rows[0].cgid;
	rows[1].hierarchy = rows[0].hierarchy;
	rows[1].path = rows[0].path;
	strcpy(rows[0].lock, "base");
	strcpy(rows[1].lock, "memory");
	strcpy(rows[1].lock_type, "write");
	r.locks = LOCKS_PER_SUBSYSTEM;
	r.lock_rows = true;
	r.lock_types = true;
	text = print_report(&r);
	CHECK(strstr(text, "\"lock_rows\":true,\"lock_types\":true") &&
	      strstr(text, "\"lock\":\"memory\",\"lock_type\":\"write\""),
	      "lock rows not written: %.300s", text);
	CHECK(read_text(text, &back, &info, err) == 0 && back.lock_rows && back.ncgroups == 2,
	      "read back: %d rows, lock_rows %d (%s)", (int)back.ncgroups, back.lock_rows, err);
	if (back.ncgroups == 2) {
		bool base = !strcmp(back.cgroups[0].lock, "base") ||
			    !strcmp(back.cgroups[1].lock, "base");
		bool memory = !strcmp(back.cgroups[0].lock, "memory") ||
			      !strcmp(back.cgroups[1].lock, "memory");

		CHECK(base && memory, "locks read back: %s %s", back.cgroups[0].lock,
		      back.cgroups[1].lock);
		CHECK(back.lock_types && (!strcmp(back.cgroups[0].lock_type, "write") ||
					  !strcmp(back.cgroups[1].lock_type, "write")),
		      "lock type not read back");
	}
	CHECK(report_fold_locks(&back, true, true) == 0 && back.ncgroups == 1 && !back.lock_rows &&
	      back.locks_folded && !back.cgroups[0].lock[0] &&
	      back.cgroups[0].count[COUNT_LOCKED] == 13 &&
	      back.cgroups[0].dist[DIST_HOLD].count == 13,
	      "folded: %zu rows, locked %llu", back.ncgroups,
	      back.ncgroups ? (unsigned long long)back.cgroups[0].count[COUNT_LOCKED] : 0ULL);
	report_free(&back);
	bad = replaced(text, "\"memory\"", "\"a-lock-name-of-17\"");
	expect_bad(bad, ".lock: not a name of 1 to 15 bytes");
	free(bad);
	bad = replaced(text, "\"memory\"", "3");
	expect_bad(bad, ".lock: not a name of 1 to 15 bytes");
	free(bad);
	bad = replaced(text, "\"lock_rows\":true", "\"lock_rows\":1");
	expect_bad(bad, "lock_rows: not a boolean");
	free(bad);
	bad = replaced(text, "\"write\"", "\"writeXYZ\"");
	expect_bad(bad, ".lock_type: not a name of 1 to 7 bytes");
	free(bad);
	free(text);
	sample_free(rows);
}

static void test_bad_input(void)
{
	struct report r;
	struct row rows[2];
	char *good, *bad;
	static const struct {
		const char *from, *to, *want;
	} edits[] = {
		{ "\"schema\":\"rstatlat/1\"", "\"schema\":\"rstatlat/2\"", "unsupported schema" },
		{ "\"schema\":\"rstatlat/1\"", "\"schema\":\"other/1\"", "not rstatlat -j output" },
		{ "\"type\":\"summary\"", "\"type\":\"weird\"", "unknown object type" },
		{ "\"duration_ns\":2000000000,", "", "missing key \"duration_ns\"" },
		{ "\"locked\":10,", "", "cgroups[0]: missing key \"locked\"" },
		{ "\"locked\":10", "\"locked\":-1", "not a non-negative integer" },
		{ "\"locked\":10", "\"locked\":\"10\"", "not a non-negative integer" },
		{ "\"path\":", "\"path\":1,\"x\":", "not a string" },
		{ "\"count\":10,", "\"count\":11,", "count says 11" },
		{ "{\"ge\":768,\"le\":799,\"count\":1}", "{\"ge\":769,\"le\":799,\"count\":1}",
		  "not a rstatlat/1 bucket" },
		{ "\"max\":7770", "\"max\":99999", "does not fit" },
		{ "\"cgroups\":[", "\"cgroups\":{\"a\":[", "not JSON" },
		{ "\"cgroups\":[", "\"cgroups\":7,\"x\":[", "\"cgroups\" is not an array" },
		{ "\"kernel\":{", "\"kernel\":{\"release\":\"x\",", "duplicate" },
		{ "\"lost\":{", "\"lost\":[{", "not JSON" },
		{ "\"self\":{", "\"self\":7,\"x\":{", "\"self\" is not an object" },
		{ "\"map_bytes\":64172032,", "", "self: missing key \"map_bytes\"" },
		{ "\"entries\":10000", "\"entries\":-1",
		  "self: \"entries\" is not a non-negative" },
		{ "\"entries_used\":12", "\"entries_used\":4294967296",
		  "\"entries_used\" is out of range" },
		{ "\"entries_peak\":40", "\"entries_peak\":4294967296",
		  "\"entries_peak\" is out of range" },
		{ "\"cpu_user_ns\":50000000", "\"cpu_user_ns\":0.5",
		  "\"cpu_user_ns\" is not a non-negative" },
		{ "\"bpf_ns\":1230000000", "\"bpf_ns\":null", "must both be numbers or both null" },
		{ "\"bpf_runs\":12300000", "\"bpf_runs\":\"many\"",
		  "\"bpf_runs\" is not a non-negative" },
		{ "\"removed_cgroups\":3", "\"removed_cgroups\":\"3\"",
		  "cgroups[1]: \"removed_cgroups\" is not" },
	};

	sample_report(&r, rows);
	r.self = sample_self;
	rows[1].removed_cgroups = 3;
	good = print_report(&r);
	expect_bad("", "empty file");
	expect_bad("\n\n", "no interval or summary object");
	expect_bad("hello\n", "line 1: not JSON");
	expect_bad("42", "line 1: not rstatlat -j output");
	expect_bad("\n\"abc", "line 2: truncated");
	expect_bad("[1,2]\n", "not rstatlat -j output");
	expect_bad("{\"schema\":\"rstatlat-compare/1\"}\n", "not rstatlat -j output");
	expect_bad("{\"schema\":\"rstatlat/1\",\"type\":\"summary\"}\n", "missing key");
	bad = strndup(good, strlen(good) / 2);
	expect_bad(bad, "line 1: truncated");
	free(bad);
	bad = malloc(strlen(good) + 2);
	memcpy(bad, good, strlen(good) - 1);
	strcpy(bad + strlen(good) - 1, "\n{");
	expect_bad(bad, "line 2: truncated");
	free(bad);
	for (size_t i = 0; i < sizeof(edits) / sizeof(*edits); i++) {
		bad = replaced(good, edits[i].from, edits[i].to);
		expect_bad(bad, edits[i].want);
		free(bad);
	}
	/* a second kernel in one file */
	bad = malloc(2 * strlen(good) + 1);
	strcpy(bad, good);
	strcat(bad, good);
	{
		char *two = replaced(bad + strlen(good), "6.18.0-test", "6.1.0-test");

		strcpy(bad + strlen(good), two);
		free(two);
	}
	expect_bad(bad, "line 2: objects from different kernels");
	free(bad);
	free(good);
	sample_free(rows);
}

/*
 * -- COMMAND: argv, pid, cgroups and how it ended read back, hostile
 * text kept as it was; an interval (still running) then the summary gives
 * the summary's ending; every bad shape refused with one line.
 */
static void test_command(void)
{
	static char *argv[] = { "sh", "-c", "echo \"\x1b[2J\"; exit 3" };
	static const struct { const char *from, *to, *want; } edits[] = {
		{ "\"argv\":[", "\"argv\":7,\"x\":[", "\"argv\" is not an array" },
		{ "\"argv\":[\"sh\"", "\"argv\":[1", "argv[0] is not a string" },
		{ "\"pid\":42,", "", "command: missing key \"pid\"" },
		{ "\"status\":3", "\"status\":256", "\"status\" is not null or 0..255" },
		{ "\"status\":3", "\"status\":\"3\"", "\"status\" is not null or 0..255" },
		{ "\"hierarchy\":4,\"path\":\"memory:/rstatlat-41\"",
		  "\"hierarchy\":4", "command.cgroups[1]: missing key \"path\"" },
		{ "\"command\":{", "\"command\":[{", "not JSON" },
	};
	struct report r, back;
	struct row rows[2];
	struct read_info info;
	char err[256] = "", *text, *interval, *both, *bad;

	sample_report(&r, rows);
	r.command = (struct command_info){
		.present = true, .argv = argv, .argc = 3, .pid = 42, .ncgroups = 2,
		.cgroups = { { .id = 5, .hierarchy = 0, .path = "/rstatlat-41" },
			     { .id = 9, .hierarchy = 4, .path = "memory:/rstatlat-41" } },
	};
	r.type = REPORT_INTERVAL;
	interval = print_report(&r);
	CHECK(strstr(interval, "\"status\":null,\"signal\":null"), "running: nulls");
	r.type = REPORT_SUMMARY;
	r.command.ended = true;
	r.command.status = 3;
	text = print_report(&r);
	CHECK(read_text(text, &back, &info, err) == 0, "%s", err);
	CHECK(back.command.present && back.command.argc == 3 && back.command.pid == 42 &&
	      back.command.ended && back.command.status == 3 && back.command.signal == 0,
	      "command read back");
	CHECK_STR(back.command.argv[2], argv[2]);
	CHECK(back.command.ncgroups == 2 && back.command.cgroups[1].hierarchy == 4 &&
	      back.command.cgroups[1].id == 9, "cgroups read back");
	CHECK_STR(back.command.cgroups[1].path, "memory:/rstatlat-41");
	report_free(&back);
	both = malloc(strlen(interval) + strlen(text) + 1);
	strcpy(stpcpy(both, interval), text);
	CHECK(read_text(interval, &back, &info, err) == 0 && !back.command.ended,
	      "an interval: still running");
	report_free(&back);
	CHECK(read_text(both, &back, &info, err) == 0 && back.command.ended &&
	      back.command.status == 3, "the summary says how it ended");
	report_free(&back);
	for (size_t i = 0; i < sizeof(edits) / sizeof(*edits); i++) {
		bad = replaced(text, edits[i].from, edits[i].to);
		expect_bad(bad, edits[i].want);
		free(bad);
	}
	free(both);
	free(interval);
	free(text);
	sample_free(rows);
}

/* A poller's figures: two options, rounds, and a hostile option string. */
static void sample_workload(struct workload_info *w)
{
	memset(w, 0, sizeof(*w));
	*w = (struct workload_info){ .present = true, .runs = 1, .name = "poller",
				     .hierarchy = "v2", .wall_ns = 3000000000ULL, .noptions = 2,
				     .measured = 1U << WL_READS | 1U << WL_ROUNDS |
						 1U << WL_ROUNDS_LATE };
	strcpy(w->stopped_by, "TERM");	/* sigabbrev_np's: upper case */
	strcpy(w->options[0].key, "cgroups");
	w->options[0].number = 100;
	strcpy(w->options[1].key, "files");
	w->options[1].text = strdup("cpu.stat\"\x1b[2J");
	w->count[WL_READS] = 600;
	w->count[WL_ROUNDS] = 3;
	w->count[WL_ROUNDS_LATE] = 1;
	for (uint64_t v = 1; v <= 600; v++)
		dist_add_value(&w->read, 1000 + v * 37);
	for (uint64_t v = 1; v <= 3; v++)
		dist_add_value(&w->round, 900000 * v);
}

static void check_same_workload(const struct workload_info *a, const struct workload_info *b)
{
	CHECK(b->present && !b->mixed && b->runs == a->runs && b->wall_ns == a->wall_ns &&
	      b->measured == a->measured, "figures read back");
	CHECK_STR(b->name, a->name);
	CHECK_STR(b->hierarchy, a->hierarchy);
	CHECK_STR(b->stopped_by, a->stopped_by);
	CHECK(!memcmp(b->count, a->count, sizeof(a->count)), "counters read back");
	CHECK(b->noptions == a->noptions && b->options[0].number == 100 &&
	      !b->options[0].text && b->options[1].text, "options read back");
	if (b->noptions == 2 && b->options[1].text)
		CHECK_STR(b->options[1].text, a->options[1].text);
	CHECK(same_dist(&b->read, &a->read) && same_dist(&b->round, &a->round),
	      "distributions read back");
}

/*
 * rstatlat load's figures: the summary's "workload" and the line of type
 * workload read back alike; two summaries add up; bad ones are refused.
 */
static void test_workload(void)
{
	static const struct { const char *from, *to, *want; } edits[] = {
		{ "\"name\":\"poller\"", "\"name\":\"Poll er\"", "\"name\" is not a word" },
		{ "\"rounds\":3,", "\"rounds\":0,", "more rounds_late than rounds" },
		{ "\"reads\":600,", "\"reads\":601,", "read_ns.count is not reads" },
		{ "\"options\":{", "\"options\":{\"x\":[1],", "workload.options.x: not an integer" },
		{ "\"options\":{", "\"options\":{\"A\":1,", "a key is not a word" },
		{ "\"wall_ns\":3000000000,", "", "workload: missing key \"wall_ns\"" },
		{ "\"stopped_by\":\"TERM\"", "\"stopped_by\":7", "\"stopped_by\" is not a word" },
		{ "\"name\":\"poller\",", "\"name\":\"poller\",\"runs\":0,", "\"runs\" is not 1" },
		{ "\"workload\":{", "\"workload\":[{", "not JSON" },
	};
	struct report r, back;
	struct workload_info w;
	struct row rows[2];
	struct read_info info;
	char err[256] = "", *text, *two, *line = NULL, *bad;
	size_t len = 0;
	FILE *f;

	sample_report(&r, rows);
	sample_workload(&r.workload);
	text = print_report(&r);
	CHECK(read_text(text, &back, &info, err) == 0, "%s", err);
	check_same_workload(&r.workload, &back.workload);
	report_free(&back);
	two = malloc(2 * strlen(text) + 1);
	strcpy(stpcpy(two, text), text);
	CHECK(read_text(two, &back, &info, err) == 0 && back.workload.runs == 2 &&
	      !back.workload.mixed && back.workload.count[WL_READS] == 1200 &&
	      back.workload.read.count == 1200 && back.workload.wall_ns == 6000000000ULL,
	      "two summaries add up: %s", err);
	report_free(&back);
	free(two);
	/* one asked otherwise: unlike, and it says so when written and read again */
	bad = replaced(text, "\"cgroups\":100", "\"cgroups\":7");
	two = malloc(strlen(text) + strlen(bad) + 1);
	strcpy(stpcpy(two, text), bad);
	free(bad);
	CHECK(read_text(two, &back, &info, err) == 0 && back.workload.mixed &&
	      back.workload.options[0].number == 100, "other options: mixed, %s", err);
	free(two);
	two = print_report(&back);
	report_free(&back);
	CHECK(strstr(two, "\"runs\":2,\"mixed\":true") && read_text(two, &back, &info, err) == 0 &&
	      back.workload.runs == 2 && back.workload.mixed, "runs and mixed read back: %s", err);
	report_free(&back);
	for (size_t i = 0; i < sizeof(edits) / sizeof(*edits); i++) {
		bad = replaced(text, edits[i].from, edits[i].to);
		expect_bad(bad, edits[i].want);
		free(bad);
	}
	/* the line rstatlat load -j prints, as rstatlat reads it from the command */
	f = open_memstream(&line, &len);
	json_print_workload(f, &r.workload);
	fclose(f);
	f = fmemopen(line, len, "r");
	CHECK(workload_read(f, &w, err, sizeof(err)) == 0, "%s", err);
	fclose(f);
	check_same_workload(&r.workload, &w);
	workload_free(&w);
	f = fmemopen(text, strlen(text), "r");
	CHECK(workload_read(f, &w, err, sizeof(err)) == -1 && strstr(err, "no workload object") &&
	      !w.present, "a summary is not a workload: %s", err);
	fclose(f);
	/* a file without one: no workload, and none made up */
	workload_free(&r.workload);
	free(text);
	text = print_report(&r);
	CHECK(!strstr(text, "workload"), "no workload written");
	CHECK(read_text(text, &back, &info, err) == 0 && !back.workload.present, "none read");
	report_free(&back);
	free(line);
	free(two);
	free(text);
	sample_free(rows);
}

/* The compare views: parseable JSON, hostile names inert in text and md. */
static void test_views(void)
{
	struct report r;
	struct row rows[2];
	struct comparison c = { .alpha = 0.01, .noise = 0.05 };
	char err[128], *buf = NULL;
	size_t len = 0;
	char jerr[256];
	yajl_val j;
	FILE *f;

	sample_report(&r, rows);
	c.before = (struct side){ .file = "b\x1b]0;x\a.json", .r = &r, .irqoff_source = "lock" };
	c.after = (struct side){ .file = "a.json", .r = &r, .irqoff_source = "lock" };
	CHECK(compare_build(&c, NULL, 0, NULL, err, sizeof(err)) == 0, "%s", err);
	for (int fmt = FMT_TEXT; fmt <= FMT_JSON; fmt++) {
		f = open_memstream(&buf, &len);
		compare_print(f, &c, fmt, 0, fmt == FMT_TEXT);
		fclose(f);
		CHECK(!strchr(buf, '\x1b') && !strchr(buf, '\a'), "format %d: raw escape out", fmt);
		if (fmt == FMT_JSON) {
			j = parse_json(buf, jerr, sizeof(jerr));
			CHECK(j != NULL, "compare JSON does not parse: %s", jerr);
			CHECK(j && YAJL_IS_STRING(member(j, "schema")), "schema");
			yajl_tree_free(j);
		} else {
			CHECK(strstr(buf, "\\x1b") != NULL, "format %d shows the escape", fmt);
		}
		if (fmt == FMT_MD)
			CHECK(strstr(buf, "#### /a\"b\\\\x0a\\\\x1b\\[31m") != NULL,
			      "markdown: escapes shown, '[' and '\\' escaped:\n%s", buf);
		free(buf);
		buf = NULL;
	}
	compare_free(&c);
	sample_free(rows);
}

/*
 * Irqs-off per row that are the holds: json.c copies the hold_ns text for
 * irqoff_ns while it is still in its buffer, else writes it again. Rows
 * large enough that the buffer is flushed between the two now and then:
 * with these (fixed) rows, 10 of the 300 write it again, as counted once by
 * instrumenting json.c.
 */
static void test_irqoff_of_holds(void)
{
	struct report r = { .type = REPORT_SUMMARY, .attach = "tracepoint",
			    .irqoff_rows = IRQOFF_ROWS_LOCK };
	size_t cap = 0, rows = 300, same = 0;
	char *text;
	char jerr[256];
	yajl_val j, list;

	for (size_t i = 0; i < rows; i++) {
		struct row *row = report_add_row(&r.cgroups, &r.ncgroups, &cap);

		row->cgid = i + 1;
		CHECK(asprintf(&row->path, "/r%zu", i) > 0, "path");
		row->count[COUNT_LOCKED] = 400 + i;
		for (uint64_t v = 0; v < row->count[COUNT_LOCKED]; v++)
			dist_add_value(&row->dist[DIST_HOLD], 100 + v * (997 + i));
	}
	text = print_report(&r);
	j = parse_json(text, jerr, sizeof(jerr));
	CHECK(j != NULL, "JSON does not parse: %s", jerr);
	list = j ? member(j, "cgroups") : NULL;
	for (size_t i = 0; YAJL_IS_ARRAY(list) && i < list->u.array.len; i++) {
		yajl_val row = list->u.array.values[i];

		same += json_same(member(row, "irqoff_ns"), member(row, "hold_ns")) &&
			member(row, "hold_ns");
	}
	CHECK(same == rows, "%zu of %zu rows: irqoff_ns the same as hold_ns", same, rows);
	CHECK(strlen(text) > 4 * 256 * 1024, "%zu bytes: the 256 KiB buffer flushed under 4 times",
	      strlen(text));
	yajl_tree_free(j);
	free(text);
	report_free(&r);
}

int main(void)
{
	RUN_TEST(test_round_trip());
	RUN_TEST(test_flush_figures());
	RUN_TEST(test_counter_measured());
	RUN_TEST(test_old_layout_buckets());
	RUN_TEST(test_parts_of_older_files());
	RUN_TEST(test_self_and_folds());
	RUN_TEST(test_self_merge());
	RUN_TEST(test_long_name());
	RUN_TEST(test_merge());
	RUN_TEST(test_rows_read_one_at_a_time());
	RUN_TEST(test_u64_and_key_order());
	RUN_TEST(test_bad_input());
	RUN_TEST(test_locks());
	RUN_TEST(test_lock_rows());
	RUN_TEST(test_command());
	RUN_TEST(test_workload());
	RUN_TEST(test_views());
	RUN_TEST(test_irqoff_of_holds());
	RUN_TEST(test_top_cause());
	return check_done("test_report_read");
}

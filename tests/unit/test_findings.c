// SPDX-License-Identifier: GPL-2.0
/*
 * Findings: each rule fires on a recorded file or a report made to cross
 * its threshold, and stays silent just under it; the table shows them
 * within 80 columns, escaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "findings.h"
#include "report_read.h"
#include "escape.h"
#include "view.h"

#define DATA "tests/data/"

static int read_file(const char *name, struct report *r)
{
	struct read_info info = { 0 };
	char err[256] = "";
	FILE *f = fopen(name, "r");
	int ret = f ? report_read(f, r, &info, err, sizeof(err)) : -1;

	if (f)
		fclose(f);
	if (ret)
		fprintf(stderr, "%s: %s\n", name, err);
	return ret;
}

/* The finding of rule id in fs, or NULL. */
static const struct finding *find(const struct findings *fs, enum finding_id id)
{
	for (int i = 0; i < fs->n; i++)
		if (fs->f[i].id == id)
			return &fs->f[i];
	return NULL;
}

static uint64_t number(const struct finding *f, const char *key)
{
	for (int i = 0; f && i < f->nfigures; i++)
		if (!strcmp(f->figures[i].key, key) && !f->figures[i].text)
			return f->figures[i].number;
	return UINT64_MAX;
}

static void show(const char *what, const struct findings *fs)
{
	for (int i = 0; i < fs->n; i++)
		fprintf(stderr, "  %s: %s %s: %s\n", what, severity_names[fs->f[i].severity],
			finding_names[fs->f[i].id], fs->f[i].text);
}

/* Each recorded file's findings, printed when FINDINGS_SHOW is set. */
static void test_recorded_files_show(void)
{
	static const char *const files[] = {
		"gate-6.18-one-a.json", "gate-6.18-one-b.json", "gate-6.18-two.json",
		"seed-6.12-reverted-255cpus.json", "seed-6.12-stock-255cpus.json",
		"flushparts-6.12-reverted-64cpus.json", "flushparts-6.12-stock-64cpus.json",
		"runs-6.18-cpustat-2.json", "demo-6.18.44.json",
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[256];
		struct report r = { 0 };
		struct findings fs;

		snprintf(path, sizeof(path), DATA "%s", files[i]);
		CHECK(read_file(path, &r) == 0, "%s", path);
		findings_of(&r, &fs);
		if (getenv("FINDINGS_SHOW"))
			show(files[i], &fs);
		report_free(&r);
	}
}

/* The recorded files: each rule where the file shows it, and silence on a quiet run. */
static void test_recorded_files(void)
{
	struct report r = { 0 };
	struct findings fs;
	const struct finding *f;

	/* one reader of an idle cgroup on 6.18: nothing stands out */
	CHECK(read_file(DATA "gate-6.18-one-a.json", &r) == 0, "read");
	findings_of(&r, &fs);
	CHECK(fs.n == 0, "%d findings on one quiet reader", fs.n);
	show("one-a", &fs);
	report_free(&r);

	/* a second reader of the same cgroup: they fight */
	memset(&r, 0, sizeof(r));
	CHECK(read_file(DATA "gate-6.18-two.json", &r) == 0, "read");
	findings_of(&r, &fs);
	f = find(&fs, FIND_READERS_FIGHT);
	CHECK(f && f->severity == SEV_WARNING && number(f, "contended_ppm") > 200000 &&
	      strstr(f->text, "/rstatlat-14705") && strstr(f->text, "-p names who"),
	      "readers_fight: %s", f ? f->text : "none");
	report_free(&r);

	/* 0efc297a reverted: one hold a flush across 255 CPUs; as released: a hold a CPU */
	memset(&r, 0, sizeof(r));
	CHECK(read_file(DATA "seed-6.12-reverted-255cpus.json", &r) == 0, "read");
	findings_of(&r, &fs);
	f = find(&fs, FIND_LONG_IRQOFF);
	CHECK(f && number(f, "holds_per_flush_milli") < 2000 &&
	      strstr(f->text, "once for all 255 possible CPUs"), "reverted: %s", f ? f->text : "none");
	report_free(&r);
	memset(&r, 0, sizeof(r));
	CHECK(read_file(DATA "seed-6.12-stock-255cpus.json", &r) == 0, "read");
	findings_of(&r, &fs);
	f = find(&fs, FIND_LONG_IRQOFF);
	CHECK(f && number(f, "holds_per_flush_milli") > 200000 &&
	      strstr(f->text, "drops the lock between CPUs") && strstr(f->text, "vCPU"),
	      "stock: %s", f ? f->text : "none");
	report_free(&r);

	/* 64 CPUs as released: the walk between the holds is most of a flush */
	memset(&r, 0, sizeof(r));
	CHECK(read_file(DATA "flushparts-6.12-stock-64cpus.json", &r) == 0, "read");
	findings_of(&r, &fs);
	f = find(&fs, FIND_FLUSH_TIME);
	CHECK(f && number(f, "share_ppm") > 800000 && strstr(f->text, "other is"),
	      "flush_time: %s", f ? f->text : "none");
	report_free(&r);
}

/* A summary of rows made here; rows[i] as the caller fills them. */
struct made {
	struct report r;
	struct row rows[4];
	struct row procs[4];
};

static void made_init(struct made *m, size_t nrows, size_t nprocs)
{
	memset(m, 0, sizeof(*m));
	m->r.type = REPORT_SUMMARY;
	m->r.duration_ns = 10000000000ULL;
	m->r.kernel.cpus_possible = 2;
	m->r.cgroups = m->rows;
	m->r.ncgroups = nrows;
	m->r.processes = m->procs;
	m->r.nprocesses = nprocs;
	m->r.per_process = nprocs > 0;
	for (size_t i = 0; i < 4; i++) {
		m->rows[i].path = (char *)(i ? "/b" : "/a");
		m->procs[i].path = (char *)"/a";
	}
}

static void lock_figures(struct row *row, uint64_t locked, uint64_t contended, uint64_t held)
{
	row->count[COUNT_LOCKED] = locked;
	row->count[COUNT_CONTENDED] = contended;
	row->dist[DIST_HOLD].count = locked;
	row->dist[DIST_HOLD].sum = held;
}

/* readers_fight: from 5% of acquisitions and 100 of them, a warning from 20%. */
static void test_readers_fight_threshold(void)
{
	struct made m;
	struct findings fs;
	const struct finding *f;

	made_init(&m, 1, 0);
	lock_figures(&m.rows[0], 10000, 499, 1000000);
	findings_of(&m.r, &fs);
	CHECK(!find(&fs, FIND_READERS_FIGHT), "4.99%% fired");
	lock_figures(&m.rows[0], 10000, 500, 1000000);
	findings_of(&m.r, &fs);
	f = find(&fs, FIND_READERS_FIGHT);
	CHECK(f && f->severity == SEV_INFO && number(f, "contended_ppm") == 50000, "5%%");
	lock_figures(&m.rows[0], 1980, 99, 1000000);
	findings_of(&m.r, &fs);
	CHECK(!find(&fs, FIND_READERS_FIGHT), "99 waits fired");
	lock_figures(&m.rows[0], 999, 500, 1000000);
	findings_of(&m.r, &fs);
	CHECK(!find(&fs, FIND_READERS_FIGHT), "999 locks fired");
	lock_figures(&m.rows[0], 10000, 2000, 1000000);
	findings_of(&m.r, &fs);
	f = find(&fs, FIND_READERS_FIGHT);
	CHECK(f && f->severity == SEV_WARNING, "20%% not a warning");
	/* -p: the two that waited most, by name */
	made_init(&m, 1, 3);
	lock_figures(&m.rows[0], 10000, 2000, 1000000);
	snprintf(m.procs[0].comm, sizeof(m.procs[0].comm), "cadvisor");
	m.procs[0].tgid = 10;
	m.procs[0].count[COUNT_CONTENDED] = 1500;
	snprintf(m.procs[1].comm, sizeof(m.procs[1].comm), "kubelet");
	m.procs[1].tgid = 11;
	m.procs[1].count[COUNT_CONTENDED] = 400;
	snprintf(m.procs[2].comm, sizeof(m.procs[2].comm), "cat");
	m.procs[2].count[COUNT_CONTENDED] = 100;
	findings_of(&m.r, &fs);
	f = find(&fs, FIND_READERS_FIGHT);
	CHECK(f && strstr(f->text, "3 processes flushing it waited, most cadvisor (pid 10) and "
			  "kubelet (pid 11)"), "%s", f ? f->text : "none");
}

/* who_flushes: more than half of the held time, exactly with -p, by vote without. */
static void test_who_flushes(void)
{
	struct made m;
	struct findings fs;
	const struct finding *f;

	made_init(&m, 2, 3);
	lock_figures(&m.rows[0], 6000, 0, 600000);
	lock_figures(&m.rows[1], 4000, 0, 400000);
	for (int i = 0; i < 3; i++) {
		snprintf(m.procs[i].comm, sizeof(m.procs[i].comm), i < 2 ? "cadvisor" : "cat");
		m.procs[i].tgid = i < 2 ? 42 : 7;
		m.procs[i].path = (char *)(i ? "/b" : "/a");
		m.procs[i].dist[DIST_FLUSH].count = 5000;
	}
	/* exactly half: not more than half */
	m.procs[0].dist[DIST_HOLD].sum = 300000;
	m.procs[1].dist[DIST_HOLD].sum = 200000;
	m.procs[2].dist[DIST_HOLD].sum = 500000;
	findings_of(&m.r, &fs);
	CHECK(!find(&fs, FIND_WHO_FLUSHES), "half fired");
	m.procs[1].dist[DIST_HOLD].sum = 210000;
	m.procs[2].dist[DIST_HOLD].sum = 490000;
	findings_of(&m.r, &fs);
	f = find(&fs, FIND_WHO_FLUSHES);
	/* 10 000 flushes of 2 cgroups in 10 s: 500 a cgroup a second, one every 2 ms */
	CHECK(f && number(f, "pid") == 42 && number(f, "rows") == 2 &&
	      number(f, "flush_interval_ns") == 2000000 &&
	      strstr(f->text, "cadvisor (pid 42) caused 51.0% of the lock's held time: 10000 "
			      "flushes of 2 cgroups; over the run one a cgroup every 2.00ms"),
	      "%s", f ? f->text : "none");
	/* without -p: the cgroups' top flushers, weighed by held time */
	made_init(&m, 2, 0);
	lock_figures(&m.rows[0], 6000, 0, 600000);
	lock_figures(&m.rows[1], 4000, 0, 400000);
	snprintf(m.rows[0].top_comm, sizeof(m.rows[0].top_comm), "cadvisor");
	snprintf(m.rows[1].top_comm, sizeof(m.rows[1].top_comm), "cat");
	findings_of(&m.r, &fs);
	f = find(&fs, FIND_WHO_FLUSHES);
	CHECK(f && number(f, "held_share_ppm") == 600000 && strstr(f->text, "a vote"), "%s",
	      f ? f->text : "none");
	snprintf(m.rows[1].top_comm, sizeof(m.rows[1].top_comm), "cadvisor");
	lock_figures(&m.rows[0], 500, 0, 600000);
	lock_figures(&m.rows[1], 400, 0, 400000);
	findings_of(&m.r, &fs);
	CHECK(!find(&fs, FIND_WHO_FLUSHES), "fired on 900 locks");
}

/* long_irqoff: from 1 ms in one hold, critical from 10 ms; nothing without irqs-off rows. */
static void test_long_irqoff_threshold(void)
{
	struct made m;
	struct findings fs;
	const struct finding *f;

	made_init(&m, 1, 0);
	m.r.irqoff_rows = IRQOFF_ROWS_LOCK;
	lock_figures(&m.rows[0], 100, 0, 5000000);
	m.rows[0].dist[DIST_FLUSH].count = 50;
	m.rows[0].count[COUNT_FLUSH_HOLDS] = 100;
	m.rows[0].dist[DIST_HOLD].max = 999999;
	findings_of(&m.r, &fs);
	CHECK(!find(&fs, FIND_LONG_IRQOFF), "999999 ns fired");
	m.rows[0].dist[DIST_HOLD].max = 1000000;
	findings_of(&m.r, &fs);
	f = find(&fs, FIND_LONG_IRQOFF);
	CHECK(f && f->severity == SEV_WARNING && strstr(f->text, "drops the lock between CPUs"),
	      "%s", f ? f->text : "none");
	m.rows[0].dist[DIST_HOLD].max = 10000000;
	m.rows[0].count[COUNT_FLUSH_HOLDS] = 50;
	findings_of(&m.r, &fs);
	f = find(&fs, FIND_LONG_IRQOFF);
	CHECK(f && f->severity == SEV_CRITICAL && strstr(f->text, "once for all 2 possible"),
	      "%s", f ? f->text : "none");
	m.r.irqoff_rows = IRQOFF_ROWS_NONE;
	findings_of(&m.r, &fs);
	CHECK(!find(&fs, FIND_LONG_IRQOFF), "fired with irqs-off off");
	m.r.irqoff_rows = IRQOFF_ROWS_LOCK;
	m.r.type = REPORT_INTERVAL;
	findings_of(&m.r, &fs);
	CHECK(fs.n == 0, "an interval has %d findings", fs.n);
}

/* flushes_skipped: 90% of 1000 requests or more; flush_time: a part over half the wall. */
static void test_skipped_and_parts(void)
{
	struct made m;
	struct findings fs;

	made_init(&m, 1, 0);
	m.r.memcg_decisions = true;
	m.rows[0].decisions[DECISION_ASKED] = 1000;
	m.rows[0].decisions[DECISION_SKIPPED] = 899;
	findings_of(&m.r, &fs);
	CHECK(!find(&fs, FIND_FLUSHES_SKIPPED), "89.9%% fired");
	m.rows[0].decisions[DECISION_SKIPPED] = 900;
	findings_of(&m.r, &fs);
	CHECK(number(find(&fs, FIND_FLUSHES_SKIPPED), "skipped_ppm") == 900000, "90%%");
	m.r.memcg_decisions = false;
	findings_of(&m.r, &fs);
	CHECK(!find(&fs, FIND_FLUSHES_SKIPPED), "fired without decisions");
	/* skips of cgroups without an entry count as asked and skipped, and are no loss */
	made_init(&m, 0, 0);
	m.r.memcg_decisions = true;
	m.r.lost[LOST_SKIP_UNTRACKED] = 1000;
	findings_of(&m.r, &fs);
	CHECK(fs.n == 1 && find(&fs, FIND_FLUSHES_SKIPPED) &&
	      strstr(find(&fs, FIND_FLUSHES_SKIPPED)->text, "1000 of them of cgroups whose "
							       "flushes never took the lock"),
	      "untracked skips: %d findings, %s", fs.n, fs.n ? fs.f[0].text : "");

	made_init(&m, 1, 0);
	m.r.flush_parts = true;
	m.r.parts_measured = 1U << PART_HELD | 1U << PART_WAIT;
	m.rows[0].dist[DIST_FLUSH].count = 100;
	m.rows[0].part[PART_HELD] = 500;
	m.rows[0].part[PART_WAIT] = 500;
	findings_of(&m.r, &fs);
	CHECK(!find(&fs, FIND_FLUSH_TIME), "half fired");
	m.rows[0].part[PART_WAIT] = 501;
	findings_of(&m.r, &fs);
	CHECK(find(&fs, FIND_FLUSH_TIME) && strstr(find(&fs, FIND_FLUSH_TIME)->text,
						    "readers queue"), "wait over half");
	m.rows[0].dist[DIST_FLUSH].count = 99;
	findings_of(&m.r, &fs);
	CHECK(!find(&fs, FIND_FLUSH_TIME), "99 flushes fired");
}

/* rstatlat_itself: a loss (with its fix), entries nearly full, its own time from 1% of a CPU. */
static void test_itself(void)
{
	struct made m;
	struct findings fs;
	const struct finding *f;

	made_init(&m, 1, 0);
	m.r.self.present = m.r.self.own_known = true;
	m.r.self.entries = 1000;
	m.r.self.entries_used = 899;
	m.r.self.bpf_sampled_ns = m.r.duration_ns / 100 - 1;
	findings_of(&m.r, &fs);
	CHECK(fs.n == 0, "%d findings under every threshold", fs.n);
	m.r.lost[LOST_ENTRIES_FULL] = 5;
	findings_of(&m.r, &fs);
	f = find(&fs, FIND_SELF);
	CHECK(f && f->severity == SEV_WARNING && strstr(f->text, "entries_full 5 (raise "
							    "--max-entries)"), "%s", f ? f->text : "none");
	/* a flush in progress on each CPU at the start and the end is no loss; more is */
	m.r.lost[LOST_ENTRIES_FULL] = 0;
	m.r.lost[LOST_FLUSH_UNSEEN] = 2;
	m.r.lost[LOST_FLUSH_OPEN] = 2;
	m.r.lost[LOST_SKIP_UNTRACKED] = 50;
	findings_of(&m.r, &fs);
	CHECK(fs.n == 0, "edge flushes and untracked skips: %s", fs.n ? fs.f[0].text : "");
	m.r.lost[LOST_FLUSH_OPEN] = 3;
	m.r.lost[LOST_RINGBUF_FULL] = 7;
	m.r.lost[LOST_RELOCKED] = 1;
	m.r.lost[LOST_STACK] = 1;
	findings_of(&m.r, &fs);
	f = find(&fs, FIND_SELF);
	CHECK(f && strstr(f->text, "lost 10 events: ringbuf_full 7 (raise -t), relocked 1, "
			  "stack_missing 1, ..."), "%s", f ? f->text : "none");
	memset(m.r.lost, 0, sizeof(m.r.lost));
	m.r.self.entries_used = 900;
	m.r.self.bpf_sampled_ns = m.r.duration_ns / 100;
	findings_of(&m.r, &fs);
	f = find(&fs, FIND_SELF);
	CHECK(f && strstr(f->text, "900 of its 1000 entries") && strstr(f->text, "1.0% of one CPU"),
	      "%s", f ? f->text : "none");
}

/* The table: a findings block, every line within 80 columns, a hostile path escaped. */
static void test_table_block(void)
{
	struct made m;
	struct view_opts o = { 0 };
	char *text = NULL, *line, *save;
	size_t len = 0;
	FILE *f;
	bool seen = false;

	made_init(&m, 1, 0);
	m.rows[0].path = (char *)"/evil\033[2J\nrow-with-a-name-that-runs-on-and-on-past-the-end-of-"
				 "any-terminal-line-0123456789";
	lock_figures(&m.rows[0], 10000, 3000, 1000000);
	f = open_memstream(&text, &len);
	table_print(f, &m.r, &o);
	fclose(f);
	CHECK(!strchr(text, 033), "an escape reached the terminal");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		seen |= !strcmp(line, "findings:");
		if (seen)
			CHECK(text_columns(line) <= 80, "%zu columns: %s", text_columns(line), line);
	}
	CHECK(seen, "no findings block");
	free(text);
}

int main(void)
{
	RUN_TEST(test_recorded_files_show());
	RUN_TEST(test_recorded_files());
	RUN_TEST(test_readers_fight_threshold());
	RUN_TEST(test_who_flushes());
	RUN_TEST(test_long_irqoff_threshold());
	RUN_TEST(test_skipped_and_parts());
	RUN_TEST(test_itself());
	RUN_TEST(test_table_block());
	return check_done("test_findings");
}

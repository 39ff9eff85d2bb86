// SPDX-License-Identifier: GPL-2.0
/* The table view: rates and percentages of long, busy runs. */
#include <stdlib.h>
#include "check.h"
#include "view.h"

static char *render(const struct report *r)
{
	static char buf[8192];
	struct view_opts o = { .sort = SORT_HOLD_P99 };
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	table_print(f, r, &o);
	fclose(f);
	return buf;
}

/* rstatlat's own costs: the summary's last line, before the blank one. */
static void test_self(void)
{
	static const char line[] =
		"self: kernel maps 61.2 MiB (10000 entries, 12 in use), CPU 0.05 s user + "
		"0.02 s system (0.35% of one CPU), BPF 1.23 s in 12.3M runs\n";
	struct report r = { .type = REPORT_SUMMARY, .duration_ns = 20000000000ULL };
	char *out, want[512];

	r.self = (struct self_costs){
		.present = true, .map_bytes = 64172032, .entries = 10000, .entries_used = 12,
		.cpu_user_ns = 50000000, .cpu_system_ns = 20000000, .bpf_stats = true,
		.bpf_ns = 1230000000, .bpf_runs = 12300000,
	};
	r.lost[LOST_ENTRIES_FULL] = 2;
	out = render(&r);
	/* then the findings (findings.h): the loss, with what fixes it */
	snprintf(want, sizeof(want), "LOST: entries_full=2\n%sfindings:\n  warning rstatlat_itself: "
		 "rstatlat lost 2 events: entries_full 2 (raise\n      --max-entries)\n\n", line);
	CHECK(strlen(out) >= strlen(want) && !strcmp(out + strlen(out) - strlen(want), want),
	      "after the LOST line, before the findings and the trailing newline:\n%s", out);
	r.self.bpf_stats = false;
	out = render(&r);
	CHECK(strstr(out, "(0.35% of one CPU)\n") && !strstr(out, "BPF"),
	      "no BPF clause without bpf_stats: %s", out);
	r.self.bpf_stats = true;
	r.self.bpf_runs = 999;
	r.duration_ns = 0;
	out = render(&r);
	CHECK(strstr(out, "(0.00% of one CPU), BPF 1.23 s in 999 runs\n"), "small: %s", out);
	r.self.bpf_runs = 1234567890;
	out = render(&r);
	CHECK(strstr(out, "in 1.23G runs\n"), "giga: %s", out);
	/* the maps now and at --max-entries; the sampled BPF time on a line of its own */
	r.self.map_bytes = 2486076;
	r.self.map_bytes_ceiling = 66617148;
	r.self.own_known = true;
	r.self.bpf_sampled_ns = 400000000;
	r.self.lock_events = 1000000;
	r.duration_ns = 20000000000ULL;
	out = render(&r);
	CHECK(strstr(out, "self: kernel maps 2.4 MiB (63.5 MiB at 10000 entries, 12 in use), CPU ") &&
	      strstr(out, "\nself: BPF 400.000 ms sampled (2.0000% of one CPU), 400 ns a lock "
			  "event\n"), "ceiling and sampled time: %s", out);
	r.type = REPORT_INTERVAL;
	out = render(&r);
	CHECK(!strstr(out, "\nself:"), "summary only: %s", out);
	r.type = REPORT_SUMMARY;
	r.self.present = false;
	out = render(&r);
	CHECK(!strstr(out, "\nself:"), "only when present: %s", out);
}

/* Rows that fold exited processes or removed cgroups say so. */
/* The summary line says which locks; nothing for files from before it was recorded. */
static void test_locks_in_header(void)
{
	struct report r = { .type = REPORT_SUMMARY, .duration_ns = 1000000000ULL,
			    .attach = "tracepoint" };
	char *out;

	out = render(&r);
	/* the glossary's word for the attach point, as JSON's "attach" */
	CHECK(strstr(out, ", attach tracepoint, irqs-off from off\n"), "unknown: nothing said: %s",
	      out);
	r.locks = LOCKS_GLOBAL;
	out = render(&r);
	CHECK(strstr(out, "irqs-off from off, one global lock\n"), "global: %s", out);
	r.locks = LOCKS_PER_SUBSYSTEM;
	out = render(&r);
	CHECK(strstr(out, "irqs-off from off, locks per-subsystem (rows add them up)\n"),
	      "per-subsystem: %s", out);
}

/* A workload's figures (rstatlat load under -- COMMAND): one line under the header. */
static void test_workload_line(void)
{
	struct report r = { .type = REPORT_SUMMARY, .duration_ns = 1000000000ULL,
			    .attach = "tracepoint" };
	struct workload_info *w = &r.workload;
	char *out;

	*w = (struct workload_info){ .present = true, .runs = 1, .name = "poller",
				     .wall_ns = 2000000000ULL, .stopped_by = "TERM",
				     .measured = 1U << WL_READS | 1U << WL_ROUNDS |
						 1U << WL_ROUNDS_LATE };
	w->count[WL_READS] = 1000;
	w->count[WL_ROUNDS] = 10;
	w->count[WL_ROUNDS_LATE] = 3;
	for (int i = 0; i < 1000; i++)
		dist_add_value(&w->read, 5000);
	out = render(&r);
	CHECK(strstr(out, "workload: poller 1000 reads in 2.00 s (500/s), read p50 ") &&
	      strstr(out, " mode 4.10us-8.19us, 10 rounds (3 late), stopped by SIGTERM\n"),
	      "%s", out);
	CHECK(!strstr(out, "OOM"), "no OOM kills where the workload has none: %s", out);
	dist_free(&w->read);
	memset(w, 0, sizeof(*w));
	CHECK(!strstr(render(&r), "workload:"), "none without a workload");
}

/* Where the locks are told apart, a LOCK column names each row's; else none. */
static void test_lock_column(void)
{
	struct row cg[2] = {
		{ .path = "/a", .lock = "base", .count[COUNT_LOCKED] = 1 },
		{ .path = "/a", .lock = "mem\x1bory", .lock_type = "write", .count[COUNT_LOCKED] = 1 },
	};
	struct report r = { .type = REPORT_SUMMARY, .duration_ns = 1000000000ULL,
			    .attach = "tracepoint", .locks = LOCKS_PER_SUBSYSTEM, .lock_rows = true,
			    .cgroups = cg, .ncgroups = 2 };
	char *out = render(&r);

	CHECK(strstr(out, "locks per-subsystem (a row per lock)\n") &&
	      strstr(out, "TOP-FLUSHER              LOCK      CGROUP\n") &&
	      strstr(out, " base      /a\n") && strstr(out, " mem\\x1bory/write /a\n"),
	      "lock rows: %s", out);
	r.lock_rows = false;
	out = render(&r);
	CHECK(!strstr(out, "LOCK ") && !strstr(out, "base"), "a LOCK column without lock rows: %s",
	      out);
}

static void test_labels(void)
{
	struct row cg[3] = {
		{ .path = "/live", .count[COUNT_LOCKED] = 1, .top_tgid = 7, .top_comm = "cat" },
		{ .path = "(removed cgroups)", .count[COUNT_LOCKED] = 1, .removed_cgroups = 1976 },
		{ .path = "/gone-by", .count[COUNT_LOCKED] = 1, .top_comm = "reader" },
	};
	struct row proc[2] = {
		{ .path = "/live", .count[COUNT_LOCKED] = 1, .comm = "cat", .exited = 731 },
		{ .path = "/live", .count[COUNT_LOCKED] = 1, .comm = "sh", .tgid = 42, .own_cgroup = "/me" },
	};
	struct report r = { .type = REPORT_SUMMARY, .duration_ns = 1000000000ULL,
			    .cgroups = cg, .ncgroups = 3, .processes = proc, .nprocesses = 2,
			    .per_process = true };
	char *out = render(&r);

	CHECK(strstr(out, " (removed cgroups: 1976)\n") != NULL, "aggregate row: %s", out);
	CHECK(strstr(out, " cat[7]                   /live\n") != NULL, "top flusher: %s", out);
	CHECK(strstr(out, "\ncat (exited: 731)        ") != NULL, "exited flusher: %s", out);
	CHECK(strstr(out, "\nsh[42]                   ") != NULL &&
	      strstr(out, " /me                      /live\n") != NULL, "live flusher: %s", out);
	CHECK(!strstr(out, "cat[0]"), "no pid for exited processes: %s", out);
	CHECK(strstr(out, " reader (exited)          /gone-by\n") != NULL && !strstr(out, "reader[0]"),
	      "a top flusher that exited: %s", out);
}

/* One busy row through the columns: rates, shares, flushes, the per-CPU lock, irqs-off. */
static void test_summary_table(void)
{
	struct row row = { .cgid = 2, .path = "/busy", .count[COUNT_LOCKED] = 5000000000ULL,
			   .count[COUNT_CONTENDED] = 1250000000ULL };
	struct report r = { .type = REPORT_SUMMARY, .duration_ns = 1000000000000ULL,
			    .cgroups = &row, .ncgroups = 1 };
	char *out;

	dist_add_value(&row.dist[DIST_HOLD], 1000);
	out = render(&r);
	/* 5e9 acquisitions in 1000 s: 5 million per second, 25% contended */
	CHECK(strstr(out, "5000000.0") != NULL, "rate of a long busy run: %s", out);
	CHECK(strstr(out, " 25.0 ") != NULL, "contended share: %s", out);
	row.count[COUNT_LOCKED] = 3;
	row.count[COUNT_CONTENDED] = 1;
	r.duration_ns = 2000000000ULL;
	out = render(&r);
	CHECK(strstr(out, "       1.5 ") != NULL, "small rate rounds: %s", out);
	CHECK(strstr(out, " 33.3 ") != NULL, "a third: %s", out);
	CHECK(strstr(out, "per-CPU lock") == NULL, "no per-CPU lock line when absent");
	/* 3 flushes of 7 holds in all: 2.3 holds per flush; the per-CPU lock */
	for (int i = 0; i < 3; i++)
		dist_add_value(&row.dist[DIST_FLUSH], 5000);
	row.count[COUNT_FLUSH_HOLDS] = 7;
	r.cpu_lock.present = true;
	r.cpu_lock.locked = 10;
	r.cpu_lock.contended = 5;
	dist_add_value(&r.cpu_lock.hold, 300);
	out = render(&r);
	/* quantiles are bucket midpoints: 5000 ns shows as 4.99us, 300 as 296ns */
	CHECK(strstr(out, "  4.99us   2.3 ") != NULL, "FLUSHp99 and H/FL: %s", out);
	CHECK(strstr(out, "per-CPU lock: 5.0 locked/s, 50.0% contended, hold p99 296ns max 300ns") != NULL,
	      "per-CPU lock line: %s", out);
	CHECK(strstr(out, "IRQp99") == NULL, "no irqs-off columns unless traced");
	r.irqoff_rows = IRQOFF_ROWS_LOCK;
	out = render(&r);
	CHECK(strstr(out, "IRQp99") == NULL, "nor when the holds stand for them");
	r.irqoff_rows = IRQOFF_ROWS_NONE;
	/* --irqoff trace: the columns and the line for intervals outside rstat */
	{
		dist_add_value(&row.dist[DIST_IRQOFF], 2000000);
		r.irqoff_rows = IRQOFF_ROWS_TRACED;
		r.irqoff.trace = true;
		r.irqoff.sample = true;
		r.irqoff.virtual_machine = true;
		r.irqoff.ticks = 1994;
		r.irqoff.sample_hz = 997;
		dist_add_value(&r.irqoff.outside, 7000);
		dist_add_value(&r.irqoff.late, 3000000);
		out = render(&r);
		CHECK(strstr(out, "  IRQp99   IRQmax ") != NULL, "irqs-off columns: %s", out);
		CHECK(strstr(out, "  2.00ms ") != NULL, "IRQmax 2 ms: %s", out);
		CHECK(strstr(out, "irqs-off outside rstat: 1 intervals, p99 7.00us, max 7.00us") != NULL,
		      "other line: %s", out);
		CHECK(strstr(out, "tick lateness: 1994 ticks at 997 Hz") != NULL &&
		      strstr(out, "vCPU stalls look the same") != NULL, "sample line: %s", out);
		dist_free(&row.dist[DIST_IRQOFF]);
	}
	dist_free(&row.dist[DIST_HOLD]);
	dist_free(&row.dist[DIST_FLUSH]);
	row.path = NULL;	/* a literal */
	r.cgroups = NULL;
	r.ncgroups = 0;
	report_free(&r);	/* the summaries' distributions */
}

int main(void)
{
	RUN_TEST(test_summary_table());
	RUN_TEST(test_self());
	RUN_TEST(test_labels());
	RUN_TEST(test_locks_in_header());
	RUN_TEST(test_lock_column());
	RUN_TEST(test_workload_line());
	return check_done("test_table");
}

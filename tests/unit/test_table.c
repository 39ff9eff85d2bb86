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

int main(void)
{
	struct row row = { .cgid = 2, .path = "/busy", .locked = 5000000000ULL,
			   .contended = 1250000000ULL };
	struct report r = { .type = REPORT_SUMMARY, .duration_ns = 1000000000000ULL,
			    .cgroups = &row, .ncgroups = 1 };
	char *out;

	dist_add_value(&row.hold, 1000);
	out = render(&r);
	/* 5e9 acquisitions in 1000 s: 5 million per second, 25% contended */
	CHECK(strstr(out, "5000000.0") != NULL, "rate of a long busy run: %s", out);
	CHECK(strstr(out, " 25.0 ") != NULL, "contended share: %s", out);
	row.locked = 3;
	row.contended = 1;
	r.duration_ns = 2000000000ULL;
	out = render(&r);
	CHECK(strstr(out, "       1.5 ") != NULL, "small rate rounds: %s", out);
	CHECK(strstr(out, " 33.3 ") != NULL, "a third: %s", out);
	CHECK(strstr(out, "per-CPU lock") == NULL, "no per-CPU lock line when absent");
	/* 3 flushes of 7 holds in all: 2.3 holds per flush; the per-CPU lock */
	for (int i = 0; i < 3; i++)
		dist_add_value(&row.flush, 5000);
	row.flush_holds = 7;
	r.cpu_lock.present = true;
	r.cpu_lock.locked = 10;
	r.cpu_lock.contended = 5;
	dist_add_value(&r.cpu_lock.hold, 300);
	out = render(&r);
	/* quantiles are bucket midpoints: 5000 ns shows as 4.99us, 300 as 296ns */
	CHECK(strstr(out, "  4.99us   2.3 ") != NULL, "FLUSHp99 and H/FL: %s", out);
	CHECK(strstr(out, "per-CPU lock: 5.0 locks/s, 50.0% contended, hold p99 296ns max 300ns") != NULL,
	      "per-CPU lock line: %s", out);
	CHECK(strstr(out, "IRQp99") == NULL, "no irqs-off columns unless traced");
	/* --irqoff trace: the columns and the line for intervals outside rstat */
	{
		struct dist irq = { 0 };

		dist_add_value(&irq, 2000000);
		row.irqoff = &irq;
		r.irqoff_rows = IRQOFF_ROWS_TRACED;
		r.irqoff.trace = true;
		r.irqoff.sample = true;
		r.irqoff.virtual_machine = true;
		r.irqoff.ticks = 1994;
		r.irqoff.sample_hz = 997;
		dist_add_value(&r.irqoff.other, 7000);
		dist_add_value(&r.irqoff.late, 3000000);
		out = render(&r);
		CHECK(strstr(out, "  IRQp99   IRQmax ") != NULL, "irqs-off columns: %s", out);
		CHECK(strstr(out, "  2.00ms ") != NULL, "IRQmax 2 ms: %s", out);
		CHECK(strstr(out, "irqs-off outside rstat: 1 intervals, p99 7.00us, max 7.00us") != NULL,
		      "other line: %s", out);
		CHECK(strstr(out, "tick lateness: 1994 ticks at 997 Hz") != NULL &&
		      strstr(out, "vCPU stalls look the same") != NULL, "sample line: %s", out);
		row.irqoff = NULL;
		dist_free(&irq);
	}
	dist_free(&row.hold);
	dist_free(&row.flush);
	row.path = NULL;	/* a literal */
	r.cgroups = NULL;
	r.ncgroups = 0;
	report_free(&r);	/* the summaries' distributions */
	return check_done("test_table");
}

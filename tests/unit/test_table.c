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
	return check_done("test_table");
}

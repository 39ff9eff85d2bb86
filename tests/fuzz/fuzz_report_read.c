// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary bytes through the JSON reader, and whatever
 * it accepts through compare and all three of its views, and through the
 * report's own views (JSON and the table, histograms included).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "compare.h"
#include "report_read.h"
#include "view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void compare_with_itself(struct report *r, struct read_info *info)
{
	static const char *const texts[] = { "hold.p99>+20%", "irqoff.max>5ms",
					     "contended.rate>10%", "locked.rate<-50%" };
	struct comparison c = { .alpha = 0.01, .noise = 0.05 };
	struct gate gates[4];
	char err[256];
	FILE *null = fopen("/dev/null", "w");

	for (int i = 0; i < 4; i++)
		gate_parse(texts[i], &gates[i], err, sizeof(err));
	c.before = (struct side){ .file = "in", .r = r, .irqoff_source = info->irqoff_source };
	c.after = c.before;
	if (!compare_build(&c, gates, 4, NULL, err, sizeof(err)) && null)
		for (int fmt = FMT_TEXT; fmt <= FMT_JSON; fmt++)
			compare_print(null, &c, fmt, 0);
	compare_free(&c);
	for (int i = 0; i < 4; i++)
		free(gates[i].text);
	if (null)
		fclose(null);
}

static void render(const struct report *r)
{
	struct view_opts o = { .sort = SORT_HOLD_P50, .histograms = true };
	FILE *null = fopen("/dev/null", "w");

	if (!null)
		return;
	json_print(null, r);
	table_print(null, r, &o);
	fclose(null);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report r;
	struct read_info info;
	char err[512];
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (!report_read(f, &r, &info, err, sizeof(err))) {
		compare_with_itself(&r, &info);
		render(&r);
		report_free(&r);
	}
	fclose(f);
	return 0;
}

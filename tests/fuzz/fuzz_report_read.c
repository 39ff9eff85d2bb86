// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary bytes through the JSON reader, and whatever
 * it accepts through compare and all three of its views, and through the
 * report's own views (JSON and the table, histograms included). Input cut
 * at form feeds is up to 4 files: those accepted are pooled as replicated
 * runs and compared between runs. The bytes also go through jtree whole
 * and in chunks of a size the input picks: the trees must be the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "compare.h"
#include "../unit/jt_digest.h"
#include "report_read.h"
#include "view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void compare_sides(const struct side *before, const struct side *after)
{
	static const char *const texts[] = { "hold.p99>+20%", "irqoff.max>5ms",
					     "contended.rate>10%", "locked.rate<-50%",
					     "flush.mean>+20%", "flush.irq>+20%" };
	struct comparison c = { .alpha = 0.01, .noise = 0.05 };
	const struct comparison *pairs[2] = { &c, &c };
	struct gate gates[6];
	char err[256];
	FILE *null = fopen("/dev/null", "w");

	for (int i = 0; i < 6; i++)
		gate_parse(texts[i], &gates[i], err, sizeof(err));
	c.before = *before;
	c.after = *after;
	if (!compare_build(&c, gates, 6, NULL, err, sizeof(err)) && null) {
		for (int fmt = FMT_TEXT; fmt <= FMT_MAIL; fmt++)
			compare_print(null, &c, fmt, 0, true);
		compare_mail_print(null, pairs, 2, 3);
	}
	compare_free(&c);
	for (int i = 0; i < 6; i++)
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

static bool read_part(const uint8_t *data, size_t size, struct report *r,
		      struct read_info *info)
{
	char err[512];
	FILE *f = size ? fmemopen((void *)data, size, "r") : NULL;
	bool ok;

	if (!f)
		return false;
	ok = !report_read(f, r, info, err, sizeof(err));
	fclose(f);
	return ok;
}

static int fold_element(void *ctx, const struct jt *top, int list, size_t i, const struct jt *v)
{
	(void)top;
	*(uint64_t *)ctx = *(uint64_t *)ctx * 17 + (uint64_t)list + i;
	jt_digest(ctx, v);
	return 0;
}

static int fold_value(void *ctx, const struct jt *v)
{
	jt_digest(ctx, v);
	return 0;
}

/* The digest of data fed in chunks of step bytes (0: whole), and whether it parsed. */
static bool digest(const uint8_t *data, size_t size, size_t step, uint64_t *h)
{
	static const char *const lists[] = { "cgroups", "processes" };
	struct jt_handler hd = { lists, 2, fold_element, fold_value, h };
	struct jt_parser *p = jt_parser_new(&hd);
	size_t at = 0;
	int ret = 0;

	*h = 0;
	if (!p)
		return false;
	while (!ret && at < size) {
		size_t n = step && size - at > step ? step : size - at;

		ret = jt_feed(p, (const char *)data + at, n);
		at += n;
	}
	ret = ret || jt_finish(p);
	jt_parser_free(p);
	return !ret;
}

static void same_in_chunks(const uint8_t *data, size_t size)
{
	uint64_t whole, cut;
	size_t step = size ? 1 + data[0] % 13 : 1;
	bool ok = digest(data, size, 0, &whole);

	/* a tree differing with where the reads end would be a jtree bug */
	if (ok != digest(data, size, step, &cut) || (ok && whole != cut))
		__builtin_trap();
}

#define MAX_PARTS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report runs[MAX_PARTS];
	struct read_info info[MAX_PARTS];
	struct report_pool pool = { 0 };
	struct side one, all;
	size_t n = 0, start = 0;
	bool pooled = true;

	same_in_chunks(data, size);
	for (size_t i = 0; i <= size && n < MAX_PARTS; i++) {
		if (i < size && data[i] != '\f')
			continue;
		if (read_part(data + start, i - start, &runs[n], &info[n]))
			n++;
		start = i + 1;
	}
	if (!n)
		return 0;
	one = (struct side){ .file = "in", .r = &runs[0], .runs = runs, .nruns = 1,
			     .irqoff_source = info[0].irqoff_source };
	compare_sides(&one, &one);
	render(&runs[0]);
	for (size_t i = 0; i < n && pooled; i++)
		pooled = !report_pool_add(&pool, &runs[i]);
	if (n > 1 && pooled) {
		all = one;
		all.r = &pool.r;
		all.nruns = n;
		compare_sides(&one, &all);
		compare_sides(&all, &all);
	}
	report_pool_free(&pool);
	/* four files: two runs against two, so the between-run tests see changes */
	if (n == MAX_PARTS) {
		struct report_pool pb = { 0 }, pa = { 0 };
		struct side b = one, a = one;

		if (!report_pool_add(&pb, &runs[0]) && !report_pool_add(&pb, &runs[1]) &&
		    !report_pool_add(&pa, &runs[2]) && !report_pool_add(&pa, &runs[3])) {
			b.r = &pb.r, b.runs = runs, b.nruns = 2;
			a.r = &pa.r, a.runs = runs + 2, a.nruns = 2;
			compare_sides(&b, &a);
		}
		report_pool_free(&pb);
		report_pool_free(&pa);
	}
	for (size_t i = 0; i < n; i++)
		report_free(&runs[i]);
	return 0;
}

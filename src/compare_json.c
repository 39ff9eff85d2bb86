// SPDX-License-Identifier: GPL-2.0
/* The JSON view of a comparison: what a CI job gates on (rstatlat(8), compare's JSON). */
#include <inttypes.h>
#include <math.h>
#include "compare_view.h"
#include "escape.h"

static void json_number(FILE *f, bool has, double v)
{
	char digits[24], *p = digits + sizeof(digits);
	uint64_t u;

	if (!has || !isfinite(v)) {
		fputs("null", f);
		return;
	}
	/*
	 * Most values are whole (counts, nanoseconds): written as %.17g
	 * writes them, without its cost (a JSON of 8 000 rows has 10^6).
	 */
	if (v != trunc(v) || fabs(v) >= 0x1p53 || (v == 0 && signbit(v))) {
		fprintf(f, "%.17g", v);
		return;
	}
	u = (uint64_t)fabs(v);
	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	fputs(p, f);
}

/* The first run's command, or null: what it ran, where, and its status. */
static void json_command(FILE *f, const struct command_info *cmd)
{
	if (!cmd->present) {
		fputs("null", f);
		return;
	}
	fputs("{\"argv\":[", f);
	for (int i = 0; i < cmd->argc; i++) {
		if (i)
			fputc(',', f);
		json_write_string(f, cmd->argv[i]);
	}
	fputs("],\"cgroups\":[", f);
	for (int i = 0; i < cmd->ncgroups; i++) {
		if (i)
			fputc(',', f);
		json_write_string(f, cmd->cgroups[i].path);
	}
	fputs("],\"status\":", f);
	json_number(f, cmd->ended, cmd->status);
	fputc('}', f);
}

static void json_strings(FILE *f, const char *const *s, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		json_write_string(f, s[i]);
	}
	fputc(']', f);
}

/* The workload a side ran (its figures are the total's workload.* metrics), or null. */
static void json_workload(FILE *f, const struct workload_info *w)
{
	fputs(",\"workload\":", f);
	if (!w->present) {
		fputs("null", f);
		return;
	}
	fputs("{\"name\":", f);
	json_write_string(f, w->name);
	fprintf(f, ",\"mixed\":%s,\"runs\":%u,\"options\":{", w->mixed ? "true" : "false",
		w->runs);
	for (int i = 0; i < w->noptions; i++) {
		if (i)
			fputc(',', f);
		json_write_string(f, w->options[i].key);
		fputc(':', f);
		if (w->options[i].text)
			json_write_string(f, w->options[i].text);
		else
			fprintf(f, "%" PRIu64, w->options[i].number);
	}
	fputs("}}", f);
}

static void json_side(FILE *f, const char *key, const struct side *s)
{
	fprintf(f, "\"%s\":{\"file\":", key);
	json_write_string(f, s->file);
	fputs(",\"files\":[", f);
	for (size_t k = 0; side_file(s, k); k++) {
		if (k)
			fputc(',', f);
		json_write_string(f, side_file(s, k));
	}
	fputc(']', f);
	fputs(",\"kernel\":{\"release\":", f);
	json_write_string(f, s->r->kernel.release);
	fprintf(f, ",\"cpus_possible\":%d,\"cpus_online\":%d},\"duration_ns\":%" PRIu64
		",\"summaries\":%zu,\"intervals\":%zu,\"attach\":", s->r->kernel.cpus_possible,
		s->r->kernel.cpus_online, s->r->duration_ns, s->summaries, s->intervals);
	json_write_string(f, s->r->attach);
	if (s->r->locks != LOCKS_UNKNOWN) {
		fputs(",\"locks\":", f);
		json_write_string(f, lock_scope_names[s->r->locks]);
	}
	if (s->r->lock_rows)
		fputs(",\"lock_rows\":true", f);
	if (s->r->lock_types)
		fputs(",\"lock_types\":true", f);
	if (s->r->locks_folded)
		fputs(",\"locks_added_up\":true", f);
	fputs(",\"irqoff_source\":", f);
	json_write_string(f, s->irqoff_source);
	fputs(",\"command\":", f);
	json_command(f, side_command(s));
	json_workload(f, &s->r->workload);
	fprintf(f, ",\"runs\":%zu}", s->nruns ? s->nruns : 1);
}

static void json_cgroup(FILE *f, const struct cmp_row *row)
{
	const struct row *src = row->after ? row->after : row->before;
	static const char *const presence[] = { "both", "before", "after" };

	if (row->total || row->cpu_lock) {
		fputs("\"cgroup\":null,\"presence\":\"both\"", f);
		return;
	}
	fprintf(f, "\"cgroup\":{\"id\":%" PRIu64 ",\"hierarchy\":%u,\"path\":", src->cgid,
		src->hierarchy);
	json_write_string(f, src->path ? src->path : "");
	if (src->lock[0]) {
		fputs(",\"lock\":", f);
		json_write_string(f, src->lock);
	}
	if (src->lock_type[0]) {
		fputs(",\"lock_type\":", f);
		json_write_string(f, src->lock_type);
	}
	fprintf(f, "},\"presence\":\"%s\"", presence[row->presence]);
	if (row->process) {
		fputs(",\"comm\":", f);
		json_write_string(f, src->comm);
	}
}

/* The flush split of a part (or of the wall time): its shares, its change and that change's share. */
static void json_split(FILE *f, const struct cmp_row *row, int i, int wall)
{
	const struct cell *c = &row->cells[i], *w = &row->cells[wall];

	fputs(",\"share_before\":", f);
	json_number(f, c->has_before && w->before > 0, c->before / w->before);
	fputs(",\"share_after\":", f);
	json_number(f, c->has_after && w->after > 0, c->after / w->after);
	fputs(",\"delta\":", f);
	json_number(f, c->has_before && c->has_after, c->after - c->before);
	fputs(",\"delta_share\":", f);
	json_number(f, true, split_delta_share(row, i, wall));
}

static void json_row(FILE *f, const struct comparison *cmp, const struct cmp_row *row)
{
	bool first = true;
	int wall;
	bool split = compare_split(row, &wall);

	fputc('{', f);
	json_cgroup(f, row);
	fputs(",\"metrics\":{", f);
	for (int i = 0; i < nmetrics; i++) {
		const struct cell *c = &row->cells[i];

		if (!compare_metric_asked(cmp, i))
			continue;
		fprintf(f, "%s\"%s\":{\"before\":", first ? "" : ",", metrics[i].name);
		first = false;
		json_number(f, c->has_before, c->before);
		fputs(",\"after\":", f);
		json_number(f, c->has_after, c->after);
		fputs(",\"ratio\":", f);
		json_number(f, c->has_before && c->has_after, c->ratio);
		if (split && (metrics[i].kind == MK_PART || i == wall))
			json_split(f, row, i, wall);
		fprintf(f, ",\"verdict\":\"%s\"}", verdict_names[c->verdict]);
	}
	fputs("}}", f);
}

/* The rows of a list the selection shows, as a JSON array (no -n: JSON is for machines). */
static void json_rows(FILE *f, const struct comparison *c, const struct cmp_row *rows, size_t n)
{
	bool first = true;

	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (!compare_shows_row(c, &rows[i]))
			continue;
		if (!first)
			fputc(',', f);
		first = false;
		json_row(f, c, &rows[i]);
	}
	fputc(']', f);
}

/* What the gates check: null for every row, else the rows named. */
static void json_gated(FILE *f, const struct comparison *c)
{
	if (c->gated_cgroup) {
		fputc('[', f);
		json_write_string(f, c->gated_cgroup);
		fputc(']', f);
		return;
	}
	if (!c->ncommand_rows) {
		fputs("null", f);
		return;
	}
	for (size_t i = 0; i < c->ncommand_rows; i++) {
		fputc(i ? ',' : '[', f);
		json_write_string(f, c->command_rows[i]);
	}
	fputc(']', f);
}

void compare_json_print(FILE *f, const struct comparison *c)
{
	struct findings fs;

	fputs("{\"schema\":\"rstatlat-compare/2\",\"title\":", f);
	if (c->title)
		json_write_string(f, c->title);
	else
		fputs("null", f);
	fputc(',', f);
	json_side(f, "before", &c->before);
	fputc(',', f);
	json_side(f, "after", &c->after);
	fputs(",\"gated\":", f);
	json_gated(f, c);
	fprintf(f, ",\"alpha\":%g,\"gate_alpha\":%g,\"noise\":%g,\"notes\":[", c->alpha,
		c->gate_alpha, c->noise);
	for (size_t i = 0; cmp_note(c, i); i++) {
		if (i)
			fputc(',', f);
		json_write_string(f, cmp_note(c, i));
	}
	fputs("],\"shown\":{\"rows\":", f);
	json_strings(f, c->shown.rows, c->shown.nrows);
	fputs(",\"metrics\":", f);
	json_strings(f, c->shown.metrics, c->shown.nmetrics);
	fputs("},\"total\":", f);
	json_row(f, c, &c->total);
	fputs(",\"cpu_lock\":", f);
	if (c->has_cpu_lock)
		json_row(f, c, &c->cpu_lock);
	else
		fputs("null", f);
	fputs(",\"cgroups\":", f);
	json_rows(f, c, c->rows, c->nrows);
	fputs(",\"processes\":", f);
	json_rows(f, c, c->prows, c->nprows);
	fputs(",\"gates\":[", f);
	findings_of(c->after.r, &fs);
	for (size_t i = 0; i < c->nresults; i++) {
		const struct gate_result *g = &c->results[i];
		const struct finding *fd = cmp_gate_finding(&fs, g);

		fputs(i ? ",{\"gate\":" : "{\"gate\":", f);
		json_write_string(f, g->gate->text);
		fputs(",\"cgroup\":", f);
		if (g->row->total)
			fputs("null", f);
		else
			json_write_string(f, row_label(g->row));
		fprintf(f, ",\"outcome\":\"%s\",\"value\":", cmp_outcome_names[g->outcome]);
		json_number(f, g->outcome != G_NA && !g->why, g->value);
		/* relative: a ratio like value; absolute: in the metric's units */
		fputs(",\"limit\":", f);
		json_number(f, true, g->gate->relative ? 1 + g->gate->limit : g->gate->limit);
		if (g->why) {
			fputs(",\"why\":", f);
			json_write_string(f, g->why);
		}
		if (fd) {
			fprintf(f, ",\"finding\":{\"id\":\"%s\",\"text\":", finding_names[fd->id]);
			json_write_string(f, fd->text);
			fputc('}', f);
		}
		fputc('}', f);
	}
	fprintf(f, "],\"failed\":%zu,\"inconclusive\":%zu,\"result\":\"%s\"}\n", c->failed,
		c->inconclusive, compare_result(c));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Times the views on a synthetic report of N cgroups with realistic
 * histograms: the table rendered in full (-n 0), the JSON object, and the
 * Prometheus exposition (each refresh of /metrics) at the exporter's
 * defaults (PROM_DEFAULT_BUCKETS, PROM_DEFAULT_MAX_CGROUPS named), and
 * the same with the protobuf format beside it (a scraper asked for
 * native histograms). With "write", writes the report's JSON summary to
 * FILE instead (seeded: two seeds make the two sides of compare's bench).
 *   render [N [table|json|prom|prompb]]
 *   render N write FILE SEED
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "prom.h"
#include "report.h"
#include "view.h"

/* The best of many: the views' own cost, not the noisy neighbours' */
#define REPS 20

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void fill(struct row *r, size_t i)
{
	char path[64];

	snprintf(path, sizeof(path), "/kubepods/pod%zu/container%zu", i / 4, i % 4);
	r->cgid = 1000 + i;
	r->path = strdup(path);
	r->count[COUNT_LOCKED] = 100 + (uint64_t)rand() % 100000;
	r->count[COUNT_CONTENDED] = r->count[COUNT_LOCKED] / 10;
	r->top_tgid = 1234;
	snprintf(r->top_comm, sizeof(r->top_comm), "cadvisor");
	for (int k = 0; k < 200; k++) {
		dist_add_value(&r->dist[DIST_HOLD], 200 + (uint64_t)rand() % (1 + (uint64_t)rand() % 200000));
		if (k % 10 == 0)
			dist_add_value(&r->dist[DIST_WAIT], 100 + (uint64_t)rand() % 50000);
		/* the default output: whole flushes, their parts and causes, memcg decisions */
		if (k % 2 == 0)
			dist_add_value(&r->dist[DIST_FLUSH], 400 + (uint64_t)rand() % (1 + (uint64_t)rand() % 400000));
	}
	for (int p = 0; p < PART_MAX; p++)
		r->part[p] = r->dist[DIST_FLUSH].sum / PART_MAX;
	for (int d = 0; d < DECISION_MAX; d++)
		r->decisions[d] = (uint64_t)rand() % 1000;
	row_add_cause(r, "memory.stat", 2, 128, 2000000);
	if (i % 3 == 0)
		row_add_cause(r, "memcg_periodic", 1, 1, 30000);
}

static int write_summary(struct report *r, const char *path)
{
	FILE *f = path ? fopen(path, "w") : NULL;

	if (!f) {
		fprintf(stderr, "render: write needs a FILE it can write\n");
		return 1;
	}
	r->type = REPORT_SUMMARY;
	snprintf(r->kernel.release, sizeof(r->kernel.release), "bench");
	r->kernel.cpus_possible = r->kernel.cpus_online = 2;
	r->parts_from = PARTS_FROM_TIMED;
	r->parts_measured = (1U << PART_MAX) - 1;
	json_print(f, r);
	report_free(r);
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000, cap = 0;
	const char *only = argc > 2 ? argv[2] : NULL;
	struct view_opts o = { .sort = SORT_HOLD_P99, .rows = 0 };
	struct report r = { .type = REPORT_INTERVAL, .duration_ns = 1000000000ULL,
			    .attach = "tracepoint", .flush_parts = true, .cause_sample = 64,
			    .memcg_decisions = true, .irqoff_rows = IRQOFF_ROWS_LOCK };
	FILE *devnull = fopen("/dev/null", "w");
	double best_table = 1e9, best_json = 1e9, best_prom = 1e9, best_prompb = 1e9;
	struct prom_opts po = { .max_cgroups = PROM_DEFAULT_MAX_CGROUPS, .idle_ns = 300000000000ULL, .version = "bench" };
	struct prom_state *prom;
	const char *why;

	srand(only && !strcmp(only, "write") && argc > 4 ? (unsigned int)atoi(argv[4]) : 42);
	for (size_t i = 0; i < n; i++)
		fill(report_add_row(&r.cgroups, &r.ncgroups, &cap), i);
	if (only && !strcmp(only, "write"))
		return write_summary(&r, argc > 3 ? argv[3] : NULL);
	if (prom_buckets_parse(PROM_DEFAULT_BUCKETS, &po, &why) || !(prom = prom_new(&po)))
		return 1;
	for (int rep = 0; rep < REPS; rep++) {
		double t0 = now_ms(), t1, t2, t3, t4;

		if (!only || !strcmp(only, "table"))
			table_print(devnull, &r, &o);
		t1 = now_ms();
		if (!only || !strcmp(only, "json"))
			json_print(devnull, &r);
		t2 = now_ms();
		r.type = REPORT_SUMMARY;
		if ((!only || !strcmp(only, "prom")) &&
		    prom_write(prom, &r, NULL, (uint64_t)rep * 1000000000ULL, 0, devnull, NULL))
			return 1;
		t3 = now_ms();
		if ((!only || !strcmp(only, "prompb")) &&
		    prom_write(prom, &r, NULL, (uint64_t)rep * 1000000000ULL, 0, devnull, devnull))
			return 1;
		r.type = REPORT_INTERVAL;
		t4 = now_ms();
		best_table = t1 - t0 < best_table ? t1 - t0 : best_table;
		best_json = t2 - t1 < best_json ? t2 - t1 : best_json;
		best_prom = t3 - t2 < best_prom ? t3 - t2 : best_prom;
		best_prompb = t4 - t3 < best_prompb ? t4 - t3 : best_prompb;
	}
	printf("render %zu cgroups: table %.2f ms, json %.2f ms, prom %.2f ms, prompb %.2f ms "
	       "(best of %d)\n", n, best_table, best_json, best_prom, best_prompb, REPS);
	prom_free(prom);
	report_free(&r);
	return 0;
}

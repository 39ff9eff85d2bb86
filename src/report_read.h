/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reads `rstatlat -j` output back into a report, the inverse of json.c, so
 * compare works on the same model the live views render.
 */
#ifndef RSTATLAT_REPORT_READ_H
#define RSTATLAT_REPORT_READ_H

#include <stdio.h>
#include "report.h"

/* What a file held, beyond the merged report. */
struct read_info {
	size_t summaries;	/* summary objects merged */
	size_t intervals;	/* interval objects seen */
	const char *irqoff_source;	/* "" when the file names none */
	char irqoff_buf[32];
};

/*
 * What a reader accepts, so that no input makes it grow without bound
 * (rstatlat(8), COMPARE): rows are read one at a time as the text streams
 * in, so a line may be as long as the file (rows before their object's
 * "type", as jq -S orders keys, wait parsed until the object ends); a
 * file of at most READ_FILE_MAX bytes, at most READ_ROWS_MAX rows a list
 * (cgroups, processes) and as many distinct rows merged, and jtree.h's
 * bounds (a row and the object around it: 256 MiB parsed; 16 MiB without
 * a token ending). Beyond that, an error ("line 2: a value of more than
 * 256 MiB: not a file rstatlat wrote"). Integers run to 2^64-1.
 */
#define READ_FILE_MAX	((uint64_t)16 << 30)
#define READ_ROWS_MAX	1000000

/*
 * Reads JSON lines (schema rstatlat/1): the summary objects when there are
 * any, else every interval object, merged into r (cgroup rows only; -t
 * "slow" objects are skipped). On error returns -1 with one line in err
 * ("line 3: cgroups[0].hold_ns: missing key \"count\"") and r empty.
 */
int report_read(FILE *f, struct report *r, struct read_info *info,
		char *err, size_t errlen);

/*
 * The objects of type "workload" (rstatlat load -j) of f, merged into w:
 * what a workload hands the rstatlat it runs under. Other objects are
 * read and checked, and left. -1 with one line in err, w empty.
 */
int workload_read(FILE *f, struct workload_info *w, char *err, size_t errlen);
#endif

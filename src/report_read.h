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
 * (rstatlat(8), COMPARE): a line (one object) of at most READ_LINE_MAX
 * bytes, a file of at most READ_FILE_MAX, at most READ_ROWS_MAX rows a
 * list (cgroups, processes) and as many distinct rows merged. Beyond
 * that, an error ("line 2: longer than 256 MiB").
 */
#define READ_LINE_MAX	((size_t)256 << 20)
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

#endif

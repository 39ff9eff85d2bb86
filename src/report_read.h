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
 * Reads JSON lines (schema rstatlat/1): the summary objects when there are
 * any, else every interval object, merged into r (cgroup rows only; -t
 * "slow" objects are skipped). On error returns -1 with one line in err
 * ("line 3: cgroups[0].hold_ns: missing key \"count\"") and r empty.
 */
int report_read(FILE *f, struct report *r, struct read_info *info,
		char *err, size_t errlen);

#endif

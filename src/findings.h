/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Findings: the sentences a kernel developer would write after looking at
 * a summary (who flushes, whether readers fight, how long interrupts were
 * off and why, flushes the kernel skips, where a flush's time goes, what
 * rstatlat lost or cost). Each is a rule over figures the report already
 * has, with its thresholds here and in docs/findings.md; a run where
 * nothing stands out has none. Derived from a report, never stored: JSON
 * writes them for its readers, and compare derives them again from the
 * files it reads.
 */
#ifndef RSTATLAT_FINDINGS_H
#define RSTATLAT_FINDINGS_H

#include <stdint.h>
#include "report.h"

enum finding_id {
	FIND_WHO_FLUSHES,
	FIND_READERS_FIGHT,
	FIND_LONG_IRQOFF,
	FIND_FLUSHES_SKIPPED,
	FIND_FLUSH_TIME,
	FIND_SELF,
	FIND_MAX,
};

enum finding_severity { SEV_INFO, SEV_WARNING, SEV_CRITICAL, SEV_MAX };

/* One figure a finding rests on: a number (ns, a count, a share in ppm) or a name. */
struct finding_figure {
	const char *key;	/* JSON's: "share_ppm", "cgroup", ... */
	const char *text;	/* a name from the report (a path, a comm): NULL for a number */
	uint64_t number;
};

#define FINDING_FIGURES_MAX	8
#define FINDING_TEXT_LEN	640

struct finding {
	enum finding_id id;
	enum finding_severity severity;
	/*
	 * One sentence. The names in it are the report's, raw: each view
	 * escapes the whole (terminal, JSON, Prometheus label).
	 */
	char text[FINDING_TEXT_LEN];
	struct finding_figure figures[FINDING_FIGURES_MAX];
	int nfigures;
};

struct findings {
	struct finding f[FIND_MAX];	/* at most one a rule */
	int n;
};

extern const char *const finding_names[FIND_MAX];	/* "who_flushes", ... */
extern const char *const severity_names[SEV_MAX];	/* "info", "warning", "critical" */

/*
 * The findings of a summary (an interval report has none: its window is
 * too short to say what a run did). Pure: reads r, writes out, allocates
 * nothing; the figures' names point into r.
 */
void findings_of(const struct report *r, struct findings *out);

/* Thresholds (docs/findings.md, rstatlat(8) FINDINGS). */
#define FIND_MIN_LOCKS		1000	/* who_flushes and readers_fight speak from this many acquisitions */
#define FIND_WHO_SHARE_PPM	500000	/* one flusher causing half the held time or more */
#define FIND_FIGHT_PPM		50000	/* 5% of acquisitions waited ... */
#define FIND_FIGHT_MIN		100	/* ... and at least this many */
#define FIND_FIGHT_WARN_PPM	200000	/* 20%: a warning */
#define FIND_IRQOFF_NS		1000000ULL	/* irqs off for 1 ms or more in one hold */
#define FIND_IRQOFF_CRIT_NS	10000000ULL	/* 10 ms: critical */
#define FIND_SKIP_PPM		900000	/* 90% of memcg flush requests skipped ... */
#define FIND_SKIP_MIN		1000	/* ... of this many */
#define FIND_PART_PPM		500000	/* a part other than held taking over half the flushes' wall */
#define FIND_PART_MIN_FLUSHES	100
#define FIND_ENTRIES_PPM	900000	/* 90% of --max-entries in use */
#define FIND_SELF_PPM		10000	/* rstatlat's own BPF time: 1% of one CPU */

#endif

// SPDX-License-Identifier: GPL-2.0
/* The tables of metrics.h: a row's distributions and counters, once. */
#include "metrics.h"

const struct dist_def dist_defs[DIST_MAX] = {
	[DIST_HOLD] = {
		.name = "hold", .json = "hold_ns",
		.prom = "rstatlat_lock_hold_seconds",
		.prom_help = "How long the cgroup rstat lock was held, per flushed cgroup.",
	},
	[DIST_WAIT] = {
		.name = "wait", .json = "wait_ns",
		.prom = "rstatlat_lock_wait_seconds",
		.prom_help = "How long a flusher waited for the contended rstat lock.",
	},
	[DIST_FLUSH] = {
		.name = "flush", .json = "flush_ns",
		.json_optional = true,	/* arrived within rstatlat/1 */
		.prom = "rstatlat_flush_seconds",
		.prom_help = "Whole flushes: first acquisition (or wait) to last release.",
		.prom_count = "rstatlat_flushes_total", .prom_count_help = "Whole flushes.",
	},
	[DIST_IRQOFF] = {
		.name = "irqoff", .json = "irqoff_ns",
		.json_optional = true,	/* per row only where measured (report.irqoff_rows) */
		.prom = "rstatlat_irqoff_seconds",
		.prom_help = "Irqs-off intervals of rstat flushes, machine-wide (the holds, or traced).",
	},
	/* system-wide, the report's irqoff summary: prom.c and json.c name them there */
	[DIST_OUTSIDE] = { .name = "irqoff_outside" },
	[DIST_LATE] = { .name = "tick_late" },
	/* the workload's (rstatlat load) own figures, json.c names them there */
	[DIST_READ] = { .name = "workload.read" },
	[DIST_ROUND] = { .name = "workload.round" },
};

/* irqs-off next to the holds: under --irqoff lock they are the holds */
const enum dist_id dist_shown[DIST_ROW_MAX] = { DIST_HOLD, DIST_WAIT, DIST_IRQOFF, DIST_FLUSH };

const struct count_def count_defs[COUNT_MAX] = {
	[COUNT_LOCKED] = {
		.json = "locked",
		.after = -1, .of = -1, .per = -1, .part = -1,
		.prom = "rstatlat_locks_total", .prom_help = "Acquisitions of the rstat lock.",
		.compare = { { "locked", MK_COUNT },
			     { "locked.rate", MK_RATE } },
	},
	[COUNT_CONTENDED] = {
		.json = "contended",
		.after = -1, .of = COUNT_LOCKED, .per = -1, .part = -1,
		.prom = "rstatlat_locks_contended_total",
		.prom_help = "Acquisitions that found the lock taken.",
		.compare = { { "contended.rate", MK_SHARE } },
	},
	[COUNT_FLUSH_HOLDS] = {
		.json = "flush_holds",
		.after = DIST_FLUSH, .of = -1, .per = DIST_FLUSH, .part = -1,
		.prom = "rstatlat_flush_holds_total",
		.prom_help = "Lock holds taken by whole flushes.",
		.compare = { { "flush.holds", MK_PER_VALUE } },
	},
	/* flushes switched out (waiting for a CPU) between their holds */
	[COUNT_FLUSHES_OFFCPU] = {
		.json = "flushes_offcpu", .json_optional = true,
		.after = DIST_FLUSH, .of = -1, .per = DIST_FLUSH, .part = PART_OFFCPU,
		.prom = "rstatlat_flushes_offcpu_total",
		.prom_help = "Whole flushes that spent time off CPU between their holds.",
		.compare = { { "flush.offcpu_share", MK_SHARE } },
	},
	[COUNT_FLUSH_HOLDS_MAX] = {
		.json = "flush_holds_max",
		.after = DIST_FLUSH, .of = -1, .per = -1, .part = -1,
	},
};

unsigned int counts_unmeasured_without(unsigned int parts_measured)
{
	unsigned int m = 0;

	for (int k = 0; k < COUNT_MAX; k++)
		if (count_defs[k].part >= 0 && !(parts_measured >> count_defs[k].part & 1))
			m |= 1U << k;
	return m;
}

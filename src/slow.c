// SPDX-License-Identifier: GPL-2.0
/*
 * A -t report is laid out like the IRQSOFF tracer's trace so it can be
 * pasted into a mail: what, how long, where, who, and the kernel stack.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include "collect.h"
#include "escape.h"
#include "fmt.h"
#include "ksym.h"
#include "rstatlat.h"
#include "slow.h"

static void wall_clock(char *buf, size_t len, uint64_t real_ns)
{
	time_t t = (time_t)(real_ns / 1000000000ULL);
	struct tm tm;
	char hms[16];

	localtime_r(&t, &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06llu", hms,
		 (unsigned long long)(real_ns % 1000000000ULL) / 1000);
}

/*
 * The first frames are rstatlat's own program and the BPF dispatch; the
 * report starts at the kernel code that released or took the lock.
 */
static int first_kernel_frame(struct slow_ctx *sc, const struct slow_event *e, int frames)
{
	static const char *const ours[] = { "bpf_prog_", "bpf_trace_run", "__bpf_trace_",
					    "__traceiter_" };
	char sym[256];
	int i;

	for (i = 0; i < frames - 1; i++) {
		bool skip = false;

		ksym_format(sc->ksyms, e->stack[i], sym, sizeof(sym));
		for (size_t k = 0; k < sizeof(ours) / sizeof(ours[0]); k++)
			skip |= !strncmp(sym, ours[k], strlen(ours[k]));
		if (!skip)
			break;
	}
	return i;
}

static void print_text(struct slow_ctx *sc, const struct slow_event *e, const char *path)
{
	char dur[16], thr[16], when[32], comm[4 * RSL_COMM_LEN + 1], esc[4096], sym[256];
	int frames = e->stack_bytes > 0 ? e->stack_bytes / 8 : 0;

	term_escape(comm, sizeof(comm), e->comm);
	term_escape(esc, sizeof(esc), path ? path : "?");
	wall_clock(when, sizeof(when), e->ts + (uint64_t)sc->mono_to_real_ns);
	fprintf(sc->out, "# rstatlat: cgroup rstat lock %s %s (threshold %s)\n",
		e->kind == REPORT_HOLD ? "held" : "waited for",
		fmt_duration(dur, sizeof(dur), e->duration_ns),
		fmt_duration(thr, sizeof(thr), sc->threshold_ns));
	fprintf(sc->out, "# -----------------------------------------------------------\n");
	fprintf(sc->out, "#    | cgroup: %s (id %llu" ", hierarchy %u)\n", esc, e->cgid,
		e->hierarchy);
	fprintf(sc->out, "#    | task: %s-%u (tgid %u), CPU#%u, rstat cpu %d, contended: %s\n",
		comm, e->pid, e->tgid, e->cpu, e->lock_cpu, e->contended ? "yes" : "no");
	fprintf(sc->out, "#    | ended at: %s\n", when);
	fprintf(sc->out, "#  kernel stack at %s:\n", e->kind == REPORT_HOLD ? "unlock" : "lock");
	for (int i = first_kernel_frame(sc, e, frames); i < frames && i < RSL_MAX_STACK; i++)
		fprintf(sc->out, " => %s\n", ksym_format(sc->ksyms, e->stack[i], sym, sizeof(sym)));
	if (!frames)
		fprintf(sc->out, " => (no stack: error %d)\n", e->stack_bytes);
	fputc('\n', sc->out);
}

static void print_json(struct slow_ctx *sc, const struct slow_event *e, const char *path)
{
	int frames = e->stack_bytes > 0 ? e->stack_bytes / 8 : 0;
	char sym[256];

	fprintf(sc->out, "{\"schema\":\"rstatlat/1\",\"type\":\"slow\",\"kind\":\"%s\","
		"\"duration_ns\":%llu" ",\"time_ns\":%llu" ",\"cpu\":%u,\"lock_cpu\":%d,"
		"\"pid\":%u,\"tgid\":%u,\"comm\":",
		e->kind == REPORT_HOLD ? "hold" : "wait", e->duration_ns,
		e->ts + (uint64_t)sc->mono_to_real_ns, e->cpu, e->lock_cpu, e->pid, e->tgid);
	json_write_string(sc->out, e->comm);
	fprintf(sc->out, ",\"contended\":%s,\"cgroup\":{\"id\":%llu" ",\"hierarchy\":%u,"
		"\"path\":", e->contended ? "true" : "false", e->cgid, e->hierarchy);
	json_write_string(sc->out, path ? path : "");
	fputs("},\"stack\":[", sc->out);
	for (int i = first_kernel_frame(sc, e, frames), n = 0; i < frames && i < RSL_MAX_STACK;
	     i++, n++) {
		if (n)
			fputc(',', sc->out);
		json_write_string(sc->out, ksym_format(sc->ksyms, e->stack[i], sym, sizeof(sym)));
	}
	fputs("]}\n", sc->out);
}

int slow_handle(void *ctx, void *data, size_t len)
{
	struct slow_ctx *sc = ctx;
	struct slow_event e;
	const char *path;

	if (len < sizeof(e))
		return 0;
	/* copy out of the ring so the string fields can be terminated */
	e = *(const struct slow_event *)data;
	e.comm[RSL_COMM_LEN - 1] = '\0';
	if (!collector_slot_wanted(sc->collector, e.slot))
		return 0;	/* outside -c */
	path = collector_slot_path(sc->collector, e.slot);
	if (sc->json)
		print_json(sc, &e, path);
	else
		print_text(sc, &e, path);
	fflush(sc->out);
	return 0;
}

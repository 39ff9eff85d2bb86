// SPDX-License-Identifier: GPL-2.0
/*
 * A slow event is laid out like the IRQSOFF tracer's trace so it can be
 * pasted into a mail: what, how long, where, who, and the kernel stack.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include "cgroup.h"
#include "clock.h"
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
 * stack shown starts at the kernel code the event fired in: where the
 * lock was released or taken, interrupts came back on, or the tick landed.
 */
static int first_kernel_frame(struct slow_ctx *sc, const struct slow_event *e, int frames)
{
	static const char *const ours[] = { "bpf_prog_", "bpf_trace_run", "__bpf_trace_",
					    "__traceiter_", "trace_hardirqs_" };
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

static const char *const kind_names[] = {
	[SLOW_HOLD] = "hold", [SLOW_WAIT] = "wait", [SLOW_IRQOFF] = "irqoff",
	[SLOW_TICK] = "tick",
};

static void headline(struct slow_ctx *sc, const struct slow_event *e)
{
	char dur[16], thr[16];

	fmt_duration(dur, sizeof(dur), e->duration_ns);
	fmt_duration(thr, sizeof(thr), sc->threshold_ns);
	switch (e->kind) {
	case SLOW_IRQOFF:
		fprintf(sc->out, "# rstatlat: irqs off %s with a cgroup rstat hold inside "
			"(threshold %s)\n", dur, thr);
		break;
	case SLOW_TICK:
		fprintf(sc->out, "# rstatlat: cpu-clock tick %s late (threshold %s): irqs off, or "
			"the vCPU stopped, about that long\n", dur, thr);
		break;
	default:
		fprintf(sc->out, "# rstatlat: cgroup rstat lock %s %s (threshold %s)\n",
			e->kind == SLOW_HOLD ? "held" : "waited for", dur, thr);
	}
	fprintf(sc->out, "# -----------------------------------------------------------\n");
}

/* "sym <- caller", as the IRQSOFF tracer names where irqs went off or on */
static const char *site(struct slow_ctx *sc, const __u64 *ip, char *buf, size_t len)
{
	char a[256], b[256];

	ksym_format(sc->ksyms, ip[0], a, sizeof(a));
	if (!ip[1])	/* the kernel could not name the caller */
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s <- %s", a, ksym_format(sc->ksyms, ip[1], b, sizeof(b)));
	return buf;
}

static const char *task_cgroup(struct slow_ctx *sc, const struct slow_event *e)
{
	const char *p = sc->cg ? cg_path_of_id(sc->cg, 0, e->cgid_current) : NULL;

	return p ? p : "?";
}

static void print_text(struct slow_ctx *sc, const struct slow_event *e, const char *path,
		       const char *lock, const char *type)
{
	char when[32], comm[4 * RSL_COMM_LEN + 1], esc[4096], sym[256], where[600];
	int frames = e->stack_bytes > 0 ? e->stack_bytes / 8 : 0;

	term_escape(comm, sizeof(comm), e->comm);
	wall_clock(when, sizeof(when), e->ts + (uint64_t)sc->mono_to_real_ns);
	headline(sc, e);
	if (e->kind == SLOW_TICK) {
		term_escape(esc, sizeof(esc), task_cgroup(sc, e));
		fprintf(sc->out, "#    | interrupted: %s-%u (tgid %u), CPU#%u, cgroup %s (id %llu)\n",
			comm, e->pid, e->tgid, e->cpu, esc, (unsigned long long)e->cgid_current);
		fprintf(sc->out, "#    | an rstat hold ended on this CPU since the previous tick: %s\n",
			e->overlap ? "yes" : "no");
	} else {
		term_escape(esc, sizeof(esc), path ? path : "?");
		fprintf(sc->out, "#    | cgroup: %s (id %llu" ", hierarchy %u)", esc, e->cgid,
			e->hierarchy);
		if (lock[0]) {
			term_escape(esc, sizeof(esc), lock);
			fprintf(sc->out, ", lock %s", esc);
		}
		if (type[0]) {
			term_escape(esc, sizeof(esc), type);
			fprintf(sc->out, ", lock type %s", esc);
		}
		fputc('\n', sc->out);
		if (e->kind == SLOW_IRQOFF)
			fprintf(sc->out, "#    | task: %s-%u (tgid %u), CPU#%u\n", comm, e->pid,
				e->tgid, e->cpu);
		else
			fprintf(sc->out, "#    | task: %s-%u (tgid %u), CPU#%u, rstat cpu %d, "
				"contended: %s\n", comm, e->pid, e->tgid, e->cpu, e->lock_cpu,
				e->contended ? "yes" : "no");
	}
	if (e->kind == SLOW_IRQOFF) {
		term_escape(esc, sizeof(esc), site(sc, &e->irq_sites[0], where, sizeof(where)));
		fprintf(sc->out, "#    | started at: %s\n", esc);
		term_escape(esc, sizeof(esc), site(sc, &e->irq_sites[2], where, sizeof(where)));
		fprintf(sc->out, "#    | ended at:   %s\n", esc);
	}
	fprintf(sc->out, "#    | %s: %s\n", e->kind == SLOW_TICK ? "at" : "ended", when);
	fprintf(sc->out, "#  kernel stack at %s:\n", e->kind == SLOW_HOLD ? "unlock" :
		e->kind == SLOW_WAIT ? "lock" : e->kind == SLOW_IRQOFF ? "irqs on" :
		"the tick (where irqs came back on)");
	for (int i = first_kernel_frame(sc, e, frames); i < frames && i < RSL_MAX_STACK; i++)
		fprintf(sc->out, " => %s\n", ksym_format(sc->ksyms, e->stack[i], sym, sizeof(sym)));
	if (!frames)
		fprintf(sc->out, " => (no stack: error %d)\n", e->stack_bytes);
	fputc('\n', sc->out);
}

static void print_json(struct slow_ctx *sc, const struct slow_event *e, const char *path,
		       const char *lock, const char *type)
{
	int frames = e->stack_bytes > 0 ? e->stack_bytes / 8 : 0;
	char sym[256];

	fprintf(sc->out, "{\"schema\":\"rstatlat/1\",\"type\":\"slow\",\"kind\":\"%s\","
		"\"duration_ns\":%llu" ",\"time_ns\":%llu" ",\"cpu\":%u,\"lock_cpu\":%d,"
		"\"pid\":%u,\"tgid\":%u,\"comm\":",
		e->kind < 4 ? kind_names[e->kind] : "?", e->duration_ns,
		e->ts + (uint64_t)sc->mono_to_real_ns, e->cpu, e->lock_cpu, e->pid, e->tgid);
	json_write_string(sc->out, e->comm);
	fprintf(sc->out, ",\"contended\":%s,\"cgroup\":{\"id\":%llu" ",\"hierarchy\":%u,"
		"\"path\":", e->contended ? "true" : "false", e->cgid, e->hierarchy);
	json_write_string(sc->out, path ? path : "");
	if (lock[0]) {
		fputs(",\"lock\":", sc->out);
		json_write_string(sc->out, lock);
	}
	if (type[0]) {
		fputs(",\"lock_type\":", sc->out);
		json_write_string(sc->out, type);
	}
	fputc('}', sc->out);
	if (e->kind == SLOW_IRQOFF) {
		char where[600];

		fputs(",\"started_at\":", sc->out);
		json_write_string(sc->out, site(sc, &e->irq_sites[0], where, sizeof(where)));
		fputs(",\"ended_at\":", sc->out);
		json_write_string(sc->out, site(sc, &e->irq_sites[2], where, sizeof(where)));
	}
	if (e->kind == SLOW_TICK) {
		fprintf(sc->out, ",\"overlap\":%s,\"task_cgroup\":{\"id\":%llu,\"path\":",
			e->overlap ? "true" : "false", (unsigned long long)e->cgid_current);
		json_write_string(sc->out, task_cgroup(sc, e));
		fputc('}', sc->out);
	}
	fputs(",\"stack\":[", sc->out);
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
	const char *path, *lock, *type = "";

	if (len < sizeof(e))
		return 0;
	/* copy out of the ring so the string fields can be terminated */
	e = *(const struct slow_event *)data;
	e.comm[RSL_COMM_LEN - 1] = '\0';
	if (e.kind == SLOW_TICK ? sc->cgroup_filter : !collector_slot_wanted(sc->collector, e.slot))
		goto out;	/* outside -c */
	if (sc->counting) {
		sc->unprinted++;
		goto out;
	}
	path = collector_slot_path(sc->collector, e.slot);
	lock = e.kind == SLOW_TICK ? "" : collector_slot_lock(sc->collector, e.slot, &type);
	if (sc->json)
		print_json(sc, &e, path, lock, type);
	else
		print_text(sc, &e, path, lock, type);
	fflush(sc->out);
out:
	return sc->until_ns && clock_ns(CLOCK_MONOTONIC) >= sc->until_ns ? SLOW_PAUSED : 0;
}

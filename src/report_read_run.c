// SPDX-License-Identifier: GPL-2.0
/*
 * What a report read back (report_read.c) says of its run: the schema, the
 * kernel and how it was traced, losses, rstatlat's own costs (self), the
 * system-wide figures, the command and the workload.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report_read_int.h"

int read_lost(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *lost = get_typed(rd, obj, "", "lost", false);
	uint64_t v;

	if (!lost)
		return -1;
	/* counters a newer rstatlat/1 adds are not known here: skipped */
	for (int i = 0; i < LOST_MAX; i++) {
		/* files written before "entry" was the one word say slots_full */
		const char *key = i == LOST_ENTRIES_FULL && !jt_get(lost, lost_names[i]) ?
				  "slots_full" : lost_names[i];

		if (!jt_get(lost, key))
			continue;
		if (get_u64(rd, lost, "lost", key, &v) || add_u64(rd, "lost", &a->r.lost[i], v, key))
			return -1;
	}
	return 0;
}


/* The per-CPU lock (6.10-6.16), system-wide: null when its tracepoints were not attached. */
int read_cpu_lock(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *v = jt_get(obj, "cpu_lock");
	struct lock_summary l = { .present = true }, *into = &a->r.cpu_lock;
	int ret;

	if (!v || jt_is(v, JT_NULL))
		return 0;
	if (!jt_is(v, JT_OBJECT))
		return fail(rd, "\"cpu_lock\" is not an object");
	/* a failure ends the read, so a half-added lock is never used */
	ret = get_u64(rd, v, "cpu_lock", "locked", &l.locked) ||
	      get_u64(rd, v, "cpu_lock", "contended", &l.contended) ||
	      read_dist(rd, v, "cpu_lock", "hold_ns", &l.hold) ||
	      read_dist(rd, v, "cpu_lock", "wait_ns", &l.wait) ||
	      add_u64(rd, "cpu_lock", &into->locked, l.locked, "locked") ||
	      add_u64(rd, "cpu_lock", &into->contended, l.contended, "contended");
	if (!ret && (dist_merge_overflows(&into->hold, &l.hold) ||
		     dist_merge_overflows(&into->wait, &l.wait)))
		ret = fail(rd, "cpu_lock: a sum passes 2^64-1 added to the objects before it");
	if (!ret && (dist_merge(&into->hold, &l.hold) || dist_merge(&into->wait, &l.wait)))
		ret = fail(rd, "out of memory");
	into->present = into->present || !ret;
	dist_free(&l.hold);
	dist_free(&l.wait);
	return ret ? -1 : 0;
}

/* A number, or null for unknown; *known says which. */
static int get_u64_or_null(struct reader *rd, const struct jt *obj, const char *ctx, const char *key,
			   uint64_t *out, bool *known)
{
	const struct jt *v = get(rd, obj, ctx, key);

	if (!v)
		return -1;
	*known = !jt_is(v, JT_NULL);
	*out = 0;
	return *known ? get_u64(rd, obj, ctx, key, out) : 0;
}

/*
 * rstatlat's own costs, when the object has them. Merged objects add
 * their CPU and BPF time; the last one says how many entries were in use.
 */
int read_self(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *v = jt_get(obj, "self");
	struct self_costs c = { .present = true }, *into = &a->r.self;
	bool runs_known;

	if (!v || jt_is(v, JT_NULL))
		return 0;
	if (!jt_is(v, JT_OBJECT))
		return fail(rd, "\"self\" is not an object");
	if (get_u64(rd, v, "self", "map_bytes", &c.map_bytes) ||
	    get_u32(rd, v, "self", "entries", &c.entries) ||
	    get_u32(rd, v, "self", "entries_used", &c.entries_used) ||
	    get_u64(rd, v, "self", "cpu_user_ns", &c.cpu_user_ns) ||
	    get_u64(rd, v, "self", "cpu_system_ns", &c.cpu_system_ns) ||
	    get_u64_or_null(rd, v, "self", "bpf_ns", &c.bpf_ns, &c.bpf_stats) ||
	    get_u64_or_null(rd, v, "self", "bpf_runs", &c.bpf_runs, &runs_known) ||
	    get_u64(rd, v, "self", "rss_max_bytes", &c.rss_max_bytes))
		return -1;
	if (c.bpf_stats != runs_known)
		return fail(rd, "self: \"bpf_ns\" and \"bpf_runs\" must both be numbers "
			    "or both null");
	/* the sampled BPF time, in files from rstatlat/1 files that have it */
	if (jt_get(v, "map_bytes_ceiling") &&
	    get_u64(rd, v, "self", "map_bytes_ceiling", &c.map_bytes_ceiling))
		return -1;
	/* absent in files from before it: 0, unknown */
	if (jt_get(v, "entries_peak") && get_u32(rd, v, "self", "entries_peak", &c.entries_peak))
		return -1;
	c.own_known = jt_get(v, "bpf_sampled_ns") != NULL;
	if (c.own_known && (get_u64(rd, v, "self", "bpf_sampled_ns", &c.bpf_sampled_ns) ||
			    get_u64(rd, v, "self", "lock_events", &c.lock_events)))
		return -1;
	if (!a->self_objects++) {
		*into = c;
		return 0;
	}
	if (add_u64(rd, "self", &into->cpu_user_ns, c.cpu_user_ns, "cpu_user_ns") ||
	    add_u64(rd, "self", &into->cpu_system_ns, c.cpu_system_ns, "cpu_system_ns") ||
	    add_u64(rd, "self", &into->bpf_ns, c.bpf_ns, "bpf_ns") ||
	    add_u64(rd, "self", &into->bpf_runs, c.bpf_runs, "bpf_runs") ||
	    add_u64(rd, "self", &into->bpf_sampled_ns, c.bpf_sampled_ns, "bpf_sampled_ns") ||
	    add_u64(rd, "self", &into->lock_events, c.lock_events, "lock_events"))
		return -1;
	into->bpf_stats = into->bpf_stats && c.bpf_stats;
	into->own_known = into->own_known && c.own_known;
	into->map_bytes = c.map_bytes;
	into->map_bytes_ceiling = c.map_bytes_ceiling;
	into->entries = c.entries;
	into->entries_used = c.entries_used;
	into->entries_peak = c.entries_peak;
	if (c.rss_max_bytes > into->rss_max_bytes)
		into->rss_max_bytes = c.rss_max_bytes;
	return 0;
}

/* "locks": one of lock_scope_names, or absent (LOCKS_UNKNOWN). */
static int read_locks(struct reader *rd, const struct jt *obj, enum lock_scope *locks)
{
	const struct jt *v = jt_get(obj, "locks");

	*locks = LOCKS_UNKNOWN;
	if (!v)
		return 0;
	for (int k = 0; k < LOCKS_MAX; k++) {
		if (lock_scope_names[k] && jt_is(v, JT_STRING) &&
		    !strcmp(v->str.s, lock_scope_names[k])) {
			*locks = (enum lock_scope)k;
			return 0;
		}
	}
	return fail(rd, "locks: not \"global\" or \"per-subsystem\"");
}

/* Every object of a file must come from one kernel and one attach plan. */
int read_kernel(struct reader *rd, const struct jt *obj)
{
	const struct jt *k = get_typed(rd, obj, "", "kernel", false);
	struct kernel_info ki = { 0 };
	const char *release, *attach;
	enum lock_scope locks;
	const struct jt *lock_rows = jt_get(obj, "lock_rows");
	const struct jt *lock_types = jt_get(obj, "lock_types");
	uint32_t possible, online;

	if (!k)
		return -1;
	release = get_str(rd, k, "kernel", "release");
	if (!release || get_u32(rd, k, "kernel", "cpus_possible", &possible) ||
	    get_u32(rd, k, "kernel", "cpus_online", &online))
		return -1;
	attach = get_str(rd, obj, "", "attach");
	if (!attach || read_locks(rd, obj, &locks))
		return -1;
	if ((lock_rows && !jt_is_bool(lock_rows)) ||
	    (lock_types && !jt_is_bool(lock_types)))
		return fail(rd, "%s: not a boolean", lock_rows && !jt_is_bool(lock_rows) ?
			    "lock_rows" : "lock_types");
	snprintf(ki.release, sizeof(ki.release), "%s", release);
	ki.cpus_possible = (int)(possible > INT32_MAX ? INT32_MAX : possible);
	ki.cpus_online = (int)(online > INT32_MAX ? INT32_MAX : online);
	if (!rd->have_kernel) {
		rd->kernel = ki;
		snprintf(rd->attach, sizeof(rd->attach), "%s", attach);
		rd->locks = locks;
		rd->lock_rows = jt_is(lock_rows, JT_TRUE);
		rd->lock_types = jt_is(lock_types, JT_TRUE);
		rd->have_kernel = true;
		return 0;
	}
	if (strcmp(ki.release, rd->kernel.release) || strcmp(attach, rd->attach) ||
	    locks != rd->locks || jt_is(lock_rows, JT_TRUE) != rd->lock_rows ||
	    jt_is(lock_types, JT_TRUE) != rd->lock_types)
		return fail(rd, "objects from different kernels or attach points in one file");
	return 0;
}

int read_irqoff_source(struct reader *rd, const struct jt *obj)
{
	const struct jt *irq = jt_get(obj, "irqoff");
	const char *src;

	if (!irq || jt_is(irq, JT_NULL))
		return 0;
	if (!jt_is(irq, JT_OBJECT))
		return fail(rd, "\"irqoff\" is not an object");
	src = get_str(rd, irq, "irqoff", "source");
	if (!src)
		return -1;
	snprintf(rd->info->irqoff_buf, sizeof(rd->info->irqoff_buf), "%s", src);
	rd->info->irqoff_source = rd->info->irqoff_buf;
	return 0;
}

/* One of irqoff's system-wide distributions (null when its source was off), merged. */
static int read_system_dist(struct reader *rd, const struct jt *irq, const char *key, struct dist *into,
			    bool *present)
{
	const struct jt *v = jt_get(irq, key);
	struct dist d = { 0 };
	int ret;

	if (!v || jt_is(v, JT_NULL))
		return 0;
	ret = read_dist(rd, irq, "irqoff", key, &d);
	if (!ret && dist_merge_overflows(into, &d))
		ret = fail(rd, "irqoff.%s: a sum passes 2^64-1 added to the objects before it", key);
	if (!ret && dist_merge(into, &d))
		ret = fail(rd, "out of memory");
	dist_free(&d);
	*present = *present || !ret;
	return ret;
}

/* Irqs-off outside rstat (trace) and tick lateness (sample), system-wide. */
int read_irqoff_system(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *irq = jt_get(obj, "irqoff");
	const char *outside;

	if (!irq || !jt_is(irq, JT_OBJECT))
		return 0;
	/* files written before "outside" was the one word for them say other_ns */
	outside = jt_get(irq, "outside_ns") ? "outside_ns" : "other_ns";
	/* absent before it was recorded; a long hold there may be a vCPU stall (findings) */
	a->r.irqoff.virtual_machine |= jt_is(jt_get(irq, "virtual_machine"), JT_TRUE);
	return read_system_dist(rd, irq, outside, &a->r.irqoff.outside, &a->r.irqoff.trace) ||
	       read_system_dist(rd, irq, "late_ns", &a->r.irqoff.late, &a->r.irqoff.sample);
}

/* More arguments than this is not a command rstatlat ran (ARG_MAX allows more, no CI does). */
#define COMMAND_ARGS_MAX 4096

/* "status" or "signal" of a command: null until it ended, else 0..255. */
static int read_end_figure(struct reader *rd, const struct jt *cmd, const char *key, bool *ended, int *out)
{
	const struct jt *v = get(rd, cmd, "command", key);

	if (!v)
		return -1;
	if (jt_is(v, JT_NULL))
		return 0;
	if (!jt_is(v, JT_UINT) || v->u > 255)
		return fail(rd, "command: \"%s\" is not null or 0..255", key);
	*out = (int)v->u;
	*ended = true;
	return 0;
}

static int read_command_cgroups(struct reader *rd, const struct jt *list, struct command_info *c)
{
	size_t i;
	const struct jt *v;

	if (list->n > COMMAND_CGROUPS_MAX)
		return fail(rd, "command: more than %d cgroups", COMMAND_CGROUPS_MAX);
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): each path is kept in c, freed with it */
	jt_foreach(list, i, v) {
		struct row id = { 0 };
		char ctx[48];

		snprintf(ctx, sizeof(ctx), "command.cgroups[%zu]", i);
		if (read_identity(rd, v, ctx, &id))
			return -1;
		c->cgroups[c->ncgroups++] = (struct command_cgroup){
			.id = id.cgid, .hierarchy = id.hierarchy, .path = id.path,
		};
	}
	return 0;
}

static int read_command_argv(struct reader *rd, const struct jt *list, struct command_info *c)
{
	size_t i, n = list->n;
	const struct jt *v;

	if (!n || n > COMMAND_ARGS_MAX)
		return fail(rd, "command: \"argv\" must hold 1 to %d strings", COMMAND_ARGS_MAX);
	c->argv = calloc(n + 1, sizeof(*c->argv));
	if (!c->argv)
		return fail(rd, "out of memory");
	jt_foreach(list, i, v) {
		if (!jt_is(v, JT_STRING))
			return fail(rd, "command: argv[%zu] is not a string", i);
		c->argv[c->argc] = strdup(v->str.s);
		if (!c->argv[c->argc++])
			return fail(rd, "out of memory");
	}
	return 0;
}

/*
 * "command" (-- COMMAND): the first object's, with how it ended from the
 * object that knows (the summary). Absent in runs without a command.
 */
int read_command(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *cmd = jt_get(obj, "command"), *argv, *cgroups;
	struct command_info *c = &a->r.command, got = { 0 };
	int ret;

	if (!cmd)
		return 0;
	if (!jt_is(cmd, JT_OBJECT))
		return fail(rd, "\"command\" is not an object");
	if (read_end_figure(rd, cmd, "status", &got.ended, &got.status) ||
	    read_end_figure(rd, cmd, "signal", &got.ended, &got.signal))
		return -1;
	if (c->present) {
		if (got.ended) {
			c->ended = true;
			c->status = got.status;
			c->signal = got.signal;
		}
		return 0;
	}
	argv = get_typed(rd, cmd, "command", "argv", true);
	cgroups = argv ? get_typed(rd, cmd, "command", "cgroups", true) : NULL;
	ret = !cgroups || get_u32(rd, cmd, "command", "pid", &got.pid) ||
	      read_command_argv(rd, argv, &got) || read_command_cgroups(rd, cgroups, &got);
	if (ret) {
		command_free(&got);
		return -1;
	}
	got.present = true;
	*c = got;
	return 0;
}

/*
 * A workload's name or option key: a word of ours, [a-z0-9_-], 1 to len - 1
 * bytes; upper: A-Z too (a signal's name, "TERM").
 */
static bool workload_word(const char *s, size_t len, bool upper)
{
	size_t n = strlen(s);

	if (!n || n >= len)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      (upper && s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

#define WORKLOAD_TEXT_MAX 4096	/* an option's string value */

static int read_workload_options(struct reader *rd, const struct jt *opts,
				 struct workload_info *w)
{
	if (opts->n > WORKLOAD_OPTIONS_MAX)
		return fail(rd, "workload.options: more than %d", WORKLOAD_OPTIONS_MAX);
	for (const struct jt *v = opts->kids.first; v; v = v->next) {
		struct workload_option *o = &w->options[w->noptions];
		const char *key = v->key;

		if (!workload_word(key, sizeof(o->key), false))
			return fail(rd, "workload.options: a key is not a word of %d bytes at most",
				    WORKLOAD_KEY_LEN - 1);
		snprintf(o->key, sizeof(o->key), "%s", key);
		if (jt_is(v, JT_UINT)) {
			o->number = v->u;
		} else if (jt_is(v, JT_STRING) && strlen(v->str.s) <= WORKLOAD_TEXT_MAX) {
			if (!(o->text = strdup(v->str.s)))
				return fail(rd, "out of memory");
		} else {
			return fail(rd, "workload.options.%s: not an integer or a string of %d bytes "
				    "at most", o->key, WORKLOAD_TEXT_MAX);
		}
		w->noptions++;
	}
	return 0;
}

/* A short string of the workload's ("name", "hierarchy"; "stopped_by": a signal, or null). */
static int read_workload_word(struct reader *rd, const struct jt *obj, const char *key,
			      bool signal, char *out, size_t len)
{
	const struct jt *v = get(rd, obj, "workload", key);

	if (!v)
		return -1;
	if (signal && jt_is(v, JT_NULL))
		return 0;
	if (!jt_is(v, JT_STRING) || !workload_word(v->str.s, len, signal))
		return fail(rd, "workload: \"%s\" is not a word of %zu bytes at most", key, len - 1);
	snprintf(out, len, "%s", v->str.s);
	return 0;
}

/* The counters it has: reads always; rounds with round_ns; the rest as they come. */
static int read_workload_counts(struct reader *rd, const struct jt *obj, struct workload_info *w)
{
	for (int k = 0; k < WL_COUNT_MAX; k++) {
		if (k != WL_READS && !jt_get(obj, workload_count_names[k]))
			continue;
		if (get_u64(rd, obj, "workload", workload_count_names[k], &w->count[k]))
			return -1;
		w->measured |= 1U << k;
	}
	if (w->count[WL_ROUNDS_LATE] > w->count[WL_ROUNDS])
		return fail(rd, "workload: more rounds_late than rounds");
	if (read_dist(rd, obj, "workload", "read_ns", &w->read))
		return -1;
	if (w->read.count != w->count[WL_READS])
		return fail(rd, "workload: read_ns.count is not reads");
	if (!(w->measured & (1U << WL_ROUNDS)))
		return 0;
	if (read_dist(rd, obj, "workload", "round_ns", &w->round))
		return -1;
	return w->round.count == w->count[WL_ROUNDS] ? 0 :
	       fail(rd, "workload: round_ns.count is not rounds");
}

/* How many workloads a summary's has added up (1 unless said), and whether of different kinds. */
static int read_workload_pool(struct reader *rd, const struct jt *obj, struct workload_info *w)
{
	const struct jt *runs = jt_get(obj, "runs"), *mixed = jt_get(obj, "mixed");

	w->present = true;
	w->runs = 1;
	if (runs && (!jt_is(runs, JT_UINT) || !runs->u || runs->u > UINT32_MAX))
		return fail(rd, "workload: \"runs\" is not 1 to 2^32-1");
	if (mixed && !jt_is_bool(mixed))
		return fail(rd, "workload: \"mixed\" is not true or false");
	w->runs = runs ? (unsigned int)runs->u : 1;
	w->mixed = jt_is(mixed, JT_TRUE);
	return 0;
}

/* The members of a workload (rstatlat load): the summary's "workload", or a line of its own. */
static int read_workload_members(struct reader *rd, const struct jt *obj, struct workload_info *w)
{
	const struct jt *opts;

	memset(w, 0, sizeof(*w));
	if (read_workload_word(rd, obj, "name", false, w->name, sizeof(w->name)) ||
	    read_workload_word(rd, obj, "hierarchy", false, w->hierarchy, sizeof(w->hierarchy)) ||
	    read_workload_word(rd, obj, "stopped_by", true, w->stopped_by, sizeof(w->stopped_by)) ||
	    !(opts = get_typed(rd, obj, "workload", "options", false)) ||
	    read_workload_options(rd, opts, w) ||
	    get_u64(rd, obj, "workload", "wall_ns", &w->wall_ns) || read_workload_counts(rd, obj, w))
		return -1;
	return read_workload_pool(rd, obj, w);
}

/* One workload into into (the file's summaries', or its workload lines'). */
int read_workload_into(struct reader *rd, const struct jt *obj, struct workload_info *into)
{
	struct workload_info w;
	int ret = read_workload_members(rd, obj, &w);

	if (!ret && workload_merge(into, &w))
		ret = fail(rd, "out of memory");
	workload_free(&w);
	return ret;
}

/* "workload": a summary of a command that ran rstatlat load. */
int read_workload(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *v = jt_get(obj, "workload");

	if (!v)
		return 0;
	if (!jt_is(v, JT_OBJECT))
		return fail(rd, "\"workload\" is not an object");
	return read_workload_into(rd, v, &a->r.workload);
}

int check_schema(struct reader *rd, const struct jt *obj)
{
	const struct jt *v = jt_is(obj, JT_OBJECT) ? jt_get(obj, "schema") : NULL;
	const char *s = jt_is(v, JT_STRING) ? v->str.s : NULL;

	if (!s || strncmp(s, SCHEMA_PREFIX, strlen(SCHEMA_PREFIX)))
		return fail(rd, "not rstatlat -j output (no \"schema\": \"" SCHEMA "\")");
	if (strcmp(s, SCHEMA))
		return fail(rd, "unsupported schema \"%.32s\" (this rstatlat reads " SCHEMA ")", s);
	return 0;
}

/* A part's number from its name ("irq"), or -1. */
static int part_named(const char *name)
{
	for (int k = 0; k < PART_MAX; k++)
		if (!strcmp(part_names[k], name))
			return k;
	return -1;
}

/*
 * Where the parts came from, and which were measured. Files from before
 * --flush-parts kernel timed every part but self (then in other).
 */
static int read_parts_from(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *from = jt_get(obj, "flush_parts_from");
	const struct jt *un = jt_get(obj, "flush_parts_unmeasured"), *v;
	unsigned int measured = (1U << PART_MAX) - 1;
	size_t i;
	int k;

	a->r.parts_from = PARTS_FROM_TIMED;
	if (!from) {
		a->r.parts_measured = measured & ~(1U << PART_SELF);
		return 0;
	}
	if (!jt_is(from, JT_STRING) || !strcmp(from->str.s, ""))
		return fail(rd, "flush_parts_from: not kernel or timed");
	if (!strcmp(from->str.s, "kernel"))
		a->r.parts_from = PARTS_FROM_KERNEL;
	else if (strcmp(from->str.s, "timed"))
		return fail(rd, "flush_parts_from: not kernel or timed");
	if (!jt_is(un, JT_ARRAY))
		return fail(rd, "flush_parts_unmeasured: not an array");
	jt_foreach(un, i, v) {
		k = jt_is(v, JT_STRING) ? part_named(v->str.s) : -1;
		if (k < 0 || k == PART_OTHER)
			return fail(rd, "flush_parts_unmeasured[%zu]: not a part's name", i);
		measured &= ~(1U << k);
	}
	a->r.parts_measured = measured;
	return 0;
}

/* What a run measured of its flushes; absent in older files. */
int read_flush_sources(struct reader *rd, const struct jt *obj, struct acc *a)
{
	const struct jt *parts = jt_get(obj, "flush_parts");
	const struct jt *memcg = jt_get(obj, "memcg_decisions"), *budget;

	if ((parts && !jt_is_bool(parts)) || (memcg && !jt_is_bool(memcg)))
		return fail(rd, "flush_parts, memcg_decisions: not true or false");
	if (jt_is(parts, JT_TRUE) && read_parts_from(rd, obj, a))
		return -1;
	a->r.flush_parts |= jt_is(parts, JT_TRUE);
	a->r.memcg_decisions |= jt_is(memcg, JT_TRUE);
	if (jt_get(obj, "cause_sample") &&
	    get_u32(rd, obj, "", "cause_sample", &a->r.cause_sample))
		return -1;
	/* absent before the stack budget: a fixed 1 in cause_sample */
	budget = jt_get(obj, "cause_budget");
	if (budget && !jt_is_bool(budget))
		return fail(rd, "cause_budget: not true or false");
	a->r.cause_budgeted |= jt_is(budget, JT_TRUE);
	return 0;
}

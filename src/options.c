// SPDX-License-Identifier: GPL-2.0
/*
 * rstatlat's options and compare's: one table each, and getopt_long's
 * tables and --help made from it. In --help order; man/rstatlat.8
 * describes each entry, in OPTIONS and COMPARE (tests/unit/test_options.c
 * checks that it does).
 */
#include <assert.h>
#include "options.h"

/* Where help text starts in --help, as in GNU tools' */
#define HELP_COLUMN 24

static const struct cli_opt rstatlat_opts[] = {
	{ .arg = "INTERVAL",
	  .help = "seconds between tables (default 1); with -j, -o or a\n"
		  "COMMAND, one report per interval (default: only a\n"
		  "summary)" },
	{ .arg = "COUNT", .help = "stop after COUNT intervals" },
	{ .arg = "-- COMMAND [ARGS]",
	  .help = "run COMMAND in a new cgroup of its own, trace until\n"
		  "it exits, and exit with its status; reports go to\n"
		  "stderr unless -o (the first -- ends the options)" },
	{ .name = "command-cgroup", .val = OPT_COMMAND_CGROUP, .has_arg = required_argument,
	  .arg = "new|none|PATH",
	  .help = "where COMMAND runs: new (default:\n"
		  "rstatlat-PID in v2 and v1 memory, removed at the end,\n"
		  "its directory in $RSTATLAT_CGROUP), none (rstatlat's\n"
		  "own), or an existing cgroup PATH (as for -c)" },
	{ .name = "output", .val = 'o', .has_arg = required_argument, .arg = "FILE",
	  .help = "write reports to FILE, whole, when the run ends (a\n"
		  "failed run leaves FILE as it was); - is stdout" },
	{ .name = "duration", .val = 'd', .has_arg = required_argument, .arg = "SECS",
	  .help = "stop after SECS seconds" },
	{ .name = "per-process", .val = 'p',
	  .help = "break down by flushing process as well (processes\n"
		  "that exited fold into one row per comm)" },
	{ .name = "sort", .val = 's', .has_arg = required_argument, .arg = "KEY",
	  .help = "hold-p99 (default), hold-p50, hold-max, wait-p99,\n"
		  "wait-max, locked (acquisitions), flush-p99,\n"
		  "contended, path" },
	{ .name = "rows", .val = 'n', .has_arg = required_argument, .arg = "N",
	  .help = "rows per table (default 20, 0 = all)" },
	{ .name = "histograms", .val = 'H',
	  .help = "print hold, wait, flush (and irqs-off) histograms\n"
		  "per row" },
	{ .name = "timestamp", .val = 'T', .help = "timestamp each interval" },
	{ .name = "cgroup", .val = 'c', .has_arg = required_argument, .arg = "PATH",
	  .help = "only this cgroup subtree: /a/b (v2), memory:/a/b,\n"
		  "or a path under a cgroup mount" },
	{ .name = "pid", .val = OPT_PID, .has_arg = required_argument, .arg = "PID",
	  .help = "only flushes by this process" },
	{ .name = "threshold", .val = 't', .has_arg = required_argument, .arg = "USEC",
	  .help = "print a slow event for each hold, wait, irqs-off\n"
		  "interval (trace) or late tick (sample) >= USEC as\n"
		  "it happens, with the kernel stack (units ns/us/ms/s\n"
		  "accepted)" },
	{ .name = "json", .val = 'j', .help = "JSON lines (schema rstatlat/1, see rstatlat(8))" },
	{ .name = "max-entries", .val = OPT_MAX_ENTRIES, .has_arg = required_argument,
	  .arg = "N",
	  .help = "cgroups (x processes with -p) tracked at once, at most\n"
		  "(default 10000; the maps grow with those tracked:\n"
		  "2.7 MiB of kernel memory at 100, 61 MiB at 10000)" },
	{ .name = "probe", .val = OPT_PROBE,
	  .help = "print what this kernel offers, what is chosen and why" },
	{ .name = "irqoff", .val = OPT_IRQOFF, .has_arg = required_argument, .arg = "SRC",
	  .help = "irqs-off source: auto (default: trace if the kernel has\n"
		  "the preemptirq tracepoints, else lock; off on\n"
		  "PREEMPT_RT, where holds leave irqs on), trace, lock\n"
		  "(each hold), sample (late ticks: a timer interrupt\n"
		  "per tick on every CPU), lock+sample, off" },
	{ .name = "sample-hz", .val = OPT_SAMPLE_HZ, .has_arg = required_argument, .arg = "HZ",
	  .help = "cpu-clock ticks per second per CPU for sample (997)" },
	{ .name = "attach", .old_name = "source", .val = OPT_ATTACH, .has_arg = required_argument,
	  .arg = "HOW",
	  .help = "auto (default): the rstat tracepoints, else the flush\n"
		  "functions by fentry, else kprobes; or force one of\n"
		  "tracepoint, fentry, kprobe (JSON's attach says which;\n"
		  "--source is its old spelling)" },
	{ .name = "flush", .val = OPT_FLUSH,
	  .help = "the table shows flushes: FLUSH/s, p50, p99, where the\n"
		  "time went (held, wait, irq, offcpu, self, other) and\n"
		  "the top cause; implies --flush-parts timed where the\n"
		  "kernel has its tracepoints" },
	{ .name = "flush-parts", .val = OPT_FLUSH_PARTS, .has_arg = required_argument,
	  .arg = "kernel|timed|off",
	  .help = "how each flush's wall time is split:\n"
		  "kernel (default) from what the kernel keeps, read at\n"
		  "a flush's start and end (irq stays in other); timed\n"
		  "also times every interrupt and context switch while\n"
		  "a flush is open (a program on each of them; on is\n"
		  "its old name)" },
	{ .name = "cause-sample", .val = OPT_CAUSE_SAMPLE, .has_arg = required_argument,
	  .arg = "K",
	  .help = "name the cause of one flush in K (at random), and of\n"
		  "every flush of 1 ms or more, from its kernel stack,\n"
		  "shared out to all (1 = every flush; 0 = off); by\n"
		  "default one in 64 or fewer: each CPU takes about a\n"
		  "stack per 16384 holds, 1 to 32 a second" },
	{ .name = "lock-rows", .val = OPT_LOCK_ROWS, .has_arg = required_argument,
	  .arg = "on|off",
	  .help = "6.16+, one lock per subsystem: on tells them apart,\n"
		  "a row per cgroup and lock, where the kernel allows\n"
		  "fentry on css_rstat_flush (two programs a flush);\n"
		  "off (default) adds up a cgroup's holds in one row" },
	{ .heading = "\nExporting (with neither INTERVAL nor -j, no table or summary is printed):\n",
	  .name = "prometheus", .val = OPT_PROMETHEUS, .has_arg = required_argument,
	  .arg = "[ADDR:]PORT",
	  .help = "serve GET /metrics (Prometheus text format, or\n"
		  "protobuf with native histograms to scrapers that ask);\n"
		  "a bare PORT listens on 127.0.0.1 only" },
	{ .name = "textfile", .val = OPT_TEXTFILE, .has_arg = required_argument, .arg = "PATH",
	  .help = "rewrite PATH (node_exporter textfile) atomically" },
	{ .name = "textfile-interval", .val = OPT_TEXTFILE_INTERVAL,
	  .has_arg = required_argument, .arg = "SECS", .help = "how often (default 15)" },
	{ .name = "prom-buckets", .val = OPT_PROM_BUCKETS, .has_arg = required_argument,
	  .arg = "MIN:MAX[:FACTOR]",
	  .help = "histogram buckets, powers of two\n"
		  "(default 256ns:64ms:4: 10 bounds)" },
	{ .name = "prom-classic", .val = OPT_PROM_CLASSIC,
	  .help = "protobuf answers keep the classic buckets beside the\n"
		  "native ones (Prometheus 2.45+ scrape_classic_histograms)" },
	{ .name = "prom-max-cgroups", .val = OPT_PROM_MAX_CGROUPS, .has_arg = required_argument,
	  .arg = "N",
	  .help = "cgroups with series of their own, the busiest by\n"
		  "locks; the rest sum under cgroup=\"(other)\" (default 40)" },
	{ .name = "prom-max-flushers", .val = OPT_PROM_MAX_FLUSHERS, .has_arg = required_argument,
	  .arg = "N",
	  .help = "comms with flusher series of their own, the busiest by\n"
		  "locks; the rest sum under comm=\"(other)\" (default 20;\n"
		  "0: flushers not counted)" },
	{ .name = "prom-idle", .val = OPT_PROM_IDLE, .has_arg = required_argument, .arg = "SECS",
	  .help = "a cgroup without locks this long (e.g. removed) leaves\n"
		  "its series to (other) (default 300)" },
	{ .name = "user", .val = OPT_USER, .has_arg = required_argument, .arg = "USER",
	  .help = "once attached, run as USER; exporting or --user also\n"
		  "drops every capability" },
	{ .heading = "\n", .name = "verbose", .val = 'v',
	  .help = "libbpf debug output, the attach plan and the kernel\n"
		  "memory of each map" },
	{ .name = "version", .val = 'V', .help = "print the version and exit" },
	{ .name = "help", .val = 'h', .help = "this help" },
};

static_assert(sizeof(rstatlat_opts) / sizeof(*rstatlat_opts) <= CLI_MAX_OPTS,
	      "rstatlat_opts outgrew CLI_MAX_OPTS");

const struct cli_table rstatlat_cli = {
	.head = "Usage: rstatlat [OPTIONS] [INTERVAL [COUNT]]\n"
		"       rstatlat [OPTIONS] [INTERVAL] -- COMMAND [ARGS]\n"
		"       rstatlat compare [OPTIONS] BEFORE.json AFTER.json (see compare --help)\n"
		"       rstatlat load WORKLOAD [OPTIONS] (see load --list)\n"
		"Trace how long the cgroup rstat lock is waited for and held, per flushed\n"
		"cgroup, from the cgroup_rstat_* tracepoints.\n"
		"\n",
	.opts = rstatlat_opts,
	.n = sizeof(rstatlat_opts) / sizeof(*rstatlat_opts),
	.tail = "\n"
		"Exit status: 0 ok, 1 runtime error, 2 usage or bad input (also a COMMAND\n"
		"that cannot be run), 3 environment (privileges, BTF, attach points, cgroups,\n"
		"FILE); with a COMMAND that ran, its exit status (128 + N if killed by\n"
		"signal N).\n",
};

static const struct cli_opt compare_opts[] = {
	{ .name = "before", .val = OPT_BEFORE, .has_arg = required_argument, .arg = "FILE",
	  .help = "a run of the baseline, repeatable (up to 64)" },
	{ .name = "after", .val = OPT_AFTER, .has_arg = required_argument, .arg = "FILE",
	  .help = "a run of the candidate, repeatable (up to 64)" },
	{ .name = "fail-on", .val = OPT_FAIL_ON, .has_arg = required_argument, .arg = "EXPR",
	  .help = "gate, repeatable: METRIC>+N% or METRIC<-N% (relative\n"
		  "to BEFORE), METRIC>LIMIT (absolute, in AFTER); 'none'\n"
		  "for no gates. Default: hold.p99>+50%\n"
		  "irqoff.p99>+50%, with 3+ runs a side +20% each\n"
		  "METRIC: locked.rate (acquisitions/s), contended.rate,\n"
		  "flush.holds (holds per flush), flush.offcpu_share\n"
		  "(flushes with offcpu time), flush.mean (wall time\n"
		  "per flush), flush.PART (ns per flush: held|wait|\n"
		  "irq|offcpu|self|other), and\n"
		  "hold|wait|irqoff|flush . p50|p90|p99|max; on the\n"
		  "total also irqoff_outside|tick_late . p50|...|max\n"
		  "LIMIT: 100us, 5ms (times), 5% (shares), a\n"
		  "number (locked.rate, flush.holds)" },
	{ .name = "cgroup", .val = 'c', .has_arg = required_argument, .arg = "PATH",
	  .help = "gate and show only this cgroup (and the total, but\n"
		  "in mail): its path as in the JSON, a --pair's\n"
		  "label or either side's path, or \"PATH [LOCK]\"\n"
		  "where rows are per lock; when every file ran a\n"
		  "command (rstatlat -- CMD), the command's cgroups\n"
		  "are gated by default, paired as (command)\n"
		  "whatever their names" },
	{ .name = "pair", .val = OPT_PAIR, .has_arg = required_argument, .arg = "B=A",
	  .help = "pair BEFORE's cgroups matching glob B with AFTER's\n"
		  "matching A (each side's added up), e.g. a workload\n"
		  "cgroup named after its pid: /job-*=/job-*;\n"
		  "repeatable (the first match wins)" },
	{ .name = "row", .val = OPT_ROW, .has_arg = required_argument, .arg = "GLOB",
	  .help = "show the cgroups (and their flushers) whose label\n"
		  "matches GLOB, with -c's; repeatable. Default: all" },
	{ .name = "metric", .val = OPT_METRIC, .has_arg = required_argument, .arg = "GLOBS",
	  .help = "show only these metrics (names as in --fail-on,\n"
		  "comma-separated globs: hold.*,flush.*); repeatable" },
	{ .name = "format", .val = 'f', .has_arg = required_argument, .arg = "FMT",
	  .help = "text (default), md (Markdown), json (one line per\n"
		  "pair), html (one self-contained file with SVG\n"
		  "histograms; one pair), or mail (plain text in 80\n"
		  "columns, the pairs side by side, to paste in a mail)" },
	{ .name = "rows", .val = 'n', .has_arg = required_argument, .arg = "N",
	  .help = "cgroups (and flushers) shown, and passed checks\n"
		  "listed, in text, md, html and mail (default 20,\n"
		  "0 = all)" },
	{ .name = "title", .val = OPT_TITLE, .has_arg = required_argument, .arg = "TEXT",
	  .help = "a title: the HTML page's, the heading of md, mail\n"
		  "and text, JSON's title" },
	{ .name = "note", .val = OPT_NOTE, .has_arg = required_argument, .arg = "TEXT",
	  .help = "a note shown under the header and in JSON's notes;\n"
		  "repeatable" },
	{ .name = "output", .val = 'o', .has_arg = required_argument, .arg = "FILE",
	  .help = "write the comparison to FILE, whole, also when a\n"
		  "gate fails (exit 1 or 4); nothing on bad input" },
	{ .name = "histograms", .val = 'H',
	  .help = "text: BEFORE and AFTER log2 histograms of hold,\n"
		  "flush and irqs-off side by side, per row" },
	{ .name = "alpha", .val = OPT_ALPHA, .has_arg = required_argument, .arg = "A",
	  .help = "significance level per value (default 0.01)" },
	{ .name = "noise", .val = OPT_NOISE, .has_arg = required_argument, .arg = "PCT",
	  .help = "changes within PCT% count as noise (default 5)" },
	{ .name = "allow-inconclusive", .val = OPT_ALLOW_INCONCLUSIVE,
	  .help = "exit 0, not 4, when a check crossed its gate but\n"
		  "the data could not confirm it" },
	{ .name = "help", .val = 'h', .help = "this help" },
};

static_assert(sizeof(compare_opts) / sizeof(*compare_opts) <= CLI_MAX_OPTS,
	      "compare_opts outgrew CLI_MAX_OPTS");

const struct cli_table compare_cli = {
	.head = "Usage: rstatlat compare [OPTIONS] BEFORE.json AFTER.json [B2.json A2.json ...]\n"
		"       rstatlat compare [OPTIONS] --before B1.json --before B2.json ...\n"
		"                                  --after A1.json --after A2.json ...\n"
		"Compare runs of `rstatlat -j` (a summary, or intervals which are merged)\n"
		"side by side, and fail when a gate finds a significant regression. With 2\n"
		"or more runs on each side, changes are tested between runs (Welch's t on\n"
		"the per-run values), so state that lasts a run is not taken for a change.\n"
		"More file pairs (BEFORE AFTER BEFORE AFTER ...) are compared each on its\n"
		"own, side by side with -f mail; the exit status is the worst pair's.\n"
		"\n",
	.opts = compare_opts,
	.n = sizeof(compare_opts) / sizeof(*compare_opts),
	.tail = "\n"
		"Gates are one-sided and fail closed: a check passes when its observed value\n"
		"does not cross the gate, fails when it does and a test confirms it, and is\n"
		"inconclusive when the data cannot.\n"
		"\n"
		"Exit status: 0 every gate passed, 1 a gate failed, 2 usage or bad input\n"
		"(or out of memory while reading a file), 3 out of memory while comparing,\n"
		"4 a check was inconclusive (and none failed; see --allow-inconclusive).\n",
};

void cli_getopt_tables(const struct cli_table *t, struct option *longs, char *shorts)
{
	size_t nl = 0;

	*shorts++ = ':';
	for (size_t i = 0; i < t->n; i++) {
		const struct cli_opt *o = &t->opts[i];

		if (!o->name)
			continue;
		longs[nl++] = (struct option){ o->name, o->has_arg, NULL, o->val };
		if (o->old_name)
			longs[nl++] = (struct option){ o->old_name, o->has_arg, NULL, o->val };
		if (!cli_opt_short(o))
			continue;
		*shorts++ = (char)o->val;
		if (o->has_arg == required_argument)
			*shorts++ = ':';
	}
	assert(nl <= CLI_MAX_OPTS);
	longs[nl] = (struct option){ 0 };
	*shorts = '\0';
}

/* "  -d, --duration SECS", "      --pid PID" or an operand's "  INTERVAL" */
static int print_label(const struct cli_opt *o, FILE *f)
{
	int len;

	if (!o->name)
		return fprintf(f, "  %s", o->arg);
	if (cli_opt_short(o))
		len = fprintf(f, "  -%c, --%s", o->val, o->name);
	else
		len = fprintf(f, "      --%s", o->name);
	return len + (o->arg ? fprintf(f, " %s", o->arg) : 0);
}

static void print_entry(const struct cli_opt *o, FILE *f)
{
	int len;

	if (o->heading)
		fputs(o->heading, f);
	len = print_label(o, f);
	/* a label too long for the column has its help on the next line: 80 columns */
	if (len <= HELP_COLUMN - 2)
		fprintf(f, "%*s", HELP_COLUMN - len, "");
	else
		fprintf(f, "\n%*s", HELP_COLUMN, "");
	for (const char *s = o->help; *s; s++) {
		fputc(*s, f);
		if (*s == '\n')
			fprintf(f, "%*s", HELP_COLUMN, "");
	}
	fputc('\n', f);
}

void cli_print_help(const struct cli_table *t, FILE *f)
{
	fputs(t->head, f);
	for (size_t i = 0; i < t->n; i++)
		print_entry(&t->opts[i], f);
	fputs(t->tail, f);
}

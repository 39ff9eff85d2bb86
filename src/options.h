/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rstatlat's options and compare's, each written once: getopt_long's
 * table, the short-option string and --help are all made from one table,
 * and a unit test holds the man page's OPTIONS (and COMPARE) to it.
 */
#ifndef RSTATLAT_OPTIONS_H
#define RSTATLAT_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* getopt_long's values for options without a short letter: above any char */
enum { OPT_PID = 256, OPT_MAX_ENTRIES, OPT_PROBE, OPT_ATTACH, OPT_IRQOFF, OPT_SAMPLE_HZ,
       OPT_PROMETHEUS, OPT_TEXTFILE, OPT_TEXTFILE_INTERVAL, OPT_PROM_BUCKETS,
       OPT_PROM_MAX_CGROUPS, OPT_PROM_IDLE, OPT_USER, OPT_FLUSH, OPT_FLUSH_PARTS,
       OPT_CAUSE_SAMPLE, OPT_COMMAND_CGROUP, OPT_LOCK_ROWS, OPT_PROM_MAX_FLUSHERS,
       OPT_PROM_CLASSIC };
/* ... and compare's */
enum { OPT_FAIL_ON = 256, OPT_ALPHA, OPT_NOISE, OPT_ALLOW_INCONCLUSIVE, OPT_BEFORE, OPT_AFTER,
       OPT_PAIR, OPT_ROW, OPT_METRIC, OPT_TITLE, OPT_NOTE };

struct cli_opt {
	const char *heading;	/* --help: printed as is before this entry */
	const char *name;	/* long name; NULL: an operand, shown in --help only */
	const char *old_name;	/* an older spelling the parser still takes, or NULL */
	int val;		/* the short letter, or an OPT_* (long only) */
	int has_arg;		/* no_argument or required_argument */
	const char *arg;	/* its argument in --help; an operand's whole label */
	const char *help;	/* --help's lines, '\n' between them */
};

struct cli_table {
	const char *head;	/* --help before the entries: usage, what it does */
	const struct cli_opt *opts;
	size_t n;
	const char *tail;	/* --help after them */
};

/* Room for getopt_long's copy of a table (old spellings too), which is checked to fit. */
#define CLI_MAX_OPTS 64

extern const struct cli_table rstatlat_cli;
extern const struct cli_table compare_cli;

static inline int cli_opt_short(const struct cli_opt *o)
{
	return o->val < 256 ? o->val : 0;
}

/*
 * Fills longs (CLI_MAX_OPTS + 1 entries, NULL-terminated) and shorts
 * (2 * CLI_MAX_OPTS + 2 bytes: ':' first, so a missing argument is told
 * from an unknown option) for getopt_long.
 */
void cli_getopt_tables(const struct cli_table *t, struct option *longs, char *shorts);
void cli_print_help(const struct cli_table *t, FILE *f);

#endif

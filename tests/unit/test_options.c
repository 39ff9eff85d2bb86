// SPDX-License-Identifier: GPL-2.0
/*
 * The options tables against man/rstatlat.8: every option a parser takes
 * has an entry in its section (rstatlat's in OPTIONS, compare's in COMPARE
 * before its first subsection: its long name and short letter on the
 * .TP's tag line) with text under it, and the section names no option the
 * parser lacks. getopt_long's tables and --help are made from the tables:
 * the man page is the one copy left to check. Run from the top of the
 * tree, as make check-unit does.
 */
#include <ctype.h>
#include <stdlib.h>
#include "check.h"
#include "options.h"

#define MAN "man/rstatlat.8"
#define MAX_ENTRIES 128
#define MAX_NAMES 4

/* One .TP entry of OPTIONS: the options its tag names, and whether text follows. */
struct man_entry {
	char longs[MAX_NAMES][32];
	int nlong;
	char shorts[MAX_NAMES];
	int nshort;
	bool has_text;
	int line;
};

/* A man page section and the table it describes. */
struct section {
	const char *sh;		/* its .SH line */
	const struct cli_table *table;
	struct man_entry entries[MAX_ENTRIES];
	int nentries;
};

static struct section sections[] = {
	{ .sh = ".SH OPTIONS", .table = &rstatlat_cli },
	{ .sh = ".SH COMPARE", .table = &compare_cli },
};

/*
 * Reads a long option as roff writes it (\-\-flush\-parts) into name as
 * the table has it (flush-parts); returns what follows, NULL if s is none.
 */
static const char *long_name(const char *s, char *name, size_t len)
{
	size_t n = 0;

	if (strncmp(s, "\\-\\-", 4) || !isalnum((unsigned char)s[4]))
		return NULL;
	for (s += 4; n + 1 < len; ) {
		if (isalnum((unsigned char)*s))
			name[n++] = *s++;
		else if (!strncmp(s, "\\-", 2) && isalnum((unsigned char)s[2]))
			name[n++] = '-', s += 2;
		else
			break;
	}
	name[n] = '\0';
	return s;
}

/* The options a tag line names: \-\-long and \-x (a letter on its own). */
static void parse_tag(const char *tag, struct man_entry *e)
{
	const char *s = tag, *next;

	while ((s = strstr(s, "\\-"))) {
		if (e->nlong < MAX_NAMES &&
		    (next = long_name(s, e->longs[e->nlong], sizeof(*e->longs)))) {
			e->nlong++;
			s = next;
		} else if (isalpha((unsigned char)s[2]) && !isalnum((unsigned char)s[3]) &&
			   s[3] != '\\' && e->nshort < MAX_NAMES) {
			e->shorts[e->nshort++] = s[2];
			s += 3;
		} else {
			s += 2;
		}
	}
}

/* Text, not only a request without arguments (.PP, .RS) or a comment. */
static bool is_text(const char *line)
{
	if (line[0] != '.')
		return line[0] != '\0';
	if (!strncmp(line, ".\\\"", 3))
		return false;
	line = strchr(line, ' ');
	return line && line[strspn(line, " ")];
}

static void add_line(struct section *sec, const char *line, int lineno, bool *tag_next)
{
	if (!strcmp(line, ".TP")) {
		CHECK(sec->nentries < MAX_ENTRIES, "more than %d entries", MAX_ENTRIES);
		if (sec->nentries == MAX_ENTRIES)
			return;
		memset(&sec->entries[sec->nentries], 0, sizeof(*sec->entries));
		sec->entries[sec->nentries++].line = lineno + 1;
		*tag_next = true;
	} else if (*tag_next) {
		parse_tag(line, &sec->entries[sec->nentries - 1]);
		*tag_next = false;
	} else if (sec->nentries) {
		sec->entries[sec->nentries - 1].has_text |= is_text(line);
	}
}

/* Reads a section's .TP entries, from its .SH to the next .SH or .SS. */
static void read_man(struct section *sec)
{
	FILE *f = fopen(MAN, "r");
	char line[1024];
	bool in_section = false, tag_next = false;
	int lineno = 0;

	CHECK(f != NULL, "cannot open %s (run from the top of the tree)", MAN);
	while (f && fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, ".SH", 3) || !strncmp(line, ".SS", 3)) {
			if (in_section)
				break;
			in_section = !strcmp(line, sec->sh);
		} else if (in_section) {
			add_line(sec, line, lineno, &tag_next);
		}
	}
	if (f)
		fclose(f);
	CHECK(sec->nentries >= (int)sec->table->n / 2, "only %d entries in %s", sec->nentries,
	      sec->sh);
}

static const struct man_entry *man_entry_of(const struct section *sec, const char *name)
{
	for (int i = 0; i < sec->nentries; i++)
		for (int k = 0; k < sec->entries[i].nlong; k++)
			if (!strcmp(sec->entries[i].longs[k], name))
				return &sec->entries[i];
	return NULL;
}

/* The option named name, or whose old spelling it is. */
static const struct cli_opt *table_long(const struct cli_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->opts[i].name && (!strcmp(t->opts[i].name, name) ||
					(t->opts[i].old_name && !strcmp(t->opts[i].old_name, name))))
			return &t->opts[i];
	return NULL;
}

static const struct cli_opt *table_short(const struct cli_table *t, int c)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->opts[i].name && cli_opt_short(&t->opts[i]) == c)
			return &t->opts[i];
	return NULL;
}

/* Each option of the table: an entry of its own, its letter with it, and text. */
static void test_table_options_in_man(const struct section *sec)
{
	for (size_t i = 0; i < sec->table->n; i++) {
		const struct cli_opt *o = &sec->table->opts[i];
		const struct man_entry *e;

		if (!o->name)
			continue;
		e = man_entry_of(sec, o->name);
		CHECK(e != NULL, "--%s has no .TP entry in %s %s", o->name, MAN, sec->sh);
		if (!e)
			continue;
		CHECK(e->nshort == !!cli_opt_short(o) &&
		      (!e->nshort || e->shorts[0] == cli_opt_short(o)),
		      "--%s: %s:%d names short option %c, the table %c", o->name, MAN, e->line,
		      e->nshort ? e->shorts[0] : '-', cli_opt_short(o) ? cli_opt_short(o) : '-');
		CHECK(e->has_text, "--%s: %s:%d has no text", o->name, MAN, e->line);
	}
}

/* Each option the section names: one the parser takes, the letter with its name. */
static void test_man_options_in_table(const struct section *sec)
{
	for (int i = 0; i < sec->nentries; i++) {
		const struct man_entry *e = &sec->entries[i];

		for (int k = 0; k < e->nlong; k++)
			CHECK(table_long(sec->table, e->longs[k]) != NULL,
			      "%s:%d: --%s is not an option", MAN, e->line, e->longs[k]);
		for (int k = 0; k < e->nshort; k++) {
			const struct cli_opt *o = table_short(sec->table, e->shorts[k]);

			CHECK(o != NULL, "%s:%d: -%c is not an option", MAN, e->line, e->shorts[k]);
			CHECK(!o || (e->nlong && !strcmp(o->name, e->longs[0])),
			      "%s:%d: -%c is --%s", MAN, e->line, e->shorts[k], o ? o->name : "?");
		}
	}
}

/*
 * getopt_long's tables: one entry per option and per old spelling, letters
 * with ':' as they take one; two names share a value only when one is the
 * other's old spelling.
 */
static void test_getopt_tables(const struct cli_table *t)
{
	struct option longs[CLI_MAX_OPTS + 1];
	char shorts[2 * CLI_MAX_OPTS + 2];
	size_t n = 0;

	cli_getopt_tables(t, longs, shorts);
	for (size_t i = 0; i < t->n; i++)
		n += (t->opts[i].name != NULL) + (t->opts[i].old_name != NULL);
	CHECK(longs[n].name == NULL && longs[n - 1].name != NULL, "%zu options", n);
	CHECK(shorts[0] == ':', "[%s]: a missing argument told apart", shorts);
	CHECK(strstr(shorts, "o:") && strstr(shorts, "n:") && !strstr(shorts, "h:"), "[%s]",
	      shorts);
	for (size_t i = 0; i < n; i++) {
		const struct cli_opt *o = table_long(t, longs[i].name);

		CHECK(o && o->val == longs[i].val && o->has_arg == longs[i].has_arg &&
		      !longs[i].flag, "--%s", longs[i].name);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = i + 1; k < n; k++)
			CHECK(strcmp(longs[i].name, longs[k].name) &&
			      (longs[i].val != longs[k].val ||
			       table_long(t, longs[i].name) == table_long(t, longs[k].name)),
			      "--%s and --%s clash", longs[i].name, longs[k].name);
}

/* An old spelling is parsed as the option it was: --source is --attach. */
static void test_old_spelling(void)
{
	const struct cli_opt *a = table_long(&rstatlat_cli, "attach");

	CHECK(a && a->old_name && !strcmp(a->old_name, "source") &&
	      table_long(&rstatlat_cli, "source") == a, "--source is --attach");
}

/* --help fits a terminal of 80 columns, every line of it. */
static void test_help_width(const struct cli_table *t)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0, lines = 0;
	FILE *f = open_memstream(&buf, &len);

	cli_print_help(t, f);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), lines++)
		CHECK(strlen(line) <= 80, "%zu columns: %s", strlen(line), line);
	CHECK(lines > 20, "%zu lines of help", lines);
	free(buf);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		RUN_TEST(read_man(&sections[i]));
		RUN_TEST(test_table_options_in_man(&sections[i]));
		RUN_TEST(test_man_options_in_table(&sections[i]));
	}
	RUN_TEST(test_getopt_tables(&rstatlat_cli));
	RUN_TEST(test_getopt_tables(&compare_cli));
	RUN_TEST(test_old_spelling());
	RUN_TEST(test_help_width(&rstatlat_cli));
	RUN_TEST(test_help_width(&compare_cli));
	return check_done("test_options");
}

// SPDX-License-Identifier: GPL-2.0
/*
 * compare's pairing: the rows of BEFORE and AFTER paired by cgroup (and
 * lock, and flushing process), --pair BEFORE=AFTER, and the command's
 * cgroups of each run under one label; and what a row is called.
 */
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "compare_int.h"

/* The row's cgroup, without its lock. */
const char *row_path(const struct cmp_row *r)
{
	const struct row *src = r->after ? r->after : r->before;

	return src->path && src->path[0] ? src->path : "(unknown path)";
}

const char *row_label(const struct cmp_row *r)
{
	if (r->total)
		return "total";
	if (r->label)
		return r->label;
	if (r->lock_label)
		return r->lock_label;
	return row_path(r);
}

/*
 * Pairs every row of AFTER with the BEFORE row of the same identity (NULL:
 * the cgroup by path), then adds BEFORE's unpaired rows: into *out.
 */
int pair_rows(const struct row *b, size_t nb, const struct row *a, size_t na,
	      const struct row_identity *id, struct cmp_row **out, size_t *nout)
{
	struct row_index ix = { .identity = id };
	bool *paired = calloc(nb + 1, sizeof(*paired));
	size_t n = 0;
	int ret = -1;

	*out = calloc(na + nb + 1, sizeof(**out));
	if (!paired || !*out)
		goto done;
	for (size_t j = 0; j < nb; j++)
		if (row_index_add(&ix, b, j))
			goto done;
	for (size_t i = 0; i < na; i++) {
		long j = row_index_find(&ix, b, &a[i]);
		struct cmp_row *r = &(*out)[n++];

		r->after = &a[i];
		r->presence = ONLY_AFTER;
		if (j >= 0 && !paired[j]) {
			paired[j] = true;
			r->before = &b[j];
			r->presence = BOTH;
		}
	}
	for (size_t j = 0; j < nb; j++) {
		if (paired[j])
			continue;
		(*out)[n].before = &b[j];
		(*out)[n++].presence = ONLY_BEFORE;
	}
	ret = 0;
done:
	*nout = n;
	row_index_free(&ix);
	free(paired);
	return ret;
}

/* "comm on /path" for a -p row (every paired row has a side). */
static char *flusher_label(const struct row *r)
{
	if (!r)
		return NULL;
	const char *path = r->path && r->path[0] ? r->path : "(unknown path)";
	size_t len = strlen(r->comm) + strlen(path) + 5;
	char *s = malloc(len);

	if (s)
		snprintf(s, len, "%s on %s", r->comm, path);
	return s;
}

/* The -p rows of both sides, paired by cgroup and comm (pids differ between runs). */
int match_processes(struct comparison *c)
{
	const struct report *b = c->before.r, *a = c->after.r;

	if (pair_rows(b->processes, b->nprocesses, a->processes, a->nprocesses, &row_by_flusher,
		      &c->prows, &c->nprows))
		return -1;
	for (size_t i = 0; i < c->nprows; i++) {
		struct cmp_row *r = &c->prows[i];

		r->process = true;
		r->label = flusher_label(r->after ? r->after : r->before);
		if (!r->label)
			return -1;
	}
	return 0;
}

/*
 * The row -c names: by its label ("/a", or "/a [memory]" under one lock),
 * or by its cgroup where that has one row; *several when it has a row per
 * lock and the lock was not named.
 */
const struct cmp_row *find_row(const struct comparison *c, const char *path, bool *several)
{
	const struct cmp_row *found = NULL;

	*several = false;
	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(row_label(&c->rows[i]), path))
			return &c->rows[i];
	for (size_t i = 0; i < c->nrows; i++) {
		if (strcmp(row_path(&c->rows[i]), path))
			continue;
		if (found) {
			*several = true;
			return NULL;
		}
		found = &c->rows[i];
	}
	return found;
}

/* "(command)" for "/rstatlat-41", "memory:(command)" for "memory:/rstatlat-41". */
static int command_label(char *buf, size_t len, const char *path, const char *rest)
{
	const char *colon = strchr(path, ':'), *slash = strchr(path, '/');
	int prefix = colon && (!slash || colon < slash) ? (int)(colon - path) + 1 : 0;
	int n = snprintf(buf, len, "%.*s" COMMAND_LABEL "%s", prefix, path, rest);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The '=' between the two globs: the first one that a path (or "ctrl:/") follows. */
static const char *pair_split(const char *s)
{
	for (const char *eq = strchr(s, '='); eq; eq = strchr(eq + 1, '=')) {
		const char *rest = eq + 1;

		if (*rest == '/' || *rest == '*')
			return eq;
		rest += strspn(rest, "abcdefghijklmnopqrstuvwxyz_,0123456789");
		if (rest > eq + 1 && rest[0] == ':' && rest[1] == '/')
			return eq;
	}
	return NULL;
}

int pair_parse(const char *s, struct pair_spec *p, char *err, size_t errlen)
{
	const char *eq = pair_split(s);

	memset(p, 0, sizeof(*p));
	if (!eq || eq == s) {
		snprintf(err, errlen, "bad --pair '%.64s': expected BEFORE=AFTER, two cgroup paths "
			 "or globs as in the JSON (/a=/b, /job-*=/job-*)", s);
		return -1;
	}
	p->text = s;
	p->before = strndup(s, (size_t)(eq - s));
	p->after = strdup(eq + 1);
	p->label = strcmp(p->before ? p->before : "", eq + 1) ? strdup(s) : strdup(eq + 1);
	if (!p->before || !p->after || !p->label) {
		pair_free(p);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void pair_free(struct pair_spec *p)
{
	free(p->before);
	free(p->after);
	free(p->label);
	p->before = p->after = p->label = NULL;
}

/* The first pair whose glob of side matches path, or -1. */
static long pair_of(const struct pair_spec *p, size_t n, int side, const char *path)
{
	for (size_t k = 0; path && k < n; k++)
		if (!fnmatch(side ? p[k].after : p[k].before, path, 0))
			return (long)k;
	return -1;
}

int compare_relabel_pairs(struct report *r, const struct pair_spec *p, size_t n, int side,
			  size_t *matched)
{
	struct row *lists[2] = { r->cgroups, r->processes };
	size_t counts[2] = { r->ncgroups, r->nprocesses };
	bool any = false;

	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < counts[l]; i++) {
			struct row *row = &lists[l][i];
			long k = pair_of(p, n, side, row->path);
			char *label;

			if (k < 0)
				continue;
			if (!(label = strdup(p[k].label)))
				return -1;
			free(row->path);
			row->path = label;
			matched[k] += l == 0;
			any = true;
		}
	return any ? report_fold_alike(r) : 0;
}

int compare_relabel_command(struct report *r)
{
	struct row *lists[2] = { r->cgroups, r->processes };
	size_t counts[2] = { r->ncgroups, r->nprocesses };
	char label[PATH_MAX + 32];

	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < counts[l]; i++) {
			struct row *row = &lists[l][i];
			const char *rest;
			int at = command_cgroup_of(&r->command, row->path, &rest);
			char *p;

			if (at < 0)
				continue;
			if (command_label(label, sizeof(label), row->path, rest) ||
			    !(p = strdup(label)))
				return -1;
			free(row->path);
			row->path = p;
		}
	return 0;
}

int compare_command_rows(struct comparison *c, const struct command_info *const *cmds, size_t n)
{
	char label[PATH_MAX + 32];

	for (size_t k = 0; k < n; k++)
		for (int i = 0; i < cmds[k]->ncgroups; i++) {
			bool seen = false;

			if (command_label(label, sizeof(label), cmds[k]->cgroups[i].path, ""))
				return -1;
			for (size_t j = 0; j < c->ncommand_rows; j++)
				seen = seen || !strcmp(c->command_rows[j], label);
			if (seen || c->ncommand_rows == COMMAND_LABELS_MAX)
				continue;
			if (!(c->command_rows[c->ncommand_rows] = strdup(label)))
				return -1;
			c->ncommand_rows++;
		}
	c->command_absent = (struct cmp_row){
		.label = (char *)COMMAND_LABEL, .presence = BOTH,
	};
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ksym.h"

struct ksym {
	uint64_t addr;
	char *name;
};

struct ksyms {
	struct ksym *syms;
	size_t n;
	char *names;		/* one block holding every name */
};

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * One "addr type name [module]" line: its address, type and name (cut at
 * the blank or tab after it). Parsed by hand: sscanf over /proc/kallsyms's
 * 100 000+ lines took most of a start's time.
 */
static bool parse_line(char *line, uint64_t *addr, char *type, char **name, size_t *len)
{
	char *p = line, *end;

	*addr = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || !end[1] || end[2] != ' ')
		return false;
	*type = end[1];
	*name = end + 3;
	*len = strcspn(*name, " \t\n");
	return *len > 0;
}

/* Grows an array to hold one more element of size sz; false out of memory (a kept). */
static bool grow(void **a, size_t *cap, size_t want, size_t sz, size_t first)
{
	void *na;
	size_t ncap = *cap ? *cap : first;

	if (want <= *cap)
		return true;
	while (ncap < want)
		ncap *= 2;
	na = realloc(*a, ncap * sz);
	if (!na)
		return false;
	*a = na;
	*cap = ncap;
	return true;
}

struct ksyms *ksyms_load(const char *path)
{
	struct ksyms *k = calloc(1, sizeof(*k));
	size_t cap = 0, names_len = 0, names_cap = 0, i, len;
	char line[512], *name, type;
	bool ok = true;
	uint64_t addr;
	FILE *f;

	if (!k)
		return NULL;
	f = fopen(path, "re");
	if (!f) {
		free(k);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	/* Names go into one growing block; pointers are fixed up at the end. */
	while (ok && fgets(line, sizeof(line), f)) {
		if (!parse_line(line, &addr, &type, &name, &len))
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		ok = grow((void **)&k->syms, &cap, k->n + 1, sizeof(*k->syms), 65536) &&
		     grow((void **)&k->names, &names_cap, names_len + len + 1, 1, 1 << 20);
		if (!ok)
			break;
		memcpy(k->names + names_len, name, len);
		k->names[names_len + len] = '\0';
		k->syms[k->n].addr = addr;
		k->syms[k->n].name = (char *)(uintptr_t)names_len;
		k->n++;
		names_len += len + 1;
	}
	fclose(f);
	if (!ok || k->n == 0) {
		ksyms_free(k);
		return NULL;
	}
	for (i = 0; i < k->n; i++)
		k->syms[i].name = k->names + (uintptr_t)k->syms[i].name;
	qsort(k->syms, k->n, sizeof(*k->syms), cmp_addr);
	return k;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k);
}

const char *ksym_format(const struct ksyms *k, uint64_t addr, char *buf, size_t len)
{
	size_t lo = 0, hi = k ? k->n : 0;

	/* last symbol with sym.addr <= addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || (k && k->syms[lo - 1].addr == 0))
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	else
		snprintf(buf, len, "%s+0x%llx", k->syms[lo - 1].name,
			 (unsigned long long)(addr - k->syms[lo - 1].addr));
	return buf;
}

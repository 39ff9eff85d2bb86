// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ksym.h"

/*
 * 8 bytes a symbol, not 16: 120 000 of them are read at once, and a flush
 * cause's naming must not push rstatlat's peak memory up by megabytes.
 * Kernel text, modules and BPF programs lie within 4 GiB above the first
 * text symbol; anything else is skipped.
 */
struct ksym {
	uint32_t off;		/* address - base */
	uint32_t name;		/* offset in names */
};

struct ksyms {
	struct ksym *syms;
	size_t n;
	uint64_t base;		/* the first text symbol's address */
	char *names;		/* one block holding every name */
};

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
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

/* Grows *a to hold want elements of size sz, doubling from first; false out of memory (*a kept). */
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
	size_t cap = 0, names_len = 0, names_cap = 0, len;
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
		if (!k->n)
			k->base = addr;
		if (addr < k->base || addr - k->base > UINT32_MAX || names_len > UINT32_MAX - len - 1)
			continue;
		ok = grow((void **)&k->syms, &cap, k->n + 1, sizeof(*k->syms), 65536) &&
		     grow((void **)&k->names, &names_cap, names_len + len + 1, 1, 1 << 20);
		if (!ok)
			break;
		/* NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker): grow() made it */
		memcpy(k->names + names_len, name, len);
		k->names[names_len + len] = '\0';
		k->syms[k->n].off = (uint32_t)(addr - k->base);
		k->syms[k->n].name = (uint32_t)names_len;
		k->n++;
		names_len += len + 1;
	}
	fclose(f);
	if (!ok || k->n == 0) {
		ksyms_free(k);
		return NULL;
	}
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
	size_t lo = 0, hi = k && addr >= k->base && addr - k->base <= UINT32_MAX ? k->n : 0;
	uint32_t off = k ? (uint32_t)(addr - k->base) : 0;
	const struct ksym *s;

	/* last symbol with sym.off <= off */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	s = lo ? &k->syms[lo - 1] : NULL;
	/* addresses hidden (kptr_restrict) read as 0: no symbol is known */
	if (!s || !k->base)
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	else
		snprintf(buf, len, "%s+0x%llx", k->names + s->name,
			 (unsigned long long)(off - s->off));
	return buf;
}

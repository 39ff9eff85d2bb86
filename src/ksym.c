// SPDX-License-Identifier: GPL-2.0
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

struct ksyms *ksyms_load(const char *path)
{
	struct ksyms *k = calloc(1, sizeof(*k));
	size_t cap = 0, names_len = 0, names_cap = 0, i;
	char line[512], name[256], type;
	unsigned long long addr;
	FILE *f;

	if (!k)
		return NULL;
	f = fopen(path, "re");
	if (!f) {
		free(k);
		return NULL;
	}
	/* Names go into one growing block; pointers are fixed up at the end. */
	while (fgets(line, sizeof(line), f)) {
		size_t len;

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (k->n == cap) {
			cap = cap ? cap * 2 : 65536;
			k->syms = realloc(k->syms, cap * sizeof(*k->syms));
		}
		len = strlen(name) + 1;
		if (names_len + len > names_cap) {
			names_cap = names_cap ? names_cap * 2 : 1 << 20;
			k->names = realloc(k->names, names_cap);
		}
		if (!k->syms || !k->names)
			break;
		memcpy(k->names + names_len, name, len);
		k->syms[k->n].addr = addr;
		k->syms[k->n].name = (char *)(uintptr_t)names_len;
		k->n++;
		names_len += len;
	}
	fclose(f);
	if (!k->syms || !k->names || k->n == 0) {
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

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A digest of a jtree value and everything in it (types, sizes, keys,
 * integers, strings, whether streamed): two parses of one text, fed in
 * different chunks, must hand over trees of equal digests. Used by the
 * unit tier (test_jtree) and the fuzz target.
 */
#ifndef RSTATLAT_JT_DIGEST_H
#define RSTATLAT_JT_DIGEST_H

#include "jtree.h"

static inline void jt_digest(uint64_t *h, const struct jt *v)
{
	const struct jt *m;
	size_t i;

	*h = *h * 31 + (uint64_t)v->type + v->n + v->streamed;
	for (const char *k = v->key; k && *k; k++)
		*h = *h * 131 + (unsigned char)*k;
	if (v->type == JT_UINT)
		*h = *h * 7 + v->u;
	for (size_t k = 0; v->type == JT_STRING && k < v->str.len; k++)
		*h = *h * 131 + (unsigned char)v->str.s[k];
	for (m = v->type == JT_OBJECT ? v->kids.first : NULL; m; m = m->next)
		jt_digest(h, m);
	jt_foreach(v, i, m)
		jt_digest(h, m);
}

#endif

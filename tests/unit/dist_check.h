/* SPDX-License-Identifier: GPL-2.0 */
/* What the unit tests compare distributions by. */
#ifndef RSTATLAT_DIST_CHECK_H
#define RSTATLAT_DIST_CHECK_H

#include <stdbool.h>
#include "report.h"

/* Same figures and buckets (not memcmp: struct bucket has padding). */
static inline bool same_dist(const struct dist *a, const struct dist *b)
{
	if (a->count != b->count || a->sum != b->sum || a->max != b->max || a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->b[i].index != b->b[i].index || a->b[i].count != b->b[i].count)
			return false;
	return true;
}

#endif

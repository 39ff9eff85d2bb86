// SPDX-License-Identifier: GPL-2.0
/* Cause naming: flush stacks named from their frames, and the kallsyms lifetime. */
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "cause.h"
#include "collect_int.h"
#include "ksym.h"
#include "rstatlat.skel.h"

/*
 * kallsyms as read here is ~4 MiB (120 000 text symbols): new stacks come
 * in bursts (at start, when a workload starts), so it is kept for a few
 * reads after its last use and then freed, not held for the run. Only the
 * copy the collector read itself: one given at start (privileges dropped
 * since) could not be read again.
 */
#define KSYMS_IDLE_READS 3

static void drop_ksyms(struct collector *c)
{
	ksyms_free(c->own_ksyms);
	c->own_ksyms = NULL;
	c->ksyms = NULL;
	c->ksyms_tried = false;
}

void drop_idle_ksyms(struct collector *c)
{
	if (c->own_ksyms && c->reads - c->ksyms_used >= KSYMS_IDLE_READS)
		drop_ksyms(c);
}

void collector_reload(struct collector *c)
{
	/* symbols given at the start (src.ksyms) are kept: they could not be read again */
	if (c->own_ksyms)
		drop_ksyms(c);
	c->ksyms_tried = false;
	c->check_all_cgroups = true;
}

/* A cause's id (1-based), its name interned; 0 out of memory or ids. */
static uint32_t cause_id(struct collector *c, const char *name)
{
	char **grown;

	for (size_t i = 0; i < c->ncause_ids; i++)
		if (!strcmp(c->cause_ids[i], name))
			return (uint32_t)i + 1;
	if (c->ncause_ids >= (CAUSE_MORE & 0xffffffffULL) - 1)
		return 0;
	if (c->ncause_ids == c->cap_cause_ids) {
		size_t ncap = c->cap_cause_ids ? 2 * c->cap_cause_ids : 32;

		grown = realloc(c->cause_ids, ncap * sizeof(*grown));
		if (!grown)
			return 0;
		c->cause_ids = grown;
		c->cap_cause_ids = ncap;
	}
	c->cause_ids[c->ncause_ids] = strdup(name);
	if (!c->cause_ids[c->ncause_ids])
		return 0;
	return (uint32_t)++c->ncause_ids;
}

/*
 * What a kept stack's frames say asked for the flush (cause.c, which reads
 * a name up to its "+offset"). An address without a symbol is no name.
 */
static void name_stack(const struct collector *c, const struct cause_stack *cs, char *cause)
{
	const char *syms[RSL_CAUSE_FRAMES];
	char names[RSL_CAUSE_FRAMES][128];
	size_t n = 0;

	for (; n < RSL_CAUSE_FRAMES && cs->ip[n]; n++) {
		ksym_format(c->ksyms, cs->ip[n], names[n], sizeof(names[n]));
		syms[n] = strncmp(names[n], "0x", 2) ? names[n] : NULL;
	}
	cause_of_stack(syms, n, cause, CAUSE_LEN);
}

/* The name interned under a cause id, or "unknown" for an id not handed out. */
static const char *cause_id_name(const struct collector *c, uint32_t id)
{
	return id && id <= c->ncause_ids ? c->cause_ids[id - 1] : "unknown";
}

/*
 * The name of a way's key. A stack not yet named is named from its frames
 * and its entry in the kernel gets the cause's id, so that its later
 * flushes count under the cause (rstatlat.h).
 */
const char *cause_name(struct collector *c, uint64_t key)
{
	int fd = bpf_map__fd(c->skel->maps.flush_stacks);
	struct cause_stack cs;
	char cause[CAUSE_LEN];

	if (key == CAUSE_MORE)
		return "(more stacks)";
	if (key == CAUSE_NO_STACK)
		return "unknown";
	if (key & CAUSE_KEY_ID)
		return cause_id_name(c, (uint32_t)key);
	if (bpf_map_lookup_elem(fd, &key, &cs))
		return "unknown";
	if (!cs.cause) {
		if (!c->ksyms && !c->ksyms_tried) {
			c->ksyms = c->own_ksyms = ksyms_load(KALLSYMS);
			c->ksyms_tried = true;
		}
		c->ksyms_used = c->reads;
		name_stack(c, &cs, cause);
		cs.cause = cause_id(c, cause);
		if (cs.cause)
			bpf_map_update_elem(fd, &key, &cs, BPF_EXIST);
	}
	return cause_id_name(c, cs.cause);
}


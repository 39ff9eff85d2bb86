// SPDX-License-Identifier: GPL-2.0
/*
 * Row identity in the collector (collect_int.h): a cgroup row is its
 * cgroup (under its lock, where locks are told apart), a process row also
 * its flusher; their keys and hashes.
 */
#include <string.h>
#include "collect_int.h"
#include "fmt.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * FNV1A_PRIME;
}

uint64_t cg_hash(uint64_t cgid, uint32_t hierarchy)
{
	return mix(mix(FNV1A_OFFSET, cgid), hierarchy);
}

/*
 * Row identity: a cgroup row is its cgroup (under its lock, where locks
 * are told apart); a process row also its tgid,
 * or, for the row of a comm's exited flushers (tgid 0), its comm.
 */
static uint64_t cgroup_ident_hash(const struct row *r)
{
	return row_lock_hash(cg_hash(r->cgid, r->hierarchy), r);
}

static bool cgroup_ident_same(const struct row *a, const struct row *b)
{
	return a->cgid == b->cgid && a->hierarchy == b->hierarchy && row_same_lock(a, b);
}

static uint64_t process_ident_hash(const struct row *r)
{
	uint64_t h = cgroup_ident_hash(r);

	if (!r->tgid)
		for (const unsigned char *p = (const unsigned char *)r->comm; *p; p++)
			h = mix(h, *p);
	return mix(h, r->tgid);
}

bool process_ident_same(const struct row *a, const struct row *b)
{
	return cgroup_ident_same(a, b) && a->tgid == b->tgid &&
	       (a->tgid || !strcmp(a->comm, b->comm));
}

const struct row_identity cgroup_ident = { cgroup_ident_hash, cgroup_ident_same };
const struct row_identity process_ident = { process_ident_hash, process_ident_same };

void ident_key(struct row *key, const struct ident *who, bool process)
{
	memset(key, 0, sizeof(*key));
	key->cgid = who->cg->cgid;
	key->hierarchy = who->cg->hierarchy;
	fmt_copy(key->lock, sizeof(key->lock), who->lock);
	fmt_copy(key->lock_type, sizeof(key->lock_type), who->lock_type);
	if (!process)
		return;
	key->tgid = who->exited ? 0 : who->tgid;
	fmt_copy(key->comm, sizeof(key->comm), who->comm);
}

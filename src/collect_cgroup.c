// SPDX-License-Identifier: GPL-2.0
/*
 * A read's name phase (collect_int.h, one read): cgroup records, slots
 * described, who a slot's figures are about, causes named; and the
 * housekeeping after each read: slots of removed cgroups and exited
 * flushers retired.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "clock.h"
#include "collect_int.h"
#include "rstatlat.skel.h"

void slot_free(struct slot *s)
{
	free(s->own_cgroup);
	row_free(&s->total);
	row_free(&s->delta);
	home_snap_free(&s->snap);
	memset(s, 0, sizeof(*s));
}

/* A slot is retired once its cgroup is gone and it was this long idle. */
#define RETIRE_IDLE_READS 2
/* The longest wait between two checks that an idle cgroup still exists. */
#define EXIST_CHECK_MAX_GAP 64
/* Idle process slots: whether the process lives is asked this often. */
#define ALIVE_CHECK_GAP 8
/*
 * An unhooked slot is cleared and handed back this long after, and a read
 * later at least: a hold or a flush that resolved it before it was
 * unhooked records into it when it ends, and a flush of many CPUs can take
 * far longer than one read of a short interval.
 */
#define RETIRE_GRACE_NS (2 * 1000000000ULL)

/* ---- cgroups ---- */

static struct cgrec *cgrec_find(struct collector *c, uint64_t cgid, uint32_t hierarchy)
{
	struct cgrec *g = c->cg_hash[cg_hash(cgid, hierarchy) & (c->cg_hash_cap - 1)];

	while (g && (g->cgid != cgid || g->hierarchy != hierarchy))
		g = g->next;
	return g;
}

static int cg_hash_grow(struct collector *c)
{
	size_t ncap = c->cg_hash_cap * 2;
	struct cgrec **nh = calloc(ncap, sizeof(*nh));

	if (!nh)
		return -ENOMEM;
	for (size_t i = 0; i < c->cg_hash_cap; i++) {
		struct cgrec *g = c->cg_hash[i], *next;

		for (; g; g = next) {
			size_t b = cg_hash(g->cgid, g->hierarchy) & (ncap - 1);

			next = g->next;
			g->next = nh[b];
			nh[b] = g;
		}
	}
	free(c->cg_hash);
	c->cg_hash = nh;
	c->cg_hash_cap = ncap;
	c->rows_gen++;	/* kept rows are listed in hash order */
	return 0;
}

/* "/a/b" from the leaf-first names BPF captured. */
static void captured_path(const struct slot_meta *m, char *buf, size_t len)
{
	const char *names[RSL_MAX_DEPTH];
	size_t used = 0, off = 0;
	int depth = 0;

	while (depth < (int)m->depth && depth < RSL_MAX_DEPTH && off < RSL_NAMES_LEN) {
		names[depth++] = &m->names[off];
		off += strnlen(&m->names[off], RSL_NAMES_LEN - off) + 1;
	}
	buf[0] = '\0';
	if (m->truncated)
		used = (size_t)snprintf(buf, len, "/...");
	for (int i = depth - 1; i >= 0 && used < len; i--) {
		size_t room = RSL_NAMES_LEN - (size_t)(names[i] - m->names);

		used += (size_t)snprintf(buf + used, len - used, "/%.*s",
					 (int)strnlen(names[i], room), names[i]);
	}
	if (!buf[0])
		snprintf(buf, len, "/");
}

static struct cgrec *cgrec_of(struct collector *c, const struct slot_meta *m)
{
	char path[RSL_NAMES_LEN + RSL_MAX_DEPTH + 8];
	const char *live = NULL, *shown;
	struct cgrec *g = cgrec_find(c, m->key.cgid, m->key.hierarchy);
	size_t b;

	if (g)
		return g;
	if (c->ncgrecs + 1 > c->cg_hash_cap && cg_hash_grow(c))
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->cgid = m->key.cgid;
	g->hierarchy = m->key.hierarchy;
	captured_path(m, path, sizeof(path));
	/* a name or the depth did not fit: prefer the live path if it exists */
	if (m->truncated)
		live = cg_path_of_id(c->cg, m->key.hierarchy, m->key.cgid);
	shown = live ? live : path;
	g->excluded = c->filter && !cg_filter_match(c->filter, m->key.hierarchy, shown);
	g->path = cg_display_path(c->cg, m->key.hierarchy, shown);
	g->rel_path = strdup(shown);
	g->check_gap = 1;
	if (!g->path || !g->rel_path) {
		free(g->path);
		free(g->rel_path);
		free(g);
		return NULL;
	}
	/* told of removals by the kernel: one that came before this record is not */
	if (c->src.cgroups_gone)
		g->removed = !cg_path_exists(c->cg, g->hierarchy, g->rel_path, g->cgid);
	b = cg_hash(g->cgid, g->hierarchy) & (c->cg_hash_cap - 1);
	g->next = c->cg_hash[b];
	c->cg_hash[b] = g;
	c->ncgrecs++;
	return g;
}

void cgrec_rows_free(struct cgrec *g)
{
	for (size_t i = 0; i < g->nrows; i++)
		row_free(&g->rows[i]);
	free(g->rows);
	g->rows = NULL;
	g->nrows = g->cap = 0;
}

static void cgrec_unhash(struct collector *c, struct cgrec *g)
{
	struct cgrec **p = &c->cg_hash[cg_hash(g->cgid, g->hierarchy) & (c->cg_hash_cap - 1)];

	while (*p && *p != g)
		p = &(*p)->next;
	if (*p)
		*p = g->next;
	c->ncgrecs--;
}

void cgrec_free(struct cgrec *g)
{
	cgrec_rows_free(g);
	free(g->path);
	free(g->rel_path);
	free(g);
}

/*
 * A new row in g's kept rows. Most cgroups keep one (a process row per
 * flusher with -p): the array starts at one and doubles, where the
 * report's rows start at 16.
 */
static struct row *cgrec_add_row(struct cgrec *g)
{
	if (g->nrows == g->cap) {
		size_t ncap = g->cap ? g->cap * 2 : 1;
		struct row *nr = realloc(g->rows, ncap * sizeof(*nr));

		if (!nr)
			return NULL;
		g->rows = nr;
		g->cap = ncap;
	}
	/* NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker): rows is set once cap is */
	memset(&g->rows[g->nrows], 0, sizeof(g->rows[0]));
	return &g->rows[g->nrows++];
}

/* Folds fig into g's rows no live slot backs, under who. */
static int cgrec_keep(struct collector *c, struct cgrec *g, const struct row *fig,
		      const struct ident *who, uint32_t exited)
{
	struct row key, *row = NULL;

	c->rows_gen++;	/* a kept row comes or grows */
	ident_key(&key, who, true);
	for (size_t i = 0; i < g->nrows && !row; i++)
		if (process_ident_same(&g->rows[i], &key))
			row = &g->rows[i];
	if (!row) {
		row = cgrec_add_row(g);
		if (!row)
			return -ENOMEM;
		*row = key;
		if (who->own_cgroup)
			row->own_cgroup = strdup(who->own_cgroup);
	}
	if (row_merge(row, fig))
		return -ENOMEM;
	row->exited += exited;
	return 0;
}

static uint64_t cgrec_locked(const struct cgrec *g)
{
	uint64_t n = 0;

	for (size_t i = 0; i < g->nrows; i++)
		n += g->rows[i].count[COUNT_LOCKED];
	return n;
}

/* A retired cgroup beyond the bound: its rows go to the aggregate. */
static int fold_into_removed(struct collector *c, struct cgrec *g)
{
	struct ident who = { .cg = &c->removed };
	int err = 0;

	for (size_t i = 0; i < g->nrows && !err; i++) {
		struct row *r = &g->rows[i];

		/* with -p, one row per comm: pids of removed cgroups mean little */
		who.exited = c->per_process;
		who.comm = r->comm;
		who.lock = r->lock;
		who.lock_type = r->lock_type;
		/* row_merge carries r's own exited count; a live pid adds itself */
		err = cgrec_keep(c, &c->removed, r, &who, r->tgid ? 1 : 0);
	}
	c->removed.removed_cgroups++;
	c->rows_gen++;
	return err;
}

/*
 * Out of the hash now, freed once housekeeping is done with its walk: a
 * retirement may drop a cgroup other than the one the walk stands on.
 */
static void cgrec_bury(struct collector *c, struct cgrec *g)
{
	c->rows_gen++;	/* its kept rows go */
	cgrec_unhash(c, g);
	g->next = c->graveyard;
	c->graveyard = g;
}

void free_graveyard(struct collector *c)
{
	while (c->graveyard) {
		struct cgrec *g = c->graveyard;

		c->graveyard = g->next;
		cgrec_free(g);
	}
}

/*
 * A removed cgroup without live slots joins the retired list; beyond its
 * bound, the one with fewest acquisitions leaves it for the aggregate. One
 * that a slot came back to (a late flush after removal) stays listed.
 * Cgroups outside -c keep nothing: they just go.
 */
static int cgrec_retire(struct collector *c, struct cgrec *g)
{
	uint64_t least = UINT64_MAX;
	size_t at = c->nretired;
	struct cgrec *out;
	int err;

	if (g->excluded) {
		cgrec_bury(c, g);
		return 0;
	}
	g->retired = true;
	if (c->nretired < RETIRED_CGROUPS_MAX) {
		c->retired[c->nretired++] = g;
		return 0;
	}
	for (size_t i = 0; i < c->nretired; i++) {
		uint64_t n = c->retired[i]->live_slots ? UINT64_MAX : cgrec_locked(c->retired[i]);

		if (n < least) {
			least = n;
			at = i;
		}
	}
	out = g;
	if (at < c->nretired && least < cgrec_locked(g)) {
		out = c->retired[at];
		c->retired[at] = g;
	}
	err = fold_into_removed(c, out);
	cgrec_bury(c, out);
	return err;
}

/* ---- slots ---- */

static void slot_describe(struct collector *c, struct slot *s, const struct slot_meta *m)
{
	s->cg = cgrec_of(c, m);
	if (!s->cg) {
		c->retired_dropped++;	/* out of memory: counted, never silent */
		return;
	}
	s->cg->live_slots++;
	s->tgid = m->key.tgid;
	s->lock = m->key.lock;
	memcpy(s->lock_type, m->key.lock_type, sizeof(s->lock_type));
	s->lock_type[RSL_LOCK_TYPE_LEN - 1] = '\0';
	s->start = m->flusher_start;
	memcpy(s->comm, m->comm, sizeof(s->comm));
	s->comm[RSL_COMM_LEN - 1] = '\0';
	if (c->per_process) {
		const char *own = cg_path_of_id(c->cg, 0, m->flusher_cgid);

		if (own)
			s->own_cgroup = strdup(own);
		else if (asprintf(&s->own_cgroup, "id:%llu",
				  (unsigned long long)m->flusher_cgid) < 0)
			s->own_cgroup = NULL;
	}
	s->next_alive_check = c->reads + 1;
}

/* A new slot takes its metadata as read (m): described once it is complete. */
static void slot_adopt(struct collector *c, unsigned int i, const struct slot_meta *m)
{
	struct slot *s = &c->slots[i];

	if (m->state == SLOT_READY)
		slot_describe(c, s, m);
	s->state = m->state;
	s->touched_read = c->reads;
	/* a lost race to hand back, or a slot of a cgroup already gone */
	c->walk_slots |= s->state == SLOT_DISCARDED || (s->cg && s->cg->removed);
	c->slots_ready += s->state == SLOT_READY;
	if (i >= c->slots_end)
		c->slots_end = i + 1;
}

/* Reads a slot's metadata once it is complete (a slow event's slot, named as it comes). */
void slot_refresh(struct collector *c, unsigned int i)
{
	if (c->slots[i].state == SLOT_EMPTY && !chunk_rec_read(c, i, c->rec))
		slot_adopt(c, i, &c->rec->meta);
}

void ident_of_slot(const struct collector *c, const struct slot *s, struct ident *who)
{
	who->lock = c->src.lock_names && s->lock < LOCK_IDS_MAX ? c->src.lock_names[s->lock] : NULL;
	who->lock_type = s->lock_type;
	who->cg = s->cg;
	who->tgid = s->tgid;
	who->exited = s->exited;
	who->comm = s->comm;
	who->own_cgroup = s->own_cgroup;
}

/* A changed slot's cause ways, named into its delta. */
static int name_causes(struct collector *c, struct slot *s, const struct read_slot *rs)
{
	for (uint32_t k = 0; k < rs->ncauses; k++) {
		const struct cause_change *w = &rs->cause[k];

		if (row_add_cause(&s->delta, cause_name(c, w->key), w->samples, w->weight,
				  w->weight_ns))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The name phase (collect_int.h, one read): new slots described from the
 * metadata the read phase read; then each slot whose delta holds figures
 * named: its causes, whether its process still runs, who its row is
 * about. Stages of slots that cannot be named are counted.
 */
int name_batch(struct collector *c, struct read_batch *b)
{
	int err = 0;

	for (size_t i = 0; i < b->n && !err; i++) {
		struct read_slot *rs = &b->s[i];
		struct slot *s = &c->slots[rs->slot];

		if (s->state == SLOT_EMPTY && rs->rec)
			slot_adopt(c, rs->slot, &c->batch_rec[i].meta);
		if (s->state != SLOT_READY || !s->cg) {
			/*
			 * no cgroup record (out of memory), or metadata not whole:
			 * counted; what it folded is dropped (build_batch empties
			 * every delta)
			 */
			c->stages_unnamed += rs->nrefs;
			continue;
		}
		err = name_causes(c, s, rs);
		if (err || delta_empty(&s->delta))
			continue;
		rs->changed = true;
		s->touched_read = c->reads;
		s->cg->last_active = c->reads;
		if (c->per_process && s->tgid && !s->exited && !process_alive(c, s, false)) {
			s->exited = true;
			rs->newly_exited = 1;
		}
		ident_of_slot(c, s, &rs->who);
	}
	return err;
}

/* ---- housekeeping: slots of removed cgroups and exited flushers ---- */

/* Field 22 of /proc/PID/stat: the start in clock ticks after boot. */
static bool proc_start_ticks(uint32_t pid, uint64_t *ticks)
{
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may hold spaces and parentheses */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p && sscanf(p + 1, "%" SCNu64, ticks) == 1;
}

/*
 * Whether a slot's process still runs: a signal 0 says whether the pid
 * exists; now and then its start time says whether it is still ours.
 */
bool process_alive(struct collector *c, const struct slot *s, bool check_start)
{
	uint64_t ticks;

	if (kill((pid_t)s->tgid, 0) && errno == ESRCH)
		return false;
	if (!check_start || !s->start || c->clk_tck <= 0)
		return true;
	if (!proc_start_ticks(s->tgid, &ticks))
		return kill((pid_t)s->tgid, 0) == 0 || errno != ESRCH;
	return ticks == s->start / (1000000000ULL / (uint64_t)c->clk_tck);
}

/* Step 1: unhook the slot so no new event can reach it. */
static void retire_begin(struct collector *c, struct slot *s, unsigned int i)
{
	struct slot_key key = { .cgid = s->cg->cgid, .hierarchy = (__u16)s->cg->hierarchy,
				.lock = s->lock, .tgid = s->tgid };

	/* the kernel's bytes as they were, NUL padding and all */
	strncpy(key.lock_type, s->lock_type, sizeof(key.lock_type));

	(void)i;
	bpf_map_delete_elem(bpf_map__fd(c->skel->maps.slot_ids), &key);
	s->retiring = true;
	s->unhooked_ns = clock_ns(CLOCK_MONOTONIC);
}

/*
 * Step 2, RETIRE_GRACE_NS later: whatever resolved the slot before step 1
 * has recorded by now, and this read folded it. The slot's totals join its
 * cgroup's kept rows, the slot is cleared in the kernel and handed back.
 */
static int retire_end(struct collector *c, struct slot *s, unsigned int i)
{
	struct cgrec *g = s->cg;
	struct ident who;
	int err = 0;

	if (g && !g->excluded && !delta_empty(&s->total)) {
		ident_of_slot(c, s, &who);
		if (cgrec_keep(c, g, &s->total, &who, s->exited))
			c->retired_dropped++;
	}
	/*
	 * Writes into its chunks (a slot in use has them), and one push onto
	 * a queue that holds every slot: they fail only on a broken kernel or
	 * map. Then the slot is not handed back (it would come back with an
	 * old cgroup's figures): the read fails, and rstatlat says why.
	 */
	err = chunk_clear(c, i);
	if (err)
		return err;
	c->slots_ready -= s->state == SLOT_READY;
	slot_free(s);
	c->rows_gen++;	/* its row goes */
	if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.free_slots), NULL, &i, BPF_ANY))
		return -errno;
	if (g && !--g->live_slots && g->removed && !g->retired)
		err = cgrec_retire(c, g);
	return err;
}

/*
 * The cgroups the kernel removed since the last read (src.cgroups_gone).
 * One whose record is made after its removal was drained (a last flush
 * as it goes) is found gone when made (cgrec_of). Returns whether a
 * removal did not fit in the queue: then every cgroup is checked once.
 */
static bool drain_cgroups_gone(struct collector *c)
{
	int fd = bpf_map__fd(c->skel->maps.cgroups_gone);
	bool missed = __atomic_exchange_n(&c->skel->bss->cgroups_gone_missed, 0, __ATOMIC_SEQ_CST);
	struct cgroup_gone gone;

	while (!bpf_map_lookup_and_delete_elem(fd, NULL, &gone)) {
		struct cgrec *g = cgrec_find(c, gone.cgid, gone.hierarchy);

		if (g) {
			g->removed = true;
			c->walk_slots = true;
		}
	}
	return missed;
}

/*
 * Whether an idle cgroup still exists: told by the kernel where it can
 * (src.cgroups_gone), else asked less often the longer it lives; all
 * once, at once, when the kernel's queue was full.
 */
static void check_cgroups(struct collector *c)
{
	bool all = (c->src.cgroups_gone && drain_cgroups_gone(c)) || c->check_all_cgroups;

	c->check_all_cgroups = false;
	if (c->src.cgroups_gone && !all)
		return;
	for (size_t b = 0; b < c->cg_hash_cap; b++) {
		for (struct cgrec *g = c->cg_hash[b]; g; g = g->next) {
			if (g->removed || (!all && (c->reads < g->next_check ||
			    c->reads - g->last_active < RETIRE_IDLE_READS)))
				continue;
			if (!cg_path_exists(c->cg, g->hierarchy, g->rel_path, g->cgid)) {
				g->removed = true;
				c->walk_slots = true;
				continue;
			}
			g->next_check = c->reads + g->check_gap;
			if (g->check_gap < EXIST_CHECK_MAX_GAP)
				g->check_gap *= 2;
		}
	}
}

/* Removed cgroups whose last slot went earlier wait here for the list. */
static int retire_cgroups(struct collector *c)
{
	int err = 0;

	for (size_t b = 0; b < c->cg_hash_cap && !err; b++) {
		struct cgrec *g = c->cg_hash[b], *next;

		for (; g && !err; g = next) {
			next = g->next;	/* cgrec_retire may unhash g (freed later) */
			if (g->removed && !g->retired && !g->live_slots)
				err = cgrec_retire(c, g);
		}
	}
	return err;
}

/*
 * One slot's part of the walk: retirement begun or ended, -p's liveness;
 * *pending when it needs the next walk too. Returns 0 or -errno.
 */
static int keep_slot(struct collector *c, struct slot *s, unsigned int i, bool *unhooked,
		     bool *pending)
{
	uint64_t idle_reads = c->reads - s->touched_read;

	if (s->state == SLOT_DISCARDED)		/* lost an insert race: hand it back */
		return retire_end(c, s, i);
	if (s->state != SLOT_READY)
		return 0;
	if (s->retiring) {
		if (clock_ns(CLOCK_MONOTONIC) - s->unhooked_ns >= RETIRE_GRACE_NS)
			return retire_end(c, s, i);
		*pending = true;
		return 0;
	}
	if (c->per_process && s->tgid && !s->exited && idle_reads &&
	    c->reads >= s->next_alive_check) {
		s->exited = !process_alive(c, s, true);
		s->next_alive_check = c->reads + (idle_reads < ALIVE_CHECK_GAP ? 1 : ALIVE_CHECK_GAP);
	}
	if (s->exited || (s->cg && s->cg->removed && idle_reads >= RETIRE_IDLE_READS)) {
		retire_begin(c, s, i);
		*unhooked = *pending = true;
	} else if (s->cg && s->cg->removed) {
		*pending = true;	/* retires once idle */
	}
	return 0;
}

int housekeeping(struct collector *c, unsigned int nslots)
{
	bool unhooked = false, pending = c->per_process;
	int err = 0;

	for (unsigned int i = 0; c->walk_slots && i < nslots && !err; i++)
		err = keep_slot(c, &c->slots[i], i, &unhooked, &pending);
	c->walk_slots = pending || err;
	/* per-CPU caches filled before now may name an unhooked slot */
	if (unhooked)
		c->skel->bss->cache_gen++;
	if (!err)
		check_cgroups(c);
	/* a cgroup found removed: one without live slots retires now */
	if (!err && c->walk_slots)
		err = retire_cgroups(c);
	free_graveyard(c);
	return err;
}

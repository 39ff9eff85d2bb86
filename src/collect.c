// SPDX-License-Identifier: GPL-2.0
/*
 * BPF maps -> report. Every read closes an epoch (rstatlat.h: stages and
 * homes) and folds what changed into two places: the open interval and
 * the run's totals, per slot. Reports are built from those.
 *
 * Userspace state, by what it describes:
 *   struct slot    one kernel slot: its totals, the last home counters
 *                  seen (the kernel's wrap at 2^32), this read's change
 *   struct cgrec   one cgroup seen in some slot: its names, whether it
 *                  still exists, and the rows no live slot backs any more
 *                  (flushers that exited; everything, once it is removed)
 *   struct builder rows of a report being built, found by identity
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include "cause.h"
#include "clock.h"
#include "collect.h"
#include "ksym.h"
#include "rstatlat.skel.h"

/* A slot is retired once its cgroup is gone and it was this long idle. */
#define RETIRE_IDLE_READS 2
/* Removed cgroups kept with rows of their own; beyond, one aggregate row. */
#define RETIRED_CGROUPS_MAX 1024
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

#define NDIST SD_MAX
/* Home records read at once, by a batch lookup where the kernel has it. */
#define HOME_BATCH 64

/* ---- rows found by identity ---- */

/* Who a row is about: the cgroup, and with -p the flusher. */
struct ident {
	const struct cgrec *cg;
	uint32_t tgid;		/* 0: cgroup row, or the exited flushers of comm */
	bool exited;		/* a row of exited flushers, keyed by comm */
	const char *comm;
	const char *own_cgroup;
};

struct builder {
	struct report *r;
	size_t cap_cg, cap_proc;
	struct row_index cg_ix, proc_ix;	/* by cgroup id; by process too */
};

struct cgrec {
	uint64_t cgid;
	uint32_t hierarchy;
	bool excluded;		/* outside the -c subtree */
	bool removed;		/* its directory is gone */
	bool retired;		/* removed, no live slot: in the retired list */
	uint32_t live_slots;
	uint64_t last_active;	/* the read in which one of its slots last changed */
	uint64_t next_check;	/* the read at which to check it still exists */
	uint32_t check_gap;
	uint32_t removed_cgroups;	/* the aggregate: cgroups folded in */
	char *path;		/* as displayed */
	char *rel_path;		/* inside its hierarchy, to check it still exists */
	struct row *rows;	/* rows no live slot backs */
	size_t nrows, cap;
	struct cgrec *next;	/* hash chain */
};

/* The home's counters as last read: changes are told from these. */
struct snap_cell {
	uint32_t bucket;
	uint32_t value;
};

struct snap_hist {
	struct snap_cell *c;	/* ascending bucket */
	uint32_t n, cap;
};

struct home_snap {
	uint64_t locked, contended, flush_holds;
	uint64_t part[PART_MAX];
	uint32_t decisions[DECISION_MAX];	/* as the home's: they wrap */
	struct cause_way cause[CAUSE_WAYS + 1];
	uint64_t sum[NDIST];
	struct snap_hist hist[NDIST];
};

struct slot {
	enum slot_state state;
	bool retiring;		/* unhooked from BPF, freed after RETIRE_GRACE_NS */
	uint64_t unhooked_ns;	/* CLOCK_MONOTONIC when it was unhooked */
	bool exited;		/* -p: its process is gone */
	bool touched;		/* changed in this read */
	uint32_t idle_reads;	/* reads in a row without a change */
	uint64_t next_alive_check;
	struct cgrec *cg;
	uint32_t tgid;
	uint64_t start;		/* -p: the process's start, boot time ns */
	char comm[RSL_COMM_LEN];
	char *own_cgroup;
	uint64_t top_votes;	/* its majority vote, folded over reads */
	struct row total;	/* figures since load, no identity */
	struct row delta;	/* this read's change, buffers kept between reads */
	struct home_snap snap;
};

/* A CPU's stage of the closed epoch: the lock's figures, or irqs-off's. */
struct stage_ref {
	uint32_t slot;
	const struct slot_stage *st;
	const struct stage_dist *irqoff;
};

/* This read's change of one slot, dense while it is summed. */
struct scratch {
	uint64_t acc[NDIST][HIST_BUCKETS];
	int lo[NDIST], hi[NDIST];	/* bucket range touched; lo > hi: none */
};

struct sys_fig {	/* system-wide figures, since load */
	struct irqoff_summary irq;
	struct lock_summary lock;
};

struct collector {
	struct rstatlat_bpf *skel;
	struct cg_table *cg;
	const struct cg_filter *filter;
	struct collect_sources src;
	bool per_process;
	int ncpus;
	unsigned int max_slots;
	/*
	 * One past the highest slot described (slot_refresh): the rest of
	 * c->slots was never written, and loops that stop here leave its
	 * pages unfaulted (10 MiB of RSS at 10 000 entries).
	 */
	unsigned int slots_end;
	long clk_tck;
	uint64_t reads;
	struct slot *slots;
	struct cgrec **cg_hash;
	size_t cg_hash_cap, ncgrecs;
	struct cgrec **retired;		/* removed cgroups without live slots */
	size_t nretired;
	struct cgrec removed;		/* the aggregate of what the bound left out */
	struct cgrec *graveyard;	/* unhashed cgroups, freed after housekeeping */
	const uint64_t *seen;		/* slot_seen, mmapped */
	size_t seen_len;
	struct lock_state *lock_percpu;
	struct irq_state *irq_percpu;	/* --irqoff trace */
	__u64 *lost_percpu;
	void *sys_percpu;		/* irq_state, tick_state or cpu_lock_state values */
	struct slot_home *homes;	/* a batch of home records */
	struct dist_rec *irq_homes;
	uint32_t *dirty;		/* slots to read this read */
	struct stage_ref *refs;
	struct scratch *scratch;
	uint32_t sys_snap[SYS_MAX][HIST_BUCKETS];
	uint64_t sys_sum[SYS_MAX];
	struct sys_fig sys_total, sys_open;	/* since load; since the last interval */
	uint64_t lost[LOST_MAX], lost_at_interval[LOST_MAX];
	uint64_t retired_dropped;
	struct report open;		/* the interval being built */
	struct builder open_bd;
	bool batch_unsupported;
	char **cause_ids;	/* cause names by id - 1: what the kernel's stacks were named */
	const struct ksyms *ksyms;	/* src.ksyms, or own_ksyms once read */
	struct ksyms *own_ksyms;
	bool ksyms_tried;	/* in this load: do not retry a failed read each stack */
	uint64_t ksyms_used;	/* the read that last named a stack with it */
	size_t ncause_ids, cap_cause_ids;
	void (*waiter)(void *arg);	/* called while a grace period passes */
	void *waiter_arg;
};

/* ---- key index ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * FNV1A_PRIME;
}

static uint64_t cg_hash(uint64_t cgid, uint32_t hierarchy)
{
	return mix(mix(FNV1A_OFFSET, cgid), hierarchy);
}

/*
 * Row identity: a cgroup row is its cgroup; a process row also its tgid,
 * or, for the row of a comm's exited flushers (tgid 0), its comm.
 */
static uint64_t cgroup_ident_hash(const struct row *r)
{
	return cg_hash(r->cgid, r->hierarchy);
}

static bool cgroup_ident_same(const struct row *a, const struct row *b)
{
	return a->cgid == b->cgid && a->hierarchy == b->hierarchy;
}

static uint64_t process_ident_hash(const struct row *r)
{
	uint64_t h = cgroup_ident_hash(r);

	if (!r->tgid)
		for (const unsigned char *p = (const unsigned char *)r->comm; *p; p++)
			h = mix(h, *p);
	return mix(h, r->tgid);
}

static bool process_ident_same(const struct row *a, const struct row *b)
{
	return cgroup_ident_same(a, b) && a->tgid == b->tgid &&
	       (a->tgid || !strcmp(a->comm, b->comm));
}

static const struct row_identity cgroup_ident = { cgroup_ident_hash, cgroup_ident_same };
static const struct row_identity process_ident = { process_ident_hash, process_ident_same };

/* ---- builder ---- */

static void builder_start(struct builder *bd, struct report *r, enum report_type type,
			  bool per_process)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->per_process = per_process;
	memset(bd, 0, sizeof(*bd));
	bd->r = r;
	bd->cg_ix.identity = &cgroup_ident;
	bd->proc_ix.identity = &process_ident;
}

static void builder_end(struct builder *bd)
{
	row_index_free(&bd->cg_ix);
	row_index_free(&bd->proc_ix);
}

static void ident_key(struct row *key, const struct ident *who, bool process)
{
	memset(key, 0, sizeof(*key));
	key->cgid = who->cg->cgid;
	key->hierarchy = who->cg->hierarchy;
	if (!process)
		return;
	key->tgid = who->exited ? 0 : who->tgid;
	snprintf(key->comm, sizeof(key->comm), "%s", who->comm ? who->comm : "");
}

/* The row of who in rows[], appended (identity, no figures) if new. */
static struct row *builder_row(struct builder *bd, const struct ident *who, bool process)
{
	struct row **rows = process ? &bd->r->processes : &bd->r->cgroups;
	size_t *n = process ? &bd->r->nprocesses : &bd->r->ncgroups;
	size_t *cap = process ? &bd->cap_proc : &bd->cap_cg;
	struct row_index *ix = process ? &bd->proc_ix : &bd->cg_ix;
	struct row key, *row;
	long at;

	ident_key(&key, who, process);
	at = row_index_find(ix, *rows, &key);
	if (at >= 0)
		return &(*rows)[at];
	row = report_add_row(rows, n, cap);
	if (!row)
		return NULL;
	row->cgid = key.cgid;
	row->hierarchy = key.hierarchy;
	row->tgid = key.tgid;
	memcpy(row->comm, key.comm, sizeof(row->comm));
	row->path = who->cg->path ? strdup(who->cg->path) : NULL;
	if (process && who->own_cgroup)
		row->own_cgroup = strdup(who->own_cgroup);
	if (!process)
		row->removed_cgroups = who->cg->removed_cgroups;
	if (row_index_add(ix, *rows, (size_t)(row - *rows)))
		return NULL;
	return row;
}

/* The flusher with most acquisitions is the cgroup row's top flusher. */
static void keep_top(struct row *into, uint32_t tgid, const char *comm, uint64_t votes)
{
	if (votes > into->top_locked || (!into->top_tgid && !into->top_comm[0])) {
		into->top_locked = votes;
		into->top_tgid = tgid;
		snprintf(into->top_comm, sizeof(into->top_comm), "%s", comm);
	}
}

/*
 * Adds figures (a row without identity) under who: with -p a process row
 * and its cgroup's row, which stays the sum of its process rows.
 * newly_exited counts processes whose exit this adds.
 */
static int builder_add(struct builder *bd, const struct ident *who, const struct row *fig,
		       uint32_t newly_exited)
{
	struct row *cg, *p = NULL;

	if (bd->r->per_process) {
		p = builder_row(bd, who, true);
		if (!p || row_merge(p, fig))
			return -ENOMEM;
		p->exited += newly_exited;
		if (!p->exited)
			p->top_tgid = p->tgid;
		snprintf(p->top_comm, sizeof(p->top_comm), "%s", p->comm);
	}
	cg = builder_row(bd, who, false);
	if (!cg || row_merge(cg, fig))
		return -ENOMEM;
	if (p)
		keep_top(cg, p->tgid, p->comm, p->locked);
	else if (fig->top_tgid || fig->top_comm[0])
		keep_top(cg, fig->top_tgid, fig->top_comm, fig->top_locked);
	return 0;
}

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
	b = cg_hash(g->cgid, g->hierarchy) & (c->cg_hash_cap - 1);
	g->next = c->cg_hash[b];
	c->cg_hash[b] = g;
	c->ncgrecs++;
	return g;
}

static void cgrec_rows_free(struct cgrec *g)
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

static void cgrec_free(struct cgrec *g)
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
	memset(&g->rows[g->nrows], 0, sizeof(g->rows[0]));
	return &g->rows[g->nrows++];
}

/* Folds fig into g's rows no live slot backs, under who. */
static int cgrec_keep(struct cgrec *g, const struct row *fig, const struct ident *who,
		      uint32_t exited)
{
	struct row key, *row = NULL;

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
		n += g->rows[i].locked;
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
		/* row_merge carries r's own exited count; a live pid adds itself */
		err = cgrec_keep(&c->removed, r, &who, r->tgid ? 1 : 0);
	}
	c->removed.removed_cgroups++;
	return err;
}

/*
 * Out of the hash now, freed once housekeeping is done with its walk: a
 * retirement may drop a cgroup other than the one the walk stands on.
 */
static void cgrec_bury(struct collector *c, struct cgrec *g)
{
	cgrec_unhash(c, g);
	g->next = c->graveyard;
	c->graveyard = g;
}

static void free_graveyard(struct collector *c)
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

/* Reads a slot's metadata once it is complete. */
static void slot_refresh(struct collector *c, unsigned int i)
{
	struct slot_meta m;
	struct slot *s = &c->slots[i];

	if (s->state != SLOT_EMPTY)
		return;
	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.slot_meta), &i, &m))
		return;
	if (m.state == SLOT_READY)
		slot_describe(c, s, &m);
	s->state = m.state;
	if (i >= c->slots_end)
		c->slots_end = i + 1;
}

const char *collector_slot_path(struct collector *c, unsigned int slot)
{
	if (slot >= c->max_slots)
		return NULL;
	slot_refresh(c, slot);
	return c->slots[slot].cg ? c->slots[slot].cg->path : NULL;
}

bool collector_slot_wanted(struct collector *c, unsigned int slot)
{
	if (slot >= c->max_slots)
		return true;
	slot_refresh(c, slot);
	return !c->slots[slot].cg || !c->slots[slot].cg->excluded;
}

void collector_set_waiter(struct collector *c, void (*fn)(void *arg), void *arg)
{
	c->waiter = fn;
	c->waiter_arg = arg;
}

unsigned int collector_entries_used(const struct collector *c)
{
	unsigned int n = 0, end = c->skel->bss->next_slot;

	for (unsigned int i = 0; i < end && i < c->max_slots; i++)
		n += c->slots[i].state == SLOT_READY;
	return n;
}

static void ident_of_slot(const struct slot *s, struct ident *who)
{
	who->cg = s->cg;
	who->tgid = s->tgid;
	who->exited = s->exited;
	who->comm = s->comm;
	who->own_cgroup = s->own_cgroup;
}

/* ---- new collector ---- */

static void *map_mmap(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct collector *collector_new(struct rstatlat_bpf *skel, struct cg_table *cg,
				const struct cg_filter *filter, bool per_process,
				int ncpus, unsigned int max_slots,
				const struct collect_sources *sources)
{
	struct collector *c = calloc(1, sizeof(*c));
	size_t sys_value = 0;

	if (!c)
		return NULL;
	c->skel = skel;
	c->cg = cg;
	c->filter = filter;
	c->src = *sources;
	c->per_process = per_process;
	c->ncpus = ncpus;
	c->max_slots = max_slots;
	c->clk_tck = sysconf(_SC_CLK_TCK);
	c->cg_hash_cap = 1024;
	c->cg_hash = calloc(c->cg_hash_cap, sizeof(*c->cg_hash));
	c->slots = calloc(max_slots, sizeof(*c->slots));
	c->retired = calloc(RETIRED_CGROUPS_MAX, sizeof(*c->retired));
	c->lock_percpu = calloc((size_t)ncpus, sizeof(*c->lock_percpu));
	c->irq_percpu = calloc((size_t)ncpus, sizeof(*c->irq_percpu));
	c->lost_percpu = calloc((size_t)ncpus, sizeof(*c->lost_percpu));
	c->dirty = calloc(max_slots, sizeof(*c->dirty));
	c->refs = calloc(2 * (size_t)ncpus, sizeof(*c->refs));
	c->scratch = calloc(1, sizeof(*c->scratch));
	c->homes = calloc(HOME_BATCH, sizeof(*c->homes));
	c->irq_homes = calloc(HOME_BATCH, sizeof(*c->irq_homes));
	if (sources->irqoff_sample)
		sys_value = sizeof(struct tick_state);
	if (sources->cpu_lock && sizeof(struct cpu_lock_state) > sys_value)
		sys_value = sizeof(struct cpu_lock_state);
	c->sys_percpu = calloc((size_t)ncpus, sys_value ? sys_value : 1);
	c->seen_len = (size_t)max_slots * sizeof(__u64);
	c->seen = map_mmap(bpf_map__fd(skel->maps.slot_seen), c->seen_len);
	c->removed.path = strdup("(removed cgroups)");
	c->removed.rel_path = strdup("");
	if (!c->cg_hash || !c->slots || !c->retired || !c->lock_percpu || !c->irq_percpu ||
	    !c->lost_percpu || !c->dirty || !c->refs ||
	    !c->scratch || !c->homes || !c->irq_homes || !c->sys_percpu || !c->seen ||
	    !c->removed.path || !c->removed.rel_path) {
		collector_free(c);
		return NULL;
	}
	c->sys_total.irq.source = c->sys_open.irq.source = sources->irqoff_source;
	c->sys_total.irq.trace = c->sys_open.irq.trace = sources->irqoff_trace;
	c->sys_total.irq.sample = c->sys_open.irq.sample = sources->irqoff_sample;
	c->sys_total.lock.present = c->sys_open.lock.present = sources->cpu_lock;
	c->ksyms = sources->ksyms;
	c->open.flush_parts = sources->flush_parts;
	c->open.parts_from = sources->parts_from;
	c->open.parts_measured = sources->parts_measured;
	c->open.cause_sample = sources->cause_sample;
	c->open.cause_budgeted = sources->cause_budgeted;
	c->open.memcg_decisions = sources->memcg_decisions;
	builder_start(&c->open_bd, &c->open, REPORT_INTERVAL, per_process);
	return c;
}

static void snap_free(struct home_snap *h)
{
	for (int k = 0; k < NDIST; k++)
		free(h->hist[k].c);
	memset(h, 0, sizeof(*h));
}

static void slot_free(struct slot *s)
{
	free(s->own_cgroup);
	row_free(&s->total);
	row_free(&s->delta);
	snap_free(&s->snap);
	memset(s, 0, sizeof(*s));
}

static void sys_fig_free(struct sys_fig *f)
{
	dist_free(&f->irq.other);
	dist_free(&f->irq.late);
	dist_free(&f->lock.hold);
	dist_free(&f->lock.wait);
}

void collector_free(struct collector *c)
{
	if (!c)
		return;
	ksyms_free(c->own_ksyms);
	for (size_t i = 0; i < c->ncause_ids; i++)
		free(c->cause_ids[i]);
	free(c->cause_ids);
	for (unsigned int i = 0; c->slots && i < c->slots_end; i++)
		slot_free(&c->slots[i]);
	for (size_t i = 0; c->cg_hash && i < c->cg_hash_cap; i++) {
		struct cgrec *g = c->cg_hash[i], *next;

		for (; g; g = next) {
			next = g->next;
			cgrec_free(g);
		}
	}
	free_graveyard(c);
	cgrec_rows_free(&c->removed);
	free(c->removed.path);
	free(c->removed.rel_path);
	if (c->seen)
		munmap((void *)c->seen, c->seen_len);
	sys_fig_free(&c->sys_total);
	sys_fig_free(&c->sys_open);
	report_free(&c->open);
	builder_end(&c->open_bd);
	free(c->cg_hash);
	free(c->slots);
	free(c->retired);
	free(c->lock_percpu);
	free(c->irq_percpu);
	free(c->lost_percpu);
	free(c->sys_percpu);
	free(c->dirty);
	free(c->refs);
	free(c->scratch);
	free(c->homes);
	free(c->irq_homes);
	free(c);
}

/* ---- one read ---- */

/*
 * Waits until no BPF program can still be writing the epoch just closed.
 * Programs run inside RCU read-side sections (tracepoints, trampolines) or
 * with irqs off, so one RCU grace period is enough: membarrier's global
 * command waits for one. Kernels with nohz_full refuse it; programs take
 * microseconds, so a pause long past that serves there.
 */
static void *membarrier_global(void *done)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(10000);
	__atomic_store_n((int *)done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A grace period can take a while on a loaded machine: meanwhile the
 * waiter (the -t ring buffer) is served, so slow events are not dropped.
 */
static void grace_period(struct collector *c)
{
	pthread_t t;
	int done = 0;

	if (!c->waiter || pthread_create(&t, NULL, membarrier_global, &done)) {
		membarrier_global(&done);
		return;
	}
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		c->waiter(c->waiter_arg);
	pthread_join(t, NULL);
}

static void scratch_clear(struct scratch *s)
{
	for (int k = 0; k < NDIST; k++) {
		if (s->lo[k] <= s->hi[k])
			memset(&s->acc[k][s->lo[k]], 0,
			       (size_t)(s->hi[k] - s->lo[k] + 1) * sizeof(s->acc[k][0]));
		s->lo[k] = HIST_BUCKETS;
		s->hi[k] = -1;
	}
}

static void scratch_add(struct scratch *s, int k, uint32_t b, uint64_t n)
{
	if (b >= HIST_BUCKETS || !n)
		return;
	s->acc[k][b] += n;
	if ((int)b < s->lo[k])
		s->lo[k] = (int)b;
	if ((int)b > s->hi[k])
		s->hi[k] = (int)b;
}

static struct dist *row_dist(struct row *r, int k)
{
	switch (k) {
	case SD_HOLD: return &r->hold;
	case SD_WAIT: return &r->wait;
	case SD_FLUSH: return &r->flush;
	default:
		if (!r->irqoff)
			r->irqoff = calloc(1, sizeof(*r->irqoff));
		return r->irqoff;
	}
}

/* A distribution's change as sparse buckets, appended in ascending order. */
static int scratch_to_dist(struct scratch *s, int k, struct dist *d)
{
	for (int b = s->lo[k]; b <= s->hi[k]; b++)
		if (s->acc[k][b] && dist_add(d, (unsigned int)b, s->acc[k][b]))
			return -ENOMEM;
	return 0;
}

/*
 * A change's maximum comes from the stages (exact for the epoch) and the
 * home's epoch-tagged maximum. A value evicted to the home after the
 * epoch closed can put a bucket above it; then that bucket's upper bound
 * (capped by the run's maximum) is the honest bound.
 */
static void bound_max(struct dist *d, uint64_t run_max)
{
	uint32_t top;

	if (!d->n)
		return;
	top = d->b[d->n - 1].index;
	if (d->max >= hist_bucket_lower(top))
		return;
	d->max = hist_bucket_upper(top) - 1;
	if (run_max >= hist_bucket_lower(top) && run_max < d->max)
		d->max = run_max;
}

static void empty_dist(struct dist *d)
{
	if (d) {
		d->n = 0;
		d->count = d->sum = d->max = 0;
	}
}

static void empty_delta(struct row *r)
{
	r->locked = r->contended = r->flush_holds = r->flush_holds_max = 0;
	memset(r->part, 0, sizeof(r->part));
	memset(r->decisions, 0, sizeof(r->decisions));
	row_clear_causes(r);
	r->top_tgid = 0;
	r->top_comm[0] = '\0';
	r->top_locked = 0;
	empty_dist(&r->hold);
	empty_dist(&r->wait);
	empty_dist(&r->flush);
	empty_dist(r->irqoff);
}

/* This read's sums and maxima per distribution, besides the buckets. */
struct fold {
	uint64_t sum[NDIST], max[NDIST], run_max[NDIST];
	uint32_t top_tgid;
	uint64_t top_votes;
	char top_comm[RSL_COMM_LEN];
};

static void fold_vote(struct slot *s, struct fold *f, uint32_t tgid, const char *comm,
		      uint64_t votes)
{
	if (!votes)
		return;
	if (votes > f->top_votes) {
		f->top_votes = votes;
		f->top_tgid = tgid;
		memcpy(f->top_comm, comm, RSL_COMM_LEN);
		f->top_comm[RSL_COMM_LEN - 1] = '\0';
	}
	/* the run's vote: Boyer-Moore over what each read saw */
	if (s->total.top_tgid == tgid && s->top_votes) {
		s->top_votes += votes;
	} else if (votes > s->top_votes) {
		s->top_votes = votes - s->top_votes;
		s->total.top_tgid = tgid;
		memcpy(s->total.top_comm, comm, RSL_COMM_LEN);
		s->total.top_comm[RSL_COMM_LEN - 1] = '\0';
	} else {
		s->top_votes -= votes;
	}
}

static void fold_stage_dist(struct scratch *sc, struct fold *f, int k, const struct stage_dist *sd)
{
	for (int i = 0; i < STAGE_CELLS; i++)
		if (sd->cell[i].count)
			scratch_add(sc, k, sd->cell[i].bucket, sd->cell[i].count);
	f->sum[k] += sd->sum;
	if (sd->max > f->max[k])
		f->max[k] = sd->max;
	if (sd->max > f->run_max[k])
		f->run_max[k] = sd->max;
}

static void fold_stage(struct collector *c, struct slot *s, struct fold *f,
		       const struct slot_stage *st)
{
	struct row *d = &s->delta;

	d->locked += st->n.locked;
	d->contended += st->n.contended;
	d->flush_holds += st->n.flush_holds;
	if (st->n.flush_holds_max > d->flush_holds_max)
		d->flush_holds_max = st->n.flush_holds_max;
	for (int k = 0; k < PART_MAX; k++)
		d->part[k] += st->n.part[k];
	for (int k = 0; k < DECISION_MAX; k++)
		d->decisions[k] += st->n.decisions[k];
	fold_vote(s, f, st->n.top_tgid, st->n.top_comm, st->n.top_votes);
	for (int k = 0; k < SLOT_HOME_DISTS; k++)
		fold_stage_dist(c->scratch, f, k, &st->d[k]);
}

/* The buckets that changed in a home's histogram since the snapshot. */
static int fold_hist(struct snap_hist *sn, const uint32_t *hist, struct scratch *sc, int k)
{
	uint32_t j = 0;

	for (uint32_t b = 0; b < HIST_BUCKETS; b++) {
		bool have = j < sn->n && sn->c[j].bucket == b;
		uint32_t last = have ? sn->c[j].value : 0;

		if (hist[b] != last) {
			scratch_add(sc, k, b, (uint32_t)(hist[b] - last));	/* wraps */
			if (!have) {
				if (sn->n == sn->cap) {
					uint32_t ncap = sn->cap ? sn->cap * 2 : 8;
					struct snap_cell *nc = realloc(sn->c, ncap * sizeof(*nc));

					if (!nc)
						return -ENOMEM;
					sn->c = nc;
					sn->cap = ncap;
				}
				memmove(&sn->c[j + 1], &sn->c[j], (sn->n - j) * sizeof(sn->c[0]));
				sn->c[j].bucket = b;
				sn->n++;
				have = true;
			}
			sn->c[j].value = hist[b];
		}
		j += have;
	}
	return 0;
}

static uint64_t imax_of(const __u64 imax[2], uint64_t epoch)
{
	__u64 m = imax[epoch & 1];

	return (m & ~IMAX_VALUE_MASK) == IMAX_TAG(epoch) ? (m & IMAX_VALUE_MASK) : 0;
}

/* A home's sum, epoch maximum and run maximum into distribution k of the fold. */
static void fold_rec_figures(struct fold *f, int k, const struct dist_rec *h, uint64_t *last_sum,
			     uint64_t epoch)
{
	uint64_t m = imax_of(h->imax, epoch);

	f->sum[k] += h->sum - *last_sum;
	*last_sum = h->sum;
	if (m > f->max[k])
		f->max[k] = m;
	if (h->max > f->run_max[k])
		f->run_max[k] = h->max;
}

static int fold_dist_rec(struct slot *s, struct fold *f, struct scratch *sc, int k,
			 const struct dist_rec *h, uint64_t epoch)
{
	fold_rec_figures(f, k, h, &s->snap.sum[k], epoch);
	return fold_hist(&s->snap.hist[k], h->hist, sc, k);
}

/*
 * kallsyms as read here is ~4 MiB (120 000 text symbols): new stacks come
 * in bursts (at start, when a workload starts), so it is kept for a few
 * reads after its last use and then freed, not held for the run. Only the
 * copy the collector read itself: one given at start (privileges dropped
 * since) could not be read again.
 */
#define KSYMS_IDLE_READS 3

static void drop_idle_ksyms(struct collector *c)
{
	if (!c->own_ksyms || c->reads - c->ksyms_used < KSYMS_IDLE_READS)
		return;
	ksyms_free(c->own_ksyms);
	c->own_ksyms = NULL;
	c->ksyms = NULL;
	c->ksyms_tried = false;
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
static const char *cause_name(struct collector *c, uint64_t key)
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

/* The sampled flushes of each cause way since the snapshot. */
static int fold_causes(struct collector *c, struct slot *s, const struct slot_home *h)
{
	for (int i = 0; i <= CAUSE_WAYS; i++) {
		const struct cause_way *w = &h->cause[i];
		struct cause_way *sn = &s->snap.cause[i];

		if (!w->key || w->samples == sn->samples)
			continue;
		if (row_add_cause(&s->delta, cause_name(c, w->key),
				  (uint32_t)(w->samples - sn->samples),
				  (uint32_t)(w->weight - sn->weight), w->weight_ns - sn->weight_ns))
			return -ENOMEM;
		*sn = *w;
	}
	return 0;
}

static int fold_home(struct collector *c, struct slot *s, struct fold *f,
		     const struct slot_home *h, const struct dist_rec *irq, uint64_t epoch)
{
	struct row *d = &s->delta;
	int err = 0;

	d->locked += h->n.locked - s->snap.locked;
	d->contended += h->n.contended - s->snap.contended;
	d->flush_holds += h->n.flush_holds - s->snap.flush_holds;
	if (h->n.flush_holds_max > d->flush_holds_max)
		d->flush_holds_max = h->n.flush_holds_max;
	if (h->n.locked != s->snap.locked)
		fold_vote(s, f, h->n.top_tgid, h->n.top_comm, h->n.locked - s->snap.locked);
	s->snap.locked = h->n.locked;
	s->snap.contended = h->n.contended;
	s->snap.flush_holds = h->n.flush_holds;
	for (int k = 0; k < PART_MAX; k++) {
		d->part[k] += h->n.part[k] - s->snap.part[k];
		s->snap.part[k] = h->n.part[k];
	}
	for (int k = 0; k < DECISION_MAX; k++) {
		d->decisions[k] += (uint32_t)(h->n.decisions[k] - s->snap.decisions[k]);
		s->snap.decisions[k] = h->n.decisions[k];
	}
	err = fold_causes(c, s, h);
	for (int k = 0; k < SLOT_HOME_DISTS && !err; k++)
		err = fold_dist_rec(s, f, c->scratch, k, &h->d[k], epoch);
	if (!err && irq)
		err = fold_dist_rec(s, f, c->scratch, SD_IRQOFF, irq, epoch);
	return err;
}

/*
 * What no part covers of the wall time this read's flushes took: BPF keeps
 * the rest, each flush's at its end. self is an estimate (rstatlat.h,
 * SELF_SAMPLE): when the parts come to more than the wall time, self gives
 * way, so that they add up.
 */
static void flush_other(struct row *d)
{
	uint64_t known = 0, over;

	for (int k = 0; k < PART_MAX; k++)
		if (k != PART_OTHER)
			known += d->part[k];
	d->part[PART_OTHER] = known < d->flush.sum ? d->flush.sum - known : 0;
	over = known > d->flush.sum ? known - d->flush.sum : 0;
	d->part[PART_SELF] -= over < d->part[PART_SELF] ? over : d->part[PART_SELF];
}

/* The scratch and the fold into this read's change of s. */
static int finish_delta(struct collector *c, struct slot *s, struct fold *f)
{
	struct row *d = &s->delta;

	for (int k = 0; k < NDIST; k++) {
		struct dist *dd;

		if (k == SD_IRQOFF && !c->src.irqoff_trace)
			continue;
		dd = row_dist(d, k);
		if (!dd || scratch_to_dist(c->scratch, k, dd))
			return -ENOMEM;
		dd->sum += f->sum[k];
		if (f->max[k] > dd->max)
			dd->max = f->max[k];
		bound_max(dd, f->run_max[k]);
	}
	flush_other(d);
	d->top_tgid = f->top_tgid;
	d->top_locked = f->top_votes;
	memcpy(d->top_comm, f->top_comm, sizeof(d->top_comm));
	return 0;
}

static bool delta_empty(const struct row *d)
{
	return !d->locked && !d->hold.count && !d->wait.count && !d->flush.count &&
	       !(d->irqoff && d->irqoff->count) && !d->decisions[DECISION_ASKED] && !d->ncauses;
}

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
static bool process_alive(struct collector *c, const struct slot *s, bool check_start)
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

/* A slot's change of this read goes to the open interval and its totals. */
static int slot_changed(struct collector *c, struct slot *s, struct fold *f)
{
	uint32_t newly_exited = 0;
	struct ident who;
	int err = finish_delta(c, s, f);

	if (err || delta_empty(&s->delta))
		goto out;
	s->touched = true;
	s->cg->last_active = c->reads;
	if (c->per_process && s->tgid && !s->exited && !process_alive(c, s, false)) {
		s->exited = true;
		newly_exited = 1;
	}
	ident_of_slot(s, &who);
	if (!s->cg->excluded && c->src.intervals)
		err = builder_add(&c->open_bd, &who, &s->delta, newly_exited);
	if (!err)
		err = row_merge(&s->total, &s->delta) ? -ENOMEM : 0;
out:
	empty_delta(&s->delta);
	return err;
}

static int stage_ref_cmp(const void *a, const void *b)
{
	const struct stage_ref *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* Every CPU's stage of the closed epoch that holds a slot: sorted by slot. */
static int read_stages(struct collector *c, uint64_t epoch, size_t *nrefs)
{
	__u32 zero = 0;
	size_t n = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.lock_state), &zero, c->lock_percpu))
		return -errno;
	if (c->src.irqoff_trace &&
	    bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.irq_state), &zero, c->irq_percpu))
		return -errno;
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		const struct slot_stage *st = &c->lock_percpu[cpu].stage[epoch & 1];
		const struct slot_dist_stage *irq = &c->irq_percpu[cpu].slot[epoch & 1];

		if (st->epoch == (__u32)epoch && st->slot && st->slot <= c->max_slots)
			c->refs[n++] = (struct stage_ref){ .slot = st->slot - 1, .st = st };
		if (c->src.irqoff_trace && irq->epoch == (__u32)epoch && irq->slot &&
		    irq->slot <= c->max_slots)
			c->refs[n++] = (struct stage_ref){ .slot = irq->slot - 1, .irqoff = &irq->d };
	}
	qsort(c->refs, n, sizeof(c->refs[0]), stage_ref_cmp);
	*nrefs = n;
	return 0;
}

/* Slots whose home changed since the previous read (one epoch of slack). */
static size_t dirty_homes(struct collector *c, uint64_t epoch, unsigned int nslots)
{
	uint64_t since = epoch ? epoch - 1 : 0;
	size_t n = 0;

	for (unsigned int i = 0; i < nslots; i++)
		if (c->seen[i] >= since)
			c->dirty[n++] = i;
	return n;
}

/*
 * Reads homes[first..first+n) of the dirty list into c->homes. The batch
 * lookup takes a run of consecutive slots in one call (Linux 5.6+); else
 * one lookup each.
 */
static int read_homes(struct collector *c, size_t first, size_t n)
{
	int fd = bpf_map__fd(c->skel->maps.slot_home);
	__u32 start = c->dirty[first], keys[HOME_BATCH];
	LIBBPF_OPTS(bpf_map_batch_opts, opts);

	if (!c->batch_unsupported && n > 1) {
		__u32 count = (__u32)n, prev = start - 1, out;

		if (!bpf_map_lookup_batch(fd, start ? &prev : NULL, &out, keys, c->homes, &count,
					  &opts) || (errno == ENOENT && count == n)) {
			if (count == n)
				return 0;
		} else if (errno == EINVAL || errno == ENOTSUP || errno == EOPNOTSUPP) {
			c->batch_unsupported = true;
		}
	}
	for (size_t i = 0; i < n; i++) {
		__u32 k = c->dirty[first + i];

		if (bpf_map_lookup_elem(fd, &k, &c->homes[i]))
			return -errno;
	}
	return 0;
}

static int read_irq_home(struct collector *c, __u32 slot, struct dist_rec *out)
{
	return bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.slot_irqoff), &slot, out) ? -errno : 0;
}

/* Length of the run of consecutive slots in the dirty list from first. */
static size_t run_length(const struct collector *c, size_t first, size_t ndirty)
{
	size_t n = 1;

	while (first + n < ndirty && n < HOME_BATCH &&
	       c->dirty[first + n] == c->dirty[first] + n)
		n++;
	return n;
}

static int fold_slots(struct collector *c, uint64_t epoch, size_t nrefs, size_t ndirty)
{
	size_t r = 0, d = 0, win_first = 0, win_n = 0;
	int err = 0;

	while (!err && (r < nrefs || d < ndirty)) {
		uint32_t slot = r < nrefs && (d >= ndirty || c->refs[r].slot <= c->dirty[d]) ?
				c->refs[r].slot : c->dirty[d];
		struct slot *s = &c->slots[slot];
		struct fold f = { 0 };
		bool have_home = d < ndirty && c->dirty[d] == slot;

		slot_refresh(c, slot);
		scratch_clear(c->scratch);
		for (; r < nrefs && c->refs[r].slot == slot; r++) {
			if (s->state != SLOT_READY || !s->cg)
				continue;
			if (c->refs[r].st)
				fold_stage(c, s, &f, c->refs[r].st);
			else
				fold_stage_dist(c->scratch, &f, SD_IRQOFF, c->refs[r].irqoff);
		}
		if (have_home && s->state == SLOT_READY && s->cg) {
			if (d >= win_first + win_n) {
				win_first = d;
				win_n = run_length(c, d, ndirty);
				err = read_homes(c, win_first, win_n);
			}
			if (!err && c->src.irqoff_trace)
				err = read_irq_home(c, slot, c->irq_homes);
			if (!err)
				err = fold_home(c, s, &f, &c->homes[d - win_first],
						c->src.irqoff_trace ? c->irq_homes : NULL, epoch);
		}
		d += have_home;
		if (!err && s->state == SLOT_READY && s->cg)
			err = slot_changed(c, s, &f);
	}
	return err;
}

/* ---- system-wide figures ---- */

static int read_percpu(struct collector *c, struct bpf_map *map)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(bpf_map__fd(map), &zero, c->sys_percpu) ? -errno : 0;
}

/* The change of the system-wide figures in this read, before the homes. */
struct sys_change {
	uint64_t ticks, locked, contended;
	struct fold f;
};

static void fold_sys_stage(struct collector *c, const struct sys_stage *st, int k, uint64_t epoch,
			   uint64_t *events, struct fold *f)
{
	if (st->epoch != (__u32)epoch)
		return;
	*events += st->events;
	fold_stage_dist(c->scratch, f, k, &st->d);
}

/* Every CPU's stages of the closed epoch, for each source that is on. */
static int fold_sys_stages(struct collector *c, uint64_t epoch, struct sys_change *ch)
{
	uint64_t unused = 0;
	int err;

	for (int cpu = 0; c->src.irqoff_trace && cpu < c->ncpus; cpu++)
		fold_sys_stage(c, &c->irq_percpu[cpu].other[epoch & 1], SYS_IRQ_OTHER, epoch,
			       &unused, &ch->f);
	if (c->src.irqoff_sample) {
		const struct tick_state *tc = c->sys_percpu;

		if ((err = read_percpu(c, c->skel->maps.tick_state)))
			return err;
		for (int cpu = 0; cpu < c->ncpus; cpu++)
			fold_sys_stage(c, &tc[cpu].stage[epoch & 1], SYS_TICK_LATE, epoch, &ch->ticks,
				       &ch->f);
	}
	if (c->src.cpu_lock) {
		const struct cpu_lock_state *cc = c->sys_percpu;

		if ((err = read_percpu(c, c->skel->maps.cpu_lock_state)))
			return err;
		for (int cpu = 0; cpu < c->ncpus; cpu++) {
			const struct cpu_lock_stage *st = &cc[cpu].stage[epoch & 1];

			if (st->epoch != (__u32)epoch)
				continue;
			ch->locked += st->locked;
			ch->contended += st->contended;
			fold_stage_dist(c->scratch, &ch->f, SYS_CPU_LOCK_HOLD, &st->hold);
			fold_stage_dist(c->scratch, &ch->f, SYS_CPU_LOCK_WAIT, &st->wait);
		}
	}
	return 0;
}

static void fold_sys_home(struct collector *c, const struct sys_home *h, int k, struct fold *f,
			  uint64_t epoch)
{
	const struct dist_rec *r = &h->d[k];

	/* one record each: a dense snapshot is cheaper than fold_hist's sparse one */
	for (uint32_t b = 0; b < HIST_BUCKETS; b++) {
		scratch_add(c->scratch, k, b, (uint32_t)(r->hist[b] - c->sys_snap[k][b]));
		c->sys_snap[k][b] = r->hist[b];
	}
	fold_rec_figures(f, k, r, &c->sys_sum[k], epoch);
}

/* Adds distribution k of this read's system-wide change to two figures. */
static int sys_add(struct collector *c, int k, const struct fold *f, struct dist *total,
		   struct dist *open)
{
	struct dist d = { 0 };
	int err = scratch_to_dist(c->scratch, k, &d);

	d.sum = f->sum[k];
	d.max = f->max[k];
	bound_max(&d, f->run_max[k]);
	if (!err && (dist_merge(total, &d) || dist_merge(open, &d)))
		err = -ENOMEM;
	dist_free(&d);
	return err;
}

/* System-wide figures: the stages (irq_state was read with the slots' stages), then the homes. */
static int read_system(struct collector *c, uint64_t epoch)
{
	struct sys_change ch = { 0 };
	struct sys_home home;
	__u32 zero = 0;
	int err;

	scratch_clear(c->scratch);
	err = fold_sys_stages(c, epoch, &ch);
	if (err)
		return err;
	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.sys_home), &zero, &home))
		return -errno;
	for (int k = 0; k < SYS_MAX; k++)
		fold_sys_home(c, &home, k, &ch.f, epoch);
	c->sys_total.irq.ticks += ch.ticks;
	c->sys_open.irq.ticks += ch.ticks;
	c->sys_total.lock.locked += ch.locked;
	c->sys_open.lock.locked += ch.locked;
	c->sys_total.lock.contended += ch.contended;
	c->sys_open.lock.contended += ch.contended;
	err = sys_add(c, SYS_IRQ_OTHER, &ch.f, &c->sys_total.irq.other, &c->sys_open.irq.other);
	if (!err)
		err = sys_add(c, SYS_TICK_LATE, &ch.f, &c->sys_total.irq.late, &c->sys_open.irq.late);
	if (!err)
		err = sys_add(c, SYS_CPU_LOCK_HOLD, &ch.f, &c->sys_total.lock.hold,
			      &c->sys_open.lock.hold);
	if (!err)
		err = sys_add(c, SYS_CPU_LOCK_WAIT, &ch.f, &c->sys_total.lock.wait,
			      &c->sys_open.lock.wait);
	return err;
}

static int read_lost_map(struct collector *c)
{
	int fd = bpf_map__fd(c->skel->maps.lost);
	__u64 *percpu = c->lost_percpu;

	for (__u32 k = 0; k < LOST_MAX; k++) {
		uint64_t sum = 0;

		if (k == LOST_RETIRED) {
			c->lost[k] = c->retired_dropped;
			continue;
		}
		if (bpf_map_lookup_elem(fd, &k, percpu))
			return -errno;
		for (int cpu = 0; cpu < c->ncpus; cpu++)
			sum += percpu[cpu];
		c->lost[k] = sum;
	}
	return 0;
}

/* ---- housekeeping: slots of removed cgroups and exited flushers ---- */

/* Step 1: unhook the slot so no new event can reach it. */
static void retire_begin(struct collector *c, struct slot *s, unsigned int i)
{
	struct slot_key key = { .cgid = s->cg->cgid, .hierarchy = s->cg->hierarchy,
				.tgid = s->tgid };

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
	static const struct slot_home empty_home;
	static const struct dist_rec empty_irq;
	struct slot_meta empty_meta = { 0 };
	struct cgrec *g = s->cg;
	struct ident who;
	int err = 0;

	if (g && !g->excluded && !delta_empty(&s->total)) {
		ident_of_slot(s, &who);
		if (cgrec_keep(g, &s->total, &who, s->exited))
			c->retired_dropped++;
	}
	/*
	 * Writes into arrays at an index below max_entries, and one push onto
	 * a queue that holds every slot: they fail only on a broken kernel or
	 * map. Then the slot is not handed back (it would come back with an
	 * old cgroup's figures): the read fails, and rstatlat says why.
	 */
	if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.slot_home), &i, &empty_home, BPF_ANY) ||
	    (c->src.irqoff_trace &&
	     bpf_map_update_elem(bpf_map__fd(c->skel->maps.slot_irqoff), &i, &empty_irq, BPF_ANY)) ||
	    bpf_map_update_elem(bpf_map__fd(c->skel->maps.slot_meta), &i, &empty_meta, BPF_ANY))
		return -errno;
	slot_free(s);
	if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.free_slots), NULL, &i, BPF_ANY))
		return -errno;
	if (g && !--g->live_slots && g->removed && !g->retired)
		err = cgrec_retire(c, g);
	return err;
}

/* Whether an idle cgroup still exists, asked less often the longer it lives. */
static void check_cgroups(struct collector *c)
{
	for (size_t b = 0; b < c->cg_hash_cap; b++) {
		for (struct cgrec *g = c->cg_hash[b]; g; g = g->next) {
			if (g->removed || c->reads < g->next_check ||
			    c->reads - g->last_active < RETIRE_IDLE_READS)
				continue;
			if (!cg_path_exists(c->cg, g->hierarchy, g->rel_path, g->cgid)) {
				g->removed = true;
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

static int housekeeping(struct collector *c, unsigned int nslots)
{
	bool unhooked = false;
	int err = 0;

	for (unsigned int i = 0; i < nslots && !err; i++) {
		struct slot *s = &c->slots[i];

		if (s->state == SLOT_DISCARDED) {
			/* lost an insert race: hand it back */
			err = retire_end(c, s, i);
			continue;
		}
		if (s->state != SLOT_READY)
			continue;
		if (s->retiring) {
			if (clock_ns(CLOCK_MONOTONIC) - s->unhooked_ns >= RETIRE_GRACE_NS)
				err = retire_end(c, s, i);
			continue;
		}
		s->idle_reads = s->touched ? 0 : s->idle_reads + 1;
		s->touched = false;
		if (c->per_process && s->tgid && !s->exited && s->idle_reads &&
		    c->reads >= s->next_alive_check) {
			s->exited = !process_alive(c, s, true);
			s->next_alive_check = c->reads +
					      (s->idle_reads < ALIVE_CHECK_GAP ? 1 : ALIVE_CHECK_GAP);
		}
		if (s->exited || (s->cg && s->cg->removed && s->idle_reads >= RETIRE_IDLE_READS)) {
			retire_begin(c, s, i);
			unhooked = true;
		}
	}
	/* per-CPU caches filled before now may name an unhooked slot */
	if (unhooked)
		c->skel->bss->cache_gen++;
	if (!err)
		check_cgroups(c);
	if (!err)
		err = retire_cgroups(c);
	free_graveyard(c);
	return err;
}

int collector_read(struct collector *c)
{
	uint64_t epoch = c->skel->bss->epoch;
	unsigned int nslots = c->skel->bss->next_slot;
	size_t nrefs = 0, ndirty;
	int err;

	if (nslots > c->max_slots)
		nslots = c->max_slots;
	/* From here on BPF records into the other parity. */
	c->skel->bss->epoch = epoch + 1;
	grace_period(c);
	c->reads++;
	err = read_stages(c, epoch, &nrefs);
	if (err)
		return err;
	ndirty = dirty_homes(c, epoch, nslots);
	err = fold_slots(c, epoch, nrefs, ndirty);
	if (!err)
		err = read_system(c, epoch);
	if (!err)
		err = read_lost_map(c);
	if (!err)
		err = housekeeping(c, nslots);
	drop_idle_ksyms(c);
	return err;
}

/* ---- reports ---- */

static int copy_sys(struct report *r, const struct sys_fig *f)
{
	r->irqoff = f->irq;
	r->cpu_lock = f->lock;
	memset(&r->irqoff.other, 0, sizeof(r->irqoff.other));
	memset(&r->irqoff.late, 0, sizeof(r->irqoff.late));
	memset(&r->cpu_lock.hold, 0, sizeof(r->cpu_lock.hold));
	memset(&r->cpu_lock.wait, 0, sizeof(r->cpu_lock.wait));
	if (dist_copy(&r->irqoff.other, &f->irq.other) || dist_copy(&r->irqoff.late, &f->irq.late) ||
	    dist_copy(&r->cpu_lock.hold, &f->lock.hold) || dist_copy(&r->cpu_lock.wait, &f->lock.wait))
		return -ENOMEM;
	return 0;
}

static void report_sources(const struct collector *c, struct report *r)
{
	r->flush_parts = c->src.flush_parts;
	r->parts_from = c->src.parts_from;
	r->parts_measured = c->src.parts_measured;
	r->cause_sample = c->src.cause_sample;
	r->cause_budgeted = c->src.cause_budgeted;
	r->memcg_decisions = c->src.memcg_decisions;
	r->irqoff_rows = c->src.irqoff_trace ? IRQOFF_ROWS_TRACED :
			 c->src.irqoff_holds ? IRQOFF_ROWS_HOLDS : IRQOFF_ROWS_NONE;
}

int collector_interval(struct collector *c, struct report *out)
{
	int err;

	*out = c->open;
	builder_end(&c->open_bd);
	builder_start(&c->open_bd, &c->open, REPORT_INTERVAL, c->per_process);
	report_sources(c, out);
	err = copy_sys(out, &c->sys_open);
	sys_fig_free(&c->sys_open);
	c->sys_open.irq.ticks = 0;
	c->sys_open.lock.locked = c->sys_open.lock.contended = 0;
	for (int k = 0; k < LOST_MAX; k++) {
		out->lost[k] = c->lost[k] - c->lost_at_interval[k];
		c->lost_at_interval[k] = c->lost[k];
	}
	return err;
}

static int add_kept_rows(struct builder *bd, const struct cgrec *g)
{
	for (size_t i = 0; i < g->nrows; i++) {
		const struct row *r = &g->rows[i];
		struct ident who = { .cg = g, .tgid = r->tgid, .exited = !r->tgid,
				     .comm = r->comm, .own_cgroup = r->own_cgroup };

		if (builder_add(bd, &who, r, 0))	/* r->exited comes with r */
			return -ENOMEM;
	}
	return 0;
}

int collector_summary(struct collector *c, struct report *out)
{
	struct builder bd;
	int err = 0;

	builder_start(&bd, out, REPORT_SUMMARY, c->per_process);
	for (unsigned int i = 0; i < c->slots_end && !err; i++) {
		struct slot *s = &c->slots[i];
		struct ident who;

		if (s->state != SLOT_READY || !s->cg || s->cg->excluded || delta_empty(&s->total))
			continue;
		ident_of_slot(s, &who);
		s->total.top_locked = s->top_votes;
		err = builder_add(&bd, &who, &s->total, s->exited);
	}
	for (size_t b = 0; b < c->cg_hash_cap && !err; b++)
		for (const struct cgrec *g = c->cg_hash[b]; g && !err; g = g->next)
			if (!g->excluded)
				err = add_kept_rows(&bd, g);
	if (!err)
		err = add_kept_rows(&bd, &c->removed);
	builder_end(&bd);
	report_sources(c, out);
	if (!err)
		err = copy_sys(out, &c->sys_total);
	memcpy(out->lost, c->lost, sizeof(out->lost));
	return err;
}

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "collect.h"
#include "rstatlat.skel.h"

struct slot {
	enum slot_state state;
	bool excluded;		/* outside the -c subtree */
	struct slot_key key;
	char *path;
	char *own_cgroup;
	char comm[RSL_COMM_LEN];
	struct row prev;	/* cumulative totals at the previous read */
};

struct collector {
	struct rstatlat_bpf *skel;
	struct cg_table *cg;
	const struct cg_filter *filter;
	bool per_process;
	int ncpus;
	unsigned int max_slots;
	struct slot *slots;
	struct slot_stats *percpu;	/* one slot, every CPU */
	__u64 *lost_percpu;		/* one lost counter, every CPU */
	uint64_t prev_lost[LOST_MAX];
};

struct collector *collector_new(struct rstatlat_bpf *skel, struct cg_table *cg,
				const struct cg_filter *filter, bool per_process,
				int ncpus, unsigned int max_slots)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->skel = skel;
	c->cg = cg;
	c->filter = filter;
	c->per_process = per_process;
	c->ncpus = ncpus;
	c->max_slots = max_slots;
	c->slots = calloc(max_slots, sizeof(*c->slots));
	c->percpu = calloc(ncpus, sizeof(*c->percpu));
	c->lost_percpu = calloc(ncpus, sizeof(*c->lost_percpu));
	if (!c->slots || !c->percpu || !c->lost_percpu) {
		collector_free(c);
		return NULL;
	}
	return c;
}

void collector_free(struct collector *c)
{
	if (!c)
		return;
	for (unsigned int i = 0; c->slots && i < c->max_slots; i++) {
		free(c->slots[i].path);
		free(c->slots[i].own_cgroup);
	}
	free(c->slots);
	free(c->percpu);
	free(c->lost_percpu);
	free(c);
}

/* "/a/b" from the leaf-first names BPF captured. */
static void captured_path(const struct slot_meta *m, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	if (m->truncated && m->depth == RSL_MAX_DEPTH)
		used = (size_t)snprintf(buf, len, "/...");
	for (int i = (int)m->depth - 1; i >= 0 && used < len; i--) {
		char name[RSL_NAME_LEN + 1];

		memcpy(name, m->names[i], RSL_NAME_LEN);
		name[RSL_NAME_LEN] = '\0';
		used += (size_t)snprintf(buf + used, len - used, "/%s", name);
	}
	if (!buf[0])
		snprintf(buf, len, "/");
}

static void slot_describe(struct collector *c, struct slot *s, const struct slot_meta *m)
{
	char path[RSL_MAX_DEPTH * (RSL_NAME_LEN + 1) + 8];
	const char *live = NULL;

	s->key = m->key;
	memcpy(s->comm, m->comm, sizeof(s->comm));
	s->comm[RSL_COMM_LEN - 1] = '\0';
	captured_path(m, path, sizeof(path));
	/* a name or the depth did not fit: prefer the live path if it exists */
	if (m->truncated)
		live = cg_path_of_id(c->cg, m->key.hierarchy, m->key.cgid);
	s->excluded = c->filter && !cg_filter_match(c->filter, m->key.hierarchy,
						    live ? live : path);
	s->path = cg_display_path(c->cg, m->key.hierarchy, live ? live : path);
	if (c->per_process) {
		const char *own = cg_path_of_id(c->cg, 0, m->flusher_cgid);

		if (own)
			s->own_cgroup = strdup(own);
		else if (asprintf(&s->own_cgroup, "id:%llu",
				  (unsigned long long)m->flusher_cgid) < 0)
			s->own_cgroup = NULL;
	}
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
}

const char *collector_slot_path(struct collector *c, unsigned int slot)
{
	if (slot >= c->max_slots)
		return NULL;
	slot_refresh(c, slot);
	return c->slots[slot].path;
}

bool collector_slot_wanted(struct collector *c, unsigned int slot)
{
	if (slot >= c->max_slots)
		return true;
	slot_refresh(c, slot);
	return !c->slots[slot].excluded;
}

static uint64_t imax_of(const struct epoch_max imax[2], uint64_t epoch)
{
	const struct epoch_max *m = &imax[epoch & 1];

	return m->epoch == epoch ? m->value : 0;
}

/* BPF keeps no counts: a distribution's count is the sum of its buckets. */
static void sum_dist(struct dist *d, uint64_t sum, uint64_t max, const __u64 *hist)
{
	d->sum += sum;
	if (max > d->max)
		d->max = max;
	for (int b = 0; b < HIST_BUCKETS; b++) {
		d->buckets[b] += hist[b];
		d->count += hist[b];
	}
}

/* Sums one slot over CPUs into cumulative totals and this epoch's maxima. */
static int read_slot(struct collector *c, unsigned int i, uint64_t epoch,
		     struct row *cur, uint64_t *hold_imax, uint64_t *wait_imax)
{
	uint32_t best_votes = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.slot_stats), &i, c->percpu))
		return -errno;
	memset(cur, 0, sizeof(*cur));
	*hold_imax = *wait_imax = 0;
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		const struct slot_stats *s = &c->percpu[cpu];
		uint64_t hm = imax_of(s->hold_imax, epoch), wm = imax_of(s->wait_imax, epoch);

		cur->locked += s->locked;
		cur->contended += s->contended;
		sum_dist(&cur->hold, s->hold_sum, s->hold_max, s->hold_hist);
		sum_dist(&cur->wait, s->wait_sum, s->wait_max, s->wait_hist);
		*hold_imax = hm > *hold_imax ? hm : *hold_imax;
		*wait_imax = wm > *wait_imax ? wm : *wait_imax;
		if (s->top_votes > best_votes) {
			best_votes = s->top_votes;
			cur->top_tgid = s->top_tgid;
			memcpy(cur->top_comm, s->top_comm, RSL_COMM_LEN);
			cur->top_comm[RSL_COMM_LEN - 1] = '\0';
		}
	}
	return 0;
}

/*
 * Interval = cumulative now - cumulative before. The interval maximum comes
 * from the epoch-tagged record; a hold that raced the epoch switch can
 * leave it below the highest bucket touched, and then the bucket's upper
 * bound (capped by the run's max) is the honest bound.
 */
static void delta_dist(struct dist *out, const struct dist *now, const struct dist *before,
		       uint64_t imax)
{
	int top = -1;

	out->count = now->count - before->count;
	out->sum = now->sum - before->sum;
	for (int b = 0; b < HIST_BUCKETS; b++) {
		out->buckets[b] = now->buckets[b] - before->buckets[b];
		if (out->buckets[b])
			top = b;
	}
	out->max = imax;
	if (top >= 0 && imax < hist_bucket_lower(top)) {
		out->max = hist_bucket_upper(top) - 1;
		if (out->max > now->max)
			out->max = now->max;
	}
}

static int fill_row(struct row *dst, const struct slot *s, const struct row *src)
{
	*dst = *src;
	dst->cgid = s->key.cgid;
	dst->hierarchy = s->key.hierarchy;
	dst->tgid = s->key.tgid;
	memcpy(dst->comm, s->comm, sizeof(dst->comm));
	dst->path = s->path ? strdup(s->path) : NULL;
	dst->own_cgroup = s->own_cgroup ? strdup(s->own_cgroup) : NULL;
	if (s->key.tgid) {	/* a process row is its own top flusher */
		dst->top_tgid = s->key.tgid;
		memcpy(dst->top_comm, s->comm, sizeof(dst->top_comm));
	}
	return (s->path && !dst->path) ? -ENOMEM : 0;
}

struct builder {
	struct report *r;
	size_t cap_cg, cap_proc;
};

static struct row *find_cgroup_row(struct report *r, const struct row *p)
{
	for (size_t i = r->ncgroups; i-- > 0;)
		if (r->cgroups[i].cgid == p->cgid && r->cgroups[i].hierarchy == p->hierarchy)
			return &r->cgroups[i];
	return NULL;
}

/*
 * Without -p a slot is a cgroup row. With -p it is a process row, merged
 * into its cgroup's row, whose top flusher is the process with the most
 * acquisitions.
 */
static int add_slot_row(struct builder *bd, const struct slot *s, const struct row *data)
{
	struct report *r = bd->r;
	struct row *row, *cg;

	if (!s->key.tgid) {
		row = report_add_row(&r->cgroups, &r->ncgroups, &bd->cap_cg);
		return row ? fill_row(row, s, data) : -ENOMEM;
	}
	row = report_add_row(&r->processes, &r->nprocesses, &bd->cap_proc);
	if (!row || fill_row(row, s, data))
		return -ENOMEM;
	cg = find_cgroup_row(r, row);
	if (!cg) {
		cg = report_add_row(&r->cgroups, &r->ncgroups, &bd->cap_cg);
		if (!cg)
			return -ENOMEM;
		cg->cgid = row->cgid;
		cg->hierarchy = row->hierarchy;
		cg->path = row->path ? strdup(row->path) : NULL;
	}
	if (row->locked > cg->top_locked || !cg->top_tgid) {
		cg->top_locked = row->locked;
		cg->top_tgid = row->tgid;
		memcpy(cg->top_comm, row->comm, sizeof(cg->top_comm));
	}
	row_merge(cg, row);
	return 0;
}

static void report_begin(struct report *r, enum report_type type, bool per_process)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->per_process = per_process;
}

int collector_read(struct collector *c, struct report *interval, struct report *total)
{
	struct builder bi = { .r = interval }, bt = { .r = total };
	uint64_t epoch = c->skel->bss->epoch, lost[LOST_MAX] = { 0 };
	unsigned int n = c->skel->bss->next_slot;
	struct row cur, delta;
	int err = 0;

	/* From here on BPF records maxima for the next interval. */
	c->skel->bss->epoch = epoch + 1;
	if (n > c->max_slots)
		n = c->max_slots;
	if (interval)
		report_begin(interval, REPORT_INTERVAL, c->per_process);
	if (total)
		report_begin(total, REPORT_SUMMARY, c->per_process);
	for (unsigned int i = 0; i < n && !err; i++) {
		struct slot *s = &c->slots[i];
		uint64_t hold_imax = 0, wait_imax = 0;

		slot_refresh(c, i);
		if (s->state != SLOT_READY)
			continue;
		err = read_slot(c, i, epoch, &cur, &hold_imax, &wait_imax);
		if (err)
			break;
		if (!s->excluded && interval && cur.locked + cur.hold.count >
		    s->prev.locked + s->prev.hold.count) {
			delta = cur;
			delta.locked = cur.locked - s->prev.locked;
			delta.contended = cur.contended - s->prev.contended;
			delta_dist(&delta.hold, &cur.hold, &s->prev.hold, hold_imax);
			delta_dist(&delta.wait, &cur.wait, &s->prev.wait, wait_imax);
			err = add_slot_row(&bi, s, &delta);
		}
		if (!err && !s->excluded && total && (cur.locked || cur.hold.count))
			err = add_slot_row(&bt, s, &cur);
		s->prev = cur;
	}
	for (uint32_t k = 0; k < LOST_MAX && !err; k++) {
		if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.lost), &k, c->lost_percpu))
			return -errno;
		for (int cpu = 0; cpu < c->ncpus; cpu++)
			lost[k] += c->lost_percpu[cpu];
		if (interval)
			interval->lost[k] = lost[k] - c->prev_lost[k];
		if (total)
			total->lost[k] = lost[k];
		c->prev_lost[k] = lost[k];
	}
	return err;
}

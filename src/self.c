// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "self.h"

/* A "key:\tvalue" line of /proc/self/fdinfo/FD, or false. */
static bool fdinfo_value(int fd, const char *key, uint64_t *v)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, key, klen) && line[klen] == ':' &&
			sscanf(line + klen + 1, "%" SCNu64, v) == 1;
	fclose(f);
	return found;
}

uint64_t self_map_memlock(int fd)
{
	uint64_t v = 0;

	return fd >= 0 && fdinfo_value(fd, "memlock", &v) ? v : 0;
}

uint64_t self_map_bytes(struct bpf_object *obj, FILE *list)
{
	struct bpf_map *map;
	uint64_t total = 0, v;

	bpf_object__for_each_map(map, obj) {
		int fd = bpf_map__fd(map);

		if (fd < 0 || !fdinfo_value(fd, "memlock", &v))
			continue;
		total += v;
		if (list)
			fprintf(list, "rstatlat: map %-16s %10" PRIu64 " bytes kernel memory\n",
				bpf_map__name(map), v);
	}
	if (list)
		fprintf(list, "rstatlat: maps in all      %10" PRIu64 " bytes (%.1f MiB)\n", total,
			(double)total / (1 << 20));
	return total;
}

static bool bpf_stats_enabled(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int on = 0;

	if (f) {
		if (fscanf(f, "%d", &on) != 1)
			on = 0;
		fclose(f);
	}
	return on == 1;
}

void self_prog_totals(struct bpf_object *obj, struct prog_totals *t)
{
	struct bpf_program *prog;

	memset(t, 0, sizeof(*t));
	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		memset(&info, 0, sizeof(info));
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		t->run_ns += info.run_time_ns;
		t->runs += info.run_cnt;
		t->skipped += info.recursion_misses;
	}
}

static void bpf_run_totals(struct bpf_object *obj, uint64_t *ns, uint64_t *runs)
{
	struct prog_totals t;

	self_prog_totals(obj, &t);
	*ns = t.run_ns;
	*runs = t.runs;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ULL + (uint64_t)tv.tv_usec * 1000ULL;
}

static void cpu_now(uint64_t *user, uint64_t *sys)
{
	struct rusage ru;

	memset(&ru, 0, sizeof(ru));
	getrusage(RUSAGE_SELF, &ru);
	*user = tv_ns(ru.ru_utime);
	*sys = tv_ns(ru.ru_stime);
}

/*
 * Peak RSS of this program: VmHWM, not getrusage's ru_maxrss, which also
 * holds what the parent had resident when it forked us (kept over exec).
 */
static uint64_t rss_peak(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	uint64_t kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %" SCNu64 " kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

void self_start(struct self_meter *m, struct bpf_object *obj)
{
	memset(m, 0, sizeof(*m));
	m->obj = obj;
	m->map_bytes = self_map_bytes(obj, NULL);
	cpu_now(&m->cpu_user_ns, &m->cpu_system_ns);
	bpf_run_totals(obj, &m->bpf_ns, &m->bpf_runs);
	m->start_user_ns = m->cpu_user_ns;
	m->start_system_ns = m->cpu_system_ns;
	m->start_bpf_ns = m->bpf_ns;
	m->start_bpf_runs = m->bpf_runs;
}

void self_window(struct self_meter *m, struct self_costs *out, bool whole_run)
{
	uint64_t user, sys, ns, runs;

	/* the sampled BPF time is the collector's (collector_own_time) */
	out->present = true;
	out->map_bytes = m->map_bytes;
	cpu_now(&user, &sys);
	out->rss_max_bytes = rss_peak();
	bpf_run_totals(m->obj, &ns, &runs);
	out->cpu_user_ns = user - (whole_run ? m->start_user_ns : m->cpu_user_ns);
	out->cpu_system_ns = sys - (whole_run ? m->start_system_ns : m->cpu_system_ns);
	/* the counters only run while the sysctl is on: say so rather than print 0 */
	out->bpf_stats = bpf_stats_enabled();
	out->bpf_ns = ns - (whole_run ? m->start_bpf_ns : m->bpf_ns);
	out->bpf_runs = runs - (whole_run ? m->start_bpf_runs : m->bpf_runs);
	if (!whole_run) {
		m->cpu_user_ns = user;
		m->cpu_system_ns = sys;
		m->bpf_ns = ns;
		m->bpf_runs = runs;
	}
}

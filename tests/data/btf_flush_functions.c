/*
 * BTF for a kernel before 6.10: no rstat tracepoints, but the flush
 * functions (as Linux 6.1 has them) to fall back on.
 */
struct cgroup { int id; };
void cgroup_rstat_flush_locked(struct cgroup *cgrp, _Bool may_sleep) { (void)cgrp; (void)may_sleep; }
void cgroup_rstat_flush(struct cgroup *cgrp) { (void)cgrp; }
void cgroup_rstat_flush_irqsafe(struct cgroup *cgrp) { (void)cgrp; }

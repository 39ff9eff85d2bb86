/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cause of an rstat flush, named from the symbols of the kernel stack
 * taken at the flush's last release (whose callers are those of all its
 * holds): a cgroup file whose read flushed ("memory.stat", "cpu.stat",
 * "io.stat", ...), a kernel path ("memcg_reclaim", "memcg_refault",
 * "memcg_periodic", "css_release", "bpf_kfunc", "zswap", ...), else
 * "other:<symbol>" for the innermost frame that is neither tracing nor
 * rstat plumbing, else "unknown".
 */
#ifndef RSTATLAT_CAUSE_H
#define RSTATLAT_CAUSE_H

#include <stddef.h>

#define CAUSE_LEN 96
/*
 * The cause of a flush from its kernel stack: syms[0] is the innermost frame
 * (the tracing code), syms[n-1] the outermost; an entry may be NULL (address
 * not resolved). Writes a NUL-terminated name into buf (len >= 1, truncated to fit).
 */
void cause_of_stack(const char *const *syms, size_t n, char *buf, size_t len);

#endif

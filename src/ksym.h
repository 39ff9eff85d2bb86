/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel address -> symbol, from /proc/kallsyms. */
#ifndef RSTATLAT_KSYM_H
#define RSTATLAT_KSYM_H

#include <stddef.h>
#include <stdint.h>

struct ksyms;

#define KALLSYMS "/proc/kallsyms"

/* path: KALLSYMS, or a copy of it (tests) */
struct ksyms *ksyms_load(const char *path);
void ksyms_free(struct ksyms *k);
/* "name+0xoff" or "0xaddr" when unknown; returns buf. */
const char *ksym_format(const struct ksyms *k, uint64_t addr, char *buf, size_t len);

#endif

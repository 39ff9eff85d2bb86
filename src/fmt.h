/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RSTATLAT_FMT_H
#define RSTATLAT_FMT_H

#include <stddef.h>
#include <stdint.h>

/*
 * src (NULL: "") into dst of size len (> 0), cut to fit, NUL-terminated:
 * snprintf's "%s" without parsing a format (a summary names every row).
 */
void fmt_copy(char *dst, size_t len, const char *src);
/* Writes v in decimal at p (no NUL); returns the end. */
char *fmt_put_uint(char *p, uint64_t v);
/* A duration in ns as a short human string: "850ns", "1.23us", "12.3ms". */
const char *fmt_duration(char *buf, size_t len, uint64_t ns);
/* The same at p (at most 24 bytes, no NUL); returns the end. */
char *fmt_put_duration(char *p, uint64_t ns);
/*
 * Parses "<number>[ns|us|ms|s]" into ns; a bare number is taken in
 * default_unit_ns. Returns 0, or -1 on bad input.
 */
int parse_duration(const char *s, uint64_t default_unit_ns, uint64_t *ns);
/*
 * Parses a finite number, sign allowed, followed by exactly suffix (""
 * for none): "12.5%" with suffix "%". Returns 0, or -1 on bad input.
 */
int parse_number(const char *s, const char *suffix, double *out);
/* Parses a non-negative decimal integer <= max. Returns 0 or -1. */
int parse_uint(const char *s, uint64_t max, uint64_t *out);

#endif

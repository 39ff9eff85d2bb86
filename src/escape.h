/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-supplied text (cgroup names, comm) is untrusted: a cgroup can be
 * named with escape sequences, quotes, newlines or invalid UTF-8.
 */
#ifndef RSTATLAT_ESCAPE_H
#define RSTATLAT_ESCAPE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Writes s as a JSON string literal, quotes included. Control characters
 * become \uXXXX; bytes that are not valid UTF-8 become U+0080..U+00FF of
 * the same value, so the output is always valid UTF-8 JSON.
 */
void json_write_string(FILE *f, const char *s);
/*
 * The same into a buffer: writes at dst, which has room for
 * JSON_STRING_ROOM(strlen(s)) bytes, and returns the end.
 */
char *json_put_string(char *dst, const char *s);
#define JSON_STRING_ROOM(len) (6 * (size_t)(len) + 2)

/*
 * Copies s into dst (always NUL-terminated, truncated to fit) with every
 * byte a terminal could act on shown as \xNN: C0 controls, DEL, C1
 * controls (raw or UTF-8 encoded), and invalid UTF-8; '\' becomes "\\".
 * Returns the length written.
 */
size_t term_escape(char *dst, size_t dstlen, const char *s);

/*
 * Terminal columns of text term_escape() wrote (valid UTF-8, nothing to
 * act on): one a character, two for East Asian wide ones and emoji. An
 * estimate without the locale's tables, never below the real width.
 */
size_t text_columns(const char *s);
/* The bytes of s's longest prefix of whole characters within columns. */
size_t text_fit(const char *s, size_t columns);

/*
 * lead, then text escaped as by term_escape() in lines of at most columns
 * columns (lead's and indent's included), broken at spaces where it can,
 * every line after the first begun with indent.
 */
void term_wrap(FILE *f, const char *lead, const char *indent, const char *text,
	       size_t columns);

/*
 * Prints "who: message" as one line on stderr, the message escaped as by
 * term_escape() (it may quote a file name, an argument or a file's
 * contents): the commands' warnings.
 */
void vwarn(const char *who, const char *fmt, va_list ap);
/* vwarn(), then exits with code: the commands' die(). */
__attribute__((noreturn))
void vdie(const char *who, int code, const char *fmt, va_list ap);

/*
 * Writes s as HTML text or attribute value: term_escape()'s rendering of
 * controls and invalid UTF-8, then & < > " ' as character references.
 */
void html_write_text(FILE *f, const char *s);

/*
 * Writes s as a Prometheus label value, quotes not included:
 * term_escape()'s rendering (so a scrape shown on a terminal is safe and
 * the value is valid UTF-8), then the text format's escapes of \ and ".
 */
void prom_write_label(FILE *f, const char *s);

#endif

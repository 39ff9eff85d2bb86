// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static size_t utf8_seq_len(const unsigned char *s)
{
	size_t n, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* The code point of a valid n-byte UTF-8 sequence. */
static unsigned int utf8_code(const unsigned char *s, size_t n)
{
	static const unsigned char lead[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned int cp = s[0] & lead[n];

	for (size_t i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

/* Two columns: Hangul, CJK, fullwidth forms, emoji (as wcwidth() has them, coarser). */
static int wide(unsigned int cp)
{
	return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) ||
	       (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
	       (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
	       (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff) ||
	       (cp >= 0x20000 && cp <= 0x3fffd);
}

/* The character at s: its bytes (1 for a byte that is not UTF-8) and columns. */
static size_t char_width(const unsigned char *s, size_t *columns)
{
	size_t n = utf8_seq_len(s);

	if (!n)
		n = 1;
	*columns = n > 1 && wide(utf8_code(s, n)) ? 2 : 1;
	return n;
}

size_t text_columns(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t total = 0, w;

	while (*p) {
		p += char_width(p, &w);
		total += w;
	}
	return total;
}

size_t text_fit(const char *s, size_t columns)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0, w, n;

	while (*p) {
		n = char_width(p, &w);
		if (used + w > columns)
			break;
		used += w;
		p += n;
	}
	return (size_t)(p - (const unsigned char *)s);
}

/*
 * Escapes the character (or UTF-8 sequence) at *ps into out (at most 6
 * bytes) and steps *ps past it. Returns the bytes written. The one rule
 * behind both JSON string writers.
 */
static size_t json_escape_unit(const unsigned char **ps, char *out)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = *ps;
	size_t n;

	if (*p == '"' || *p == '\\') {
		out[0] = '\\';
		out[1] = (char)*p;
		*ps = p + 1;
		return 2;
	}
	if (*p < 0x20 || *p == 0x7f || (n = utf8_seq_len(p)) == 0) {
		memcpy(out, "\\u00", 4); /* NOLINT(bugprone-not-null-terminated-result): 4 of 6 */
		out[4] = hex[*p >> 4];
		out[5] = hex[*p & 15];
		*ps = p + 1;
		return 6;
	}
	memcpy(out, p, n);
	*ps = p + n;
	return n;
}

char *json_put_string(char *dst, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	*dst++ = '"';
	while (p && *p) {
		/* most names are plain ASCII: copied without a call */
		if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
			*dst++ = (char)*p++;
		else
			dst += json_escape_unit(&p, dst);
	}
	*dst++ = '"';
	return dst;
}

void json_write_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char buf[256];
	size_t n = 0;

	buf[n++] = '"';
	while (p && *p) {
		if (n > sizeof(buf) - 8) {
			fwrite(buf, 1, n, f);
			n = 0;
		}
		n += json_escape_unit(&p, buf + n);
	}
	buf[n++] = '"';
	fwrite(buf, 1, n, f);
}

static size_t put_hex(char *dst, size_t room, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	if (room < 5)
		return 0;
	dst[0] = '\\';
	dst[1] = 'x';
	dst[2] = hex[c >> 4];
	dst[3] = hex[c & 15];
	return 4;
}

size_t term_escape(char *dst, size_t dstlen, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t out = 0, n, w, i;

	if (dstlen == 0)
		return 0;
	while (p && *p) {
		size_t room = dstlen - out;

		/* most names are plain ASCII: copied without a call */
		if (*p >= 0x20 && *p < 0x7f && *p != '\\') {
			if (room < 2)
				break;
			dst[out++] = (char)*p++;
			continue;
		}
		n = utf8_seq_len(p);
		if (*p == '\\') {
			if (room < 3)
				break;
			dst[out++] = '\\';
			dst[out++] = '\\';
			p++;
		} else if (*p < 0x20 || *p == 0x7f || n == 0) {
			if (!(w = put_hex(dst + out, room, *p)))
				break;
			out += w;
			p++;
		} else if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
			/* U+0080..U+009F: C1 controls, e.g. CSI */
			if (room < 9)
				break;
			out += put_hex(dst + out, room, p[0]);
			out += put_hex(dst + out, dstlen - out, p[1]);
			p += 2;
		} else {
			if (room < n + 1)
				break;
			for (i = 0; i < n; i++)
				dst[out++] = p[i];
			p += n;
		}
	}
	dst[out] = '\0';
	return out;
}

/* term_escape()'s rendering of s, each byte of it written by put. */
static void write_term_escaped(FILE *f, const char *s, void (*put)(FILE *f, char c))
{
	size_t room = 4 * strlen(s) + 1;
	char stack[1024], *buf = room <= sizeof(stack) ? stack : malloc(room);

	if (!buf) {
		fputs("?", f);
		return;
	}
	term_escape(buf, room, s);
	for (const char *p = buf; *p; p++)
		put(f, *p);
	if (buf != stack)
		free(buf);
}

static void put_html(FILE *f, char c)
{
	switch (c) {
	case '&': fputs("&amp;", f); break;
	case '<': fputs("&lt;", f); break;
	case '>': fputs("&gt;", f); break;
	case '"': fputs("&quot;", f); break;
	case '\'': fputs("&#39;", f); break;
	default: fputc(c, f);
	}
}

void html_write_text(FILE *f, const char *s)
{
	write_term_escaped(f, s, put_html);
}

/* The text format's label escapes; term_escape left no newline to escape. */
static void put_prom(FILE *f, char c)
{
	if (c == '\\' || c == '"')
		fputc('\\', f);
	fputc(c, f);
}

void prom_write_label(FILE *f, const char *s)
{
	write_term_escaped(f, s, put_prom);
}

void vwarn(const char *who, const char *fmt, va_list ap)
{
	char msg[1024], safe[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	term_escape(safe, sizeof(safe), msg);
	fprintf(stderr, "%s: %s\n", who, safe);
}

void vdie(const char *who, int code, const char *fmt, va_list ap)
{
	vwarn(who, fmt, ap);
	exit(code);
}

/* Bytes and columns of the token at p of term_escape()'s output: an escape, or one character. */
static size_t wrap_token(const char *p, size_t *cols)
{
	char one[8] = "";
	size_t n = 1;

	if (*p == '\\') {
		n = p[1] == 'x' ? 4 : 2;
		*cols = n;
		return n;
	}
	while (n < 4 && ((unsigned char)p[n] & 0xc0) == 0x80)
		n++;
	memcpy(one, p, n);
	*cols = text_columns(one);
	return n;
}

/*
 * The bytes of p to put on a line of room columns: up to the last space
 * that fits when the rest does not, else whole tokens that fit (one at
 * least, however wide); *skip: a space to leave out at the break.
 */
static size_t wrap_cut(const char *p, size_t room, bool *skip)
{
	size_t used = 0, at = 0, space = 0, cols, n;

	*skip = false;
	while (p[at]) {
		n = wrap_token(p + at, &cols);
		if (used + cols > room && at)
			break;
		if (p[at] == ' ')
			space = at;
		used += cols;
		at += n;
	}
	if (!p[at])
		return at;
	if (p[at] == ' ')	/* the line ends where a word does */
		space = at;
	if (!space)
		return at;
	*skip = true;
	return space;
}

void term_wrap(FILE *f, const char *lead, const char *indent, const char *text,
	       size_t columns)
{
	size_t len = strlen(text) * 4 + 1, lead_cols = text_columns(lead), cut;
	size_t indent_cols = text_columns(indent);
	char *buf = malloc(len);
	const char *p;
	bool skip;

	if (!buf) {
		fprintf(f, "%s(out of memory)\n", lead);
		return;
	}
	term_escape(buf, len, text);
	fputs(lead, f);
	if (!*buf)
		fputc('\n', f);
	for (p = buf; *p; p += cut + skip) {
		cut = wrap_cut(p, columns > lead_cols ? columns - lead_cols : 1, &skip);
		fprintf(f, "%.*s\n", (int)cut, p);
		if (p[cut + skip])
			fputs(indent, f);
		lead_cols = indent_cols;
	}
	free(buf);
}

// SPDX-License-Identifier: GPL-2.0
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

void json_write_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	fputc('"', f);
	while (p && *p) {
		if (*p == '"' || *p == '\\') {
			fputc('\\', f);
			fputc(*p++, f);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p++);
		} else if ((n = utf8_seq_len(p)) > 0) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			fprintf(f, "\\u%04x", *p++);
		}
	}
	fputc('"', f);
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

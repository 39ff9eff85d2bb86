// SPDX-License-Identifier: GPL-2.0
/*
 * JSON trees in an arena, built from yajl's events as the text is fed
 * (jtree.h). yajl hands numbers over as text, so integers are read here,
 * to 2^64-1; everything else (lexing, UTF-8, syntax) is yajl's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#include "jtree.h"

#define CHUNK_SIZE ((size_t)64 << 10)

struct chunk {
	struct chunk *prev;
	size_t size, used;
	char data[];
};

struct mark {
	struct chunk *c;
	size_t used;
};

struct jt_parser {
	yajl_handle yajl;
	struct jt_handler h;
	struct chunk *arena, *spare;
	size_t arena_bytes;
	struct jt *root;	/* the top-level value being built */
	struct jt *stack[JT_DEPTH_MAX];	/* open containers */
	int depth;
	const char *key;	/* the member key just read */
	int stream_list;	/* stream_keys index of the streamed array open at depth 2 */
	struct mark element;	/* the arena before the streamed element being built */
	/* where the text is: for jt_line and the token bound */
	const char *buf;
	size_t buf_len;
	uint64_t fed;		/* bytes before buf */
	size_t lines;		/* newlines before buf */
	bool token_seen;	/* a token ended in the text being fed */
	bool any_text;		/* a byte other than a blank was fed */
	uint64_t tokenless;	/* bytes fed since the last chunk a token ended in */
	bool failed, truncated;
	char err[160];
};

__attribute__((format(printf, 2, 3)))
static int jt_fail(struct jt_parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
	p->failed = true;
	return 0;	/* yajl: cancel */
}

static void *arena_alloc(struct jt_parser *p, size_t n)
{
	struct chunk *c = p->arena;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK_SIZE ? n : CHUNK_SIZE;

		if (p->arena_bytes + size > JT_TREE_MAX) {
			jt_fail(p, "a value of more than %zu MiB: not a file rstatlat wrote",
				JT_TREE_MAX >> 20);
			return NULL;
		}
		if (size == CHUNK_SIZE && p->spare) {
			c = p->spare;
			p->spare = NULL;
		} else if (!(c = malloc(sizeof(*c) + size))) {
			jt_fail(p, "out of memory");
			return NULL;
		}
		c->size = size;
		c->used = 0;
		c->prev = p->arena;
		p->arena = c;
		p->arena_bytes += size;
	}
	c->used += n;
	return c->data + c->used - n;
}

static struct mark arena_mark(const struct jt_parser *p)
{
	return (struct mark){ p->arena, p->arena ? p->arena->used : 0 };
}

/* Frees what was allocated after m; one chunk is kept for the next tree. */
static void arena_reset(struct jt_parser *p, struct mark m)
{
	while (p->arena != m.c) {
		struct chunk *c = p->arena;

		p->arena = c->prev;
		p->arena_bytes -= c->size;
		if (!p->spare && c->size == CHUNK_SIZE)
			p->spare = c;
		else
			free(c);
	}
	if (p->arena)
		p->arena->used = m.used;
}

static char *arena_str(struct jt_parser *p, const unsigned char *s, size_t len)
{
	char *out;

	if (memchr(s, 0, len)) {
		jt_fail(p, "a string holds \\u0000");
		return NULL;
	}
	out = arena_alloc(p, len + 1);
	if (out) {
		memcpy(out, s, len);
		out[len] = '\0';
	}
	return out;
}

static struct jt *parent_of_new(const struct jt_parser *p)
{
	return p->depth ? p->stack[p->depth - 1] : NULL;
}

static int stream_index(const struct jt_parser *p, const char *key)
{
	for (int i = 0; i < p->h.nstream_keys; i++)
		if (!strcmp(key, p->h.stream_keys[i]))
			return i;
	return -1;
}

/* Puts a new value (a scalar, or a container just opened) in its place. */
static struct jt *new_value(struct jt_parser *p, enum jt_type type)
{
	struct jt *c = parent_of_new(p), *v;

	p->token_seen = true;
	if (c && c->streamed)
		p->element = arena_mark(p);
	v = arena_alloc(p, sizeof(*v));
	if (!v)
		return NULL;
	memset(v, 0, sizeof(*v));
	v->type = type;
	if (!c) {
		p->root = v;
		return v;
	}
	if (c->type == JT_OBJECT) {
		if (c->n >= JT_MEMBERS_MAX) {
			jt_fail(p, "an object of more than %d keys", JT_MEMBERS_MAX);
			return NULL;
		}
		if (jt_get(c, p->key)) {
			jt_fail(p, "duplicate key \"%.40s\"", p->key);
			return NULL;
		}
		v->key = p->key;
		/* rows of the top-level object: handed over one at a time */
		if (type == JT_ARRAY && p->depth == 1 && (p->stream_list = stream_index(p, v->key)) >= 0)
			v->streamed = true;
	}
	if (c->streamed)
		return v;
	if (c->kids.last)
		c->kids.last->next = v;
	else
		c->kids.first = v;
	c->kids.last = v;
	c->n++;
	return v;
}

/* A value is complete: a top-level one, or a streamed element, is handed over. */
static int complete(struct jt_parser *p, struct jt *v)
{
	struct jt *c = parent_of_new(p);
	int ret;

	if (!c) {
		ret = p->h.value(p->h.ctx, v);
		p->root = NULL;
		arena_reset(p, (struct mark){ NULL, 0 });
		return !ret;
	}
	if (!c->streamed)
		return 1;
	ret = p->h.element(p->h.ctx, p->root, p->stream_list, c->n++, v);
	arena_reset(p, p->element);
	return !ret;
}

static int on_null(void *ctx)
{
	struct jt_parser *p = ctx;
	struct jt *v = new_value(p, JT_NULL);

	return v && complete(p, v);
}

static int on_boolean(void *ctx, int b)
{
	struct jt_parser *p = ctx;
	struct jt *v = new_value(p, b ? JT_TRUE : JT_FALSE);

	return v && complete(p, v);
}

/* A non-negative integer to 2^64-1 is JT_UINT; any other number JT_NUMBER. */
static int on_number(void *ctx, const char *s, size_t len)
{
	struct jt_parser *p = ctx;
	uint64_t u = 0;
	bool digits = len > 0;
	struct jt *v;

	for (size_t i = 0; i < len && digits; i++) {
		unsigned int d = (unsigned int)(s[i] - '0');

		digits = d <= 9;
		/* 19 digits always fit; the 20th may carry past 2^64-1 */
		if (digits && i == 19 && u > (UINT64_MAX - d) / 10)
			return jt_fail(p, "an integer past 2^64-1: %.*s", (int)(len < 24 ? len : 24), s);
		u = u * 10 + d;
	}
	if (digits && len > 20)
		return jt_fail(p, "an integer past 2^64-1: %.*s...", (int)(len < 24 ? len : 24), s);
	if (!(v = new_value(p, digits ? JT_UINT : JT_NUMBER)))
		return 0;
	v->u = digits ? u : 0;
	return complete(p, v);
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
	struct jt_parser *p = ctx;
	struct jt *v = new_value(p, JT_STRING);

	if (!v || !(v->str.s = arena_str(p, s, len)))
		return 0;
	v->str.len = len;
	return complete(p, v);
}

static int on_key(void *ctx, const unsigned char *s, size_t len)
{
	struct jt_parser *p = ctx;

	p->token_seen = true;
	p->key = arena_str(p, s, len);
	return p->key != NULL;
}

static int open_container(void *ctx, enum jt_type type)
{
	struct jt_parser *p = ctx;
	struct jt *v;

	if (p->depth >= JT_DEPTH_MAX)
		return jt_fail(p, "nested more than %d deep", JT_DEPTH_MAX);
	v = new_value(p, type);
	if (!v)
		return 0;
	p->stack[p->depth++] = v;
	return 1;
}

static int close_container(void *ctx)
{
	struct jt_parser *p = ctx;

	p->token_seen = true;
	return complete(p, p->stack[--p->depth]);
}

static int on_start_map(void *ctx)
{
	return open_container(ctx, JT_OBJECT);
}

static int on_start_array(void *ctx)
{
	return open_container(ctx, JT_ARRAY);
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_boolean,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_key,
	.yajl_end_map = close_container,
	.yajl_start_array = on_start_array,
	.yajl_end_array = close_container,
};

struct jt_parser *jt_parser_new(const struct jt_handler *h)
{
	struct jt_parser *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->h = *h;
	p->yajl = yajl_alloc(&callbacks, NULL, p);
	if (!p->yajl) {
		free(p);
		return NULL;
	}
	/* JSON lines: one value after another */
	yajl_config(p->yajl, yajl_allow_multiple_values, 1);
	return p;
}

void jt_parser_free(struct jt_parser *p)
{
	if (!p)
		return;
	arena_reset(p, (struct mark){ NULL, 0 });
	free(p->spare);
	yajl_free(p->yajl);
	free(p);
}

/* yajl's own message, on one line. */
static void yajl_message(struct jt_parser *p, const unsigned char *text, size_t len)
{
	unsigned char *m = yajl_get_error(p->yajl, 0, text, len);
	size_t n;

	snprintf(p->err, sizeof(p->err), "not JSON: %s", m ? (const char *)m : "?");
	if (m)
		yajl_free_error(p->yajl, m);
	n = strcspn(p->err, "\r\n");
	p->err[n] = '\0';
	while (n && (p->err[n - 1] == ' ' || p->err[n - 1] == '.'))
		p->err[--n] = '\0';
	p->failed = true;
}

static size_t newlines(const char *s, size_t len)
{
	size_t n = 0;

	for (const char *q = s; (q = memchr(q, '\n', (size_t)(s + len - q))); q++)
		n++;
	return n;
}

static int account(struct jt_parser *p, const char *buf, size_t len)
{
	p->lines += newlines(buf, len);
	p->fed += len;
	p->buf = NULL;
	p->buf_len = 0;
	/* yajl holds a token cut by the end of buf: bound how long one runs (to a chunk) */
	p->tokenless = p->token_seen ? 0 : p->tokenless + len;
	for (size_t i = 0; i < len && !p->any_text; i++)
		p->any_text = !strchr(" \t\r\n", buf[i]);
	p->token_seen = false;
	if (p->tokenless > JT_TOKEN_MAX) {
		jt_fail(p, "no JSON token ends within %zu MiB: not a file rstatlat wrote",
			JT_TOKEN_MAX >> 20);
		return -1;
	}
	return 0;
}

/* NOLINTNEXTLINE(misc-no-recursion): once, with the bytes before a NUL, which hold none */
int jt_feed(struct jt_parser *p, const char *buf, size_t len)
{
	const char *nul = memchr(buf, 0, len);
	yajl_status st;

	if (nul) {
		/* no JSON text holds one: what comes before it is read, then it fails */
		if (!jt_feed(p, buf, (size_t)(nul - buf)))
			jt_fail(p, "a NUL byte: not a file rstatlat wrote");
		return -1;
	}
	p->buf = buf;
	p->buf_len = len;
	st = yajl_parse(p->yajl, (const unsigned char *)buf, len);
	if (st == yajl_status_error)
		yajl_message(p, (const unsigned char *)buf, len);
	if (st != yajl_status_ok)
		return -1;
	return account(p, buf, len);
}

int jt_finish(struct jt_parser *p)
{
	yajl_status st = yajl_complete_parse(p->yajl);

	/* yajl calls text of blanks alone cut short: it holds no value, that is all */
	if (st == yajl_status_error && !p->any_text)
		return 0;
	if (st == yajl_status_error) {
		/* all the text was good so far: it stopped inside a value */
		yajl_message(p, NULL, 0);
		p->truncated = true;
	}
	return st == yajl_status_ok ? 0 : -1;
}

bool jt_failed(const struct jt_parser *p)
{
	return p->failed;
}

const char *jt_error(const struct jt_parser *p)
{
	return p->err;
}

bool jt_truncated(const struct jt_parser *p)
{
	return p->truncated;
}

size_t jt_line(const struct jt_parser *p)
{
	size_t lines = p->lines, at = p->buf ? yajl_get_bytes_consumed(p->yajl) : 0;

	if (at > p->buf_len)
		at = p->buf_len;
	return lines + (at ? newlines(p->buf, at) : 0) + 1;
}

const struct jt *jt_get(const struct jt *obj, const char *key)
{
	if (!jt_is(obj, JT_OBJECT))
		return NULL;
	/* the first byte first: most keys differ there, and a row looks up dozens */
	for (const struct jt *m = obj->kids.first; m; m = m->next)
		if (m->key[0] == key[0] && !strcmp(m->key, key))
			return m;
	return NULL;
}

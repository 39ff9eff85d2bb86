/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON text -> trees of values in an arena, parsed by yajl as it is read.
 * Why not a DOM library: a summary of thousands of cgroups is one line of
 * tens of MiB, integers run to 2^64-1, and each row is wanted alone. So
 * the elements of a top-level object's arrays named in stream_keys (the
 * rows) are handed over one at a time, as each is complete, and freed; the
 * rest of the object is handed over at its end with those arrays empty.
 * Memory is one row's tree and the object around it, however long the line.
 */
#ifndef RSTATLAT_JTREE_H
#define RSTATLAT_JTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jt_type { JT_NULL, JT_FALSE, JT_TRUE, JT_UINT, JT_NUMBER, JT_STRING, JT_ARRAY, JT_OBJECT };

/* One value; an element or a member links to the next of its container. */
struct jt {
	enum jt_type type;
	bool streamed;		/* an array whose elements went to the element callback */
	uint32_t n;		/* members or elements */
	const char *key;	/* a member's key */
	struct jt *next;
	union {
		uint64_t u;	/* JT_UINT: an integer of 0 to 2^64-1 */
		struct {
			const char *s;	/* NUL-terminated; no NUL inside */
			size_t len;
		} str;
		struct {
			struct jt *first, *last;
		} kids;
	};
};

/*
 * Limits: containers nest at most JT_DEPTH_MAX deep, an object holds at
 * most JT_MEMBERS_MAX keys, the trees held at once (the object around the
 * streamed elements and the element being read) take at most JT_TREE_MAX
 * bytes, and at most JT_TOKEN_MAX bytes (counted in the chunks fed) pass
 * without a token ending: a string that long, or that many blanks.
 */
#define JT_DEPTH_MAX	32
#define JT_MEMBERS_MAX	4096
#define JT_TREE_MAX	((size_t)256 << 20)
#define JT_TOKEN_MAX	((size_t)16 << 20)

struct jt_parser;

/*
 * The callbacks return 0 to go on, else the parse ends (jt_feed returns
 * -1 and the callback's own error stands). element: the i-th element of
 * the array under stream_keys[list] of the top-level object top (its
 * members so far). value: a whole top-level value.
 */
struct jt_handler {
	const char *const *stream_keys;
	int nstream_keys;
	int (*element)(void *ctx, const struct jt *top, int list, size_t i, const struct jt *v);
	int (*value)(void *ctx, const struct jt *v);
	void *ctx;
};

struct jt_parser *jt_parser_new(const struct jt_handler *h);
void jt_parser_free(struct jt_parser *p);
/*
 * Feeds the next len bytes (a NUL byte among them fails there: no JSON
 * text holds one); at the end, jt_finish. Both return 0, or -1: the error
 * is the callback's, or jt_error's when jt_failed says so.
 */
int jt_feed(struct jt_parser *p, const char *buf, size_t len);
int jt_finish(struct jt_parser *p);
bool jt_failed(const struct jt_parser *p);
const char *jt_error(const struct jt_parser *p);
/* The line (from 1) of the text the parser has reached: for messages. */
size_t jt_line(const struct jt_parser *p);
/* Whether the text ended inside a value (a file cut short). */
bool jt_truncated(const struct jt_parser *p);

/* Member key of an object; NULL when absent or obj is not an object. */
const struct jt *jt_get(const struct jt *obj, const char *key);

#define jt_foreach(arr, i, v) \
	for ((i) = 0, (v) = (arr)->type == JT_ARRAY ? (arr)->kids.first : NULL; (v); \
	     (v) = (v)->next, (i)++)

static inline bool jt_is(const struct jt *v, enum jt_type t)
{
	return v && v->type == t;
}

static inline bool jt_is_bool(const struct jt *v)
{
	return jt_is(v, JT_TRUE) || jt_is(v, JT_FALSE);
}

#endif

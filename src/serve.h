/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Serving the exposition: GET /metrics over HTTP (libmicrohttpd, its own
 * thread) and the node_exporter textfile. Both take finished text; neither
 * knows how it was made.
 */
#ifndef RSTATLAT_SERVE_H
#define RSTATLAT_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "prom.h"

struct metrics_server;

/* Where to listen: "PORT" (127.0.0.1), "ADDR:PORT", "[ADDR6]:PORT". */
struct listen_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	char shown[64];		/* as given back in messages, "127.0.0.1:9471" */
};

/* Returns 0, or -1 with *why set (a usage error). */
int listen_addr_parse(const char *s, struct listen_addr *a, const char **why);

/*
 * Opens libmicrohttpd, binds and starts serving (503 until the first
 * publish). Returns NULL with *why set: bind's error (in use, a
 * privileged port), or the library's.
 */
struct metrics_server *metrics_serve(const struct listen_addr *a, const char **why);

/*
 * Replaces what /metrics serves: text, and pb (the protobuf format, or
 * NULL: none) to scrapers that ask for it. Takes both (malloced), even on
 * failure.
 */
int metrics_publish(struct metrics_server *s, char *text, size_t len, char *pb, size_t pb_len);

/* Whether a scraper asked for the protobuf format lately: make it with the text. */
bool metrics_protobuf_wanted(struct metrics_server *s, uint64_t now_ns);

/* Whether a protobuf scrape waits for a refresh: the main loop makes one now. */
bool metrics_refresh_wanted(struct metrics_server *s, uint64_t now_ns);

/* The main loop has ended: a protobuf scrape gets what there is, without waiting. */
void metrics_refreshes_over(struct metrics_server *s);

/*
 * Whether an Accept header asks for the protobuf format (delimited
 * MetricFamily) at least as much as for text; NULL: no.
 */
bool accept_prefers_protobuf(const char *accept);

/* What the endpoint answered so far. */
void metrics_counts(struct metrics_server *s, struct prom_http_counts *out);

void metrics_stop(struct metrics_server *s);

/*
 * Replaces path with text atomically: a temporary file in the same
 * directory, then rename(2), so a reader sees the old file or the new one,
 * whole; a PATH that is there and not a regular file is never replaced
 * (-EEXIST). Returns 0 or -errno.
 */
int textfile_write(const char *path, const char *text, size_t len);

#endif

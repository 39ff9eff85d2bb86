// SPDX-License-Identifier: GPL-2.0
/*
 * GET /metrics and the textfile (serve.h). The endpoint serves the last
 * published text: a scrape never waits for the collector, and a slow or
 * hostile client never holds the collection loop, which only swaps a
 * pointer under a mutex.
 *
 * libmicrohttpd is opened only when serving: Debian's links GnuTLS, whose
 * libraries and start-up cost about 2.5 MiB of resident memory that a
 * table or JSON run has no use for.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <microhttpd.h>
#include "clock.h"
#include "fmt.h"
#include "outfile.h"
#include "serve.h"

/* A scrape is small: anything bigger than this in headers is refused (431). */
#define CONN_MEMORY_BYTES	(32 * 1024)
/*
 * Prometheus needs one or two; beyond this, connections are refused. One
 * peer holds at most PEER_CONNECTIONS of them, so a peer that opens many
 * cannot lock out a scraper from another address.
 */
#define MAX_CONNECTIONS		128
#define PEER_CONNECTIONS	16
/* A client that sends nothing for this long is closed (slow or half-open). */
#define CONN_TIMEOUT_S		10
/*
 * A request's headers must be whole this long after its connection opened:
 * libmicrohttpd's own timeout is idle time, which a client sending a line
 * every few seconds never reaches. The watchdog shuts such a connection
 * down, and libmicrohttpd closes it. After an answer the next request has
 * the idle timeout on top, so that a kept-alive scraper that just waits is
 * closed as idle, not counted as slow.
 */
#define HEADER_DEADLINE_NS	(5 * 1000000000ULL)
#define NEXT_REQUEST_NS		(CONN_TIMEOUT_S * 1000000000ULL + HEADER_DEADLINE_NS)

static const char content_type[] = "text/plain; version=0.0.4; charset=utf-8";
static const char protobuf_type[] = "application/vnd.google.protobuf; "
				    "proto=io.prometheus.client.MetricFamily; encoding=delimited";
/*
 * The protobuf format is made for each refresh while a scraper asked for
 * it this recently (metrics_protobuf_wanted): a fleet that scrapes text
 * pays nothing for it, and one curl asking for it pays a few minutes.
 * A scrape that asks while none is made waits for the refresh it calls
 * for (metrics_refresh_wanted), this long at most, and then gets text.
 */
#define PROTOBUF_WANTED_NS	(600ULL * 1000000000)
#define PROTOBUF_FIRST_WAIT_NS	(2 * 1000000000ULL)

/* What rstatlat calls of libmicrohttpd, looked up once by dlopen. */
static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer) *create_response;
	__typeof__(MHD_add_response_header) *add_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_lookup_connection_value) *lookup_value;
	__typeof__(MHD_get_connection_info) *connection_info;
} mhd;

#define MHD_SONAME "libmicrohttpd.so.12"

#ifdef RSTATLAT_STATIC
/*
 * make static links a libmicrohttpd built without HTTPS (no GnuTLS):
 * a static program cannot dlopen, and has none of it to save.
 */
static int mhd_open(const char **why)
{
	(void)why;
	mhd.stop_daemon = MHD_stop_daemon;
	mhd.create_response = MHD_create_response_from_buffer;
	mhd.add_header = MHD_add_response_header;
	mhd.queue_response = MHD_queue_response;
	mhd.destroy_response = MHD_destroy_response;
	mhd.lookup_value = MHD_lookup_connection_value;
	mhd.connection_info = MHD_get_connection_info;
	mhd.start_daemon = MHD_start_daemon;
	return 0;
}
#else
static int mhd_open(const char **why)
{
	void *h;

	if (mhd.start_daemon)
		return 0;
	h = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		*why = "cannot open " MHD_SONAME " (libmicrohttpd12)";
		return -1;
	}
#define LOOKUP(field, sym) (mhd.field = (__typeof__(mhd.field))dlsym(h, #sym))
	if (!LOOKUP(stop_daemon, MHD_stop_daemon) ||
	    !LOOKUP(create_response, MHD_create_response_from_buffer) ||
	    !LOOKUP(add_header, MHD_add_response_header) ||
	    !LOOKUP(queue_response, MHD_queue_response) ||
	    !LOOKUP(destroy_response, MHD_destroy_response) ||
	    !LOOKUP(lookup_value, MHD_lookup_connection_value) ||
	    !LOOKUP(connection_info, MHD_get_connection_info) ||
	    !LOOKUP(start_daemon, MHD_start_daemon)) {
		mhd.start_daemon = NULL;
		*why = MHD_SONAME " lacks a function rstatlat needs";
		return -1;
	}
#undef LOOKUP
	return 0;
}
#endif

/* A connection while it is open: its socket_context. */
struct conn_watch {
	int fd;
	uint64_t deadline_ns;	/* CLOCK_MONOTONIC; 0: its request's headers are in */
	struct conn_watch *prev, *next;
};

struct metrics_server {
	struct MHD_Daemon *daemon;
	/* the watchdog over the connections' header deadlines */
	pthread_t watchdog;
	bool watching, stopping;
	pthread_mutex_t watch_lock;
	pthread_cond_t watch_wake;
	struct conn_watch *watched;	/* open connections, a list */
	atomic_uint_fast64_t slow_closed;
	pthread_mutex_t lock;
	struct MHD_Response *current;	/* what /metrics answers; NULL before the first */
	struct MHD_Response *current_pb; /* the same in protobuf, when made */
	atomic_uint_fast64_t pb_asked_ns; /* CLOCK_MONOTONIC of the last ask for it; 0: never */
	atomic_bool refresh_wanted;	/* a protobuf scrape waits for one (current_pb NULL) */
	atomic_bool refreshes_over;	/* the main loop has ended: nothing to wait for */
	pthread_cond_t published;	/* with lock: a new current */
	struct MHD_Response *not_found, *bad_method, *not_yet;
	atomic_uint_fast64_t ok, not_found_n, bad_method_n;
	int fd;
};

/* ---- address ---- */

int listen_addr_parse(const char *s, struct listen_addr *a, const char **why)
{
	char host[INET6_ADDRSTRLEN + 2] = "127.0.0.1";
	const char *port = s, *colon = strrchr(s, ':');
	uint64_t p;

	memset(a, 0, sizeof(*a));
	if (colon) {
		size_t hl = (size_t)(colon - s);

		if (hl == 0 || hl >= sizeof(host)) {
			*why = "expected PORT, ADDR:PORT or [ADDR6]:PORT";
			return -1;
		}
		memcpy(host, s, hl);
		host[hl] = '\0';
		port = colon + 1;
	}
	if (parse_uint(port, 65535, &p) || p == 0) {
		*why = "the port must be a number from 1 to 65535";
		return -1;
	}
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->ss;

		host[strlen(host) - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &in6->sin6_addr) != 1) {
			*why = "not an IPv6 address";
			return -1;
		}
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)p);
		a->len = sizeof(*in6);
		snprintf(a->shown, sizeof(a->shown), "[%s]:%u", host + 1, (unsigned int)p);
		return 0;
	}
	struct sockaddr_in *in = (struct sockaddr_in *)&a->ss;

	if (inet_pton(AF_INET, host, &in->sin_addr) != 1) {
		*why = "not a numeric IPv4 address (IPv6 goes in brackets)";
		return -1;
	}
	in->sin_family = AF_INET;
	in->sin_port = htons((uint16_t)p);
	a->len = sizeof(*in);
	snprintf(a->shown, sizeof(a->shown), "%s:%u", host, (unsigned int)p);
	return 0;
}

/* ---- HTTP ---- */

/* The q of one media range's parameters ("q=0.5"), 1 when not given. */
static double media_q(const char *params, size_t len)
{
	for (const char *at = params; at && at < params + len; ) {
		at += strspn(at, "; \t");
		if (at[0] == 'q' && at[1] == '=')
			return strtod(at + 2, NULL);
		at = memchr(at, ';', (size_t)(params + len - at));
	}
	return 1;
}

static bool has_param(const char *params, size_t len, const char *param)
{
	size_t pl = strlen(param);

	for (const char *at = params; at && at < params + len; ) {
		at += strspn(at, "; \t");
		if ((size_t)(params + len - at) >= pl && !strncasecmp(at, param, pl) &&
		    strchr("; \t,", at[pl]))
			return true;
		at = memchr(at, ';', (size_t)(params + len - at));
	}
	return false;
}

bool accept_prefers_protobuf(const char *accept)
{
	static const char pb[] = "application/vnd.google.protobuf";
	double q_pb = 0, q_text = 0;

	for (const char *at = accept; at && *at; ) {
		size_t len = strcspn(at, ","), tl;
		const char *type = at + strspn(at, " \t"), *params;

		tl = strcspn(type, "; \t,");
		params = type + tl;
		len -= (size_t)(params - at);
		if (tl == sizeof(pb) - 1 && !strncasecmp(type, pb, tl)) {
			if (has_param(params, len, "proto=io.prometheus.client.MetricFamily") &&
			    has_param(params, len, "encoding=delimited"))
				q_pb = fmax(q_pb, media_q(params, len));
		} else if ((tl == 10 && !strncasecmp(type, "text/plain", tl)) ||
			   (tl == 6 && !strncasecmp(type, "text/*", tl)) ||
			   (tl == 3 && !strncmp(type, "*/*", tl))) {
			q_text = fmax(q_text, media_q(params, len));
		}
		at = strchr(at, ',');
		at = at ? at + 1 : NULL;
	}
	return q_pb > 0 && q_pb >= q_text;
}

/* ---- the header deadline ---- */

static struct conn_watch *watch_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		mhd.connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* The connection's headers are due within ns from now; 0: they are in. */
static void watch_set(struct metrics_server *s, struct conn_watch *w, uint64_t ns)
{
	if (!w)
		return;
	pthread_mutex_lock(&s->watch_lock);
	w->deadline_ns = ns ? clock_ns(CLOCK_MONOTONIC) + ns : 0;
	if (ns)
		pthread_cond_signal(&s->watch_wake);	/* it may be the nearest */
	pthread_mutex_unlock(&s->watch_lock);
}

static void connection_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
			      enum MHD_ConnectionNotificationCode code)
{
	struct metrics_server *s = cls;
	struct conn_watch *w = *socket_context;
	const union MHD_ConnectionInfo *ci;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = mhd.connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		w = ci ? calloc(1, sizeof(*w)) : NULL;
		if (!w)
			return;	/* unwatched: the idle timeout still closes it */
		w->fd = ci->connect_fd;
		pthread_mutex_lock(&s->watch_lock);
		w->deadline_ns = clock_ns(CLOCK_MONOTONIC) + HEADER_DEADLINE_NS;
		w->next = s->watched;
		if (w->next)
			w->next->prev = w;
		s->watched = w;
		pthread_cond_signal(&s->watch_wake);
		pthread_mutex_unlock(&s->watch_lock);
		*socket_context = w;
		return;
	}
	/*
	 * Closed: libmicrohttpd says so before it closes the socket, so once
	 * unlinked here the watchdog never shuts down a descriptor reused by
	 * another connection.
	 */
	if (!w)
		return;
	pthread_mutex_lock(&s->watch_lock);
	if (w->prev)
		w->prev->next = w->next;
	else
		s->watched = w->next;
	if (w->next)
		w->next->prev = w->prev;
	pthread_mutex_unlock(&s->watch_lock);
	free(w);
	*socket_context = NULL;
}

/* Answered: the next request on a kept-alive connection has a deadline of its own. */
static void request_completed(void *cls, struct MHD_Connection *conn, void **state,
			      enum MHD_RequestTerminationCode code)
{
	(void)state;
	(void)code;
	watch_set(cls, watch_of(conn), NEXT_REQUEST_NS);
}

/*
 * Shuts down each connection at its deadline, until stopped. It sleeps
 * until the nearest deadline, or without one until a deadline is set: an
 * exporter between scrapes wakes it for nothing.
 */
static void *watchdog(void *arg)
{
	struct metrics_server *s = arg;

	pthread_mutex_lock(&s->watch_lock);
	while (!s->stopping) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC), next = UINT64_MAX;
		struct timespec at;

		for (struct conn_watch *w = s->watched; w; w = w->next) {
			if (!w->deadline_ns)
				continue;
			if (now < w->deadline_ns) {
				next = w->deadline_ns < next ? w->deadline_ns : next;
				continue;
			}
			shutdown(w->fd, SHUT_RDWR);
			w->deadline_ns = 0;
			atomic_fetch_add(&s->slow_closed, 1);
		}
		if (next == UINT64_MAX) {
			pthread_cond_wait(&s->watch_wake, &s->watch_lock);
			continue;
		}
		at = ns_timespec(next);
		pthread_cond_timedwait(&s->watch_wake, &s->watch_lock, &at);
	}
	pthread_mutex_unlock(&s->watch_lock);
	return NULL;
}

/* A condition waited on until a CLOCK_MONOTONIC time, as the deadlines are. */
static void monotonic_cond_init(pthread_cond_t *c)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(c, &attr);
	pthread_condattr_destroy(&attr);
}

/* The lock and the wake-up, made with the server. */
static void watch_init(struct metrics_server *s)
{
	pthread_mutex_init(&s->watch_lock, NULL);
	monotonic_cond_init(&s->watch_wake);
}

static int watchdog_start(struct metrics_server *s)
{
	int err = pthread_create(&s->watchdog, NULL, watchdog, s);

	s->watching = !err;
	return err;
}

static void watchdog_stop(struct metrics_server *s)
{
	if (!s->watching)
		return;
	pthread_mutex_lock(&s->watch_lock);
	s->stopping = true;
	pthread_cond_signal(&s->watch_wake);
	pthread_mutex_unlock(&s->watch_lock);
	pthread_join(s->watchdog, NULL);
	s->watching = false;
}

static struct MHD_Response *text_response(const char *body)
{
	struct MHD_Response *r = mhd.create_response(strlen(body), (void *)body,
						     MHD_RESPMEM_PERSISTENT);

	if (r)
		mhd.add_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	return r;
}

/*
 * The first protobuf scrape in a while (s->lock held): the main loop is
 * asked for a refresh now, which makes one, and the scrape waits for it.
 * It holds up the server's thread for a refresh (a few ms, 100 ms at
 * most before the loop sees the ask), once.
 */
static void first_protobuf_wait(struct metrics_server *s)
{
	struct timespec at = ns_timespec(clock_ns(CLOCK_MONOTONIC) + PROTOBUF_FIRST_WAIT_NS);

	if (atomic_load(&s->refreshes_over))
		return;
	atomic_store(&s->refresh_wanted, true);
	while (!s->current_pb &&
	       pthread_cond_timedwait(&s->published, &s->lock, &at) != ETIMEDOUT)
		;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	struct metrics_server *s = cls;
	static int seen;
	struct MHD_Response *r;
	enum MHD_Result ret;
	bool pb;

	(void)version;
	(void)upload;
	/* called once the headers are in: no deadline until this request is answered */
	if (!*state)
		watch_set(s, watch_of(conn), 0);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		atomic_fetch_add(&s->bad_method_n, 1);
		return mhd.queue_response(conn, MHD_HTTP_METHOD_NOT_ALLOWED, s->bad_method);
	}
	if (strcmp(url, "/metrics")) {
		atomic_fetch_add(&s->not_found_n, 1);
		return mhd.queue_response(conn, MHD_HTTP_NOT_FOUND, s->not_found);
	}
	/* a GET may still carry a body: read and drop it, then answer */
	if (!*state) {
		*state = &seen;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;
		return MHD_YES;
	}
	pb = accept_prefers_protobuf(mhd.lookup_value(conn, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_ACCEPT));
	if (pb)
		atomic_store(&s->pb_asked_ns, clock_ns(CLOCK_MONOTONIC));
	pthread_mutex_lock(&s->lock);
	if (pb && !s->current_pb)
		first_protobuf_wait(s);
	/* what the wait did not bring is text: Prometheus takes either */
	r = pb && s->current_pb ? s->current_pb : s->current;
	/* never a 200 without figures: Prometheus would keep an empty scrape */
	ret = r ? mhd.queue_response(conn, MHD_HTTP_OK, r) :
		  mhd.queue_response(conn, MHD_HTTP_SERVICE_UNAVAILABLE, s->not_yet);
	pthread_mutex_unlock(&s->lock);
	if (r)
		atomic_fetch_add(&s->ok, 1);
	return ret;
}

static int listen_socket(const struct listen_addr *a)
{
	int fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (a->ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&a->ss, a->len) || listen(fd, 64)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

struct metrics_server *metrics_serve(const struct listen_addr *a, const char **why)
{
	struct metrics_server *s;

	if (mhd_open(why))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		*why = strerror(ENOMEM);
		return NULL;
	}
	s->fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	monotonic_cond_init(&s->published);
	watch_init(s);
	s->fd = listen_socket(a);	/* rstatlat's own: bind's error is what users need */
	if (s->fd < 0) {
		*why = strerror(errno);
		goto fail;
	}
	s->not_found = text_response("rstatlat serves only /metrics\n");
	s->bad_method = text_response("rstatlat answers only GET and HEAD\n");
	s->not_yet = text_response("rstatlat has no figures yet\n");
	if (!s->not_found || !s->bad_method || !s->not_yet) {
		*why = strerror(ENOMEM);
		goto fail;
	}
	mhd.add_header(s->bad_method, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (watchdog_start(s)) {
		*why = "cannot start the connection watchdog thread";
		goto fail;
	}
	s->daemon = mhd.start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, answer, s,
				     MHD_OPTION_LISTEN_SOCKET, s->fd,
				     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MAX_CONNECTIONS,
				     MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				     (unsigned int)PEER_CONNECTIONS,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONN_TIMEOUT_S,
				     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY_BYTES,
				     MHD_OPTION_NOTIFY_CONNECTION, connection_notify, s,
				     MHD_OPTION_NOTIFY_COMPLETED, request_completed, s,
				     MHD_OPTION_END);
	if (!s->daemon) {
		*why = "libmicrohttpd could not start its thread";
		goto fail;
	}
	s->fd = -1;	/* the daemon's now: it closes it when stopped */
	return s;
fail:
	metrics_stop(s);
	return NULL;
}

/* A response that frees body when done with it (at once on failure), or NULL. */
static struct MHD_Response *body_response(char *body, size_t len, const char *type)
{
	struct MHD_Response *r;

	if (!body)
		return NULL;
	r = mhd.create_response(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r)
		free(body);
	else
		mhd.add_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	return r;
}

int metrics_publish(struct metrics_server *s, char *text, size_t len, char *pb, size_t pb_len)
{
	struct MHD_Response *r = body_response(text, len, content_type), *old, *old_pb;
	struct MHD_Response *r_pb = body_response(pb, pb_len, protobuf_type);

	/* a refresh that made protobuf answers the ask, made whole or not */
	if (pb)
		atomic_store(&s->refresh_wanted, false);
	if (!r) {
		if (r_pb)
			mhd.destroy_response(r_pb);
		return -ENOMEM;
	}
	pthread_mutex_lock(&s->lock);
	old = s->current;
	old_pb = s->current_pb;
	s->current = r;
	s->current_pb = r_pb;
	pthread_cond_broadcast(&s->published);
	pthread_mutex_unlock(&s->lock);
	/* responses are reference counted: one being sent lives until it is sent */
	if (old)
		mhd.destroy_response(old);
	if (old_pb)
		mhd.destroy_response(old_pb);
	return 0;
}

bool metrics_refresh_wanted(struct metrics_server *s, uint64_t now_ns)
{
	return atomic_load(&s->refresh_wanted) && metrics_protobuf_wanted(s, now_ns);
}

void metrics_refreshes_over(struct metrics_server *s)
{
	if (s)
		atomic_store(&s->refreshes_over, true);
}

bool metrics_protobuf_wanted(struct metrics_server *s, uint64_t now_ns)
{
	uint64_t asked = atomic_load(&s->pb_asked_ns);

	return asked && now_ns - asked < PROTOBUF_WANTED_NS;
}

void metrics_counts(struct metrics_server *s, struct prom_http_counts *out)
{
	out->present = true;
	out->ok = atomic_load(&s->ok);
	out->not_found = atomic_load(&s->not_found_n);
	out->bad_method = atomic_load(&s->bad_method_n);
	out->slow_closed = atomic_load(&s->slow_closed);
}

void metrics_stop(struct metrics_server *s)
{
	if (!s)
		return;
	/* the daemon first: its connections are closed (and unwatched) before the watchdog goes */
	if (s->daemon)
		mhd.stop_daemon(s->daemon);
	watchdog_stop(s);
	if (s->fd >= 0)
		close(s->fd);
	if (s->current)
		mhd.destroy_response(s->current);
	if (s->current_pb)
		mhd.destroy_response(s->current_pb);
	if (s->not_found)
		mhd.destroy_response(s->not_found);
	if (s->bad_method)
		mhd.destroy_response(s->bad_method);
	if (s->not_yet)
		mhd.destroy_response(s->not_yet);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->published);
	pthread_cond_destroy(&s->watch_wake);
	pthread_mutex_destroy(&s->watch_lock);
	free(s);
}

/* ---- textfile ---- */

int textfile_write(const char *path, const char *text, size_t len)
{
	struct outfile o;
	int err = outfile_open(&o, path, 0644);

	if (err)
		return err;
	if (fwrite(text, 1, len, o.f) != len) {
		err = errno ? -errno : -EIO;
		outfile_abort(&o);
		return err;
	}
	return outfile_commit(&o);
}

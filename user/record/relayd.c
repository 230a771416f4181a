// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A client of lttng-relayd: the control and data connections, and the
 * messages lttng-consumerd sends, as lttng-tools 2.13 lays them out
 * (src/common/sessiond-comm/relayd.h; its relayd takes them in
 * src/bin/lttng-relayd/main.c).  Every integer is big-endian and every
 * structure packed, so messages are built byte by byte here.
 *
 * Which protocol.  The client says 2.10 and the relayd answers with its
 * own version; both then speak the lower minor.  From 2.11 on a session
 * needs a UUID and a trace chunk before its streams; at 2.8 to 2.10 it
 * needs neither, indexes carry the stream instance and packet sequence
 * number, and the client names each stream's directory itself.  A relayd
 * below 2.8 or of another major version is refused.
 *
 * The order.  VERSION, CREATE_SESSION, one ADD_STREAM per stream file and
 * one for "metadata" in the same directory, STREAMS_SENT (live readers see
 * the streams from then on), SEND_METADATA (on the control connection, no
 * reply), then for each packet its bytes on the data connection and its
 * index (SEND_INDEX) on the control one: the relayd writes a packet's
 * index entry once both have come, and a live reader reads only packets
 * indexed.  At the end DATA_PENDING for each stream that sent packets,
 * until the relayd says it has them all (the data connection's bytes may
 * still be in its socket when the control connection's replies have come),
 * then CLOSE_STREAM with each stream's last sequence number.
 *
 * Every command but SEND_METADATA has one reply, LTTNG_OK (10) on success.
 * Each command has one deadline, TR_RELAY_TIMEOUT_S from its start, for
 * all its sends and its reply (a packet and its index are one; so is the
 * whole wait for DATA_PENDING's zeros): a relayd that stops reading, or
 * trickles a byte now and then, ends the stream (the caller says so)
 * rather than the recording.  The sockets do not block: every wait is a
 * ppoll() that lets the caller's stop signals in, and gives up when the
 * caller says so (record/relayd.h, struct tr_relay_stop).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <endian.h>

#include <tracer/layout.h>

#include "record/relayd.h"
#include "layout/ubuf.h"

#define PROTOCOL_MAJOR		2
#define PROTOCOL_MINOR		10
#define OLDEST_MINOR		8	/* indexes with instance and sequence number */
#define PENDING_NAP_MS		10	/* between DATA_PENDING questions */
#define TEXT_OF(n)		DIGITS_OF(n)
#define DIGITS_OF(n)		#n

enum {			/* enum lttcomm_relayd_command */
	ADD_STREAM = 1, CREATE_SESSION = 2, VERSION = 5, SEND_METADATA = 6, CLOSE_STREAM = 7,
	DATA_PENDING = 8, SEND_INDEX = 13, STREAMS_SENT = 16,
};

#define LTTNG_OK		10
#define SESSION_NAME_MAX	255	/* struct lttcomm_relayd_create_session_2_4 */
#define HOST_NAME_MAX_RELAY	64
#define STREAM_NAME_MAX		264	/* struct lttcomm_relayd_add_stream_2_2 */
#define STREAM_PATH_MAX		4096
#define PATH_LIMIT		255	/* the relayd checks paths against LTTNG_NAME_MAX */

struct relay_stream {
	__u64 handle;
	__u64 next_seq;		/* net_seq_num of its next packet */
};

struct tr_relay {
	int control, data;
	int broken;		/* a send or reply failed: no goodbye, just close */
	struct tr_relay_stop stop;
	__u64 deadline_ns;	/* the current command's, CLOCK_MONOTONIC */
	struct relay_stream *streams;
	unsigned int nstreams;
	char path[PATH_LIMIT];	/* HOST/SESSION-DATE */
};

/* --- Bytes -------------------------------------------------------------------- */

struct msg {
	unsigned char bytes[STREAM_NAME_MAX + STREAM_PATH_MAX + 16];
	size_t len;
};

static void put64(struct msg *m, __u64 v)
{
	v = htobe64(v);
	memcpy(m->bytes + m->len, &v, 8);
	m->len += 8;
}

static void put32(struct msg *m, __u32 v)
{
	v = htobe32(v);
	memcpy(m->bytes + m->len, &v, 4);
	m->len += 4;
}

/* A NUL-padded char[size] field (text is shorter: its callers' limits). */
static void put_text(struct msg *m, const char *text, size_t size)
{
	size_t len = strlen(text);

	memset(m->bytes + m->len, 0, size);
	memcpy(m->bytes + m->len, text, len < size ? len : size - 1);
	m->len += size;
}

static __u64 get64(const unsigned char *p)
{
	__u64 v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

static __u32 get32(const unsigned char *p)
{
	__u32 v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

/* --- Waiting ----------------------------------------------------------------- */

/* A command starts: its deadline is TR_RELAY_TIMEOUT_S from now. */
static void start_command(struct tr_relay *r)
{
	r->deadline_ns = tr_clock_monotonic_ns() + TR_RELAY_TIMEOUT_S * 1000000000ull;
}

/*
 * Sleep until fd has one of events (fd -1: never), or nap_ms passed (-1:
 * no nap).  0 then; -ETIMEDOUT at the command's deadline, -ECANCELED when
 * the caller gives up (checked before each sleep, which alone lets its
 * signals in), or -errno.
 */
static int wait_ready(const struct tr_relay *r, int fd, short events, long nap_ms)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		__u64 now = tr_clock_monotonic_ns(), left_ns;
		int napping, n;

		if (r->stop.give_up && *r->stop.give_up)
			return -ECANCELED;
		if (now >= r->deadline_ns)
			return -ETIMEDOUT;
		left_ns = r->deadline_ns - now;
		napping = nap_ms >= 0 && left_ns > nap_ms * 1000000ull;
		if (napping)
			left_ns = nap_ms * 1000000ull;
		n = ppoll(&p, 1, &(struct timespec) { left_ns / 1000000000, left_ns % 1000000000 },
			  r->stop.sigmask);
		if (n > 0 || (n == 0 && napping))
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

/* The socket would have blocked (or a signal came): wait for it. */
static int would_block(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

/* --- Connections -------------------------------------------------------------- */

static int send_all(const struct tr_relay *r, int fd, const struct iovec *iov, int n)
{
	struct iovec v[3];
	int i, err;

	memcpy(v, iov, n * sizeof(*v));
	for (i = 0; i < n;) {
		struct msghdr msg = { .msg_iov = v + i, .msg_iovlen = n - i };
		ssize_t sent = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (sent < 0 && !would_block())
			return -errno;
		if (sent < 0) {
			err = wait_ready(r, fd, POLLOUT, -1);
			if (err)
				return err;
			continue;
		}
		for (; i < n && (size_t)sent >= v[i].iov_len; i++)
			sent -= v[i].iov_len;
		if (i < n) {
			v[i].iov_base = (char *)v[i].iov_base + sent;
			v[i].iov_len -= sent;
		}
	}
	return 0;
}

static int recv_all(const struct tr_relay *r, int fd, void *buf, size_t len)
{
	size_t got = 0;
	int err;

	while (got < len) {
		ssize_t n = recv(fd, (char *)buf + got, len - got, MSG_DONTWAIT);

		if (n == 0)
			return -ECONNRESET;
		if (n < 0 && !would_block())
			return -errno;
		if (n > 0) {
			got += n;
			continue;
		}
		err = wait_ready(r, fd, POLLIN, -1);
		if (err)
			return err;
	}
	return 0;
}

/* A command (struct lttcomm_relayd_hdr, then the payload), without its reply. */
static int command(struct tr_relay *r, __u32 cmd, const void *payload, size_t len,
		   const void *more, size_t more_len)
{
	struct msg h = { .len = 0 };
	struct iovec iov[3] = {
		{ h.bytes, 24 }, { (void *)payload, len }, { (void *)more, more_len },
	};

	put64(&h, 0);			/* circuit_id */
	put64(&h, len + more_len);
	put32(&h, cmd);
	put32(&h, 0);			/* cmd_version */
	return send_all(r, r->control, iov, more_len ? 3 : 2);
}

/* A command whose reply is one return code: 0 when LTTNG_OK, else -EPROTO. */
static int command_ok(struct tr_relay *r, __u32 cmd, const struct msg *m)
{
	unsigned char reply[4];
	int err = command(r, cmd, m->bytes, m->len, NULL, 0);

	if (!err)
		err = recv_all(r, r->control, reply, sizeof(reply));
	return err ? err : get32(reply) == LTTNG_OK ? 0 : -EPROTO;
}

/* err, remembered: a connection that failed once is not waited on again. */
static int failed(struct tr_relay *r, int err)
{
	if (err)
		r->broken = 1;
	return err;
}

/* Connect fd to a's address within the deadline.  0 or -errno. */
static int connect_within(const struct tr_relay *r, int fd, const struct addrinfo *a)
{
	int soerr = 0, err;
	socklen_t len = sizeof(soerr);

	if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	err = wait_ready(r, fd, POLLOUT, -1);
	if (!err && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len))
		err = -errno;
	return err ? err : -soerr;
}

/* A connection to host's port, not blocking, within one deadline: its fd, or -errno with why. */
static int connect_to(struct tr_relay *r, const char *host, unsigned int port, char *why,
		      size_t whylen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *a;
	char service[16];
	int fd = -1, err, on = 1;

	snprintf(service, sizeof(service), "%u", port);
	err = getaddrinfo(host, service, &hints, &ai);
	if (err) {
		snprintf(why, whylen, "cannot resolve %s: %s", host, gai_strerror(err));
		return -EHOSTUNREACH;
	}
	start_command(r);
	for (a = ai, err = -EHOSTUNREACH; a && fd < 0 && err != -ETIMEDOUT && err != -ECANCELED;
	     a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
		if (fd < 0)
			continue;
		err = connect_within(r, fd, a);
		if (!err)
			continue;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		snprintf(why, whylen, "cannot connect to %s port %u: %s", host, port,
			 tr_relay_strerror(err));
		return err;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	return fd;
}

const char *tr_relay_strerror(int err)
{
	if (err == -ETIMEDOUT)
		return "timed out after " TEXT_OF(TR_RELAY_TIMEOUT_S) " s";
	if (err == -ECANCELED)
		return "stopped waiting at a signal";
	return strerror(-err);
}

/* --- The session -------------------------------------------------------------- */

int tr_relay_parse_url(const char *text, struct tr_relay_url *url, char *why, size_t whylen)
{
	const char *rest, *colon;
	unsigned int ports[2] = { TR_RELAY_CONTROL_PORT, TR_RELAY_DATA_PORT }, i;

	if (!strncmp(text, "net://", 6))
		rest = text + 6;
	else if (!strncmp(text, "net6://", 7))
		rest = text + 7;
	else {
		snprintf(why, whylen, "an lttng relay URL is net://HOST[:CONTROL_PORT[:DATA_PORT]]");
		return -EINVAL;
	}
	/* [v6 address] or a name or v4 address, up to the first ':'. */
	if (*rest == '[') {
		colon = strchr(rest, ']');
		if (!colon || (colon[1] && colon[1] != ':'))
			goto bad;
		snprintf(url->host, sizeof(url->host), "%.*s", (int)(colon - rest - 1), rest + 1);
		colon++;
	} else {
		colon = strchrnul(rest, ':');
		snprintf(url->host, sizeof(url->host), "%.*s", (int)(colon - rest), rest);
	}
	if (!*url->host || strchr(url->host, '/'))
		goto bad;
	for (i = 0; i < 2 && *colon == ':'; i++) {
		char *end;
		unsigned long port = strtoul(colon + 1, &end, 10);

		if (end == colon + 1 || !port || port > 65535 || (*end && *end != ':'))
			goto bad;
		ports[i] = port;
		colon = end;
	}
	if (*colon)
		goto bad;
	url->control_port = ports[0];
	url->data_port = ports[1];
	return 0;
bad:
	snprintf(why, whylen, "not an lttng relay URL: net://HOST[:CONTROL_PORT[:DATA_PORT]], ports 1 to 65535");
	return -EINVAL;
}

/* Both sides' versions; the lower minor is spoken (relayd.h, RELAYD_VERSION). */
static int agree_version(struct tr_relay *r, char *why, size_t whylen)
{
	struct msg m = { .len = 0 };
	unsigned char reply[8];
	__u32 major, minor, spoken;
	int err;

	put32(&m, PROTOCOL_MAJOR);
	put32(&m, PROTOCOL_MINOR);
	start_command(r);
	err = command(r, VERSION, m.bytes, m.len, NULL, 0);
	if (!err)
		err = recv_all(r, r->control, reply, sizeof(reply));
	if (err) {
		snprintf(why, whylen, "no answer to the protocol version: %s", tr_relay_strerror(err));
		return err;
	}
	major = get32(reply);
	minor = get32(reply + 4);
	/* 8 to 10 lay out every message this client sends alike. */
	spoken = minor < PROTOCOL_MINOR ? minor : PROTOCOL_MINOR;
	if (major != PROTOCOL_MAJOR || spoken < OLDEST_MINOR) {
		snprintf(why, whylen, "the relay speaks protocol %u.%u; tracer speaks %u.%u to %u.x (lttng-relayd 2.8 or newer)",
			 major, minor, PROTOCOL_MAJOR, OLDEST_MINOR, PROTOCOL_MAJOR);
		return -EPROTONOSUPPORT;
	}
	return 0;
}

/* A name the relayd takes as a directory name: no '/', not starting with '.'. */
static void path_safe(char *name)
{
	char *c;

	for (c = name; *c; c++)
		if (*c == '/')
			*c = '_';
	if (*name == '.')
		*name = '_';
}

static int create_session(struct tr_relay *r, const char *session, unsigned int live_us,
			  char *why, size_t whylen)
{
	char host[HOST_NAME_MAX_RELAY], name[SESSION_NAME_MAX], date[32];
	struct msg m = { .len = 0 };
	unsigned char reply[12];
	time_t now = time(NULL);
	struct tm tm;
	int err;

	if (gethostname(host, sizeof(host)))
		strcpy(host, "localhost");
	host[sizeof(host) - 1] = 0;
	snprintf(name, sizeof(name), "%s", session);
	path_safe(host);
	path_safe(name);
	strftime(date, sizeof(date), "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
	if ((size_t)snprintf(r->path, sizeof(r->path), "%s/%s-%s", host, name, date) >= sizeof(r->path)) {
		snprintf(why, whylen, "session name %s is too long for the relay's paths", session);
		return -ENAMETOOLONG;
	}
	put_text(&m, name, SESSION_NAME_MAX);
	put_text(&m, host, HOST_NAME_MAX_RELAY);
	put32(&m, live_us);
	put32(&m, 0);			/* not a snapshot: indexes are written */
	start_command(r);
	err = command(r, CREATE_SESSION, m.bytes, m.len, NULL, 0);
	if (!err)
		err = recv_all(r, r->control, reply, sizeof(reply));
	if (!err && get32(reply + 8) != LTTNG_OK)
		err = -EPROTO;
	if (err)
		snprintf(why, whylen, "the relay did not create session %s: %s", name,
			 err == -EPROTO ? "it refused" : tr_relay_strerror(err));
	return err;
}

int tr_relay_open(struct tr_relay **relay, const struct tr_relay_url *url,
		  const char *session, unsigned int live_us, const struct tr_relay_stop *stop,
		  char *why, size_t whylen)
{
	struct tr_relay *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return -ENOMEM;
	r->stop = *stop;
	r->control = connect_to(r, url->host, url->control_port, why, whylen);
	r->data = r->control < 0 ? -1 : connect_to(r, url->host, url->data_port, why, whylen);
	err = r->control < 0 ? r->control : r->data < 0 ? r->data : 0;
	if (!err)
		err = agree_version(r, why, whylen);
	if (!err)
		err = create_session(r, session, live_us, why, whylen);
	if (err) {
		tr_relay_close(r);
		return err;
	}
	*relay = r;
	return 0;
}

long long tr_relay_add_stream(struct tr_relay *r, const char *name)
{
	struct relay_stream *streams = realloc(r->streams, (r->nstreams + 1) * sizeof(*streams));
	struct msg m = { .len = 0 };
	unsigned char reply[12];
	int err;

	if (!streams)
		return -ENOMEM;
	r->streams = streams;
	put_text(&m, name, STREAM_NAME_MAX);
	put_text(&m, r->path, STREAM_PATH_MAX);
	put64(&m, 0);			/* tracefile_size: one file */
	put64(&m, 0);			/* tracefile_count */
	start_command(r);
	err = command(r, ADD_STREAM, m.bytes, m.len, NULL, 0);
	if (!err)
		err = recv_all(r, r->control, reply, sizeof(reply));
	if (err)
		return failed(r, err);
	if (get32(reply + 8) != LTTNG_OK)
		return -EPROTO;
	streams[r->nstreams] = (struct relay_stream) { .handle = get64(reply) };
	return r->nstreams++;
}

int tr_relay_streams_sent(struct tr_relay *r)
{
	struct msg none = { .len = 0 };

	start_command(r);
	return failed(r, command_ok(r, STREAMS_SENT, &none));
}

int tr_relay_metadata(struct tr_relay *r, unsigned int stream, const void *text, size_t len)
{
	struct msg m = { .len = 0 };

	put64(&m, r->streams[stream].handle);
	put32(&m, 0);			/* padding: none, text metadata */
	start_command(r);
	return failed(r, command(r, SEND_METADATA, m.bytes, m.len, text, len));
}

/* The index of a packet (struct lttcomm_relayd_index, 2.8 on); packet_size 0: a beacon. */
static int send_index(struct tr_relay *r, const struct relay_stream *st, __u64 seq,
		      const struct tr_packet_header *h)
{
	struct msg m = { .len = 0 };

	put64(&m, st->handle);
	put64(&m, seq);
	put64(&m, h->packet_size);
	put64(&m, h->content_size);
	put64(&m, h->timestamp_begin);
	put64(&m, h->timestamp_end);
	put64(&m, h->events_discarded);
	put64(&m, h->stream_id);
	put64(&m, h->stream_instance_id);
	put64(&m, h->packet_seq_num);
	return command_ok(r, SEND_INDEX, &m);
}

int tr_relay_packet(struct tr_relay *r, unsigned int stream, const void *packet)
{
	const struct tr_packet_header *h = packet;
	struct relay_stream *st = &r->streams[stream];
	struct msg m = { .len = 0 };
	struct iovec iov[2] = { { m.bytes, 32 }, { (void *)packet, h->packet_size / 8 } };
	int err;

	/* struct lttcomm_relayd_data_hdr: the whole packet, its padding included. */
	put64(&m, 0);			/* circuit_id */
	put64(&m, st->handle);
	put64(&m, st->next_seq);
	put32(&m, h->packet_size / 8);
	put32(&m, 0);
	start_command(r);
	err = send_all(r, r->data, iov, 2);
	if (!err)
		err = send_index(r, st, st->next_seq, h);
	if (!err)
		st->next_seq++;
	return failed(r, err);
}

int tr_relay_beacon(struct tr_relay *r, unsigned int stream, __u32 stream_class, __u64 ns)
{
	const struct relay_stream *st = &r->streams[stream];
	struct tr_packet_header h = { .stream_id = stream_class, .timestamp_end = ns };

	start_command(r);
	return failed(r, send_index(r, st, st->next_seq ? st->next_seq - 1 : 0, &h));
}

const char *tr_relay_path(const struct tr_relay *r)
{
	return r->path;
}

/* DATA_PENDING: 1 while the relay lacks some of the stream's packets, 0 once it has them all, or -errno. */
static int data_pending(struct tr_relay *r, const struct relay_stream *st)
{
	struct msg m = { .len = 0 };
	unsigned char reply[4];
	int err;

	put64(&m, st->handle);
	put64(&m, st->next_seq - 1);
	err = command(r, DATA_PENDING, m.bytes, m.len, NULL, 0);
	if (!err)
		err = recv_all(r, r->control, reply, sizeof(reply));
	if (err)
		return err;
	return get32(reply) <= 1 ? (int)get32(reply) : -EPROTO;
}

/*
 * Each stream that sent packets is asked in turn, again every
 * PENDING_NAP_MS until it has them; after a failure (said), nothing is.
 */
int tr_relay_wait_received(struct tr_relay *r)
{
	unsigned int i = 0;
	int err = 0;

	if (r->broken)
		return 0;
	start_command(r);
	while (i < r->nstreams && !err) {
		int pending = r->streams[i].next_seq ? data_pending(r, &r->streams[i]) : 0;

		if (pending < 0)
			err = pending;
		else if (pending)
			err = wait_ready(r, -1, 0, PENDING_NAP_MS);
		else
			i++;
	}
	return failed(r, err);
}

int tr_relay_close(struct tr_relay *r)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < r->nstreams && !err && r->control >= 0 && !r->broken; i++) {
		struct msg m = { .len = 0 };

		put64(&m, r->streams[i].handle);
		put64(&m, r->streams[i].next_seq - 1);	/* -1: none sent (the metadata's) */
		start_command(r);
		err = command_ok(r, CLOSE_STREAM, &m);
	}
	if (r->data >= 0)
		close(r->data);
	if (r->control >= 0)
		close(r->control);
	free(r->streams);
	free(r);
	return err;
}

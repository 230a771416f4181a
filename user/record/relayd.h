/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A client of LTTng's relay daemon (lttng-relayd), as lttng-consumerd is
 * one: a trace's streams, metadata and packets sent to it, so that it
 * writes them under HOST/SESSION-DATE/ and live readers (babeltrace2's
 * lttng-live, Trace Compass) see them.  The wire protocol is lttng-tools'
 * (src/common/sessiond-comm/relayd.h, 2.13): two TCP connections, control
 * and data; this client speaks its version 2.10, which every relayd from
 * 2.8 to 2.13 accepts and which needs no trace chunks (record/relayd.c says more).
 */
#ifndef TRACER_RELAY_H
#define TRACER_RELAY_H

#include <linux/types.h>
#include <signal.h>
#include <stddef.h>

#define TR_RELAY_CONTROL_PORT	5342
#define TR_RELAY_DATA_PORT	5343
/* Each command's deadline, from its first byte sent to its reply's last received. */
#define TR_RELAY_TIMEOUT_S	30

struct tr_relay;

/*
 * What ends a wait on the relay before the deadline.  The caller keeps
 * its stop signals blocked, and sigmask (as ppoll takes it) lets them in
 * during the waits only, so none comes unnoticed between the check and
 * the sleep; a wait that finds *give_up set ends with -ECANCELED.
 */
struct tr_relay_stop {
	const sigset_t *sigmask;
	const volatile sig_atomic_t *give_up;
};

/* An lttng URL: net://HOST[:CONTROL_PORT[:DATA_PORT]] (net6:// for IPv6). */
struct tr_relay_url {
	char host[256];
	unsigned int control_port, data_port;
};

/* 0, or -EINVAL with why. */
int tr_relay_parse_url(const char *text, struct tr_relay_url *url, char *why, size_t whylen);

/*
 * Connect, agree on the protocol, and create a session named session of
 * this host (live_us: the live timer, 0 when not live); every wait of
 * the relay's ends as stop says.  0 with *relay, or -errno with why.
 * Of the errors, -ETIMEDOUT is a deadline passed, -ECANCELED a wait given up.
 */
int tr_relay_open(struct tr_relay **relay, const struct tr_relay_url *url,
		  const char *session, unsigned int live_us, const struct tr_relay_stop *stop,
		  char *why, size_t whylen);

/* An error of this client's as text: the deadline's and giving up's, else strerror's. */
const char *tr_relay_strerror(int err);

/* A stream file, by name (CHANNEL_CPU, or "metadata"): its number here, or -errno. */
long long tr_relay_add_stream(struct tr_relay *relay, const char *name);

/* Make the streams added so far visible to live readers.  0 or -errno. */
int tr_relay_streams_sent(struct tr_relay *relay);

/* Append len bytes of metadata (the "metadata" stream's).  0 or -errno. */
int tr_relay_metadata(struct tr_relay *relay, unsigned int stream, const void *text, size_t len);

/* A packet of a stream (a tracer packet: layout.h), and its index.  0 or -errno. */
int tr_relay_packet(struct tr_relay *relay, unsigned int stream, const void *packet);

/* Live: nothing new on the stream up to ns, so readers need not wait for it.  0 or -errno. */
int tr_relay_beacon(struct tr_relay *relay, unsigned int stream, __u32 stream_class, __u64 ns);

/* Where the relay writes the session, relative to its output directory. */
const char *tr_relay_path(const struct tr_relay *relay);

/*
 * Wait until the relay has received every packet sent (its data connection
 * is read apart from the replies), within one deadline.  0 or -errno.
 */
int tr_relay_wait_received(struct tr_relay *relay);

/*
 * Close every stream after its last packet (not after a failure), then
 * the connections; frees relay.  0, or -errno (-EPROTO: a close refused).
 */
int tr_relay_close(struct tr_relay *relay);

#endif /* TRACER_RELAY_H */

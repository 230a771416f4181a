// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer record --relay net://HOST: the trace's streams to lttng-relayd
 * (relay.c), as well as into the trace directory with -o, or instead of
 * it: then the directory is a temporary one the CLI makes for the
 * metadata and removes, and no stream file is written.
 *
 * Each packet the consumer takes goes to the relay after its file, in the
 * consumer's thread: a relay that reads slowly holds the consumer back as
 * a slow disk would, and what the probes then cannot write they count as
 * lost.  A relay that goes away, or waits past the client's timeout, ends
 * the streaming: said once, the local trace goes on (without one, the
 * recording ends), and record exits 1.
 *
 * Live (--relay-live): the relay's live timer is --flush-ms.  Each stream
 * first gets an empty packet, since the relay passes a stream's beacons on
 * to readers only once it has had a packet; then at each flush period a
 * stream that sent nothing gets a beacon saying it has nothing up to now,
 * so readers that merge by time need not wait for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"
#include "relay.h"
#include "ubuf.h"

/*
 * How far before a flush a beacon says a stream has nothing: a writer
 * whose record the flush did not see yet commits it within this
 * (record_live.c's horizon has the same slack).
 */
#define BEACON_SLACK_NS	10000000ull

struct rec_relay {
	struct tr_relay *relay;
	unsigned int metadata;		/* the relay's number of the metadata stream */
	unsigned int *stream;		/* ... of each buffer's, [channel * ncpu + cpu] */
	unsigned char *sent;		/* a packet went this flush period */
	off_t metadata_sent;		/* bytes of the metadata file sent */
	unsigned long long packets;
};

/* Streaming ended: say why, once, and go on without it. */
static void relay_failed(struct session *s, const char *what, int err)
{
	struct rec_relay *rr = s->relay;

	rec_say("the relay %s %s (%s) after %llu packets: streaming ended%s", s->o->relay, what,
		strerror(-err), rr->packets,
		s->o->relay_only ? "; nothing is written any more: the recording ends" :
		"; the local trace goes on, complete");
	s->relay_failed = err;
	if (s->o->relay_only)
		s->write_error = err;
	tr_relay_close(rr->relay);
	rr->relay = NULL;
}

/* What the metadata file holds past what was sent. */
static int send_metadata(struct session *s)
{
	struct rec_relay *rr = s->relay;
	int fd = openat(s->dir.fd, "metadata", O_RDONLY | O_CLOEXEC | O_NOFOLLOW), err = 0;
	char buf[65536];
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (!err && (n = pread(fd, buf, sizeof(buf), rr->metadata_sent)) > 0) {
		err = tr_relay_metadata(rr->relay, rr->metadata, buf, n);
		rr->metadata_sent += n;
	}
	if (!err && n < 0)
		err = -errno;
	close(fd);
	return err;
}

/* Live: each stream's empty first packet, at the recording's start. */
static int send_empty_packets(struct session *s)
{
	struct rec_relay *rr = s->relay;
	__u64 now = tr_clock_monotonic_ns();
	unsigned int i;
	int err = 0;

	for (i = 0; i < s->nstreams && !err; i++) {
		/* Apart by a nanosecond each: readers pick among equal times at random. */
		struct tr_packet_header h = {
			.magic = TR_PACKET_MAGIC, .stream_id = i / s->ncpu,
			.stream_instance_id = i % s->ncpu, .cpu_id = i % s->ncpu,
			.timestamp_begin = now - BEACON_SLACK_NS - i,
			.timestamp_end = now - BEACON_SLACK_NS - i,
			.content_size = sizeof(h) * 8, .packet_size = sizeof(h) * 8,
			/* The buffer's first packet is 0: this one comes just before. */
			.packet_seq_num = ~0ull, .layout_version = TR_LAYOUT_VERSION,
		};

		err = tr_relay_packet(rr->relay, rr->stream[i], &h);
	}
	return err;
}

static int add_streams(struct session *s)
{
	struct rec_relay *rr = s->relay;
	long long n = 0;
	unsigned int i;
	char name[TR_CHANNEL_NAME_MAX + 16];

	for (i = 0; i < s->nstreams && n >= 0; i++) {
		snprintf(name, sizeof(name), "%s_%u", s->o->channels[i / s->ncpu].name, i % s->ncpu);
		n = tr_relay_add_stream(rr->relay, name);
		rr->stream[i] = n;
	}
	if (n >= 0)
		n = tr_relay_add_stream(rr->relay, "metadata");
	rr->metadata = n;
	return n < 0 ? n : tr_relay_streams_sent(rr->relay);
}

int rec_relay_connect(struct session *s)
{
	const struct tr_record_opts *o = s->o;
	struct tr_relay_url url;
	struct rec_relay *rr;
	char why[300];
	int err;

	if (!o->relay)
		return 0;
	if (tr_relay_parse_url(o->relay, &url, why, sizeof(why))) {
		rec_say("--relay %s: %s", o->relay, why);
		return -EINVAL;
	}
	rr = s->relay = calloc(1, sizeof(*rr));
	if (!rr || !(rr->stream = calloc(s->nstreams, sizeof(*rr->stream))) ||
	    !(rr->sent = calloc(s->nstreams, 1)))
		return -ENOMEM;
	err = tr_relay_open(&rr->relay, &url, o->relay_session,
			    o->relay_live ? o->flush_ms * 1000 : 0, why, sizeof(why));
	if (err)
		rec_say("--relay %s: %s", o->relay, why);
	return err;
}

int rec_relay_start(struct session *s)
{
	const struct tr_record_opts *o = s->o;
	struct rec_relay *rr = s->relay;
	int err;

	if (!rr)
		return 0;
	err = add_streams(s);
	if (!err)
		err = send_metadata(s);
	if (!err && o->relay_live)
		err = send_empty_packets(s);
	if (err)
		rec_say("--relay %s: the relay refused the session's streams (%s)", o->relay,
			strerror(-err));
	return err;
}

void rec_relay_packet(struct session *s, unsigned int stream, const void *packet)
{
	struct rec_relay *rr = s->relay;
	int err;

	if (!rr || !rr->relay)
		return;
	err = tr_relay_packet(rr->relay, rr->stream[stream], packet);
	if (err) {
		relay_failed(s, "went away", err);
		return;
	}
	rr->packets++;
	rr->sent[stream] = 1;
	if (s->o->relay_only)
		s->bytes += ((const struct tr_packet_header *)packet)->packet_size / 8;
}

void rec_relay_round(struct session *s, __u64 now)
{
	struct rec_relay *rr = s->relay;
	unsigned int i;
	int err = 0;

	if (!rr || !rr->relay || !s->o->relay_live)
		return;
	for (i = 0; i < s->nstreams && !err; i++) {
		if (!rr->sent[i])
			err = tr_relay_beacon(rr->relay, rr->stream[i], i / s->ncpu,
					      now - BEACON_SLACK_NS - i);
		rr->sent[i] = 0;
	}
	if (err)
		relay_failed(s, "went away", err);
}

void rec_relay_summary(const struct session *s)
{
	const struct rec_relay *rr = s->relay;

	if (rr && rr->relay)
		fprintf(stderr, "  relay: %llu packets to %s, in %s under its output directory\n",
			rr->packets, s->o->relay, tr_relay_path(rr->relay));
}

void rec_relay_close(struct session *s)
{
	struct rec_relay *rr = s->relay;

	if (!rr)
		return;
	if (rr->relay && tr_relay_close(rr->relay))
		rec_say("the relay %s did not close every stream cleanly: what it received is written",
			s->o->relay);
	free(rr->stream);
	free(rr->sent);
	free(rr);
	s->relay = NULL;
}

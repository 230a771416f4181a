// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer record --relay net://HOST: the trace's streams to lttng-relayd
 * (record/relayd.c), as well as into the trace directory with -o, or instead of
 * it: then the directory is a temporary one the CLI makes for the
 * metadata and removes, and no stream file is written.
 *
 * Each packet the consumer takes goes to the relay after its file, in the
 * consumer's thread: a relay that reads slowly holds the consumer back as
 * a slow disk would, and what the probes then cannot write they count as
 * lost.  A relay that goes away, or takes longer than the deadline over a
 * command (record/relayd.h), ends the streaming: said once, the local trace goes
 * on (without one, the recording ends), and record exits 1.  So does a
 * relay that has not received every packet at the end, or refuses to
 * close a stream; and one that was being waited on when the recorder gave
 * it up at a stop signal (record/recorder.c says which stops give up).
 *
 * User-space events (-e ust:) go the same way: each buffer found is a
 * stream of the relay's as it is of the directory's, added then, and the
 * metadata the events found append goes to the relay before any packet
 * that has them.
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

#include "record/session.h"
#include "record/relayd.h"
#include "layout/ubuf.h"

/*
 * How far before a flush a beacon says a stream has nothing: a writer
 * whose record the flush did not see yet commits it within this
 * (record/live.c's horizon has the same slack).
 */
#define BEACON_SLACK_NS	10000000ull

/* A stream of the relay's, by its number there. */
struct relay_stream_info {
	__u32 stream_class;		/* its channel */
	__u32 instance;			/* its CPU, or ust_N's N */
	int sent;			/* a packet went this flush period */
};

struct rec_relay {
	struct tr_relay *relay;
	unsigned int metadata;		/* the relay's number of the metadata stream */
	unsigned int *stream;		/* ... of each buffer's, [channel * ncpu + cpu] */
	struct relay_stream_info *info;
	unsigned int ninfo;
	off_t metadata_sent;		/* bytes of the metadata file sent */
	unsigned long long packets;
};

/* A deadline passed or a wait given up, rather than the relay saying no. */
static int gave_up(int err)
{
	return err == -ETIMEDOUT || err == -ECANCELED;
}

/* Streaming ended: say why, once, and go on without it. */
static void relay_failed(struct session *s, const char *what, int err)
{
	struct rec_relay *rr = s->relay;

	rec_say("the relay %s %s (%s) after %llu packets: streaming ended%s", s->o->relay,
		gave_up(err) ? "was too slow" : what, tr_relay_strerror(err), rr->packets,
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

/*
 * Live: a stream's empty first packet.  Apart by a nanosecond each:
 * readers pick among equal times at random.
 */
static int send_empty_packet(struct session *s, unsigned int stream)
{
	struct rec_relay *rr = s->relay;
	__u64 at = tr_clock_monotonic_ns() - BEACON_SLACK_NS - stream;
	const struct relay_stream_info *info = &rr->info[stream];
	struct tr_packet_header h = {
		.magic = TR_PACKET_MAGIC, .stream_id = info->stream_class,
		.stream_instance_id = info->instance, .cpu_id = info->instance,
		.timestamp_begin = at, .timestamp_end = at,
		.content_size = sizeof(h) * 8, .packet_size = sizeof(h) * 8,
		/* The buffer's first packet is 0: this one comes just before. */
		.packet_seq_num = ~0ull, .layout_version = TR_LAYOUT_VERSION,
	};

	return tr_relay_packet(rr->relay, stream, &h);
}

/* A stream of the relay's: its number there, or -errno. */
static long long add_stream(struct rec_relay *rr, const char *name, __u32 stream_class,
			    __u32 instance)
{
	struct relay_stream_info *info = realloc(rr->info, (rr->ninfo + 1) * sizeof(*info));
	long long n;

	if (!info)
		return -ENOMEM;
	rr->info = info;
	n = tr_relay_add_stream(rr->relay, name);
	if (n >= 0)
		info[rr->ninfo++] = (struct relay_stream_info) { stream_class, instance, 0 };
	return n;
}

static int add_streams(struct session *s)
{
	struct rec_relay *rr = s->relay;
	long long n = 0;
	unsigned int i;
	char name[TR_CHANNEL_NAME_MAX + 16];

	for (i = 0; i < s->nstreams && n >= 0; i++) {
		snprintf(name, sizeof(name), "%s_%u", s->o->channels[i / s->ncpu].name, i % s->ncpu);
		n = add_stream(rr, name, i / s->ncpu, i % s->ncpu);
		rr->stream[i] = n;
	}
	if (n >= 0)
		n = add_stream(rr, "metadata", 0, 0);
	rr->metadata = n;
	return n < 0 ? n : tr_relay_streams_sent(rr->relay);
}

static void relay_packet(struct session *s, unsigned int stream, const void *packet);
static void relay_round(struct session *s, __u64 now);
static void relay_summary(const struct session *s);
static void relay_close(struct session *s);

static const struct rec_output relay_output = {
	.rank = REC_OUTPUT_RELAY, .packet = relay_packet, .flush = relay_round,
	.summary = relay_summary, .close = relay_close,
};

int rec_relay_connect(struct session *s)
{
	const struct tr_record_opts *o = s->o;
	struct tr_relay_stop stop = { &s->waiter.during, s->give_up_relay };
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
	if (rr)
		rec_output_add(s, &relay_output);
	if (!rr || !(rr->stream = calloc(s->nstreams, sizeof(*rr->stream))))
		return -ENOMEM;
	err = tr_relay_open(&rr->relay, &url, o->relay_session,
			    o->relay_live ? o->flush_ms * 1000 : 0, &stop, why, sizeof(why));
	if (err)
		rec_say("--relay %s: %s", o->relay, why);
	return err;
}

int rec_relay_start(struct session *s)
{
	const struct tr_record_opts *o = s->o;
	struct rec_relay *rr = s->relay;
	unsigned int i;
	int err;

	if (!rr)
		return 0;
	err = add_streams(s);
	if (!err)
		err = send_metadata(s);
	for (i = 0; i < s->nstreams && !err && o->relay_live; i++)
		err = send_empty_packet(s, rr->stream[i]);
	if (err)
		rec_say("--relay %s: the relay %s the session's streams (%s)", o->relay,
			gave_up(err) ? "did not take" : "refused", tr_relay_strerror(err));
	return err;
}

int rec_relay_new_stream(struct session *s, const char *name, __u32 stream_class,
			 __u32 instance)
{
	struct rec_relay *rr = s->relay;
	long long n;
	int err;

	if (!rr || !rr->relay)
		return -1;
	n = add_stream(rr, name, stream_class, instance);
	err = n < 0 ? n : tr_relay_streams_sent(rr->relay);
	if (!err && s->o->relay_live)
		err = send_empty_packet(s, n);
	if (err) {
		relay_failed(s, "refused a new stream", err);
		return -1;
	}
	return n;
}

void rec_relay_metadata(struct session *s)
{
	struct rec_relay *rr = s->relay;
	int err;

	if (!rr || !rr->relay)
		return;
	err = send_metadata(s);
	if (err)
		relay_failed(s, "went away", err);
}

void rec_relay_send(struct session *s, int stream, const void *packet)
{
	struct rec_relay *rr = s->relay;
	int err;

	if (!rr || !rr->relay || stream < 0)
		return;
	err = tr_relay_packet(rr->relay, stream, packet);
	if (err) {
		relay_failed(s, "went away", err);
		return;
	}
	rr->packets++;
	rr->info[stream].sent = 1;
	if (s->o->relay_only)
		s->bytes += ((const struct tr_packet_header *)packet)->packet_size / 8;
}

/* The output's packet(): a packet of buffer stream, to its stream at the relay. */
static void relay_packet(struct session *s, unsigned int stream, const void *packet)
{
	rec_relay_send(s, s->relay->stream[stream], packet);
}

/* The output's flush(): live beacons for the streams that sent nothing this period. */
static void relay_round(struct session *s, __u64 now)
{
	struct rec_relay *rr = s->relay;
	unsigned int i;
	int err = 0;

	if (!rr || !rr->relay || !s->o->relay_live)
		return;
	for (i = 0; i < rr->ninfo && !err; i++) {
		if (!rr->info[i].sent && i != rr->metadata)
			err = tr_relay_beacon(rr->relay, i, rr->info[i].stream_class,
					      now - BEACON_SLACK_NS - i);
		rr->info[i].sent = 0;
	}
	if (err)
		relay_failed(s, "went away", err);
}

static void relay_summary(const struct session *s)
{
	const struct rec_relay *rr = s->relay;

	if (rr && rr->relay)
		fprintf(stderr, "  relay: %llu packets to %s, in %s under its output directory\n",
			rr->packets, s->o->relay, tr_relay_path(rr->relay));
}

/* Wait for the relay to confirm and close; says what it did not. */
static void relay_close(struct session *s)
{
	struct rec_relay *rr = s->relay;
	int unconfirmed, unclosed;

	if (!rr)
		return;
	unconfirmed = rr->relay ? tr_relay_wait_received(rr->relay) : 0;
	if (unconfirmed)
		rec_say("the relay %s did not confirm it received every packet (%s): what it received is written",
			s->o->relay, tr_relay_strerror(unconfirmed));
	unclosed = rr->relay ? tr_relay_close(rr->relay) : 0;
	if (unclosed)
		rec_say("the relay %s did not close every stream cleanly: what it received is written",
			s->o->relay);
	if (unconfirmed || unclosed)
		s->relay_failed = unconfirmed ?: unclosed;
	free(rr->stream);
	free(rr->info);
	free(rr);
	s->relay = NULL;
}

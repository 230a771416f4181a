// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer top's reader inside a recording: the consumer feeds every packet
 * it takes to a live trace (reader/trace.h), the same reader report runs over a
 * trace directory, and after each round hands the sink what came out.
 *
 * What may come out: a packet holding a record of time t is delivered once
 * the sub-buffer is closed, by filling up or by a flush, and taken by the
 * next round.  The module's buffers are flushed by its timers every
 * flush_ms, which then wake the consumer: once a round ends, every record
 * before now - 2 * flush_ms (a timer period, and as long again for the
 * wake-up) has been fed, but for one whose writer read the clock before
 * then and had not committed yet: WRITER_SLACK covers those; one stalled
 * longer still comes out, counted late.
 *
 * The BPF regions are flushed by the consumer (the buffers' flush_one(),
 * which notes when), and tell more, buffer by buffer.  Their writers read
 * the clock as they reserve (ringbuf.h): once a packet is fed, every
 * record of its buffer before the packet's end has been; once the buffer
 * is flushed at t, every one before t; and a buffer
 * whose write count is still where its flush left it, at the start of a
 * sub-buffer, holds none after.  So the horizon is the earliest, over the
 * buffers, of how far each is fed (now for one written nothing since its
 * flush), less WRITER_SLACK, and a round flushes the buffers that hold it
 * back by more than CATCH_UP: a busy buffer's records come out as its
 * sub-buffers fill, while the consumer still has them in its caches,
 * rather than a flush period later.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/session.h"
#include "reader/trace.h"

/* How far a buffer's records have been fed. */
struct rec_live_stream {
	__u64 fed_end;			/* where its last packet fed ends */
};

/* A buffer fed less far than the others by this much is flushed (ns). */
#define CATCH_UP	10000000ull

static void live_feed(struct session *s, unsigned int stream, const void *packet);
static void live_round(struct session *s, __u64 now, int last);
static void live_close(struct session *s);

static const struct rec_output live_output = {
	.rank = REC_OUTPUT_LIVE, .packet = live_feed, .round = live_round, .close = live_close,
};

int rec_live_open(struct session *s)
{
	const char *channels[TR_MAX_CHANNELS];
	char *text = NULL, why[512];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	unsigned int c;
	int err;

	rec_output_add(s, &live_output);
	if (!out) {
		rec_say("no memory for the live reader");
		return -ENOMEM;
	}
	err = rec_format_events(&s->events, out);
	if (fclose(out) && !err)
		err = -ENOMEM;
	for (c = 0; c < s->nchannels; c++)
		channels[c] = s->o->channels[c].name;
	if (!err)
		err = tr_trace_open_live(&s->live, text, len, channels, s->nchannels, s->ncpu,
					 why, sizeof(why));
	else
		snprintf(why, sizeof(why), "no memory for the event formats");
	if (!err && !(s->live_streams = calloc(s->nstreams, sizeof(*s->live_streams)))) {
		snprintf(why, sizeof(why), "out of memory");
		err = -ENOMEM;
	}
	free(text);
	if (err)
		rec_say("cannot read the recording live: %s", why);
	else if (s->o->live->opened)
		s->o->live->opened(s->o->live->data, s->live);
	return err;
}

/* Whether a packet's records are read, under --sample (a 64-bit mix of its buffer and sequence). */
static int sampled(unsigned int percent, unsigned int stream, __u64 seq)
{
	__u64 h = (seq + 1) * 0x9e3779b97f4a7c15ull ^ (stream + 1) * 0xbf58476d1ce4e5b9ull;

	h ^= h >> 31;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 29;
	return percent >= 100 || h % 100 < percent;
}

/* The output's packet(): to the reader, or under --sample maybe its header only. */
static void live_feed(struct session *s, unsigned int stream, const void *packet)
{
	const struct tr_packet_header *h = packet;
	int err;

	if (sampled(s->o->live->sample_percent, stream, h->packet_seq_num))
		err = tr_trace_feed(s->live, stream, packet);
	else
		err = tr_trace_feed_header(s->live, stream, packet);
	if (err)
		s->live_unfed++;
	else if (h->timestamp_end > s->live_streams[stream].fed_end)
		s->live_streams[stream].fed_end = h->timestamp_end;
}

/* How far a buffer the reader flushes has been fed, but for WRITER_SLACK (above). */
static __u64 fed_until(const struct session *s, unsigned int stream, __u64 now)
{
	const struct trb_buf *b = &s->buffers.buf[stream];
	const struct tr_buffer_flush *f = &s->buffers.flushed[stream];
	const struct rec_live_stream *l = &s->live_streams[stream];
	__u64 written = trb_read(&b->ctl->write_count);

	if (f->at && written == f->write_count && trb_sb_offset(b, written) == 0)
		return now;	/* nothing written since its flush */
	return l->fed_end > f->at ? l->fed_end : f->at;
}

/*
 * How far all buffers the reader flushes have been fed, once those that
 * lag the most fed by CATCH_UP are flushed and consumed.
 */
static __u64 flushed_fed_until(struct session *s, __u64 now)
{
	__u64 until = now, most = 0;
	unsigned int stream;
	int flushed = 0;

	for (stream = 0; stream < s->nstreams; stream++)
		if (s->live_streams[stream].fed_end > most)
			most = s->live_streams[stream].fed_end;
	for (stream = 0; stream < s->nstreams; stream++)
		if (fed_until(s, stream, now) + CATCH_UP < most) {
			s->buffers.ops->flush_one(&s->buffers, stream);
			flushed = 1;
		}
	if (flushed)
		rec_consume(s);
	for (stream = 0; stream < s->nstreams; stream++) {
		__u64 fed = fed_until(s, stream, now);

		if (fed < until)
			until = fed;
	}
	return until;
}

static void live_counts(const struct session *s, struct tr_live_status *counts)
{
	unsigned int stream;

	memset(counts, 0, sizeof(*counts));
	counts->backend = s->buffers.ops->name;
	for (stream = 0; stream < s->nstreams; stream++) {
		const struct tr_buf_ctl *ctl = s->buffers.buf[stream].ctl;

		counts->lost_full += trb_read(&ctl->lost_full);
		counts->lost_wrap += trb_read(&ctl->lost_wrap);
		counts->lost_big += trb_read(&ctl->lost_big);
		counts->lost_busy += trb_read(&ctl->lost_busy);
	}
	counts->misses = s->misses;
	counts->late = tr_trace_late(s->live);
	counts->unfed = s->live_unfed;
}

#define WRITER_SLACK	10000000ull	/* ns */

/*
 * The output's round(): what may come out, to the sink (last: everything).
 * The horizon is the module's timers' (where the buffers flush themselves)
 * or the reader's flushes' (above).  None while the tracepoints attach: the
 * sink's first round (top's first interval) says that recording has begun;
 * what was fed meanwhile comes out in it.
 */
static void live_round(struct session *s, __u64 now, int last)
{
	const struct tr_live_sink *sink = s->o->live;
	struct tr_live_status counts;
	__u64 closed, reached = ~0ull;

	if (!last && !s->recording)
		return;
	if (!last) {
		closed = s->buffers.ops->flush_one ? flushed_fed_until(s, now) :
						     now - 2 * s->o->flush_ms * 1000000ull;
		reached = closed > WRITER_SLACK ? closed - WRITER_SLACK : 0;
	}
	if (!s->live_status_told) {
		/* a status (the backend's name) before the first item: top's
		 * first interval may close among the items, and shows it */
		live_counts(s, &counts);
		sink->round(sink->data, 0, &counts);
		s->live_status_told = 1;
	}
	tr_trace_set_horizon(s->live, reached);
	tr_trace_each(s->live, sink->item, sink->data);
	live_counts(s, &counts);
	sink->round(sink->data, reached, &counts);
}

int rec_live_stop_asked(const struct session *s)
{
	__u64 n;

	return s->o->live->stop_fd >= 0 && read(s->o->live->stop_fd, &n, sizeof(n)) == sizeof(n);
}

static void live_close(struct session *s)
{
	if (s->live)
		tr_trace_close(s->live);
	s->live = NULL;
	free(s->live_streams);
	s->live_streams = NULL;
}

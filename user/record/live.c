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
 * The BPF regions are flushed by the consumer, and tell more, buffer by
 * buffer.  Their writers read the clock as they reserve (ringbuf.h): once
 * a packet is fed, every record of its buffer before the packet's end has
 * been; once the buffer is flushed at t, every one before t; and a buffer
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

/* How far a BPF region's records have been fed. */
struct rec_live_stream {
	__u64 fed_end;			/* where its last packet fed ends */
	__u64 flushed;			/* when it was last flushed */
	__u64 flushed_at;		/* its write count after that flush */
};

/* A buffer fed less far than the others by this much is flushed (ns). */
#define CATCH_UP	10000000ull

int rec_live_open(struct session *s)
{
	const char *channels[TR_MAX_CHANNELS];
	char *text = NULL, why[512];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	unsigned int c;
	int err;

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

void rec_live_feed(struct session *s, unsigned int stream, const void *packet)
{
	const struct tr_packet_header *h = packet;
	int err;

	if (sampled(s->o->live->sample_percent, stream, h->packet_seq_num))
		err = tr_trace_feed(s->live, stream, packet);
	else
		err = tr_trace_feed_header(s->live, stream, packet);
	if (err)
		s->live_unfed++;
	else if (!s->use_kmod && h->timestamp_end > s->live_streams[stream].fed_end)
		s->live_streams[stream].fed_end = h->timestamp_end;
}

void rec_live_flush(struct session *s, unsigned int stream)
{
	const struct trb_buf *b = &s->bufs.buf[stream];
	struct rec_live_stream *l = &s->live_streams[stream];

	l->flushed = b->clock();
	trb_flush(b);
	l->flushed_at = trb_read(&b->ctl->write_count);
}

/* How far a BPF region has been fed, but for WRITER_SLACK (above). */
static __u64 fed_until(const struct session *s, unsigned int stream, __u64 now)
{
	const struct trb_buf *b = &s->bufs.buf[stream];
	const struct rec_live_stream *l = &s->live_streams[stream];
	__u64 written = trb_read(&b->ctl->write_count);

	if (l->flushed && written == l->flushed_at && trb_sb_offset(b, written) == 0)
		return now;	/* nothing written since its flush */
	return l->fed_end > l->flushed ? l->fed_end : l->flushed;
}

/*
 * How far all BPF regions have been fed, once those that lag the most fed
 * by CATCH_UP are flushed and consumed.
 */
static __u64 bpf_fed_until(struct session *s, __u64 now)
{
	__u64 until = now, most = 0;
	unsigned int stream;
	int flushed = 0;

	for (stream = 0; stream < s->nstreams; stream++)
		if (s->live_streams[stream].fed_end > most)
			most = s->live_streams[stream].fed_end;
	for (stream = 0; stream < s->nstreams; stream++)
		if (fed_until(s, stream, now) + CATCH_UP < most) {
			rec_live_flush(s, stream);
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
	counts->backend = rec_backend_name(s);
	for (stream = 0; stream < s->nstreams; stream++) {
		const struct tr_buf_ctl *ctl = rec_buf(s, stream)->ctl;

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

void rec_live_round(struct session *s, __u64 now, int last)
{
	const struct tr_live_sink *sink = s->o->live;
	struct tr_live_status counts;
	__u64 closed, reached = ~0ull;

	if (!last) {
		closed = s->use_kmod ? now - 2 * s->o->flush_ms * 1000000ull : bpf_fed_until(s, now);
		reached = closed > WRITER_SLACK ? closed - WRITER_SLACK : 0;
	}
	tr_trace_set_horizon(s->live, reached);
	tr_trace_each(s->live, sink->item, sink->data);
	live_counts(s, &counts);
	sink->round(sink->data, reached, &counts);
}

/* Whether the sink asked to stop (its eventfd was written). */
int rec_live_stop_asked(const struct session *s)
{
	__u64 n;

	return s->o->live->stop_fd >= 0 && read(s->o->live->stop_fd, &n, sizeof(n)) == sizeof(n);
}

void rec_live_close(struct session *s)
{
	if (s->live)
		tr_trace_close(s->live);
	s->live = NULL;
	free(s->live_streams);
	s->live_streams = NULL;
}

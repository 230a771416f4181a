/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Test reader: takes every delivered sub-buffer of a buffer as a consumer
 * would, checks each packet and record, and hands records to a callback.
 */
#ifndef TRACER_TEST_DRAIN_H
#define TRACER_TEST_DRAIN_H

#include <tracer/ringbuf.h>
#include "layout/packet.h"

struct drain_state {
	unsigned long packets;
	unsigned long records;
	__u64 last_seq;			/* of the last packet read */
	__u64 last_ts;			/* of the last record or packet boundary */
	const char *problem;		/* first problem found, or NULL */
};

typedef void (*drain_record_fn)(const struct tr_packet_header *h,
				const struct tr_event_header *e, void *arg);

/* Checks one packet against the previous ones; records go to fn. */
static inline void drain_packet(const struct trb_buf *b, const char *packet,
				struct drain_state *d, drain_record_fn fn, void *arg)
{
	const struct tr_packet_header *h = (const void *)packet;
	const struct tr_event_header *e;
	struct tr_packet_iter it;
	const char *problem = tr_packet_header_problem(h, b->subbuf_size);

	if (!problem && d->packets && h->packet_seq_num <= d->last_seq)
		problem = "packet sequence numbers do not increase";
	if (!problem && h->timestamp_begin < d->last_ts)
		problem = "packet begins before the previous one ends";
	if (!problem && (h->cpu_id != b->cpu || h->stream_id != b->stream_id))
		problem = "packet from another stream";
	if (problem) {
		d->problem = d->problem ? d->problem : problem;
		return;
	}
	tr_packet_iter_init(&it, packet);
	while ((e = tr_packet_next(&it, &problem))) {
		d->records++;
		if (fn)
			fn(h, e, arg);
	}
	if (problem && !d->problem)
		d->problem = problem;
	d->packets++;
	d->last_seq = h->packet_seq_num;
	d->last_ts = h->timestamp_end;
}

/* Reads until no sub-buffer is ready; returns the packets read. */
static inline unsigned long drain(const struct trb_buf *b, struct drain_state *d,
				  drain_record_fn fn, void *arg)
{
	unsigned long before = d->packets;
	const char *packet;
	__u64 pos;

	while (trb_get_subbuf(b, &pos, &packet) == 0) {
		drain_packet(b, packet, d, fn, arg);
		trb_put_subbuf(b, pos);
	}
	return d->packets - before;
}

#endif /* TRACER_TEST_DRAIN_H */

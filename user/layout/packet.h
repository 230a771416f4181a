/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading packets (sub-buffers) as include/tracer/layout.h defines them:
 * check a packet header, then walk its records.  Packets come from shared
 * memory or from files, so every field is checked before it is trusted.
 */
#ifndef TRACER_PACKET_H
#define TRACER_PACKET_H

#include <tracer/layout.h>

struct tr_packet_iter {
	const char *packet;
	__u64 content;			/* bytes of header and records */
	__u64 offset;			/* end of the previous record */
	__u64 last_ts;
};

/*
 * Why the packet header is not one a writer of sub-buffers of
 * max_packet bytes could have made, or NULL when it is sound.
 */
const char *tr_packet_header_problem(const struct tr_packet_header *h,
				     __u64 max_packet);

/* Start walking the records of a packet whose header is sound. */
void tr_packet_iter_init(struct tr_packet_iter *it, const void *packet);

/*
 * The next record, or NULL at the end of the content or on a malformed
 * record; then *problem says which (NULL at the end).  A record is sound
 * when it lies inside the content and its timestamp is within the packet's
 * and not before the previous record's.
 */
static inline const struct tr_event_header *tr_packet_next(struct tr_packet_iter *it,
							   const char **problem)
{
	const struct tr_packet_header *h = (const void *)it->packet;
	const struct tr_event_header *e;
	__u64 start = (it->offset + TR_RECORD_ALIGN - 1) & ~(__u64)(TR_RECORD_ALIGN - 1);

	*problem = 0;
	if (it->offset == it->content)
		return 0;
	if (start > it->content || it->content - start < sizeof(*e)) {
		*problem = "record header runs past the content";
		return 0;
	}
	e = (const void *)(it->packet + start);
	/* The walk depends on each record's size: fetch the records ahead of it. */
	__builtin_prefetch(it->packet + start + 1024);
	if (e->size > it->content - start - sizeof(*e)) {
		*problem = "record payload runs past the content";
		return 0;
	}
	if (e->timestamp < it->last_ts || e->timestamp > h->timestamp_end) {
		*problem = "record timestamp outside its packet or going back";
		return 0;
	}
	it->offset = start + sizeof(*e) + e->size;
	it->last_ts = e->timestamp;
	return e;
}

#endif /* TRACER_PACKET_H */

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
const struct tr_event_header *tr_packet_next(struct tr_packet_iter *it,
					     const char **problem);

#endif /* TRACER_PACKET_H */

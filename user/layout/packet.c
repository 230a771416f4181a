// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "layout/packet.h"

const char *tr_packet_header_problem(const struct tr_packet_header *h,
				     __u64 max_packet)
{
	/* Content rounded up: sub-buffers are multiples of TR_PACKET_ALIGN (layout.h). */
	__u64 on_disk = (h->content_size / 8 + TR_PACKET_ALIGN - 1) & ~(__u64)(TR_PACKET_ALIGN - 1);

	if (h->magic != TR_PACKET_MAGIC)
		return "bad packet magic";
	if (h->layout_version != TR_LAYOUT_VERSION)
		return "unknown layout version";
	if (h->content_size % 8 || h->packet_size % 8)
		return "packet sizes are not whole aligned bytes";
	if (h->content_size < 8 * sizeof(*h))
		return "content smaller than the packet header";
	if (h->content_size > h->packet_size)
		return "content larger than the packet";
	if (h->packet_size / 8 != on_disk)
		return "packet size is not its content rounded up to 4 KiB";
	if (h->packet_size / 8 > max_packet)
		return "packet larger than a sub-buffer";
	if (h->timestamp_begin > h->timestamp_end)
		return "packet ends before it begins";
	if (h->events_discarded !=
	    h->lost_full + h->lost_wrap + h->lost_big + h->lost_busy)
		return "discarded count is not the sum of its causes";
	return 0;
}

void tr_packet_iter_init(struct tr_packet_iter *it, const void *packet)
{
	const struct tr_packet_header *h = packet;

	it->packet = packet;
	it->content = h->content_size / 8;
	it->offset = sizeof(*h);
	it->last_ts = h->timestamp_begin;
}

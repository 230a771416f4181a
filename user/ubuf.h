/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A ring buffer in this process's memory: the user-space writer's backend
 * (tests, benchmarks, and the user-space tracing library) for the protocol
 * of include/tracer/ringbuf.h.
 */
#ifndef TRACER_UBUF_H
#define TRACER_UBUF_H

#include <stddef.h>
#include <tracer/ringbuf.h>

struct tr_ubuf {
	struct trb_buf rb;
	void *region;
	size_t region_size;
};

/* CLOCK_MONOTONIC in ns: the time base of every tracer buffer. */
__u64 tr_clock_monotonic_ns(void);

/*
 * Map and initialise a buffer.  Returns 0, -EINVAL for a bad geometry
 * (trb_geometry_problem() says why) or -ENOMEM.
 */
int tr_ubuf_create(struct tr_ubuf *u, const struct trb_config *cfg,
		   __u64 (*clock)(void));
void tr_ubuf_destroy(struct tr_ubuf *u);

#endif /* TRACER_UBUF_H */

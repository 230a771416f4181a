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

/*
 * Reading a buffer whose writer may be another thread or process
 * (libtracer-ust's dumps, the recorder), async-signal-safe.
 *
 * tr_ubuf_copy_open(): trb_copy_open() of the sub-buffer being filled,
 * whole once no record in it is being written; after TR_UBUF_OPEN_TRIES
 * looks (each yielding the CPU) its writer is taken to be stopped for
 * good in the middle of a record (dead, or this thread dying of a
 * signal): the records before that one.  Content bytes, with *pos; 0 or
 * -EAGAIN.
 */
#define TR_UBUF_OPEN_TRIES	100
long tr_ubuf_copy_open(const struct trb_buf *b, char *copy, __u64 *pos);

/*
 * The buffer as it is, taking nothing from a reader: each delivered
 * sub-buffer still in it, oldest first (trb_copy_delivered()), then the
 * open one (tr_ubuf_copy_open()), each copied into copy and handed to
 * packet(data, its position, content bytes of an open one or 0).  A
 * sub-buffer a writer overwrites while it is copied is left out.  0, or
 * the first error packet() returns.
 */
int tr_ubuf_snapshot(const struct trb_buf *b, char *copy,
		     int (*packet)(void *data, __u64 pos, long content), void *data);

#endif /* TRACER_UBUF_H */

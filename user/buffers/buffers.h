/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder's buffers behind one ops table, chosen once when they are
 * opened: BPF map regions (buffers/bpfbuf.h) or the module's
 * (buffers/kmodbuf.h).  A buffer per channel and CPU, stream = channel *
 * ncpu + cpu; buf[stream] is its handle (ringbuf.h) for geometry and
 * counters, whichever backend.  The reader goes through the table once
 * per sub-buffer, never per record.
 */
#ifndef TRACER_BUFFERS_H
#define TRACER_BUFFERS_H

#include <stddef.h>

#include "buffers/bpfbuf.h"
#include "buffers/kmodbuf.h"

struct tr_buffers;

/* The reader's last flush of a buffer it flushes itself (flush_one). */
struct tr_buffer_flush {
	__u64 at;			/* when (the buffer's clock), 0: never */
	__u64 write_count;		/* the buffer's write count just after */
};

struct tr_buffers_ops {
	const char *name;		/* the trace's backend: "bpf" or "kmod" */
	/* 0 with a delivered sub-buffer's position and packet, -EAGAIN when none is ready, or -errno. */
	int (*get_subbuf)(struct tr_buffers *b, unsigned int stream, __u64 *pos,
			  const char **packet);
	/* Give back the sub-buffer get_subbuf() gave at pos. */
	void (*put_subbuf)(struct tr_buffers *b, unsigned int stream, __u64 pos);
	/*
	 * Who delivers partly filled sub-buffers: the reader, buffer by
	 * buffer (this, which notes the flush in b->flushed[stream]), or,
	 * where NULL, the writers' side on its own timers every flush_ms
	 * (the module's per-CPU timers; flush() on request).
	 */
	void (*flush_one)(struct tr_buffers *b, unsigned int stream);
	/* A flush period's: what the reader flushes (flush_one), if anything. */
	void (*flush_due)(struct tr_buffers *b);
	/* Every buffer delivers what it holds, now; writers go on.  0 or -errno. */
	int (*flush)(struct tr_buffers *b);
	/* After detaching: no more records, everything left ready to read.  0 or -errno. */
	int (*finish)(struct tr_buffers *b);
	/* What the timestamps are, for the metadata: a constant, or composed in text. */
	const char *(*clock)(const struct tr_buffers *b, char *text, size_t len);
	/* Unmap and close what the backend opened (its delivery notices too). */
	void (*close)(struct tr_buffers *b);
};

struct tr_buffers {
	const struct tr_buffers_ops *ops;	/* the backend, NULL until opened */
	struct trb_buf *buf;		/* [stream]: the backend's handles */
	unsigned int nstreams;
	struct tr_buffer_flush *flushed;	/* [stream], with flush_one; else NULL */
	struct tr_bpfbuf bpf;		/* the regions; with the module, only its delivery notices */
	struct tr_kmodbuf kmod;		/* the module's buffers (fd -1: none) */
};

#define TR_BUFFERS_CLOSED	((struct tr_buffers) { .kmod = { .fd = -1 } })

/*
 * The BPF regions as the buffers (tr_bpfbuf_open()'s arguments), each
 * channel's ncpu buffers.  0 or -errno.
 */
int tr_buffers_open_bpf(struct tr_buffers *b, const struct bpf_map *map,
			const struct trb_config *cfgs, unsigned int nchannels,
			unsigned int ncpu, __u64 (*clock)(void));

/* The module's buffers (tr_kmodbuf_open()'s arguments, messages and errors). */
int tr_buffers_open_kmod(struct tr_buffers *b, const struct trb_config *cfg,
			 unsigned int flush_ms, __u32 selftest_event_id);

/* Drain the delivery notices, if the BPF side's are watched (tr_bpfbuf_watch_deliveries()). */
void tr_buffers_drain_notices(struct tr_buffers *b);

/* Whatever is open unmapped and closed; b is TR_BUFFERS_CLOSED after. */
void tr_buffers_close(struct tr_buffers *b);

#endif /* TRACER_BUFFERS_H */

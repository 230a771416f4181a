/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading a trace directory written by tracer record: every CPU's stream
 * of packets, merged into one sequence in timestamp order in one pass.
 * Each stream is in time order already (ringbuf.h, I2), so a heap of the
 * streams' next items gives the global order.  Losses come out as items
 * where they happened.  Files are checked, never trusted: a damaged or
 * truncated stream ends with a warning and the others go on.
 */
#ifndef TRACER_TRACE_H
#define TRACER_TRACE_H

#include <stddef.h>
#include <tracer/layout.h>

struct tep_handle;
struct tep_event;
struct tr_trace;

/* An event class of the trace. */
struct tr_trace_class {
	char *system;
	char *name;
	struct tep_event *tep;		/* its parsed tracefs format */
};

enum tr_item_kind {
	TR_ITEM_RECORD,
	TR_ITEM_LOST,			/* overwritten sub-buffers, or lost events */
};

struct tr_item {
	enum tr_item_kind kind;
	__u32 cpu;
	__u64 ts;
	/* TR_ITEM_RECORD */
	const struct tr_event_header *record;
	const struct tr_trace_class *class;	/* NULL for an unknown id */
	/* TR_ITEM_LOST: events by cause since the previous packet, and packets */
	__u64 lost_full, lost_wrap, lost_big, lost_busy;
	__u64 lost_packets;			/* overwritten (sequence gap) */
};

/* Open a trace directory; on failure -errno and one line in why. */
int tr_trace_open(struct tr_trace **trace, const char *dir, char *why, size_t whylen);

/*
 * The next item in time order: 1, or 0 at the end.  *warning is set (and
 * stays valid until the next call) when a stream had to be cut short.
 */
int tr_trace_next(struct tr_trace *trace, struct tr_item *item, const char **warning);

struct tep_handle *tr_trace_tep(const struct tr_trace *trace);
void tr_trace_close(struct tr_trace *trace);

#endif /* TRACER_TRACE_H */

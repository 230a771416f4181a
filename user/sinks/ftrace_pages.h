/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Records packed into pages of the kernel's ring buffer as the kernel
 * lays them out for trace.dat's per-CPU data (kernel/trace/ring_buffer.c,
 * read back by libtraceevent's kbuffer): a page of 4096 bytes is
 *   - u64 timestamp: the time its first event is relative to;
 *   - u64 commit: its data bytes, with RB_MISSED_EVENTS set when events
 *     were lost before it, and RB_MISSED_STORED when their number follows
 *     the data (a u64);
 *   - 4080 bytes of data: events, each a 32-bit header (type_len: 5 bits,
 *     time_delta: 27 bits, the time since the previous event) and its
 *     payload, 4-byte aligned.  type_len 1 to 28 is the payload's length
 *     in words; 0 puts the length + 4 in the next word; 30 extends the
 *     next event's time delta by its next word shifted left by 27.
 * tr_ftrace_header_page and tr_ftrace_header_event are tracefs's
 * descriptions of that layout (events/header_page, events/header_event),
 * as a trace.dat carries them.
 */
#ifndef TRACER_FTRACE_PAGES_H
#define TRACER_FTRACE_PAGES_H

#include <linux/types.h>

#define TR_FTRACE_PAGE_SIZE	4096
#define TR_FTRACE_PAGE_HEADER	16
#define TR_FTRACE_PAGE_DATA	(TR_FTRACE_PAGE_SIZE - TR_FTRACE_PAGE_HEADER)
/* The largest payload a page takes: its data less two header words and a count of events lost. */
#define TR_FTRACE_PAYLOAD_MAX	(TR_FTRACE_PAGE_DATA - 16)

extern const char tr_ftrace_header_page[], tr_ftrace_header_event[];

/* One CPU's pages, written to fd as each fills. */
struct tr_ftrace_pages {
	int fd;
	int err;			/* the first write's -errno, then nothing is written */
	__u32 used;			/* data bytes in page */
	__u64 ts;			/* the time of the page's last event */
	__u64 missed;			/* events lost before the page's first */
	int missed_unknown;		/* ... and some whose number is unknown */
	__u64 pages;			/* written */
	unsigned char page[TR_FTRACE_PAGE_SIZE];
};

/* p empty, its pages for fd (p does not close it). */
void tr_ftrace_pages_init(struct tr_ftrace_pages *p, int fd);

/*
 * A record of len payload bytes at ts (not before the previous one's:
 * an earlier time is taken as the previous one's).  0; -E2BIG for a
 * payload beyond TR_FTRACE_PAYLOAD_MAX, left out; or p->err.
 */
int tr_ftrace_pages_add(struct tr_ftrace_pages *p, __u64 ts, const void *payload, __u32 len);

/*
 * events lost before the next record (unknown: some whose number is not
 * known), said in the page that holds it: the page being filled ends.
 */
void tr_ftrace_pages_lost(struct tr_ftrace_pages *p, __u64 events, int unknown);

/* The page being filled onto fd: 0 or p->err. */
int tr_ftrace_pages_flush(struct tr_ftrace_pages *p);

#endif /* TRACER_FTRACE_PAGES_H */

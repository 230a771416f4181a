/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer record: tracepoints through BPF (and the kernel module) into a CTF
 * trace directory (metadata, one stream file per CPU).  The options and
 * the calls the command line makes are public (tracer/recording.h); here
 * what tracer top's live side adds.
 */
#ifndef TRACER_RECORDER_H
#define TRACER_RECORDER_H

#include <sys/types.h>
#include <tracer/layout.h>
#include <tracer/record.h>
#include <tracer/recording.h>

#include "reader/trace_dir.h"

struct tr_item;
struct tr_trace;

/* A recording as its live reader sees it: who writes, what was lost so far by cause, what came late. */
struct tr_live_status {
	const char *backend;		/* "bpf" or "kmod" */
	__u64 lost_full, lost_wrap, lost_big, lost_busy;	/* ringbuf.h, I5 */
	__u64 misses;			/* the kernel skipped the programs (recursion) */
	__u64 late;			/* items out of time order (tr_trace_late()) */
	__u64 unfed;			/* packets the live reader had no memory for */
};

/*
 * tracer top's side of a recording: every packet the consumer takes also
 * goes to a live trace (reader/trace.h); its items come out to item() in time
 * order once every buffer has delivered what came before them, and
 * round() follows each consumer round with the time they have reached
 * (~0 at the end) and what was lost.  Writing to stop_fd (a non-blocking
 * eventfd, or -1) ends the recording as Ctrl-C does.
 */
struct tr_live_sink {
	void (*item)(void *data, const struct tr_item *item);
	/*
	 * After the items up to reached (~0: the end); the first call, with
	 * reached 0, comes before any item, so that status is known from the start.
	 */
	void (*round)(void *data, __u64 reached, const struct tr_live_status *status);
	/* Or NULL: the live trace, once open, before any item (its classes, for a sink). */
	void (*opened)(void *data, struct tr_trace *trace);
	void *data;
	int stop_fd;
	/*
	 * --sample: the records of this share of the packets (1 to 100) go
	 * to the reader, the others' headers only; which ones is a hash of
	 * their buffer and sequence number, so no workload's rhythm aligns
	 * with it.
	 */
	unsigned int sample_percent;
};

#endif /* TRACER_RECORDER_H */

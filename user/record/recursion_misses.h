/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Events the kernel never handed to tracer's programs.  A tracepoint that
 * fires while a BPF program already runs on that CPU (an interrupt that
 * arrives during one) is skipped by the kernel, which counts it in each
 * program's recursion_misses: per program, not per CPU or per event.
 * The recorder reads those counters at every flush and writes what grew
 * as a tracer:recursion_misses record, so the trace says how many events
 * were skipped and between which two times.
 */
#ifndef TRACER_MISSES_H
#define TRACER_MISSES_H

#include <bpf/libbpf.h>
#include <tracer/ringbuf.h>

/* The record: a tracepoint-style common header, then the counts. */
struct tr_misses_record {
	__u16 common_type;
	__u8 common_flags;
	__u8 common_preempt_count;
	__s32 common_pid;
	__u64 skipped;			/* events skipped since `since` */
	__u64 since;			/* ns: the previous reading */
};

/* Its tracefs-style format, for tr_events_add_format() and decoders. */
extern const char tr_misses_format[];

/* The sum of recursion_misses over every loaded program of obj. */
__u64 tr_recursion_misses(const struct bpf_object *obj);

/* Writes a record into buffer b (any CPU's); 0 or -errno, counted lost. */
int tr_misses_write(const struct trb_buf *b, __u32 event_id, __u64 skipped, __u64 since);

#endif /* TRACER_MISSES_H */

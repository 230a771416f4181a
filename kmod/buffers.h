/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef TRACER_KMOD_BUFFERS_H
#define TRACER_KMOD_BUFFERS_H

#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <asm/local.h>
#include <tracer/kmod.h>
#include <tracer/ringbuf.h>

#include "tracepoints.h"

/* One CPU's buffer: a region laid out as layout.h says, and its timer. */
struct tr_kbuf {
	struct trb_buf buf;
	void *region;			/* vmalloc_user(), mapped read-only */
	struct hrtimer tick;		/* flush and reader wake-up, on its CPU */
	local_t attempted;		/* records writers tried: recorded + lost */
	struct tr_session *session;
	bool held;			/* the reader holds a sub-buffer (reader_lock) */
	u64 held_pos;			/* its position */
} ____cacheline_aligned_in_smp;

/* A recording session: every possible CPU's buffer. */
struct tr_session {
	struct tr_kbuf *cpu;		/* [nr_cpu_ids] */
	unsigned int ncpu;
	u64 region_stride;		/* bytes between regions in the mmap */
	ktime_t flush_period;
	bool finished;			/* writers refuse records from now on */
	u32 selftest_event_id;		/* TR_KMOD_NO_EVENT: the session has none */
	struct mutex reader_lock;	/* one reader at a time (ringbuf.h) */
	struct tr_tracepoints tracepoints;	/* fed by perf events (6.1) */
	wait_queue_head_t readers;
};

/* Writers reach the one active session through these. */
int tr_session_publish(struct tr_session *s);
void tr_session_unpublish(struct tr_session *s);
int tr_active_write(u32 event_id, const void *data, u32 size);
/* The same, the record's bytes being head then tail. */
int tr_active_write_split(u32 event_id, const void *head, u32 head_size,
			  const void *tail, u32 tail_size);
/* A self-test record, under the id the active session gave it. */
int tr_active_write_selftest(const void *data, u32 size);

struct tr_session *tr_session_create(const struct tr_kmod_setup *setup);
void tr_session_destroy(struct tr_session *s);
int tr_session_get_subbuf(struct tr_session *s, struct tr_kmod_subbuf *sb);
int tr_session_put_subbuf(struct tr_session *s, const struct tr_kmod_subbuf *sb);
void tr_session_flush(struct tr_session *s);
void tr_session_finish(struct tr_session *s);
__poll_t tr_session_poll_mask(struct tr_session *s);
u64 tr_session_attempted(struct tr_session *s, unsigned int cpu);

#endif /* TRACER_KMOD_BUFFERS_H */

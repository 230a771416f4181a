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

struct files_struct;

/* One CPU's buffer: a region laid out as layout.h says, and its timer. */
struct tr_kbuf {
	struct trb_buf buf;
	void *region;			/* vmap() of pages, mapped read-only */
	struct page **pages;		/* [npages] */
	unsigned long npages;
	struct hrtimer tick;		/* flush and reader wake-up, on its CPU */
	local_t attempted;		/* records writers tried: recorded + lost */
	struct tr_session *session;
	unsigned int cpu;
	bool held;			/* the reader holds a sub-buffer (reader_lock) */
	u64 held_pos;			/* its position */
} ____cacheline_aligned_in_smp;

/* A recording session: every possible CPU's buffer. */
struct tr_session {
	struct tr_kbuf *cpu;		/* [nr_cpu_ids] */
	unsigned int ncpu;
	u64 region_stride;		/* bytes between regions in the mmap */
	ktime_t tick_period;
	bool flush_on_tick;		/* flush_ms > 0 */
	bool finished;			/* writers refuse records from now on */
	u32 selftest_event_id;		/* TR_KMOD_NO_EVENT: the session has none */
	u32 nevents;			/* its records' ids are below this, or the self-test's */
	struct hlist_node cpuhp;	/* its timers follow CPUs on and off line */
	struct files_struct *owner;	/* whose close() ends the session */
	struct mutex end_lock;
	bool ended;			/* unpublished, timers stopped (end_lock) */
	struct mutex reader_lock;	/* one reader at a time (ringbuf.h) */
	struct tr_tracepoints tracepoints;	/* fed by perf events (6.1) */
	wait_queue_head_t readers;
};

int tr_buffers_init(void);
void tr_buffers_exit(void);

/* Writers reach the one active session through these. */
int tr_session_publish(struct tr_session *s);
int tr_active_write(u32 event_id, const void *data, u32 size);
/* The same, the record's bytes being head then tail. */
int tr_active_write_split(u32 event_id, const void *head, u32 head_size,
			  const void *tail, u32 tail_size);
/* A self-test record, under the id the active session gave it. */
int tr_active_write_selftest(const void *data, u32 size);

/*
 * A session as setup asks, with its geometry written back into setup
 * (ncpu, region_stride), also when its buffers do not fit in memory:
 * ERR_PTR(-E2BIG) when they would take more than half of the memory
 * available, ERR_PTR(-ENOMEM) when they could not be allocated.
 */
struct tr_session *tr_session_create(struct tr_kmod_setup *setup);
/* No writer, timer or perf event uses s after this; its memory stays. */
void tr_session_end(struct tr_session *s);
/* End s if it is not, and free it: nothing maps its regions any more. */
void tr_session_destroy(struct tr_session *s);
bool tr_session_has_event(const struct tr_session *s, u32 event_id);
int tr_session_get_subbuf(struct tr_session *s, struct tr_kmod_subbuf *sb);
int tr_session_put_subbuf(struct tr_session *s, const struct tr_kmod_subbuf *sb);
void tr_session_flush(struct tr_session *s);
void tr_session_finish(struct tr_session *s);
__poll_t tr_session_poll_mask(struct tr_session *s);
u64 tr_session_attempted(struct tr_session *s, unsigned int cpu);

#endif /* TRACER_KMOD_BUFFERS_H */

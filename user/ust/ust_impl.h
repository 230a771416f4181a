/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside libtracer-ust: what registration (ust.c), the trace description
 * (ust_meta.c) and dumps (ust_dump.c) share.
 *
 * Buffers are per thread and channel (see ust.c for why), in memory from
 * memfd_create(), so that a recorder can later map them.  A buffer is on
 * the process's list from its creation to the process's end; a thread
 * owns it while it lives, then the next thread that needs a buffer of
 * that channel takes it over, so their number stays that of the threads
 * alive at once.
 */
#ifndef TRACER_UST_IMPL_H
#define TRACER_UST_IMPL_H

#include <stddef.h>
#include <tracer/record.h>
#include <tracer/ringbuf.h>
#include <tracer/ust.h>

#include "layout/handoff.h"

struct ust_buffer {
	struct trb_buf rb;		/* rb.cpu is its number: stream file CHANNEL_NUMBER */
	void *region;
	size_t region_size;
	int fd;
	int owner;			/* tid of the thread writing it, 0: none, -1: a dump */
	__u64 released;			/* when its last owner ended (ust_clock) */
	__u64 dumped_to;		/* position up to which a dump took the open sub-buffer */
	struct ust_buffer *next;	/* the process's list, newest first */
};

/*
 * The texts a dump writes, made when events register (never while
 * recording): the CTF metadata, .tracer/events and .tracer/channels.
 */
struct ust_texts {
	char *metadata;
	char *events;
	char *channels;
};

struct ust_state {
	struct ust_buffer *buffers;		/* pushed with a compare-and-swap */
	struct tracer_ust_channel *channels[TR_MAX_CHANNELS];
	unsigned int nchannels;
	unsigned int next_number[TR_MAX_CHANNELS];
	struct tracer_ust_event **events;	/* by id - 1 */
	unsigned int nevents;
	struct ust_texts *texts;		/* the newest, swapped whole */
	__u64 unregistered;			/* events not recorded: no id (too many) */
};

extern struct ust_state ust;

/*
 * A record's payload: tracefs's common fields, then 8 bytes per argument
 * (a string's: the locator of its bytes, length << 16 | offset, as a
 * tracepoint's __data_loc), then the strings' bytes.  The last argument's
 * slot, if a string's, is its 4-byte locator only, so that the strings
 * follow the last field described (CTF readers take them from there).
 */
struct ust_common {
	__u16 type;
	__u8 flags;
	__u8 preempt_count;
	__s32 pid;
};

static inline __u32 ust_fixed_size(const struct tracer_ust_event *e)
{
	return sizeof(struct ust_common) + 8 * e->nargs -
	       (e->nargs && e->arg_types[e->nargs - 1] == 's' ? 4 : 0);
}

/* The texts for the events registered so far, or NULL (out of memory). */
struct ust_texts *ust_texts_make(void);
/* Their descriptions where a recorder finds them (ust_meta.c). */
void ust_texts_publish(const struct ust_texts *t);

/* The records' clock (ust_clock.c): CLOCK_MONOTONIC, from the TSC where it can. */
__u64 ust_clock(void);
void ust_clock_init(void);
/* Wait until this thread's clock is past ns. */
void ust_clock_after(__u64 ns);

/* A recorder that started this program (layout/handoff.h, ust_handoff.c). */
void ust_handoff_init(void);
void ust_handoff(char kind, int fd);
/* A sub-buffer ended: wake that recorder, if any.  errno is kept. */
void ust_handoff_wake(void);

/* TRACER_UST_CRASH_DIR: dump there on a fatal signal (ust_dump.c). */
void ust_crash_dumps_from_env(void);

#endif /* TRACER_UST_IMPL_H */

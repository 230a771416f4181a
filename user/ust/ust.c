// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtracer-ust's recording: registration of the events at load, the
 * per-thread buffers, and the write path.
 *
 * Why per thread.  A user thread cannot disable preemption, so a thread
 * preempted between reserve and commit holds its sub-buffer back from
 * delivery; in a buffer shared with other threads (per CPU, as
 * lttng-ust's) they fill the other sub-buffers meanwhile and then drop
 * their records as lost_wrap (ringbuf.h, I4).  bench/ringbuf_bench shows
 * both costs here: two threads sharing one buffer pay 389 ns an event
 * against 58 in a buffer each, and lose records in some runs.  A buffer
 * written by one thread only is the kernel's per-CPU case: its writers
 * are the thread and its signal handlers, which nest and finish before it
 * resumes, so no writer ever waits on a descheduled one, and its
 * counters need no lock prefix (TRB_LOCAL_THREAD).  The price is memory:
 * a buffer per thread and channel; buffers of threads that ended are
 * taken over by new threads.
 */
#define _GNU_SOURCE
#define TRB_LOCAL_THREAD
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ust_impl.h"

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

_Static_assert(TRACER_UST_OVERWRITE == TR_MODE_OVERWRITE && TRACER_UST_DISCARD == TR_MODE_DISCARD,
	       "ust.h's modes are the layout's");
_Static_assert(TRACER_UST_STRING_MAX < 65536, "a string's length fits its locator");


struct ust_state ust;

static pthread_mutex_t registration = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t thread_end;
static pthread_once_t initialized = PTHREAD_ONCE_INIT;

static void init(void);

/* A thread's buffers, one per channel, and its ids. */
static __thread struct ust_thread {
	struct ust_buffer *buf[TR_MAX_CHANNELS];
	__u64 pid_tid;
} self __attribute__((tls_model("initial-exec")));

static int register_channel(struct tracer_ust_channel *c)
{
	const char *problem = trb_geometry_problem(c->subbuf_size, c->nsubbuf);

	if (c->index >= 0)
		return 0;
	if (!problem && c->mode != TR_MODE_OVERWRITE && c->mode != TR_MODE_DISCARD)
		problem = "mode is neither TRACER_UST_OVERWRITE nor TRACER_UST_DISCARD";
	if (!problem && ust.nchannels == TR_MAX_CHANNELS)
		problem = "a program has at most 8 channels";
	if (problem) {
		/* Said once: the channel stays unregistered, its events are counted lost. */
		if (c->index == -1)
			fprintf(stderr, "tracer-ust: channel %s: %s; its events are not recorded\n",
				c->name, problem);
		c->index = -2;
		return -EINVAL;
	}
	c->index = ust.nchannels;
	ust.channels[ust.nchannels++] = c;
	return 0;
}

static int register_event(struct tracer_ust_event *e)
{
	struct tracer_ust_event **events;

	if (e->id || ust.nevents + 1 >= TR_MAX_EVENTS || register_channel(e->channel))
		return 0;
	events = realloc(ust.events, (ust.nevents + 1) * sizeof(*events));
	if (!events)
		return 0;
	ust.events = events;
	events[ust.nevents++] = e;
	e->id = ust.nevents;
	return 1;
}

void tracer_ust_register(struct tracer_ust_event *const *begin,
			 struct tracer_ust_event *const *end)
{
	struct ust_texts *texts, *old;
	int added = 0;

	pthread_once(&initialized, init);
	if (!begin)
		return;
	pthread_mutex_lock(&registration);
	for (; begin < end; begin++)
		added |= register_event(*begin);
	texts = added ? ust_texts_make() : NULL;
	if (texts) {
		ust_texts_publish(texts);
		old = __atomic_exchange_n(&ust.texts, texts, __ATOMIC_ACQ_REL);
		/* A dump in a signal handler may be writing the old texts: they stay. */
		(void)old;
	}
	pthread_mutex_unlock(&registration);
}

/* b is free for the next thread that needs a buffer of its channel. */
static void release(struct ust_buffer *b)
{
	b->released = ust_clock();
	__atomic_store_n(&b->owner, 0, __ATOMIC_RELEASE);
}

/* The thread ended: its buffers are free for the next thread. */
static void release_buffers(void *unused)
{
	unsigned int c;

	(void)unused;
	for (c = 0; c < TR_MAX_CHANNELS; c++)
		if (self.buf[c])
			release(self.buf[c]);
	memset(&self, 0, sizeof(self));
}

static struct ust_buffer *take_over(unsigned int channel, int tid)
{
	struct ust_buffer *b;

	for (b = __atomic_load_n(&ust.buffers, __ATOMIC_ACQUIRE); b; b = b->next) {
		int free_owner = 0;

		if (b->rb.stream_id != channel || __atomic_load_n(&b->owner, __ATOMIC_RELAXED) ||
		    !__atomic_compare_exchange_n(&b->owner, &free_owner, tid, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		/* Its records go on after the last owner's: never before them in time (I2). */
		ust_clock_after(b->released);
		return b;
	}
	return NULL;
}

/* A new buffer of channel, in memory a recorder could map; async-signal-safe. */
static struct ust_buffer *create(unsigned int channel, int tid)
{
	const struct tracer_ust_channel *c = ust.channels[channel];
	struct trb_config cfg = {
		.subbuf_size = c->subbuf_size, .nsubbuf = c->nsubbuf, .mode = c->mode,
		.cpu = __atomic_fetch_add(&ust.next_number[channel], 1, __ATOMIC_RELAXED),
		.stream_id = channel,
	};
	struct ust_buffer *b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (b == MAP_FAILED)
		return NULL;
	b->region_size = TR_BUF_REGION_SIZE(cfg.subbuf_size, cfg.nsubbuf);
	b->fd = memfd_create(UST_BUFFER_MEMFD, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (b->fd < 0 || ftruncate(b->fd, b->region_size) ||
	    fcntl(b->fd, F_ADD_SEALS, UST_BUFFER_SEALS))
		goto fail;
	/* Populated now: a writer never takes a page fault into this memory. */
	b->region = mmap(NULL, b->region_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			 b->fd, 0);
	if (b->region == MAP_FAILED || trb_init(&b->rb, b->region, &cfg, ust_clock))
		goto fail;
	b->owner = tid;
	ust_handoff(UST_HANDOFF_BUFFER, b->fd);
	b->next = __atomic_load_n(&ust.buffers, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&ust.buffers, &b->next, b, 1, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	return b;
fail:
	if (b->region && b->region != MAP_FAILED)
		munmap(b->region, b->region_size);
	if (b->fd >= 0)
		close(b->fd);
	munmap(b, sizeof(*b));
	return NULL;
}

/*
 * This thread's buffer of channel, taken over or made on its first event
 * there.  A signal handler that records may interrupt this and get the
 * thread a buffer first: then the one got here is freed again, since only
 * the buffer in self.buf is ever released, and an owned buffer is never
 * flushed by a dump, so its overwritten records would go uncounted.
 */
static __attribute__((noinline)) struct ust_buffer *thread_buffer(unsigned int channel)
{
	int tid, saved = errno;		/* recording leaves the program's errno as it was */
	struct ust_buffer *b, *none = NULL;

	if (!self.pid_tid)
		self.pid_tid = (__u64)getpid() << 32 | (__u32)gettid();
	tid = (__u32)self.pid_tid;
	b = take_over(channel, tid);
	if (!b)
		b = create(channel, tid);
	if (b && !__atomic_compare_exchange_n(&self.buf[channel], &none, b, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED))
		release(b);
	if (self.buf[channel])
		pthread_setspecific(thread_end, &self);
	errno = saved;
	return self.buf[channel];
}

/* Payload bytes of an event with these values: fixed part, then the strings. */
static __u32 payload_size(const struct tracer_ust_event *e, const uint64_t *values,
			  __u16 *lengths)
{
	__u32 size = ust_fixed_size(e), i;

	for (i = 0; i < e->nargs; i++) {
		const char *s = (const char *)(uintptr_t)values[i];

		if (e->arg_types[i] != 's')
			continue;
		lengths[i] = (s ? strnlen(s, TRACER_UST_STRING_MAX - 1) : 6) + 1;
		size += lengths[i];
	}
	return size;
}

static void write_payload(const struct tracer_ust_event *e, const uint64_t *values,
			  const __u16 *lengths, char *payload, __s32 tid)
{
	struct ust_common *common = (struct ust_common *)payload;
	char *slot = payload + sizeof(*common);
	__u32 at = ust_fixed_size(e), i;

	*common = (struct ust_common) { .type = e->id, .pid = tid };
	for (i = 0; i < e->nargs; i++, slot += 8) {
		__u64 value = values[i];

		if (e->arg_types[i] == 's') {
			value = (__u32)lengths[i] << 16 | at;
			at += lengths[i];
		}
		/* The last string's locator is 4 bytes: its string follows. */
		memcpy(slot, &value, i + 1 == e->nargs && e->arg_types[i] == 's' ? 4 : 8);
	}
	for (at = ust_fixed_size(e), i = 0; i < e->nargs; i++) {
		const char *s = (const char *)(uintptr_t)values[i];

		if (e->arg_types[i] != 's')
			continue;
		memcpy(payload + at, s ? s : "(null)", lengths[i] - 1);
		payload[at + lengths[i] - 1] = 0;
		at += lengths[i];
	}
}

void tracer_ust_write(const struct tracer_ust_event *e, const uint64_t *values)
{
	__u16 lengths[TRACER_UST_MAX_ARGS];
	struct ust_buffer *b;
	struct trb_slot slot;
	__u32 size;

	if (unlikely(!e->id)) {
		__atomic_fetch_add(&ust.unregistered, 1, __ATOMIC_RELAXED);
		return;
	}
	b = self.buf[e->channel->index];
	if (unlikely(!b) && !(b = thread_buffer(e->channel->index))) {
		__atomic_fetch_add(&ust.unregistered, 1, __ATOMIC_RELAXED);
		return;
	}
	size = payload_size(e, values, lengths);
	if (trb_reserve(&b->rb, &slot, e->id, size, self.pid_tid))
		return;
	write_payload(e, values, lengths, trb_payload(&slot), (__u32)self.pid_tid);
	trb_commit(&b->rb, &slot);
	/* It ended or filled a sub-buffer: delivered now, or at the commit of one it interrupted. */
	if (unlikely(slot.switches & (TRB_SWITCH_OLD_END | TRB_SWITCH_NEW_END)))
		ust_handoff_wake();
}

void tracer_ust_counts(struct tracer_ust_counts *counts)
{
	struct ust_buffer *b;

	counts->lost = __atomic_load_n(&ust.unregistered, __ATOMIC_RELAXED);
	counts->overwritten = 0;
	for (b = __atomic_load_n(&ust.buffers, __ATOMIC_ACQUIRE); b; b = b->next) {
		counts->lost += trb_lost(&b->rb);
		counts->overwritten += trb_read(&b->rb.ctl->records_overrun);
	}
}

/* The child of a fork writes buffers of its own: the parent's are shared memory. */
static void forget_buffers(void)
{
	struct ust_buffer *b, *next;

	for (b = ust.buffers; b; b = next) {
		next = b->next;
		munmap(b->region, b->region_size);
		close(b->fd);
		munmap(b, sizeof(*b));
	}
	ust.buffers = NULL;
	memset(ust.next_number, 0, sizeof(ust.next_number));
	memset(&self, 0, sizeof(self));
}

static void init(void)
{
	ust_clock_init();
	ust_handoff_init();
	pthread_key_create(&thread_end, release_buffers);
	pthread_atfork(NULL, NULL, forget_buffers);
	ust_crash_dumps_from_env();
}

/* Before the first registration: constructors of a static link run in no set order. */
static void __attribute__((constructor)) ust_init(void)
{
	pthread_once(&initialized, init);
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The atomic operations the ring buffer protocol (ringbuf.h) is written in.
 *
 * The protocol distinguishes two kinds of shared words, as the LTTng
 * scheme does:
 *  - "local" words are modified only by the writers of one buffer
 *    (write_count, commit counters, lost counters).  In the kernel these
 *    writers all run on the buffer's CPU with preemption disabled, so a
 *    local_t operation (no lock prefix) suffices and is NMI-safe.
 *  - "shared" words are modified by writers and the reader, which may run
 *    on another CPU (consumed, the sub-buffer table): SMP-safe always.
 *
 * In user space a thread can migrate between reading a CPU number and
 * using that CPU's buffer, and several threads share one buffer, so the
 * local operations are SMP-safe atomics too (S0 section 4.1, footnote 2),
 * mapped onto the GCC/clang __atomic builtins.  In the kernel module the
 * local operations are local_t operations: the writers of a buffer run on
 * its CPU with preemption disabled (kmod/buffers.c), and a reader on
 * another CPU sees their writes through the release store that delivers
 * a sub-buffer (ringbuf.h, I4).  The words are __u64 in the layout;
 * local_t is one long, the same size on the 64-bit kernels supported.
 *
 * A user-space buffer written by one thread only (the per-thread buffers
 * of the user-space tracing library, user/ust/) is the kernel's case
 * again: its writers are the thread and the signal handlers that
 * interrupt it, which run to completion before the thread resumes.  A
 * file that defines TRB_LOCAL_THREAD before including ringbuf.h gets local
 * operations that are single x86 instructions without the lock prefix,
 * as local_t's are: atomic against signal handlers, which interrupt only
 * between instructions, and ordered for a reader on another CPU by x86's
 * store order and the release store of delivery.  Elsewhere they stay
 * SMP atomics.
 */
#ifndef TRACER_RINGBUF_ATOMIC_H
#define TRACER_RINGBUF_ATOMIC_H

#ifdef __KERNEL__
#include <linux/atomic.h>
#include <asm/local.h>

static_assert(sizeof(local_t) == sizeof(__u64), "local_t holds a counter");

static inline __u64 trb_shared_cmpxchg(__u64 *p, __u64 old, __u64 new)
{
	return cmpxchg(p, old, new);
}

static inline __u64 trb_local_cmpxchg(__u64 *p, __u64 old, __u64 new)
{
	return local_cmpxchg((local_t *)p, old, new);
}

static inline __u64 trb_read(const __u64 *p)
{
	return READ_ONCE(*p);
}

static inline __u64 trb_read_acquire(const __u64 *p)
{
	return smp_load_acquire(p);
}

static inline void trb_write(__u64 *p, __u64 v)
{
	WRITE_ONCE(*p, v);
}

static inline void trb_write_release(__u64 *p, __u64 v)
{
	smp_store_release(p, v);
}

/* The control block's magic, written last by trb_init() (ringbuf.h). */
static inline __u32 trb_read_acquire32(const __u32 *p)
{
	return smp_load_acquire(p);
}

static inline void trb_write_release32(__u32 *p, __u32 v)
{
	smp_store_release(p, v);
}

/* Orders the reads before it before the reads after it. */
static inline void trb_read_fence(void)
{
	smp_rmb();
}

/* Same-CPU writers only: program order is the ordering they need. */
static inline __u64 trb_local_add_return(__u64 *p, __u64 v)
{
	return local_add_return(v, (local_t *)p);
}

static inline void trb_local_add(__u64 *p, __u64 v)
{
	local_add(v, (local_t *)p);
}

#else /* user space */

#include <linux/types.h>

/* Compare-and-swap on a shared word, a full barrier; returns the value found. */
static inline __u64 trb_shared_cmpxchg(__u64 *p, __u64 old, __u64 new)
{
	__atomic_compare_exchange_n(p, &old, new, 0, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return old;
}

static inline __u64 trb_read(const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Orders the reads after it after this read (pairs with trb_write_release). */
static inline __u64 trb_read_acquire(const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void trb_write(__u64 *p, __u64 v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* Publishes every write before it together with this one. */
static inline void trb_write_release(__u64 *p, __u64 v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* The control block's magic, written last by trb_init() (ringbuf.h). */
static inline __u32 trb_read_acquire32(const __u32 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void trb_write_release32(__u32 *p, __u32 v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Orders the reads before it before the reads after it. */
static inline void trb_read_fence(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

#if defined(TRB_LOCAL_THREAD) && defined(__x86_64__)

static inline __u64 trb_local_cmpxchg(__u64 *p, __u64 old, __u64 new)
{
	__u64 seen;

	asm volatile("cmpxchgq %2, %1" : "=a"(seen), "+m"(*p) : "r"(new), "0"(old) : "memory");
	return seen;
}

static inline __u64 trb_local_add_return(__u64 *p, __u64 v)
{
	__u64 old = v;

	asm volatile("xaddq %0, %1" : "+r"(old), "+m"(*p) : : "memory");
	return old + v;
}

static inline void trb_local_add(__u64 *p, __u64 v)
{
	asm volatile("addq %1, %0" : "+m"(*p) : "er"(v) : "memory");
}

#else

/* Compare-and-swap on a local word: in user space every word is shared. */
static inline __u64 trb_local_cmpxchg(__u64 *p, __u64 old, __u64 new)
{
	return trb_shared_cmpxchg(p, old, new);
}

/*
 * Adds to a local word and returns the sum.  Publishes every earlier
 * write, and sees every write published by earlier adds to the word:
 * whoever sees the final sum may hand all of them on (acquire + release).
 */
static inline __u64 trb_local_add_return(__u64 *p, __u64 v)
{
	return __atomic_add_fetch(p, v, __ATOMIC_ACQ_REL);
}

static inline void trb_local_add(__u64 *p, __u64 v)
{
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

#endif /* TRB_LOCAL_THREAD on x86-64 */
#endif /* __KERNEL__ */
#endif /* TRACER_RINGBUF_ATOMIC_H */

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The module's per-CPU buffers: ringbuf.h's protocol over regions from
 * vmalloc_user(), one per possible CPU, written by whatever runs on that
 * CPU (BPF programs through the kfuncs, the NMI self-test) and read
 * through /dev/tracer (main.c).
 *
 * The writer side follows S1's rules for code that may run anywhere,
 * NMI included: writers disable preemption, so every writer of a buffer
 * runs on its CPU and ringbuf_atomic.h's local_t operations are enough;
 * the probe path takes no lock, allocates nothing, wakes nobody and
 * prints nothing; it is notrace and NOKPROBE; and a per-CPU nesting count
 * bounds how deep writers may interrupt each other (beyond it a record is
 * dropped as lost_busy).  Flushing and waking the reader are the job of a
 * per-CPU timer, which runs on the buffer's CPU like the writers.
 *
 * The session a writer uses is published with RCU: writers run with
 * preemption disabled, so after unpublishing, synchronize_rcu() waits for
 * every writer still inside the buffers before they are freed.
 */
#include <linux/cpu.h>
#include <linux/kprobes.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>

#include "buffers.h"
#include "clock.h"

/* Writers nested on one CPU (task, softirq, irq, NMI) before dropping. */
#define TR_MAX_NESTING		4

static DEFINE_PER_CPU(int, tr_nesting);

/* Write a record made of head and tail (tail may be empty). */
static notrace int tr_kbuf_write(struct tr_kbuf *kb, u32 event_id,
				 const void *head, u32 head_size,
				 const void *tail, u32 tail_size)
{
	struct trb_slot slot;
	int err;

	local_inc(&kb->attempted);
	if (this_cpu_inc_return(tr_nesting) > TR_MAX_NESTING) {
		trb_local_add(&kb->buf.ctl->lost_busy, 1);
		err = -EBUSY;
	} else {
		err = trb_reserve(&kb->buf, &slot, event_id, head_size + tail_size);
		if (!err) {
			memcpy(trb_payload(&slot), head, head_size);
			memcpy(trb_payload(&slot) + head_size, tail, tail_size);
			trb_commit(&kb->buf, &slot);
		}
	}
	this_cpu_dec(tr_nesting);
	return err;
}

/* The session writers use, or NULL. */
static struct tr_session __rcu *tr_active;

static notrace int tr_active_write_as(bool selftest, u32 event_id,
				      const void *head, u32 head_size,
				      const void *tail, u32 tail_size)
{
	struct tr_session *s;
	int err = -ENODEV;

	preempt_disable_notrace();
	s = rcu_dereference_sched(tr_active);
	if (s && selftest)
		event_id = s->selftest_event_id;
	if (s && event_id != TR_KMOD_NO_EVENT)
		err = READ_ONCE(s->finished) ? -ESHUTDOWN :
		      tr_kbuf_write(&s->cpu[smp_processor_id()], event_id,
				    head, head_size, tail, tail_size);
	preempt_enable_notrace();
	return err;
}
NOKPROBE_SYMBOL(tr_active_write_as);

notrace int tr_active_write(u32 event_id, const void *data, u32 size)
{
	return tr_active_write_as(false, event_id, data, size, NULL, 0);
}
NOKPROBE_SYMBOL(tr_active_write);

notrace int tr_active_write_split(u32 event_id, const void *head, u32 head_size,
				  const void *tail, u32 tail_size)
{
	return tr_active_write_as(false, event_id, head, head_size, tail, tail_size);
}
NOKPROBE_SYMBOL(tr_active_write_split);

notrace int tr_active_write_selftest(const void *data, u32 size)
{
	return tr_active_write_as(true, 0, data, size, NULL, 0);
}
NOKPROBE_SYMBOL(tr_active_write_selftest);

static DEFINE_MUTEX(tr_active_lock);

/* Make s the active session; -EBUSY if there is one. */
int tr_session_publish(struct tr_session *s)
{
	int err = 0;

	mutex_lock(&tr_active_lock);
	if (rcu_access_pointer(tr_active))
		err = -EBUSY;
	else
		rcu_assign_pointer(tr_active, s);
	mutex_unlock(&tr_active_lock);
	return err;
}

/* After this, no writer is inside s's buffers. */
void tr_session_unpublish(struct tr_session *s)
{
	mutex_lock(&tr_active_lock);
	if (rcu_access_pointer(tr_active) == s)
		RCU_INIT_POINTER(tr_active, NULL);
	mutex_unlock(&tr_active_lock);
	synchronize_rcu();
}

/* --- Per-CPU timer: flush and wake the reader ------------------------------ */

/* The writer is in the last sub-buffer it may enter (S0 Algorithm 5). */
static bool tr_kbuf_full(const struct tr_kbuf *kb)
{
	const struct trb_buf *b = &kb->buf;

	return trb_read(&b->ctl->write_count) - trb_read(&b->ctl->consumed) >=
	       b->buf_size - b->subbuf_size;
}

/* On kb's CPU: writers there may be interrupted here, flush is one of them. */
static void tr_kbuf_flush_here(void *arg)
{
	struct tr_kbuf *kb = arg;

	this_cpu_inc(tr_nesting);
	trb_flush(&kb->buf);
	this_cpu_dec(tr_nesting);
}

static enum hrtimer_restart tr_kbuf_tick(struct hrtimer *timer)
{
	struct tr_kbuf *kb = container_of(timer, struct tr_kbuf, tick);
	struct tr_session *s = kb->session;

	tr_kbuf_flush_here(kb);
	if (trb_subbuf_ready(&kb->buf))
		wake_up_interruptible(&s->readers);
	hrtimer_forward_now(timer, s->flush_period);
	return HRTIMER_RESTART;
}

static void tr_kbuf_start_tick(void *arg)
{
	struct tr_kbuf *kb = arg;

	hrtimer_start(&kb->tick, kb->session->flush_period, HRTIMER_MODE_REL_PINNED_SOFT);
}

/* --- Session ----------------------------------------------------------------- */

static int tr_kbuf_init(struct tr_session *s, unsigned int cpu,
			const struct tr_kmod_setup *setup)
{
	struct tr_kbuf *kb = &s->cpu[cpu];
	struct trb_config cfg = {
		.subbuf_size = setup->subbuf_size, .nsubbuf = setup->nsubbuf,
		.mode = setup->mode, .cpu = cpu, .stream_id = setup->stream_id,
	};

	hrtimer_init(&kb->tick, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_SOFT);
	kb->tick.function = tr_kbuf_tick;
	kb->session = s;
	kb->region = vmalloc_user(s->region_stride);
	if (!kb->region)
		return -ENOMEM;
	return trb_init(&kb->buf, kb->region, &cfg, tr_clock_ns);
}

struct tr_session *tr_session_create(const struct tr_kmod_setup *setup)
{
	struct tr_session *s;
	unsigned int cpu;
	int err = 0;

	if (trb_geometry_problem(setup->subbuf_size, setup->nsubbuf) ||
	    setup->mode > TR_MODE_OVERWRITE)
		return ERR_PTR(-EINVAL);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->ncpu = nr_cpu_ids;
	s->region_stride = PAGE_ALIGN(TR_BUF_REGION_SIZE(setup->subbuf_size, setup->nsubbuf));
	s->flush_period = ms_to_ktime(setup->flush_ms ? setup->flush_ms : 100);
	s->selftest_event_id = setup->selftest_event_id;
	mutex_init(&s->reader_lock);
	tr_tracepoints_init(&s->tracepoints);
	init_waitqueue_head(&s->readers);
	s->cpu = kcalloc(s->ncpu, sizeof(*s->cpu), GFP_KERNEL);
	if (!s->cpu) {
		kfree(s);
		return ERR_PTR(-ENOMEM);
	}
	for_each_possible_cpu(cpu)
		if (!err)
			err = tr_kbuf_init(s, cpu, setup);
	if (err) {
		tr_session_destroy(s);
		return ERR_PTR(err);
	}
	cpus_read_lock();
	for_each_online_cpu(cpu)
		smp_call_function_single(cpu, tr_kbuf_start_tick, &s->cpu[cpu], 1);
	cpus_read_unlock();
	return s;
}

/* The caller has unpublished s and waited for its writers (synchronize_rcu). */
void tr_session_destroy(struct tr_session *s)
{
	unsigned int cpu;

	tr_tracepoints_release(&s->tracepoints);
	for_each_possible_cpu(cpu) {
		if (s->cpu[cpu].session)
			hrtimer_cancel(&s->cpu[cpu].tick);
		vfree(s->cpu[cpu].region);
	}
	kfree(s->cpu);
	kfree(s);
}

/* --- Reader ---------------------------------------------------------------- */

static struct tr_kbuf *tr_session_kbuf(struct tr_session *s, u32 cpu)
{
	if (cpu >= s->ncpu || !cpu_possible(cpu))
		return NULL;
	return &s->cpu[cpu];
}

int tr_session_get_subbuf(struct tr_session *s, struct tr_kmod_subbuf *sb)
{
	struct tr_kbuf *kb = tr_session_kbuf(s, sb->cpu);
	const char *packet;
	int err;

	if (!kb)
		return -EINVAL;
	mutex_lock(&s->reader_lock);
	err = kb->held ? -EBUSY : trb_get_subbuf(&kb->buf, &sb->pos, &packet);
	if (!err) {
		kb->held = true;
		kb->held_pos = sb->pos;
		sb->offset = packet - (const char *)kb->region;
	}
	mutex_unlock(&s->reader_lock);
	return err;
}

int tr_session_put_subbuf(struct tr_session *s, const struct tr_kmod_subbuf *sb)
{
	struct tr_kbuf *kb = tr_session_kbuf(s, sb->cpu);
	int err = -EINVAL;

	if (!kb)
		return -EINVAL;
	mutex_lock(&s->reader_lock);
	/* Only the sub-buffer the reader holds may be given back. */
	if (kb->held && sb->pos == kb->held_pos) {
		trb_put_subbuf(&kb->buf, sb->pos);
		kb->held = false;
		err = 0;
	}
	mutex_unlock(&s->reader_lock);
	return err;
}

/* Flush each buffer on its CPU; an offline CPU has no writers to race. */
void tr_session_flush(struct tr_session *s)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu))
			smp_call_function_single(cpu, tr_kbuf_flush_here, &s->cpu[cpu], 1);
		else
			trb_flush(&s->cpu[cpu].buf);
	}
	cpus_read_unlock();
	wake_up_interruptible(&s->readers);
}

void tr_session_finish(struct tr_session *s)
{
	WRITE_ONCE(s->finished, true);
	tr_tracepoints_release(&s->tracepoints);
	/* Writers already past the check finish before the flush runs. */
	synchronize_rcu();
	tr_session_flush(s);
}

__poll_t tr_session_poll_mask(struct tr_session *s)
{
	__poll_t mask = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		if (trb_subbuf_ready(&s->cpu[cpu].buf))
			mask |= EPOLLIN | EPOLLRDNORM;
		if (tr_kbuf_full(&s->cpu[cpu]))
			mask |= EPOLLPRI;
	}
	if (!mask && READ_ONCE(s->finished))
		mask = EPOLLHUP;
	return mask;
}

u64 tr_session_attempted(struct tr_session *s, unsigned int cpu)
{
	return local_read(&s->cpu[cpu].attempted);
}

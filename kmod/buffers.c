// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The module's per-CPU buffers: ringbuf.h's protocol over regions of
 * pages, one per possible CPU, written by whatever runs on that CPU (BPF
 * programs through the kfuncs, perf events, the NMI self-test) and read
 * through /dev/tracer (main.c).
 *
 * The writer side follows S1's rules for code that may run anywhere,
 * NMI included: writers disable preemption, so every writer of a buffer
 * runs on its CPU and ringbuf_atomic.h's local_t operations are enough;
 * the probe path takes no lock, allocates nothing, wakes nobody and
 * prints nothing; it is notrace and NOKPROBE; and a per-CPU nesting count
 * bounds how deep writers may interrupt each other (beyond it a record is
 * dropped as lost_busy).  Flushing and waking the reader are the job of a
 * per-CPU timer, which runs on the buffer's CPU like the writers: CPU
 * hotplug callbacks start it when the CPU comes online and cancel it, then
 * flush there, when it goes offline, so it never migrates.  A buffer is
 * flushed from another CPU only while its CPU is offline and the hotplug
 * lock is held, when nothing can write there.
 *
 * The session a writer uses is published with RCU: writers run with
 * preemption disabled, so after unpublishing, synchronize_rcu() waits for
 * every writer still inside the buffers.  Only records under the
 * session's own event ids are written, so BPF programs of other tools
 * cannot put theirs in.
 *
 * A session's regions take at most half of the memory available when it
 * is set up (MemAvailable in /proc/meminfo), charged to the memory cgroup
 * of the task that sets it up; an allocation that fails is refused rather
 * than left to the OOM killer.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>

#include "buffers.h"
#include "clock.h"

/* Writers nested on one CPU (task, softirq, irq, NMI) before dropping. */
#define TR_MAX_NESTING		4

/* With flush_ms 0, how often the timer looks for sub-buffers to announce. */
#define TR_WAKE_MS		100

static DEFINE_PER_CPU(int, tr_nesting);

#ifdef TR_DEBUG_WRITES
/*
 * Debug builds (KCFLAGS=-DTR_DEBUG_WRITES, tests/vm/nmi-loop) check each
 * record's place before its payload is copied: inside the data of its own
 * buffer, with a physical sub-buffer of the buffer, on the buffer's CPU,
 * in a session that has not ended (whose memory is still the buffer's).
 */
static notrace void tr_kbuf_check_record(const struct tr_kbuf *kb,
					 const struct trb_slot *slot, u32 size)
{
	const char *data = kb->buf.data;
	const char *end = (const char *)kb->region + kb->session->region_stride;
	const char *rec = slot->record;

	WARN_ONCE(rec < data || rec + sizeof(struct tr_event_header) + size > end ||
		  slot->phys > (1u << kb->buf.nsubbuf_order) ||
		  kb->cpu != smp_processor_id() || READ_ONCE(kb->session->ended),
		  "tracer: record at %px (+%u) outside %px..%px: phys %u begin %llu old %llu cpu %u on %d ended %d\n",
		  rec, size, data, end, slot->phys, slot->begin, slot->old, kb->cpu,
		  smp_processor_id(), READ_ONCE(kb->session->ended));
}

/* And that no timer outlives its session's end. */
static void tr_kbuf_check_tick(const struct tr_kbuf *kb)
{
	WARN_ONCE(READ_ONCE(kb->session->ended),
		  "tracer: CPU %u's timer runs after its session ended\n", kb->cpu);
}
#else
static inline void tr_kbuf_check_record(const struct tr_kbuf *kb,
					const struct trb_slot *slot, u32 size)
{
}

static inline void tr_kbuf_check_tick(const struct tr_kbuf *kb)
{
}
#endif

/* Write a record made of head and tail (tail may be empty). */
static notrace int tr_kbuf_write(struct tr_kbuf *kb, u32 event_id,
				 const void *head, u32 head_size,
				 const void *tail, u32 tail_size)
{
	struct trb_slot slot;
	u32 size;
	int err;

	/* No size that wraps: it would reserve less than the copies write. */
	if (check_add_overflow(head_size, tail_size, &size))
		size = U32_MAX;
	local_inc(&kb->attempted);
	if (this_cpu_inc_return(tr_nesting) > TR_MAX_NESTING) {
		trb_local_add(&kb->buf.ctl->lost_busy, 1);
		err = -EBUSY;
	} else {
		err = trb_reserve(&kb->buf, &slot, event_id, size,
				  (u64)current->tgid << 32 | current->pid);
		if (!err) {
			tr_kbuf_check_record(kb, &slot, size);
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
	if (s && !tr_session_has_event(s, event_id))
		err = -ENOENT;
	else if (s)
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
static void tr_session_unpublish(struct tr_session *s)
{
	mutex_lock(&tr_active_lock);
	if (rcu_access_pointer(tr_active) == s)
		RCU_INIT_POINTER(tr_active, NULL);
	mutex_unlock(&tr_active_lock);
	synchronize_rcu();
}

/* Ids the recorder gave its events, and the self-test's. */
notrace bool tr_session_has_event(const struct tr_session *s, u32 event_id)
{
	return event_id < s->nevents ||
	       (event_id == s->selftest_event_id && event_id != TR_KMOD_NO_EVENT);
}
NOKPROBE_SYMBOL(tr_session_has_event);

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

	/* Hotplug callbacks keep it there; elsewhere it would race the writers. */
	if (WARN_ON_ONCE(smp_processor_id() != kb->cpu))
		return HRTIMER_NORESTART;
	tr_kbuf_check_tick(kb);
	if (s->flush_on_tick)
		tr_kbuf_flush_here(kb);
	if (trb_subbuf_ready(&kb->buf))
		wake_up_interruptible(&s->readers);
	hrtimer_forward_now(timer, s->tick_period);
	return HRTIMER_RESTART;
}

/* --- CPU hotplug: each online CPU runs its buffer's timer ------------------- */

static int tr_buffers_cpuhp_state;

/* On the CPU coming online, or on each online CPU when a session starts. */
static int tr_kbuf_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct tr_session *s = hlist_entry(node, struct tr_session, cpuhp);
	struct tr_kbuf *kb = &s->cpu[cpu];

	hrtimer_start(&kb->tick, s->tick_period, HRTIMER_MODE_REL_PINNED_SOFT);
	return 0;
}

/*
 * On the CPU going offline, or on each online CPU when a session ends:
 * the timer stops before it could migrate, and what it would have
 * flushed is flushed now.  Records written later on the way down stay
 * until the CPU comes back or the session finishes (tr_session_flush()).
 */
static int tr_kbuf_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct tr_session *s = hlist_entry(node, struct tr_session, cpuhp);
	struct tr_kbuf *kb = &s->cpu[cpu];

	hrtimer_cancel(&kb->tick);
	preempt_disable();
	tr_kbuf_flush_here(kb);
	preempt_enable();
	wake_up_interruptible(&s->readers);
	return 0;
}

int tr_buffers_init(void)
{
	int state = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "tracer/buffers:online",
					    tr_kbuf_cpu_online, tr_kbuf_cpu_offline);

	if (state < 0)
		return state;
	tr_buffers_cpuhp_state = state;
	return 0;
}

void tr_buffers_exit(void)
{
	cpuhp_remove_multi_state(tr_buffers_cpuhp_state);
}

/* --- Session ----------------------------------------------------------------- */

static void tr_kbuf_free(struct tr_kbuf *kb)
{
	unsigned long i;

	if (kb->region)
		vunmap(kb->region);
	for (i = 0; i < kb->npages; i++)
		__free_page(kb->pages[i]);
	kvfree(kb->pages);
}

/*
 * Pages near the CPU, zeroed (the reader maps them), charged to the
 * caller's memory cgroup; a failure is an error, not a reason to wake
 * the OOM killer or warn.  Mapped like vmalloc_user() memory, so that
 * remap_vmalloc_range() maps the region to user space.
 */
static int tr_kbuf_alloc(struct tr_kbuf *kb, unsigned int cpu, u64 size)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	unsigned long n = size >> PAGE_SHIFT;

	kb->pages = kvcalloc(n, sizeof(*kb->pages), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!kb->pages)
		return -ENOMEM;
	for (; kb->npages < n; kb->npages++) {
		kb->pages[kb->npages] = alloc_pages_node(cpu_to_node(cpu), gfp, 0);
		if (!kb->pages[kb->npages])
			return -ENOMEM;
	}
	kb->region = vmap(kb->pages, n, VM_MAP | VM_USERMAP, PAGE_KERNEL);
	return kb->region ? 0 : -ENOMEM;
}

static int tr_kbuf_init(struct tr_session *s, unsigned int cpu,
			const struct tr_kmod_setup *setup)
{
	struct tr_kbuf *kb = &s->cpu[cpu];
	struct trb_config cfg = {
		.subbuf_size = setup->subbuf_size, .nsubbuf = setup->nsubbuf,
		.mode = setup->mode, .cpu = cpu, .stream_id = setup->stream_id,
	};
	int err;

	hrtimer_init(&kb->tick, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_SOFT);
	kb->tick.function = tr_kbuf_tick;
	kb->session = s;
	kb->cpu = cpu;
	err = tr_kbuf_alloc(kb, cpu, s->region_stride);
	return err ? err : trb_init(&kb->buf, kb->region, &cfg, tr_clock_ns);
}

/* Check setup's input, and give it the geometry (its output) if it is valid. */
static int tr_session_check_setup(struct tr_kmod_setup *setup)
{
	u64 total, half_available = ((u64)si_mem_available() << PAGE_SHIFT) / 2;

	if (trb_geometry_problem(setup->subbuf_size, setup->nsubbuf) ||
	    setup->mode > TR_MODE_OVERWRITE || setup->nevents > TR_MAX_EVENTS ||
	    (setup->selftest_event_id >= TR_MAX_EVENTS &&
	     setup->selftest_event_id != TR_KMOD_NO_EVENT) || setup->pad)
		return -EINVAL;
	setup->ncpu = nr_cpu_ids;
	setup->region_stride = PAGE_ALIGN(TR_BUF_REGION_SIZE(setup->subbuf_size,
							     setup->nsubbuf));
	if (check_mul_overflow(setup->region_stride, (u64)num_possible_cpus(), &total) ||
	    total > half_available)
		return -E2BIG;
	return 0;
}

struct tr_session *tr_session_create(struct tr_kmod_setup *setup)
{
	struct tr_session *s;
	unsigned int cpu;
	int err;

	err = tr_session_check_setup(setup);
	if (err)
		return ERR_PTR(err);
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->ncpu = setup->ncpu;
	s->region_stride = setup->region_stride;
	s->flush_on_tick = setup->flush_ms;
	s->tick_period = ms_to_ktime(setup->flush_ms ? setup->flush_ms : TR_WAKE_MS);
	s->selftest_event_id = setup->selftest_event_id;
	s->nevents = setup->nevents ? setup->nevents : TR_MAX_EVENTS;
	s->owner = current->files;
	s->ended = true;	/* nothing to undo yet */
	mutex_init(&s->end_lock);
	mutex_init(&s->reader_lock);
	tr_tracepoints_init(&s->tracepoints);
	init_waitqueue_head(&s->readers);
	s->cpu = kcalloc(s->ncpu, sizeof(*s->cpu), GFP_KERNEL_ACCOUNT);
	if (!s->cpu) {
		kfree(s);
		return ERR_PTR(-ENOMEM);
	}
	for_each_possible_cpu(cpu) {
		err = tr_kbuf_init(s, cpu, setup);
		if (err)
			break;
	}
	if (!err)
		err = cpuhp_state_add_instance(tr_buffers_cpuhp_state, &s->cpuhp);
	if (err) {
		tr_session_destroy(s);
		return ERR_PTR(err);
	}
	s->ended = false;
	return s;
}

void tr_session_end(struct tr_session *s)
{
	mutex_lock(&s->end_lock);
	if (!s->ended) {
		WRITE_ONCE(s->finished, true);
		tr_session_unpublish(s);
		tr_tracepoints_release(&s->tracepoints);
		cpuhp_state_remove_instance(tr_buffers_cpuhp_state, &s->cpuhp);
		s->ended = true;
	}
	mutex_unlock(&s->end_lock);
}

void tr_session_destroy(struct tr_session *s)
{
	unsigned int cpu;

	tr_session_end(s);
	for_each_possible_cpu(cpu)
		tr_kbuf_free(&s->cpu[cpu]);
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

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Self-tests, registered only with selftest=1 (the VM tests load the
 * module so); their results are text files in debugfs tracer/.
 *
 * Clock: readers in task context (write a number of milliseconds to
 * clock_check), timer context (a per-CPU hrtimer on each online CPU,
 * every TR_CHECK_TIMER_US, while a clock_check write runs) and NMI
 * context (the NMI storm below) each
 * compare successive readings on their CPU: time must never go back, and
 * must advance like ktime_get_mono_fast_ns() to within half a hardware
 * wrap period, or a wrap was missed or counted twice.  `clock` shows the
 * counts and the wraps each CPU's updates saw.
 *
 * NMI writers: writing N to nmi_storm makes each online CPU send N NMIs
 * to the next online CPU (itself if it is alone), at most one every
 * TR_STORM_US from a timer and one at a time (NMIs do not queue), so that
 * they land wherever the receiving CPU is, in BPF programs writing records
 * among others; it returns once all are handled.  Each NMI writes a
 * struct tr_kmod_nmi_test record
 * (its CPU's NMI sequence number) into the active session, if the session
 * gave it an id, through the same path as the kfuncs, on top of whatever
 * BPF programs write there.  Reading nmi_storm shows, per CPU, the last
 * storm's NMIs sent and handled and the records they wrote or failed to
 * write.
 * `last_session` shows, per CPU, how many records writers attempted in
 * the last session and how many were lost and why, so a test can check
 * recorded + lost == attempted against the trace.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#include "buffers.h"
#include "clock.h"
#include "selftest.h"

/*
 * The timer reader's period.  A wrap missed or counted twice puts every
 * later reading a whole wrap off, whatever the period, which only sets
 * how many readings there are.  Each one is an interrupt on every CPU:
 * at 250 us (and the clock's updates every 1 ms), a VM's vCPU that shared
 * its host thread with a busy one spent nearly all its share in them, and
 * once no task ran on it for 22 s (a soft lockup).  At 2 ms, running all
 * the while the module was loaded, a 6.1 guest still locked up once in
 * some 14 runs, at guest uptime 267 s, long after the clock's check: the
 * timer readers now run only while a clock_check write does.
 */
#define TR_CHECK_TIMER_US	2000
#define TR_STORM_US		200

enum tr_context { TR_CTX_TASK, TR_CTX_TIMER, TR_CTX_NMI, TR_NCTX };
static const char *const tr_context_names[TR_NCTX] = { "task", "timer", "nmi" };

struct tr_check {
	u64 last_clock;
	u64 last_mono;
	bool last_timed;	/* last_mono is when last_clock was read */
	u64 reads;
	u64 backwards;
	u64 jumps;
	u64 untimed;		/* readings interrupted too long to time */
};

struct tr_storm_counts {
	u64 sent, handled, written, failed;
};

struct tr_selftest_cpu {
	struct tr_check check[TR_NCTX];
	struct hrtimer timer;
	struct hrtimer storm;		/* sends the storm's NMIs to storm_target */
	unsigned int storm_target;
	u64 storm_left;			/* NMIs still to send there */
	atomic_t nmi_pending;		/* NMIs sent to this CPU, not handled yet */
	u64 nmi_seq;
	struct tr_storm_counts storm_counts;
};

struct tr_session_counts {
	u64 attempted, lost_full, lost_wrap, lost_big, lost_busy, overrun;
};

static DEFINE_PER_CPU(struct tr_selftest_cpu, tr_selftest_cpus);
static struct dentry *tr_debugfs;
static int tr_selftest_cpuhp_state;
static DEFINE_MUTEX(tr_timer_readers_lock);
static unsigned int tr_timer_readers;	/* clock_check writes running: the timers run while > 0 */
static DEFINE_MUTEX(tr_storm_lock);
static atomic_t tr_storm_cpus;		/* CPUs whose NMIs are not all handled */
static DECLARE_WAIT_QUEUE_HEAD(tr_storm_done);
static struct tr_session_counts *tr_last_session;	/* [nr_cpu_ids] */
static DEFINE_MUTEX(tr_last_session_lock);

/*
 * The clock is read between two readings of ktime_get_mono_fast_ns(): an
 * interrupt or NMI that came between them and lasted more than a quarter
 * of a wrap leaves the reading untimed, compared for its order only.
 */
static notrace void tr_check_clock(enum tr_context ctx)
{
	struct tr_check *c = &this_cpu_ptr(&tr_selftest_cpus)->check[ctx];
	u64 mono = ktime_get_mono_fast_ns();
	u64 clock = tr_clock_ns();
	bool timed = ktime_get_mono_fast_ns() - mono <= tr_clock_wrap_ns() / 4;

	if (c->reads) {
		s64 step = clock - c->last_clock;
		s64 error = step - (s64)(mono - c->last_mono);

		if (step < 0)
			c->backwards++;
		if (timed && c->last_timed && abs(error) > tr_clock_wrap_ns() / 2)
			c->jumps++;
	}
	c->last_clock = clock;
	c->last_mono = mono;
	c->last_timed = timed;
	c->untimed += !timed;
	c->reads++;
}

/* Claims only the NMIs the storm sent this CPU. */
static int tr_selftest_nmi(unsigned int type, struct pt_regs *regs)
{
	struct tr_selftest_cpu *t = this_cpu_ptr(&tr_selftest_cpus);
	struct tr_kmod_nmi_test rec = { .common_type = TR_KMOD_NMI_TEST_TYPE };

	if (!atomic_add_unless(&t->nmi_pending, -1, 0))
		return NMI_DONE;
	rec.seq = t->nmi_seq++;
	t->storm_counts.handled++;
	tr_check_clock(TR_CTX_NMI);
	if (tr_active_write_selftest(&rec, sizeof(rec)))
		t->storm_counts.failed++;
	else
		t->storm_counts.written++;
	return NMI_HANDLED;
}

/* The next NMI once the last one sent is handled; done once all are. */
static enum hrtimer_restart tr_storm_tick(struct hrtimer *timer)
{
	struct tr_selftest_cpu *t = this_cpu_ptr(&tr_selftest_cpus);
	struct tr_selftest_cpu *target = per_cpu_ptr(&tr_selftest_cpus, t->storm_target);

	if (atomic_read(&target->nmi_pending))
		goto again;
	if (!t->storm_left) {
		if (atomic_dec_and_test(&tr_storm_cpus))
			wake_up(&tr_storm_done);
		return HRTIMER_NORESTART;
	}
	t->storm_left--;
	t->storm_counts.sent++;
	atomic_inc(&target->nmi_pending);
	apic->send_IPI_mask(cpumask_of(t->storm_target), NMI_VECTOR);
again:
	hrtimer_forward_now(timer, ns_to_ktime(TR_STORM_US * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void tr_storm_start(void *unused)
{
	hrtimer_start(&this_cpu_ptr(&tr_selftest_cpus)->storm,
		      ns_to_ktime(TR_STORM_US * NSEC_PER_USEC), HRTIMER_MODE_REL_PINNED_HARD);
}

/* N NMIs from each online CPU to the next; the CPUs stay online meanwhile. */
static int tr_storm(u64 nmis)
{
	unsigned int cpu;
	int err;

	mutex_lock(&tr_storm_lock);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct tr_selftest_cpu *t = per_cpu_ptr(&tr_selftest_cpus, cpu);

		t->storm_target = cpumask_next(cpu, cpu_online_mask);
		if (t->storm_target >= nr_cpu_ids)
			t->storm_target = cpumask_first(cpu_online_mask);
		t->storm_left = nmis;
		t->storm_counts = (struct tr_storm_counts) { };
	}
	atomic_set(&tr_storm_cpus, num_online_cpus());
	on_each_cpu(tr_storm_start, NULL, 1);
	err = wait_event_interruptible(tr_storm_done, !atomic_read(&tr_storm_cpus));
	for_each_online_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&tr_selftest_cpus, cpu)->storm);
	cpus_read_unlock();
	mutex_unlock(&tr_storm_lock);
	return err;
}

static ssize_t tr_nmi_storm_write(struct file *file, const char __user *buf,
				  size_t count, loff_t *ppos)
{
	u64 nmis;
	int err = kstrtou64_from_user(buf, count, 10, &nmis);

	if (!err)
		err = tr_storm(nmis);
	return err ? err : count;
}

static int tr_nmi_storm_show(struct seq_file *m, void *unused)
{
	unsigned int cpu;

	mutex_lock(&tr_storm_lock);
	for_each_possible_cpu(cpu) {
		const struct tr_storm_counts *c = &per_cpu_ptr(&tr_selftest_cpus, cpu)->storm_counts;

		seq_printf(m, "cpu %u sent %llu handled %llu written %llu failed %llu\n",
			   cpu, c->sent, c->handled, c->written, c->failed);
	}
	mutex_unlock(&tr_storm_lock);
	return 0;
}

static int tr_nmi_storm_open(struct inode *inode, struct file *file)
{
	return single_open(file, tr_nmi_storm_show, NULL);
}

static const struct file_operations tr_nmi_storm_fops = {
	.open = tr_nmi_storm_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = tr_nmi_storm_write,
};

static enum hrtimer_restart tr_selftest_timer(struct hrtimer *timer)
{
	tr_check_clock(TR_CTX_TIMER);
	hrtimer_forward_now(timer, ns_to_ktime(TR_CHECK_TIMER_US * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

/* This CPU's timer reader started. */
static void tr_timer_reader_start(void *unused)
{
	hrtimer_start(&this_cpu_ptr(&tr_selftest_cpus)->timer,
		      ns_to_ktime(TR_CHECK_TIMER_US * NSEC_PER_USEC), HRTIMER_MODE_REL_PINNED_HARD);
}

/* One more clock_check write: the first starts the timer readers of the online CPUs. */
static void tr_timer_readers_get(void)
{
	cpus_read_lock();
	mutex_lock(&tr_timer_readers_lock);
	if (!tr_timer_readers++)
		on_each_cpu(tr_timer_reader_start, NULL, 1);
	mutex_unlock(&tr_timer_readers_lock);
	cpus_read_unlock();
}

/* One clock_check write fewer: the last stops the timer readers. */
static void tr_timer_readers_put(void)
{
	unsigned int cpu;

	cpus_read_lock();
	mutex_lock(&tr_timer_readers_lock);
	if (!--tr_timer_readers)
		for_each_online_cpu(cpu)
			hrtimer_cancel(&per_cpu_ptr(&tr_selftest_cpus, cpu)->timer);
	mutex_unlock(&tr_timer_readers_lock);
	cpus_read_unlock();
}

/*
 * CPU hotplug callbacks, on the CPU: a CPU that comes online while
 * clock_check writes run gets its timer reader too.
 */
static int tr_selftest_cpu_online(unsigned int cpu)
{
	mutex_lock(&tr_timer_readers_lock);
	if (tr_timer_readers)
		tr_timer_reader_start(NULL);
	mutex_unlock(&tr_timer_readers_lock);
	return 0;
}

static int tr_selftest_cpu_offline(unsigned int cpu)
{
	hrtimer_cancel(&per_cpu_ptr(&tr_selftest_cpus, cpu)->timer);
	return 0;
}

/* Task context: read the clock in a loop for ms milliseconds. */
static void tr_selftest_task(unsigned int ms)
{
	u64 end = ktime_get_mono_fast_ns() + (u64)ms * NSEC_PER_MSEC;

	while (ktime_get_mono_fast_ns() < end) {
		preempt_disable();
		tr_check_clock(TR_CTX_TASK);
		preempt_enable();
		cond_resched();
	}
}

static ssize_t tr_clock_check_write(struct file *file, const char __user *buf,
				    size_t count, loff_t *ppos)
{
	unsigned int ms;
	int err = kstrtouint_from_user(buf, count, 10, &ms);

	if (err)
		return err;
	tr_timer_readers_get();
	tr_selftest_task(ms);
	tr_timer_readers_put();
	return count;
}

static const struct file_operations tr_clock_check_fops = {
	.write = tr_clock_check_write,
};

static int tr_clock_show(struct seq_file *m, void *unused)
{
	unsigned int cpu;
	int ctx;

	seq_printf(m, "wrap_ns %llu\n", tr_clock_wrap_ns());
	for_each_online_cpu(cpu) {
		struct tr_selftest_cpu *t = per_cpu_ptr(&tr_selftest_cpus, cpu);

		seq_printf(m, "cpu %u wraps %llu late_updates %llu held_back %llu", cpu,
			   tr_clock_wraps(cpu), tr_clock_late_updates(cpu),
			   tr_clock_held_back(cpu));
		for (ctx = 0; ctx < TR_NCTX; ctx++)
			seq_printf(m, " %s_reads %llu %s_backwards %llu %s_jumps %llu %s_untimed %llu",
				   tr_context_names[ctx], t->check[ctx].reads,
				   tr_context_names[ctx], t->check[ctx].backwards,
				   tr_context_names[ctx], t->check[ctx].jumps,
				   tr_context_names[ctx], t->check[ctx].untimed);
		seq_putc(m, '\n');
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tr_clock);

static int tr_last_session_show(struct seq_file *m, void *unused)
{
	unsigned int cpu;

	mutex_lock(&tr_last_session_lock);
	for_each_possible_cpu(cpu) {
		const struct tr_session_counts *c = &tr_last_session[cpu];

		seq_printf(m, "cpu %u attempted %llu lost_full %llu lost_wrap %llu lost_big %llu lost_busy %llu overrun %llu\n",
			   cpu, c->attempted, c->lost_full, c->lost_wrap, c->lost_big,
			   c->lost_busy, c->overrun);
	}
	mutex_unlock(&tr_last_session_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tr_last_session);

void tr_selftest_session_ended(struct tr_session *s)
{
	unsigned int cpu;

	if (!tr_last_session)
		return;
	mutex_lock(&tr_last_session_lock);
	for_each_possible_cpu(cpu) {
		const struct tr_buf_ctl *ctl = s->cpu[cpu].buf.ctl;

		tr_last_session[cpu] = (struct tr_session_counts) {
			.attempted = tr_session_attempted(s, cpu),
			.lost_full = ctl->lost_full, .lost_wrap = ctl->lost_wrap,
			.lost_big = ctl->lost_big, .lost_busy = ctl->lost_busy,
			.overrun = ctl->records_overrun,
		};
	}
	mutex_unlock(&tr_last_session_lock);
}

int tr_selftest_init(void)
{
	unsigned int cpu;
	int err;

	tr_last_session = kcalloc(nr_cpu_ids, sizeof(*tr_last_session), GFP_KERNEL);
	if (!tr_last_session)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct tr_selftest_cpu *t = per_cpu_ptr(&tr_selftest_cpus, cpu);

		hrtimer_init(&t->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		t->timer.function = tr_selftest_timer;
		hrtimer_init(&t->storm, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		t->storm.function = tr_storm_tick;
	}
	err = register_nmi_handler(NMI_LOCAL, tr_selftest_nmi, 0, "tracer_selftest");
	if (err)
		goto out_free;
	err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "tracer/selftest:online",
				tr_selftest_cpu_online, tr_selftest_cpu_offline);
	if (err < 0)
		goto out_nmi;
	tr_selftest_cpuhp_state = err;
	tr_debugfs = debugfs_create_dir("tracer", NULL);
	debugfs_create_file("clock", 0400, tr_debugfs, NULL, &tr_clock_fops);
	debugfs_create_file("clock_check", 0200, tr_debugfs, NULL, &tr_clock_check_fops);
	debugfs_create_file("last_session", 0400, tr_debugfs, NULL, &tr_last_session_fops);
	debugfs_create_file("nmi_storm", 0600, tr_debugfs, NULL, &tr_nmi_storm_fops);
	return 0;
out_nmi:
	unregister_nmi_handler(NMI_LOCAL, "tracer_selftest");
out_free:
	kfree(tr_last_session);
	tr_last_session = NULL;
	return err;
}

void tr_selftest_exit(void)
{
	debugfs_remove_recursive(tr_debugfs);
	cpuhp_remove_state(tr_selftest_cpuhp_state);
	unregister_nmi_handler(NMI_LOCAL, "tracer_selftest");
	kfree(tr_last_session);
	tr_last_session = NULL;
}

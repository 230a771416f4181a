// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer top's counting.  What each view's numbers mean:
 *
 * - A task's CPU time is the time between the sched_switch that puts it
 *   on a CPU and the one that takes it off (on that CPU's stream, in its
 *   order); at an interval's end the running tasks are credited up to it.
 *   A CPU's busy time is the same for every task but the idle one (0).
 * - Run-queue latency is from sched_waking (or sched_wakeup, or a
 *   sched_switch that leaves the task runnable: preempted) to the
 *   sched_switch that runs it, as perf sched latency measures it.
 * - A system call's latency is from its task's sys_enter to the sys_exit
 *   of the same call; an error is a return value from -4095 to -1.
 *   Calls are counted at entry, or at exit where entries are not traced.
 *
 * Counts and latencies run from the start (or the last reset), rates and
 * busy shares are over the interval.
 *
 * With --sample, only a share p of the packets have their records read
 * (record/live.c); counts, rates and CPU times are what was read over p.
 * Their error: with n_i a row's count in sampled packet i, the estimate
 * sum(n_i) / p has the variance (1 - p) / p^2 * sum(n_i^2) (Horvitz and
 * Thompson, each packet taken with probability p), whose 95% bound the
 * events and system call views show.  A CPU's time restarts at a packet
 * that follows one not read; a call's latency counts only when its entry
 * and exit lie in one packet of a CPU or two that follow each other, so
 * long calls are under-represented; run-queue latency, whose two ends lie
 * on different CPUs, is not measured.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <tracer/record.h>

#include "top/counts.h"
#include "print/fields.h"
#include "reader/trace.h"

/* How many fields (f[] below) each kind reads. */
static const unsigned int kind_fields[] = {
	[SWITCH] = 4, [WAKING] = 2, [SYS_ENTER] = 1, [SYS_EXIT] = 2, [TASK_STATE] = 3,
};

struct top_model *top_model_new(__u64 interval_ns, unsigned int ncpu, unsigned int sample_percent,
				void (*publish)(void *data, struct top_snapshot *snap), void *data)
{
	struct top_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->sampling = sample_percent && sample_percent < 100;
	m->sample = m->sampling ? sample_percent / 100.0 : 1;
	m->publish = publish;
	m->data = data;
	m->interval_ns = interval_ns;
	m->ncpu = ncpu;
	m->cpus = calloc(ncpu, sizeof(*m->cpus));
	if (!m->cpus) {
		free(m);
		return NULL;
	}
	return m;
}

void top_model_free(struct top_model *m)
{
	unsigned int i;

	for (i = 0; i < m->nclasses; i++) {
		free(m->classes[i].name);
		free(m->classes[i].records.error);
	}
	for (i = 0; i < MAX_SYSCALL; i++)
		if (m->syscalls[i]) {
			free(m->syscalls[i]->calls.error);
			free(m->syscalls[i]);
		}
	tr_tasks_free(&m->tasks);
	free(m->classes);
	free(m->cpus);
	free(m);
}

/* --- Tallies: counts and their sampling error --------------------------------- */

static size_t sample_error_size(const struct top_model *m)
{
	return sizeof(struct sample_error) + m->ncpu * sizeof(((struct sample_error *)0)->cpu[0]);
}

/* A tally's error, kept under --sample only. */
static void tally_init(const struct top_model *m, struct tally *t)
{
	t->error = top_sampling(m) ? calloc(1, sample_error_size(m)) : NULL;
}

/* The item's record in its packet of its CPU, for a tally's sampling error. */
static void sampled_one(struct sample_error *e, const struct tr_item *it)
{
	if (e->cpu[it->cpu].packet != it->packet_seq + 1) {
		e->sumsq += e->cpu[it->cpu].n * e->cpu[it->cpu].n;
		e->cpu[it->cpu].packet = it->packet_seq + 1;
		e->cpu[it->cpu].n = 0;
	}
	e->cpu[it->cpu].n++;
}

/* One more, the item's record. */
static inline void tally_one(struct tally *t, const struct tr_item *it)
{
	t->count++;
	t->interval++;
	if (t->error)
		sampled_one(t->error, it);
}

static void tally_reset(const struct top_model *m, struct tally *t)
{
	t->count = 0;
	if (t->error)
		memset(t->error, 0, sample_error_size(m));
}

/* --- Reading records ---------------------------------------------------------- */

/* Where the class's field name lies, with a size top reads (1, 2, 4 or 8 bytes): 1, else 0. */
static int field(const struct tr_item *it, const char *name, struct field_at *at)
{
	const struct tep_format_field *f = tep_find_field(it->class->tep, name);

	if (!f)
		return 0;
	*at = (struct field_at) { f->offset, f->size };
	return 1;
}

static void resolve(struct class_info *c, const struct tr_item *it)
{
	const char *sys = it->class->system, *name = it->class->name;
	int syscalls = !strcmp(sys, "syscalls");
	unsigned int found = 0;

	c->resolved = 1;
	if (asprintf(&c->name, "%s:%s", sys, name) < 0)
		c->name = NULL;
	if (!strcmp(sys, "sched") && !strcmp(name, "sched_switch")) {
		c->kind = SWITCH;
		found += field(it, "prev_pid", &c->f[0]);
		found += field(it, "prev_state", &c->f[1]);
		found += field(it, "next_pid", &c->f[2]);
		found += field(it, "next_comm", &c->f[3]);
	} else if (!strcmp(sys, "sched") && (!strcmp(name, "sched_waking") ||
					      !strcmp(name, "sched_wakeup") ||
					      !strcmp(name, "sched_wakeup_new"))) {
		c->kind = WAKING;
		found += field(it, "pid", &c->f[0]);
		found += field(it, "comm", &c->f[1]);
	} else if ((!strcmp(sys, "raw_syscalls") && !strcmp(name, "sys_enter")) ||
		   (syscalls && !strncmp(name, "sys_enter_", 10))) {
		c->kind = SYS_ENTER;
		found += field(it, syscalls ? "__syscall_nr" : "id", &c->f[0]);
	} else if ((!strcmp(sys, "raw_syscalls") && !strcmp(name, "sys_exit")) ||
		   (syscalls && !strncmp(name, "sys_exit_", 9))) {
		c->kind = SYS_EXIT;
		found += field(it, syscalls ? "__syscall_nr" : "id", &c->f[0]);
		found += field(it, "ret", &c->f[1]);
	} else if (!strcmp(sys, "tracer") && !strcmp(name, "task_state")) {
		c->kind = TASK_STATE;
		found += field(it, "pid", &c->f[0]);
		found += field(it, "tgid", &c->f[1]);
		found += field(it, "comm", &c->f[2]);
	}
	if (found < kind_fields[c->kind])
		c->kind = OTHER;	/* a format without the fields top reads */
}

/* The item's class, met for the first time: room for it, resolved.  NULL without memory. */
static __attribute__((cold, noinline)) struct class_info *new_class(struct top_model *m, const struct tr_item *it)
{
	__u32 id = it->record->id;

	if (id >= m->nclasses) {
		struct class_info *more = realloc(m->classes, (id + 1) * sizeof(*more));

		if (!more)
			return NULL;
		memset(more + m->nclasses, 0, (id + 1 - m->nclasses) * sizeof(*more));
		m->classes = more;
		m->nclasses = id + 1;
	}
	if (!m->classes[id].resolved) {
		resolve(&m->classes[id], it);
		tally_init(m, &m->classes[id].records);
	}
	return &m->classes[id];
}

/* The item's class (what it is to top). */
static inline struct class_info *class_of(struct top_model *m, const struct tr_item *it)
{
	__u32 id = it->record->id;

	if (id < m->nclasses && m->classes[id].resolved)
		return &m->classes[id];
	return new_class(m, it);
}

/* A field as a signed number (every field top reads is an int or a long). */
static inline __s64 number(const struct tr_item *it, const struct field_at *f)
{
	const unsigned char *p = (const unsigned char *)it->payload + f->offset;
	__u32 v32;
	__u64 v64;

	if (f->size == 4) {
		memcpy(&v32, p, sizeof(v32));
		return (__s32)le32toh(v32);
	}
	if (f->size == 8) {
		memcpy(&v64, p, sizeof(v64));
		return (__s64)le64toh(v64);
	}
	return tr_read_number(p, f->size);
}

static void name_task(struct tr_task *task, const struct tr_item *it,
		      const struct field_at *comm)
{
	size_t n = (size_t)comm->size < sizeof(task->comm) ? (size_t)comm->size : sizeof(task->comm) - 1;

	memcpy(task->comm, (const char *)it->payload + comm->offset, n);
	task->comm[n] = 0;
}

/* --- Counting ------------------------------------------------------------------- */

/*
 * tid's entry.  The last one found is kept: a CPU's records mostly come
 * from the task running there, one after the other.  The table's slots
 * move when it grows; then the kept one is stale.
 */
static struct tr_task *task_of(struct top_model *m, __u32 tid)
{
	if (m->last_task && m->last_slots == m->tasks.slot && tr_task_tid(m->last_task) == tid)
		return m->last_task;
	m->last_task = tr_tasks_get(&m->tasks, tid);
	m->last_slots = m->tasks.slot;
	return m->last_task;
}

/* A system call's row, made when it is first seen; NULL without memory. */
static __attribute__((cold, noinline)) struct syscall_row *new_syscall_row(struct top_model *m, __s64 nr)
{
	m->syscalls[nr] = calloc(1, sizeof(*m->syscalls[nr]));
	if (m->syscalls[nr])
		tally_init(m, &m->syscalls[nr]->calls);
	return m->syscalls[nr];
}

/* System call nr's row, or NULL for a number out of range. */
static inline struct syscall_row *syscall_row(struct top_model *m, __s64 nr)
{
	if (nr < 0 || nr >= MAX_SYSCALL)
		return NULL;
	return m->syscalls[nr] ? m->syscalls[nr] : new_syscall_row(m, nr);
}

static void waited(struct tr_task *task, __u64 ts)
{
	struct tr_task_top *t = &task->top;
	__u64 ns;

	if (!t->runnable_since || ts < t->runnable_since)
		return;
	ns = ts - t->runnable_since;
	t->waits++;
	t->wait_ns += ns;
	if (ns > t->wait_max_ns)
		t->wait_max_ns = ns;
	t->runnable_since = 0;
}

/* The running task of cpu is credited up to ts. */
static void run_until(struct top_model *m, unsigned int cpu, __u64 ts)
{
	struct cpu_state *c = &m->cpus[cpu];
	struct tr_task *task;

	if (!c->since || ts <= c->since)
		return;
	if (c->running) {
		c->busy_ns += ts - c->since;
		task = task_of(m, c->running);
		if (task)
			task->top.cpu_ns += ts - c->since;
	}
	c->since = ts;
}

static void switched(struct top_model *m, const struct class_info *c, const struct tr_item *it)
{
	__u32 prev = number(it, &c->f[0]), next = number(it, &c->f[2]);
	struct tr_task *task;

	run_until(m, it->cpu, it->ts);
	m->cpus[it->cpu].switches++;
	m->cpus[it->cpu].running = next;
	m->cpus[it->cpu].since = it->ts;
	/* Still runnable (no sleeping state bit; 0x100 and up: preempted): waiting from now. */
	task = prev && !top_sampling(m) ? task_of(m, prev) : NULL;
	if (task && !(number(it, &c->f[1]) & 0xff) && !task->top.runnable_since)
		task->top.runnable_since = it->ts;
	task = next ? task_of(m, next) : NULL;
	if (task) {
		name_task(task, it, &c->f[3]);
		waited(task, it->ts);
	}
}

/* Under --sample: a packet after one not read leaves what ran before it unknown (c->since). */
static void packet_seen(struct top_model *m, const struct tr_item *it)
{
	struct cpu_state *c = &m->cpus[it->cpu];

	if (c->packet && it->packet_seq + 1 != c->packet && it->packet_seq != c->packet)
		c->since = 0;
	c->packet = it->packet_seq + 1;
}

static void woken(struct top_model *m, const struct class_info *c, const struct tr_item *it)
{
	struct tr_task *task = task_of(m, number(it, &c->f[0]));

	if (!task)
		return;
	if (!task->comm[0])
		name_task(task, it, &c->f[1]);
	if (!task->top.runnable_since && !top_sampling(m))
		task->top.runnable_since = it->ts;
}

static void entered(struct top_model *m, const struct class_info *c, const struct tr_item *it,
		    struct tr_task *task)
{
	__s64 nr = number(it, &c->f[0]);
	struct syscall_row *row = syscall_row(m, nr);

	if (task) {
		task->top.syscalls++;
		task->top.syscall_nr = nr;
		task->top.syscall_since = it->ts;
		task->top.syscall_packet = it->packet_seq;
		task->top.syscall_cpu = it->cpu;
	}
	if (!row)
		return;
	row->entries_traced = 1;
	tally_one(&row->calls, it);
}

/* Under --sample, whether the packets read hold all of a call (its exit is it). */
static int whole_call(const struct top_model *m, const struct tr_task_top *t,
		      const struct tr_item *it)
{
	return !top_sampling(m) || (t->syscall_cpu == it->cpu &&
				(it->packet_seq == t->syscall_packet ||
				 it->packet_seq == t->syscall_packet + 1));
}

static void exited(struct top_model *m, const struct class_info *c, const struct tr_item *it,
		   struct tr_task *task)
{
	__s64 nr = number(it, &c->f[0]), ret = number(it, &c->f[1]);
	struct syscall_row *row = syscall_row(m, nr);
	__u64 ns;

	if (!row)
		return;
	if (!row->entries_traced)
		tally_one(&row->calls, it);
	if (ret < 0 && ret >= -4095)
		row->errors++;
	if (!task || !task->top.syscall_since || task->top.syscall_nr != nr ||
	    it->ts < task->top.syscall_since || !whole_call(m, &task->top, it))
		return;
	ns = it->ts - task->top.syscall_since;
	task->top.syscall_since = 0;
	row->lat_count++;
	row->lat_ns += ns;
	if (ns > row->lat_max)
		row->lat_max = ns;
	row->hist[top_bucket(ns)]++;
}

static void task_named(struct top_model *m, const struct class_info *c, const struct tr_item *it)
{
	struct tr_task *task = task_of(m, number(it, &c->f[0]));

	if (!task)
		return;
	task->pid = number(it, &c->f[1]);
	name_task(task, it, &c->f[2]);
}

static void count_record(struct top_model *m, const struct tr_item *it)
{
	struct class_info *c = class_of(m, it);
	__u32 tid = it->record->tid;
	struct tr_task *task = tid ? task_of(m, tid) : NULL;

	if (!c || it->cpu >= m->ncpu)
		return;
	tally_one(&c->records, it);
	m->cpus[it->cpu].events++;
	if (top_sampling(m))
		packet_seen(m, it);
	if (task) {
		task->events++;
		if (!task->pid)
			task->pid = it->record->pid;
	}
	switch (c->kind) {
	case SWITCH: switched(m, c, it); break;
	case WAKING: woken(m, c, it); break;
	case SYS_ENTER: entered(m, c, it, task); break;
	case SYS_EXIT: exited(m, c, it, task); break;
	case TASK_STATE: task_named(m, c, it); break;
	case OTHER: break;
	}
}

/* --- Intervals ------------------------------------------------------------------ */

/* A system call's counts and latencies begin again; whether its entries are traced stays. */
static void reset_syscall(const struct top_model *m, struct syscall_row *r)
{
	tally_reset(m, &r->calls);
	r->errors = r->lat_count = r->lat_ns = r->lat_max = 0;
	memset(r->hist, 0, sizeof(r->hist));
}

/* What is counted per interval starts again; with a reset asked for, all counts. */
static void next_interval(struct top_model *m)
{
	unsigned int i;

	m->start = m->end;
	m->end += m->interval_ns;
	for (i = 0; i < m->nclasses; i++)
		m->classes[i].records.interval = 0;
	for (i = 0; i < MAX_SYSCALL; i++)
		if (m->syscalls[i])
			m->syscalls[i]->calls.interval = 0;
	for (i = 0; i < m->ncpu; i++)
		m->cpus[i].busy_ns = m->cpus[i].switches = m->cpus[i].events = 0;
	for (i = 0; i < m->tasks.size; i++)
		m->tasks.slot[i].top.cpu_ns = m->tasks.slot[i].top.syscalls = 0;
	if (!m->reset_asked)
		return;
	m->reset_asked = 0;
	for (i = 0; i < m->nclasses; i++)
		tally_reset(m, &m->classes[i].records);
	for (i = 0; i < MAX_SYSCALL; i++)
		if (m->syscalls[i])
			reset_syscall(m, m->syscalls[i]);
	for (i = 0; i < m->tasks.size; i++) {
		struct tr_task_top *t = &m->tasks.slot[i].top;

		m->tasks.slot[i].events = 0;
		t->waits = t->wait_ns = t->wait_max_ns = 0;
	}
}

static void close_interval(struct top_model *m)
{
	unsigned int cpu;

	for (cpu = 0; cpu < m->ncpu; cpu++)
		run_until(m, cpu, m->end);
	m->seq++;
	m->publish(m->data, top_snapshot_make(m));
	next_interval(m);
}

/* Intervals with nothing in them past which the clock jumped are not published one by one. */
#define MAX_IDLE_INTERVALS	100

/* Closes every interval that ends by ts. */
static void close_until(struct top_model *m, __u64 ts)
{
	unsigned int cpu;
	__u64 skip;

	while (ts >= m->end) {
		close_interval(m);
		if (ts - m->start < MAX_IDLE_INTERVALS * m->interval_ns)
			continue;
		skip = (ts - m->start) / m->interval_ns * m->interval_ns;
		m->start += skip;
		m->end += skip;
		for (cpu = 0; cpu < m->ncpu; cpu++)
			m->cpus[cpu].since = 0;	/* what ran in the gap is not known */
	}
}

static void begin(struct top_model *m, __u64 ts)
{
	m->start = ts;
	m->end = ts + m->interval_ns;
}

/* The first item begins the first interval; a later one may end some. */
static void interval_edge(struct top_model *m, __u64 ts)
{
	if (!m->end)
		begin(m, ts);
	close_until(m, ts);
}

void top_model_item(struct top_model *m, const struct tr_item *it)
{
	if (it->ts >= m->end)	/* end 0: no interval yet */
		interval_edge(m, it->ts);
	if (it->kind == TR_ITEM_RECORD) {
		count_record(m, it);
	} else if (it->kind == TR_ITEM_LOST) {
		__u64 n = tr_item_lost(it);

		m->lost_reported += n;
		if (it->cpu < m->ncpu)
			m->cpus[it->cpu].lost += n;
	}
}

void top_model_reached(struct top_model *m, __u64 reached, const struct tr_live_status *status)
{
	m->status = *status;
	if (reached == ~0ull)	/* the end: the interval begun is not a whole one */
		return;
	if (!m->end && reached)
		begin(m, reached);
	if (m->end)
		close_until(m, reached);
}

void top_model_reset(struct top_model *m)
{
	m->reset_asked = 1;
}


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
 * (record_live.c); counts, rates and CPU times are what was read over p.
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
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <tracer/record.h>

#include "top_model.h"
#include "print_fields.h"
#include "report_tasks.h"
#include "syscalls.h"
#include "trace.h"

#define MAX_SYSCALL	1024
/* Latency histograms: 2^SUB_BITS buckets per power of two (3% wide). */
#define SUB_BITS	5
#define HIST_BUCKETS	(64 << SUB_BITS)

/* A count's sampling error: sum(n_i^2) over the packets read, the last of each CPU still open. */
struct sample_error {
	__u64 sumsq;
	struct {
		__u64 packet;		/* packet_seq_num + 1; 0: none yet */
		__u64 n;
	} cpu[];
};

struct syscall_row {
	__u64 count, errors;		/* since the start */
	__u64 interval;			/* calls this interval */
	__u64 lat_count, lat_ns, lat_max;
	__u32 hist[HIST_BUCKETS];
	int entries_traced;
	struct sample_error *error;	/* --sample: of count */
};

enum class_kind { OTHER, SWITCH, WAKING, SYS_ENTER, SYS_EXIT, TASK_STATE };

/* How many fields (f[] below) each kind reads. */
static const unsigned int kind_fields[] = {
	[SWITCH] = 4, [WAKING] = 2, [SYS_ENTER] = 1, [SYS_EXIT] = 2, [TASK_STATE] = 3,
};

/* What an event class is to top, and where its fields are: resolved once. */
struct class_info {
	int resolved;
	enum class_kind kind;
	const struct tep_format_field *f[4];
	char *name;			/* "system:name" */
	__u64 count, interval;
	struct sample_error *error;	/* --sample: of count */
};

struct cpu_state {
	__u32 running;			/* the task on it since `since` */
	__u64 since;			/* 0: unknown until its first switch */
	__u64 busy_ns, switches, events;	/* this interval */
	__u64 lost;			/* since the start */
	__u64 packet;			/* packet_seq_num + 1 of its latest record */
};

struct top_model {
	__u64 interval_ns;
	double sample;			/* the share of packets read: 1, or --sample's */
	__u64 start, end;		/* the interval being counted; end 0: none yet */
	__u64 seq;
	unsigned int ncpu;
	struct cpu_state *cpus;
	struct class_info *classes;
	unsigned int nclasses;
	struct syscall_row *syscalls[MAX_SYSCALL];
	struct tr_tasks tasks;
	struct tr_task *last_task;	/* task_of()'s last, in last_slots */
	const struct tr_task *last_slots;
	__u64 events, total_events;
	__u64 lost_reported;
	int reset_asked;
	struct tr_live_status status;	/* as the last round left it */
	void (*publish)(void *data, struct top_snapshot *snap);
	void *data;
};

struct top_model *top_model_new(__u64 interval_ns, unsigned int ncpu, unsigned int sample_percent,
				void (*publish)(void *data, struct top_snapshot *snap), void *data)
{
	struct top_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->sample = sample_percent && sample_percent < 100 ? sample_percent / 100.0 : 1;
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
		free(m->classes[i].error);
	}
	for (i = 0; i < MAX_SYSCALL; i++)
		if (m->syscalls[i]) {
			free(m->syscalls[i]->error);
			free(m->syscalls[i]);
		}
	tr_tasks_free(&m->tasks);
	free(m->classes);
	free(m->cpus);
	free(m);
}

/* --- Sampling ------------------------------------------------------------------- */

static int sampling(const struct top_model *m)
{
	return m->sample < 1;
}

static struct sample_error *sample_error_new(const struct top_model *m)
{
	return sampling(m) ? calloc(1, sizeof(struct sample_error) +
					m->ncpu * sizeof(((struct sample_error *)0)->cpu[0])) : NULL;
}

/* One more of a row's records, in packet seq of cpu. */
static void sample_count(struct sample_error *e, unsigned int cpu, __u64 seq)
{
	if (!e)
		return;
	if (e->cpu[cpu].packet != seq + 1) {
		e->sumsq += e->cpu[cpu].n * e->cpu[cpu].n;
		e->cpu[cpu].packet = seq + 1;
		e->cpu[cpu].n = 0;
	}
	e->cpu[cpu].n++;
}

/* The 95% bound of the estimate count / p, relative to it (0.05: 5%). */
static double sample_bound(const struct top_model *m, const struct sample_error *e, __u64 count)
{
	double sumsq;
	unsigned int cpu;

	if (!e || !count)
		return 0;
	sumsq = e->sumsq;
	for (cpu = 0; cpu < m->ncpu; cpu++)
		sumsq += (double)e->cpu[cpu].n * e->cpu[cpu].n;
	return 1.96 * sqrt((1 - m->sample) * sumsq) / count;
}

/* --- Reading records ---------------------------------------------------------- */

static const struct tep_format_field *field(const struct tr_item *it, const char *name)
{
	return tep_find_field(it->class->tep, name);
}

static void resolve(struct class_info *c, const struct tr_item *it)
{
	const char *sys = it->class->system, *name = it->class->name;
	int syscalls = !strcmp(sys, "syscalls");
	unsigned int i;

	c->resolved = 1;
	if (asprintf(&c->name, "%s:%s", sys, name) < 0)
		c->name = NULL;
	if (!strcmp(sys, "sched") && !strcmp(name, "sched_switch")) {
		c->kind = SWITCH;
		c->f[0] = field(it, "prev_pid");
		c->f[1] = field(it, "prev_state");
		c->f[2] = field(it, "next_pid");
		c->f[3] = field(it, "next_comm");
	} else if (!strcmp(sys, "sched") && (!strcmp(name, "sched_waking") ||
					      !strcmp(name, "sched_wakeup") ||
					      !strcmp(name, "sched_wakeup_new"))) {
		c->kind = WAKING;
		c->f[0] = field(it, "pid");
		c->f[1] = field(it, "comm");
	} else if ((!strcmp(sys, "raw_syscalls") && !strcmp(name, "sys_enter")) ||
		   (syscalls && !strncmp(name, "sys_enter_", 10))) {
		c->kind = SYS_ENTER;
		c->f[0] = field(it, syscalls ? "__syscall_nr" : "id");
	} else if ((!strcmp(sys, "raw_syscalls") && !strcmp(name, "sys_exit")) ||
		   (syscalls && !strncmp(name, "sys_exit_", 9))) {
		c->kind = SYS_EXIT;
		c->f[0] = field(it, syscalls ? "__syscall_nr" : "id");
		c->f[1] = field(it, "ret");
	} else if (!strcmp(sys, "tracer") && !strcmp(name, "task_state")) {
		c->kind = TASK_STATE;
		c->f[0] = field(it, "pid");
		c->f[1] = field(it, "tgid");
		c->f[2] = field(it, "comm");
	}
	for (i = 0; i < kind_fields[c->kind]; i++)
		if (!c->f[i])
			c->kind = OTHER;	/* a format without the fields top reads */
}

static struct class_info *class_of(struct top_model *m, const struct tr_item *it)
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
		m->classes[id].error = sample_error_new(m);
	}
	return &m->classes[id];
}

/* A field as a signed number (every field top reads is an int or a long). */
static __s64 number(const struct tr_item *it, const struct tep_format_field *f)
{
	__u64 v = tr_read_number((const unsigned char *)it->payload + f->offset, f->size);

	return f->size == 4 ? (__s32)v : (__s64)v;
}

static void name_task(struct tr_task *task, const struct tr_item *it,
		      const struct tep_format_field *comm)
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

static struct syscall_row *syscall_row(struct top_model *m, __s64 nr)
{
	if (nr < 0 || nr >= MAX_SYSCALL)
		return NULL;
	if (!m->syscalls[nr]) {
		m->syscalls[nr] = calloc(1, sizeof(*m->syscalls[nr]));
		if (m->syscalls[nr])
			m->syscalls[nr]->error = sample_error_new(m);
	}
	return m->syscalls[nr];
}

static unsigned int bucket(__u64 ns)
{
	unsigned int shift;

	if (ns < (1u << SUB_BITS))
		return ns;
	shift = 63 - __builtin_clzll(ns) - SUB_BITS;
	return ((shift + 1) << SUB_BITS) | ((ns >> shift) & ((1u << SUB_BITS) - 1));
}

/* The largest latency bucket i holds. */
static __u64 bucket_top(unsigned int i)
{
	unsigned int shift;

	if (i < (1u << SUB_BITS))
		return i;
	shift = (i >> SUB_BITS) - 1;
	return ((((__u64)1 << SUB_BITS) + (i & ((1u << SUB_BITS) - 1)) + 1) << shift) - 1;
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
	__u32 prev = number(it, c->f[0]), next = number(it, c->f[2]);
	struct tr_task *task;

	run_until(m, it->cpu, it->ts);
	m->cpus[it->cpu].switches++;
	m->cpus[it->cpu].running = next;
	m->cpus[it->cpu].since = it->ts;
	/* Still runnable (no sleeping state bit; 0x100 and up: preempted): waiting from now. */
	task = prev && !sampling(m) ? task_of(m, prev) : NULL;
	if (task && !(number(it, c->f[1]) & 0xff) && !task->top.runnable_since)
		task->top.runnable_since = it->ts;
	task = next ? task_of(m, next) : NULL;
	if (task) {
		name_task(task, it, c->f[3]);
		waited(task, it->ts);
	}
}

/* Under --sample: a packet after one not read leaves what ran before it unknown. */
static void packet_seen(struct top_model *m, const struct tr_item *it)
{
	struct cpu_state *c = &m->cpus[it->cpu];

	if (sampling(m) && c->packet && it->packet_seq + 1 != c->packet && it->packet_seq != c->packet)
		c->since = 0;
	c->packet = it->packet_seq + 1;
}

static void woken(struct top_model *m, const struct class_info *c, const struct tr_item *it)
{
	struct tr_task *task = task_of(m, number(it, c->f[0]));

	if (!task)
		return;
	if (!task->comm[0])
		name_task(task, it, c->f[1]);
	if (!task->top.runnable_since && !sampling(m))
		task->top.runnable_since = it->ts;
}

static void entered(struct top_model *m, const struct class_info *c, const struct tr_item *it,
		    struct tr_task *task)
{
	__s64 nr = number(it, c->f[0]);
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
	row->count++;
	row->interval++;
	sample_count(row->error, it->cpu, it->packet_seq);
}

/* Under --sample, whether the packets read hold all of a call (its exit is it). */
static int whole_call(const struct top_model *m, const struct tr_task_top *t,
		      const struct tr_item *it)
{
	return !sampling(m) || (t->syscall_cpu == it->cpu &&
				(it->packet_seq == t->syscall_packet ||
				 it->packet_seq == t->syscall_packet + 1));
}

static void exited(struct top_model *m, const struct class_info *c, const struct tr_item *it,
		   struct tr_task *task)
{
	__s64 nr = number(it, c->f[0]), ret = number(it, c->f[1]);
	struct syscall_row *row = syscall_row(m, nr);
	__u64 ns;

	if (!row)
		return;
	if (!row->entries_traced) {
		row->count++;
		row->interval++;
		sample_count(row->error, it->cpu, it->packet_seq);
	}
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
	row->hist[bucket(ns)]++;
}

static void task_named(struct top_model *m, const struct class_info *c, const struct tr_item *it)
{
	struct tr_task *task = task_of(m, number(it, c->f[0]));

	if (!task)
		return;
	task->pid = number(it, c->f[1]);
	name_task(task, it, c->f[2]);
}

static void count_record(struct top_model *m, const struct tr_item *it)
{
	struct class_info *c = class_of(m, it);
	__u32 tid = it->record->tid;
	struct tr_task *task = tid ? task_of(m, tid) : NULL;

	if (!c || it->cpu >= m->ncpu)
		return;
	c->count++;
	c->interval++;
	sample_count(c->error, it->cpu, it->packet_seq);
	m->events++;
	m->total_events++;
	m->cpus[it->cpu].events++;
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

/* --- Snapshots --------------------------------------------------------------------- */

static const struct top_column task_cols[] = {
	{ "TID", "tid", TOP_ID, 7 }, { "PID", "pid", TOP_ID, 7 },
	{ "COMMAND", "comm", TOP_TEXT, 16 }, { "CPU%", "cpu_percent", TOP_PERCENT, 6 },
	{ "RUNQ-AVG", "runq_avg_ns", TOP_NS, 9 }, { "RUNQ-MAX", "runq_max_ns", TOP_NS, 9 },
	{ "SYSCALLS/S", "syscalls_per_s", TOP_RATE, 10 }, { "EVENTS", "events", TOP_COUNT, 10 },
};
static const struct top_column syscall_cols[] = {
	{ "SYSCALL", "name", TOP_TEXT, 18 }, { "NR", "nr", TOP_ID, 4 },
	{ "COUNT", "count", TOP_COUNT, 10 }, { "RATE/S", "per_s", TOP_RATE, 9 },
	{ "ERRORS", "errors", TOP_COUNT, 8 }, { "AVG", "avg_ns", TOP_NS, 9 },
	{ "P99", "p99_ns", TOP_NS, 9 }, { "MAX", "max_ns", TOP_NS, 9 },
	{ "ERR%", "count_error_percent", TOP_PERCENT, 6 },	/* --sample only: the last */
};
static const struct top_column event_cols[] = {
	{ "EVENT", "name", TOP_TEXT, 40 }, { "COUNT", "count", TOP_COUNT, 12 },
	{ "RATE/S", "per_s", TOP_RATE, 10 },
	{ "ERR%", "count_error_percent", TOP_PERCENT, 6 },	/* --sample only: the last */
};
static const struct top_column cpu_cols[] = {
	{ "CPU", "cpu", TOP_ID, 4 }, { "BUSY%", "busy_percent", TOP_PERCENT, 6 },
	{ "SWITCHES/S", "switches_per_s", TOP_RATE, 10 }, { "EVENTS/S", "events_per_s", TOP_RATE, 10 },
	{ "LOST", "lost", TOP_COUNT, 10 },
};

#define NCOLS(cols) (sizeof(cols) / sizeof(cols[0]))
/* ... of the views with an error column, which only --sample shows. */
#define NCOLS_SAMPLED(m, cols) (NCOLS(cols) - !sampling(m))

/* The text cells' strings, gathered while the tables are built. */
struct strings {
	char *buf;
	size_t len, size;
	int failed;
};

/* Its offset, kept in the cell's text until the buffer is final; +1: 0 is no text. */
static const char *strings_add(struct strings *s, const char *text)
{
	size_t n = strlen(text) + 1, at = s->len;

	if (s->len + n > s->size) {
		size_t size = 2 * (s->len + n) + 256;
		char *more = realloc(s->buf, size);

		if (!more) {
			s->failed = 1;
			return NULL;
		}
		s->buf = more;
		s->size = size;
	}
	memcpy(s->buf + at, text, n);
	s->len += n;
	return (const char *)(uintptr_t)(at + 1);
}

static int table_alloc(struct top_table *t, const struct top_column *cols, unsigned int ncols,
		       unsigned int rows)
{
	t->cols = cols;
	t->ncols = ncols;
	t->nrows = 0;
	t->cells = calloc((size_t)rows * ncols + 1, sizeof(*t->cells));
	return t->cells ? 0 : -1;
}

static struct top_cell *row_add(struct top_table *t)
{
	return &t->cells[(size_t)t->nrows++ * t->ncols];
}

/* What a count read stands for: itself, or under --sample itself over the share read. */
static double scaled(const struct top_model *m, __u64 count)
{
	return count / m->sample;
}

static double per_second(const struct top_model *m, __u64 count, __u64 span)
{
	return span ? scaled(m, count) * 1e9 / span : 0;
}

static void task_rows(struct top_model *m, struct top_snapshot *s, struct strings *str, __u64 span)
{
	struct top_table *t = &s->views[TOP_TASKS];
	unsigned int i;

	if (table_alloc(t, task_cols, NCOLS(task_cols), m->tasks.used))
		return;
	for (i = 0; i < m->tasks.size; i++) {
		const struct tr_task *task = &m->tasks.slot[i];
		const struct tr_task_top *top = &task->top;
		struct top_cell *row;

		if (!task->key || (!task->events && !top->cpu_ns && !top->waits))
			continue;
		row = row_add(t);
		row[0].value = tr_task_tid(task);
		row[1].value = task->pid;
		row[2].text = strings_add(str, task->comm);
		row[3].value = span ? 100.0 * scaled(m, top->cpu_ns) / span : 0;
		row[4].value = top->waits ? (double)top->wait_ns / top->waits : 0;
		row[5].value = top->wait_max_ns;
		row[6].value = per_second(m, top->syscalls, span);
		row[7].value = scaled(m, task->events);
	}
}

static __u64 p99(const struct syscall_row *r)
{
	__u64 want = r->lat_count - r->lat_count / 100, seen = 0;
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += r->hist[i];
		if (seen >= want && seen)
			return bucket_top(i) < r->lat_max ? bucket_top(i) : r->lat_max;
	}
	return r->lat_max;
}

static void syscall_rows(struct top_model *m, struct top_snapshot *s, struct strings *str,
			 __u64 span)
{
	struct top_table *t = &s->views[TOP_SYSCALLS];
	char unknown[32];
	unsigned int nr;

	if (table_alloc(t, syscall_cols, NCOLS_SAMPLED(m, syscall_cols), MAX_SYSCALL))
		return;
	for (nr = 0; nr < MAX_SYSCALL; nr++) {
		const struct syscall_row *r = m->syscalls[nr];
		const char *name = tr_syscall_name(nr);
		struct top_cell *row;

		if (!r || !r->count)
			continue;
		snprintf(unknown, sizeof(unknown), "syscall_%u", nr);
		row = row_add(t);
		row[0].text = strings_add(str, name ? name : unknown);
		row[1].value = nr;
		row[2].value = scaled(m, r->count);
		row[3].value = per_second(m, r->interval, span);
		row[4].value = scaled(m, r->errors);
		row[5].value = r->lat_count ? (double)r->lat_ns / r->lat_count : 0;
		row[6].value = r->lat_count ? p99(r) : 0;
		row[7].value = r->lat_max;
		if (sampling(m))
			row[8].value = 100 * sample_bound(m, r->error, r->count);
	}
}

static void event_rows(struct top_model *m, struct top_snapshot *s, struct strings *str,
		       __u64 span)
{
	struct top_table *t = &s->views[TOP_EVENTS];
	unsigned int i;

	if (table_alloc(t, event_cols, NCOLS_SAMPLED(m, event_cols), m->nclasses))
		return;
	for (i = 0; i < m->nclasses; i++) {
		const struct class_info *c = &m->classes[i];
		struct top_cell *row;

		if (!c->count || !c->name)
			continue;
		row = row_add(t);
		row[0].text = strings_add(str, c->name);
		row[1].value = scaled(m, c->count);
		row[2].value = per_second(m, c->interval, span);
		if (sampling(m))
			row[3].value = 100 * sample_bound(m, c->error, c->count);
	}
}

static void cpu_rows(struct top_model *m, struct top_snapshot *s, __u64 span)
{
	struct top_table *t = &s->views[TOP_CPUS];
	unsigned int cpu;

	if (table_alloc(t, cpu_cols, NCOLS(cpu_cols), m->ncpu))
		return;
	for (cpu = 0; cpu < m->ncpu; cpu++) {
		const struct cpu_state *c = &m->cpus[cpu];
		struct top_cell *row = row_add(t);

		row[0].value = cpu;
		row[1].value = span ? 100.0 * scaled(m, c->busy_ns) / span : 0;
		row[2].value = per_second(m, c->switches, span);
		row[3].value = per_second(m, c->events, span);
		row[4].value = c->lost;
	}
}

/* The text cells' offsets into pointers, now that the strings stay where they are. */
static void strings_fix(struct top_snapshot *s)
{
	unsigned int v, r, c;

	for (v = 0; v < TOP_NVIEWS; v++) {
		struct top_table *t = &s->views[v];

		for (r = 0; r < t->nrows; r++)
			for (c = 0; c < t->ncols; c++) {
				struct top_cell *cell = &t->cells[r * t->ncols + c];

				if (t->cols[c].unit == TOP_TEXT)
					cell->text = cell->text ?
						     s->strings + ((uintptr_t)cell->text - 1) : "";
			}
	}
}

static struct top_snapshot *snapshot(struct top_model *m)
{
	struct top_snapshot *s = calloc(1, sizeof(*s));
	struct strings str = { 0 };
	__u64 span = m->end - m->start;
	unsigned int v;

	if (!s)
		return NULL;
	*s = (struct top_snapshot) { .seq = ++m->seq, .start = m->start, .end = m->end,
				     .events = m->events, .total_events = m->total_events,
				     .status = m->status, .lost_reported = m->lost_reported,
				     .sample_percent = m->sample * 100 + 0.5 };
	task_rows(m, s, &str, span);
	syscall_rows(m, s, &str, span);
	event_rows(m, s, &str, span);
	cpu_rows(m, s, span);
	s->strings = str.buf;
	s->strings_len = str.len;
	for (v = 0; v < TOP_NVIEWS; v++)
		str.failed |= !s->views[v].cells;
	if (str.failed) {
		top_snapshot_free(s);
		return NULL;
	}
	strings_fix(s);
	return s;
}

/* A text cell of from, pointing into to's strings. */
static const char *text_in(const struct top_snapshot *to, const struct top_snapshot *from,
			   const char *text)
{
	if (text >= from->strings && text < from->strings + from->strings_len)
		return to->strings + (text - from->strings);
	return "";
}

static int copy_table(struct top_snapshot *to, const struct top_snapshot *from, unsigned int v)
{
	const struct top_table *f = &from->views[v];
	struct top_table *t = &to->views[v];
	size_t n = (size_t)f->nrows * f->ncols, i;

	t->cells = malloc((n + 1) * sizeof(*t->cells));
	if (!t->cells)
		return -1;
	memcpy(t->cells, f->cells, n * sizeof(*t->cells));
	for (i = 0; i < n; i++)
		if (t->cols[i % t->ncols].unit == TOP_TEXT)
			t->cells[i].text = text_in(to, from, f->cells[i].text);
	return 0;
}

struct top_snapshot *top_snapshot_copy(const struct top_snapshot *from)
{
	struct top_snapshot *s = malloc(sizeof(*s));
	int failed = 0;
	unsigned int v;

	if (!s)
		return NULL;
	*s = *from;
	for (v = 0; v < TOP_NVIEWS; v++)
		s->views[v].cells = NULL;
	s->strings = malloc(from->strings_len + 1);
	if (s->strings)
		memcpy(s->strings, from->strings ? from->strings : "", from->strings_len);
	failed = !s->strings;
	for (v = 0; v < TOP_NVIEWS && !failed; v++)
		failed = copy_table(s, from, v);
	if (failed) {
		top_snapshot_free(s);
		return NULL;
	}
	return s;
}

void top_snapshot_free(struct top_snapshot *s)
{
	unsigned int v;

	if (!s)
		return;
	for (v = 0; v < TOP_NVIEWS; v++)
		free(s->views[v].cells);
	free(s->strings);
	free(s);
}

/* --- Intervals ------------------------------------------------------------------ */

static void reset_error(const struct top_model *m, struct sample_error *e)
{
	if (e)
		memset(e, 0, sizeof(*e) + m->ncpu * sizeof(e->cpu[0]));
}

static void reset_syscall(const struct top_model *m, struct syscall_row *r)
{
	struct sample_error *e = r->error;

	memset(r, 0, sizeof(*r));
	reset_error(m, e);
	r->error = e;
}

/* What is counted per interval starts again; with a reset asked for, all counts. */
static void next_interval(struct top_model *m)
{
	unsigned int i;

	m->start = m->end;
	m->end += m->interval_ns;
	m->events = 0;
	for (i = 0; i < m->nclasses; i++)
		m->classes[i].interval = 0;
	for (i = 0; i < MAX_SYSCALL; i++)
		if (m->syscalls[i])
			m->syscalls[i]->interval = 0;
	for (i = 0; i < m->ncpu; i++)
		m->cpus[i].busy_ns = m->cpus[i].switches = m->cpus[i].events = 0;
	for (i = 0; i < m->tasks.size; i++)
		m->tasks.slot[i].top.cpu_ns = m->tasks.slot[i].top.syscalls = 0;
	if (!m->reset_asked)
		return;
	m->reset_asked = 0;
	m->total_events = 0;
	for (i = 0; i < m->nclasses; i++)
		m->classes[i].count = 0;
	for (i = 0; i < MAX_SYSCALL; i++)
		if (m->syscalls[i])
			reset_syscall(m, m->syscalls[i]);
	for (i = 0; i < m->nclasses; i++)
		reset_error(m, m->classes[i].error);
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
	m->publish(m->data, snapshot(m));
	next_interval(m);
}

static void begin(struct top_model *m, __u64 ts)
{
	m->start = ts;
	m->end = ts + m->interval_ns;
}

void top_model_item(struct top_model *m, const struct tr_item *it)
{
	if (!m->end)
		begin(m, it->ts);
	while (it->ts >= m->end)
		close_interval(m);
	if (it->kind == TR_ITEM_RECORD) {
		count_record(m, it);
	} else if (it->kind == TR_ITEM_LOST) {
		__u64 n = it->lost_full + it->lost_wrap + it->lost_big + it->lost_busy;

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
	while (m->end && m->end <= reached)
		close_interval(m);
}

void top_model_reset(struct top_model *m)
{
	m->reset_asked = 1;
}

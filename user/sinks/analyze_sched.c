// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer analyze sched: per task, its time on a CPU, its switches in, and
 * its wake-up latencies, from sched:sched_switch and the wake-ups
 * (sched_waking, sched_wakeup, sched_wakeup_new).
 *   - runtime: from a switch in to the switch out on that CPU (or to the
 *     trace's last record); before a CPU's first switch, its prev ran
 *     there since the trace's first record (as lttng-cputop counts it);
 *   - a wake-up latency: from a task's first wake-up since it last ran to
 *     its switch in; a wake-up of a task that is some CPU's current one
 *     (by the last switch there) is none, as lttng-analyses counts them
 *     (its sched analysis, lttng-schedstats);
 *   - a loss: the switch a pending wake-up waits for may be lost, so the
 *     pending wake-ups are dropped (counted, never a latency), and the
 *     task on the loss's CPU is unknown until its next switch.
 * Tasks are sorted by their longest latency, as perf sched latency sorts
 * by max, then by runtime.
 *
 * With --timehist, a line per run of a task instead, at its switch off a
 * CPU, as perf sched timehist prints them: its wait (from its previous
 * switch off a CPU to this run's switch in), its scheduling delay (from
 * its wake-up to the switch in, 0 if it was not woken: preempted, as
 * perf 6.1's timehist counts it) and its run time.
 *
 * tracer analyze cpu is the same work shown as lttng-cputop shows it: each
 * CPU's busy time (from a switch to a task other than the idle one to the
 * CPU's next switch) and each task's runtime, as shares of the time from
 * the trace's first record to its last (in_range()).  A switch whose prev is not the
 * task the CPU's last switch put there (a switch the kernel did not
 * report) gives the time between to no task, though the CPU was busy:
 * lttng-cputop gives it to the task switched in before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <tracer/cpus.h>
#include <tracer/report.h>

#include "sinks/sink.h"
#include "sinks/analyze.h"
#include "sinks/by_class.h"
#include "sinks/json.h"
#include "sinks/lami.h"
#include "sinks/tasks.h"
#include "reader/trace.h"

enum kind { OTHER, SWITCH, WAKEUP };

struct sched_task {
	__u32 key;
	unsigned int on_cpus;		/* the CPUs it is the current task of */
	__u64 runtime, switches;
	__u64 woken;			/* the pending wake-up's time, or 0 */
	__u64 last_out;			/* its last switch off a CPU, or 0 */
	__u64 wait, delay;		/* its run's, for --timehist */
	struct an_durations latency;
};

struct sched_cpu {
	__u32 tid;			/* its current task since since, if known */
	bool known;
	bool runs;			/* tid is its current task (none before its first switch) */
	bool seen;			/* it has a switch in the trace */
	__u64 since;
	__u64 busy;			/* time a task other than the idle one was its current one */
};

struct sched {
	FILE *out;
	const struct tr_report_opts *o;
	struct an_table tasks;
	struct sched_cpu cpus[TR_MAX_CPUS];
	struct tr_by_class kinds;	/* enum kind by class id, as __u8 (0xff: not worked out) */
	__u64 first_ts, last_ts, switches, wakeups, dropped;
	bool cpu_view;			/* analyze cpu: the usage, not the latencies */
	__s64 clock_offset;		/* --output lami: the trace's (tr_trace_clock_offset()) */
	__u64 timehist_lines;		/* --timehist: the lines printed */
	int err;
};

static int classify(const void *data, const struct tr_trace_class *c)
{
	(void)data;
	if (strcmp(c->system, "sched"))
		return OTHER;
	if (!strcmp(c->name, "sched_switch"))
		return SWITCH;
	return !strcmp(c->name, "sched_waking") || !strcmp(c->name, "sched_wakeup") ||
	       !strcmp(c->name, "sched_wakeup_new") ? WAKEUP : OTHER;
}

static enum kind kind_of(struct sched *s, const struct tr_item *it)
{
	return an_class_kind(&s->kinds, it, classify, NULL);
}

static struct sched_task *task_of(struct sched *s, __u32 tid)
{
	struct sched_task *t = an_get(&s->tasks, tid);

	if (!t)
		s->err = -ENOMEM;
	return t;
}

/* prev switched out of the CPU at ts: the runtime of its current task, if that is prev. */
static void switch_out(struct sched *s, struct sched_cpu *cpu, __u32 prev, __u64 ts)
{
	struct sched_task *t;

	if (!cpu->runs || !(t = task_of(s, cpu->tid)))
		return;
	t->on_cpus--;
	if (cpu->known && cpu->tid)
		cpu->busy += ts - cpu->since;
	if (cpu->known && cpu->tid == prev)
		t->runtime += ts - cpu->since;
}

/* The CPU's first switch: prev has been its current task since the trace's first record. */
static void first_switch(struct sched *s, struct sched_cpu *cpu, __u32 prev)
{
	struct sched_task *t = task_of(s, prev);

	*cpu = (struct sched_cpu) { .tid = prev, .known = true, .runs = t != NULL, .seen = true,
				    .since = s->first_ts };
	if (t)
		t->on_cpus++;
}

static void switch_in(struct sched *s, struct sched_cpu *cpu, __u32 next, __u64 ts)
{
	struct sched_task *t = task_of(s, next);

	*cpu = (struct sched_cpu) { .tid = next, .known = true, .runs = t != NULL, .seen = true, .since = ts,
				    .busy = cpu->busy };
	if (!t)
		return;
	t->switches++;
	t->on_cpus++;
	t->wait = t->last_out ? ts - t->last_out : 0;
	t->delay = t->woken ? ts - t->woken : 0;
	if (t->woken && an_durations_add(&t->latency, ts - t->woken, ts))
		s->err = -ENOMEM;
	t->woken = 0;
}

/*
 * Whether record it is inside the time the analysis covers, from the
 * trace's first record to its last, as lttng-cputop's range; the records
 * naming tasks and mappings come from before --start too, so with --start
 * or --end they do not count.
 */
static bool in_range(const struct sched *s, const struct tr_item *it)
{
	return (!s->o->start.given && !s->o->end.given) ||
	       !(tr_is_tracer_class(it->class, "task_state") || tr_is_tracer_class(it->class, "vm_map"));
}

/* --timehist: the line of the run of the CPU's current task, which switches off it now. */
static void timehist_line(struct sched *s, const struct tr_item *it, const struct sched_cpu *cpu,
			  const struct tr_tasks *tasks)
{
	const struct sched_task *t = an_get(&s->tasks, cpu->tid);
	const struct tr_task *task = tr_tasks_find(tasks, cpu->tid);
	__u32 pid = an_task_pid(tasks, cpu->tid);
	char name[48];

	if (!t || !an_task_shown(s->o, pid, cpu->tid))
		return;
	if (s->o->json) {
		fprintf(s->out, "%s{\"ts_ns\":%llu,\"cpu\":%u,\"tid\":%u,\"pid\":%u,\"comm\":",
			s->timehist_lines ? "," : "{\"analysis\":\"timehist\",\"runs\":[", (unsigned long long)it->ts,
			it->cpu, cpu->tid, pid);
		tr_json_string(s->out, !cpu->tid ? "swapper" : task ? task->comm : "", 16);
		fprintf(s->out, ",\"wait_ns\":%llu,\"delay_ns\":%llu,\"run_ns\":%llu}", (unsigned long long)t->wait,
			(unsigned long long)t->delay, (unsigned long long)(it->ts - cpu->since));
	} else {
		if (!s->timehist_lines)
			fprintf(s->out, "%18s %6s  %-30s %10s %10s %10s\n%18s %6s  %-30s %10s %10s %10s\n", "time", "cpu",
				"task name", "wait time", "sch delay", "run time", "", "", "[tid/pid]", "(msec)",
				"(msec)", "(msec)");
		if (pid && pid != cpu->tid)
			snprintf(name, sizeof(name), "%s[%u/%u]", !cpu->tid ? "swapper" : task ? task->comm : "",
				 cpu->tid, pid);
		else
			snprintf(name, sizeof(name), "%s[%u]", !cpu->tid ? "swapper" : task ? task->comm : "", cpu->tid);
		fprintf(s->out, "%11llu.%06llu [%04u]  %-30s %10.3f %10.3f %10.3f\n",
			(unsigned long long)(it->ts / 1000000000), (unsigned long long)(it->ts % 1000000000 / 1000),
			it->cpu, name, an_ms(t->wait), an_ms(t->delay), an_ms(it->ts - cpu->since));
	}
	s->timehist_lines++;
}

static void sched_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct sched *s = state;
	struct sched_task *t;
	enum kind k = kind_of(s, it);

	tr_tasks_learn_pid(tasks, it);
	if (in_range(s, it)) {
		s->first_ts = s->first_ts && s->first_ts < it->ts ? s->first_ts : it->ts;
		s->last_ts = it->ts > s->last_ts ? it->ts : s->last_ts;
	}
	if (k == SWITCH && it->cpu < TR_MAX_CPUS) {
		s->switches++;
		__u32 prev = tr_item_number(it, "prev_pid");
		struct sched_cpu *cpu = &s->cpus[it->cpu];

		if (!cpu->seen)
			first_switch(s, cpu, prev);
		if (s->o->timehist && cpu->known && cpu->runs && cpu->tid == prev)
			timehist_line(s, it, cpu, tasks);
		switch_out(s, cpu, prev, it->ts);
		if ((t = task_of(s, prev)))
			t->last_out = it->ts;
		switch_in(s, &s->cpus[it->cpu], tr_item_number(it, "next_pid"), it->ts);
	} else if (k == WAKEUP) {
		s->wakeups++;
		t = task_of(s, tr_item_number(it, "pid"));
		if (t && !t->on_cpus && !t->woken)
			t->woken = it->ts;
	}
}

/* A loss: the pending wake-ups dropped, the CPU's task unknown. */
static void sched_lost(void *state, const struct tr_item *it)
{
	struct sched *s = state;
	struct sched_task *t;
	unsigned int i;

	for (i = 0; i < s->tasks.size; i++)
		if ((t = an_slot(&s->tasks, i)) && t->woken) {
			t->woken = 0;
			s->dropped++;
		}
	if (it->cpu < TR_MAX_CPUS)
		s->cpus[it->cpu].known = false;
}

/* The order of the table: the longest latency first, then the most runtime, then the thread. */
static int by_latency(const void *a, const void *b)
{
	const struct sched_task *x = *(const struct sched_task *const *)a;
	const struct sched_task *y = *(const struct sched_task *const *)b;

	if (x->latency.max != y->latency.max)
		return x->latency.max < y->latency.max ? 1 : -1;
	if (x->runtime != y->runtime)
		return x->runtime < y->runtime ? 1 : -1;
	return an_key(x) < an_key(y) ? -1 : an_key(x) > an_key(y);
}

/* analyze cpu's order: the most runtime first, then the thread. */
static int by_runtime(const void *a, const void *b)
{
	const struct sched_task *x = *(const struct sched_task *const *)a;
	const struct sched_task *y = *(const struct sched_task *const *)b;

	if (x->runtime != y->runtime)
		return x->runtime < y->runtime ? 1 : -1;
	return an_key(x) < an_key(y) ? -1 : an_key(x) > an_key(y);
}

/* The tasks to show, sorted, into *rows: how many (-ENOMEM). */
static int rows_of(struct sched *s, const struct tr_tasks *tasks, struct sched_task ***rows)
{
	struct sched_task *t;
	unsigned int i, n = 0;

	*rows = calloc(s->tasks.used + 1, sizeof(**rows));
	if (!*rows)
		return -ENOMEM;
	for (i = 0; i < s->tasks.size; i++)
		if ((t = an_slot(&s->tasks, i)) && an_key(t) &&
		    an_task_shown(s->o, an_task_pid(tasks, an_key(t)), an_key(t)))
			(*rows)[n++] = t;
	qsort(*rows, n, sizeof(**rows), s->cpu_view ? by_runtime : by_latency);
	return n;
}

static void print_text(struct sched *s, struct sched_task **rows, int n, const struct tr_tasks *tasks)
{
	char label[64];
	int i;

	fprintf(s->out, "%-32s %12s %9s %9s %10s %10s %10s %10s %10s  %s\n", "TASK (COMM PID/TID)",
		"RUNTIME ms", "SWITCHES", "WAKE-UPS", "AVG us", "P50 us", "P99 us", "P99.9 us", "MAX us",
		"MAX AT");
	for (i = 0; i < n; i++) {
		struct an_durations *l = &rows[i]->latency;

		fprintf(s->out, "%-32s %12.3f %9llu %9llu", an_task_label(label, sizeof(label), tasks, an_key(rows[i])),
			an_ms(rows[i]->runtime), (unsigned long long)rows[i]->switches,
			(unsigned long long)l->count);
		if (l->count)
			fprintf(s->out, " %10.3f %10.3f %10.3f %10.3f %10.3f  %llu.%09llu\n", an_us(an_durations_avg(l)),
				an_us(an_durations_percentile(l, 50)), an_us(an_durations_percentile(l, 99)),
				an_us(an_durations_percentile(l, 99.9)), an_us(l->max),
				(unsigned long long)(l->max_at / 1000000000), (unsigned long long)(l->max_at % 1000000000));
		else
			fprintf(s->out, " %10s %10s %10s %10s %10s  %s\n", "-", "-", "-", "-", "-", "-");
	}
	if (s->dropped)
		fprintf(s->out, "\n%llu wake-ups whose switch in a loss may hide: no latency counted for them\n",
			(unsigned long long)s->dropped);
}

static void print_json(struct sched *s, struct sched_task **rows, int n, const struct tr_tasks *tasks)
{
	const struct tr_task *task;
	int i;

	fprintf(s->out, "{\"analysis\":\"sched\",\"wakeups_dropped_by_losses\":%llu,\"tasks\":[",
		(unsigned long long)s->dropped);
	for (i = 0; i < n; i++) {
		struct an_durations *l = &rows[i]->latency;

		task = tr_tasks_find(tasks, an_key(rows[i]));
		fprintf(s->out, "%s{\"tid\":%u,\"pid\":%u,\"comm\":", i ? "," : "", an_key(rows[i]),
			an_task_pid(tasks, an_key(rows[i])));
		tr_json_string(s->out, task && task->comm[0] ? task->comm : "", 16);
		fprintf(s->out, ",\"runtime_ns\":%llu,\"switches\":%llu,\"wakeup_latency\":{",
			(unsigned long long)rows[i]->runtime, (unsigned long long)rows[i]->switches);
		an_durations_json(s->out, l);
		if (l->count)
			fprintf(s->out, ",\"p50_ns\":%llu,\"p99_ns\":%llu,\"p99_9_ns\":%llu,\"max_at_ns\":%llu",
				(unsigned long long)an_durations_percentile(l, 50),
				(unsigned long long)an_durations_percentile(l, 99),
				(unsigned long long)an_durations_percentile(l, 99.9),
				(unsigned long long)l->max_at);
		fprintf(s->out, "}}");
	}
	fprintf(s->out, "]}\n");
}

/* A share of the time from the trace's first record to its last, in %. */
static double share(const struct sched *s, __u64 ns)
{
	return s->last_ts > s->first_ts ? 100.0 * ns / (s->last_ts - s->first_ts) : 0;
}

static void print_cpu_text(struct sched *s, struct sched_task **rows, int n, const struct tr_tasks *tasks)
{
	char label[64];
	unsigned int c;
	int i;

	fprintf(s->out, "%-6s %9s %12s\n", "CPU", "USAGE %", "BUSY ms");
	for (c = 0; c < TR_MAX_CPUS; c++)
		if (s->cpus[c].seen)
			fprintf(s->out, "%-6u %9.2f %12.3f\n", c, share(s, s->cpus[c].busy), an_ms(s->cpus[c].busy));
	fprintf(s->out, "\n%-32s %9s %12s\n", "TASK (COMM PID/TID)", "USAGE %", "RUNTIME ms");
	for (i = 0; i < n; i++)
		fprintf(s->out, "%-32s %9.2f %12.3f\n", an_task_label(label, sizeof(label), tasks, an_key(rows[i])),
			share(s, rows[i]->runtime), an_ms(rows[i]->runtime));
	fprintf(s->out, "\nover %.3f ms, from the trace's first record to its last\n", an_ms(s->last_ts - s->first_ts));
}

static void print_cpu_json(struct sched *s, struct sched_task **rows, int n, const struct tr_tasks *tasks)
{
	const struct tr_task *task;
	unsigned int c, shown = 0;
	int i;

	fprintf(s->out, "{\"analysis\":\"cpu\",\"start_ns\":%llu,\"end_ns\":%llu,\"cpus\":[",
		(unsigned long long)s->first_ts, (unsigned long long)s->last_ts);
	for (c = 0; c < TR_MAX_CPUS; c++)
		if (s->cpus[c].seen)
			fprintf(s->out, "%s{\"cpu\":%u,\"busy_ns\":%llu,\"usage_percent\":%.4f}", shown++ ? "," : "", c,
				(unsigned long long)s->cpus[c].busy, share(s, s->cpus[c].busy));
	fprintf(s->out, "],\"tasks\":[");
	for (i = 0; i < n; i++) {
		task = tr_tasks_find(tasks, an_key(rows[i]));
		fprintf(s->out, "%s{\"tid\":%u,\"pid\":%u,\"comm\":", i ? "," : "", an_key(rows[i]),
			an_task_pid(tasks, an_key(rows[i])));
		tr_json_string(s->out, task && task->comm[0] ? task->comm : "", 16);
		fprintf(s->out, ",\"runtime_ns\":%llu,\"usage_percent\":%.4f}", (unsigned long long)rows[i]->runtime,
			share(s, rows[i]->runtime));
	}
	fprintf(s->out, "]}\n");
}

static const struct lami_column sched_columns[] = {
	{ "Process", "process", NULL }, { "Runtime", "duration", NULL }, { "Switches in", "number", "switches" },
	{ "Wake-up latency count", "number", "wake-ups" }, { "Minimum latency", "duration", NULL },
	{ "Average latency", "duration", NULL }, { "p50 latency", "duration", NULL }, { "p99 latency", "duration", NULL },
	{ "p99.9 latency", "duration", NULL }, { "Maximum latency", "duration", NULL },
	{ "Maximum latency at", "timestamp", NULL }, { "Latency standard deviation", "duration", NULL }, { 0 }
};
static const struct lami_table_class sched_classes[] = {
	{ "per-tid", "Runtime and wake-up latencies (per-TID)", sched_columns }, { 0 }
};
const struct lami_analysis an_lami_sched = {
	"Runtime and wake-up latencies",
	"Per task: its time on a CPU, its switches in, its wake-up latencies and their percentiles",
	(const char *const[]) { "linux-kernel", "tracer", "sched", "stats", NULL }, sched_classes,
};

static const struct lami_column cpu_columns[] = {
	{ "CPU", "cpu", NULL }, { "CPU usage", "ratio", NULL }, { "Busy time", "duration", NULL }, { 0 }
};
static const struct lami_column cpu_task_columns[] = {
	{ "Process", "process", NULL }, { "CPU usage", "ratio", NULL }, { "Runtime", "duration", NULL }, { 0 }
};
static const struct lami_table_class cpu_classes[] = {
	{ "per-cpu", "Per-CPU usage", cpu_columns }, { "per-tid", "Per-TID CPU usage", cpu_task_columns }, { 0 }
};
const struct lami_analysis an_lami_cpu = {
	"CPU usage", "Each CPU's busy time and each task's runtime, as shares of the trace's time",
	(const char *const[]) { "linux-kernel", "tracer", "cpu", "top", NULL }, cpu_classes,
};

/* Task t's cell: its comm, process and thread. */
static void lami_task(struct lami *l, const struct sched_task *t, const struct tr_tasks *tasks)
{
	const struct tr_task *task = tr_tasks_find(tasks, an_key(t));

	lami_process(l, !an_key(t) ? "swapper" : task ? task->comm : "", an_task_pid(tasks, an_key(t)), an_key(t));
}

/* The latency cells of sched_columns, from the minimum on: empty ones without a latency. */
static void lami_latencies(struct lami *l, struct an_durations *d)
{
	double stdev = an_durations_stdev(d);
	unsigned int i;

	if (!d->count) {
		for (i = 0; i < 8; i++)
			lami_empty(l);
		return;
	}
	lami_duration(l, d->min);
	lami_duration(l, an_durations_avg(d));
	lami_duration(l, an_durations_percentile(d, 50));
	lami_duration(l, an_durations_percentile(d, 99));
	lami_duration(l, an_durations_percentile(d, 99.9));
	lami_duration(l, d->max);
	lami_timestamp(l, d->max_at);
	if (stdev >= 0)
		lami_duration(l, stdev);
	else
		lami_empty(l);
}

static void print_lami(struct sched *s, struct sched_task **rows, int n, const struct tr_tasks *tasks)
{
	struct lami l;
	int i;

	lami_results_begin(&l, s->out, s->clock_offset);
	lami_table(&l, &sched_classes[0], NULL, s->first_ts, s->last_ts);
	for (i = 0; i < n; i++) {
		lami_row(&l);
		lami_task(&l, rows[i], tasks);
		lami_duration(&l, rows[i]->runtime);
		lami_number(&l, rows[i]->switches);
		lami_number(&l, rows[i]->latency.count);
		lami_latencies(&l, &rows[i]->latency);
	}
	lami_results_end(&l);
}

static void print_cpu_lami(struct sched *s, struct sched_task **rows, int n, const struct tr_tasks *tasks)
{
	struct lami l;
	unsigned int c;
	int i;

	lami_results_begin(&l, s->out, s->clock_offset);
	lami_table(&l, &cpu_classes[0], NULL, s->first_ts, s->last_ts);
	for (c = 0; c < TR_MAX_CPUS; c++)
		if (s->cpus[c].seen) {
			lami_row(&l);
			lami_cpu(&l, c);
			lami_ratio(&l, share(s, s->cpus[c].busy) / 100);
			lami_duration(&l, s->cpus[c].busy);
		}
	lami_table(&l, &cpu_classes[1], NULL, s->first_ts, s->last_ts);
	for (i = 0; i < n; i++) {
		lami_row(&l);
		lami_task(&l, rows[i], tasks);
		lami_ratio(&l, share(s, rows[i]->runtime) / 100);
		lami_duration(&l, rows[i]->runtime);
	}
	lami_results_end(&l);
}

static void sched_free(struct sched *s)
{
	an_table_free_durations(&s->tasks, offsetof(struct sched_task, latency));
	tr_by_class_free(&s->kinds);
	free(s);
}

/* The tasks still on a CPU ran until the trace's last record; the table; s freed. */
static int sched_close(void *state, const struct tr_tasks *tasks)
{
	struct sched *s = state;
	struct sched_task **rows = NULL;
	unsigned int i;
	int n, err;

	for (i = 0; i < TR_MAX_CPUS; i++)
		switch_out(s, &s->cpus[i], s->cpus[i].tid, s->last_ts);
	if (s->o->timehist && !s->err) {
		if (s->timehist_lines && s->o->json)
			fprintf(s->out, "]}\n");
		else if (!s->timehist_lines)
			fprintf(stderr, "tracer %s sched: no run of a task %sended in the trace's sched:sched_switch records\n",
				s->o->command, s->o->pid || s->o->tid ? "chosen " : "");
		err = s->timehist_lines ? 0 : -ENODATA;
		sched_free(s);
		return err;
	}
	n = s->err ? s->err : rows_of(s, tasks, &rows);
	if (n > 0 && s->cpu_view)
		(s->o->lami ? print_cpu_lami : s->o->json ? print_cpu_json : print_cpu_text)(s, rows, n, tasks);
	else if (n > 0)
		(s->o->lami ? print_lami : s->o->json ? print_json : print_text)(s, rows, n, tasks);
	else if (!n)
		fprintf(stderr, "tracer %s %s: no task %s in the trace's sched:sched_switch records%s\n",
			s->o->command, s->cpu_view ? "cpu" : "sched", s->o->pid || s->o->tid ? "chosen is" : "is",
			s->switches ? "" : " (it has none)");
	if (n >= 0 && !s->wakeups && s->switches && !s->cpu_view)
		fprintf(stderr, "tracer %s sched: no wake-up in the trace, so no latency: record sched:sched_waking and sched:sched_wakeup_new too\n",
			s->o->command);
	err = n < 0 ? n : n ? 0 : -ENODATA;
	free(rows);
	sched_free(s);
	return err;
}

static int sched_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace, const struct tr_report_opts *o)
{
	static const char *const need[] = { "sched:sched_switch", NULL };
	bool cpu_view = o->format == TR_REPORT_ANALYZE_CPU;
	int err;
	struct sched *s = an_new(trace, o, cpu_view ? "cpu" : "sched", need,
				 cpu_view ? "tracer record -e sched:sched_switch ..." :
				 "tracer record -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup_new ...",
				 sizeof(*s), &err);

	if (!s)
		return err;
	s->out = out;
	s->o = o;
	s->cpu_view = cpu_view;
	if (o->lami)
		tr_trace_clock_offset(trace, &s->clock_offset);
	s->tasks.entry_size = sizeof(struct sched_task);
	s->kinds = (struct tr_by_class) { .size = 1, .fill = 0xff };
	*sink = (struct tr_sink) { .ops = cpu_view ? &tr_analyze_cpu_sink : &tr_analyze_sched_sink, .state = s };
	return 0;
}

const struct tr_sink_ops tr_analyze_sched_sink = {
	.open = sched_open, .record = sched_record, .lost = sched_lost, .close = sched_close,
	.keeps_state = true, .every_task = true,
};

const struct tr_sink_ops tr_analyze_cpu_sink = {
	.open = sched_open, .record = sched_record, .lost = sched_lost, .close = sched_close,
	.keeps_state = true, .every_task = true,
};

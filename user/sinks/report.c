// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The pipeline of tracer report and tracer export: the trace opened, its
 * sink opened (sinks/sink.h), a first pass (sinks/first_pass.h), then the
 * main pass: every item through the filters (--cpu, --start and --end,
 * --pid and --tid, --event), the tasks named as records name them, and
 * what is kept handed to the sink, which is closed at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sinks/report.h"
#include "sinks/sink.h"
#include "sinks/by_class.h"
#include "sinks/first_pass.h"
#include "sinks/tasks.h"
#include "reader/symbols.h"
#include "reader/trace.h"
#include "reader/trace_dir.h"
#include "common/cpus.h"

struct filter {
	__u8 cpus[TR_MAX_CPUS];
	int by_cpu;
	__u64 start, end;		/* the time window, once the first record is known */
	const struct tr_report_opts *o;
	const struct tr_sink_ops *sink;	/* what it keeps for */
	struct tr_by_class wanted;	/* class_wanted_by_name(), by class: __s8, -1 not worked out yet */
};

/*
 * Without --event every event but the task names and the mappings, which
 * only a sink that keeps_state keeps.
 */
static int class_wanted_by_name(const struct filter *f, const struct tr_trace_class *class)
{
	char full[512];
	unsigned int i;

	snprintf(full, sizeof(full), "%s:%s", class->system, class->name);
	for (i = 0; i < f->o->nevents; i++)
		if (!fnmatch(f->o->events[i], full, 0) || !fnmatch(f->o->events[i], class->name, 0))
			return 1;
	if (f->sink->keeps_state)
		return !f->o->nevents;
	return !f->o->nevents && !tr_is_tracer_class(class, "task_state") &&
	       !tr_is_tracer_class(class, "vm_map");
}

static int class_wanted(struct filter *f, const struct tr_item *it)
{
	__s8 *memo = tr_by_class(&f->wanted, it->record->id);

	if (!memo)
		return class_wanted_by_name(f, it->class);
	if (*memo < 0)
		*memo = class_wanted_by_name(f, it->class);
	return *memo;
}

/* t in the trace's clock: a relative one counted from first, one since the epoch less offset. */
static __u64 window_time(const struct tr_report_time *t, __u64 first, __s64 offset)
{
	if (t->relative)
		return first + t->ns;
	if (t->epoch)
		return (__s64)t->ns > offset ? (__u64)((__s64)t->ns - offset) : 0;
	return t->ns;
}

/* --start and --end in the trace's clock: the window of records shown. */
static void set_window(struct filter *f, __u64 first, const struct tr_trace *trace)
{
	const struct tr_report_time *start = &f->o->start, *end = &f->o->end;
	__s64 offset = 0;

	if (start->epoch || end->epoch)
		tr_trace_clock_offset(trace, &offset);
	f->start = start->given ? window_time(start, first, offset) : 0;
	f->end = end->given ? window_time(end, first, offset) : ~0ull;
}

/* What a sink that keeps_state keeps from outside the time window too. */
static bool keeps_state(const struct filter *f, const struct tr_item *it)
{
	return f->sink->keeps_state && it->kind == TR_ITEM_RECORD &&
	       (tr_is_tracer_class(it->class, "task_state") || tr_is_tracer_class(it->class, "vm_map"));
}

static bool task_wanted(const struct tr_report_opts *o, const struct tr_event_header *e)
{
	return (!o->pid || (__u32)o->pid == e->pid) && (!o->tid || (__u32)o->tid == e->tid);
}

/* export on a terminal: how far it is, twice a second at most, and what it did. */
struct progress {
	const char *command;
	__u64 done, total;
	double begin, last;		/* s */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress_step(struct progress *p)
{
	double now, rate;

	if (!p->command || ++p->done % 4096)
		return;
	now = now_s();
	if (now - p->last < 0.5)
		return;
	p->last = now;
	rate = p->done / (now - p->begin);
	fprintf(stderr, "\rtracer %s: %llu of %llu records (%.2f M/s, %.0f s left)\033[K",
		p->command, (unsigned long long)p->done, (unsigned long long)p->total, rate / 1e6,
		p->total > p->done ? (p->total - p->done) / rate : 0.0);
}

static void progress_end(const struct progress *p)
{
	if (p->command)
		fprintf(stderr, "\rtracer %s: %llu records in %.2f s\033[K\n", p->command,
			(unsigned long long)p->done, now_s() - p->begin);
}

/* The main pass: what report_item() works with. */
struct main_pass {
	const struct tr_report_opts *o;
	struct tr_trace *trace;		/* the trace read */
	struct filter *f;
	struct tr_sink sink;
	struct tr_tasks *tasks;
	struct tr_by_class names_tasks;	/* tr_tasks_learn()'s memo */
	struct progress progress;
	int damaged;
	int stopped;			/* o->stop came: the items cut short */
};

static void report_item(void *data, const struct tr_item *it)
{
	struct main_pass *p = data;
	const struct tr_report_opts *o = p->o;
	struct filter *f = p->f;

	if (o->stop && *o->stop) {
		p->stopped = 1;
		tr_trace_stop(p->trace);
		return;
	}

	progress_step(&p->progress);
	if (it->kind == TR_ITEM_PROBLEM) {
		fprintf(stderr, "tracer %s: %s\n", o->command, it->problem);
		p->damaged = 1;
		return;
	}
	/* Every record, shown or not, may name a task. */
	if (it->kind == TR_ITEM_RECORD)
		tr_tasks_learn(p->tasks, &p->names_tasks, p->trace, it, true);
	if ((f->by_cpu && (it->cpu >= TR_MAX_CPUS || !f->cpus[it->cpu])) ||
	    ((it->ts < f->start || it->ts > f->end) && !keeps_state(f, it)))
		return;
	/* Losses are a CPU's, not a task's or an event's. */
	if (it->kind == TR_ITEM_LOST) {
		if ((!o->pid && !o->tid && !o->nevents) || f->sink->every_task)
			p->sink.ops->lost(p->sink.state, it);
		return;
	}
	if (class_wanted(f, it) && (f->sink->every_task || task_wanted(o, it->record)))
		p->sink.ops->record(p->sink.state, it, p->tasks);
}

/* A field's kernel address (%pS) as the function it is in, by the trace's kallsyms. */
static const char *kernel_function(void *symbols, __u64 address, __u64 *start)
{
	struct tr_frame_name name = tr_symbols_kernel(symbols, address);

	*start = address - name.offset;
	return name.function;
}

/*
 * The sink of o's format on out, its symbols naming the functions fields
 * point to: 0, or its exit status (2: a usage error, said; 1).
 */
static int open_sink(struct tr_sink *sink, const struct tr_report_opts *o, struct tr_trace *trace,
		     FILE *out)
{
	int err = tr_sink_of(o->format)->open(sink, out, trace, o);

	if (!err && sink->symbols) {
		err = tr_trace_name_functions(trace, kernel_function, sink->symbols);
		if (err)
			sink->ops->close(sink->state, NULL);
	}
	return !err ? 0 : err == -EINVAL ? 2 : 1;
}

/* A sink cut short by o->stop: abandoned, what it made removed; said. */
static void close_stopped(struct main_pass *pass)
{
	const struct tr_report_opts *o = pass->o;

	if (pass->sink.ops->abandon)
		pass->sink.ops->abandon(pass->sink.state);
	else
		pass->sink.ops->close(pass->sink.state, pass->tasks);
	fprintf(stderr, "tracer %s: stopped by a signal%s%s%s\n", o->command,
		o->output_dir ? ": " : "", o->output_dir ? o->output_dir : "",
		o->output_dir ? " removed" : "");
}

/*
 * The passes over the open trace into the open sink, which they close
 * (abandon, when o->stop cut them short or a whole-or-nothing sink's
 * trace is damaged): whether the trace is damaged (problems said), the
 * passes were stopped or writing failed (said).
 */
static int run_passes(struct main_pass *pass, struct tr_trace *trace)
{
	const struct tr_report_opts *o = pass->o;
	struct tr_first_pass seen;
	int err;

	if (!tr_first_pass(o->dir, pass->tasks, pass->sink.symbols, &seen))
		set_window(pass->f, seen.first, trace);
	pass->progress = (struct progress) { o->progress ? o->command : NULL, 0, seen.items,
					     now_s(), now_s() };
	tr_trace_each(trace, report_item, pass);
	if (pass->stopped) {
		progress_end(&pass->progress);
		close_stopped(pass);
		return 1;
	}
	if (pass->damaged && pass->sink.ops->whole_or_nothing) {
		progress_end(&pass->progress);
		pass->sink.ops->abandon(pass->sink.state);
		return 1;
	}
	err = pass->sink.ops->close(pass->sink.state, pass->tasks);
	progress_end(&pass->progress);
	if (err == -ENODATA)	/* an analysis with nothing to show, said */
		return 1;
	if (err) {
		fprintf(stderr, "tracer %s: writing %s failed: %s\n", o->command,
			o->output_dir ? o->output_dir : "the output", strerror(-err));
		pass->damaged = 1;
	}
	return pass->damaged;
}

int tr_report_give_file(int fd)
{
	uid_t uid;
	gid_t gid;

	return tr_sudo_owner(&uid, &gid) && fchown(fd, uid, gid) ? -errno : 0;
}

int tr_report(const struct tr_report_opts *o, FILE *out)
{
	struct filter f = {
		.by_cpu = o->cpus != NULL, .o = o, .sink = tr_sink_of(o->format),
		.wanted = { .size = 1, .fill = -1 },
	};
	struct tr_tasks tasks = { NULL, 0, 0 };
	struct main_pass pass = {
		.o = o, .f = &f, .tasks = &tasks, .names_tasks = { .size = 1, .fill = -1 },
	};
	struct tr_trace *trace;
	char why[1024];
	int status;

	if (o->cpus && tr_parse_cpu_list(o->cpus, f.cpus, TR_MAX_CPUS)) {
		fprintf(stderr, "tracer %s: bad CPU list '%s'\n", o->command, o->cpus);
		return 2;
	}
	status = tr_trace_open(&trace, o->dir, why, sizeof(why));
	if (status) {
		fprintf(stderr, "tracer %s: %s\n", o->command, why);
		return status == -ENOENT ? 2 : 1;
	}
	pass.trace = trace;
	status = open_sink(&pass.sink, o, trace, out);
	if (!status)
		status = run_passes(&pass, trace);
	tr_trace_close(trace);
	tr_tasks_free(&tasks);
	tr_by_class_free(&f.wanted);
	tr_by_class_free(&pass.names_tasks);
	return status;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <event-parse.h>

#include "sinks/report.h"
#include "reader/trace_dir.h"
#include "print/fields.h"
#include "print/print_fmt.h"
#include "sinks/stacks.h"
#include "reader/trace.h"
#include "common/cpus.h"
#include "common/context.h"
#include "sinks/json.h"
#include "sinks/chrome.h"
#include "sinks/perfetto.h"
#include "sinks/ctf_copy.h"
#include "sinks/stats.h"
#include "sinks/tasks.h"

/* pid's name is comm; a name it had already stays if !replace. */
static void comm_set(struct tr_tasks *tasks, __u32 pid, const char *comm, bool replace)
{
	struct tr_task *task = tr_tasks_get(tasks, pid);

	if (task && (replace || !task->comm[0]))
		snprintf(task->comm, sizeof(task->comm), "%.15s", comm);
}

static const char *comm_get(const struct tr_tasks *tasks, __u32 pid)
{
	const struct tr_task *task = tr_tasks_find(tasks, pid);

	return task && task->comm[0] ? task->comm : NULL;
}

static struct tep_record record_of(const struct tr_item *it)
{
	return (struct tep_record) {
		.ts = it->ts, .data = (void *)it->payload,
		.size = it->record->size, .cpu = it->cpu,
	};
}

/*
 * What the report works out once per event class, found by its id (the
 * same in both passes, which open the trace apart).
 */
struct class_memo {
	struct tr_field_plan *plan;	/* its fields' printing plan, or NULL */
	struct tr_print_plan *print;	/* its print format's, or NULL */
	__u8 planned;			/* the plans were tried */
	__s8 wanted;			/* class_wanted(), or -1: not worked out yet */
	__s8 names_tasks;		/* has a comm and pid pair, or -1: not worked out yet */
};

struct class_memos {
	struct class_memo *by_id;
	unsigned int n;
};

/* The memo of it's class, or NULL (no memory: it is worked out each time). */
static struct class_memo *memo_of(struct class_memos *m, const struct tr_item *it)
{
	__u32 id = it->record->id;

	if (id >= m->n) {
		unsigned int n = id + 64, i;
		struct class_memo *by_id = realloc(m->by_id, n * sizeof(*by_id));

		if (!by_id)
			return NULL;
		for (i = m->n; i < n; i++)
			by_id[i] = (struct class_memo) { .wanted = -1, .names_tasks = -1 };
		m->by_id = by_id;
		m->n = n;
	}
	return &m->by_id[id];
}

static void memos_free(struct class_memos *m)
{
	while (m->n) {
		tr_field_plan_free(m->by_id[--m->n].plan);
		tr_print_plan_free(m->by_id[m->n].print);
	}
	free(m->by_id);
}

/* Whether it is a user-space event: what a traced program says, not the kernel. */
static bool from_user_space(const struct tr_trace *trace, const struct tr_item *it)
{
	const char *channel = tr_trace_channel_name(trace, it->stream_id);

	return channel && !strcmp(channel, TR_UST_CHANNEL);
}

/*
 * Events of the kernel (trace's) that name tasks teach the report their
 * command names; a user-space event names none, whatever fields its
 * program gave it.  Every field of a record lies inside it (reader/trace.h), so
 * reading them is safe.
 */
static void learn_comms(struct tr_tasks *c, struct class_memos *memos, const struct tr_trace *trace,
			const struct tr_item *it, bool replace)
{
	struct class_memo *memo = memo_of(memos, it);
	struct tep_event *ev = it->class->tep;
	struct tep_record record = record_of(it), *rec = &record;
	static const char *const pairs[][2] = {
		{ "prev_comm", "prev_pid" }, { "next_comm", "next_pid" },
		{ "comm", "pid" }, { "newcomm", "pid" },
	};
	unsigned int i, pairs_found = 0;

	if (memo && !memo->names_tasks)
		return;
	if (from_user_space(trace, it)) {
		if (memo)
			memo->names_tasks = 0;
		return;
	}
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct tep_format_field *pid = tep_find_field(ev, pairs[i][1]);
		unsigned long long value;
		const char *name;
		int len = 0;

		if (!pid || !tep_find_field(ev, pairs[i][0]))
			continue;
		pairs_found++;
		if (tep_read_number_field(pid, rec->data, &value) || !value)
			continue;
		/* Fixed char arrays and __data_loc strings alike. */
		name = tep_get_field_raw(NULL, ev, pairs[i][0], rec, &len, 0);
		if (name && len > 0) {
			char comm[16];

			snprintf(comm, sizeof(comm), "%.*s", len, name);
			comm_set(c, value, comm, replace);
		}
	}
	if (memo)
		memo->names_tasks = pairs_found > 0;
}

struct filter {
	__u8 cpus[TR_MAX_CPUS];
	int by_cpu;
	__u64 start, end;		/* the time window, once the first record is known */
	__u64 items;			/* records and losses in the trace */
	const struct tr_report_opts *o;
	struct class_memos memos;
};

static bool is_task_state(const struct tr_trace_class *class)
{
	return !strcmp(class->system, "tracer") && !strcmp(class->name, "task_state");
}

static bool is_vm_map(const struct tr_trace_class *class)
{
	return !strcmp(class->system, "tracer") && !strcmp(class->name, "vm_map");
}

/* The recorder's count of the events the kernel skipped (record/recursion_misses.h): a loss. */
static bool is_skips(const struct tr_trace_class *class)
{
	return !strcmp(class->system, "tracer") && !strcmp(class->name, "recursion_misses");
}

/*
 * Without --event every event but the task names and the mappings (as
 * perf script hides its task and mmap events).
 */
static int class_wanted_by_name(const struct filter *f, const struct tr_trace_class *class)
{
	char full[512];
	unsigned int i;

	snprintf(full, sizeof(full), "%s:%s", class->system, class->name);
	for (i = 0; i < f->o->nevents; i++)
		if (!fnmatch(f->o->events[i], full, 0) || !fnmatch(f->o->events[i], class->name, 0))
			return 1;
	/* A trace's copy keeps what names its tasks and their code. */
	if (f->o->format == TR_REPORT_CTF)
		return !f->o->nevents;
	return !f->o->nevents && !is_task_state(class) && !is_vm_map(class);
}

static int class_wanted(struct filter *f, const struct tr_item *it)
{
	struct class_memo *memo = memo_of(&f->memos, it);

	if (!memo)
		return class_wanted_by_name(f, it->class);
	if (memo->wanted < 0)
		memo->wanted = class_wanted_by_name(f, it->class);
	return memo->wanted;
}

/* --start and --end, the relative ones counted from the first record's time. */
static void set_window(struct filter *f, __u64 first)
{
	const struct tr_report_time *start = &f->o->start, *end = &f->o->end;

	f->start = !start->given ? 0 : start->relative ? first + start->ns : start->ns;
	f->end = !end->given ? ~0ull : end->relative ? first + end->ns : end->ns;
}

/*
 * A trace's copy keeps what names its tasks and their code from outside
 * its time window too: what came before it holds in it.
 */
static bool keeps_state(const struct filter *f, const struct tr_item *it)
{
	return f->o->format == TR_REPORT_CTF && it->kind == TR_ITEM_RECORD &&
	       (is_task_state(it->class) || is_vm_map(it->class));
}

/*
 * A first pass names every thread by its first tracer:task_state record:
 * the state dump of a snapshot comes after the events it names, and
 * records of other CPUs may come before a thread's dump record.  The main
 * pass then follows each rename as it comes.  The stacks' symbols learn
 * every mapping (symbols may be NULL).  Problems are said in the main pass.
 */
struct first_pass {
	struct tr_tasks *tasks;		/* the threads named */
	struct tr_symbols *symbols;	/* what learns the mappings, or NULL */
	struct filter *f;		/* the items counted, for the window */
	__u64 first;			/* the first item's time; 0: none yet */
	const struct tr_trace *trace;	/* the trace read */
};

static void first_pass_item(void *data, const struct tr_item *it)
{
	struct first_pass *p = data;

	if (it->kind != TR_ITEM_PROBLEM && !p->first)
		p->first = it->ts;
	p->f->items += it->kind != TR_ITEM_PROBLEM;
	if (it->kind == TR_ITEM_RECORD && is_task_state(it->class))
		learn_comms(p->tasks, &p->f->memos, p->trace, it, false);
	if (p->symbols)
		tr_symbols_learn(p->symbols, it);
}

static void first_pass(struct tr_tasks *c, struct tr_symbols *symbols, struct filter *f)
{
	struct first_pass p = { c, symbols, f, 0, NULL };
	struct tr_trace *trace;
	char why[1024];

	if (tr_trace_open(&trace, f->o->dir, why, sizeof(why)))
		return;
	p.trace = trace;
	tr_trace_each(trace, first_pass_item, &p);
	set_window(f, p.first);
	tr_trace_close(trace);
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

static bool task_wanted(const struct tr_report_opts *o, const struct tr_event_header *e)
{
	return (!o->pid || (__u32)o->pid == e->pid) && (!o->tid || (__u32)o->tid == e->tid);
}

static void print_lost(FILE *out, const struct tr_item *it)
{
	__u64 events = tr_item_lost(it);

	fprintf(out, "%16s %7s [%03u] %5llu.%09llu: LOST", "", "", it->cpu,
		it->ts / 1000000000ull, it->ts % 1000000000ull);
	if (events)
		fprintf(out, " %llu events (%llu buffer full, %llu not yet committed, %llu too big, %llu busy)",
			events, it->lost_full, it->lost_wrap, it->lost_big, it->lost_busy);
	if (it->lost_packets)
		fprintf(out, "%s %llu sub-buffers overwritten", events ? "," : "", it->lost_packets);
	if (it->channel)
		fprintf(out, " in channel %s", it->channel);
	fputc('\n', out);
}

/*
 * A tracer:recursion_misses record as the LOST line of the events it
 * counts: skipped on no CPU in particular, between its since and its time.
 */
static void print_skips(FILE *out, const struct tr_item *it)
{
	__u64 since = tr_item_number(it, "since");

	fprintf(out, "%16s %7s [%03u] %5llu.%09llu: LOST %llu events (skipped by the kernel on any CPU since %llu.%09llu: recursion misses)\n",
		"", "", it->cpu, it->ts / 1000000000ull, it->ts % 1000000000ull,
		tr_item_number(it, "skipped"), since / 1000000000ull, since % 1000000000ull);
}

/* Thread 0 is each CPU's idle task, never named by its records. */
static const char *comm_of(const struct tr_tasks *tasks, const struct tr_item *it)
{
	const char *comm = it->record->tid ? comm_get(tasks, it->record->tid) : "swapper";

	return comm ? comm : "";
}

/* Where wanted items go: text lines (with stacks), folded stacks, or JSON lines. */
struct sink {
	FILE *out;
	enum tr_report_format format;
	struct trace_seq seq;
	struct tr_line line;		/* the text line being built */
	struct class_memos *memos;	/* the report's, for the printing plans */
	struct tr_trace *trace;		/* its print formats, and what they name */
	int raw;			/* --raw: fields, never print formats */
	const char *const *context;	/* the names of its context fields */
	unsigned int ncontext;
	struct tr_symbols *symbols;	/* text or folded stacks of a trace with stacks */
	struct tr_folded *folded;
	struct tr_stats *stats;
	struct tr_chrome *chrome;
	struct tr_perfetto *perfetto;
	struct tr_ctf_copy *copy;
};

/* A record's context fields (record --context), as " {cgroup=1, uid=0}". */
static void print_context(const struct sink *k, const struct tr_item *it)
{
	unsigned int i;

	if (!it->context_at)
		return;
	for (i = 0; i < k->ncontext; i++) {
		__u64 value;

		memcpy(&value, (const char *)it->payload + it->context_at + 8 * i, sizeof(value));
		value = le64toh(value);
		fprintf(k->out, tr_context_signed(k->context[i]) ? "%s%s=%lld" : "%s%s=%llu",
			i ? ", " : " {", k->context[i], (unsigned long long)value);
	}
	fputc('}', k->out);
}

/*
 * The memo of it's class with the printing plan its lines use made, on its
 * first record: the print format's (not with --raw), else the fields'.
 * NULL: no memo.
 */
static const struct class_memo *plans_of(struct sink *k, const struct tr_item *it)
{
	struct class_memo *memo = memo_of(k->memos, it);

	if (memo && !memo->planned) {
		memo->print = k->raw ? NULL :
			      tr_print_plan_new(tr_trace_print_format(k->trace, it->record->id), k->trace);
		memo->plan = memo->print ? NULL : tr_field_plan_new(it->class->tep);
		memo->planned = 1;
	}
	return memo;
}

static char *put_string(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* s right-aligned in width columns, as "%*s" puts it. */
static char *put_right(char *p, const char *s, unsigned int width)
{
	size_t n = strlen(s);

	if (n < width) {
		memset(p, ' ', width - n);
		p += width - n;
	}
	return put_string(p, s, n);
}

/* v in decimal, at least width digits with zeros or spaces before them. */
static char *put_decimal(char *p, unsigned long long v, unsigned int width, char pad)
{
	char digits[24];
	unsigned int n = 0;

	do {
		digits[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	for (; width > n; width--)
		*p++ = pad;
	while (n)
		*p++ = digits[--n];
	return p;
}

/*
 * "%16s %7s [%03u] %5llu.%09llu: %s:%s: " of a record's line, into
 * k->line: 0, or -1 (out of memory).
 */
static int put_prefix(struct sink *k, const struct tr_tasks *tasks, const struct tr_item *it)
{
	const char *comm = comm_of(tasks, it);
	struct tr_line *line = &k->line;
	__u32 pid = it->record->pid, tid = it->record->tid;
	char who[24], *p;

	p = put_decimal(who, pid, 0, ' ');
	if (pid != tid)
		p = put_decimal(put_string(p, "/", 1), tid, 0, ' ');
	*p = 0;
	line->len = 0;
	if (tr_line_reserve(line, strlen(comm) + strlen(it->class->system) +
			    strlen(it->class->name) + 96))
		return -1;
	p = put_right(line->buf, comm, 16);
	*p++ = ' ';
	p = put_right(p, who, 7);
	p = put_string(p, " [", 2);
	p = put_decimal(p, it->cpu, 3, '0');
	p = put_string(p, "] ", 2);
	p = put_decimal(p, it->ts / 1000000000ull, 5, ' ');
	*p++ = '.';
	p = put_decimal(p, it->ts % 1000000000ull, 9, '0');
	p = put_string(p, ": ", 2);
	p = put_string(p, it->class->system, strlen(it->class->system));
	*p++ = ':';
	p = put_string(p, it->class->name, strlen(it->class->name));
	p = put_string(p, ": ", 2);
	line->len = p - line->buf;
	return 0;
}

/*
 * What the line says of the record: its print format's text, as
 * tep_print_event() prints it, or with --raw or where the class has no
 * plan for that, its fields, as tep_print_fields() prints them.
 */
static int put_info(struct sink *k, const struct tr_item *it)
{
	const struct class_memo *memo = plans_of(k, it);
	struct tep_record rec = record_of(it);
	struct trace_seq *seq = &k->seq;

	if (memo && memo->print)
		return tr_print_plan_print(memo->print, rec.data, rec.size, &k->line);
	if (memo && memo->plan)
		return tr_field_plan_print(memo->plan, rec.data, rec.size, &k->line);
	trace_seq_reset(seq);
	tep_print_fields(seq, rec.data, rec.size, it->class->tep);
	trace_seq_terminate(seq);
	if (tr_line_reserve(&k->line, seq->len))
		return -1;
	memcpy(k->line.buf + k->line.len, seq->buffer, seq->len);
	k->line.len += seq->len;
	return 0;
}

static void print_record(struct sink *k, const struct tr_tasks *tasks, const struct tr_item *it)
{
	if (put_prefix(k, tasks, it) || put_info(k, it)) {
		fprintf(k->out, "(no memory to print a record of %s:%s)", it->class->system,
			it->class->name);
	} else {
		fwrite_unlocked(k->line.buf, 1, k->line.len, k->out);
	}
	print_context(k, it);
	fputc_unlocked('\n', k->out);
}

/* export --format ctf: the copy's directory, or why not (-EINVAL: one that exists). */
static int open_copy(struct sink *k, const struct tr_report_opts *o, const struct tr_trace *trace)
{
	char why[1024];
	int err = tr_ctf_copy_open(&k->copy, trace, o->output_dir, why, sizeof(why));

	if (!err)
		return 0;
	fprintf(stderr, "tracer %s: %s\n", o->command, why);
	return err == -EEXIST ? -EINVAL : err;
}

static int open_sink(struct sink *k, const struct tr_report_opts *o, struct tr_trace *trace,
		     FILE *out)
{
	*k = (struct sink) { .out = out, .format = o->format, .trace = trace, .raw = o->raw };
	trace_seq_init(&k->seq);
	k->ncontext = tr_trace_context(trace, &k->context);
	if (o->format == TR_REPORT_STATS)
		return (k->stats = tr_stats_new()) ? 0 : -ENOMEM;
	if (o->format == TR_REPORT_CHROME)
		return (k->chrome = tr_chrome_open(out)) ? 0 : -ENOMEM;
	if (o->format == TR_REPORT_PERFETTO)
		return (k->perfetto = tr_perfetto_open(out)) ? 0 : -ENOMEM;
	if (o->format == TR_REPORT_CTF)
		return open_copy(k, o, trace);
	if (o->format == TR_REPORT_FOLDED && !tr_trace_has_stacks(trace)) {
		fprintf(stderr, "tracer report: --folded: %s has no call stacks (record -g takes them)\n",
			o->dir);
		return -EINVAL;
	}
	/* text names the frames of stacks, and the functions fields point to */
	if (o->format == TR_REPORT_JSONL)
		return 0;
	k->symbols = tr_symbols_open(trace);
	k->folded = o->format == TR_REPORT_FOLDED ? tr_folded_new() : NULL;
	return !k->symbols || (o->format == TR_REPORT_FOLDED && !k->folded) ? -ENOMEM : 0;
}

static void sink_record(struct sink *k, struct tr_tasks *tasks, const struct tr_item *it)
{
	switch (k->format) {
	case TR_REPORT_FOLDED:
		tr_folded_add(k->folded, k->symbols, comm_of(tasks, it), it);
		break;
	case TR_REPORT_JSONL:
		tr_json_record(k->out, it, comm_of(tasks, it), k->context, k->ncontext);
		break;
	case TR_REPORT_STATS:
		tr_stats_record(k->stats, it, tasks);
		if (is_skips(it->class))
			tr_stats_skipped(k->stats, tr_item_number(it, "skipped"));
		break;
	case TR_REPORT_CHROME:
		tr_chrome_record(k->chrome, it, tasks);
		break;
	case TR_REPORT_PERFETTO:
		tr_perfetto_record(k->perfetto, it, tasks);
		break;
	case TR_REPORT_CTF:
		tr_ctf_copy_record(k->copy, it);
		break;
	case TR_REPORT_TEXT:
		if (is_skips(it->class)) {
			print_skips(k->out, it);
			break;
		}
		print_record(k, tasks, it);
		if (k->symbols)
			tr_stacks_print(k->out, k->symbols, it);
		break;
	}
}

static void sink_lost(struct sink *k, const struct tr_item *it)
{
	if (k->format == TR_REPORT_TEXT)
		print_lost(k->out, it);
	else if (k->format == TR_REPORT_JSONL)
		tr_json_lost(k->out, it);
	else if (k->format == TR_REPORT_STATS)
		tr_stats_lost(k->stats, it);
	else if (k->format == TR_REPORT_CHROME)
		tr_chrome_lost(k->chrome, it);
	else if (k->format == TR_REPORT_PERFETTO)
		tr_perfetto_lost(k->perfetto, it);
	else if (k->format == TR_REPORT_CTF)
		tr_ctf_copy_lost(k->copy, it);
}

/* Writes what the sink kept for the end: 0, or -errno. */
static int close_sink(struct sink *k, const struct tr_tasks *tasks)
{
	int err = 0;

	if (k->stats)
		tr_stats_print(k->stats, k->out, tasks);
	if (k->chrome)
		tr_chrome_close(k->chrome, tasks);
	if (k->perfetto)
		err = tr_perfetto_close(k->perfetto, tasks);
	if (k->copy)
		err = tr_ctf_copy_close(k->copy);
	tr_stats_free(k->stats);
	if (k->folded)
		tr_folded_print(k->folded, k->out);
	tr_folded_free(k->folded);
	tr_symbols_close(k->symbols);
	trace_seq_destroy(&k->seq);
	free(k->line.buf);
	return err;
}

/* A field's kernel address (%pS) as the function it is in, by the trace's kallsyms. */
static const char *kernel_function(void *symbols, __u64 address, __u64 *start)
{
	struct tr_frame_name name = tr_symbols_kernel(symbols, address);

	*start = address - name.offset;
	return name.function;
}

/* The main pass: what report_item() works with. */
struct main_pass {
	const struct tr_report_opts *o;
	const struct tr_trace *trace;	/* the trace read */
	struct filter *f;
	struct sink *sink;
	struct tr_tasks *tasks;
	struct progress progress;
	int damaged;
};

static void report_item(void *data, const struct tr_item *it)
{
	struct main_pass *p = data;
	const struct tr_report_opts *o = p->o;
	struct filter *f = p->f;

	progress_step(&p->progress);
	if (it->kind == TR_ITEM_PROBLEM) {
		fprintf(stderr, "tracer %s: %s\n", o->command, it->problem);
		p->damaged = 1;
		return;
	}
	/* Every record, shown or not, may name a task. */
	if (it->kind == TR_ITEM_RECORD)
		learn_comms(p->tasks, &f->memos, p->trace, it, true);
	if ((f->by_cpu && (it->cpu >= TR_MAX_CPUS || !f->cpus[it->cpu])) ||
	    ((it->ts < f->start || it->ts > f->end) && !keeps_state(f, it)))
		return;
	/* Losses are a CPU's, not a task's or an event's. */
	if (it->kind == TR_ITEM_LOST) {
		if (!o->pid && !o->tid && !o->nevents)
			sink_lost(p->sink, it);
		return;
	}
	if (class_wanted(f, it) && task_wanted(o, it->record))
		sink_record(p->sink, p->tasks, it);
}

int tr_report(const struct tr_report_opts *o, FILE *out)
{
	struct filter f = { .o = o, .by_cpu = o->cpus != NULL };
	struct tr_tasks tasks = { NULL, 0, 0 };
	struct tr_trace *trace;
	struct sink sink;
	struct main_pass pass = { .o = o, .f = &f, .sink = &sink, .tasks = &tasks };
	char why[1024];
	int err;

	if (o->cpus && tr_parse_cpu_list(o->cpus, f.cpus, TR_MAX_CPUS)) {
		fprintf(stderr, "tracer %s: bad CPU list '%s'\n", o->command, o->cpus);
		return 2;
	}
	err = tr_trace_open(&trace, o->dir, why, sizeof(why));
	if (err) {
		fprintf(stderr, "tracer %s: %s\n", o->command, why);
		return err == -ENOENT ? 2 : 1;
	}
	err = open_sink(&sink, o, trace, out);
	sink.memos = &f.memos;
	if (!err && sink.symbols)
		err = tr_trace_name_functions(trace, kernel_function, sink.symbols);
	if (err) {
		close_sink(&sink, &tasks);
		memos_free(&f.memos);
		tr_trace_close(trace);
		return err == -EINVAL ? 2 : 1;
	}
	first_pass(&tasks, sink.symbols, &f);
	pass.progress = (struct progress) { o->progress ? o->command : NULL, 0, f.items,
					    now_s(), now_s() };
	pass.trace = trace;
	tr_trace_each(trace, report_item, &pass);
	err = close_sink(&sink, &tasks);
	progress_end(&pass.progress);
	if (err) {
		fprintf(stderr, "tracer %s: writing %s failed: %s\n", o->command,
			o->output_dir ? o->output_dir : "the output", strerror(-err));
		pass.damaged = 1;
	}
	tr_trace_close(trace);
	tr_tasks_free(&tasks);
	memos_free(&f.memos);
	return pass.damaged;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer report's text (and export --format text): a line per record, as
 * perf script prints them,
 *	"%16s %7s [%03u] %5llu.%09llu: system:name: INFO {context}"
 * (its task's name, "pid" or "pid/tid", its CPU, its time), the record's
 * stacks named under it (sinks/stacks.h), and a LOST line where events
 * were lost.  INFO is what the record's print format says, as
 * tep_print_event() prints it, or with --raw or where the class has no
 * plan for that, its fields, as tep_print_fields() prints them.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "sinks/sink.h"
#include "sinks/by_class.h"
#include "sinks/stacks.h"
#include "sinks/tasks.h"
#include "print/fields.h"
#include "print/print_fmt.h"
#include "common/context.h"

/* A class's printing plans, made on its first record. */
struct plans {
	struct tr_field_plan *plan;	/* its fields', or NULL */
	struct tr_print_plan *print;	/* its print format's, or NULL */
	__u8 planned;			/* the plans were tried */
};

struct text {
	FILE *out;
	struct trace_seq seq;
	struct tr_line line;		/* the line being built */
	struct tr_by_class plans;	/* struct plans, by class id */
	struct tr_trace *trace;		/* its print formats, and what they name */
	int raw;			/* --raw: fields, never print formats */
	const char *const *context;	/* the names of its context fields */
	unsigned int ncontext;
	struct tr_symbols *symbols;	/* the stacks' frames, named */
};

static struct tep_record record_of(const struct tr_item *it)
{
	return (struct tep_record) {
		.ts = it->ts, .data = (void *)it->payload,
		.size = it->record->size, .cpu = it->cpu,
	};
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

/* A record's context fields (record --context), as " {cgroup=1, uid=0}". */
static void print_context(const struct text *k, const struct tr_item *it)
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
 * The plans of it's class, made on its first record: the print format's
 * (not with --raw), else the fields'.  NULL: no memory to keep them.
 */
static const struct plans *plans_of(struct text *k, const struct tr_item *it)
{
	struct plans *plans = tr_by_class(&k->plans, it->record->id);

	if (plans && !plans->planned) {
		plans->print = k->raw ? NULL :
			       tr_print_plan_new(tr_trace_print_format(k->trace, it->record->id), k->trace);
		plans->plan = plans->print ? NULL : tr_field_plan_new(it->class->tep);
		plans->planned = 1;
	}
	return plans;
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
static int put_prefix(struct text *k, const struct tr_tasks *tasks, const struct tr_item *it)
{
	const char *comm = tr_tasks_comm(tasks, it);
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

/* What the line says of the record (INFO above), after its prefix: 0, or -1 (out of memory). */
static int put_info(struct text *k, const struct tr_item *it)
{
	const struct plans *plans = plans_of(k, it);
	struct tep_record rec = record_of(it);
	struct trace_seq *seq = &k->seq;

	if (plans && plans->print)
		return tr_print_plan_print(plans->print, rec.data, rec.size, &k->line);
	if (plans && plans->plan)
		return tr_field_plan_print(plans->plan, rec.data, rec.size, &k->line);
	trace_seq_reset(seq);
	tep_print_fields(seq, rec.data, rec.size, it->class->tep);
	trace_seq_terminate(seq);
	if (tr_line_reserve(&k->line, seq->len))
		return -1;
	memcpy(k->line.buf + k->line.len, seq->buffer, seq->len);
	k->line.len += seq->len;
	return 0;
}

static void print_record(struct text *k, const struct tr_tasks *tasks, const struct tr_item *it)
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

static void text_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct text *k = state;

	if (tr_is_tracer_class(it->class, "recursion_misses")) {
		print_skips(k->out, it);
		return;
	}
	print_record(k, tasks, it);
	tr_stacks_print(k->out, k->symbols, it);
}

static void text_lost(void *state, const struct tr_item *it)
{
	struct text *k = state;

	print_lost(k->out, it);
}

static int text_close(void *state, const struct tr_tasks *tasks)
{
	struct text *k = state;
	struct plans *plans = (struct plans *)k->plans.at;
	unsigned int i;

	(void)tasks;
	for (i = 0; i < k->plans.n; i++) {
		tr_field_plan_free(plans[i].plan);
		tr_print_plan_free(plans[i].print);
	}
	tr_by_class_free(&k->plans);
	tr_symbols_close(k->symbols);
	trace_seq_destroy(&k->seq);
	free(k->line.buf);
	free(k);
	return 0;
}

/* The text names the frames of stacks, and the functions fields point to. */
static int text_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace,
		     const struct tr_report_opts *o)
{
	struct text *k = calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	*k = (struct text) {
		.out = out, .plans = { .size = sizeof(struct plans) }, .trace = trace, .raw = o->raw,
		.symbols = tr_symbols_open(trace),
	};
	trace_seq_init(&k->seq);
	k->ncontext = tr_trace_context(trace, &k->context);
	if (!k->symbols) {
		text_close(k, NULL);
		return -ENOMEM;
	}
	*sink = (struct tr_sink) { .ops = &tr_text_sink, .state = k, .symbols = k->symbols };
	return 0;
}

const struct tr_sink_ops tr_text_sink = {
	.open = text_open, .record = text_record, .lost = text_lost, .close = text_close,
};

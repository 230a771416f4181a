// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <event-parse.h>

#include "report.h"
#include "trace.h"
#include "cpus.h"

/* At least twice pid_max's largest value: a table at most half full. */
#define MAX_COMM_SLOTS	(1u << 23)

/*
 * pid -> command name, from .tracer/comms and from the events themselves:
 * open addressing in a table that doubles to stay at most half full.
 */
struct comm_slot {
	__s32 pid;			/* 0: free */
	char comm[16];
};

struct comms {
	struct comm_slot *slot;
	unsigned int size;		/* a power of two, or 0 */
	unsigned int used;
};

/* The slot of pid, or the free one where it goes. */
static struct comm_slot *comm_slot(const struct comms *c, __s32 pid)
{
	unsigned int i = pid & (c->size - 1);

	while (c->slot[i].pid && c->slot[i].pid != pid)
		i = (i + 1) & (c->size - 1);
	return &c->slot[i];
}

static int comms_grow(struct comms *c)
{
	struct comms bigger = { .size = c->size ? 2 * c->size : 256, .used = c->used };
	unsigned int i;

	if (bigger.size > MAX_COMM_SLOTS)
		return -E2BIG;
	bigger.slot = calloc(bigger.size, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -ENOMEM;
	for (i = 0; i < c->size; i++)
		if (c->slot[i].pid)
			*comm_slot(&bigger, c->slot[i].pid) = c->slot[i];
	free(c->slot);
	*c = bigger;
	return 0;
}

static void comm_set(struct comms *c, __s32 pid, const char *comm)
{
	struct comm_slot *slot;

	if (2 * (c->used + 1) > c->size && comms_grow(c))
		return;
	slot = comm_slot(c, pid);
	c->used += !slot->pid;
	slot->pid = pid;
	snprintf(slot->comm, sizeof(slot->comm), "%.15s", comm);
}

static const char *comm_get(const struct comms *c, __s32 pid)
{
	const struct comm_slot *slot = c->size ? comm_slot(c, pid) : NULL;

	return slot && slot->pid ? slot->comm : NULL;
}

/* .tracer/comms, if the trace has one: 0, or -errno when it is there but unreadable. */
static int read_comms(struct comms *c, const struct tr_trace *trace)
{
	int fd = tr_trace_open_meta(trace, "comms"), pid;
	char comm[64];
	FILE *f;

	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	while (fscanf(f, "%d %63[^\n]\n", &pid, comm) == 2)
		if (pid > 0)
			comm_set(c, pid, comm);
	fclose(f);
	return 0;
}

static struct tep_record record_of(const struct tr_item *it)
{
	return (struct tep_record) {
		.ts = it->ts, .data = (void *)it->payload,
		.size = it->record->size, .cpu = it->cpu,
	};
}

/* A record's common_pid (it lies inside the record: trace.h), or -1 without one. */
static int record_pid(const struct tr_item *it)
{
	struct tep_format_field *field = tep_find_common_field(it->class->tep, "common_pid");
	unsigned long long pid;

	if (!field || tep_read_number_field(field, it->payload, &pid))
		return -1;
	return pid;
}

/*
 * Events that name tasks teach the report their command names.  Every
 * field of a record lies inside it (trace.h), so reading them is safe.
 */
static void learn_comms(struct comms *c, const struct tr_item *it)
{
	struct tep_event *ev = it->class->tep;
	struct tep_record record = record_of(it), *rec = &record;
	static const char *const pairs[][2] = {
		{ "prev_comm", "prev_pid" }, { "next_comm", "next_pid" },
		{ "comm", "pid" }, { "newcomm", "pid" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct tep_format_field *pid = tep_find_field(ev, pairs[i][1]);
		unsigned long long value;
		const char *name;
		int len = 0;

		if (!pid || !tep_find_field(ev, pairs[i][0]) ||
		    tep_read_number_field(pid, rec->data, &value) || !value)
			continue;
		/* Fixed char arrays and __data_loc strings alike. */
		name = tep_get_field_raw(NULL, ev, pairs[i][0], rec, &len, 0);
		if (name && len > 0) {
			char comm[16];

			snprintf(comm, sizeof(comm), "%.*s", len, name);
			comm_set(c, value, comm);
		}
	}
}

struct filter {
	__u8 cpus[TR_MAX_CPUS];
	int by_cpu;
	const struct tr_report_opts *o;
};

static int class_wanted(const struct filter *f, const struct tr_trace_class *class)
{
	char full[512];
	unsigned int i;

	snprintf(full, sizeof(full), "%s:%s", class->system, class->name);
	for (i = 0; i < f->o->nevents; i++)
		if (!fnmatch(f->o->events[i], full, 0) || !fnmatch(f->o->events[i], class->name, 0))
			return 1;
	return !f->o->nevents;
}

static void print_lost(FILE *out, const struct tr_item *it)
{
	__u64 events = it->lost_full + it->lost_wrap + it->lost_big + it->lost_busy;

	fprintf(out, "%16s %7s [%03u] %5llu.%09llu: LOST", "", "", it->cpu,
		it->ts / 1000000000ull, it->ts % 1000000000ull);
	if (events)
		fprintf(out, " %llu events (%llu buffer full, %llu not yet committed, %llu too big, %llu busy)",
			events, it->lost_full, it->lost_wrap, it->lost_big, it->lost_busy);
	if (it->lost_packets)
		fprintf(out, "%s %llu sub-buffers overwritten", events ? "," : "", it->lost_packets);
	fputc('\n', out);
}

static void print_record(FILE *out, const struct comms *comms, const struct tr_item *it,
			 struct trace_seq *seq)
{
	struct tep_record rec = record_of(it);
	struct tep_event *ev = it->class->tep;
	int pid = record_pid(it);
	const char *comm;

	/* pid 0 is each CPU's idle task, never in the table (0 marks a free slot). */
	comm = pid ? comm_get(comms, pid) : "swapper";
	trace_seq_reset(seq);
	tep_print_fields(seq, rec.data, rec.size, ev);
	trace_seq_terminate(seq);
	fprintf(out, "%16s %7d [%03u] %5llu.%09llu: %s:%s: %s\n", comm ? comm : "",
		pid, it->cpu, it->ts / 1000000000ull, it->ts % 1000000000ull,
		it->class->system, it->class->name, seq->buffer);
}

int tr_report(const struct tr_report_opts *o, FILE *out)
{
	struct filter f = { .o = o, .by_cpu = o->cpus != NULL };
	struct comms comms = { NULL, 0, 0 };
	struct tr_trace *trace;
	struct trace_seq seq;
	struct tr_item it;
	char why[1024];
	int err, damaged = 0;

	if (o->cpus && tr_parse_cpu_list(o->cpus, f.cpus, TR_MAX_CPUS)) {
		fprintf(stderr, "tracer report: bad CPU list '%s'\n", o->cpus);
		return 2;
	}
	err = tr_trace_open(&trace, o->dir, why, sizeof(why));
	if (err) {
		fprintf(stderr, "tracer report: %s\n", why);
		return err == -ENOENT ? 2 : 1;
	}
	err = read_comms(&comms, trace);
	if (err) {
		fprintf(stderr, "tracer report: .tracer/comms: %s; command names come from the events only\n",
			tr_trace_file_error(err));
		damaged = 1;
	}
	trace_seq_init(&seq);
	while (tr_trace_next(trace, &it)) {
		if (it.kind == TR_ITEM_PROBLEM) {
			fprintf(stderr, "tracer report: %s\n", it.problem);
			damaged = 1;
			continue;
		}
		/* Every record, shown or not, may name a task. */
		if (it.kind == TR_ITEM_RECORD)
			learn_comms(&comms, &it);
		if (f.by_cpu && (it.cpu >= TR_MAX_CPUS || !f.cpus[it.cpu]))
			continue;
		if (it.kind == TR_ITEM_LOST) {
			if (!o->pid && !o->nevents)
				print_lost(out, &it);
			continue;
		}
		if (class_wanted(&f, it.class) && (!o->pid || o->pid == record_pid(&it)))
			print_record(out, &comms, &it, &seq);
	}
	trace_seq_destroy(&seq);
	tr_trace_close(trace);
	free(comms.slot);
	return damaged;
}

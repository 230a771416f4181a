// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "report.h"
#include "trace.h"
#include "cpus.h"

#define COMM_SLOTS	65536		/* power of two */

/* pid -> command name, from .tracer/comms and from the events themselves. */
struct comms {
	__s32 pid[COMM_SLOTS];
	char comm[COMM_SLOTS][16];
};

static void comm_set(struct comms *c, __s32 pid, const char *comm)
{
	unsigned int i = pid & (COMM_SLOTS - 1), n;

	for (n = 0; n < COMM_SLOTS; n++, i = (i + 1) & (COMM_SLOTS - 1))
		if (c->pid[i] == pid || !c->pid[i]) {
			c->pid[i] = pid;
			snprintf(c->comm[i], sizeof(c->comm[i]), "%.15s", comm);
			return;
		}
}

static const char *comm_get(const struct comms *c, __s32 pid)
{
	unsigned int i = pid & (COMM_SLOTS - 1), n;

	for (n = 0; n < COMM_SLOTS && c->pid[i]; n++, i = (i + 1) & (COMM_SLOTS - 1))
		if (c->pid[i] == pid)
			return c->comm[i];
	return NULL;
}

static void read_comms(struct comms *c, const char *dir)
{
	char path[4096], comm[64];
	int pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/.tracer/comms", dir);
	f = fopen(path, "r");
	while (f && fscanf(f, "%d %63[^\n]\n", &pid, comm) == 2)
		if (pid > 0)
			comm_set(c, pid, comm);
	if (f)
		fclose(f);
}

/* Events that name tasks teach the report their command names. */
static void learn_comms(struct comms *c, struct tep_event *ev, struct tep_record *rec)
{
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

static struct tep_record record_of(const struct tr_item *it)
{
	return (struct tep_record) {
		.ts = it->ts, .data = (void *)(it->record + 1),
		.size = it->record->size, .cpu = it->cpu,
	};
}

static void print_record(FILE *out, struct tep_handle *tep, const struct comms *comms,
			 const struct tr_item *it, struct trace_seq *seq)
{
	struct tep_record rec = record_of(it);
	struct tep_event *ev = it->class->tep;
	int pid = tep_data_pid(tep, &rec);
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
	struct comms *comms = calloc(1, sizeof(*comms));
	struct tr_trace *trace;
	struct trace_seq seq;
	struct tr_item it;
	const char *warning;
	char why[1024];
	int err, damaged = 0;

	if (o->cpus && tr_parse_cpu_list(o->cpus, f.cpus, TR_MAX_CPUS)) {
		fprintf(stderr, "tracer report: bad CPU list '%s'\n", o->cpus);
		free(comms);
		return 2;
	}
	err = tr_trace_open(&trace, o->dir, why, sizeof(why));
	if (err) {
		fprintf(stderr, "tracer report: %s\n", why);
		free(comms);
		return err == -ENOENT ? 2 : 1;
	}
	read_comms(comms, o->dir);
	trace_seq_init(&seq);
	for (;;) {
		int more = tr_trace_next(trace, &it, &warning);

		if (warning) {
			fprintf(stderr, "tracer report: %s\n", warning);
			damaged = 1;
		}
		if (!more)
			break;
		if (it.kind == TR_ITEM_RECORD && it.class) {
			struct tep_record rec = record_of(&it);

			/* Every record, shown or not, may name a task. */
			learn_comms(comms, it.class->tep, &rec);
		}
		if (f.by_cpu && (it.cpu >= TR_MAX_CPUS || !f.cpus[it.cpu]))
			continue;
		if (it.kind == TR_ITEM_LOST) {
			if (!o->pid && !o->nevents)
				print_lost(out, &it);
			continue;
		}
		if (!it.class) {
			fprintf(stderr, "tracer report: record with unknown event id %u on CPU %u\n",
				it.record->id, it.cpu);
			damaged = 1;
			continue;
		}
		if (!class_wanted(&f, it.class))
			continue;
		if (o->pid) {
			struct tep_record rec = record_of(&it);

			if (o->pid != tep_data_pid(tr_trace_tep(trace), &rec))
				continue;
		}
		print_record(out, tr_trace_tep(trace), comms, &it, &seq);
	}
	trace_seq_destroy(&seq);
	tr_trace_close(trace);
	free(comms);
	return damaged;
}

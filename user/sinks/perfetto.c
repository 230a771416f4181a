// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer export --format perfetto: Perfetto's protobuf trace (a Trace of
 * TracePackets), written against the field numbers of Perfetto's
 * protos/perfetto/trace/ (listed in sinks/perfetto.c), so that
 * ui.perfetto.dev and trace_processor show CPU lanes and thread states:
 *   - the scheduler's and the tasks' events (sched_switch, sched_waking,
 *     sched_wakeup, sched_wakeup_new, sched_process_fork/exit/exec/free,
 *     task_newtask, task_rename) as ftrace events in per-CPU bundles;
 *   - every other record as an instant TrackEvent on its thread's track,
 *     its fields as debug annotations;
 *   - the processes and threads with their names, as a ProcessTree;
 *   - a ClockSnapshot: tracer's times (CLOCK_MONOTONIC) are given as the
 *     boot clock, which Perfetto reads ftrace times in; the two differ by
 *     the time the machine spent suspended before the recording.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "sinks/sink.h"
#include "sinks/protobuf.h"
#include "common/cpus.h"
#include "layout/ctf.h"
#include "sinks/tasks.h"
#include "reader/trace.h"

/*
 * Field numbers, from Perfetto's protos/perfetto/ (trace/trace.proto,
 * trace_packet.proto, clock_snapshot.proto, ps/process_tree.proto,
 * ftrace/ftrace_event_bundle.proto, ftrace_event.proto, sched.proto,
 * task.proto, track_event/track_event.proto, track_descriptor.proto,
 * thread_descriptor.proto, debug_annotation.proto; common/builtin_clock.proto).
 */
enum {
	TRACE_PACKET = 1,
	PACKET_FTRACE_EVENTS = 1, PACKET_PROCESS_TREE = 2, PACKET_CLOCK_SNAPSHOT = 6,
	PACKET_TIMESTAMP = 8, PACKET_SEQUENCE_ID = 10, PACKET_TRACK_EVENT = 11,
	PACKET_SEQUENCE_FLAGS = 13, PACKET_TRACK_DESCRIPTOR = 60,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	SNAPSHOT_CLOCKS = 1, SNAPSHOT_PRIMARY_CLOCK = 2, CLOCK_ID = 1, CLOCK_TIMESTAMP = 2,
	BUILTIN_CLOCK_MONOTONIC = 3, BUILTIN_CLOCK_BOOTTIME = 6,
	TREE_PROCESSES = 1, TREE_THREADS = 2, PROCESS_PID = 1, PROCESS_CMDLINE = 3,
	THREAD_TID = 1, THREAD_NAME = 2, THREAD_TGID = 3,
	BUNDLE_CPU = 1, BUNDLE_EVENT = 2, BUNDLE_LOST_EVENTS = 3,
	FTRACE_TIMESTAMP = 1, FTRACE_PID = 2,
	TRACK_UUID = 1, TRACK_THREAD = 4, DESCRIPTOR_PID = 1, DESCRIPTOR_TID = 2,
	DESCRIPTOR_THREAD_NAME = 5,
	EVENT_DEBUG_ANNOTATIONS = 4, EVENT_TYPE = 9, EVENT_TRACK_UUID = 11, EVENT_NAME = 23,
	TYPE_INSTANT = 3,
	ANNOTATION_UINT = 3, ANNOTATION_INT = 4, ANNOTATION_STRING = 6, ANNOTATION_NAME = 10,
};

/* One sequence carries the track events. */
#define SEQUENCE_ID		1
/* A thread's track: its tid, above any track of other kinds. */
#define THREAD_TRACK(tid)	((1ull << 32) | (tid))
/* Ftrace events kept per CPU before their bundle is written. */
#define BUNDLE_EVENTS		512

/* An ftrace event Perfetto knows: its FtraceEvent member, its fields' numbers by name. */
struct ftrace_field {
	const char *name;
	__u32 number;
};

struct ftrace_event {
	const char *system, *name;
	__u32 number;
	struct ftrace_field fields[6];
};

#define WAKEUP_FIELDS { { "comm", 1 }, { "pid", 2 }, { "prio", 3 }, { "success", 4 }, \
			{ "target_cpu", 5 } }

static const struct ftrace_event ftrace_events[] = {
	{ "sched", "sched_switch", 4, { { "prev_comm", 1 }, { "prev_pid", 2 }, { "prev_prio", 3 },
					{ "prev_state", 4 }, { "next_comm", 5 }, { "next_pid", 6 } } },
	{ "sched", "sched_wakeup", 17, WAKEUP_FIELDS },
	{ "sched", "sched_waking", 20, WAKEUP_FIELDS },
	{ "sched", "sched_wakeup_new", 114, WAKEUP_FIELDS },
	{ "task", "task_newtask", 235, { { "pid", 1 }, { "comm", 2 }, { "clone_flags", 3 },
					 { "oom_score_adj", 4 } } },
	{ "task", "task_rename", 236, { { "pid", 1 }, { "oldcomm", 2 }, { "newcomm", 3 },
					{ "oom_score_adj", 4 } } },
	{ "sched", "sched_process_exec", 237, { { "filename", 1 }, { "pid", 2 }, { "old_pid", 3 } } },
	{ "sched", "sched_process_exit", 238, { { "comm", 1 }, { "pid", 2 }, { "tgid", 3 },
						{ "prio", 4 } } },
	{ "sched", "sched_process_fork", 239, { { "parent_comm", 1 }, { "parent_pid", 2 },
						{ "child_comm", 3 }, { "child_pid", 4 } } },
	{ "sched", "sched_process_free", 240, { { "comm", 1 }, { "pid", 2 }, { "prio", 3 } } },
};
/* sched_switch's next_prio does not fit the table's six: added by hand. */
#define SWITCH_NEXT_PRIO	7

struct bundle {
	struct tr_pb events;		/* FtraceEventBundle.event entries */
	unsigned int count;
	int lost;			/* events were lost before these */
};

struct perfetto {
	FILE *out;
	int started;			/* the clock snapshot is written */
	struct tr_pb packet;		/* the one being built */
	struct bundle *bundles;		/* [TR_MAX_CPUS] */
};

/* NULL without memory. */
static struct perfetto *perfetto_new(FILE *out)
{
	struct perfetto *p = calloc(1, sizeof(*p));

	if (p && !(p->bundles = calloc(TR_MAX_CPUS, sizeof(*p->bundles)))) {
		free(p);
		return NULL;
	}
	if (p)
		p->out = out;
	return p;
}

/* The packet built, as the Trace's next packet; the buffer emptied for the next. */
static void write_packet(struct perfetto *p)
{
	unsigned char head[16];

	if (p->packet.failed)
		return;
	fwrite(head, 1, tr_pb_head(head, TRACE_PACKET, p->packet.len), p->out);
	fwrite(p->packet.buf, 1, p->packet.len, p->out);
	tr_pb_reset(&p->packet);
}

/*
 * The first packet: the sequence of track events starts, and the clocks
 * agree (tracer's monotonic times are given as boot times).
 */
static void start(struct perfetto *p, __u64 ts)
{
	static const __u32 clocks[] = { BUILTIN_CLOCK_BOOTTIME, BUILTIN_CLOCK_MONOTONIC };
	struct tr_pb *b = &p->packet;
	size_t snapshot, clock;
	unsigned int i;

	p->started = 1;
	tr_pb_varint(b, PACKET_TIMESTAMP, ts);
	tr_pb_varint(b, PACKET_SEQUENCE_ID, SEQUENCE_ID);
	tr_pb_varint(b, PACKET_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	snapshot = tr_pb_begin(b, PACKET_CLOCK_SNAPSHOT);
	for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		clock = tr_pb_begin(b, SNAPSHOT_CLOCKS);
		tr_pb_varint(b, CLOCK_ID, clocks[i]);
		tr_pb_varint(b, CLOCK_TIMESTAMP, ts);
		tr_pb_end(b, clock);
	}
	tr_pb_varint(b, SNAPSHOT_PRIMARY_CLOCK, BUILTIN_CLOCK_BOOTTIME);
	tr_pb_end(b, snapshot);
	write_packet(p);
}

/* An integer field as its format says: sign-extended if signed. */
static int field_integer(const struct tr_item *it, struct tep_format_field *f, __s64 *value)
{
	unsigned long long raw;

	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC) ||
	    tep_read_number_field(f, it->payload, &raw))
		return 0;
	*value = raw;
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size > 0 && f->size < 8 &&
	    (raw >> (8 * f->size - 1)) & 1)
		*value = (__s64)(raw | ~0ull << (8 * f->size));
	return 1;
}

/* A text field's bytes (up to its first NUL, or its length). */
static const char *field_text(const struct tr_item *it, struct tep_format_field *f, int *len)
{
	if (!(f->flags & TEP_FIELD_IS_ARRAY) || !tr_ctf_is_text(f))
		return NULL;
	return tr_item_field(it, f->name, len);
}

/* One field of the record, as field number: an integer or text, as the format has it. */
static void put_field(struct tr_pb *b, const struct tr_item *it, const char *name, __u32 number)
{
	struct tep_format_field *f = tep_find_field(it->class->tep, name);
	const char *text;
	__s64 value;
	int len = 0;

	if (!f)
		return;
	if ((text = field_text(it, f, &len)) && len > 0)
		tr_pb_string(b, number, text, len);
	else if (field_integer(it, f, &value))
		tr_pb_int(b, number, value);
}

static const struct ftrace_event *ftrace_event_of(const struct tr_item *it)
{
	unsigned int i;

	for (i = 0; i < sizeof(ftrace_events) / sizeof(ftrace_events[0]); i++)
		if (!strcmp(it->class->system, ftrace_events[i].system) &&
		    !strcmp(it->class->name, ftrace_events[i].name))
			return &ftrace_events[i];
	return NULL;
}

/* A CPU's bundle of ftrace events, as a packet of its own. */
static void write_bundle(struct perfetto *p, unsigned int cpu)
{
	struct bundle *bu = &p->bundles[cpu];
	struct tr_pb *b = &p->packet;
	size_t bundle;

	if (!bu->count && !bu->lost)
		return;
	bundle = tr_pb_begin(b, PACKET_FTRACE_EVENTS);
	tr_pb_varint(b, BUNDLE_CPU, cpu);
	if (bu->lost)
		tr_pb_varint(b, BUNDLE_LOST_EVENTS, 1);
	if (bu->events.len)
		tr_pb_raw(b, bu->events.buf, bu->events.len);
	tr_pb_end(b, bundle);
	write_packet(p);
	if (bu->events.failed)
		p->packet.failed = 1;
	tr_pb_reset(&bu->events);
	bu->count = 0;
	bu->lost = 0;
}

static void add_ftrace_event(struct perfetto *p, const struct tr_item *it,
			     const struct ftrace_event *e)
{
	struct bundle *bu = &p->bundles[it->cpu];
	struct tr_pb *b = &bu->events;
	size_t event, payload;
	unsigned int i;

	event = tr_pb_begin(b, BUNDLE_EVENT);
	tr_pb_varint(b, FTRACE_TIMESTAMP, it->ts);
	tr_pb_varint(b, FTRACE_PID, it->record->tid);
	payload = tr_pb_begin(b, e->number);
	for (i = 0; i < sizeof(e->fields) / sizeof(e->fields[0]) && e->fields[i].name; i++)
		put_field(b, it, e->fields[i].name, e->fields[i].number);
	if (e->number == ftrace_events[0].number)
		put_field(b, it, "next_prio", SWITCH_NEXT_PRIO);
	tr_pb_end(b, payload);
	tr_pb_end(b, event);
	if (++bu->count == BUNDLE_EVENTS)
		write_bundle(p, it->cpu);
}

/* A thread's track, described before its first event. */
static void describe_thread(struct perfetto *p, const struct tr_item *it, struct tr_task *task)
{
	struct tr_pb *b = &p->packet;
	size_t track, thread;

	task->track = 1;
	tr_pb_varint(b, PACKET_SEQUENCE_ID, SEQUENCE_ID);
	track = tr_pb_begin(b, PACKET_TRACK_DESCRIPTOR);
	tr_pb_varint(b, TRACK_UUID, THREAD_TRACK(it->record->tid));
	thread = tr_pb_begin(b, TRACK_THREAD);
	tr_pb_int(b, DESCRIPTOR_PID, it->record->pid);
	tr_pb_int(b, DESCRIPTOR_TID, it->record->tid);
	if (task->comm[0])
		tr_pb_string(b, DESCRIPTOR_THREAD_NAME, task->comm, sizeof(task->comm));
	tr_pb_end(b, thread);
	tr_pb_end(b, track);
	write_packet(p);
}

/* A field as a debug annotation: integers as numbers, text as strings. */
static void annotate(struct tr_pb *b, const struct tr_item *it, struct tep_format_field *f)
{
	size_t annotation = tr_pb_begin(b, EVENT_DEBUG_ANNOTATIONS);
	const char *text;
	__s64 value;
	int len = 0;

	tr_pb_string(b, ANNOTATION_NAME, f->name, strlen(f->name));
	if ((text = field_text(it, f, &len)) && len >= 0)
		tr_pb_string(b, ANNOTATION_STRING, text, len);
	else if (field_integer(it, f, &value))
		tr_pb_varint(b, f->flags & TEP_FIELD_IS_SIGNED ? ANNOTATION_INT : ANNOTATION_UINT,
			     (__u64)value);
	else
		tr_pb_string(b, ANNOTATION_STRING, "", 0);
	tr_pb_end(b, annotation);
}

static void add_track_event(struct perfetto *p, const struct tr_item *it, struct tr_task *task)
{
	struct tr_pb *b = &p->packet;
	struct tep_format_field *f;
	char name[512];
	size_t event;

	if (task && !task->track)
		describe_thread(p, it, task);
	snprintf(name, sizeof(name), "%s:%s", it->class->system, it->class->name);
	tr_pb_varint(b, PACKET_TIMESTAMP, it->ts);
	tr_pb_varint(b, PACKET_SEQUENCE_ID, SEQUENCE_ID);
	event = tr_pb_begin(b, PACKET_TRACK_EVENT);
	tr_pb_varint(b, EVENT_TYPE, TYPE_INSTANT);
	tr_pb_varint(b, EVENT_TRACK_UUID, THREAD_TRACK(it->record->tid));
	tr_pb_string(b, EVENT_NAME, name, sizeof(name));
	for (f = it->class->tep->format.fields; f; f = f->next)
		annotate(b, it, f);
	tr_pb_end(b, event);
	write_packet(p);
}

/* A record, counted into its task's entry of tasks. */
static void perfetto_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct perfetto *p = state;
	struct tr_task *task = tr_tasks_get(tasks, it->record->tid);
	const struct ftrace_event *e = ftrace_event_of(it);

	if (!p->started)
		start(p, it->ts);
	if (task) {
		task->events++;
		task->pid = it->record->pid;
	}
	if (e && it->cpu < TR_MAX_CPUS)
		add_ftrace_event(p, it, e);
	else
		add_track_event(p, it, task);
}

/* A loss: the next bundle of its CPU says events were lost before it. */
static void perfetto_lost(void *state, const struct tr_item *it)
{
	struct perfetto *p = state;

	if (!p->started)
		start(p, it->ts);
	if (it->cpu < TR_MAX_CPUS)
		p->bundles[it->cpu].lost = 1;
}

/* Every process and thread named, as a process tree. */
static void write_process_tree(struct perfetto *p, const struct tr_tasks *tasks)
{
	struct tr_pb *b = &p->packet;
	size_t tree, entry;
	unsigned int i;

	tree = tr_pb_begin(b, PACKET_PROCESS_TREE);
	for (i = 0; i < tasks->size; i++) {
		const struct tr_task *t = &tasks->slot[i];
		__u32 tid = tr_task_tid(t);

		if (!t->key || !tid || !t->comm[0] || !t->pid)
			continue;
		if (t->pid == tid) {
			entry = tr_pb_begin(b, TREE_PROCESSES);
			tr_pb_int(b, PROCESS_PID, tid);
			tr_pb_string(b, PROCESS_CMDLINE, t->comm, sizeof(t->comm));
			tr_pb_end(b, entry);
		}
		entry = tr_pb_begin(b, TREE_THREADS);
		tr_pb_int(b, THREAD_TID, tid);
		tr_pb_string(b, THREAD_NAME, t->comm, sizeof(t->comm));
		tr_pb_int(b, THREAD_TGID, t->pid);
		tr_pb_end(b, entry);
	}
	tr_pb_end(b, tree);
	write_packet(p);
}

/* Writes what is left and the process tree; frees p.  0, or -ENOMEM if a packet could not be built. */
static int perfetto_close(void *state, const struct tr_tasks *tasks)
{
	struct perfetto *p = state;
	unsigned int cpu;
	int err;

	for (cpu = 0; cpu < TR_MAX_CPUS; cpu++)
		write_bundle(p, cpu);
	write_process_tree(p, tasks);
	err = p->packet.failed ? -ENOMEM : 0;
	for (cpu = 0; cpu < TR_MAX_CPUS; cpu++)
		tr_pb_free(&p->bundles[cpu].events);
	tr_pb_free(&p->packet);
	free(p->bundles);
	free(p);
	return err;
}

static int perfetto_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace,
			 const struct tr_report_opts *o)
{
	struct perfetto *p = perfetto_new(out);

	(void)trace;
	(void)o;
	if (!p)
		return -ENOMEM;
	*sink = (struct tr_sink) { .ops = &tr_perfetto_sink, .state = p };
	return 0;
}

const struct tr_sink_ops tr_perfetto_sink = {
	.open = perfetto_open, .record = perfetto_record, .lost = perfetto_lost,
	.close = perfetto_close,
};

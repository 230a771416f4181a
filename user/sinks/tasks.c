// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "sinks/sink.h"
#include "sinks/tasks.h"
#include "sinks/by_class.h"
#include "reader/trace.h"
#include "reader/trace_dir.h"

/* At least twice pid_max's largest value: a table at most half full. */
#define MAX_SLOTS	(1u << 23)

/* The slot of key, or the free one where it goes. */
static struct tr_task *slot_of(const struct tr_tasks *t, __u32 key)
{
	unsigned int i = key & (t->size - 1);

	while (t->slot[i].key && t->slot[i].key != key)
		i = (i + 1) & (t->size - 1);
	return &t->slot[i];
}

static int grow(struct tr_tasks *t)
{
	struct tr_tasks bigger = { .size = t->size ? 2 * t->size : 256, .used = t->used };
	unsigned int i;

	if (bigger.size > MAX_SLOTS)
		return -1;
	bigger.slot = calloc(bigger.size, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -1;
	for (i = 0; i < t->size; i++)
		if (t->slot[i].key)
			*slot_of(&bigger, t->slot[i].key) = t->slot[i];
	free(t->slot);
	*t = bigger;
	return 0;
}

struct tr_task *tr_tasks_get(struct tr_tasks *t, __u32 tid)
{
	struct tr_task *task;

	if (tid == (__u32)-1 || (2 * (t->used + 1) > t->size && grow(t)))
		return NULL;
	task = slot_of(t, tid + 1);
	if (!task->key) {
		*task = (struct tr_task) { .key = tid + 1, .cpu = -1 };
		t->used++;
	}
	return task;
}

const struct tr_task *tr_tasks_find(const struct tr_tasks *t, __u32 tid)
{
	const struct tr_task *task = t->size && tid != (__u32)-1 ? slot_of(t, tid + 1) : NULL;

	return task && task->key ? task : NULL;
}

void tr_tasks_free(struct tr_tasks *t)
{
	free(t->slot);
	*t = (struct tr_tasks) { NULL, 0, 0 };
}

const char *tr_tasks_comm(const struct tr_tasks *t, const struct tr_item *it)
{
	const struct tr_task *task;

	if (!it->record->tid)
		return "swapper";
	task = tr_tasks_find(t, it->record->tid);
	return task && task->comm[0] ? task->comm : "";
}

/* pid's name is comm; a name it had already stays if !replace. */
static void comm_set(struct tr_tasks *t, __u32 pid, const char *comm, bool replace)
{
	struct tr_task *task = tr_tasks_get(t, pid);

	if (task && (replace || !task->comm[0]))
		snprintf(task->comm, sizeof(task->comm), "%.15s", comm);
}

/* Whether it is a user-space event: what a traced program says, not the kernel. */
static bool from_user_space(const struct tr_trace *trace, const struct tr_item *it)
{
	const char *channel = tr_trace_channel_name(trace, it->stream_id);

	return channel && !strcmp(channel, TR_UST_CHANNEL);
}

/* Every field of a record lies inside it (reader/trace.h), so reading them is safe. */
void tr_tasks_learn(struct tr_tasks *t, struct tr_by_class *names_tasks,
		    const struct tr_trace *trace, const struct tr_item *it, bool replace)
{
	__s8 *memo = tr_by_class(names_tasks, it->record->id);
	struct tep_event *ev = it->class->tep;
	struct tep_record record = {
		.ts = it->ts, .data = (void *)it->payload, .size = it->record->size, .cpu = it->cpu,
	};
	static const char *const pairs[][2] = {
		{ "prev_comm", "prev_pid" }, { "next_comm", "next_pid" },
		{ "comm", "pid" }, { "newcomm", "pid" },
	};
	unsigned int i, pairs_found = 0;

	if (memo && !*memo)
		return;
	if (from_user_space(trace, it)) {
		if (memo)
			*memo = 0;
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
		if (tep_read_number_field(pid, record.data, &value) || !value)
			continue;
		/* Fixed char arrays and __data_loc strings alike. */
		name = tep_get_field_raw(NULL, ev, pairs[i][0], &record, &len, 0);
		if (name && len > 0) {
			char comm[16];

			snprintf(comm, sizeof(comm), "%.*s", len, name);
			comm_set(t, value, comm, replace);
		}
	}
	if (memo)
		*memo = pairs_found > 0;
}

void tr_tasks_learn_pid(struct tr_tasks *t, const struct tr_item *it)
{
	struct tr_task *task = tr_tasks_get(t, it->record->tid);

	if (task)
		task->pid = it->record->pid;
	if (tr_is_tracer_class(it->class, "task_state") && (task = tr_tasks_get(t, tr_item_number(it, "pid"))))
		task->pid = tr_item_number(it, "tgid");
}

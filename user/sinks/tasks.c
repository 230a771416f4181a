// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>

#include "sinks/tasks.h"

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

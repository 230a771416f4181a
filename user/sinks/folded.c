// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer report --folded: the call stacks a -g trace's records carry,
 * folded, one line per distinct stack with its count
 * ("comm;outermost;...;innermost COUNT", what FlameGraph's flamegraph.pl
 * reads; the user's frames, then the kernel's), in the order of their
 * text, at the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "sinks/sink.h"
#include "sinks/stacks.h"
#include "sinks/tasks.h"

struct folded_stack {
	char *text;			/* NULL: a free slot */
	unsigned long count;
};

/* The distinct stacks folded, by their text. */
struct stack_table {
	struct folded_stack *slot;	/* open addressing, at most half full */
	size_t size, used;
};

static struct folded_stack *slot_of(const struct stack_table *f, const char *text)
{
	size_t i = tr_hash_string(text) & (f->size - 1);

	while (f->slot[i].text && strcmp(f->slot[i].text, text))
		i = (i + 1) & (f->size - 1);
	return &f->slot[i];
}

static int grow(struct stack_table *f)
{
	struct stack_table bigger = { .size = f->size ? 2 * f->size : 1024, .used = f->used };
	size_t i;

	bigger.slot = calloc(bigger.size, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -ENOMEM;
	for (i = 0; i < f->size; i++)
		if (f->slot[i].text)
			*slot_of(&bigger, f->slot[i].text) = f->slot[i];
	free(f->slot);
	*f = bigger;
	return 0;
}

/* Appends ";name" to the text being built; 0 or -ENOMEM. */
static int append(char **text, size_t *len, const char *name)
{
	size_t add = strlen(name) + 1;
	char *bigger = realloc(*text, *len + add + 1);

	if (!bigger)
		return -ENOMEM;
	bigger[*len] = ';';
	memcpy(bigger + *len + 1, name, add);
	*text = bigger;
	*len += add;
	return 0;
}

/* comm, then the frames from the outermost: the user's last one to the kernel's first. */
static char *fold(struct tr_symbols *symbols, const char *comm, const struct tr_item *it)
{
	unsigned int user_end = it->kernel_frames + it->user_frames, i;
	size_t len = strlen(comm);
	char *text = strdup(comm);
	int err = text ? 0 : -ENOMEM;

	/* ';' separates frames: a name cannot hold one. */
	for (i = 0; text && text[i]; i++)
		if (text[i] == ';')
			text[i] = '_';
	for (i = user_end; i-- > it->kernel_frames && !err;) {
		struct tr_frame_name name = tr_stack_frame_name(symbols, it, i);

		err = append(&text, &len, name.function ? name.function : "[unknown]");
	}
	for (i = it->kernel_frames; i-- > 0 && !err;) {
		struct tr_frame_name name = tr_stack_frame_name(symbols, it, i);

		err = append(&text, &len, name.function ? name.function : "[unknown]");
	}
	if (err) {
		free(text);
		return NULL;
	}
	return text;
}

/* Counts a record's stacks under its command name comm; 0 or -ENOMEM. */
static int table_add(struct stack_table *f, struct tr_symbols *symbols, const char *comm,
		     const struct tr_item *it)
{
	struct folded_stack *slot;
	char *text;

	if (2 * (f->used + 1) > f->size && grow(f))
		return -ENOMEM;
	text = fold(symbols, comm, it);
	if (!text)
		return -ENOMEM;
	slot = slot_of(f, text);
	if (slot->text) {
		free(text);
	} else {
		slot->text = text;
		f->used++;
	}
	slot->count++;
	return 0;
}

static int by_text(const void *a, const void *b)
{
	const struct folded_stack *x = a, *y = b;

	return strcmp(x->text, y->text);
}

/* The distinct stacks in the order of their text, with their counts. */
static void table_print(struct stack_table *f, FILE *out)
{
	size_t i, n = 0;

	/* The used slots to the front, then in order. */
	for (i = 0; i < f->size; i++)
		if (f->slot[i].text)
			f->slot[n++] = f->slot[i];
	qsort(f->slot, n, sizeof(*f->slot), by_text);
	for (i = 0; i < n; i++)
		fprintf(out, "%s %lu\n", f->slot[i].text, f->slot[i].count);
	/* The table is no longer one: only freeing is left. */
	f->used = n;
	f->size = 0;
}

static void table_free(struct stack_table *f)
{
	size_t i;

	if (!f)
		return;
	/* Once printed, the distinct stacks are the first used slots. */
	for (i = 0; i < (f->size ? f->size : f->used); i++)
		free(f->slot[i].text);
	free(f->slot);
	free(f);
}

/* The folded sink: the distinct stacks, counted. */
struct folded {
	FILE *out;
	struct tr_symbols *symbols;	/* the frames, named */
	struct stack_table *stacks;
};

static void folded_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct folded *f = state;

	table_add(f->stacks, f->symbols, tr_tasks_comm(tasks, it), it);
}

static void folded_lost(void *state, const struct tr_item *it)
{
	(void)state;
	(void)it;
}

static int folded_close(void *state, const struct tr_tasks *tasks)
{
	struct folded *f = state;

	(void)tasks;
	table_print(f->stacks, f->out);
	tr_symbols_close(f->symbols);
	table_free(f->stacks);
	free(f);
	return 0;
}

/* -EINVAL, said, for a trace without stacks. */
static int folded_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace,
		       const struct tr_report_opts *o)
{
	struct folded *f;

	if (!tr_trace_has_stacks(trace)) {
		fprintf(stderr, "tracer report: --folded: %s has no call stacks (record -g takes them)\n",
			o->dir);
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	*f = (struct folded) {
		.out = out, .symbols = tr_symbols_open(trace), .stacks = calloc(1, sizeof(*f->stacks)),
	};
	if (!f->symbols || !f->stacks) {
		tr_symbols_close(f->symbols);
		free(f->stacks);
		free(f);
		return -ENOMEM;
	}
	*sink = (struct tr_sink) { .ops = &tr_folded_sink, .state = f, .symbols = f->symbols };
	return 0;
}

const struct tr_sink_ops tr_folded_sink = {
	.open = folded_open, .record = folded_record, .lost = folded_lost, .close = folded_close,
};

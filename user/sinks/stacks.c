// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "sinks/stacks.h"

struct tr_frame_name tr_stack_frame_name(struct tr_symbols *symbols, const struct tr_item *it,
					 unsigned int i)
{
	__u64 address = tr_item_frame(it, i);

	if (i < it->kernel_frames)
		return tr_symbols_kernel(symbols, address);
	return tr_symbols_user(symbols, it->record->pid, it->ts, address);
}

void tr_stacks_print(FILE *out, struct tr_symbols *symbols, const struct tr_item *it)
{
	unsigned int n = it->kernel_frames + it->user_frames, i;

	for (i = 0; i < n; i++) {
		struct tr_frame_name name = tr_stack_frame_name(symbols, it, i);

		fprintf(out, "\t%16llx ", (unsigned long long)tr_item_frame(it, i));
		if (name.function)
			fprintf(out, "%s+0x%llx", name.function, (unsigned long long)name.offset);
		else
			fputs("[unknown]", out);
		fprintf(out, " (%s)\n", name.file ? name.file : "[unknown]");
	}
	if (n)
		fputc('\n', out);
}

struct folded_stack {
	char *text;			/* NULL: a free slot */
	__u64 count;			/* its records, or their weight */
};

struct tr_folded_stacks {
	struct folded_stack *slot;	/* open addressing, at most half full */
	size_t size, used;
};

static struct folded_stack *slot_of(const struct tr_folded_stacks *f, const char *text)
{
	size_t i = tr_hash_string(text) & (f->size - 1);

	while (f->slot[i].text && strcmp(f->slot[i].text, text))
		i = (i + 1) & (f->size - 1);
	return &f->slot[i];
}

static int grow(struct tr_folded_stacks *f)
{
	struct tr_folded_stacks bigger = { .size = f->size ? 2 * f->size : 1024, .used = f->used };
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

char *tr_folded_text(struct tr_symbols *symbols, const char *comm, const struct tr_item *it)
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

int tr_folded_add_text(struct tr_folded_stacks *f, char *text, __u64 weight)
{
	struct folded_stack *slot;

	if (!text || (2 * (f->used + 1) > f->size && grow(f))) {
		free(text);
		return -ENOMEM;
	}
	slot = slot_of(f, text);
	if (slot->text) {
		free(text);
	} else {
		slot->text = text;
		f->used++;
	}
	slot->count += weight;
	return 0;
}

int tr_folded_add(struct tr_folded_stacks *f, struct tr_symbols *symbols, const char *comm,
		  const struct tr_item *it, __u64 weight)
{
	return tr_folded_add_text(f, tr_folded_text(symbols, comm, it), weight);
}

static int by_text(const void *a, const void *b)
{
	const struct folded_stack *x = a, *y = b;

	return strcmp(x->text, y->text);
}

void tr_folded_print(struct tr_folded_stacks *f, FILE *out)
{
	size_t i, n = 0;

	/* The used slots to the front, then in order. */
	for (i = 0; i < f->size; i++)
		if (f->slot[i].text)
			f->slot[n++] = f->slot[i];
	qsort(f->slot, n, sizeof(*f->slot), by_text);
	for (i = 0; i < n; i++)
		fprintf(out, "%s %llu\n", f->slot[i].text, (unsigned long long)f->slot[i].count);
	/* The table is no longer one: only freeing is left. */
	f->used = n;
	f->size = 0;
}

void tr_folded_free(struct tr_folded_stacks *f)
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

struct tr_folded_stacks *tr_folded_new(void)
{
	return calloc(1, sizeof(struct tr_folded_stacks));
}

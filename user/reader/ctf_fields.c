// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The CTF fields of the recorder's records: a tracepoint's from its tracefs
 * format, then the context and the call stacks a recording adds.
 */
#include <errno.h>
#include <string.h>
#include <event-parse.h>

#include <tracer/record.h>

#include "layout/ctf.h"
#include "common/context.h"

int tr_ctf_add_stack_fields(struct tr_ctf_field *fields, unsigned int n, unsigned int max)
{
	static const struct tr_ctf_field stacks[] = {
		{ "kernel_frames", TR_CTF_UINT, 2 }, { "user_frames", TR_CTF_UINT, 2 },
		{ "kernel", TR_CTF_FRAMES, 0 }, { "user", TR_CTF_FRAMES, 0 },
	};
	unsigned int i;

	if (n + 4 > max)
		return -E2BIG;
	for (i = 0; i < 4; i++)
		fields[n + i] = stacks[i];
	return n + 4;
}

int tr_ctf_add_context_fields(struct tr_ctf_field *fields, unsigned int n, unsigned int max,
			      __u32 flags)
{
	static const char *const ctf_names[TR_CONTEXT_FIELDS] = {
		"context_cgroup", "context_uid", "context_gid", "context_prio", "context_nice",
	};
	unsigned int i;

	for (i = 0; i < TR_CONTEXT_FIELDS; i++) {
		if (!(flags & (1u << i)))
			continue;
		if (n == max)
			return -E2BIG;
		fields[n++] = (struct tr_ctf_field) {
			ctf_names[i], tr_context_signed(tr_context_name(i)) ? TR_CTF_INT : TR_CTF_UINT, 8,
		};
	}
	return n;
}

static int add_field(struct tr_ctf_field *fields, unsigned int *n, unsigned int max,
		     struct tr_ctf_field f)
{
	if (*n == max)
		return -E2BIG;
	fields[(*n)++] = f;
	return 0;
}

int tr_ctf_is_text(const struct tep_format_field *f)
{
	const char *type = f->type;
	static const char *const qualifiers[] = { "__data_loc ", "__rel_loc ", "const ",
						  "volatile ", "signed " };
	unsigned int i;

	for (i = 0; i < sizeof(qualifiers) / sizeof(qualifiers[0]); i++)
		if (!strncmp(type, qualifiers[i], strlen(qualifiers[i])))
			type += strlen(qualifiers[i]);
	return !strncmp(type, "char", 4) && (type[4] == ' ' || type[4] == '[');
}

/* How a fixed field of the format reads in CTF. */
static struct tr_ctf_field fixed_field(const struct tep_format_field *f)
{
	int integer = f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;

	if (f->flags & TEP_FIELD_IS_DYNAMIC)
		return (struct tr_ctf_field) { f->name, TR_CTF_LOC, 4 };
	if ((f->flags & TEP_FIELD_IS_ARRAY) && tr_ctf_is_text(f))
		return (struct tr_ctf_field) { f->name, TR_CTF_CHARS, f->size };
	if ((f->flags & TEP_FIELD_IS_ARRAY) || !integer)
		return (struct tr_ctf_field) { f->name, TR_CTF_BYTES, f->size };
	if ((f->flags & TEP_FIELD_IS_POINTER) && f->size == 8)
		return (struct tr_ctf_field) { f->name, TR_CTF_ADDR, 8 };
	return (struct tr_ctf_field) {
		f->name, f->flags & TEP_FIELD_IS_SIGNED ? TR_CTF_INT : TR_CTF_UINT, f->size
	};
}

int tr_ctf_fields_from_format(const struct tep_event *ev,
			      struct tr_ctf_field *fields, unsigned int max)
{
	struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	static const char *const pads[] = { "pad0", "pad1", "pad2", "pad3", "pad4",
					    "pad5", "pad6", "pad7" };
	struct tep_format_field *f;
	unsigned int n = 0, npad = 0, at = 0;
	int l, err = 0;

	/* Both lists are in offset order, common fields first. */
	for (l = 0; l < 2 && !err; l++)
		for (f = lists[l]; f && !err; f = f->next) {
			if ((unsigned int)f->offset > at && npad < 8)
				err = add_field(fields, &n, max, (struct tr_ctf_field) {
					pads[npad++], TR_CTF_BYTES, f->offset - at });
			if (!err)
				err = add_field(fields, &n, max, fixed_field(f));
			at = f->offset + f->size;
		}
	for (f = ev->format.fields; f && !err; f = f->next)
		if (f->flags & TEP_FIELD_IS_DYNAMIC)
			err = add_field(fields, &n, max, (struct tr_ctf_field) {
				f->name, tr_ctf_is_text(f) ?
					 TR_CTF_DYN_CHARS : TR_CTF_DYN_BYTES, 0 });
	return err ? err : (int)n;
}

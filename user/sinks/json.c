// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <endian.h>
#include <string.h>
#include <event-parse.h>

#include "sinks/json.h"
#include "common/context.h"
#include "layout/ctf.h"
#include "reader/trace.h"

void tr_json_string(FILE *out, const char *text, size_t len)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < len && text[i]; i++) {
		unsigned char c = text[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* An integer of size bytes at data, little-endian, as the format says it is signed or not. */
static void json_integer(FILE *out, const unsigned char *data, unsigned int size, int is_signed)
{
	__u64 value = 0;
	unsigned int i;

	for (i = 0; i < size && i < 8; i++)
		value |= (__u64)data[i] << (8 * i);
	if (is_signed && size && size < 8 && (value >> (8 * size - 1)) & 1)
		value |= ~0ull << (8 * size);
	fprintf(out, is_signed ? "%lld" : "%llu", (unsigned long long)value);
}

static void json_array(FILE *out, const unsigned char *data, unsigned int len,
		       unsigned int elementsize, int is_signed)
{
	unsigned int i;

	if (elementsize != 1 && elementsize != 2 && elementsize != 4 && elementsize != 8)
		elementsize = 1;
	fputc('[', out);
	for (i = 0; i + elementsize <= len; i += elementsize) {
		if (i)
			fputc(',', out);
		json_integer(out, data + i, elementsize, is_signed);
	}
	fputc(']', out);
}

/* Every field of a record lies inside its payload (reader/trace.h). */
static void json_field(FILE *out, const struct tr_item *it, struct tep_format_field *f)
{
	int len;
	const unsigned char *data = tr_item_field(it, f->name, &len);

	if (!data || len < 0)
		fputs("null", out);
	else if ((f->flags & TEP_FIELD_IS_ARRAY) && tr_ctf_is_text(f))
		tr_json_string(out, (const char *)data, len);
	else if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))
		json_array(out, data, len, f->elementsize, f->flags & TEP_FIELD_IS_SIGNED);
	else
		json_integer(out, data, f->size, f->flags & TEP_FIELD_IS_SIGNED);
}

void tr_json_fields(FILE *out, const struct tr_item *it)
{
	struct tep_format_field *f;

	fputc('{', out);
	for (f = it->class->tep->format.fields; f; f = f->next) {
		tr_json_string(out, f->name, strlen(f->name));
		fputc(':', out);
		json_field(out, it, f);
		if (f->next)
			fputc(',', out);
	}
	fputc('}', out);
}

static void json_context(FILE *out, const struct tr_item *it, const char *const *names,
			 unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		fprintf(out, i ? ",\"%s\":" : ",\"context\":{\"%s\":", names[i]);
		json_integer(out, (const unsigned char *)it->payload + it->context_at + 8 * i, 8,
			     tr_context_signed(names[i]));
	}
	fputc('}', out);
}

static void json_stack(FILE *out, const char *name, const struct tr_item *it,
		       unsigned int from, unsigned int n)
{
	unsigned int i;

	fprintf(out, ",\"%s\":[", name);
	for (i = 0; i < n; i++)
		fprintf(out, "%s\"0x%llx\"", i ? "," : "",
			(unsigned long long)tr_item_frame(it, from + i));
	fputc(']', out);
}

void tr_json_record(FILE *out, const struct tr_item *it, const char *comm,
		    const char *const *context, unsigned int ncontext)
{
	char event[512];

	fprintf(out, "{\"ts\":%llu,\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"comm\":",
		(unsigned long long)it->ts, it->cpu, it->record->pid, it->record->tid);
	tr_json_string(out, comm, strlen(comm));
	snprintf(event, sizeof(event), "%s:%s", it->class->system, it->class->name);
	fputs(",\"event\":", out);
	tr_json_string(out, event, strlen(event));
	fputs(",\"fields\":", out);
	tr_json_fields(out, it);
	if (it->context_at)
		json_context(out, it, context, ncontext);
	if (it->kernel_frames + it->user_frames) {
		json_stack(out, "kernel_stack", it, 0, it->kernel_frames);
		json_stack(out, "user_stack", it, it->kernel_frames, it->user_frames);
	}
	fputs("}\n", out);
}

void tr_json_lost(FILE *out, const struct tr_item *it)
{
	fprintf(out, "{\"ts\":%llu,\"cpu\":%u,\"lost\":{\"buffer_full\":%llu,\"not_committed\":%llu,\"too_big\":%llu,\"busy\":%llu,\"subbuffers_overwritten\":%llu}",
		(unsigned long long)it->ts, it->cpu, (unsigned long long)it->lost_full,
		(unsigned long long)it->lost_wrap, (unsigned long long)it->lost_big,
		(unsigned long long)it->lost_busy, (unsigned long long)it->lost_packets);
	if (it->channel) {
		fputs(",\"channel\":", out);
		tr_json_string(out, it->channel, strlen(it->channel));
	}
	fputs("}\n", out);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <endian.h>
#include <string.h>
#include <event-parse.h>

#include "sinks/json.h"
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

void tr_json_integer(FILE *out, const unsigned char *data, unsigned int size, int is_signed)
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
		tr_json_integer(out, data + i, elementsize, is_signed);
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
		tr_json_integer(out, data, f->size, f->flags & TEP_FIELD_IS_SIGNED);
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

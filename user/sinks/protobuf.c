// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>

#include "sinks/protobuf.h"

#define WIRE_VARINT	0
#define WIRE_LENGTH	2
#define LENGTH_BYTES	4		/* a nested message's length, padded */
#define LENGTH_MAX	((1u << (7 * LENGTH_BYTES)) - 1)

static unsigned char *room(struct tr_pb *b, size_t n)
{
	if (b->failed)
		return NULL;
	if (b->len + n > b->size) {
		size_t size = b->size ? 2 * b->size : 4096;
		unsigned char *bigger;

		while (size < b->len + n)
			size *= 2;
		bigger = realloc(b->buf, size);
		if (!bigger) {
			b->failed = 1;
			return NULL;
		}
		b->buf = bigger;
		b->size = size;
	}
	return b->buf + b->len;
}

static size_t encode_varint(unsigned char *at, __u64 value)
{
	size_t n = 0;

	do {
		at[n++] = (value & 0x7f) | (value > 0x7f ? 0x80 : 0);
		value >>= 7;
	} while (value);
	return n;
}

static void put_varint(struct tr_pb *b, __u64 value)
{
	unsigned char *at = room(b, 10);

	if (at)
		b->len += encode_varint(at, value);
}

static void put_tag(struct tr_pb *b, __u32 field, unsigned int wire)
{
	put_varint(b, (__u64)field << 3 | wire);
}

void tr_pb_varint(struct tr_pb *b, __u32 field, __u64 value)
{
	put_tag(b, field, WIRE_VARINT);
	put_varint(b, value);
}

void tr_pb_raw(struct tr_pb *b, const void *data, size_t len)
{
	unsigned char *at = room(b, len);

	if (at && len) {
		memcpy(at, data, len);
		b->len += len;
	}
}

void tr_pb_bytes(struct tr_pb *b, __u32 field, const void *data, size_t len)
{
	put_tag(b, field, WIRE_LENGTH);
	put_varint(b, len);
	tr_pb_raw(b, data, len);
}

void tr_pb_string(struct tr_pb *b, __u32 field, const char *text, size_t len)
{
	tr_pb_bytes(b, field, text, strnlen(text, len));
}

size_t tr_pb_head(unsigned char *head, __u32 field, size_t len)
{
	size_t n = encode_varint(head, (__u64)field << 3 | WIRE_LENGTH);

	return n + encode_varint(head + n, len);
}

size_t tr_pb_begin(struct tr_pb *b, __u32 field)
{
	size_t start;

	put_tag(b, field, WIRE_LENGTH);
	start = b->len;
	if (room(b, LENGTH_BYTES))
		b->len += LENGTH_BYTES;
	return start;
}

void tr_pb_end(struct tr_pb *b, size_t start)
{
	size_t len = b->len - start - LENGTH_BYTES, i;

	if (b->failed)
		return;
	if (len > LENGTH_MAX) {
		b->failed = 1;
		return;
	}
	for (i = 0; i < LENGTH_BYTES; i++)
		b->buf[start + i] = ((len >> (7 * i)) & 0x7f) | (i + 1 < LENGTH_BYTES ? 0x80 : 0);
}

void tr_pb_reset(struct tr_pb *b)
{
	b->len = 0;
}

void tr_pb_free(struct tr_pb *b)
{
	free(b->buf);
	*b = (struct tr_pb) { NULL, 0, 0, 0 };
}

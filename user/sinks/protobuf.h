/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Protocol buffers, written: just the wire format Perfetto's traces need
 * (sinks/perfetto.c).  A message is built in a growable buffer; a nested
 * message's length is written as a 4-byte varint (7 bits per byte, the
 * continuation bit set on the first three), as protozero does, and filled
 * in when the message ends, so nothing is built twice.  Messages larger
 * than 2^28 bytes are not needed, and refused.
 */
#ifndef TRACER_PROTOBUF_H
#define TRACER_PROTOBUF_H

#include <stddef.h>
#include <linux/types.h>

struct tr_pb {
	unsigned char *buf;
	size_t len, size;
	int failed;			/* out of memory, or a message too large */
};

void tr_pb_varint(struct tr_pb *b, __u32 field, __u64 value);
/* A signed integer as int32/int64 fields take it (ten bytes when negative). */
static inline void tr_pb_int(struct tr_pb *b, __u32 field, __s64 value)
{
	tr_pb_varint(b, field, (__u64)value);
}
void tr_pb_bytes(struct tr_pb *b, __u32 field, const void *data, size_t len);
/* Bytes already encoded (fields of another buffer), appended as they are. */
void tr_pb_raw(struct tr_pb *b, const void *data, size_t len);
/* A string field: at most len bytes of text, up to its first NUL. */
void tr_pb_string(struct tr_pb *b, __u32 field, const char *text, size_t len);
/*
 * The tag and length that introduce len bytes of field, into head (at most
 * 15 bytes): for a message written out in parts.  Its length in bytes.
 */
size_t tr_pb_head(unsigned char *head, __u32 field, size_t len);
/* A nested message: its start, to end it with tr_pb_end(). */
size_t tr_pb_begin(struct tr_pb *b, __u32 field);
void tr_pb_end(struct tr_pb *b, size_t start);
/* Empties b for the next message (a failure stays said). */
void tr_pb_reset(struct tr_pb *b);
void tr_pb_free(struct tr_pb *b);

#endif /* TRACER_PROTOBUF_H */

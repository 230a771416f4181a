/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CTF 1.8 traces from tracer's buffers.  The metadata describes the
 * packet and event headers of include/tracer/layout.h, so each delivered
 * sub-buffer is appended to its stream file as it stands.
 */
#ifndef TRACER_CTF_H
#define TRACER_CTF_H

#include <stdio.h>
#include <tracer/layout.h>

struct tep_event;
struct tep_format_field;

enum tr_ctf_kind {
	TR_CTF_UINT,		/* unsigned little-endian integer of size bytes */
	TR_CTF_INT,		/* signed little-endian integer of size bytes */
	TR_CTF_CHARS,		/* char[size], text up to the first NUL */
	TR_CTF_BYTES,		/* bytes[size], integers shown in hex */
	TR_CTF_STRING,		/* NUL-terminated, variable length */
	TR_CTF_LOC,		/* a tracepoint __data_loc: u16 offset, u16 length */
	TR_CTF_DYN_CHARS,	/* the data of LOC field `name`: text */
	TR_CTF_DYN_BYTES,	/* the data of LOC field `name`: bytes */
	TR_CTF_FRAMES,		/* `name`_stack: as many addresses as field `name`_frames says */
	TR_CTF_ADDR,		/* a pointer: 8 bytes, shown in hex */
};

/* A payload field, in payload order, packed: no alignment between fields. */
struct tr_ctf_field {
	const char *name;
	enum tr_ctf_kind kind;
	__u32 size;		/* bytes; unused for TR_CTF_STRING */
};

struct tr_ctf_event_class {
	const char *name;	/* e.g. "sched:sched_switch" */
	__u32 id;		/* struct tr_event_header.id */
	__u32 stream_id;	/* its channel's stream class */
	const struct tr_ctf_field *fields;
	unsigned int nfields;
};

/* A channel: a stream class, described in the env. */
struct tr_ctf_channel {
	const char *name;
	__u32 id;		/* stream class id: tr_packet_header.stream_id */
	__u64 buffer_size;	/* per CPU */
	__u64 subbuf_size;
	enum tr_buf_mode mode;
};

struct tr_ctf_trace {
	__u8 uuid[16];		/* the trace's, random (RFC 4122 version 4) */
	const char *hostname;
	const char *backend;	/* which writer filled the buffers */
	const char *domain;	/* "ust": buffers per thread; NULL: "kernel", per CPU */
	const char *clock;	/* what the timestamps were read from */
	const char *context;	/* what common_flags and common_preempt_count hold */
	__s64 clock_offset_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC at record time */
	const struct tr_ctf_event_class *classes;
	unsigned int nclasses;
	const struct tr_ctf_channel *channels;
	unsigned int nchannels;
};

/*
 * Whether an array field holds text: its elements are plain `char`.
 * libtraceevent flags u8 and unsigned char arrays as strings too, but
 * those hold bytes (addresses, hashes), whose zeros are data.
 */
int tr_ctf_is_text(const struct tep_format_field *f);

/*
 * Describe a raw tracepoint record (fixed fields in offset order with
 * explicit padding, then the data of its dynamic fields, which the kernel
 * appends in field order).  Fills fields (at most max) and returns their
 * number, or -E2BIG.  Field names point into the tep event.
 */
int tr_ctf_fields_from_format(const struct tep_event *ev,
			      struct tr_ctf_field *fields, unsigned int max);

/*
 * Append the call stacks every record of a -g recording carries after its
 * raw record (tracer/record.h) to fields[0..n): the new count, or -E2BIG.
 */
int tr_ctf_add_stack_fields(struct tr_ctf_field *fields, unsigned int n, unsigned int max);

/*
 * Append the context fields (1 << TR_CONTEXT_* flags) every record of a
 * --context recording carries after its raw record, before its stacks
 * (tracer/record.h), as context_NAME: the new count, or -E2BIG.
 */
int tr_ctf_add_context_fields(struct tr_ctf_field *fields, unsigned int n, unsigned int max,
			      __u32 flags);

/*
 * A trace's identity: a random uuid (RFC 4122 version 4) and the hostname,
 * written into host (len bytes), "unknown" if the machine has none.  0, or
 * -EIO when no random bytes came (the uuid is then zero, version aside).
 */
int tr_ctf_identify(struct tr_ctf_trace *trace, char *host, size_t len);

/* CLOCK_REALTIME - CLOCK_MONOTONIC now, for tr_ctf_trace.clock_offset_ns. */
__s64 tr_ctf_clock_offset_ns(void);

/* Write the TSDL metadata; 0 or -errno. */
int tr_ctf_write_metadata(FILE *out, const struct tr_ctf_trace *trace);

/*
 * What a recording appends to the metadata when it finds streams and
 * events after it began (libtracer-ust's, record/ust_buffers.c): a stream class
 * like the others, an event class.  The latter 0, or -EINVAL when a
 * field's name is not a C identifier, the class's name holds a quote, a
 * backslash or a control character (it would change the metadata's
 * meaning), or a field is of no size CTF has.
 */
void tr_ctf_write_stream_class(FILE *out, __u32 id);
/* Whether name is a C identifier, as a field's name is in the metadata. */
int tr_ctf_is_identifier(const char *name);
/* Whether text stands between double quotes in the metadata as it is (no quote, backslash, control). */
int tr_ctf_is_quotable(const char *text);
int tr_ctf_write_event_class(FILE *out, const struct tr_ctf_event_class *c);

/* Write all of len bytes, across short writes and signals (async-signal-safe); 0 or -errno. */
int tr_ctf_write_all(int fd, const void *bytes, size_t len);

/* Append a delivered packet to a stream file: its packet_size bytes; 0 or -errno. */
int tr_ctf_write_packet(int fd, const void *packet);

#endif /* TRACER_CTF_H */

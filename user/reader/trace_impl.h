/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The trace reader's parts, private to them: the trace (reader/trace.c: opening,
 * the merge), its metadata (reader/trace_meta.c: .tracer/), and its streams
 * (reader/trace_stream.c: packets into items, from files or fed live).
 */
#ifndef TRACER_TRACE_IMPL_H
#define TRACER_TRACE_IMPL_H

#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <tracer/record.h>

#include "reader/trace.h"
#include "layout/packet.h"
#include "reader/trace_dir.h"

/* .tracer/events holds at most TR_MAX_EVENTS formats of a few KiB each. */
#define MAX_EVENTS_FILE		(64u << 20)
/* A field lies in the first 64 KiB of its record (__data_loc offsets are 16-bit). */
#define MAX_FIELD_END		65536

struct stream {
	char name[TR_CHANNEL_NAME_MAX + 16];	/* CHANNEL_CPU */
	__u32 channel;			/* the packets' stream_id */
	const char *channel_name;	/* for its losses, when the trace has several */
	__u32 cpu;
	const char *bytes;		/* the file mapped, or (live) the packet being read */
	size_t size;
	size_t next_packet;		/* offset in bytes */
	/* a live trace's: packets fed and not yet read, oldest first, and the one read */
	int live;
	struct fed_packet *fed, *fed_last, *reading;
	struct fed_packet *spares;	/* read, kept for the next ones */
	size_t spare_bytes;
	__u64 packets_read;
	int in_heap;			/* its head is in the merge */
	int in_packet;
	int started;			/* a packet was read: the counters below hold */
	struct tr_packet_iter it;
	const struct tr_packet_header *packet;
	__u64 lost[4];			/* cumulative, the most a packet reported */
	__u64 last_seq;
	__u64 last_end;			/* timestamp_end of the previous packet */
	__u64 last_ts;			/* of its latest item */
	struct tr_item head;		/* its next item */
	struct tr_item lost_events;	/* reported after the packet's records */
	int has_lost_events;
	char problem[512];		/* the head's text when it is a problem */
};

/* A channel of the trace: its stream files are NAME_CPU. */
struct channel {
	char name[TR_CHANNEL_NAME_MAX];
	int used;
};

/* A stream in the merge, by its head's time (ties: by CPU). */
struct heap_entry {
	__u64 ts;
	__u32 cpu;
	__u32 stream;
};

struct tr_trace {
	int dir_fd, meta_fd;		/* the trace directory and its .tracer */
	struct channel channels[TR_MAX_CHANNELS];	/* by stream class id */
	unsigned int nchannels;
	struct tep_handle *tep;
	struct tr_trace_class *classes;
	unsigned int nclasses;
	struct stream *streams;
	unsigned int nstreams;
	struct heap_entry *heap;	/* the streams with a head, earliest head first */
	unsigned int heap_len;
	/*
	 * The earliest entry but the root (all ones when it is alone): while
	 * the root's stream stays earlier, it goes on without a sift.
	 */
	struct heap_entry rival;
	/* live (tr_trace_open_live()): what may come out, and what came out late */
	int live;
	__u64 horizon;			/* items after it wait (a trace directory's: all) */
	int stopped;			/* tr_trace_stop(): no item comes out any more */
	__u64 last_out;			/* the latest timestamp handed out */
	__u64 late;			/* items handed out before an earlier one */
	int handed_out;			/* the root's head went out: it moves on at the next call */
	char **notes;			/* problems found while opening */
	unsigned int nnotes, next_note;
	/* Event ids (the last entry: all larger ones) said to have no format. */
	unsigned char unknown_told[TR_MAX_EVENTS + 1];
	struct tr_item out;		/* what tr_trace_next() handed out, but a live record */
	char reported[512];		/* the problem it handed out */
	char *payload;			/* the record it handed out, copied */
	size_t payload_size;
	int stacks;			/* its records carry call stacks (.tracer/stacks) */
	/* ... and context fields, 8 bytes each (.tracer/context) */
	char context[TR_MAX_CONTEXT][TR_CONTEXT_NAME_MAX];
	const char *context_names[TR_MAX_CONTEXT];
	unsigned int ncontext;
	/* who names the kernel functions fields point to (tr_trace_name_functions()) */
	tr_function_namer namer;
	void *namer_data;
	/* the formats passed whole, parsed when report's text first asks (tr_trace_print_format()) */
	struct tep_handle *tep_whole;
	struct whole_format *whole;	/* by event id */
	struct class_layout *layouts;	/* by event id: how far its fields reach */
	char *events_text;		/* .tracer/events, which they point into */
	/* .tracer/printk_formats, by address */
	struct printk_string *printk;
	unsigned int nprintk;
};



/* Where a class's fixed fields end (fields lie in the first 64 KiB: reader/trace_meta.c). */
struct class_layout {
	__u32 fixed_end;
	int dynamic;			/* a __data_loc field locates data past them */
	/*
	 * A record of the class at least this long is sound as it is: its
	 * class is usable, with fixed fields only, and nothing (stacks,
	 * context fields) follows them.  Else ~0: every record is checked.
	 */
	__u32 plain_size;
};

/* A packet fed to a live stream, copied. */
struct fed_packet {
	struct fed_packet *next;
	size_t size;
	size_t capacity;		/* bytes it has room for */
	char bytes[] __attribute__((aligned(8)));
};

/* The stream's head: a record of class (e->id's), in the packet being read. */
static inline void stream_record_head(struct stream *s, const struct tr_event_header *e,
				      const struct tr_trace_class *class)
{
	struct tr_item *head = &s->head;

	/* Field by field: zeroing the whole item first costs more than the rest of this. */
	head->kind = TR_ITEM_RECORD;
	head->cpu = s->cpu;
	head->stream_id = s->channel;
	head->packet_seq = s->packet->packet_seq_num;
	head->ts = e->timestamp;
	head->record = e;
	head->class = class;
	head->payload = e + 1;
	head->kernel_frames = head->user_frames = head->frames_at = head->context_at = 0;
}

/*
 * The common case of trace_stream_advance(), for the merge to try first,
 * inline: the next record of the packet being read is plain (plain_size)
 * and sound in its packet.  Then it is the head: 1.  Else 0, nothing
 * moved.
 */
static inline int stream_next_plain(const struct tr_trace *t, struct stream *s)
{
	struct tr_packet_iter was = s->it;
	const struct tr_event_header *e;
	const char *problem;

	if (!s->in_packet || !(e = tr_packet_next(&s->it, &problem)))
		return 0;
	if (e->id < t->nclasses && e->size >= t->layouts[e->id].plain_size) {
		stream_record_head(s, e, &t->classes[e->id]);
		s->last_ts = e->timestamp;
		return 1;
	}
	s->it = was;
	return 0;
}

/* --- reader/trace.c ---------------------------------------------------------------- */

/* A problem found while opening, handed out before the first item. */
void trace_note(struct tr_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A file of the trace, for reading: a regular file, no symbolic link.  fd or -errno. */
int trace_open_regular(int dir_fd, const char *name, struct stat *st);
/* What an error of opening a file of the trace means, in words. */
const char *trace_file_error(int err);
/* A decimal number (no sign, no space, no overflow) up to max: 1, else 0. */
int trace_decimal(const char *s, unsigned long long max, unsigned long long *value);

/* --- reader/trace_meta.c: .tracer/ ---------------------------------------------------- */

/* The classes of .tracer/events' text (named name in messages): 0, or -errno and why. */
int trace_parse_classes(struct tr_trace *t, const char *name, const char *text, size_t len,
			char *why, size_t whylen);
/* Everything .tracer/ says of the trace in dir: 0, or -errno and why. */
int trace_read_meta(struct tr_trace *t, const char *dir, char *why, size_t whylen);
/* Each class's plain_size, once the classes and what follows records are known. */
void trace_plain_sizes(struct tr_trace *t);
/* Frees what they read. */
void trace_meta_free(struct tr_trace *t);

/* --- reader/trace_stream.c: a stream's items ------------------------------------------ */

/* The stream files of the trace's channels, into t->streams: 0, or -errno and why. */
int trace_open_streams(struct tr_trace *t, const char *dir, char *why, size_t whylen);
/*
 * Moves a stream to its next item, each record checked whole, the next
 * packet opened; 0 when it has none left (a live one: none yet).
 */
int trace_stream_advance(struct tr_trace *t, struct stream *s);
/*
 * Queues a copy of a sound packet (tr_packet_header_problem()) on a live
 * stream, whole or its header alone (tr_trace_feed_header()).  0 or -ENOMEM.
 */
int trace_stream_feed(struct stream *s, const struct tr_packet_header *packet, int whole);
void trace_stream_close(struct stream *s);

#endif /* TRACER_TRACE_IMPL_H */

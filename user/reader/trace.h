/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading a trace: every stream of packets (one per channel and CPU) of a
 * directory written by tracer record, or of a recording going on (fed by
 * its consumer, for tracer top), merged into one sequence in timestamp
 * order in one pass.
 * Each stream is in time order already (ringbuf.h, I2), so a heap of the
 * streams' next items gives the global order.  Losses come out as items
 * where they happened.  Every sink (report, export, top) takes them
 * through tr_trace_each().  Files are checked, never trusted: only regular
 * files are read, every length is bounded by what holds it, formats are
 * checked before libtraceevent parses them (reader/format_check.h) and every record
 * against its format before anything decodes it.  What is damaged comes
 * out as a problem item naming the file and offset: a damaged stream ends
 * there and the others go on; a record that does not fit its format is
 * skipped.
 */
#ifndef TRACER_TRACE_H
#define TRACER_TRACE_H

#include <endian.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <tracer/layout.h>

struct tep_event;
struct tr_trace;

/* An event class of the trace. */
struct tr_trace_class {
	char *system;
	char *name;
	struct tep_event *tep;		/* its parsed format; NULL if unusable */
};

enum tr_item_kind {
	TR_ITEM_RECORD,
	TR_ITEM_LOST,			/* overwritten sub-buffers, or lost events */
	TR_ITEM_PROBLEM,		/* damage in the trace, said in one line */
};

/*
 * What the reader hands out.  The fields after ts are those of its kind
 * only (they share memory): a sink reads a record's, a loss's or a
 * problem's after looking at kind.
 */
struct tr_item {
	enum tr_item_kind kind;
	__u32 cpu;
	__u32 stream_id;			/* records and losses: their channel's */
	__u64 packet_seq;			/* ... and their packet's packet_seq_num */
	__u64 ts;
	union {
		struct {	/* TR_ITEM_RECORD: every field of its format lies inside the payload */
			const struct tr_event_header *record;
			const struct tr_trace_class *class;
			const void *payload;	/* a copy, followed by a NUL byte (a live
						 * trace's: in its packet, and not followed by one) */
			/* ... and, in a trace recorded with -g, its stacks (tr_item_frame()) */
			unsigned int kernel_frames, user_frames;
			__u32 frames_at;	/* payload offset of the frames */
			/* ... and, in a trace recorded with --context, its context fields */
			__u32 context_at;	/* payload offset (8 bytes each, tr_trace_context()), or 0 */
		};
		struct {	/* TR_ITEM_LOST: its channel's name (NULL in a trace of one channel), */
			const char *channel;
			/* events by cause since the previous packet, and packets */
			__u64 lost_full, lost_wrap, lost_big, lost_busy;
			__u64 lost_packets;	/* overwritten (sequence gap) */
		};
		/* TR_ITEM_PROBLEM: "file: offset: what", file relative to the trace */
		const char *problem;
	};
};

/* Open a trace directory; on failure -errno and one line in why. */
int tr_trace_open(struct tr_trace **trace, const char *dir, char *why, size_t whylen);

/*
 * A live trace: the packets of nchannels channels (named channels[i]) of
 * ncpu CPUs each, fed by the consumer that takes them from the buffers
 * (stream channel * ncpu + cpu, as the recorder numbers its buffers);
 * events_text is .tracer/events' text for their records.  Nothing comes
 * out until tr_trace_set_horizon() lets it.  On failure -errno and why.
 */
int tr_trace_open_live(struct tr_trace **trace, const char *events_text, size_t len,
		       const char *const *channels, unsigned int nchannels, unsigned int ncpu,
		       char *why, size_t whylen);

/* A packet of stream, sound by tr_packet_header_problem(), copied in.  0 or -errno. */
int tr_trace_feed(struct tr_trace *trace, unsigned int stream, const void *packet);

/*
 * ... or only what its header says (tracer top --sample): its records are
 * left out, not lost, and what it reports lost still comes out.
 */
int tr_trace_feed_header(struct tr_trace *trace, unsigned int stream, const void *packet);

/*
 * Items up to ts may come out of a live trace: the consumer has fed every
 * packet holding a record before ts (~0: everything, at the end).  One
 * fed later with such a record still comes out, counted as late.
 */
void tr_trace_set_horizon(struct tr_trace *trace, __u64 ts);

/* Items handed out after one with a later timestamp. */
__u64 tr_trace_late(const struct tr_trace *trace);

/*
 * The next item in time order (problems found while opening come first),
 * or NULL at the end (a live trace's: none up to the horizon yet).  The
 * item, and what it points to, stay valid until the next call (or
 * tr_trace_feed()).
 */
const struct tr_item *tr_trace_next(struct tr_trace *trace);

/*
 * Each item tr_trace_next() would hand out, one after the other, to fn
 * (the item valid during the call), up to the end or the horizon; the
 * merge's work between the records of a run of one stream is skipped.
 */
typedef void (*tr_item_fn)(void *data, const struct tr_item *item);
void tr_trace_each(struct tr_trace *trace, tr_item_fn fn, void *data);

/*
 * No item comes out any more: tr_trace_next() returns NULL from now on,
 * and tr_trace_each() returns after the item it is handing out (a
 * report stopped by a signal).
 */
void tr_trace_stop(struct tr_trace *trace);

/*
 * Field name of a record, by its format (every field lies inside the
 * payload): as a number, 0 if it has none; or its bytes and their
 * number (a __data_loc field's data), NULL if it has none.
 */
__u64 tr_item_number(const struct tr_item *item, const char *name);
const void *tr_item_field(const struct tr_item *item, const char *name, int *len);

/* Frame i of a record's stacks: the kernel's first, innermost first, then the user's. */
static inline __u64 tr_item_frame(const struct tr_item *item, unsigned int i)
{
	__u64 frame;

	memcpy(&frame, (const char *)item->payload + item->frames_at + 8 * i, sizeof(frame));
	return le64toh(frame);
}

/* A TR_ITEM_LOST's events lost, every cause (overwritten sub-buffers apart). */
static inline __u64 tr_item_lost(const struct tr_item *item)
{
	return item->lost_full + item->lost_wrap + item->lost_big + item->lost_busy;
}

/* Whether the trace's records carry call stacks (record -g). */
int tr_trace_has_stacks(const struct tr_trace *trace);

/* A file at the top of the trace (metadata), for reading: as tr_trace_open_meta(). */
int tr_trace_open_file(const struct tr_trace *trace, const char *name);

/*
 * What viewers add to the trace's timestamps to make them times since the
 * epoch: the clock offset its metadata gives (CLOCK_REALTIME minus
 * CLOCK_MONOTONIC when it was recorded), or a live trace's, now.  0, or
 * -errno with *offset_ns 0 when a trace directory's metadata cannot say.
 */
int tr_trace_clock_offset(const struct tr_trace *trace, __s64 *offset_ns);

/*
 * Up to size bytes of fd into buf, read until its end or size (reads
 * cut short by a signal retried): the bytes read, or -errno.
 */
ssize_t tr_read_all(int fd, char *buf, size_t size);
/* The name of channel stream_id (CTF stream class), or NULL. */
const char *tr_trace_channel_name(const struct tr_trace *trace, __u32 stream_id);

/* The context fields every tracepoint record of the trace carries (record --context): names, number. */
#define TR_MAX_CONTEXT		16
#define TR_CONTEXT_NAME_MAX	32
unsigned int tr_trace_context(const struct tr_trace *trace, const char *const **names);

/*
 * Open a file of the trace's .tracer directory the way the trace's own
 * files are opened (a regular file, no symbolic link): a descriptor, or
 * -errno (-EINVAL when it is not a regular file).
 */
int tr_trace_open_meta(const struct tr_trace *trace, const char *name);

/*
 * Who names a kernel address that a field prints as a function (%pS):
 * namer returns the function's name and sets *start to where it begins,
 * or returns NULL.  0, or -ENOMEM.
 */
typedef const char *(*tr_function_namer)(void *data, __u64 address, __u64 *start);
int tr_trace_name_functions(struct tr_trace *trace, tr_function_namer namer, void *data);

/*
 * The format of event id with its print fmt whole (tr_format_whole()),
 * parsed on the first call: what report's text evaluates; NULL where its
 * records print by their fields.
 */
struct tep_event *tr_trace_print_format(struct tr_trace *trace, __u32 id);

/*
 * The format of event class id as tracefs writes one, with as_id as its
 * ID, checked as every format the reader parses (reader/format_check.h):
 * its print fmt whole where report's text evaluates it, else reduced to
 * its fields.  A string to free(), or NULL (no usable format, no memory).
 */
char *tr_trace_format_text(const struct tr_trace *trace, __u32 id, unsigned int as_id);

/*
 * Whether the trace has an event system:NAME (NAME a glob) with a usable
 * format; records of it may still be none.
 */
int tr_trace_has_class(const struct tr_trace *trace, const char *system, const char *name);

/* The string of .tracer/printk_formats at address, or NULL. */
const char *tr_trace_printk(const struct tr_trace *trace, __u64 address);

/* The name tr_trace_name_functions()'s namer gives address (and *start), or NULL. */
const char *tr_trace_function(const struct tr_trace *trace, __u64 address, __u64 *start);

/* The most strings of .tracer/printk_formats read (a kernel has a few hundred). */
#define TR_PRINTK_MAX		100000

void tr_trace_close(struct tr_trace *trace);

#endif /* TRACER_TRACE_H */

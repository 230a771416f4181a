// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer export --format ctf -o DIR: a copy of the trace holding only the
 * records report's filters select (a time window, some events, a process),
 * readable by report and babeltrace2.  The metadata and .tracer/ are the
 * trace's own; each stream's records are packed into new packets of
 * COPY_PACKET bytes, in order, and a loss keeps its place: the packet
 * before it ends there and carries its counts (overwritten sub-buffers as
 * a gap in packet_seq_num), as the recorder would have written them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracer/layout.h>

#include "sinks/sink.h"
#include "common/cpus.h"
#include "layout/ctf.h"
#include "reader/trace.h"
#include "reader/trace_dir.h"

/* The copy's packets: at least this much, more for a record that needs it. */
#define COPY_PACKET	(64 * 1024)

/* A stream of the copy: the packet it is filling, and its counters. */
struct out_stream {
	int fd;				/* -1 until its first packet */
	char *packet;
	size_t room, used;		/* bytes: the buffer's, and header + records */
	__u64 seq;			/* the packet's packet_seq_num */
	__u64 lost[4];			/* cumulative, by cause (layout.h) */
	__u64 begin, end;		/* its records' times */
};

struct ctf_copy {
	const struct tr_trace *trace;
	const char *path;		/* of dir */
	struct tr_trace_dir dir;
	struct out_stream *streams;	/* [channel * TR_MAX_CPUS + cpu] */
	int err;			/* the first write's -errno */
};

/* The bytes of the trace's file (fd) into out. */
static int copy_file(int fd, FILE *out)
{
	char buf[65536];
	ssize_t n;
	int err = 0;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, n, out) != (size_t)n)
			err = -EIO;
	if (n < 0)
		err = -errno;
	close(fd);
	if (fclose(out) && !err)
		err = -errno;
	return err;
}

/* The metadata and tracer's files, as the trace has them. */
static int copy_meta(struct ctf_copy *c)
{
	static const char *const meta[] = {
		"events", TR_TRACE_STACKS, TR_TRACE_KALLSYMS, TR_TRACE_CHANNELS, TR_TRACE_CONTEXT,
		TR_TRACE_PRINTK,
	};
	int fd = tr_trace_open_file(c->trace, "metadata"), err;
	FILE *out = fd < 0 ? NULL : tr_trace_dir_metadata(&c->dir);
	unsigned int i;

	if (!out) {
		err = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	err = copy_file(fd, out);
	for (i = 0; i < sizeof(meta) / sizeof(meta[0]) && !err; i++) {
		fd = tr_trace_open_meta(c->trace, meta[i]);
		if (fd == -ENOENT)
			continue;
		out = fd < 0 ? NULL : tr_trace_dir_meta_file(&c->dir, meta[i]);
		err = out ? copy_file(fd, out) : fd < 0 ? fd : -errno;
		if (!out && fd >= 0)
			close(fd);
	}
	return err;
}

/* Creates DIR (as record creates its trace: exclusive, private); -errno and why. */
static int copy_open(struct ctf_copy **copy, const struct tr_trace *trace, const char *dir,
		     char *why, size_t whylen)
{
	struct ctf_copy *c = calloc(1, sizeof(*c));
	unsigned int i;
	int err;

	if (!c || !(c->streams = calloc(TR_MAX_CHANNELS * TR_MAX_CPUS, sizeof(*c->streams)))) {
		free(c);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < TR_MAX_CHANNELS * TR_MAX_CPUS; i++)
		c->streams[i].fd = -1;
	c->trace = trace;
	c->path = dir;
	c->dir = (struct tr_trace_dir) TR_TRACE_DIR_CLOSED;
	err = tr_trace_dir_create(&c->dir, dir, 0, why, whylen);
	if (!err) {
		err = c->err = copy_meta(c);
		if (err)
			snprintf(why, whylen, "cannot copy the trace's metadata into %s: %s", dir,
				 strerror(-err));
	}
	*copy = c;
	return err;
}

/* The stream's packet, complete, onto its file; an empty one only to carry losses. */
static void write_packet(struct ctf_copy *c, struct out_stream *o, __u32 channel, __u32 cpu)
{
	struct tr_packet_header *h = (void *)o->packet;
	size_t size = (o->used + TR_PACKET_ALIGN - 1) & ~(size_t)(TR_PACKET_ALIGN - 1);
	const char *name = tr_trace_channel_name(c->trace, channel);
	int err;

	if (o->fd < 0 && !c->err)
		o->fd = name ? tr_trace_dir_stream_file(&c->dir, name, cpu) : -EINVAL;
	if (o->fd < 0) {
		c->err = c->err ?: o->fd;
		return;
	}
	*h = (struct tr_packet_header) {
		.magic = TR_PACKET_MAGIC, .stream_id = channel, .stream_instance_id = cpu,
		.timestamp_begin = o->begin, .timestamp_end = o->end,
		.content_size = 8 * o->used, .packet_size = 8 * size, .packet_seq_num = o->seq++,
		.events_discarded = o->lost[0] + o->lost[1] + o->lost[2] + o->lost[3],
		.lost_full = o->lost[0], .lost_wrap = o->lost[1], .lost_big = o->lost[2],
		.lost_busy = o->lost[3], .cpu_id = cpu, .layout_version = TR_LAYOUT_VERSION,
	};
	memset(o->packet + o->used, 0, size - o->used);
	/* all of it, so that a disk filling mid-packet says ENOSPC, not a short write */
	err = tr_ctf_write_packet(o->fd, o->packet);
	c->err = c->err ?: err;
	o->used = sizeof(*h);
	o->begin = o->end;
}

/* The output stream of an item, with room for bytes more; NULL if none can be had. */
static struct out_stream *stream_for(struct ctf_copy *c, const struct tr_item *it, size_t bytes)
{
	struct out_stream *o;
	size_t need;

	if (it->stream_id >= TR_MAX_CHANNELS || it->cpu >= TR_MAX_CPUS)
		return NULL;
	o = &c->streams[it->stream_id * TR_MAX_CPUS + it->cpu];
	if (!o->packet) {
		o->room = COPY_PACKET;
		o->packet = malloc(o->room);
		o->used = sizeof(struct tr_packet_header);
		o->begin = o->end = it->ts;
	}
	if (!o->packet)
		return NULL;
	need = ((o->used + TR_RECORD_ALIGN - 1) & ~(size_t)(TR_RECORD_ALIGN - 1)) + bytes;
	if (need > o->room && o->used > sizeof(struct tr_packet_header)) {
		write_packet(c, o, it->stream_id, it->cpu);
		o->begin = it->ts;
		need = sizeof(struct tr_packet_header) + bytes;
	}
	if (need > o->room) {
		size_t room = (need + TR_PACKET_ALIGN - 1) & ~(size_t)(TR_PACKET_ALIGN - 1);
		char *bigger = realloc(o->packet, room);

		if (!bigger)
			return NULL;
		o->packet = bigger;
		o->room = room;
	}
	return o;
}

static void copy_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct ctf_copy *c = state;
	size_t bytes = sizeof(*it->record) + it->record->size;
	struct out_stream *o = stream_for(c, it, bytes);
	size_t at;

	(void)tasks;
	if (!o) {
		c->err = c->err ?: -ENOMEM;
		return;
	}
	at = (o->used + TR_RECORD_ALIGN - 1) & ~(size_t)(TR_RECORD_ALIGN - 1);
	memset(o->packet + o->used, 0, at - o->used);	/* no heap bytes into the file */
	memcpy(o->packet + at, it->record, bytes);
	o->used = at;
	o->used += bytes;
	o->end = it->ts;
}

/*
 * A loss ends the packet before it, which carries its counts; sub-buffers
 * overwritten are a gap before the next packet.
 */
static void copy_lost(void *state, const struct tr_item *it)
{
	struct ctf_copy *c = state;
	struct out_stream *o = stream_for(c, it, 0);

	if (!o) {
		c->err = c->err ?: -ENOMEM;
		return;
	}
	o->lost[0] += it->lost_full;
	o->lost[1] += it->lost_wrap;
	o->lost[2] += it->lost_big;
	o->lost[3] += it->lost_busy;
	if (tr_item_lost(it)) {
		o->end = it->ts > o->end ? it->ts : o->end;
		write_packet(c, o, it->stream_id, it->cpu);
	} else if (o->used > sizeof(struct tr_packet_header)) {
		write_packet(c, o, it->stream_id, it->cpu);
	}
	o->seq += it->lost_packets;
	o->begin = o->end = it->ts > o->end ? it->ts : o->end;
}

/*
 * Writes what is left, closes DIR, frees c: 0, or the first write's
 * -errno, and then DIR is removed (a copy cut short is no copy).
 */
static int copy_close(void *state, const struct tr_tasks *tasks)
{
	struct ctf_copy *c = state;
	unsigned int i;
	int err;

	(void)tasks;
	for (i = 0; i < TR_MAX_CHANNELS * TR_MAX_CPUS; i++) {
		struct out_stream *o = &c->streams[i];

		if (o->packet && o->used > sizeof(struct tr_packet_header))
			write_packet(c, o, i / TR_MAX_CPUS, i % TR_MAX_CPUS);
		if (o->fd >= 0 && close(o->fd) && !c->err)
			c->err = -errno;
		free(o->packet);
	}
	err = c->err;
	/* a copy cut short is no copy: what cannot be removed stays, and err says why */
	if (err && c->dir.fd >= 0)
		tr_trace_dir_remove(&c->dir, c->path);
	tr_trace_dir_close(&c->dir);
	free(c->streams);
	free(c);
	return err;
}

/* A copy cut short by a signal (tr_report_opts.stop): DIR removed, c freed. */
static void copy_abandon(void *state)
{
	struct ctf_copy *c = state;

	if (!c->err)
		c->err = -EINTR;
	copy_close(c, NULL);
}

/* export --format ctf: the copy's directory, or why not (-EINVAL: one that exists). */
static int copy_sink_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace,
			  const struct tr_report_opts *o)
{
	struct ctf_copy *c = NULL;
	char why[1024];
	int err = copy_open(&c, trace, o->output_dir, why, sizeof(why));

	(void)out;
	if (!err) {
		*sink = (struct tr_sink) { .ops = &tr_ctf_copy_sink, .state = c };
		return 0;
	}
	fprintf(stderr, "tracer %s: %s\n", o->command, why);
	if (c)
		copy_close(c, NULL);
	return err == -EEXIST ? -EINVAL : err;
}

const struct tr_sink_ops tr_ctf_copy_sink = {
	.open = copy_sink_open, .record = copy_record, .lost = copy_lost, .close = copy_close,
	.abandon = copy_abandon, .whole_or_nothing = true, .keeps_state = true,
};

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer record's consumer: the reader's side of the buffer protocol
 * (ringbuf.h), sub-buffer by sub-buffer, either backend, each packet
 * checked, then appended to its CPU's stream file and (tracer top) fed to
 * the live reader.
 */
#include <errno.h>
#include <unistd.h>

#include "record/session.h"
#include "layout/ctf.h"
#include "layout/packet.h"

static void count_records(struct session *s, const void *packet)
{
	const struct tr_event_header *e;
	struct tr_packet_iter it;
	const char *problem;

	tr_packet_iter_init(&it, packet);
	while ((e = tr_packet_next(&it, &problem))) {
		if (e->id == s->misses_event)
			continue;
		if (e->id < s->events.count)
			s->per_event[e->id]++;
		s->records++;
	}
}

/* Write a packet; on failure cut the file back so it ends on a whole packet. */
static int store_packet(struct session *s, unsigned int stream, const void *packet)
{
	off_t before = lseek(s->stream_fd[stream], 0, SEEK_CUR);
	int err = tr_ctf_write_packet(s->stream_fd[stream], packet);

	if (err) {
		if (ftruncate(s->stream_fd[stream], before))
			err = -errno;
		return err;
	}
	s->bytes += ((const struct tr_packet_header *)packet)->packet_size / 8;
	return 0;
}

/* The module has one channel: its buffers are the streams of channel 0. */
const struct trb_buf *rec_buf(const struct session *s, unsigned int stream)
{
	return s->use_kmod ? &s->kbufs.cpu[stream] : &s->bufs.buf[stream];
}

static int get_subbuf(struct session *s, unsigned int stream, __u64 *pos,
		      const char **packet)
{
	if (s->use_kmod)
		return tr_kmodbuf_get_subbuf(&s->kbufs, stream, pos, packet);
	return trb_get_subbuf(&s->bufs.buf[stream], pos, packet);
}

static void put_subbuf(struct session *s, unsigned int stream, __u64 pos)
{
	if (s->use_kmod)
		tr_kmodbuf_put_subbuf(&s->kbufs, stream, pos);
	else
		trb_put_subbuf(&s->bufs.buf[stream], pos);
}

void rec_consume(struct session *s)
{
	unsigned int stream;

	for (stream = 0; stream < s->nstreams && !s->write_error; stream++) {
		__u64 subbuf_size = rec_buf(s, stream)->subbuf_size;
		const char *packet;
		__u64 pos;

		while (!s->write_error && get_subbuf(s, stream, &pos, &packet) == 0) {
			if (tr_packet_header_problem((const void *)packet, subbuf_size)) {
				put_subbuf(s, stream, pos);
				continue;
			}
			if (s->stream_fd)
				s->write_error = store_packet(s, stream, packet);
			if (s->live && !s->write_error)
				rec_live_feed(s, stream, packet);
			if (s->relay && !s->write_error)
				rec_relay_packet(s, stream, packet);
			/* For the summary, which only a recording with an output has. */
			if (!s->write_error && s->o->output)
				count_records(s, packet);
			put_subbuf(s, stream, pos);
		}
	}
}

/* The module flushes its buffers on per-CPU timers; BPF regions need us. */
void rec_flush_all(struct session *s)
{
	unsigned int stream;

	for (stream = 0; !s->use_kmod && stream < s->nstreams; stream++)
		if (s->live)
			rec_live_flush(s, stream);
		else
			trb_flush(&s->bufs.buf[stream]);
}

void rec_flush_now(struct session *s)
{
	if (s->use_kmod)
		tr_kmodbuf_flush(&s->kbufs);
	else
		rec_flush_all(s);
}

void rec_finish_writing(struct session *s)
{
	if (s->use_kmod)
		tr_kmodbuf_finish(&s->kbufs);
	else
		rec_flush_all(s);
}

__u64 rec_lost_total(const struct session *s)
{
	__u64 lost = 0;
	unsigned int stream;

	for (stream = 0; stream < s->nstreams; stream++)
		lost += trb_lost(rec_buf(s, stream)) + rec_buf(s, stream)->ctl->records_overrun;
	return lost + s->misses;
}

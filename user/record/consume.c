// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer record's consumer: the reader's side of the buffer protocol
 * (ringbuf.h), sub-buffer by sub-buffer, through the buffers' ops table
 * (buffers/buffers.h), each packet checked, then handed to the session's
 * outputs (struct rec_output) in rank order: the stream files, tracer
 * top's live reader, the relay.
 */
#include "record/session.h"
#include "layout/packet.h"

/* For the summary: packet's records, by event but for the misses' own. */
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

/*
 * The outputs in rank order (enum rec_output_rank), each at most once:
 * the order every packet goes to them.
 */
void rec_output_add(struct session *s, const struct rec_output *out)
{
	unsigned int i;

	for (i = 0; i < s->noutputs; i++)
		if (s->outputs[i] == out)
			return;
	for (i = s->noutputs++; i > 0 && s->outputs[i - 1]->rank > out->rank; i--)
		s->outputs[i] = s->outputs[i - 1];
	s->outputs[i] = out;
}

void rec_output_remove(struct session *s, const struct rec_output *out)
{
	unsigned int i, kept = 0;

	for (i = 0; i < s->noutputs; i++)
		if (s->outputs[i] != out)
			s->outputs[kept++] = s->outputs[i];
	s->noutputs = kept;
}

/* Packet, checked, to each output while none failed to write it. */
static void dispatch(struct session *s, unsigned int stream, const void *packet)
{
	unsigned int i;

	for (i = 0; i < s->noutputs && !s->write_error; i++)
		s->outputs[i]->packet(s, stream, packet);
}

void rec_consume(struct session *s)
{
	const struct tr_buffers_ops *ops = s->buffers.ops;
	unsigned int stream;

	for (stream = 0; stream < s->nstreams && !s->write_error; stream++) {
		__u64 subbuf_size = s->buffers.buf[stream].subbuf_size;
		const char *packet;
		__u64 pos;

		while (!s->write_error && ops->get_subbuf(&s->buffers, stream, &pos, &packet) == 0) {
			if (tr_packet_header_problem((const void *)packet, subbuf_size)) {
				ops->put_subbuf(&s->buffers, stream, pos);
				continue;
			}
			dispatch(s, stream, packet);
			/* For the summary, which only a recording with an output has. */
			if (!s->write_error && s->o->output)
				count_records(s, packet);
			ops->put_subbuf(&s->buffers, stream, pos);
		}
	}
}

void rec_outputs_flush(struct session *s, __u64 now)
{
	unsigned int i;

	for (i = 0; i < s->noutputs; i++)
		if (s->outputs[i]->flush)
			s->outputs[i]->flush(s, now);
}

void rec_outputs_round(struct session *s, __u64 now, int last)
{
	unsigned int i;

	for (i = 0; i < s->noutputs; i++)
		if (s->outputs[i]->round)
			s->outputs[i]->round(s, now, last);
}

void rec_outputs_summary(const struct session *s)
{
	unsigned int i;

	for (i = 0; i < s->noutputs; i++)
		if (s->outputs[i]->summary)
			s->outputs[i]->summary(s);
}

void rec_outputs_close(struct session *s)
{
	while (s->noutputs) {
		const struct rec_output *out = s->outputs[0];

		rec_output_remove(s, out);
		if (out->close)
			out->close(s);
	}
}

__u64 rec_lost_total(const struct session *s)
{
	__u64 lost = 0;
	unsigned int stream;

	for (stream = 0; stream < s->nstreams; stream++)
		lost += trb_lost(&s->buffers.buf[stream]) + s->buffers.buf[stream].ctl->records_overrun;
	return lost + s->misses;
}

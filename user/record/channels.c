// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer record's channels: each a buffer per CPU with a geometry and a
 * mode of its own, so that the events sent to one (-e EVENT@NAME) never
 * lose their place to a flood in another.  Channel c's buffer on CPU n is
 * stream c * ncpu + n: its BPF region, its stream file NAME_n, its packets'
 * stream_id c (a CTF stream class per channel).
 */
#include <stdio.h>

#include "record/session.h"

/* Why a channel's geometry cannot be, or NULL. */
static const char *geometry_problem(const struct tr_channel_opts *c)
{
	__u64 nsubbuf = c->subbuf_size ? c->buffer_size / c->subbuf_size : 0;
	const char *bad = trb_geometry_problem(c->subbuf_size, nsubbuf);

	if (!bad && nsubbuf * c->subbuf_size != c->buffer_size)
		return "the buffer size must be a multiple of the sub-buffer size";
	return bad;
}

/*
 * The BPF regions all have the size the largest channel needs (one map,
 * one value size), and the verifier takes no map value of 512 MiB.
 */
static int regions_too_large(const struct session *s)
{
	const struct tr_record_opts *o = s->o;
	int may_use_bpf = o->backend == TR_BACKEND_BPF ||
			  (o->backend == TR_BACKEND_AUTO && tr_kmodbuf_unavailable());
	struct tr_bpfbuf_bounds bounds;

	tr_bpfbuf_bounds(s->cfg, s->nchannels, &bounds);
	if (!may_use_bpf || bounds.region_size <= TR_BPF_MAX_REGION_SIZE)
		return 0;
	if (s->nchannels == 1)
		rec_say("bad buffer geometry (--buffer-size %llu, --subbuf-size %llu): a BPF buffer holds at most 512 MiB per CPU, one spare sub-buffer included: --buffer-size 256M at most",
			(unsigned long long)o->channels[0].buffer_size,
			(unsigned long long)o->channels[0].subbuf_size);
	else
		rec_say("the channels' buffers are too large: every BPF buffer has room for the largest buffer and the largest sub-buffer of any channel, at most 512 MiB per CPU");
	return 1;
}

int rec_channels_set(struct session *s)
{
	const struct tr_record_opts *o = s->o;
	unsigned int c;

	for (c = 0; c < o->nchannels; c++) {
		const struct tr_channel_opts *ch = &o->channels[c];
		const char *bad = geometry_problem(ch);

		if (bad && !c)
			rec_say("bad buffer geometry (--buffer-size %llu, --subbuf-size %llu): %s",
				(unsigned long long)ch->buffer_size,
				(unsigned long long)ch->subbuf_size, bad);
		else if (bad)
			rec_say("--channel %s: bad buffer geometry (%llu bytes, sub-buffers of %llu): %s",
				ch->name, (unsigned long long)ch->buffer_size,
				(unsigned long long)ch->subbuf_size, bad);
		if (bad)
			return -EINVAL;
		s->cfg[c] = (struct trb_config) {
			.subbuf_size = ch->subbuf_size, .nsubbuf = ch->buffer_size / ch->subbuf_size,
			.mode = ch->mode, .stream_id = c,
		};
	}
	s->nchannels = o->nchannels;
	s->nstreams = s->nchannels * s->ncpu;
	return regions_too_large(s) ? -EINVAL : 0;
}

void rec_channels_summary(const struct session *s)
{
	unsigned int stream;

	for (stream = 0; stream < s->nstreams; stream++) {
		const struct trb_buf *b = &s->buffers.buf[stream];
		const struct tr_buf_ctl *c = b->ctl;

		if (!trb_lost(b) && !c->records_overrun)
			continue;
		fprintf(stderr, "  cpu %u lost: %llu buffer full, %llu not yet committed, %llu too big, %llu busy, %llu overwritten",
			stream % s->ncpu, c->lost_full, c->lost_wrap, c->lost_big, c->lost_busy,
			c->records_overrun);
		if (s->nchannels > 1)
			fprintf(stderr, " (channel %s)", s->o->channels[stream / s->ncpu].name);
		fputc('\n', stderr);
	}
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The buffers' ops table (buffers/buffers.h): a row per backend, over
 * buffers/bpfbuf.c and buffers/kmodbuf.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "buffers/buffers.h"

/* --- BPF map regions: this process runs the reader's steps (ringbuf.h) ---- */

static int bpf_get_subbuf(struct tr_buffers *b, unsigned int stream, __u64 *pos,
			  const char **packet)
{
	return trb_get_subbuf(&b->buf[stream], pos, packet);
}

static void bpf_put_subbuf(struct tr_buffers *b, unsigned int stream, __u64 pos)
{
	trb_put_subbuf(&b->buf[stream], pos);
}

/* The flush, with when it was and the write count it left (for tracer top's horizon). */
static void bpf_flush_one(struct tr_buffers *b, unsigned int stream)
{
	const struct trb_buf *buf = &b->buf[stream];
	struct tr_buffer_flush *f = &b->flushed[stream];

	f->at = buf->clock();
	trb_flush(buf);
	f->write_count = trb_read(&buf->ctl->write_count);
}

static void bpf_flush_due(struct tr_buffers *b)
{
	unsigned int stream;

	for (stream = 0; stream < b->nstreams; stream++)
		bpf_flush_one(b, stream);
}

static int bpf_flush(struct tr_buffers *b)
{
	bpf_flush_due(b);
	return 0;
}

static const char *bpf_clock(const struct tr_buffers *b, char *text, size_t len)
{
	(void)b, (void)text, (void)len;
	return "CLOCK_MONOTONIC (bpf_ktime_get_ns)";
}

static void bpf_close(struct tr_buffers *b)
{
	tr_bpfbuf_close(&b->bpf);
	free(b->flushed);
}

static const struct tr_buffers_ops bpf_ops = {
	.name = "bpf", .get_subbuf = bpf_get_subbuf, .put_subbuf = bpf_put_subbuf,
	.flush_one = bpf_flush_one, .flush_due = bpf_flush_due, .flush = bpf_flush,
	.finish = bpf_flush, .clock = bpf_clock, .close = bpf_close,
};

int tr_buffers_open_bpf(struct tr_buffers *b, const struct bpf_map *map,
			const struct trb_config *cfgs, unsigned int nchannels,
			unsigned int ncpu, __u64 (*clock)(void))
{
	int err = tr_bpfbuf_open(&b->bpf, map, cfgs, nchannels, ncpu, clock);

	if (err)
		return err;
	b->ops = &bpf_ops;
	b->buf = b->bpf.buf;
	b->nstreams = nchannels * ncpu;
	b->flushed = calloc(b->nstreams, sizeof(*b->flushed));
	return b->flushed ? 0 : -ENOMEM;
}

/* --- The module's: it runs the reader's steps, through /dev/tracer -------- */

static int kmod_get_subbuf(struct tr_buffers *b, unsigned int stream, __u64 *pos,
			   const char **packet)
{
	return tr_kmodbuf_get_subbuf(&b->kmod, stream, pos, packet);
}

static void kmod_put_subbuf(struct tr_buffers *b, unsigned int stream, __u64 pos)
{
	tr_kmodbuf_put_subbuf(&b->kmod, stream, pos);
}

/* Its per-CPU timers flush: nothing is due from the reader. */
static void kmod_flush_due(struct tr_buffers *b)
{
	(void)b;
}

static int kmod_flush(struct tr_buffers *b)
{
	return tr_kmodbuf_flush(&b->kmod);
}

static int kmod_finish(struct tr_buffers *b)
{
	return tr_kmodbuf_finish(&b->kmod);
}

/* The module's clock and its mapping to CLOCK_MONOTONIC. */
static const char *kmod_clock(const struct tr_buffers *b, char *text, size_t len)
{
	const struct tr_kmod_clock_info *c = &b->kmod.clock;

	snprintf(text, len,
		 "tracer.ko clock: %u-bit TSC at %llu Hz extended to 64 bits, plus each CPU's offset (one: %lld ns) = CLOCK_MONOTONIC",
		 c->hw_bits, (unsigned long long)c->hw_hz, (long long)c->mono_offset_ns);
	return text;
}

static void kmod_close(struct tr_buffers *b)
{
	if (b->bpf.notices)
		tr_bpfbuf_close(&b->bpf);
	tr_kmodbuf_close(&b->kmod);
}

static const struct tr_buffers_ops kmod_ops = {
	.name = "kmod", .get_subbuf = kmod_get_subbuf, .put_subbuf = kmod_put_subbuf,
	.flush_due = kmod_flush_due, .flush = kmod_flush, .finish = kmod_finish,
	.clock = kmod_clock, .close = kmod_close,
};

int tr_buffers_open_kmod(struct tr_buffers *b, const struct trb_config *cfg,
			 unsigned int flush_ms, __u32 selftest_event_id)
{
	int err = tr_kmodbuf_open(&b->kmod, cfg, flush_ms, selftest_event_id);

	if (err)
		return err;
	b->ops = &kmod_ops;
	b->buf = b->kmod.cpu;
	b->nstreams = b->kmod.ncpu;
	return 0;
}

/* --- Either ----------------------------------------------------------------- */

void tr_buffers_drain_notices(struct tr_buffers *b)
{
	if (b->bpf.notices)
		tr_bpfbuf_drain_notices(&b->bpf);
}

void tr_buffers_close(struct tr_buffers *b)
{
	if (b->ops)
		b->ops->close(b);
	*b = TR_BUFFERS_CLOSED;
}

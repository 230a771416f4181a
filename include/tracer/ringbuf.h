/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer ring buffer: the lockless reserve/commit protocol of LTTng
 * (Desnoyers & Dagenais, "Lockless multi-core high-throughput buffering
 * scheme for kernel tracing", S0 in ../shared/seeds), in one portable
 * implementation.  The kernel module and the user-space library compile
 * this file; the BPF writer implements the same steps over the same
 * layout (layout.h) and the user-space reader runs these reader functions
 * on its buffers.  tests/model/ringbuf.pml is its Spin model.
 *
 * Vocabulary.  A buffer is 2^nsubbuf_order sub-buffers of 2^subbuf_order
 * bytes (BUF bytes in all).  Positions are free-running byte counts: a
 * position names a lap (pos / BUF), a sub-buffer index within the lap and
 * an offset within the sub-buffer.  A record is reserved (space claimed),
 * written, then committed (declared complete).  A sub-buffer is delivered
 * to the reader once every byte of it is committed.
 *
 * Invariants (the numbers are referred to in the code):
 *
 * I1  write_count and consumed only grow, and every comparison between
 *     positions or commit counts is an unsigned difference, so all
 *     counters may start anywhere (a multiple of the sub-buffer size) and
 *     wrap past 2^64.  consumed <= write_count <= consumed + BUF, except
 *     in overwrite mode between a writer's reservation and its push of
 *     the reader (I5): until that push write_count may be further ahead.
 *
 * I2  The clock is read inside the reservation loop, after write_count is
 *     loaded and before the compare-and-swap that advances it.  A
 *     reservation that lands between the two makes the swap fail and the
 *     clock is read again, so in each buffer records in position order
 *     have non-decreasing timestamps, and timestamp_begin <= every record
 *     of a packet <= timestamp_end <= the next packet's timestamp_begin.
 *
 * I3  Each byte of a sub-buffer is reserved once and committed once
 *     (header, records and padding alike), and commit[i].cc counts the
 *     bytes committed, so in lap L the sub-buffer i is complete exactly
 *     when cc == L * SB + SB (modulo the commit mask, because cc wraps
 *     NSB times less often than positions).  The commit is an add_return,
 *     so exactly one committer sees the sum that completes it: that one,
 *     nested or not, delivers the sub-buffer.  Commits may complete out of
 *     order (an interrupt reserves and commits inside another reserve and
 *     commit); a sub-buffer with a hole is never complete.
 *
 * I4  Delivery happens once per lap, by I3, and ends with a release store
 *     of cc_sb = cc.  cc_sb shows lap L delivered iff cc_sb == L * SB + SB.
 *     The reader may take the sub-buffer at consumed only then (Eq. 2 of
 *     S0); a writer may enter sub-buffer i in lap L+1 only then (Eq. 3).
 *     A writer that finds lap L not yet delivered (a reservation of that
 *     lap is still open: the K42 race) drops its record as lost_wrap.
 *
 * I5  A writer never enters a sub-buffer that holds data the reader has
 *     not consumed in discard mode (it drops the record as lost_full); in
 *     overwrite mode it first moves consumed, if behind, to the oldest
 *     sub-buffer that survives its entry, so consumed is never in or
 *     before a sub-buffer some writer has entered for a later lap.  Every
 *     reservation ends in exactly one record or exactly one increment of
 *     a lost counter (lost_full, lost_wrap, lost_big; BPF and kernel
 *     writers also lost_busy): attempted = recorded + lost.
 *
 * I6  sbid[i] names the physical sub-buffer at index i.  NOREF clear means
 *     writers of the current lap may write into it: a writer clears it
 *     (by compare-and-swap) before writing, delivery sets it together with
 *     the lap tag.  The reader takes sub-buffer i by swapping its spare
 *     into sbid[i] with a compare-and-swap that succeeds only while NOREF
 *     is set and the lap tag is consumed's lap.  From then on no writer
 *     can reach what the reader holds, so a reader never sees a partially
 *     written or overwritten sub-buffer, in either mode.  At put the held
 *     sub-buffer becomes the spare.
 *
 * I7  Overwrite accounting: records[p].committed counts the records of
 *     physical sub-buffer p since its last delivery; delivery moves it to
 *     records[p].unread after adding the previous unread count, never
 *     read, to records_overrun; put clears unread.  Once all buffers are
 *     flushed and drained, read + records_overrun + lost == attempted.
 *
 * I8  A flush closes the current sub-buffer only if it holds a record
 *     (offset != 0); it reserves no record and never opens a sub-buffer,
 *     so it can run concurrently with writers and never makes an empty
 *     packet.
 *
 * Memory ordering: record bytes and header fields are written before the
 * add to cc, which releases them and acquires those of earlier adds, so
 * the delivering committer holds them all; the release store of cc_sb
 * publishes them with delivery's own writes; the reader loads cc_sb with
 * acquire before reading.  The
 * reader finishes reading before its put (a full-barrier CAS on consumed)
 * and writers load consumed and sbid before writing.
 */
#ifndef TRACER_RINGBUF_H
#define TRACER_RINGBUF_H

#include "layout.h"
#include "ringbuf_atomic.h"

#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#include <stddef.h>
#endif

/* How a buffer is made; fixed for its lifetime. */
struct trb_config {
	__u64 subbuf_size;		/* power of two */
	__u32 nsubbuf;			/* power of two, at least 2 */
	enum tr_buf_mode mode;
	__u32 cpu;			/* written in every packet header */
	__u32 stream_id;
	__u64 start;			/* first position, a multiple of subbuf_size */
};

/* A process's handle on a buffer region: private, never shared memory. */
struct trb_buf {
	struct tr_buf_ctl *ctl;
	char *data;			/* physical sub-buffer 0 */
	__u64 (*clock)(void);		/* ns; must not go back on this buffer */
	__u64 subbuf_size;
	__u64 buf_size;
	__u64 commit_mask;		/* commit counts compare modulo this + 1 */
	__u32 subbuf_order;
	__u32 nsubbuf_order;
	enum tr_buf_mode mode;
	__u32 cpu;
	__u32 stream_id;
	__u64 start;
};

/* What a reservation found and claimed. */
struct trb_slot {
	__u64 old;			/* write_count before the reservation */
	__u64 begin;			/* position of the record */
	__u64 end;			/* position after it */
	__u64 ts;
	__u32 size;			/* bytes committed: padding before, header, payload */
	__u32 switches;			/* TRB_SWITCH_* */
	__u32 phys;			/* physical sub-buffer holding the record */
	char *record;			/* the struct tr_event_header */
};

enum {
	TRB_SWITCH_OLD_END = 1,		/* record did not fit: close the old sub-buffer */
	TRB_SWITCH_NEW_START = 2,	/* record opens its sub-buffer */
	TRB_SWITCH_NEW_END = 4,		/* record fills its sub-buffer exactly */
};

/* --- Positions ---------------------------------------------------------- */

static inline __u64 trb_sb_offset(const struct trb_buf *b, __u64 pos)
{
	return pos & (b->subbuf_size - 1);
}

static inline __u64 trb_sb_trunc(const struct trb_buf *b, __u64 pos)
{
	return pos & ~(b->subbuf_size - 1);
}

/* Start of the sub-buffer after the one pos is in. */
static inline __u64 trb_sb_next(const struct trb_buf *b, __u64 pos)
{
	return trb_sb_trunc(b, pos) + b->subbuf_size;
}

static inline __u32 trb_sb_index(const struct trb_buf *b, __u64 pos)
{
	return (pos & (b->buf_size - 1)) >> b->subbuf_order;
}

/* Commit count of pos's sub-buffer at the start of pos's lap (I3). */
static inline __u64 trb_lap_commit(const struct trb_buf *b, __u64 pos)
{
	return (pos & ~(b->buf_size - 1)) >> b->nsubbuf_order;
}

static inline __u64 trb_lap_tag(const struct trb_buf *b, __u64 pos)
{
	return (pos >> (b->subbuf_order + b->nsubbuf_order)) & TR_SBID_LAP_MASK;
}

static inline __u64 trb_sbid_make(__u32 phys, __u64 lap_tag)
{
	return phys | TR_SBID_NOREF | lap_tag << TR_SBID_LAP_SHIFT;
}

static inline __u32 trb_sbid_phys(__u64 sbid)
{
	return sbid & TR_SBID_INDEX_MASK;
}

static inline char *trb_phys_addr(const struct trb_buf *b, __u32 phys)
{
	return b->data + (__u64)phys * b->subbuf_size;
}

/* Payload bytes that fit after a packet header and an event header. */
static inline __u64 trb_max_payload(const struct trb_buf *b)
{
	return b->subbuf_size - sizeof(struct tr_packet_header) -
	       sizeof(struct tr_event_header);
}

/* --- Set-up ------------------------------------------------------------- */

static inline int trb_is_pow2(__u64 x)
{
	return x && !(x & (x - 1));
}

static inline __u32 trb_log2(__u64 x)
{
	__u32 order = 0;

	while (x >>= 1)
		order++;
	return order;
}

/* Why this geometry is refused, or NULL when it is good. */
static inline const char *trb_geometry_problem(__u64 subbuf_size, __u64 nsubbuf)
{
	if (!trb_is_pow2(subbuf_size))
		return "sub-buffer size must be a power of two";
	if (subbuf_size < TR_MIN_SUBBUF_SIZE)
		return "sub-buffer size must be at least 4 KiB";
	if (subbuf_size > TR_MAX_SUBBUF_SIZE)
		return "sub-buffer size must be at most 1 GiB";
	if (!trb_is_pow2(nsubbuf))
		return "number of sub-buffers must be a power of two";
	if (nsubbuf < TR_MIN_SUBBUFS)
		return "there must be at least 2 sub-buffers";
	if (nsubbuf > TR_MAX_SUBBUFS)
		return "there must be at most 64 sub-buffers";
	return NULL;
}

static inline void trb_bind(struct trb_buf *b, void *region, __u64 (*clock)(void))
{
	struct tr_buf_ctl *ctl = region;

	b->ctl = ctl;
	b->data = (char *)region + TR_CTL_SIZE;
	b->clock = clock;
	b->subbuf_order = ctl->subbuf_order;
	b->nsubbuf_order = ctl->nsubbuf_order;
	b->subbuf_size = 1ull << ctl->subbuf_order;
	b->buf_size = b->subbuf_size << ctl->nsubbuf_order;
	b->commit_mask = ~0ull >> ctl->nsubbuf_order;
	b->mode = ctl->mode;
	b->cpu = ctl->cpu;
	b->stream_id = ctl->stream_id;
	b->start = ctl->start;
}

/*
 * Bind a handle to a region whose control block is initialised, after
 * checking it: the region may come from another process or the kernel.
 * -EAGAIN while its magic is not written: trb_init() writes it last, so
 * another process that maps a buffer being made can try again later.
 */
static inline int trb_attach(struct trb_buf *b, void *region,
			     __u64 (*clock)(void))
{
	struct tr_buf_ctl *ctl = region;

	if (trb_read_acquire32(&ctl->magic) != TR_CTL_MAGIC)
		return ctl->magic ? -EPROTO : -EAGAIN;
	if (ctl->layout_version != TR_LAYOUT_VERSION)
		return -EPROTO;
	if (ctl->subbuf_order >= 64 || ctl->nsubbuf_order >= 64 ||
	    trb_geometry_problem(1ull << ctl->subbuf_order,
				 1ull << ctl->nsubbuf_order) ||
	    ctl->mode > TR_MODE_OVERWRITE)
		return -EPROTO;
	trb_bind(b, region, clock);
	return 0;
}

/*
 * Initialise a region of TR_BUF_REGION_SIZE bytes (zeroed by the caller)
 * and bind a handle to it.  Each index's counters are set as if its
 * previous lap had been delivered, at the first position >= start that
 * falls on that index (I1, I4).
 */
static inline int trb_init(struct trb_buf *b, void *region,
			   const struct trb_config *cfg, __u64 (*clock)(void))
{
	struct tr_buf_ctl *ctl = region;
	__u32 nsubbuf = cfg->nsubbuf;
	__u32 i;

	if (trb_geometry_problem(cfg->subbuf_size, nsubbuf) ||
	    cfg->start & (cfg->subbuf_size - 1) || cfg->mode > TR_MODE_OVERWRITE)
		return -EINVAL;
	ctl->layout_version = TR_LAYOUT_VERSION;
	ctl->subbuf_order = trb_log2(cfg->subbuf_size);
	ctl->nsubbuf_order = trb_log2(nsubbuf);
	ctl->mode = cfg->mode;
	ctl->stream_id = cfg->stream_id;
	ctl->cpu = cfg->cpu;
	ctl->start = cfg->start;
	ctl->write_count = cfg->start;
	ctl->consumed = cfg->start;
	trb_bind(b, region, clock);
	for (i = 0; i < nsubbuf; i++) {
		__u64 first = cfg->start +
			(__u64)((i - trb_sb_index(b, cfg->start)) & (nsubbuf - 1)) *
			cfg->subbuf_size;
		__u64 delivered = trb_lap_commit(b, first) & b->commit_mask;

		ctl->commit[i].cc = delivered;
		ctl->commit[i].cc_sb = delivered;
		ctl->sbid[i] = trb_sbid_make(i, trb_lap_tag(b, first - b->buf_size));
	}
	ctl->reader_sbid = trb_sbid_make(nsubbuf, 0);
	trb_write_release32(&ctl->magic, TR_CTL_MAGIC);
	return 0;
}

/* --- Writer ------------------------------------------------------------- */

/*
 * The physical sub-buffer a table entry names, as a writer takes it: the
 * table may be shared with another process (libtracer-ust's buffers are a
 * recorder's too), which may have rewritten it, so a number past the
 * buffer's last physical sub-buffer (the spare, number nsubbuf) is taken
 * as that one.  Whatever the table says, a writer stays inside its region.
 */
static inline __u32 trb_writer_phys(const struct trb_buf *b, __u64 id)
{
	__u32 phys = trb_sbid_phys(id), last = 1u << b->nsubbuf_order;

	return phys <= last ? phys : last;
}

/*
 * Take a reference on the sub-buffer at pos's index (I6) and return its
 * address.  The sub-buffer cannot be taken by the reader afterwards until
 * it is delivered again.
 */
static inline char *trb_writer_subbuf(const struct trb_buf *b, __u64 pos,
				      __u32 *phys)
{
	__u64 *entry = &b->ctl->sbid[trb_sb_index(b, pos)];
	__u64 id = trb_read_acquire(entry);

	while (id & TR_SBID_NOREF) {
		__u64 seen = trb_shared_cmpxchg(entry, id, id & ~TR_SBID_NOREF);

		if (seen == id)
			id &= ~TR_SBID_NOREF;
		else
			id = seen;
	}
	*phys = trb_writer_phys(b, id);
	return trb_phys_addr(b, *phys);
}

/* Move consumed forward to target unless it is already there or beyond. */
static inline void trb_advance_consumed(const struct trb_buf *b, __u64 target)
{
	__u64 *consumed = &b->ctl->consumed;
	__u64 cur = trb_read(consumed);

	while ((__s64)(cur - target) < 0) {
		__u64 seen = trb_shared_cmpxchg(consumed, cur, target);

		if (seen == cur)
			return;
		cur = seen;
	}
}

/*
 * Overwrite mode: before writing into the sub-buffer pos enters, move the
 * reader to the oldest sub-buffer that survives (I5).  One sub-buffer step
 * is not enough: a writer that entered the previous sub-buffer may not
 * have pushed yet (it was interrupted, or runs on another thread).
 */
static inline void trb_push_reader(const struct trb_buf *b, __u64 pos)
{
	trb_advance_consumed(b, trb_sb_trunc(b, pos) - b->buf_size + b->subbuf_size);
}

/* The one committer that completes sub-buffer idx for pos's lap (I3, I4, I7). */
static inline void trb_deliver(const struct trb_buf *b, __u32 idx, __u64 pos,
			       __u64 cc)
{
	struct tr_buf_ctl *ctl = b->ctl;
	__u32 phys = trb_writer_phys(b, trb_read(&ctl->sbid[idx]));
	struct tr_record_counters *rc = &ctl->records[phys];

	trb_local_add(&ctl->records_overrun, trb_read(&rc->unread));
	trb_write(&rc->unread, trb_read(&rc->committed));
	trb_write(&rc->committed, 0);
	trb_write_release(&ctl->sbid[idx], trb_sbid_make(phys, trb_lap_tag(b, pos)));
	trb_write_release(&ctl->commit[idx].cc_sb, cc);
}

/* Does commit count cc show pos's sub-buffer complete in pos's lap (I3)? */
static inline int trb_complete(const struct trb_buf *b, __u64 pos, __u64 cc)
{
	return ((cc - b->subbuf_size) & b->commit_mask) == trb_lap_commit(b, pos);
}

/* Commit bytes to the sub-buffer that pos lies in, delivering it if complete. */
static inline void trb_commit_bytes(const struct trb_buf *b, __u64 pos,
				    __u64 bytes)
{
	__u32 idx = trb_sb_index(b, pos);
	__u64 cc = trb_local_add_return(&b->ctl->commit[idx].cc, bytes);

	if (trb_complete(b, pos, cc))
		trb_deliver(b, idx, pos, cc);
}

static inline void trb_packet_begin(const struct trb_buf *b, char *subbuf,
				    __u64 pos, __u64 ts)
{
	struct tr_packet_header *h = (struct tr_packet_header *)subbuf;

	h->magic = TR_PACKET_MAGIC;
	h->stream_id = b->stream_id;
	h->stream_instance_id = b->cpu;
	h->timestamp_begin = ts;
	h->packet_seq_num = (pos - b->start) >> b->subbuf_order;
	h->cpu_id = b->cpu;
	h->layout_version = TR_LAYOUT_VERSION;
}

/*
 * A packet's sizes for content bytes: on disk it is its content rounded
 * up to TR_PACKET_ALIGN, never past the sub-buffer.  Returns that size.
 */
static inline __u64 trb_packet_sizes(const struct trb_buf *b, struct tr_packet_header *h,
				     __u64 content)
{
	__u64 on_disk = (content + TR_PACKET_ALIGN - 1) & ~(__u64)(TR_PACKET_ALIGN - 1);

	if (on_disk > b->subbuf_size)
		on_disk = b->subbuf_size;
	h->content_size = content * 8;
	h->packet_size = on_disk * 8;
	return on_disk;
}

static inline void trb_packet_end(const struct trb_buf *b, char *subbuf,
				  __u64 content, __u64 ts)
{
	struct tr_packet_header *h = (struct tr_packet_header *)subbuf;
	const struct tr_buf_ctl *ctl = b->ctl;

	h->timestamp_end = ts;
	trb_packet_sizes(b, h, content);
	h->lost_full = trb_read(&ctl->lost_full);
	h->lost_wrap = trb_read(&ctl->lost_wrap);
	h->lost_big = trb_read(&ctl->lost_big);
	h->lost_busy = trb_read(&ctl->lost_busy);
	h->events_discarded = h->lost_full + h->lost_wrap + h->lost_big + h->lost_busy;
}

/* Close the sub-buffer that old is in: end fields, then padding commit. */
static inline void trb_switch_old_end(const struct trb_buf *b, __u64 old,
				      __u64 ts)
{
	__u64 content = trb_sb_offset(b, old);
	__u32 phys;

	trb_packet_end(b, trb_writer_subbuf(b, old, &phys), content, ts);
	trb_commit_bytes(b, old, b->subbuf_size - content);
}

/*
 * May a writer that loaded write_count == old enter the sub-buffer that
 * starts at sb?  -EAGAIN: write_count moved meanwhile, retry.
 */
static inline int trb_may_enter(const struct trb_buf *b, __u64 sb, __u64 old)
{
	struct tr_buf_ctl *ctl = b->ctl;
	__u64 cc_sb = trb_read_acquire(&ctl->commit[trb_sb_index(b, sb)].cc_sb);

	if (trb_read_acquire(&ctl->write_count) != old)
		return -EAGAIN;
	if ((cc_sb & b->commit_mask) != trb_lap_commit(b, sb)) {
		trb_local_add(&ctl->lost_wrap, 1);
		return -EIO;
	}
	if (b->mode == TR_MODE_DISCARD &&
	    sb - trb_sb_trunc(b, trb_read_acquire(&ctl->consumed)) >= b->buf_size) {
		trb_local_add(&ctl->lost_full, 1);
		return -ENOBUFS;
	}
	return 0;
}

static inline __u64 trb_record_align(__u64 pos)
{
	return (pos + TR_RECORD_ALIGN - 1) & ~(__u64)(TR_RECORD_ALIGN - 1);
}

/*
 * One pass of the reservation loop for a record of `record` bytes (event
 * header and payload): no side effect but a lost count (I2).  A record
 * starts aligned; the padding goes before it, so a packet's content ends
 * with its last payload byte, as CTF readers expect.
 */
static inline int trb_try_reserve(const struct trb_buf *b, struct trb_slot *s,
				  __u32 record)
{
	int err;

	s->old = trb_read(&b->ctl->write_count);
	s->ts = b->clock();
	s->begin = trb_record_align(s->old);
	s->switches = 0;
	if (trb_sb_offset(b, s->old) == 0) {
		s->switches = TRB_SWITCH_NEW_START;
	} else if (s->begin - trb_sb_trunc(b, s->old) + record > b->subbuf_size) {
		s->switches = TRB_SWITCH_OLD_END | TRB_SWITCH_NEW_START;
		s->begin = trb_sb_next(b, s->old);
	}
	if (s->switches & TRB_SWITCH_NEW_START) {
		err = trb_may_enter(b, s->begin, s->old);
		if (err)
			return err;
		s->begin += sizeof(struct tr_packet_header);
	}
	s->end = s->begin + record;
	/* Bytes this record commits to its sub-buffer: padding and record. */
	s->size = s->end - (s->switches ? s->begin : s->old);
	if (trb_sb_offset(b, s->end) == 0)
		s->switches |= TRB_SWITCH_NEW_END;
	return 0;
}

/*
 * Reserve a record of payload_size bytes and write its event header, with
 * the writing task's ids as bpf_get_current_pid_tgid() gives them (tgid in
 * the upper half, thread id in the lower).  On success the payload goes to
 * trb_payload(s), then trb_commit().  Fails with -ENOSPC (lost_big),
 * -ENOBUFS (lost_full) or -EIO (lost_wrap).
 */
static inline int trb_reserve(const struct trb_buf *b, struct trb_slot *s,
			      __u32 event_id, __u32 payload_size, __u64 pid_tgid)
{
	struct tr_event_header *eh;
	char *subbuf;
	int err;

	if (payload_size > trb_max_payload(b)) {
		trb_local_add(&b->ctl->lost_big, 1);
		return -ENOSPC;
	}
	for (;;) {
		err = trb_try_reserve(b, s, sizeof(*eh) + payload_size);
		if (err == -EAGAIN)
			continue;
		if (err)
			return err;
		if (trb_local_cmpxchg(&b->ctl->write_count, s->old, s->end) == s->old)
			break;
	}
	if (b->mode == TR_MODE_OVERWRITE && (s->switches & TRB_SWITCH_NEW_START))
		trb_push_reader(b, s->begin);
	subbuf = trb_writer_subbuf(b, s->begin, &s->phys);
	if (s->switches & TRB_SWITCH_OLD_END)
		trb_switch_old_end(b, s->old, s->ts);
	if (s->switches & TRB_SWITCH_NEW_START) {
		__u64 sb = trb_sb_trunc(b, s->begin);

		trb_packet_begin(b, subbuf, sb, s->ts);
		trb_commit_bytes(b, sb, sizeof(struct tr_packet_header));
	}
	if (s->switches & TRB_SWITCH_NEW_END)
		trb_packet_end(b, subbuf, b->subbuf_size, s->ts);
	s->record = subbuf + trb_sb_offset(b, s->begin);
	eh = (struct tr_event_header *)s->record;
	eh->timestamp = s->ts;
	eh->id = event_id;
	eh->size = payload_size;
	eh->pid = pid_tgid >> 32;
	eh->tid = (__u32)pid_tgid;
	return 0;
}

static inline void *trb_payload(const struct trb_slot *s)
{
	return s->record + sizeof(struct tr_event_header);
}

/* Declare the record complete (I3); its bytes are published with it. */
static inline void trb_commit(const struct trb_buf *b, const struct trb_slot *s)
{
	trb_local_add(&b->ctl->records[s->phys].committed, 1);
	trb_commit_bytes(b, s->end - 1, s->size);
}

/* Close the current sub-buffer if it holds a record (I8).  Returns 1 if it did. */
static inline int trb_flush(const struct trb_buf *b)
{
	__u64 *write_count = &b->ctl->write_count;
	__u64 old, ts;

	do {
		old = trb_read(write_count);
		if (trb_sb_offset(b, old) == 0)
			return 0;
		ts = b->clock();
	} while (trb_local_cmpxchg(write_count, old, trb_sb_next(b, old)) != old);
	trb_switch_old_end(b, old, ts);
	return 1;
}

/* Records this buffer dropped, all causes (I5); overwritten ones are apart. */
static inline __u64 trb_lost(const struct trb_buf *b)
{
	const struct tr_buf_ctl *ctl = b->ctl;

	return trb_read(&ctl->lost_full) + trb_read(&ctl->lost_wrap) +
	       trb_read(&ctl->lost_big) + trb_read(&ctl->lost_busy);
}

/* --- Reader (one at a time per buffer) ---------------------------------- */

/*
 * Retries of trb_get_subbuf() before it says -EAGAIN.  Each follows a
 * writer's move of consumed or of the table, so a sound buffer needs one
 * or two; one whose table stays inconsistent (another process's, after a
 * stray write into it) must not hold the reader forever.
 */
#define TRB_GET_TRIES	1024

/*
 * Take the next delivered sub-buffer (I4, I6).  Returns 0 with its
 * position and bytes, which stay unchanged until trb_put_subbuf(), or
 * -EAGAIN when none is ready.
 */
static inline int trb_get_subbuf(const struct trb_buf *b, __u64 *pos,
				 const char **packet)
{
	struct tr_buf_ctl *ctl = b->ctl;
	int tries;

	for (tries = 0; tries < TRB_GET_TRIES; tries++) {
		__u64 consumed = trb_read_acquire(&ctl->consumed);
		__u32 idx = trb_sb_index(b, consumed);
		__u64 cc_sb = trb_read_acquire(&ctl->commit[idx].cc_sb);
		__u64 id, spare;

		if (!trb_complete(b, consumed, cc_sb))
			return -EAGAIN;
		id = trb_read_acquire(&ctl->sbid[idx]);
		/* A writer took it for a later lap: it pushed consumed first. */
		if (!(id & TR_SBID_NOREF) ||
		    id >> TR_SBID_LAP_SHIFT != trb_lap_tag(b, consumed))
			continue;
		spare = trb_read(&ctl->reader_sbid);
		if (trb_shared_cmpxchg(&ctl->sbid[idx], id, spare) != id)
			continue;
		trb_write(&ctl->reader_sbid, id);
		*pos = consumed;
		*packet = trb_phys_addr(b, trb_sbid_phys(id));
		return 0;
	}
	return -EAGAIN;
}

/* Is the sub-buffer at consumed delivered, for trb_get_subbuf() to take (I4)? */
static inline int trb_subbuf_ready(const struct trb_buf *b)
{
	__u64 consumed = trb_read_acquire(&b->ctl->consumed);

	return trb_complete(b, consumed,
			    trb_read_acquire(&b->ctl->commit[trb_sb_index(b, consumed)].cc_sb));
}

/*
 * Whether a table entry names one of the buffer's physical sub-buffers:
 * the buffer may be another process's (libtracer-ust's), which a reader
 * trusts with nothing that indexes its own memory.
 */
static inline int trb_phys_ok(const struct trb_buf *b, __u64 id)
{
	return trb_sbid_phys(id) <= (1u << b->nsubbuf_order);
}

/* Give back the sub-buffer taken at pos; it becomes the reader's spare. */
static inline void trb_put_subbuf(const struct trb_buf *b, __u64 pos)
{
	struct tr_buf_ctl *ctl = b->ctl;
	__u64 held = trb_read(&ctl->reader_sbid);

	if (trb_phys_ok(b, held))
		trb_write(&ctl->records[trb_sbid_phys(held)].unread, 0);
	trb_advance_consumed(b, pos + b->subbuf_size);
}

/*
 * Copy the sub-buffer delivered for pos's lap into copy (subbuf_size
 * bytes) without taking it: the snapshot of an overwrite-mode buffer that
 * a reader leaves as it is.  Writers clear NOREF before they write into a
 * sub-buffer (I6), so if its table entry is unchanged after the copy, NOREF
 * still set, no writer wrote into it meanwhile.  Returns 0, or -EAGAIN
 * when that lap is not delivered, or no longer.
 */
static inline int trb_copy_delivered(const struct trb_buf *b, __u64 pos, char *copy)
{
	const struct tr_buf_ctl *ctl = b->ctl;
	__u32 idx = trb_sb_index(b, pos);
	__u64 id = trb_read_acquire(&ctl->sbid[idx]);
	__u64 cc_sb = trb_read_acquire(&ctl->commit[idx].cc_sb);
	const struct tr_packet_header *h =
		(const struct tr_packet_header *)trb_phys_addr(b, trb_sbid_phys(id));
	__u64 size;

	if (!(id & TR_SBID_NOREF) || id >> TR_SBID_LAP_SHIFT != trb_lap_tag(b, pos) ||
	    !trb_complete(b, pos, cc_sb) || !trb_phys_ok(b, id))
		return -EAGAIN;
	size = trb_read(&h->packet_size) / 8;
	__builtin_memcpy(copy, h, size <= b->subbuf_size ? size : b->subbuf_size);
	trb_read_fence();
	return trb_read(&ctl->sbid[idx]) == id ? 0 : -EAGAIN;
}

/*
 * The end of the records of a copied sub-buffer (content bytes) that are
 * committed, given the bytes committed: those before the first record not
 * committed.  A buffer's writers (a CPU's, a thread's) nest, so the
 * records not committed are one a writer stopped in, and any nested in it
 * after: the committed bytes are those before it (a record's padding is
 * committed with it, I3), plus those of nested records committed.  So the
 * first not committed starts at the last record boundary k with
 * 0 <= committed - k <= the bytes of the records after the one at k: at
 * a writer that died in its last record, the boundary where committed
 * ends.
 */
static inline __u64 trb_committed_end(const char *copy, __u64 content, __u64 committed)
{
	__u64 at = sizeof(struct tr_packet_header), end = at, rest = 0, best = at;

	/* The records' end, and the bytes of all but the first. */
	while (at + sizeof(struct tr_event_header) <= content) {
		const struct tr_event_header *e = (const struct tr_event_header *)(copy + at);
		__u64 next = at + sizeof(*e) + e->size;

		if (next > content)
			break;
		end = next;
		at = trb_record_align(next);
	}
	rest = end - sizeof(struct tr_packet_header);
	for (at = sizeof(struct tr_packet_header); at < end;) {
		const struct tr_event_header *e = (const struct tr_event_header *)(copy + at);
		__u64 next = at + sizeof(*e) + e->size, after = trb_record_align(next);

		rest -= (after < end ? after : end) - at;
		if (committed >= at && committed - at <= rest)
			best = at;
		at = after;
	}
	return committed >= end ? end : best;
}

/*
 * The end time of a copy of the open sub-buffer: now, by the copier's
 * clock, or the last record's time if later.  The copier's clock may lag
 * the writer's by a few nanoseconds (libtracer-ust's threads each draw
 * their own line from the TSC), and a record after its packet's end is
 * a damaged packet to readers.
 */
static inline __u64 trb_copy_end_time(const struct trb_buf *b, const char *copy, __u64 content)
{
	__u64 at = sizeof(struct tr_packet_header), end = b->clock();

	while (at + sizeof(struct tr_event_header) <= content) {
		const struct tr_event_header *e = (const struct tr_event_header *)(copy + at);

		if (e->timestamp > end)
			end = e->timestamp;
		at = trb_record_align(at + sizeof(*e) + e->size);
	}
	return end;
}

/*
 * Copy the sub-buffer writers are filling, up to write_count, into copy
 * (subbuf_size bytes) as a packet of its own, without writing a word of
 * the buffer: a reader may not close it (trb_flush() is a writer's, and
 * the writer of a per-thread buffer uses local operations, see
 * ringbuf_atomic.h).  With whole set, the copy is taken only when every
 * byte reserved in it is committed (I3); without, it holds the records
 * before the first one not committed (trb_committed_end()): for a buffer
 * whose writer was stopped in the middle of a record for good (its
 * process died, or is dying of a fatal signal).  It is kept only if no
 * writer entered the same index in a later lap while it was read: the
 * bytes of committed records do not change until then.  Returns the
 * content bytes copied, with the sub-buffer's position in *pos, 0 when no
 * record of the sub-buffer at write_count is there to copy, or -EAGAIN
 * when a record is being written (whole) or the writer moved on.
 */
static inline long trb_copy_open(const struct trb_buf *b, char *copy, __u64 *pos, int whole)
{
	const struct tr_buf_ctl *ctl = b->ctl;
	__u64 w = trb_read_acquire(&ctl->write_count);
	__u64 sb = trb_sb_trunc(b, w), content = trb_sb_offset(b, w);
	__u32 idx = trb_sb_index(b, w);
	__u64 cc = trb_read_acquire(&ctl->commit[idx].cc);
	__u64 id = trb_read_acquire(&ctl->sbid[idx]);
	__u64 committed = (cc - trb_lap_commit(b, sb)) & b->commit_mask;

	if (!content)
		return 0;
	if ((whole && committed != content) || committed > content ||
	    (id & TR_SBID_NOREF) || !trb_phys_ok(b, id))
		return -EAGAIN;
	__builtin_memcpy(copy, trb_phys_addr(b, trb_sbid_phys(id)), content);
	trb_read_fence();
	if (trb_read(&ctl->write_count) - sb >= b->buf_size)
		return -EAGAIN;
	if (!whole)
		content = trb_committed_end(copy, content, committed);
	if (content <= sizeof(struct tr_packet_header))
		return 0;
	trb_packet_end(b, copy, content, trb_copy_end_time(b, copy, content));
	*pos = sb;
	return content;
}

#endif /* TRACER_RINGBUF_H */

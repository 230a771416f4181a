/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The writer side of the ring buffer protocol (include/tracer/ringbuf.h)
 * for BPF programs: the same steps under the same names, trb_bpf_*, over
 * one region per channel and CPU in a BPF_F_MMAPABLE array map.  User
 * space maps the regions, initialises them with trb_init(), and reads and
 * flushes them with ringbuf.h; BPF atomics are SMP-safe, so both sides
 * share the counters.  The invariants I1-I8 are stated once, in ringbuf.h.
 *
 * What differs is what the verifier needs:
 *  - Loops are bounded.  A reservation that keeps losing its
 *    compare-and-swap TRB_BPF_TRIES times is dropped as lost_busy (only
 *    nested programs and user-space flushes compete, so this does not
 *    happen in practice); the other loops cannot fail that often against
 *    a reader that follows the protocol.
 *  - Geometry comes from read-only constants set by the loader, one set
 *    per channel, and every offset is masked or clamped with bounds that
 *    hold for every channel: the map value is shared with user space, so
 *    a physical index read from it is clamped before use, and the map
 *    value ends with TR_BPF_MAX_RECORD spare bytes so that a record of up
 *    to that size at any offset of the last sub-buffer is in bounds
 *    (TR_BPF_REGION_SIZE).
 */
#ifndef TRACER_RINGBUF_BPF_H
#define TRACER_RINGBUF_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <tracer/layout.h>

#define TRB_BPF_TRIES		8

#define TRB_EAGAIN		11
#define TRB_ENOSPC		28
#define TRB_ENOBUFS		105
#define TRB_EIO			5
#define TRB_EBUSY		16

/*
 * Geometry, set by the loader before load: each channel's, and the bounds
 * that hold for all of them (user/buffers/bpfbuf.h computes both).
 */
const volatile __u32 trb_subbuf_order[TR_MAX_CHANNELS] = { 12 };
const volatile __u32 trb_nsubbuf_order[TR_MAX_CHANNELS] = { 1 };
const volatile __u32 trb_mode[TR_MAX_CHANNELS];
const volatile __u32 trb_ncpu = 1;
/* Over all channels: the largest sub-buffer less one, the furthest physical one's offset. */
const volatile __u64 trb_max_offset_mask = 4095;
const volatile __u64 trb_max_phys_offset = 8192;

/*
 * One region per channel and CPU, channel by channel: struct tr_buf_ctl,
 * sub-buffers, slack.  One map has one value size: every region has room
 * for the largest channel's, and each channel uses what its geometry says.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, TR_CTL_SIZE);	/* set by the loader */
	__uint(max_entries, 1);			/* set by the loader: channels x CPUs */
} trb_regions SEC(".maps");

/*
 * Delivery notices.  With trb_notify set, the writer whose commit
 * delivers a sub-buffer puts its CPU number into this BPF ring buffer.
 * The ring buffer wakes its reader through irq_work, which the kernel
 * defers safely from any context, and only when the reader has drained
 * the notices before: so the reader sleeps until a sub-buffer is ready,
 * wakes once per batch of them, and no probe ever wakes anyone itself.
 * A notice that does not fit is dropped: the reader also wakes on its
 * flush period, and the sub-buffer waits for it.
 */
const volatile bool trb_notify;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} trb_delivered SEC(".maps");

struct trb_bpf {
	struct tr_buf_ctl *ctl;
	char *data;
	__u32 subbuf_order;		/* its channel's geometry */
	__u32 nsubbuf_order;
	__u32 mode;
};

struct trb_bpf_slot {
	__u64 old;
	__u64 begin;
	__u64 end;
	__u64 ts;
	__u64 size;
	__u32 switches;
	__u32 phys;
	struct tr_event_header *record;
};

enum {
	TRB_SWITCH_OLD_END = 1,
	TRB_SWITCH_NEW_START = 2,
	TRB_SWITCH_NEW_END = 4,
};

/* --- Positions (ringbuf.h: same names without _bpf) -------------------- */

static __always_inline __u64 trb_bpf_subbuf_size(const struct trb_bpf *b)
{
	return 1ull << b->subbuf_order;
}

static __always_inline __u64 trb_bpf_buf_size(const struct trb_bpf *b)
{
	return 1ull << (b->subbuf_order + b->nsubbuf_order);
}

/*
 * An offset in a sub-buffer.  The second mask changes nothing (no channel
 * has larger sub-buffers) but bounds it for the verifier, which does not
 * know the channel's geometry.
 */
static __always_inline __u64 trb_bpf_sb_offset(const struct trb_bpf *b, __u64 pos)
{
	return pos & (trb_bpf_subbuf_size(b) - 1) & trb_max_offset_mask;
}

static __always_inline __u64 trb_bpf_sb_trunc(const struct trb_bpf *b, __u64 pos)
{
	return pos & ~(trb_bpf_subbuf_size(b) - 1);
}

static __always_inline __u64 trb_bpf_sb_next(const struct trb_bpf *b, __u64 pos)
{
	return trb_bpf_sb_trunc(b, pos) + trb_bpf_subbuf_size(b);
}

/* A writer-visible index, bounded as above. */
static __always_inline __u32 trb_bpf_sb_index(const struct trb_bpf *b, __u64 pos)
{
	return ((pos & (trb_bpf_buf_size(b) - 1)) >> b->subbuf_order) & (TR_MAX_SUBBUFS - 1);
}

static __always_inline __u64 trb_bpf_lap_commit(const struct trb_bpf *b, __u64 pos)
{
	return (pos & ~(trb_bpf_buf_size(b) - 1)) >> b->nsubbuf_order;
}

static __always_inline __u64 trb_bpf_commit_mask(const struct trb_bpf *b)
{
	return ~0ull >> b->nsubbuf_order;
}

static __always_inline __u64 trb_bpf_lap_tag(const struct trb_bpf *b, __u64 pos)
{
	return (pos >> (b->subbuf_order + b->nsubbuf_order)) & TR_SBID_LAP_MASK;
}

/*
 * var = min(var, max), for the verifier, in one register: with an if,
 * clang may go on with a copy it spilled before the comparison, and older
 * verifiers (6.1) do not know that copy is bounded.
 */
#define trb_bpf_clamp(var, max) \
	asm volatile("if %0 <= %1 goto +1; %0 = %1" : "+r"(var) : "r"((__u64)(max)))

/*
 * A physical index from the shared table, clamped to the region (and, for
 * the verifier, which does not know the channel's geometry, to any region).
 */
static __always_inline __u32 trb_bpf_sbid_phys(const struct trb_bpf *b, __u64 sbid)
{
	__u64 phys = sbid & TR_SBID_INDEX_MASK;
	__u64 last = 1u << b->nsubbuf_order;

	trb_bpf_clamp(phys, last);
	trb_bpf_clamp(phys, TR_MAX_SUBBUFS);
	return phys;
}

static __always_inline char *trb_bpf_phys_addr(const struct trb_bpf *b, __u32 phys)
{
	__u64 offset = (__u64)phys << b->subbuf_order;

	/* As in trb_bpf_sb_offset(): no channel goes further. */
	trb_bpf_clamp(offset, trb_max_phys_offset);
	return b->data + offset;
}

static __always_inline __u64 trb_bpf_record_align(__u64 pos)
{
	return (pos + TR_RECORD_ALIGN - 1) & ~(__u64)(TR_RECORD_ALIGN - 1);
}

/* --- Writer -------------------------------------------------------------- */

/* This CPU's buffer of a channel, or 0 if the region was never initialised. */
static __always_inline int trb_bpf_this_cpu(struct trb_bpf *b, __u32 channel)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 index = (channel & (TR_MAX_CHANNELS - 1)) * trb_ncpu + cpu;
	char *region = bpf_map_lookup_elem(&trb_regions, &index);

	if (!region)
		return 0;
	b->ctl = (struct tr_buf_ctl *)region;
	b->data = region + TR_CTL_SIZE;
	b->subbuf_order = trb_subbuf_order[channel & (TR_MAX_CHANNELS - 1)];
	b->nsubbuf_order = trb_nsubbuf_order[channel & (TR_MAX_CHANNELS - 1)];
	b->mode = trb_mode[channel & (TR_MAX_CHANNELS - 1)];
	return b->ctl->magic == TR_CTL_MAGIC;
}

static __always_inline char *trb_bpf_writer_subbuf(const struct trb_bpf *b,
						   __u64 pos, __u32 *phys)
{
	__u64 *entry = &b->ctl->sbid[trb_bpf_sb_index(b, pos)];
	__u64 id = *(volatile __u64 *)entry;
	int i;

	for (i = 0; i < TRB_BPF_TRIES && (id & TR_SBID_NOREF); i++) {
		__u64 seen = __sync_val_compare_and_swap(entry, id, id & ~TR_SBID_NOREF);

		id = seen == id ? id & ~TR_SBID_NOREF : seen;
	}
	*phys = trb_bpf_sbid_phys(b, id);
	return trb_bpf_phys_addr(b, *phys);
}

static __always_inline void trb_bpf_advance_consumed(const struct trb_bpf *b,
						     __u64 target)
{
	__u64 *consumed = &b->ctl->consumed;
	__u64 cur = *(volatile __u64 *)consumed;
	int i;

	for (i = 0; i < TRB_BPF_TRIES && (__s64)(cur - target) < 0; i++) {
		__u64 seen = __sync_val_compare_and_swap(consumed, cur, target);

		if (seen == cur)
			return;
		cur = seen;
	}
}

static __always_inline void trb_bpf_push_reader(const struct trb_bpf *b, __u64 pos)
{
	trb_bpf_advance_consumed(b, trb_bpf_sb_trunc(b, pos) - trb_bpf_buf_size(b) +
				 trb_bpf_subbuf_size(b));
}

static __always_inline void trb_bpf_deliver(const struct trb_bpf *b, __u32 idx,
					    __u64 pos, __u64 cc)
{
	struct tr_buf_ctl *ctl = b->ctl;
	__u32 phys = trb_bpf_sbid_phys(b, ctl->sbid[idx]);
	struct tr_record_counters *rc = &ctl->records[phys];

	__sync_fetch_and_add(&ctl->records_overrun, rc->unread);
	rc->unread = rc->committed;
	rc->committed = 0;
	ctl->sbid[idx] = phys | TR_SBID_NOREF | trb_bpf_lap_tag(b, pos) << TR_SBID_LAP_SHIFT;
	/* An exchange is a full barrier: it publishes all of the above. */
	__sync_lock_test_and_set(&ctl->commit[idx].cc_sb, cc);
	if (trb_notify)
		bpf_ringbuf_output(&trb_delivered, &ctl->cpu, sizeof(ctl->cpu), 0);
}

static __always_inline void trb_bpf_commit_bytes(const struct trb_bpf *b,
						 __u64 pos, __u64 bytes)
{
	__u32 idx = trb_bpf_sb_index(b, pos);
	__u64 cc = __sync_fetch_and_add(&b->ctl->commit[idx].cc, bytes) + bytes;

	if (((cc - trb_bpf_subbuf_size(b)) & trb_bpf_commit_mask(b)) ==
	    trb_bpf_lap_commit(b, pos))
		trb_bpf_deliver(b, idx, pos, cc);
}

static __always_inline void trb_bpf_packet_begin(const struct trb_bpf *b,
						 char *subbuf, __u64 pos, __u64 ts)
{
	struct tr_packet_header *h = (struct tr_packet_header *)subbuf;
	const struct tr_buf_ctl *ctl = b->ctl;

	h->magic = TR_PACKET_MAGIC;
	h->stream_id = ctl->stream_id;
	h->stream_instance_id = ctl->cpu;
	h->timestamp_begin = ts;
	h->packet_seq_num = (pos - ctl->start) >> b->subbuf_order;
	h->cpu_id = ctl->cpu;
	h->layout_version = TR_LAYOUT_VERSION;
}

static __always_inline void trb_bpf_packet_end(const struct trb_bpf *b,
					       char *subbuf, __u64 content, __u64 ts)
{
	struct tr_packet_header *h = (struct tr_packet_header *)subbuf;
	const struct tr_buf_ctl *ctl = b->ctl;
	__u64 on_disk = (content + TR_PACKET_ALIGN - 1) & ~(__u64)(TR_PACKET_ALIGN - 1);
	__u64 sb = trb_bpf_subbuf_size(b);

	h->timestamp_end = ts;
	h->content_size = content * 8;
	h->packet_size = (on_disk < sb ? on_disk : sb) * 8;
	h->lost_full = ctl->lost_full;
	h->lost_wrap = ctl->lost_wrap;
	h->lost_big = ctl->lost_big;
	h->lost_busy = ctl->lost_busy;
	h->events_discarded = h->lost_full + h->lost_wrap + h->lost_big + h->lost_busy;
}

static __always_inline void trb_bpf_switch_old_end(const struct trb_bpf *b,
						   __u64 old, __u64 ts)
{
	__u64 content = trb_bpf_sb_offset(b, old);
	__u32 phys;

	trb_bpf_packet_end(b, trb_bpf_writer_subbuf(b, old, &phys), content, ts);
	trb_bpf_commit_bytes(b, old, trb_bpf_subbuf_size(b) - content);
}

static __always_inline int trb_bpf_may_enter(const struct trb_bpf *b, __u64 sb,
					     __u64 old)
{
	struct tr_buf_ctl *ctl = b->ctl;
	__u64 cc_sb = *(volatile __u64 *)&ctl->commit[trb_bpf_sb_index(b, sb)].cc_sb;

	if (*(volatile __u64 *)&ctl->write_count != old)
		return -TRB_EAGAIN;
	if ((cc_sb & trb_bpf_commit_mask(b)) != trb_bpf_lap_commit(b, sb)) {
		__sync_fetch_and_add(&ctl->lost_wrap, 1);
		return -TRB_EIO;
	}
	if (b->mode == TR_MODE_DISCARD &&
	    sb - trb_bpf_sb_trunc(b, *(volatile __u64 *)&ctl->consumed) >= trb_bpf_buf_size(b)) {
		__sync_fetch_and_add(&ctl->lost_full, 1);
		return -TRB_ENOBUFS;
	}
	return 0;
}

static __always_inline int trb_bpf_try_reserve(const struct trb_bpf *b,
					       struct trb_bpf_slot *s, __u32 record)
{
	int err;

	s->old = *(volatile __u64 *)&b->ctl->write_count;
	s->ts = bpf_ktime_get_ns();
	s->begin = trb_bpf_record_align(s->old);
	s->switches = 0;
	if (trb_bpf_sb_offset(b, s->old) == 0) {
		s->switches = TRB_SWITCH_NEW_START;
	} else if (s->begin - trb_bpf_sb_trunc(b, s->old) + record > trb_bpf_subbuf_size(b)) {
		s->switches = TRB_SWITCH_OLD_END | TRB_SWITCH_NEW_START;
		s->begin = trb_bpf_sb_next(b, s->old);
	}
	if (s->switches & TRB_SWITCH_NEW_START) {
		err = trb_bpf_may_enter(b, s->begin, s->old);
		if (err)
			return err;
		s->begin += sizeof(struct tr_packet_header);
	}
	s->end = s->begin + record;
	s->size = s->end - (s->switches ? s->begin : s->old);
	if (trb_bpf_sb_offset(b, s->end) == 0)
		s->switches |= TRB_SWITCH_NEW_END;
	return 0;
}

/*
 * Reserve a record of payload_size bytes (at most TR_BPF_MAX_RECORD with
 * its header) and write its event header, naming the current task; the
 * payload goes after s->record, then trb_bpf_commit().
 */
static __always_inline int trb_bpf_reserve(const struct trb_bpf *b,
					   struct trb_bpf_slot *s,
					   __u32 event_id, __u32 payload_size)
{
	__u32 record = sizeof(struct tr_event_header) + payload_size;
	__u64 pid_tgid;
	char *subbuf;
	int i, err;

	if (record > TR_BPF_MAX_RECORD ||
	    record > trb_bpf_subbuf_size(b) - sizeof(struct tr_packet_header)) {
		__sync_fetch_and_add(&b->ctl->lost_big, 1);
		return -TRB_ENOSPC;
	}
	for (i = 0; i < TRB_BPF_TRIES; i++) {
		err = trb_bpf_try_reserve(b, s, record);
		if (err == -TRB_EAGAIN)
			continue;
		if (err)
			return err;
		if (__sync_val_compare_and_swap(&b->ctl->write_count, s->old, s->end) == s->old)
			break;
	}
	if (i == TRB_BPF_TRIES) {
		__sync_fetch_and_add(&b->ctl->lost_busy, 1);
		return -TRB_EBUSY;
	}
	if (b->mode == TR_MODE_OVERWRITE && (s->switches & TRB_SWITCH_NEW_START))
		trb_bpf_push_reader(b, s->begin);
	subbuf = trb_bpf_writer_subbuf(b, s->begin, &s->phys);
	if (s->switches & TRB_SWITCH_OLD_END)
		trb_bpf_switch_old_end(b, s->old, s->ts);
	if (s->switches & TRB_SWITCH_NEW_START) {
		__u64 sb = trb_bpf_sb_trunc(b, s->begin);

		trb_bpf_packet_begin(b, subbuf, sb, s->ts);
		trb_bpf_commit_bytes(b, sb, sizeof(struct tr_packet_header));
	}
	if (s->switches & TRB_SWITCH_NEW_END)
		trb_bpf_packet_end(b, subbuf, trb_bpf_subbuf_size(b), s->ts);
	s->record = (struct tr_event_header *)(subbuf + trb_bpf_sb_offset(b, s->begin));
	s->record->timestamp = s->ts;
	s->record->id = event_id;
	s->record->size = payload_size;
	pid_tgid = bpf_get_current_pid_tgid();
	s->record->pid = pid_tgid >> 32;
	s->record->tid = (__u32)pid_tgid;
	return 0;
}

static __always_inline void trb_bpf_commit(const struct trb_bpf *b,
					   const struct trb_bpf_slot *s)
{
	__sync_fetch_and_add(&b->ctl->records[s->phys].committed, 1);
	/* A fetching atomic is a full barrier: it publishes the record. */
	trb_bpf_commit_bytes(b, s->end - 1, s->size);
}

#endif /* TRACER_RINGBUF_BPF_H */

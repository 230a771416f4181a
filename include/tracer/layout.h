/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one on-memory and on-disk layout of tracer's buffers.
 *
 * Included by the BPF writer (bpf/), the kernel module (kmod/) and the
 * user-space library (user/), so every writer and every reader agree on
 * the bytes.  The protocol that moves these bytes is in ringbuf.h.
 *
 * A buffer (one per channel and CPU) is one contiguous region:
 *
 *	+------------------------+  offset 0
 *	| struct tr_buf_ctl      |  counters, sub-buffer table (TR_CTL_SIZE)
 *	+------------------------+  offset TR_CTL_SIZE
 *	| physical sub-buffer 0  |  subbuf_size bytes each
 *	| ...                    |
 *	| physical sub-buffer N  |  N = nsubbuf: one more than the writer sees,
 *	+------------------------+  the spare owned by the reader
 *
 * A sub-buffer is a CTF 1.8 packet as it stands: struct tr_packet_header
 * (CTF packet.header followed by packet.context), then records, each a
 * struct tr_event_header (CTF event.header) and its payload, starting
 * 8-byte aligned; the content ends with the last payload byte.  The consumer writes the first packet_size/8 bytes of a
 * sub-buffer to disk unchanged.  All integers are little-endian.
 */
#ifndef TRACER_LAYOUT_H
#define TRACER_LAYOUT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define TR_LAYOUT_VERSION	2

/* CTF 1.8 packet magic: the first word of every sub-buffer. */
#define TR_PACKET_MAGIC		0xC1FC1FC1u
/* First word of struct tr_buf_ctl: "TRBC" read as little-endian. */
#define TR_CTL_MAGIC		0x43425254u

/* Records start on this alignment; it is the largest payload alignment. */
#define TR_RECORD_ALIGN		8
/* On disk a packet is its content rounded up to this, never past the sub-buffer. */
#define TR_PACKET_ALIGN		4096

/* Geometry limits: both counts are powers of two. */
#define TR_MIN_SUBBUF_SIZE	4096
#define TR_MAX_SUBBUF_SIZE	(1u << 30)
#define TR_MIN_SUBBUFS		2
#define TR_MAX_SUBBUFS		64

/*
 * Channels: groups of events, each with its own buffers (a buffer per
 * CPU, a geometry and a mode) and its CTF stream class, stream_id.
 */
#define TR_MAX_CHANNELS		8

/* Control block size, and so the offset of physical sub-buffer 0. */
#define TR_CTL_SIZE		4096
#define TR_CACHELINE		64

enum tr_buf_mode {
	TR_MODE_DISCARD = 0,	/* full: drop new events and count them */
	TR_MODE_OVERWRITE = 1,	/* full: overwrite the oldest sub-buffer */
};

/*
 * CTF packet.header + packet.context.  Written by the writer that enters
 * the sub-buffer (begin fields) and by the one that leaves it (end fields),
 * each before the commit-count increment that could deliver the packet.
 */
struct tr_packet_header {
	__u32 magic;			/* TR_PACKET_MAGIC */
	__u32 stream_id;		/* channel: CTF stream class id */
	__u64 stream_instance_id;	/* CPU the buffer belongs to */
	__u64 timestamp_begin;		/* ns, the entering reservation's clock */
	__u64 timestamp_end;		/* ns, the leaving reservation's clock */
	__u64 content_size;		/* bits: header + records */
	__u64 packet_size;		/* bits: content rounded to TR_PACKET_ALIGN */
	__u64 packet_seq_num;		/* sub-buffers produced before this one */
	__u64 events_discarded;		/* sum of the lost_* below */
	__u64 lost_full;		/* cumulative, per cause: discard mode, full */
	__u64 lost_wrap;		/* next sub-buffer not yet fully committed */
	__u64 lost_big;			/* record larger than a sub-buffer */
	__u64 lost_busy;		/* BPF or kernel writer: retry or nesting limit */
	__u32 cpu_id;
	__u32 layout_version;		/* TR_LAYOUT_VERSION */
};

/*
 * CTF event.header and stream event context.  The record starts 8-aligned;
 * size lets a reader skip it.  pid and tid name the task that was running
 * when the record was written (perf's sample pid/tid; 0 for a CPU's idle
 * task and for records no task wrote), in the kernel's initial pid namespace.
 */
struct tr_event_header {
	__u64 timestamp;		/* ns, read inside the reservation loop */
	__u32 id;			/* event id, declared in the trace metadata */
	__u32 size;			/* payload bytes after this header */
	__u32 pid;			/* process: thread group id */
	__u32 tid;			/* thread */
};

/*
 * Entry of the sub-buffer table: which physical sub-buffer sits at a
 * writer-visible index, whether a writer may be writing into it, and the
 * buffer lap it was last delivered in.  One word, swapped atomically.
 */
#define TR_SBID_INDEX_MASK	0xffffffffull
#define TR_SBID_NOREF		(1ull << 32)
#define TR_SBID_LAP_SHIFT	33
#define TR_SBID_LAP_MASK	(~0ull >> TR_SBID_LAP_SHIFT)

/* Commit counters of one writer-visible sub-buffer. */
struct tr_commit_counters {
	__u64 cc;		/* bytes committed, free-running */
	__u64 cc_sb;		/* cc as of the last delivery, free-running */
};

/* Record counts of one physical sub-buffer, for overwrite accounting. */
struct tr_record_counters {
	__u64 committed;	/* records committed since its last delivery */
	__u64 unread;		/* records of its last delivery not yet read */
};

/*
 * Shared control block at the start of each per-CPU buffer.  Fields the
 * writer updates on every event, fields the reader updates, and the
 * geometry that nobody updates live on separate cache lines.
 */
struct tr_buf_ctl {
	/* Identity and geometry: written at init, read-only afterwards. */
	__u32 magic;			/* TR_CTL_MAGIC */
	__u32 layout_version;		/* TR_LAYOUT_VERSION */
	__u32 subbuf_order;		/* log2(subbuf_size) */
	__u32 nsubbuf_order;		/* log2(writer-visible sub-buffers) */
	__u32 mode;			/* enum tr_buf_mode */
	__u32 stream_id;
	__u32 cpu;
	__u32 pad0;
	__u64 start;			/* position of packet_seq_num 0 */
	__u8 pad1[TR_CACHELINE - 40];

	/* Writer side. */
	__u64 write_count;		/* bytes reserved, free-running */
	__u64 lost_full;
	__u64 lost_wrap;
	__u64 lost_big;
	__u64 lost_busy;
	__u64 records_overrun;		/* overwritten before they were read */
	__u8 pad2[TR_CACHELINE - 48];

	/* Reader side. */
	__u64 consumed;			/* bytes consumed, free-running */
	__u64 reader_sbid;		/* the reader's spare or held sub-buffer */
	/*
	 * Who consumes a buffer another process made (libtracer-ust's): 0,
	 * or the one recorder that took it (user/record/ust_buffers.c).  Two
	 * consumers' gets and puts would take sub-buffers from each other.
	 */
	__u64 reader_claim;
	__u8 pad3[TR_CACHELINE - 24];

	__u64 sbid[TR_MAX_SUBBUFS];
	struct tr_commit_counters commit[TR_MAX_SUBBUFS];
	struct tr_record_counters records[TR_MAX_SUBBUFS + 1];
};

/* Region bytes for one per-CPU buffer of this geometry. */
#define TR_BUF_REGION_SIZE(subbuf_size, nsubbuf) \
	(TR_CTL_SIZE + ((nsubbuf) + 1) * (__u64)(subbuf_size))

/*
 * BPF writers (bpf/ringbuf.bpf.h) write records of at most this size
 * (header and payload), and their map values end with that many spare
 * bytes so the verifier can prove any record at any offset in bounds.
 */
#define TR_BPF_MAX_RECORD	8192
#define TR_BPF_REGION_SIZE(subbuf_size, nsubbuf) \
	(TR_BUF_REGION_SIZE(subbuf_size, nsubbuf) + TR_BPF_MAX_RECORD)

/*
 * The layout is fixed: these hold for every compiler that includes this
 * header (BPF, kernel, user), so a change to it fails every build.
 */
_Static_assert(sizeof(struct tr_packet_header) == 104, "packet header layout");
_Static_assert(sizeof(struct tr_event_header) == 24, "event header layout");
_Static_assert(sizeof(struct tr_event_header) % TR_RECORD_ALIGN == 0,
	       "payloads start aligned");
_Static_assert(sizeof(struct tr_packet_header) % TR_RECORD_ALIGN == 0,
	       "records after the packet header stay aligned");
_Static_assert(__builtin_offsetof(struct tr_buf_ctl, write_count) == TR_CACHELINE,
	       "writer counters on their own cache line");
_Static_assert(__builtin_offsetof(struct tr_buf_ctl, consumed) == 2 * TR_CACHELINE,
	       "reader counters on their own cache line");
_Static_assert(sizeof(struct tr_buf_ctl) <= TR_CTL_SIZE, "control block fits");

#endif /* TRACER_LAYOUT_H */

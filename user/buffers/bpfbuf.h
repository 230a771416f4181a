/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Buffers in a BPF map: the regions, one per channel and CPU, that BPF
 * programs fill with bpf/ringbuf.bpf.h, mapped into this process and read
 * with ringbuf.h.
 */
#ifndef TRACER_BPFBUF_H
#define TRACER_BPFBUF_H

#include <stddef.h>
#include <bpf/libbpf.h>
#include <tracer/ringbuf.h>

struct tr_bpfbuf {
	void *base;
	size_t map_bytes;
	size_t region_bytes;
	unsigned int ncpu;
	struct trb_buf *buf;		/* a handle per channel and CPU: [channel * ncpu + cpu] */
	struct ring_buffer *notices;	/* delivery notices, once watched */
};

/* What every channel's regions fit in: the writers' bounds (ringbuf.bpf.h). */
struct tr_bpfbuf_bounds {
	__u64 max_offset_mask;		/* the largest sub-buffer, less one */
	__u64 max_phys_offset;		/* the furthest physical sub-buffer's offset */
	__u64 region_size;		/* bytes of one region, slack included */
};

void tr_bpfbuf_bounds(const struct trb_config *cfgs, unsigned int nchannels,
		      struct tr_bpfbuf_bounds *bounds);

/*
 * The BPF side's geometry constants live in each program's .rodata
 * (ringbuf.bpf.h); set them before load from the same configurations,
 * cfgs[channel] for each of nchannels channels.
 */
#define TR_BPFBUF_SET_GEOMETRY(rodata, cfgs, nchannels, ncpu) \
	do { \
		struct tr_bpfbuf_bounds bounds_; \
		unsigned int c_; \
		tr_bpfbuf_bounds((cfgs), (nchannels), &bounds_); \
		for (c_ = 0; c_ < (nchannels); c_++) { \
			(rodata)->trb_subbuf_order[c_] = trb_log2((cfgs)[c_].subbuf_size); \
			(rodata)->trb_nsubbuf_order[c_] = trb_log2((cfgs)[c_].nsubbuf); \
			(rodata)->trb_mode[c_] = (cfgs)[c_].mode; \
		} \
		(rodata)->trb_ncpu = (ncpu); \
		(rodata)->trb_max_offset_mask = bounds_.max_offset_mask; \
		(rodata)->trb_max_phys_offset = bounds_.max_phys_offset; \
	} while (0)

/*
 * The verifier refuses map value offsets of 512 MiB and more
 * (BPF_MAX_VAR_OFF), so no region may be larger.
 */
#define TR_BPF_MAX_REGION_SIZE	(1ull << 29)

/* Before load: size the region map for these channels, a region per channel and CPU. */
int tr_bpfbuf_size_map(struct bpf_map *map, const struct trb_config *cfgs,
		       unsigned int nchannels, unsigned int ncpu);

/*
 * After load: map the regions and initialise each for its channel
 * (cfgs[channel].stream_id) and CPU, before any program that writes them
 * is attached.  0 or -errno.
 */
int tr_bpfbuf_open(struct tr_bpfbuf *bb, const struct bpf_map *map,
		   const struct trb_config *cfgs, unsigned int nchannels,
		   unsigned int ncpu, __u64 (*clock)(void));
void tr_bpfbuf_close(struct tr_bpfbuf *bb);

/*
 * The writers' delivery notices (ringbuf.bpf.h: trb_notify, trb_delivered):
 * returns a descriptor that polls readable when a sub-buffer was
 * delivered, or -errno.  Drain the notices after each wake-up: the next
 * notice wakes the reader only once it has drained the ones before.
 */
int tr_bpfbuf_watch_deliveries(struct tr_bpfbuf *bb, const struct bpf_map *notices);
void tr_bpfbuf_drain_notices(struct tr_bpfbuf *bb);

#endif /* TRACER_BPFBUF_H */

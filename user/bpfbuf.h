/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Buffers in a BPF map: the per-CPU regions that BPF programs fill with
 * bpf/ringbuf.bpf.h, mapped into this process and read with ringbuf.h.
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
	struct trb_buf *cpu;		/* one handle per CPU */
	struct ring_buffer *notices;	/* delivery notices, once watched */
};

/*
 * The BPF side's geometry constants live in each program's .rodata
 * (ringbuf.bpf.h); set them before load from the same configuration.
 */
#define TR_BPFBUF_SET_GEOMETRY(rodata, cfg) \
	do { \
		(rodata)->trb_subbuf_order = trb_log2((cfg)->subbuf_size); \
		(rodata)->trb_nsubbuf_order = trb_log2((cfg)->nsubbuf); \
		(rodata)->trb_mode = (cfg)->mode; \
	} while (0)

/*
 * The verifier refuses map value offsets of 512 MiB and more
 * (BPF_MAX_VAR_OFF), so no region may be larger.
 */
#define TR_BPF_MAX_REGION_SIZE	(1ull << 29)

/* Before load: size the region map for this geometry, one region per CPU. */
int tr_bpfbuf_size_map(struct bpf_map *map, const struct trb_config *cfg,
		       unsigned int ncpu);

/*
 * After load: map the regions and initialise each for its CPU, before
 * any program that writes them is attached.  0 or -errno.
 */
int tr_bpfbuf_open(struct tr_bpfbuf *bb, const struct bpf_map *map,
		   const struct trb_config *cfg, unsigned int ncpu,
		   __u64 (*clock)(void));
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

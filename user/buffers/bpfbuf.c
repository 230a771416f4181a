// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/libbpf.h>

#include "buffers/bpfbuf.h"

void tr_bpfbuf_bounds(const struct trb_config *cfgs, unsigned int nchannels,
		      struct tr_bpfbuf_bounds *bounds)
{
	unsigned int c;

	*bounds = (struct tr_bpfbuf_bounds) { 0 };
	for (c = 0; c < nchannels; c++) {
		__u64 phys = cfgs[c].nsubbuf * cfgs[c].subbuf_size;

		if (cfgs[c].subbuf_size - 1 > bounds->max_offset_mask)
			bounds->max_offset_mask = cfgs[c].subbuf_size - 1;
		if (phys > bounds->max_phys_offset)
			bounds->max_phys_offset = phys;
	}
	/*
	 * The writer bounds a record's offset by the furthest sub-buffer plus
	 * the largest one, not by its own channel's region.
	 */
	bounds->region_size = TR_CTL_SIZE + bounds->max_phys_offset +
			      bounds->max_offset_mask + 1 + TR_BPF_MAX_RECORD;
}

int tr_bpfbuf_size_map(struct bpf_map *map, const struct trb_config *cfgs,
		       unsigned int nchannels, unsigned int ncpu)
{
	struct tr_bpfbuf_bounds bounds;
	unsigned int c;

	for (c = 0; c < nchannels; c++)
		if (trb_geometry_problem(cfgs[c].subbuf_size, cfgs[c].nsubbuf))
			return -EINVAL;
	tr_bpfbuf_bounds(cfgs, nchannels, &bounds);
	if (!nchannels || nchannels > TR_MAX_CHANNELS ||
	    bounds.region_size > TR_BPF_MAX_REGION_SIZE ||
	    bpf_map__set_value_size(map, bounds.region_size))
		return -EINVAL;
	return bpf_map__set_max_entries(map, nchannels * ncpu);
}

int tr_bpfbuf_open(struct tr_bpfbuf *bb, const struct bpf_map *map,
		   const struct trb_config *cfgs, unsigned int nchannels,
		   unsigned int ncpu, __u64 (*clock)(void))
{
	unsigned int i, n = nchannels * ncpu;
	int err;

	/* Array map values are laid out back to back, 8-byte aligned. */
	bb->region_bytes = bpf_map__value_size(map);
	bb->map_bytes = bb->region_bytes * n;
	bb->ncpu = ncpu;
	bb->notices = NULL;
	bb->buf = calloc(n, sizeof(*bb->buf));
	if (!bb->buf)
		return -ENOMEM;
	bb->base = mmap(NULL, bb->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
			bpf_map__fd(map), 0);
	if (bb->base == MAP_FAILED) {
		err = -errno;
		free(bb->buf);
		bb->buf = NULL;
		return err;
	}
	for (i = 0; i < n; i++) {
		char *region = (char *)bb->base + (size_t)i * bb->region_bytes;
		struct trb_config cfg = cfgs[i / ncpu];

		memset(region, 0, bb->region_bytes);
		cfg.cpu = i % ncpu;
		err = trb_init(&bb->buf[i], region, &cfg, clock);
		if (err) {
			tr_bpfbuf_close(bb);
			return err;
		}
	}
	return 0;
}

void tr_bpfbuf_close(struct tr_bpfbuf *bb)
{
	ring_buffer__free(bb->notices);
	bb->notices = NULL;
	munmap(bb->base, bb->map_bytes);
	free(bb->buf);
	bb->buf = NULL;
}

/* What a notice says (which CPU) is not needed: the reader tries them all. */
static int ignore_notice(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

int tr_bpfbuf_watch_deliveries(struct tr_bpfbuf *bb, const struct bpf_map *notices)
{
	bb->notices = ring_buffer__new(bpf_map__fd(notices), ignore_notice, NULL, NULL);
	if (!bb->notices)
		return -errno;
	return ring_buffer__epoll_fd(bb->notices);
}

void tr_bpfbuf_drain_notices(struct tr_bpfbuf *bb)
{
	ring_buffer__consume(bb->notices);
}

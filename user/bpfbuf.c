// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/libbpf.h>

#include "bpfbuf.h"

int tr_bpfbuf_size_map(struct bpf_map *map, const struct trb_config *cfg,
		       unsigned int ncpu)
{
	if (trb_geometry_problem(cfg->subbuf_size, cfg->nsubbuf))
		return -EINVAL;
	if (bpf_map__set_value_size(map, TR_BPF_REGION_SIZE(cfg->subbuf_size,
							    cfg->nsubbuf)))
		return -EINVAL;
	return bpf_map__set_max_entries(map, ncpu);
}

int tr_bpfbuf_open(struct tr_bpfbuf *bb, const struct bpf_map *map,
		   const struct trb_config *cfg, unsigned int ncpu,
		   __u64 (*clock)(void))
{
	struct trb_config percpu = *cfg;
	unsigned int i;
	int err;

	/* Array map values are laid out back to back, 8-byte aligned. */
	bb->region_bytes = bpf_map__value_size(map);
	bb->map_bytes = bb->region_bytes * ncpu;
	bb->ncpu = ncpu;
	bb->notices = NULL;
	bb->cpu = calloc(ncpu, sizeof(*bb->cpu));
	if (!bb->cpu)
		return -ENOMEM;
	bb->base = mmap(NULL, bb->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
			bpf_map__fd(map), 0);
	if (bb->base == MAP_FAILED) {
		err = -errno;
		free(bb->cpu);
		return err;
	}
	for (i = 0; i < ncpu; i++) {
		char *region = (char *)bb->base + (size_t)i * bb->region_bytes;

		memset(region, 0, bb->region_bytes);
		percpu.cpu = i;
		err = trb_init(&bb->cpu[i], region, &percpu, clock);
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
	free(bb->cpu);
	bb->cpu = NULL;
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

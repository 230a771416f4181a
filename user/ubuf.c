// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <sys/mman.h>
#include <time.h>

#include "ubuf.h"

__u64 tr_clock_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

int tr_ubuf_create(struct tr_ubuf *u, const struct trb_config *cfg,
		   __u64 (*clock)(void))
{
	int err;

	if (trb_geometry_problem(cfg->subbuf_size, cfg->nsubbuf))
		return -EINVAL;
	u->region_size = TR_BUF_REGION_SIZE(cfg->subbuf_size, cfg->nsubbuf);
	/* Anonymous memory is zeroed and, with MAP_POPULATE, never faults in a writer. */
	u->region = mmap(NULL, u->region_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (u->region == MAP_FAILED)
		return -ENOMEM;
	err = trb_init(&u->rb, u->region, cfg, clock);
	if (err)
		tr_ubuf_destroy(u);
	return err;
}

void tr_ubuf_destroy(struct tr_ubuf *u)
{
	munmap(u->region, u->region_size);
	u->region = NULL;
}

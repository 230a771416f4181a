// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <sched.h>
#include <sys/mman.h>
#include <time.h>

#include "layout/ubuf.h"

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

long tr_ubuf_copy_open(const struct trb_buf *b, char *copy, __u64 *pos)
{
	long content = -EAGAIN;
	int tries = TR_UBUF_OPEN_TRIES;

	while (content == -EAGAIN && tries-- > 0) {
		content = trb_copy_open(b, copy, pos, 1);
		if (content == -EAGAIN)
			sched_yield();
	}
	return content == -EAGAIN ? trb_copy_open(b, copy, pos, 0) : content;
}

int tr_ubuf_snapshot(const struct trb_buf *b, char *copy,
		     int (*packet)(void *data, __u64 pos, long content), void *data)
{
	__u64 open = trb_sb_trunc(b, trb_read(&b->ctl->write_count)), pos;
	long content;
	int err = 0;

	for (pos = open - b->buf_size; pos != open && !err; pos += b->subbuf_size)
		if ((__s64)(pos - b->start) >= 0 && !trb_copy_delivered(b, pos, copy))
			err = packet(data, pos, 0);
	content = err ? 0 : tr_ubuf_copy_open(b, copy, &pos);
	return content > 0 ? packet(data, pos, content) : err;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Peer: BPF ringbuf (bench_peers' bp_ringbuf, NO_WAKEUP), drained every
 * 1 ms to a file by libbpf's ring_buffer in the consumer thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "bench_peers.skel.h"
#include "peers.h"

static struct ring_buffer *peer_rb;
static __u64 lost_before;		/* bp_rb_lost at the run's start */

int ringbuf_setup(struct config *c)
{
	int err = peers_setup();

	if (!err) {
		peer_rb = ring_buffer__new(bpf_map__fd(peers->maps.bp_rb), rb_sample, NULL, NULL);
		err = peer_rb ? 0 : -errno;
	}
	consumer_alloc();
	if (err)
		snprintf(c->why, sizeof(c->why), "BPF ringbuf: %s", strerror(-err));
	return err;
}

/* The consumer thread's step: every record ready, to rb_sample(). */
static int rb_consume(void)
{
	return ring_buffer__consume(peer_rb);
}

int ringbuf_start(void)
{
	lost_before = peers->bss->bp_rb_lost;
	return consumer_attach(rb_consume, "ringbuf.out", peers->progs.bp_ringbuf);
}

void ringbuf_stop(struct run_result *r)
{
	stop_link(r);
	consumer_stop(r);
	r->lost = peers->bss->bp_rb_lost - lost_before;
	r->lost_known = true;
}

void ringbuf_teardown(void)
{
	ring_buffer__free(peer_rb);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Peer: the perf buffer (bench_peers' bp_perfbuf, 4 MiB per CPU, woken
 * at half of it), drained every 1 ms to a file by libbpf's perf_buffer in
 * the consumer thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>

#include "bench_peers.skel.h"
#include "peers.h"

#define PEER_PB_PAGES	1024		/* perf buffer: 4 MiB per CPU */

static struct perf_buffer *peer_pb;
static __u64 lost_before;		/* bp_pb_lost at the run's start */

int perfbuf_setup(struct config *c)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		.watermark = 1,
		.wakeup_watermark = PEER_PB_PAGES * 4096 / 2,
	};
	int err = peers_setup();

	if (!err) {
		peer_pb = perf_buffer__new_raw(bpf_map__fd(peers->maps.bp_pb), PEER_PB_PAGES,
					       &attr, pb_event, NULL, NULL);
		err = peer_pb ? 0 : -errno;
	}
	consumer_alloc();
	if (err)
		snprintf(c->why, sizeof(c->why), "perf buffer: %s", strerror(-err));
	return err;
}

/* The consumer thread's step: every record ready, to pb_event(). */
static int pb_consume(void)
{
	return perf_buffer__consume(peer_pb);
}

int perfbuf_start(void)
{
	lost_before = peers->bss->bp_pb_lost;
	return consumer_attach(pb_consume, "perfbuf.out", peers->progs.bp_perfbuf);
}

void perfbuf_stop(struct run_result *r)
{
	long long bpf_lost;

	stop_link(r);
	consumer_stop(r);
	/* Each record the kernel could not store is counted by both sides. */
	bpf_lost = peers->bss->bp_pb_lost - lost_before;
	r->lost = consumer_lost() > bpf_lost ? consumer_lost() : bpf_lost;
	r->lost_known = true;
}

void perfbuf_teardown(void)
{
	perf_buffer__free(peer_pb);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpf/bench_peers.bpf.c, loaded once for every peer that runs one of its
 * programs in this process (the empty program, BPF ringbuf, perf buffer,
 * the diagnostics, part 2's loops), and the link of the program a run
 * attaches.  Here: the empty program and the diagnostics.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>

#include "buffers/bpfbuf.h"
#include "layout/ubuf.h"
#include "bench_peers.skel.h"
#include "peers.h"

struct bench_peers *peers;
struct bpf_link *cur_link;
static struct tr_bpfbuf peer_bufs;	/* bp_tracer_loop's regions */

int attach_to_event(const struct bpf_program *prog)
{
	cur_link = bpf_program__attach_tracepoint(prog, EVENT_SYSTEM, event_name);
	return cur_link ? 0 : -errno;
}

void stop_link(struct run_result *r)
{
	(void)r;
	bpf_link__destroy(cur_link);
	cur_link = NULL;
}

int peers_setup(void)
{
	struct trb_config cfg = { .subbuf_size = 1 << 20, .nsubbuf = 4, .mode = TR_MODE_OVERWRITE };
	int err;

	if (peers)
		return 0;
	peers = bench_peers__open();
	if (!peers)
		return -errno;
	TR_BPFBUF_SET_GEOMETRY(peers->rodata, &cfg, 1, ncpu);
	err = tr_bpfbuf_size_map(peers->maps.trb_regions, &cfg, 1, ncpu);
	if (err) {
		bench_peers__destroy(peers);
		peers = NULL;
		return err;
	}
	bpf_map__set_max_entries(peers->maps.bp_rb, PEER_RB_BYTES);
	bpf_map__set_max_entries(peers->maps.bp_rb_loop, PEER_RB_BYTES);
	bpf_map__set_max_entries(peers->maps.bp_pages, ncpu);
	err = bench_peers__load(peers);
	if (!err)
		err = tr_bpfbuf_open(&peer_bufs, peers->maps.trb_regions, &cfg, 1, ncpu,
				     tr_clock_monotonic_ns);
	if (err) {
		bench_peers__destroy(peers);
		peers = NULL;
	}
	return err;
}

int empty_setup(struct config *c)
{
	int err = peers_setup();

	if (err)
		snprintf(c->why, sizeof(c->why), "bench_peers does not load: %s", strerror(-err));
	return err;
}

int empty_start(void)
{
	return attach_to_event(peers->progs.bp_empty);
}

int diag_setup(struct config *c)
{
	return diag_wanted(c) ? empty_setup(c) : -ENOTSUP;
}

int clock_start(void)
{
	return attach_to_event(peers->progs.bp_clock);
}

int touch1_start(void)
{
	return attach_to_event(peers->progs.bp_touch1);
}

int touch4_start(void)
{
	return attach_to_event(peers->progs.bp_touch4);
}

void bench_peers_teardown(void)
{
	if (peers)
		tr_bpfbuf_close(&peer_bufs);
	bench_peers__destroy(peers);
}

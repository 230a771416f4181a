// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Peer: the tracer's BPF program alone (bpf/record.bpf.c), in this
 * process, in overwrite mode with no reader: what the tracer's writer
 * costs without its consumer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>

#include "buffers/bpfbuf.h"
#include "layout/ubuf.h"
#include "events/events.h"
#include "record.skel.h"
#include "peers.h"

static struct record *rec_skel;
static struct tr_bpfbuf rec_bufs;

int tracer_prog_setup(struct config *c)
{
	const char *specs[] = { event_spec };
	struct trb_config cfg = { .subbuf_size = 1 << 20, .nsubbuf = 4, .mode = TR_MODE_OVERWRITE };
	struct tr_event_set set = { 0 };
	char why[512];
	__u32 key = 0;
	int err;

	err = tr_events_resolve(&set, specs, NULL, NULL, 1, why, sizeof(why));
	if (err) {
		snprintf(c->why, sizeof(c->why), "%s", why);
		return err;
	}
	rec_skel = record__open();
	if (!rec_skel) {
		err = -errno;
		goto out;
	}
	TR_BPFBUF_SET_GEOMETRY(rec_skel->rodata, &cfg, 1, ncpu);
	rec_skel->rodata->tr_self_tgid = 0;	/* the generator is this process */
	err = tr_bpfbuf_size_map(rec_skel->maps.trb_regions, &cfg, 1, ncpu);
	if (!err)
		err = bpf_map__set_max_entries(rec_skel->maps.tr_cpus, ncpu);
	bpf_program__set_autoload(rec_skel->progs.tr_follow_fork, false);
	if (!err)
		err = record__load(rec_skel);
	if (!err)
		err = bpf_map__update_elem(rec_skel->maps.tr_events, &key, sizeof(key),
					   &set.events[0].shape, sizeof(set.events[0].shape), BPF_ANY);
	if (!err)
		err = tr_bpfbuf_open(&rec_bufs, rec_skel->maps.trb_regions, &cfg, 1, ncpu,
				     tr_clock_monotonic_ns);
out:
	if (err) {
		snprintf(c->why, sizeof(c->why), "record.bpf.c does not load: %s", strerror(-err));
		record__destroy(rec_skel);
		rec_skel = NULL;
	}
	tr_events_free(&set);
	return err;
}

int tracer_prog_start(void)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, topts, .bpf_cookie = 0);

	cur_link = bpf_program__attach_tracepoint_opts(rec_skel->progs.tr_tracepoint,
						       EVENT_SYSTEM, event_name, &topts);
	return cur_link ? 0 : -errno;
}

void tracer_prog_teardown(void)
{
	if (rec_skel) {
		tr_bpfbuf_close(&rec_bufs);
		record__destroy(rec_skel);
	}
}

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef TRACER_KMOD_TRACEPOINTS_H
#define TRACER_KMOD_TRACEPOINTS_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <tracer/kmod.h>

/* A session's tracepoints fed through in-kernel perf events. */
struct tr_tracepoints {
	struct list_head feeds;
	struct mutex lock;
};

void tr_tracepoints_init(struct tr_tracepoints *tps);
int tr_tracepoints_add(struct tr_tracepoints *tps, const struct tr_kmod_tracepoint *tp);
/* Release every perf event: no record arrives after this returns. */
void tr_tracepoints_release(struct tr_tracepoints *tps);

#endif /* TRACER_KMOD_TRACEPOINTS_H */

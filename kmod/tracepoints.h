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
	bool closed;			/* released: no feed may be added */
};

int tr_tracepoints_module_init(void);
void tr_tracepoints_module_exit(void);

void tr_tracepoints_init(struct tr_tracepoints *tps);
/* -EINVAL for a shape no tracepoint has or an id fed already, -ESHUTDOWN once released. */
int tr_tracepoints_add(struct tr_tracepoints *tps, const struct tr_kmod_tracepoint *tp);
/*
 * Release every perf event: no record starts after this returns, and
 * those under way end within an RCU grace period.
 */
void tr_tracepoints_release(struct tr_tracepoints *tps);

#endif /* TRACER_KMOD_TRACEPOINTS_H */

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The hand-off between top's consumer thread and its display thread: each
 * interval closed is published through RCU (liburcu), and the snapshot it
 * replaces is freed after a grace period, so neither thread ever waits for
 * the other; eventfds wake the display (published, ended) and the
 * consumer (stop).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <urcu/urcu-memb.h>

#include "top/display.h"

/* A published snapshot, freed by call_rcu() once no reader can hold it. */
struct published {
	struct rcu_head rcu;
	struct top_snapshot *snap;
};

static void free_published(struct rcu_head *head)
{
	struct published *p = caa_container_of(head, struct published, rcu);

	top_snapshot_free(p->snap);
	free(p);
}

void top_notify(int fd)
{
	__u64 one = 1;

	if (write(fd, &one, sizeof(one)) != sizeof(one))
		return;	/* the counter is full: the reader has plenty to wake it */
}

void top_publish(struct top_shared *sh, struct top_snapshot *snap)
{
	struct published *p = malloc(sizeof(*p)), *old;

	if (!p) {
		top_snapshot_free(snap);
		return;
	}
	p->snap = snap;
	old = rcu_xchg_pointer(&sh->latest, p);
	if (old)
		urcu_memb_call_rcu(&old->rcu, free_published);
	top_notify(sh->published_fd);
}

void top_unpublish(struct top_shared *sh)
{
	struct published *last = rcu_xchg_pointer(&sh->latest, NULL);

	if (last)
		urcu_memb_call_rcu(&last->rcu, free_published);
	urcu_memb_barrier();
}

struct top_snapshot *top_latest(struct top_shared *sh)
{
	struct top_snapshot *copy = NULL;
	struct published *p;

	urcu_memb_read_lock();
	p = rcu_dereference(sh->latest);
	if (p)
		copy = top_snapshot_copy(p->snap);
	urcu_memb_read_unlock();
	return copy;
}

void top_ask_stop(struct top_shared *sh)
{
	top_notify(sh->stop_fd);
}

int top_handoff_open(struct top_shared *sh)
{
	sh->published_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	sh->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	sh->ended_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return sh->published_fd < 0 || sh->stop_fd < 0 || sh->ended_fd < 0 ? -errno : 0;
}

void top_handoff_close(struct top_shared *sh)
{
	close(sh->published_fd);
	close(sh->stop_fd);
	close(sh->ended_fd);
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder's one place to sleep: until a file descriptor it watches
 * is ready (a sub-buffer delivered, the command exited, attaching done),
 * a signal it acts on arrives (SIGINT and SIGTERM stop, SIGUSR2 asks for a
 * snapshot), or a deadline passes.  Those signals are blocked outside the
 * wait and let in only inside it, so none arrives unnoticed between the
 * check of its flag and the sleep.
 */
#ifndef TRACER_WAITER_H
#define TRACER_WAITER_H

#include <signal.h>
#include <sys/epoll.h>

struct tr_waiter {
	int epoll_fd;
	sigset_t before;		/* the signal mask before init */
	sigset_t during;		/* ... while sleeping: stop signals let in */
};

/* Blocks SIGINT, SIGTERM and SIGUSR2 from now on.  0 or -errno. */
int tr_waiter_init(struct tr_waiter *w);

/* Wake when fd has one of the epoll events.  0 or -errno. */
int tr_waiter_watch(struct tr_waiter *w, int fd, unsigned int events);

/*
 * Sleep at most timeout_ms (-1: no limit).  The number of ready
 * descriptors, 0 at the deadline or after a signal, -errno on failure.
 */
int tr_waiter_wait(struct tr_waiter *w, int timeout_ms);

/* Restores the signal mask from before init. */
void tr_waiter_close(struct tr_waiter *w);

#endif /* TRACER_WAITER_H */

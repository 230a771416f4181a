// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <unistd.h>

#include "record/waiter.h"

int tr_waiter_init(struct tr_waiter *w)
{
	sigset_t stop;

	w->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epoll_fd < 0)
		return -errno;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &stop, &w->before);
	w->during = w->before;
	sigdelset(&w->during, SIGINT);
	sigdelset(&w->during, SIGTERM);
	sigdelset(&w->during, SIGUSR2);
	return 0;
}

int tr_waiter_watch(struct tr_waiter *w, int fd, unsigned int events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(w->epoll_fd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int tr_waiter_wait(struct tr_waiter *w, int timeout_ms)
{
	struct epoll_event ev[8];
	int n = epoll_pwait(w->epoll_fd, ev, 8, timeout_ms, &w->during);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n;
}

void tr_waiter_close(struct tr_waiter *w)
{
	if (w->epoll_fd < 0)
		return;
	close(w->epoll_fd);
	w->epoll_fd = -1;
	pthread_sigmask(SIG_SETMASK, &w->before, NULL);
}

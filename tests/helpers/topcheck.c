// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer top's known truths, for SECS seconds:
 *   topcheck rate K SECS    exactly K getppid() calls in each second, spread
 *                           over it in 100 steps on the monotonic clock;
 *   topcheck wait MS SECS   read() on a pipe that another thread writes MS ms
 *                           later, over and over: each read() takes MS ms;
 *   topcheck fail N         N fchdir(-1) calls, each failing with EBADF,
 *                           then it prints "failed N" (once all have failed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static struct timespec at_ns(__int128 ns)
{
	return (struct timespec) { ns / 1000000000, ns % 1000000000 };
}

static __int128 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__int128)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* K calls a second: by the end of step i (of 100) of second s, k * s + k * (i + 1) / 100 calls. */
static int rate(long k, long secs)
{
	__int128 start = now_ns();
	long step, done = 0;

	for (step = 0; step < secs * 100; step++) {
		struct timespec when = at_ns(start + (__int128)step * 10000000);
		long due = k * (step / 100) + k * (step % 100 + 1) / 100;

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &when, NULL);
		for (; done < due; done++)
			syscall(SYS_getppid);
	}
	return 0;
}

struct waiter {
	int fd;
	long ms;
};

static void *write_later(void *arg)
{
	struct waiter *w = arg;
	struct timespec nap = at_ns((__int128)w->ms * 1000000);
	char byte = 1;

	for (;;) {
		nanosleep(&nap, NULL);
		if (write(w->fd, &byte, 1) != 1)
			return NULL;
	}
}

static int wait_on_pipe(long ms, long secs)
{
	__int128 end = now_ns() + (__int128)secs * 1000000000;
	struct waiter w = { .ms = ms };
	pthread_t thread;
	int fds[2];
	char byte;

	if (pipe(fds))
		return 1;
	w.fd = fds[1];
	if (pthread_create(&thread, NULL, write_later, &w))
		return 1;
	while (now_ns() < end)
		if (read(fds[0], &byte, 1) != 1)
			return 1;
	return 0;
}

static int fail(long n)
{
	long i, failed = 0;

	for (i = 0; i < n; i++)
		failed += fchdir(-1) < 0 && errno == EBADF;
	printf("failed %ld\n", failed);
	return failed != n;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "rate"))
		return rate(atol(argv[2]), atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "wait"))
		return wait_on_pipe(atol(argv[2]), atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "fail"))
		return fail(atol(argv[2]));
	fprintf(stderr, "usage: topcheck rate K SECS | wait MS SECS | fail N\n");
	return 2;
}

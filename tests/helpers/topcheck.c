// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer top's known truths, for SECS seconds:
 *   topcheck rate K SECS    exactly K getppid() calls in each second, spread
 *                           over it in 100 steps on the monotonic clock;
 *   topcheck wait MS SECS   read() on a pipe that another thread writes MS ms
 *                           after it saw the read() block, over and over: each
 *                           read() takes MS ms or more; then, for each, "read
 *                           LOWER UPPER": what its latency is between (ns);
 *   topcheck fail N         N fchdir(-1) calls, each failing with EBADF,
 *                           then it prints "failed N" (once all have failed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

/*
 * Each read()'s bounds on the clock a trace's timestamps are on (the
 * monotonic one): the time between its sys_enter and its sys_exit lies
 * in [lower, upper] however late either thread runs.  upper: the reader's
 * clock just before the call to just after it.  lower: the writer's clock
 * once it has seen the reader blocked in this read() (so entered) to just
 * before the write() that ends it (so before its exit); at least MS ms.
 */
struct bounds {
	__int128 seen_blocked, writing;		/* the writer's */
	__int128 calling, returned;		/* the reader's */
};

struct waiter {
	int read_fd, write_fd;
	long ms;
	pid_t reader;
	struct bounds *reads;
	long max_reads;
};

/*
 * Whether thread tid is blocked in read() on fd (its /proc syscall line:
 * "running" unless it is blocked).  pread(), not read(): the check counts
 * this program's read() calls, which must be the pipe's alone.
 */
static int blocked_in_read(pid_t tid, int fd)
{
	char path[64], line[256];
	int nr = -1, on = -1, proc;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	proc = open(path, O_RDONLY | O_CLOEXEC);
	if (proc < 0)
		return 0;
	n = pread(proc, line, sizeof(line) - 1, 0);
	close(proc);
	if (n <= 0)
		return 0;
	line[n] = 0;
	return sscanf(line, "%d %x", &nr, &on) == 2 && nr == SYS_read && on == fd;
}

/* For each read: once the reader is blocked in it, MS ms of sleep, then the byte that ends it. */
static void *write_later(void *arg)
{
	struct waiter *w = arg;
	struct timespec nap = at_ns((__int128)w->ms * 1000000), poll_nap = at_ns(50000);
	char byte = 1;
	long i;

	for (i = 0; i < w->max_reads; i++) {
		while (!blocked_in_read(w->reader, w->read_fd))
			nanosleep(&poll_nap, NULL);
		w->reads[i].seen_blocked = now_ns();
		nanosleep(&nap, NULL);
		w->reads[i].writing = now_ns();
		if (write(w->write_fd, &byte, 1) != 1)
			return NULL;
	}
	return NULL;
}

/* read() on the pipe until SECS have passed; then "read LOWER UPPER" (ns) for each. */
static int wait_on_pipe(long ms, long secs)
{
	__int128 end = now_ns() + (__int128)secs * 1000000000;
	struct waiter w = { .ms = ms, .reader = syscall(SYS_gettid), .max_reads = secs * 1000 / ms + 2 };
	pthread_t thread;
	long n = 0, i;
	int fds[2];
	char byte;

	w.reads = calloc(w.max_reads, sizeof(*w.reads));
	if (!w.reads || pipe(fds))
		return 1;
	w.read_fd = fds[0];
	w.write_fd = fds[1];
	if (pthread_create(&thread, NULL, write_later, &w))
		return 1;
	while (n < w.max_reads && now_ns() < end) {
		w.reads[n].calling = now_ns();
		if (read(fds[0], &byte, 1) != 1)
			return 1;
		w.reads[n++].returned = now_ns();
	}
	for (i = 0; i < n; i++)
		printf("read %lld %lld\n", (long long)(w.reads[i].writing - w.reads[i].seen_blocked),
		       (long long)(w.reads[i].returned - w.reads[i].calling));
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

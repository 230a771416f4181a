// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Workloads with known truth for libtracer-ust (tests/run-ust.t):
 *
 *	ustcheck rare DIR	200000 floods around one rare event in its own channel, dump
 *	ustcheck crash N	N events, then a SIGSEGV (TRACER_UST_CRASH_DIR says where)
 *	ustcheck signal DIR N M	N events, SIGUSR1 (dump into DIR), M more, SIGUSR1 (DIR.1)
 *	ustcheck bad		events on a channel of a bad geometry: said once, counted lost
 *	ustcheck exists DIR	a dump into a directory that exists: refused
 *	ustcheck values DIR	one typed event of each kind of value, dump
 *	ustcheck alternate N	N times: event ust:step, then getppid() (a recorder merges them)
 *	ustcheck ticks N MS	N events ust:tick, MS milliseconds apart
 *	ustcheck paced N	N events ust:paced into 2 x 4 KiB in discard mode, each sub-buffer
 *				only once the recorder has read the one before (fails after 30 s);
 *				errno the same after each
 *	ustcheck dump-beside DIR
 *				60 events ust:beside, then once a recorder claimed the buffer,
 *				"ready PID"; at SIGUSR1, 100 more (the first sub-buffer ends)
 *				and a dump into DIR, "dumped"; at SIGUSR1 again, the end
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <tracer/layout.h>
#include <tracer/ust.h>

#include "layout/handoff.h"

TRACER_CHANNEL(FLOOD, 4096, 4, TRACER_UST_OVERWRITE);
TRACER_CHANNEL(RARE, 4096, 2, TRACER_UST_OVERWRITE);
TRACER_CHANNEL(BAD, 5000, 4, TRACER_UST_OVERWRITE);
TRACER_CHANNEL(STEPS, 65536, 4, TRACER_UST_DISCARD);
TRACER_CHANNEL(PACED, 4096, 2, TRACER_UST_DISCARD);

static int dumped(const char *dir, int err)
{
	if (err)
		fprintf(stderr, "ustcheck: dump into %s: %s\n", dir, strerror(-err));
	return !!err;
}

static int rare(const char *dir)
{
	long i;

	for (i = 0; i < 100000; i++)
		tracer_event(FLOOD, flood, i);
	tracer_event(RARE, rare, i);
	for (; i < 200000; i++)
		tracer_event(FLOOD, flood, i);
	return dumped(dir, tracer_ust_dump(dir));
}

static int crash(long n)
{
	volatile int *nowhere = NULL;
	long i;

	for (i = 0; i < n; i++)
		TRACE(FLOOD, "event %ld before the crash", i);
	return *nowhere;
}

static int on_signal(const char *dir, long n, long m)
{
	long i;

	if (dumped(dir, tracer_ust_dump_on_signal(SIGUSR1, dir)))
		return 1;
	for (i = 0; i < n; i++)
		TRACE(RARE, "first %ld", i);
	raise(SIGUSR1);
	for (i = 0; i < m; i++)
		TRACE(RARE, "second %ld", i);
	raise(SIGUSR1);
	return 0;
}

static int bad(void)
{
	struct tracer_ust_counts counts;
	int i;

	for (i = 0; i < 5; i++)
		tracer_event(BAD, never, i);
	tracer_ust_counts(&counts);
	printf("lost %llu\n", (unsigned long long)counts.lost);
	return 0;
}

static int values(const char *dir)
{
	int negative = -5;
	unsigned long long big = ULLONG_MAX;
	const char *name = "hello \"ust\"";
	char *none = NULL;
	void *where = (void *)0x1234;

	tracer_event(RARE, kinds, negative, big, name, none, where);
	TRACE(RARE, "negative=%d big=%llu name=%s where=%p", negative, big, name, where);
	return dumped(dir, tracer_ust_dump(dir));
}

static int alternate(long n)
{
	long i;

	for (i = 0; i < n; i++) {
		tracer_event(STEPS, step, i);
		syscall(SYS_getppid);
	}
	return 0;
}

static int ticks(long n, long ms)
{
	struct timespec pause = { ms / 1000, ms % 1000 * 1000000 };
	long i;

	for (i = 0; i < n; i++) {
		tracer_event(STEPS, tick, i);
		nanosleep(&pause, NULL);
	}
	return 0;
}

/* The control block of this process's one buffer, read-only, or NULL. */
static const struct tr_buf_ctl *own_buffer(void)
{
	const char *want = "/memfd:" UST_BUFFER_MEMFD " (deleted)";
	DIR *d = opendir("/proc/self/fd");
	const struct tr_buf_ctl *ctl = NULL;
	struct dirent *e;

	while (d && !ctl && (e = readdir(d))) {
		char path[300], link[64];
		ssize_t n;
		void *p;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0 || (link[n] = 0, strcmp(link, want)))
			continue;
		p = mmap(NULL, TR_CTL_SIZE, PROT_READ, MAP_SHARED, atoi(e->d_name), 0);
		ctl = p == MAP_FAILED ? NULL : p;
	}
	if (d)
		closedir(d);
	return ctl;
}

/*
 * Discard mode without a loss, if the recorder reads each sub-buffer when
 * it ends: the next is written only once the one before is read.  Its
 * flush period is long (the test's --flush-ms), so only the writer's
 * wake-up gets it read in time.
 */
static int paced(long n)
{
	const struct tr_buf_ctl *ctl = NULL;
	long i, waited = 0;

	for (i = 0; i < n; i++) {
		struct timespec ms = { 0, 1000000 };

		while (ctl && __atomic_load_n(&ctl->write_count, __ATOMIC_ACQUIRE) -
			      __atomic_load_n(&ctl->consumed, __ATOMIC_ACQUIRE) > 4096) {
			if (++waited == 30000) {
				fprintf(stderr, "ustcheck: event %ld: the recorder read nothing for 30 s\n", i);
				return 1;
			}
			nanosleep(&ms, NULL);
		}
		waited = 0;
		errno = EDOM;
		tracer_event(PACED, paced, i);
		if (errno != EDOM) {
			fprintf(stderr, "ustcheck: event %ld changed errno to %d\n", i, errno);
			return 1;
		}
		if (!ctl && !(ctl = own_buffer())) {
			fprintf(stderr, "ustcheck: no buffer of its own in /proc/self/fd\n");
			return 1;
		}
	}
	return 0;
}

/*
 * The program's own dump of a discard buffer a recorder reads (the test
 * stops the recorder meanwhile): with a sub-buffer delivered and not yet
 * read, the dump must leave it to the recorder.
 */
/* One call site, so one event: ust:beside. */
static void beside(long i)
{
	tracer_event(PACED, beside, i);
}

static int dump_beside(const char *dir)
{
	const struct tr_buf_ctl *ctl;
	sigset_t usr1;
	long i, waited;
	int sig;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	for (i = 0; i < 60; i++)
		beside(i);
	ctl = own_buffer();
	for (waited = 0; ctl && !__atomic_load_n(&ctl->reader_claim, __ATOMIC_ACQUIRE) && waited < 30000; waited++)
		nanosleep(&(struct timespec) { 0, 1000000 }, NULL);
	if (!ctl || !__atomic_load_n(&ctl->reader_claim, __ATOMIC_ACQUIRE)) {
		fprintf(stderr, "ustcheck: no recorder claimed the buffer in 30 s\n");
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sigwait(&usr1, &sig);
	for (; i < 160; i++)
		beside(i);
	if (dumped(dir, tracer_ust_dump(dir)))
		return 1;
	printf("dumped\n");
	fflush(stdout);
	sigwait(&usr1, &sig);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "rare"))
		return rare(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "crash"))
		return crash(atol(argv[2]));
	if (argc == 5 && !strcmp(argv[1], "signal"))
		return on_signal(argv[2], atol(argv[3]), atol(argv[4]));
	if (argc == 2 && !strcmp(argv[1], "bad"))
		return bad();
	if (argc == 3 && !strcmp(argv[1], "exists"))
		return dumped(argv[2], tracer_ust_dump(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "values"))
		return values(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "alternate"))
		return alternate(atol(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "ticks"))
		return ticks(atol(argv[2]), atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "dump-beside"))
		return dump_beside(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "paced"))
		return paced(atol(argv[2]));
	fprintf(stderr, "usage: ustcheck rare DIR | crash N | signal DIR N M | bad | exists DIR | values DIR | alternate N | ticks N MS | paced N | dump-beside DIR\n");
	return 2;
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The timing harness of workload 6 (bench/ust_bench.py), shared by the
 * tracer's program (ust_bench.c) and lttng-ust's (ust_lttng.c) so that
 * both time the same loop: THREADS threads, thread i pinned to CPU i,
 * released together by a barrier, each calling the peer's record
 * function ITERS times with the same values as lttng-ust's baseline
 * (../shared/notes/ust-baselines.md): a long, a pointer-sized integer and,
 * for ev2str, a 32-character string.  Prints one line: the mean over
 * threads and the slowest thread's ns per event (loop wall time / ITERS).
 *
 *	PROGRAM ev2|ev2str THREADS ITERS
 */
#ifndef TRACER_BENCH_UST_LOOP_H
#define TRACER_BENCH_UST_LOOP_H

/* The programs define _GNU_SOURCE before any include (CPU_SET, pthread_setaffinity_np). */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define UST_MAX_THREADS	2
#define UST_STRING	"0123456789abcdef0123456789ABCDEF"

/* The peer's: record one event of the mode's kind. */
static void record_ev2(long a, uintptr_t p);
static void record_ev2str(long a, uintptr_t p, const char *s);

struct ust_thread {
	pthread_t thread;
	int cpu, with_string;
	long iters;
	double ns;
};

static pthread_barrier_t ust_start;

static double ust_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *ust_loop(void *arg)
{
	struct ust_thread *t = arg;
	cpu_set_t cpus;
	double t0;
	long i;

	CPU_ZERO(&cpus);
	CPU_SET(t->cpu, &cpus);
	pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	/* Warm: the thread's buffers exist and are in the cache before timing. */
	for (i = 0; i < 1000; i++)
		record_ev2(i, (uintptr_t)&i);
	pthread_barrier_wait(&ust_start);
	t0 = ust_now_ns();
	if (t->with_string)
		for (i = 0; i < t->iters; i++)
			record_ev2str(i, (uintptr_t)t + i, UST_STRING);
	else
		for (i = 0; i < t->iters; i++)
			record_ev2(i, (uintptr_t)t + i);
	t->ns = (ust_now_ns() - t0) / t->iters;
	return NULL;
}

static int ust_main(int argc, char **argv)
{
	struct ust_thread threads[UST_MAX_THREADS];
	int n = argc == 4 ? atoi(argv[2]) : 0, i;
	long iters = argc == 4 ? atol(argv[3]) : 0;
	double sum = 0, slowest = 0;

	if (n < 1 || n > UST_MAX_THREADS || iters < 1 ||
	    (strcmp(argv[1], "ev2") && strcmp(argv[1], "ev2str"))) {
		fprintf(stderr, "usage: %s ev2|ev2str THREADS(1-2) ITERS\n", argv[0]);
		return 2;
	}
	pthread_barrier_init(&ust_start, NULL, n);
	for (i = 0; i < n; i++) {
		threads[i] = (struct ust_thread) { .cpu = i, .iters = iters,
						   .with_string = !strcmp(argv[1], "ev2str") };
		pthread_create(&threads[i].thread, NULL, ust_loop, &threads[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(threads[i].thread, NULL);
		sum += threads[i].ns;
		if (threads[i].ns > slowest)
			slowest = threads[i].ns;
	}
	printf("%.2f %.2f\n", sum / n, slowest);
	return 0;
}

#endif /* TRACER_BENCH_UST_LOOP_H */

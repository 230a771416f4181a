// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The generator: threads pinned one per CPU making the measured system
 * call, as fast as they can or at gen_rate; the measured figure is their
 * wall time per call.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

double gen_rate;
volatile pid_t cur_tid[MAX_THREADS];
volatile int cur_ntid;

/* One run of the generator: what its threads share. */
struct gen {
	int nthreads;
	long calls;
	long batch;			/* calls per tick */
	__u64 tick_ns;			/* 0: not throttled */
	pthread_barrier_t ready;
	__u64 start[MAX_THREADS], end[MAX_THREADS];
	long done[MAX_THREADS];
};

struct gen_thread {
	struct gen *g;
	int index;
};

/* A generator thread: its calls, in batches of g->batch (a batch per tick when throttled). */
static void *gen_run(void *p)
{
	struct gen_thread *t = p;
	struct gen *g = t->g;
	struct timespec tick;
	__u64 next;
	long i, j;

	pin_self(t->index % ncpu);
	cur_tid[t->index] = gettid();
	pthread_barrier_wait(&g->ready);
	g->start[t->index] = next = now_ns();
	for (i = 0; i < g->calls && !interrupted; i += g->batch) {
		long n = g->calls - i < g->batch ? g->calls - i : g->batch;

		for (j = 0; j < n; j++)
			syscall(sys_nr);
		if (g->tick_ns) {
			next += g->tick_ns;
			tick = (struct timespec){ next / 1000000000, next % 1000000000 };
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &tick, NULL);
		}
	}
	g->end[t->index] = now_ns();
	g->done[t->index] = i < g->calls ? i : g->calls;
	return NULL;
}

double generate(int nthreads, long calls)
{
	struct gen g = { .nthreads = nthreads, .calls = calls, .batch = 1024 };
	struct gen_thread t[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	__u64 start = ~0ull, end = 0;
	int i;

	if (gen_rate > 0) {
		g.batch = gen_rate / 1000 < 1 ? 1 : (long)(gen_rate / 1000 + 0.5);
		g.tick_ns = g.batch * 1e9 / gen_rate;
	}
	cur_ntid = nthreads;
	pthread_barrier_init(&g.ready, NULL, nthreads);
	for (i = 0; i < nthreads; i++) {
		t[i] = (struct gen_thread){ &g, i };
		pthread_create(&th[i], NULL, gen_run, &t[i]);
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		start = g.start[i] < start ? g.start[i] : start;
		end = g.end[i] > end ? g.end[i] : end;
	}
	pthread_barrier_destroy(&g.ready);
	return (double)(end - start) / calls;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtracer-ust under concurrency: writer threads, each interrupted every
 * 50 us by a signal handler that records too, in two waves (the second
 * takes over the first's buffers), while another thread dumps again and
 * again.  Then every dump is read back with tracer's trace reader: none
 * damaged, no record twice in a dump, and the counts add up exactly.  In
 * discard mode dumps consume: over all of them dumped + lost == attempted,
 * no record twice.  In flight-recorder mode each dump is a snapshot: the
 * last one, after the writers ended, holds what was not overwritten, so
 * its records + lost + overwritten == attempted.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "reader/trace.h"
#include <tracer/ust.h>

#define WRITERS		3
#define WAVES		2
#define STREAMS		(2 * WRITERS * WAVES)	/* a thread and its handler each */
#define PER_WRITER	200000			/* at least; then until the wave saw its dumps */
#define DUMPS_PER_WAVE	6

TRACER_CHANNEL(DISCARD, 4096, 4, TRACER_UST_DISCARD);
TRACER_CHANNEL(OVERWRITE, 4096, 4, TRACER_UST_OVERWRITE);

static struct tracer_ust_channel *channel;
static __u64 attempted[STREAMS];
static __thread int my_stream = -1;
static volatile int writing;
static char dir[64];
static int dumps;				/* made so far: the dumper's, read by writers */

static void record(unsigned int stream)
{
	__u64 seq = attempted[stream]++;

	if (channel == &DISCARD)
		tracer_event(DISCARD, rec, stream, seq);
	else
		tracer_event(OVERWRITE, rec, stream, seq);
}

static void on_timer(int sig)
{
	(void)sig;
	if (my_stream >= 0)
		record(my_stream + WRITERS * WAVES);
}

/*
 * A writer of wave stream / WRITERS: PER_WRITER records, and more until
 * the dumper has made this wave's dumps, however slowly it is scheduled
 * (at most 50 times as many, should dumps fail: the count check says so).
 */
static void *writer(void *arg)
{
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1 };
	struct itimerspec every = { { 0, 50000 }, { 0, 50000 } };
	int wave_dumps = DUMPS_PER_WAVE * ((int)(long)arg / WRITERS + 1);
	timer_t timer;
	long i;

	ev._sigev_un._tid = gettid();
	timer_create(CLOCK_MONOTONIC, &ev, &timer);
	my_stream = (int)(long)arg;
	timer_settime(timer, 0, &every, NULL);
	for (i = 0; i < 50L * PER_WRITER &&
		    (i < PER_WRITER || __atomic_load_n(&dumps, __ATOMIC_RELAXED) < wave_dumps); i++)
		record(my_stream);
	timer_delete(timer);
	my_stream = -1;
	return NULL;
}

static void dump_next(void)
{
	char path[96];

	snprintf(path, sizeof(path), "%s/dump%d", dir, dumps);
	if (!tracer_ust_dump(path))
		__atomic_fetch_add(&dumps, 1, __ATOMIC_RELAXED);
}

static void *dumper(void *unused)
{
	struct timespec pause = { 0, 1000000 };

	(void)unused;
	while (writing) {
		dump_next();
		nanosleep(&pause, NULL);
	}
	return NULL;
}

struct tally {
	__u64 dumped, problems, duplicates, out_of_range;
	unsigned char *seen[STREAMS];
};

static void tally_reset(struct tally *t)
{
	int i;

	t->dumped = 0;
	for (i = 0; i < STREAMS; i++)
		memset(t->seen[i], 0, attempted[i] + 1);
}

static void read_dump(const char *path, struct tally *t)
{
	struct tr_trace *trace;
	const struct tr_item *item;
	char why[256];

	if (tr_trace_open(&trace, path, why, sizeof(why))) {
		tap_diag("%s: %s", path, why);
		t->problems++;
		return;
	}
	while ((item = tr_trace_next(trace))) {
		__u64 stream, seq;

		if (item->kind == TR_ITEM_PROBLEM) {
			tap_diag("%s", item->problem);
			t->problems++;
		}
		if (item->kind != TR_ITEM_RECORD)
			continue;
		stream = tr_item_number(item, "stream");
		seq = tr_item_number(item, "seq");
		if (stream >= STREAMS || seq >= attempted[stream]) {
			t->out_of_range++;
			continue;
		}
		t->duplicates += t->seen[stream][seq]++ > 0;
		t->dumped++;
	}
	tr_trace_close(trace);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void run(struct tracer_ust_channel *c)
{
	struct tracer_ust_counts before, after;
	struct tally t = { 0 };
	pthread_t threads[WRITERS], dump_thread;
	__u64 total = 0;
	int wave, i;

	channel = c;
	memset(attempted, 0, sizeof(attempted));
	strcpy(dir, "/tmp/ust-stress-XXXXXX");
	REQUIRE_EQ(mkdtemp(dir) != NULL, 1);
	dumps = 0;
	tracer_ust_counts(&before);
	writing = 1;
	pthread_create(&dump_thread, NULL, dumper, NULL);
	for (wave = 0; wave < WAVES; wave++) {
		for (i = 0; i < WRITERS; i++)
			pthread_create(&threads[i], NULL, writer, (void *)(long)(wave * WRITERS + i));
		for (i = 0; i < WRITERS; i++)
			pthread_join(threads[i], NULL);
	}
	writing = 0;
	pthread_join(dump_thread, NULL);
	dump_next();
	tracer_ust_counts(&after);
	for (i = 0; i < STREAMS; i++) {
		t.seen[i] = calloc(attempted[i] + 1, 1);
		total += attempted[i];
	}
	for (i = 0; i < dumps; i++) {
		char path[96];

		/* Snapshots overlap: each one alone has no record twice. */
		if (c->mode == TRACER_UST_OVERWRITE)
			tally_reset(&t);
		snprintf(path, sizeof(path), "%s/dump%d", dir, i);
		read_dump(path, &t);
	}
	tap_diag("%d dumps; attempted %llu, dumped %llu, lost %llu, overwritten %llu", dumps,
		 total, t.dumped, after.lost - before.lost, after.overwritten - before.overwritten);
	EXPECT(dumps > DUMPS_PER_WAVE * WAVES);
	EXPECT_EQ(t.problems, 0);
	EXPECT_EQ(t.duplicates, 0);
	EXPECT_EQ(t.out_of_range, 0);
	EXPECT(attempted[WRITERS * WAVES] > 0);	/* the handlers did record */
	EXPECT_EQ(t.dumped + (after.lost - before.lost) + (after.overwritten - before.overwritten),
		  total);
	for (i = 0; i < STREAMS; i++)
		free(t.seen[i]);
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void test_discard(void)
{
	run(&DISCARD);
}

static void test_overwrite(void)
{
	run(&OVERWRITE);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_timer, .sa_flags = SA_RESTART };

	sigaction(SIGUSR1, &sa, NULL);
	tap_run("discard mode: dumped + lost == attempted, nothing twice", test_discard);
	tap_run("flight recorder: last snapshot + lost + overwritten == attempted",
		test_overwrite);
	return tap_done();
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtracer-ust's clock (user/ust/ust_clock.c) against CLOCK_MONOTONIC,
 * the kernel's trace clock: every reading lies between clock_gettime()
 * before and after it, give or take TOLERANCE_NS (the line's stated error
 * is half an anchor's width plus the rate's drift over 100 us), a thread's
 * readings never go back, and a signal handler that interrupts a reading
 * or the drawing of a new line reads no earlier than what the thread read
 * before it, and the thread reads no earlier than the handler did.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "tap.h"
#include "ust/ust_impl.h"

#define TOLERANCE_NS	1000

static __u64 monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* Past the first 10 ms, when the line takes over from clock_gettime(). */
static void run_for(__u64 ns, void (*each)(void))
{
	__u64 end = monotonic() + ns;

	while (monotonic() < end)
		each();
}

static __u64 readings, outside, backwards, worst_early, worst_late, last;

static void bracket_once(void)
{
	__u64 before = monotonic(), t = ust_clock(), after = monotonic();

	readings++;
	if (t + TOLERANCE_NS < before || t > after + TOLERANCE_NS)
		outside++;
	if (before > t && before - t > worst_early)
		worst_early = before - t;
	if (t > after && t - after > worst_late)
		worst_late = t - after;
	if (t < last)
		backwards++;
	last = t;
}

static void test_follows_monotonic(void)
{
	run_for(300000000, bracket_once);
	tap_diag("%llu readings; furthest before clock_gettime() %llu ns, after %llu ns",
		 readings, worst_early, worst_late);
	EXPECT(readings > 10000);
	EXPECT_EQ(outside, 0);
	EXPECT_EQ(backwards, 0);
}

static volatile __u64 thread_last, handler_last;
static __u64 handler_backwards, thread_backwards, handled;

static void on_alarm(int sig)
{
	__u64 t = ust_clock();

	(void)sig;
	if (t < thread_last)
		handler_backwards++;
	handler_last = t;
	handled++;
}

static void read_beside_handler(void)
{
	__u64 handler_before = handler_last, t = ust_clock();

	if (t < thread_last || t < handler_before)
		thread_backwards++;
	thread_last = t;
}

static void test_signal_nesting(void)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct itimerval every = { { 0, 20 }, { 0, 20 } }, off = { { 0, 0 }, { 0, 0 } };

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	run_for(500000000, read_beside_handler);
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	tap_diag("%llu readings in a signal handler", handled);
	EXPECT(handled > 1000);
	EXPECT_EQ(handler_backwards, 0);
	EXPECT_EQ(thread_backwards, 0);
}

int main(void)
{
	tracer_ust_register(NULL, NULL);	/* the library's start, as a program's first event has it */
	tap_run("the clock stays within 1 us of CLOCK_MONOTONIC and never goes back",
		test_follows_monotonic);
	tap_run("a signal handler's readings and the thread's never go back on each other",
		test_signal_nesting);
	return tap_done();
}

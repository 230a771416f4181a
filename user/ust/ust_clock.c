// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The clock of user-space records: CLOCK_MONOTONIC, the kernel's trace
 * clock (bpf_ktime_get_ns(), the module's), so that user and kernel
 * events merge by timestamp.
 *
 * clock_gettime() costs 29 ns here (kvm-clock), more than the rest of a
 * record.  Where the TSC is invariant (constant_tsc and nonstop_tsc), the
 * clock is instead the TSC on a line through CLOCK_MONOTONIC: each thread
 * takes an anchor, a TSC value and clock_gettime() read between two TSC
 * reads (the midpoint, the narrowest of three tries), at most every
 * ANCHOR_NS, and extends it with rdtsc() at the rate CLOCK_MONOTONIC has
 * kept against the TSC since the library started.  A timestamp is then
 * off CLOCK_MONOTONIC by at most half an anchor's width (about 15 ns
 * here) plus the rate's change over ANCHOR_NS (NTP slews at most 500 ppm:
 * 50 ns; in practice none).  For the first RATE_BASELINE_NS the rate is
 * not known well enough and clock_gettime() is used.
 *
 * Each buffer needs its timestamps in position order never to go back
 * (ringbuf.h, I2).  A thread's line never goes back: a new anchor starts
 * no lower than the old line at that point.  A signal handler that
 * interrupts the thread in the middle of reading its line reads it again;
 * one that interrupts a new anchor being drawn reads the old line, which
 * the new one is drawn beside (two slots).  A thread that takes over the
 * buffer of a thread that ended first waits for its own clock to pass the
 * time that thread ended (ust_clock_after()).
 *
 * TRACER_UST_CLOCK=monotonic in the environment uses clock_gettime() for
 * every record.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layout/ubuf.h"
#include "ust_impl.h"

#define ANCHOR_NS		100000ull	/* 100 us */
#define RATE_BASELINE_NS	10000000ull	/* 10 ms */

struct line {
	__u64 tsc;
	__u64 ns;
	__u64 rate;		/* ns per TSC tick, 32.32 fixed point */
	__u64 until;		/* TSC value after which a new anchor is drawn; 0: no line */
};

static __thread struct thread_clock {
	struct line line[2];
	unsigned int current;	/* slot of the line in use */
	unsigned int seq;	/* odd while a new anchor is being drawn */
} clock_of_thread __attribute__((tls_model("initial-exec")));

static struct {
	int use_tsc;
	__u64 base_tsc;		/* the first anchor of the process */
	__u64 base_ns;
	__u64 rate;		/* ns per TSC tick, 32.32 fixed point: the latest */
	__u64 anchor_ticks;	/* ANCHOR_NS in TSC ticks; 0 until the rate is known */
} tsc_clock;

#ifdef __x86_64__
static inline __u64 tsc(void)
{
	__u32 lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (__u64)hi << 32 | lo;
}
#else
static inline __u64 tsc(void)
{
	return 0;
}
#endif

/* A TSC value and CLOCK_MONOTONIC at that moment, from the narrowest of three reads. */
static void anchor(__u64 *at_tsc, __u64 *at_ns)
{
	__u64 best = ~0ull;
	int i;

	for (i = 0; i < 3; i++) {
		__u64 before = tsc(), ns = tr_clock_monotonic_ns(), after = tsc();

		if (after - before < best) {
			best = after - before;
			*at_tsc = before + (after - before) / 2;
			*at_ns = ns;
		}
	}
}

static __u64 on_line(const struct line *l, __u64 now)
{
	return l->ns + (__u64)(((unsigned __int128)(now - l->tsc) * l->rate) >> 32);
}

/* CLOCK_MONOTONIC's rate against the TSC from the first anchor to this one. */
static __u64 rate_to(__u64 at_tsc, __u64 at_ns)
{
	__u64 rate = (((unsigned __int128)(at_ns - tsc_clock.base_ns)) << 32) /
		     (at_tsc - tsc_clock.base_tsc);

	__atomic_store_n(&tsc_clock.rate, rate, __ATOMIC_RELAXED);
	return rate;
}

/* Draw this thread's new line at now, no lower than its old one there. */
static __u64 new_line(struct thread_clock *c, __u64 now)
{
	const struct line *old = &c->line[c->current];
	struct line *l = &c->line[!c->current];

	c->seq++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	anchor(&l->tsc, &l->ns);
	l->rate = rate_to(l->tsc, l->ns);
	if (old->until && l->ns < on_line(old, l->tsc))
		l->ns = on_line(old, l->tsc);
	l->until = l->tsc + tsc_clock.anchor_ticks;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->current = !c->current;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->seq++;
	return on_line(l, now > l->tsc ? now : l->tsc);
}

/* Until the rate is known: clock_gettime(), and the rate once RATE_BASELINE_NS passed. */
static __u64 before_rate(void)
{
	__u64 ns = tr_clock_monotonic_ns(), at = tsc();

	if (ns - tsc_clock.base_ns >= RATE_BASELINE_NS && at > tsc_clock.base_tsc)
		__atomic_store_n(&tsc_clock.anchor_ticks, (ANCHOR_NS << 32) / rate_to(at, ns),
				 __ATOMIC_RELEASE);
	return ns;
}

__u64 ust_clock(void)
{
	struct thread_clock *c = &clock_of_thread;

	if (!tsc_clock.use_tsc)
		return tr_clock_monotonic_ns();
	if (!__atomic_load_n(&tsc_clock.anchor_ticks, __ATOMIC_ACQUIRE))
		return before_rate();
	for (;;) {
		unsigned int seq = c->seq;
		const struct line *l;
		__u64 now, ns;

		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		l = &c->line[c->current];
		now = tsc();
		if (!(seq & 1) && now >= l->until)
			return new_line(c, now);
		/* A new line is being drawn under this signal handler: the old one, if any. */
		if (!l->until)
			return tr_clock_monotonic_ns();
		ns = on_line(l, now);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (c->seq == seq)
			return ns;
	}
}

void ust_clock_after(__u64 ns)
{
	while (ust_clock() <= ns)
		;
}

static int invariant_tsc(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5))
			found = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc") ? 1 : -1;
	if (f)
		fclose(f);
	return found == 1;
}

void ust_clock_init(void)
{
	const char *choice = getenv("TRACER_UST_CLOCK");

#ifdef __x86_64__
	tsc_clock.use_tsc = !(choice && !strcmp(choice, "monotonic")) && invariant_tsc();
#endif
	if (tsc_clock.use_tsc)
		anchor(&tsc_clock.base_tsc, &tsc_clock.base_ns);
}

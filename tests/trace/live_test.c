// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live trace (tracer top's reader): packets fed as a consumer takes
 * them from two CPUs' buffers come out merged in time order, never past
 * the horizon, with their losses; a stream with nothing fed holds nothing
 * up, and a record fed after the horizon passed it comes out counted late.
 * The records are written through the ring buffer with a clock the test
 * sets, so every timestamp is known.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "layout/ubuf.h"
#include "reader/trace.h"

#define NCPU	2

static const char format[] =
	"name: sample\nID: 1\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:u64 seq;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"seq=%llu\", REC->seq\n";

struct sample {
	__u16 common_type;
	__u8 common_flags, common_preempt_count;
	__s32 common_pid;
	__u64 seq;
};

static __u64 fake_now;

static __u64 fake_clock(void)
{
	return fake_now;
}

struct live {
	struct tr_ubuf buf[NCPU];
	struct tr_trace *trace;
};

static void live_open(struct live *l, enum tr_buf_mode mode)
{
	static const char *const channels[] = { "channel0" };
	char text[2048], why[256];
	unsigned int cpu;
	int len = snprintf(text, sizeof(text), "event 0 test sample %zu\n%s", strlen(format), format);

	memset(l, 0, sizeof(*l));
	for (cpu = 0; cpu < NCPU; cpu++) {
		struct trb_config cfg = { .subbuf_size = 4096, .nsubbuf = 2, .mode = mode, .cpu = cpu };

		EXPECT_EQ(tr_ubuf_create(&l->buf[cpu], &cfg, fake_clock), 0);
	}
	EXPECT_EQ(tr_trace_open_live(&l->trace, text, len, channels, 1, NCPU, why, sizeof(why)), 0);
}

static void live_close(struct live *l)
{
	unsigned int cpu;

	tr_trace_close(l->trace);
	for (cpu = 0; cpu < NCPU; cpu++)
		tr_ubuf_destroy(&l->buf[cpu]);
}

static int emit(struct live *l, unsigned int cpu, __u64 ts, __u64 seq)
{
	struct trb_slot slot;
	struct sample *s;

	fake_now = ts;
	if (trb_reserve(&l->buf[cpu].rb, &slot, 0, sizeof(*s), 5ull << 32 | 6))
		return -1;
	s = trb_payload(&slot);
	memset(s, 0, sizeof(*s));
	s->seq = seq;
	trb_commit(&l->buf[cpu].rb, &slot);
	return 0;
}

/* The consumer's round on one CPU: close what it holds, feed every delivered packet. */
static void consume(struct live *l, unsigned int cpu)
{
	const char *packet;
	__u64 pos;

	trb_flush(&l->buf[cpu].rb);
	while (trb_get_subbuf(&l->buf[cpu].rb, &pos, &packet) == 0) {
		EXPECT_EQ(tr_trace_feed(l->trace, cpu, packet), 0);
		trb_put_subbuf(&l->buf[cpu].rb, pos);
	}
}

/* What drain() collects. */
struct drained {
	__u64 *out, *lost;
	unsigned int n, max;
};

static void take(void *data, const struct tr_item *item)
{
	struct drained *d = data;

	if (item->kind == TR_ITEM_LOST && d->lost)
		*d->lost += item->lost_full + item->lost_wrap + item->lost_big + item->lost_busy;
	if (item->kind == TR_ITEM_PROBLEM)
		tap_diag("problem: %s", item->problem);
	EXPECT(item->kind != TR_ITEM_PROBLEM);
	if (item->kind == TR_ITEM_RECORD && d->n < d->max)
		d->out[d->n++] = tr_item_number(item, "seq");
}

/*
 * The records that come out now (tr_trace_each(), as tracer top reads),
 * their seq values in out; how many (losses are summed in lost).
 */
static unsigned int drain(struct live *l, __u64 *out, unsigned int max, __u64 *lost)
{
	struct drained d = { out, lost, 0, max };

	tr_trace_each(l->trace, take, &d);
	return d.n;
}

/* The same, one tr_trace_next() at a time. */
static unsigned int drain_next(struct live *l, __u64 *out, unsigned int max)
{
	struct drained d = { out, NULL, 0, max };
	const struct tr_item *item;

	while ((item = tr_trace_next(l->trace)))
		take(&d, item);
	return d.n;
}

/* Up to horizon, the records that come out are those numbered want[0..n), in that order. */
static void expect_out(struct live *l, __u64 horizon, const __u64 *want, unsigned int n)
{
	__u64 seq[16];
	unsigned int i, got;

	tr_trace_set_horizon(l->trace, horizon);
	got = drain(l, seq, 16, NULL);
	EXPECT_EQ(got, n);
	for (i = 0; i < n && i < got; i++)
		EXPECT_EQ(seq[i], want[i]);
}

static void test_merged_in_time_order_up_to_the_horizon(void)
{
	struct live l;

	live_open(&l, TR_MODE_DISCARD);
	emit(&l, 0, 10, 1);
	emit(&l, 1, 20, 2);
	emit(&l, 0, 30, 3);
	emit(&l, 1, 40, 4);
	emit(&l, 0, 50, 5);
	emit(&l, 1, 60, 6);
	fake_now = 70;
	consume(&l, 1);
	consume(&l, 0);
	expect_out(&l, 0, NULL, 0);
	expect_out(&l, 35, (const __u64[]) { 1, 2, 3 }, 3);
	expect_out(&l, ~0ull, (const __u64[]) { 4, 5, 6 }, 3);
	EXPECT_EQ(tr_trace_late(l.trace), 0ull);
	live_close(&l);
}

/*
 * CPU 0 records 1 to 10 at 10, 20, ... 100, CPU 1 records 11 and 12 at 55
 * and 57: CPU 0's run stops at CPU 1's records and at the horizon.
 */
static void feed_runs(struct live *l)
{
	unsigned int i;

	live_open(l, TR_MODE_DISCARD);
	for (i = 1; i <= 10; i++)
		emit(l, 0, 10 * i, i);
	emit(l, 1, 55, 11);
	emit(l, 1, 57, 12);
	fake_now = 110;
	consume(l, 0);
	consume(l, 1);
}

static void test_a_run_of_one_cpu_stops_at_the_other_and_at_the_horizon(void)
{
	static const __u64 order[] = { 1, 2, 3, 4, 5, 11, 12, 6, 7, 8, 9, 10 };
	__u64 seq[16];
	struct live l;
	unsigned int i;

	feed_runs(&l);
	expect_out(&l, 75, order, 9);
	expect_out(&l, ~0ull, order + 9, 3);
	live_close(&l);
	/* tr_trace_next() hands out the same, one at a time. */
	feed_runs(&l);
	tr_trace_set_horizon(l.trace, ~0ull);
	EXPECT_EQ(drain_next(&l, seq, 16), 12u);
	for (i = 0; i < 12; i++)
		EXPECT_EQ(seq[i], order[i]);
	EXPECT_EQ(tr_trace_late(l.trace), 0ull);
	live_close(&l);
}

static void test_an_idle_cpu_holds_nothing_up_and_joins_later(void)
{
	struct live l;

	live_open(&l, TR_MODE_DISCARD);
	emit(&l, 0, 100, 1);
	emit(&l, 0, 200, 2);
	fake_now = 250;
	consume(&l, 0);
	consume(&l, 1);
	expect_out(&l, 250, (const __u64[]) { 1, 2 }, 2);
	/* CPU 1 wakes up: its records join the merge where they belong. */
	emit(&l, 1, 300, 3);
	emit(&l, 0, 310, 4);
	emit(&l, 1, 320, 5);
	fake_now = 400;
	consume(&l, 0);
	consume(&l, 1);
	expect_out(&l, 400, (const __u64[]) { 3, 4, 5 }, 3);
	EXPECT_EQ(tr_trace_late(l.trace), 0ull);
	live_close(&l);
}

static void test_a_record_fed_after_the_horizon_comes_out_late(void)
{
	struct live l;

	live_open(&l, TR_MODE_DISCARD);
	emit(&l, 0, 100, 1);
	emit(&l, 1, 500, 2);
	fake_now = 600;
	consume(&l, 1);
	expect_out(&l, 600, (const __u64[]) { 2 }, 1);
	/* CPU 0's record of time 100 reaches the reader only now. */
	consume(&l, 0);
	expect_out(&l, 600, (const __u64[]) { 1 }, 1);
	EXPECT_EQ(tr_trace_late(l.trace), 1ull);
	live_close(&l);
}

/* A full buffer in discard mode: what is lost comes out as counted, and every record is read. */
static void test_losses_come_out_with_the_records(void)
{
	unsigned int written = 0, n = 0, got;
	__u64 lost = 0, seq[256];
	struct live l;
	__u64 i;

	live_open(&l, TR_MODE_DISCARD);
	for (i = 0; i < 1000; i++)
		written += !emit(&l, 0, 1000 + i, i);
	EXPECT(written < 1000);
	fake_now = 5000;
	consume(&l, 0);
	tr_trace_set_horizon(l.trace, ~0ull);
	while ((got = drain(&l, seq, 256, &lost)))
		n += got;
	EXPECT_EQ(n, written);
	EXPECT_EQ(lost, 1000ull - written);
	live_close(&l);
}

/* A packet fed by its header alone: its records stay out, nothing counts as lost that was not. */
static void test_a_packet_fed_by_its_header_leaves_its_records_out(void)
{
	const char *packet;
	__u64 seq[8], lost = 0, pos;
	struct live l;
	int fed = 0;

	live_open(&l, TR_MODE_DISCARD);
	emit(&l, 0, 10, 1);
	emit(&l, 0, 20, 2);
	fake_now = 25;
	trb_flush(&l.buf[0].rb);
	emit(&l, 0, 30, 3);
	fake_now = 35;
	trb_flush(&l.buf[0].rb);
	while (trb_get_subbuf(&l.buf[0].rb, &pos, &packet) == 0) {
		EXPECT_EQ(fed++ ? tr_trace_feed(l.trace, 0, packet) :
				  tr_trace_feed_header(l.trace, 0, packet), 0);
		trb_put_subbuf(&l.buf[0].rb, pos);
	}
	EXPECT_EQ(fed, 2);
	tr_trace_set_horizon(l.trace, ~0ull);
	EXPECT_EQ(drain(&l, seq, 8, &lost), 1u);
	EXPECT_EQ(seq[0], 3ull);
	EXPECT_EQ(lost, 0ull);
	EXPECT(!tr_trace_next(l.trace));
	live_close(&l);
}

static void test_feeding_a_stream_it_does_not_have_is_refused(void)
{
	const char *packet = NULL;
	struct live l;
	__u64 pos = 0;

	live_open(&l, TR_MODE_DISCARD);
	emit(&l, 0, 10, 1);
	trb_flush(&l.buf[0].rb);
	if (trb_get_subbuf(&l.buf[0].rb, &pos, &packet) == 0) {
		EXPECT_EQ(tr_trace_feed(l.trace, NCPU, packet), -EINVAL);
		trb_put_subbuf(&l.buf[0].rb, pos);
	} else {
		EXPECT(!"a packet delivered");
	}
	live_close(&l);
}

int main(void)
{
	TAP_RUN(test_merged_in_time_order_up_to_the_horizon);
	TAP_RUN(test_a_run_of_one_cpu_stops_at_the_other_and_at_the_horizon);
	TAP_RUN(test_an_idle_cpu_holds_nothing_up_and_joins_later);
	TAP_RUN(test_a_record_fed_after_the_horizon_comes_out_late);
	TAP_RUN(test_losses_come_out_with_the_records);
	TAP_RUN(test_a_packet_fed_by_its_header_leaves_its_records_out);
	TAP_RUN(test_feeding_a_stream_it_does_not_have_is_refused);
	return tap_done();
}

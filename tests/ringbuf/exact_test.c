// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ring buffer protocol, one writer, a clock that ticks once per read:
 * known event sequences give byte-exact packets, every reservation ends
 * in a record or a counted loss, and nothing depends on where the
 * counters start.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "layout/ubuf.h"
#include "drain.h"

#define SB		4096u
#define HDR		sizeof(struct tr_packet_header)
#define EVH		sizeof(struct tr_event_header)
/* Bytes of a record with an n-byte payload. */
#define REC(n)		((EVH + (n) + 7) / 8 * 8)
/* The task the records name: process 42, thread 43. */
#define TASK		(42ull << 32 | 43)
/* Payload of a 1200-byte record: three fit, the fourth switches. */
#define THIRD		(1200 - EVH)
/* Counters start here in the "near 2^64" runs: they wrap inside the test. */
#define NEAR_WRAP	(0ull - 3 * SB)

static __u64 fake_now;

static __u64 fake_clock(void)
{
	return fake_now++;
}

static struct tr_ubuf make_buf(__u32 nsubbuf, enum tr_buf_mode mode, __u64 start)
{
	struct trb_config cfg = {
		.subbuf_size = SB, .nsubbuf = nsubbuf, .mode = mode,
		.cpu = 1, .stream_id = 7, .start = start,
	};
	struct tr_ubuf u;

	fake_now = 100;
	if (tr_ubuf_create(&u, &cfg, fake_clock)) {
		tap_diag("cannot create buffer");
		exit(1);
	}
	return u;
}

/* Write one record whose payload bytes are all `fill`; 0 or the error. */
static int write_record(const struct trb_buf *b, __u32 id, __u32 size, int fill)
{
	struct trb_slot s;
	int err = trb_reserve(b, &s, id, size, TASK);

	if (err)
		return err;
	memset(trb_payload(&s), fill, size);
	trb_commit(b, &s);
	return 0;
}

/* Write n records of the same size, ids from 1; returns how many succeeded. */
static unsigned write_records(const struct trb_buf *b, unsigned n, __u32 size)
{
	unsigned i, written = 0;

	for (i = 0; i < n; i++)
		written += write_record(b, i + 1, size, i + 1) == 0;
	return written;
}

/* Record k of four that fill a 4 KiB packet exactly: 3 x 1000 + 992 bytes. */
static __u32 quarter(unsigned k)
{
	return (k % 4 == 3 ? 992 : 1000) - EVH;
}

/* Write n records of that pattern, the first being quarter(first). */
static unsigned write_quarters(const struct trb_buf *b, unsigned first, unsigned n)
{
	unsigned i, written = 0;

	for (i = 0; i < n; i++)
		written += write_record(b, i + 1, quarter(first + i), i + 1) == 0;
	return written;
}

/* The header a packet should have, built field by field from the spec. */
static struct tr_packet_header expected_header(__u64 seq, __u64 begin, __u64 end,
					       __u64 content, __u64 lost_full)
{
	__u64 on_disk = (content + TR_PACKET_ALIGN - 1) / TR_PACKET_ALIGN * TR_PACKET_ALIGN;

	return (struct tr_packet_header) {
		.magic = 0xC1FC1FC1, .stream_id = 7, .stream_instance_id = 1,
		.timestamp_begin = begin, .timestamp_end = end,
		.content_size = content * 8,
		.packet_size = (on_disk < SB ? on_disk : SB) * 8,
		.packet_seq_num = seq, .events_discarded = lost_full,
		.lost_full = lost_full, .cpu_id = 1, .layout_version = TR_LAYOUT_VERSION,
	};
}

static void put_record(char *at, __u64 ts, __u32 id, const void *payload, __u32 size)
{
	struct tr_event_header eh = {
		.timestamp = ts, .id = id, .size = size, .pid = 42, .tid = 43,
	};

	memcpy(at, &eh, EVH);
	memcpy(at + EVH, payload, size);
}

static void test_known_sequence_gives_byte_exact_packet(void)
{
	struct tr_ubuf u = make_buf(2, TR_MODE_DISCARD, 0);
	struct tr_packet_header h = expected_header(0, 100, 103, HDR + REC(5) + REC(0) + REC(16), 0);
	char expect[SB] = { 0 }, sixteen[16];
	const char *packet = NULL;
	struct trb_slot s;
	__u64 pos = 0;

	memset(sixteen, 0xab, sizeof(sixteen));
	EXPECT_EQ(trb_reserve(&u.rb, &s, 1, 5, TASK), 0);
	memcpy(trb_payload(&s), "hello", 5);
	trb_commit(&u.rb, &s);
	EXPECT_EQ(trb_reserve(&u.rb, &s, 2, 0, TASK), 0);
	trb_commit(&u.rb, &s);
	EXPECT_EQ(write_record(&u.rb, 3, 16, 0xab), 0);
	EXPECT_EQ(trb_get_subbuf(&u.rb, &pos, &packet), -EAGAIN);
	EXPECT_EQ(trb_flush(&u.rb), 1);
	EXPECT_EQ(trb_flush(&u.rb), 0);

	memcpy(expect, &h, HDR);
	put_record(expect + HDR, 100, 1, "hello", 5);		/* padded to 8 */
	put_record(expect + HDR + REC(5), 101, 2, "", 0);
	put_record(expect + HDR + REC(5) + REC(0), 102, 3, sixteen, 16);
	REQUIRE_EQ(trb_get_subbuf(&u.rb, &pos, &packet), 0);
	EXPECT_EQ(pos, 0);
	EXPECT(memcmp(packet, expect, SB) == 0);
	trb_put_subbuf(&u.rb, pos);
	EXPECT_EQ(trb_get_subbuf(&u.rb, &pos, &packet), -EAGAIN);
	tr_ubuf_destroy(&u);
}

static void test_exact_fit_closes_packet_without_flush(void)
{
	struct tr_ubuf u = make_buf(2, TR_MODE_DISCARD, 0);
	struct tr_packet_header h = expected_header(0, 100, 103, SB, 0);
	const char *packet = NULL;
	__u64 pos = 0;

	EXPECT_EQ(write_quarters(&u.rb, 0, 4), 4);
	REQUIRE_EQ(trb_get_subbuf(&u.rb, &pos, &packet), 0);
	EXPECT(memcmp(packet, &h, HDR) == 0);
	trb_put_subbuf(&u.rb, pos);
	EXPECT_EQ(trb_flush(&u.rb), 0);
	EXPECT_EQ(u.rb.ctl->write_count, SB);

	/* The next record opens packet 1 at its own timestamp. */
	EXPECT_EQ(write_records(&u.rb, 1, 8), 1);
	EXPECT_EQ(trb_flush(&u.rb), 1);
	h = expected_header(1, 104, 105, HDR + REC(8), 0);
	REQUIRE_EQ(trb_get_subbuf(&u.rb, &pos, &packet), 0);
	EXPECT(memcmp(packet, &h, HDR) == 0);
	tr_ubuf_destroy(&u);
}

static void test_record_that_does_not_fit_switches_with_padding(void)
{
	struct tr_ubuf u = make_buf(2, TR_MODE_DISCARD, 0);
	struct tr_packet_header h = expected_header(0, 100, 103, HDR + 3 * 1200, 0);
	const char *packet = NULL;
	struct trb_slot s;
	__u64 pos = 0;

	EXPECT_EQ(write_records(&u.rb, 3, THIRD), 3);
	/* Reserving the fourth closes packet 0: ready before the commit. */
	EXPECT_EQ(trb_reserve(&u.rb, &s, 4, THIRD, TASK), 0);
	EXPECT_EQ(s.switches, TRB_SWITCH_OLD_END | TRB_SWITCH_NEW_START);
	REQUIRE_EQ(trb_get_subbuf(&u.rb, &pos, &packet), 0);
	EXPECT(memcmp(packet, &h, HDR) == 0);
	trb_put_subbuf(&u.rb, pos);
	trb_commit(&u.rb, &s);
	EXPECT_EQ(trb_flush(&u.rb), 1);
	h = expected_header(1, 103, 104, HDR + 1200, 0);
	REQUIRE_EQ(trb_get_subbuf(&u.rb, &pos, &packet), 0);
	EXPECT(memcmp(packet, &h, HDR) == 0);
	tr_ubuf_destroy(&u);
}

static void test_record_larger_than_subbuffer_is_counted_not_split(void)
{
	struct tr_ubuf u = make_buf(2, TR_MODE_DISCARD, 0);
	__u32 largest = SB - HDR - EVH;

	EXPECT_EQ(write_record(&u.rb, 1, largest + 1, 0), -ENOSPC);
	EXPECT_EQ(write_record(&u.rb, 1, ~0u, 0), -ENOSPC);
	EXPECT_EQ(u.rb.ctl->lost_big, 2);
	EXPECT_EQ(u.rb.ctl->write_count, 0);
	EXPECT_EQ(write_record(&u.rb, 1, largest, 0), 0);
	EXPECT_EQ(u.rb.ctl->write_count, SB);
	tr_ubuf_destroy(&u);
}

static void count_record(const struct tr_packet_header *h,
			 const struct tr_event_header *e, void *arg)
{
	__u32 *last_id = arg;

	(void)h;
	*last_id = e->id;
}

static void test_discard_mode_drops_and_counts_when_full(void)
{
	struct tr_ubuf u = make_buf(2, TR_MODE_DISCARD, 0);
	struct drain_state d = { 0 };
	const char *packet = NULL;
	__u32 last_id = 0;
	__u64 pos = 0;

	/* Two packets of three records; the seventh needs packet 2: full. */
	EXPECT_EQ(write_records(&u.rb, 10, THIRD), 6);
	EXPECT_EQ(u.rb.ctl->lost_full, 4);
	EXPECT_EQ(trb_lost(&u.rb), 4);
	/* Packet 1 stays open while the writer cannot leave it. */
	EXPECT_EQ(drain(&u.rb, &d, count_record, &last_id), 1);
	EXPECT_EQ(d.records, 3);
	EXPECT_EQ(trb_flush(&u.rb), 1);
	REQUIRE_EQ(trb_get_subbuf(&u.rb, &pos, &packet), 0);
	/* The loss is reported in the packet it happened in. */
	EXPECT_EQ(((const struct tr_packet_header *)packet)->events_discarded, 4);
	trb_put_subbuf(&u.rb, pos);
	/* With room again, writing resumes in packet 2. */
	EXPECT_EQ(write_record(&u.rb, 99, 8, 0), 0);
	EXPECT_EQ(trb_flush(&u.rb), 1);
	d = (struct drain_state) { 0 };
	EXPECT_EQ(drain(&u.rb, &d, count_record, &last_id), 1);
	EXPECT(d.problem == NULL);
	EXPECT_EQ(d.last_seq, 2);
	EXPECT_EQ(last_id, 99);
	tr_ubuf_destroy(&u);
}

static void test_overwrite_mode_keeps_newest_and_counts_overrun(void)
{
	struct tr_ubuf u = make_buf(2, TR_MODE_OVERWRITE, 0);
	struct drain_state d = { 0 };
	__u32 last_id = 0;

	/* Ten exactly full packets into two sub-buffers. */
	EXPECT_EQ(write_quarters(&u.rb, 0, 40), 40);
	EXPECT_EQ(trb_lost(&u.rb), 0);
	EXPECT_EQ(drain(&u.rb, &d, count_record, &last_id), 2);
	EXPECT(d.problem == NULL);
	EXPECT_EQ(d.last_seq, 9);
	EXPECT_EQ(last_id, 40);
	EXPECT_EQ(d.records + u.rb.ctl->records_overrun, 40);
	tr_ubuf_destroy(&u);
}

static void test_held_subbuffer_never_changes_under_overwrite(void)
{
	struct tr_ubuf u = make_buf(2, TR_MODE_OVERWRITE, 0);
	struct drain_state d = { 0 };
	static char copy[SB];
	const char *packet = NULL;
	__u64 pos = 0;

	EXPECT_EQ(write_quarters(&u.rb, 0, 8), 8);
	REQUIRE_EQ(trb_get_subbuf(&u.rb, &pos, &packet), 0);
	memcpy(copy, packet, SB);
	EXPECT_EQ(write_quarters(&u.rb, 0, 60), 60);
	EXPECT(memcmp(copy, packet, SB) == 0);
	drain_packet(&u.rb, packet, &d, NULL, NULL);
	trb_put_subbuf(&u.rb, pos);
	drain(&u.rb, &d, NULL, NULL);
	EXPECT(d.problem == NULL);
	EXPECT_EQ(d.records + u.rb.ctl->records_overrun, 68);
	tr_ubuf_destroy(&u);
}

static void test_commits_out_of_order_deliver_only_when_complete(void)
{
	struct tr_ubuf u = make_buf(2, TR_MODE_DISCARD, 0);
	struct trb_slot s[4];
	const char *packet = NULL;
	__u64 pos = 0;
	int i;

	/* An outer reservation, then three nested ones that commit first. */
	for (i = 0; i < 4; i++)
		EXPECT_EQ(trb_reserve(&u.rb, &s[i], i + 1, quarter(i), TASK), 0);
	for (i = 3; i > 0; i--) {
		trb_commit(&u.rb, &s[i]);
		EXPECT_EQ(trb_get_subbuf(&u.rb, &pos, &packet), -EAGAIN);
	}
	trb_commit(&u.rb, &s[0]);
	REQUIRE_EQ(trb_get_subbuf(&u.rb, &pos, &packet), 0);
	tr_ubuf_destroy(&u);
}

/*
 * The K42 race: a reservation stays uncommitted while others wrap the
 * buffer.  The writer must not enter its sub-buffer again, in either mode,
 * and the reader must not take it, until it is committed.
 */
static void wrap_over_open_reservation(enum tr_buf_mode mode)
{
	struct tr_ubuf u = make_buf(2, mode, 0);
	struct drain_state d = { 0 };
	struct trb_slot open;
	const char *packet = NULL;
	__u64 pos = 0;

	EXPECT_EQ(trb_reserve(&u.rb, &open, 1, quarter(0), TASK), 0);
	EXPECT_EQ(write_quarters(&u.rb, 1, 7), 7);
	EXPECT_EQ(write_quarters(&u.rb, 0, 5), 0);
	EXPECT_EQ(u.rb.ctl->lost_wrap, 5);
	EXPECT_EQ(u.rb.ctl->lost_full, 0);
	EXPECT_EQ(trb_get_subbuf(&u.rb, &pos, &packet), -EAGAIN);
	trb_commit(&u.rb, &open);
	EXPECT_EQ(drain(&u.rb, &d, NULL, NULL), 2);
	EXPECT(d.problem == NULL);
	EXPECT_EQ(d.records, 8);
	tr_ubuf_destroy(&u);
}

static void test_wrap_over_open_reservation_discard(void)
{
	wrap_over_open_reservation(TR_MODE_DISCARD);
}

static void test_wrap_over_open_reservation_overwrite(void)
{
	wrap_over_open_reservation(TR_MODE_OVERWRITE);
}

/*
 * A scripted workload covering every switch kind, losses, flushes and
 * reads; it records the packets it reads, in order.
 */
static size_t scripted_run(enum tr_buf_mode mode, __u64 start, char *out, size_t max)
{
	struct tr_ubuf u = make_buf(4, mode, start);
	size_t n = 0;
	const char *packet = NULL;
	__u64 pos = 0;
	int round;

	for (round = 0; round < 12; round++) {
		write_records(&u.rb, 5, THIRD);
		write_quarters(&u.rb, 0, 4);
		write_record(&u.rb, 0, 100000, 0);
		if (round % 3 == 0)
			trb_flush(&u.rb);
		while (round % 4 == 1 && trb_get_subbuf(&u.rb, &pos, &packet) == 0) {
			if (n < max)
				memcpy(out + n++ * SB, packet, SB);
			trb_put_subbuf(&u.rb, pos);
		}
	}
	trb_flush(&u.rb);
	while (trb_get_subbuf(&u.rb, &pos, &packet) == 0) {
		if (n < max)
			memcpy(out + n++ * SB, packet, SB);
		trb_put_subbuf(&u.rb, pos);
	}
	tr_ubuf_destroy(&u);
	return n;
}

static void counters_near_wrap_give_same_packets(enum tr_buf_mode mode)
{
	enum { MAX = 64 };
	char *from_zero = calloc(MAX, SB), *near_wrap = calloc(MAX, SB);
	size_t n = scripted_run(mode, 0, from_zero, MAX);

	EXPECT(n > 4);
	EXPECT_EQ(scripted_run(mode, NEAR_WRAP, near_wrap, MAX), n);
	EXPECT(memcmp(from_zero, near_wrap, n * SB) == 0);
	free(from_zero);
	free(near_wrap);
}

static void test_counters_near_wrap_give_same_packets_discard(void)
{
	counters_near_wrap_give_same_packets(TR_MODE_DISCARD);
}

static void test_counters_near_wrap_give_same_packets_overwrite(void)
{
	counters_near_wrap_give_same_packets(TR_MODE_OVERWRITE);
}

/*
 * trb_copy_open(): the open sub-buffer copied without writing the buffer.
 * Whole: only once every reserved byte is committed.  Else the records
 * before the first not committed: a writer that died in the middle of a
 * record, and one that died in a record that a nested one (committed)
 * interrupted.
 */
static void test_copy_open_takes_committed_records(void)
{
	struct tr_ubuf u = make_buf(4, TR_MODE_DISCARD, 0);
	const struct trb_buf *b = &u.rb;
	const struct tr_packet_header *h;
	struct trb_slot dying, nested;
	char copy[SB];
	__u64 pos = 1;

	EXPECT_EQ(trb_copy_open(b, copy, &pos, 1), 0);		/* nothing yet */
	REQUIRE_EQ(write_records(b, 2, 40), 2);
	EXPECT_EQ(trb_copy_open(b, copy, &pos, 1), HDR + REC(40) + EVH + 40);
	EXPECT_EQ(pos, 0);
	h = (const void *)copy;
	EXPECT_EQ(h->content_size, 8 * (HDR + REC(40) + EVH + 40));
	EXPECT_EQ(h->packet_size, 8 * SB);
	EXPECT(!tr_packet_header_problem(h, SB));
	/* Dies in the middle of a third record. */
	REQUIRE_EQ(trb_reserve(b, &dying, 3, 24, TASK), 0);
	EXPECT_EQ(trb_copy_open(b, copy, &pos, 1), -EAGAIN);
	EXPECT_EQ(trb_copy_open(b, copy, &pos, 0), HDR + REC(40) + EVH + 40);
	/* ... after a signal handler's record went in and was committed. */
	REQUIRE_EQ(trb_reserve(b, &nested, 4, 64, TASK), 0);
	trb_commit(b, &nested);
	EXPECT_EQ(trb_copy_open(b, copy, &pos, 1), -EAGAIN);
	EXPECT_EQ(trb_copy_open(b, copy, &pos, 0), HDR + REC(40) + EVH + 40);
	/* Once it is committed, all of it. */
	trb_commit(b, &dying);
	EXPECT_EQ(trb_copy_open(b, copy, &pos, 0), HDR + 2 * REC(40) + REC(24) + EVH + 64);
	EXPECT_EQ(trb_copy_open(b, copy, &pos, 1), HDR + 2 * REC(40) + REC(24) + EVH + 64);
	/* Nothing was written: the sub-buffer is still open, not delivered. */
	EXPECT(!trb_subbuf_ready(b));
	tr_ubuf_destroy(&u);
}

static void test_bad_geometry_is_refused_with_reason(void)
{
	static const struct { __u64 size; __u64 n; const char *why; } bad[] = {
		{ 3000, 2, "sub-buffer size must be a power of two" },
		{ 2048, 2, "sub-buffer size must be at least 4 KiB" },
		{ 1ull << 31, 2, "sub-buffer size must be at most 1 GiB" },
		{ 4096, 3, "number of sub-buffers must be a power of two" },
		{ 4096, 1, "there must be at least 2 sub-buffers" },
		{ 4096, 128, "there must be at most 64 sub-buffers" },
	};
	struct trb_config cfg = { .subbuf_size = 4096, .nsubbuf = 2 };
	struct tr_ubuf u;
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = trb_geometry_problem(bad[i].size, bad[i].n);

		EXPECT(why && strcmp(why, bad[i].why) == 0);
		cfg.subbuf_size = bad[i].size;
		cfg.nsubbuf = bad[i].n;
		EXPECT_EQ(tr_ubuf_create(&u, &cfg, fake_clock), -EINVAL);
	}
	EXPECT(trb_geometry_problem(4096, 2) == NULL);
	EXPECT(trb_geometry_problem(1 << 30, 64) == NULL);
	cfg = (struct trb_config) { .subbuf_size = 4096, .nsubbuf = 2, .start = 100 };
	EXPECT_EQ(tr_ubuf_create(&u, &cfg, fake_clock), -EINVAL);
}

static void test_attach_refuses_corrupt_control_block(void)
{
	struct tr_ubuf u = make_buf(2, TR_MODE_DISCARD, 0);
	struct trb_buf other = { 0 };

	EXPECT_EQ(trb_attach(&other, u.region, fake_clock), 0);
	EXPECT_EQ(other.buf_size, 2 * SB);
	u.rb.ctl->nsubbuf_order = 7;
	EXPECT_EQ(trb_attach(&other, u.region, fake_clock), -EPROTO);
	u.rb.ctl->nsubbuf_order = 1;
	u.rb.ctl->magic ^= 1;
	EXPECT_EQ(trb_attach(&other, u.region, fake_clock), -EPROTO);
	/* Not yet initialised (trb_init() writes the magic last): try again later. */
	u.rb.ctl->magic = 0;
	EXPECT_EQ(trb_attach(&other, u.region, fake_clock), -EAGAIN);
	tr_ubuf_destroy(&u);
}

static void test_packet_checks_catch_corruption(void)
{
	struct tr_ubuf u = make_buf(2, TR_MODE_DISCARD, 0);
	struct tr_packet_header *h;
	struct tr_event_header *e;
	struct tr_packet_iter it;
	static char packet[SB];
	const char *problem;
	const char *taken = NULL;
	__u64 pos = 0;

	write_records(&u.rb, 2, 40);
	trb_flush(&u.rb);
	REQUIRE_EQ(trb_get_subbuf(&u.rb, &pos, &taken), 0);
	memcpy(packet, taken, SB);
	h = (void *)packet;
	e = (void *)(packet + HDR + REC(40));
	EXPECT(tr_packet_header_problem(h, SB) == NULL);
	h->content_size = 2 * SB * 8;
	EXPECT(tr_packet_header_problem(h, SB) != NULL);
	h->content_size = (HDR + 2 * REC(40)) * 8;
	h->magic = 0;
	EXPECT(tr_packet_header_problem(h, SB) != NULL);
	h->magic = TR_PACKET_MAGIC;
	e->size = 1000;
	tr_packet_iter_init(&it, packet);
	EXPECT(tr_packet_next(&it, &problem) != NULL);
	EXPECT(tr_packet_next(&it, &problem) == NULL);
	EXPECT(problem && strstr(problem, "past the content"));
	e->size = 40;
	e->timestamp = h->timestamp_end + 1;
	tr_packet_iter_init(&it, packet);
	tr_packet_next(&it, &problem);
	EXPECT(tr_packet_next(&it, &problem) == NULL);
	EXPECT(problem && strstr(problem, "timestamp"));
	tr_ubuf_destroy(&u);
}

int main(void)
{
	TAP_RUN(test_known_sequence_gives_byte_exact_packet);
	TAP_RUN(test_exact_fit_closes_packet_without_flush);
	TAP_RUN(test_record_that_does_not_fit_switches_with_padding);
	TAP_RUN(test_record_larger_than_subbuffer_is_counted_not_split);
	TAP_RUN(test_discard_mode_drops_and_counts_when_full);
	TAP_RUN(test_overwrite_mode_keeps_newest_and_counts_overrun);
	TAP_RUN(test_held_subbuffer_never_changes_under_overwrite);
	TAP_RUN(test_commits_out_of_order_deliver_only_when_complete);
	TAP_RUN(test_wrap_over_open_reservation_discard);
	TAP_RUN(test_wrap_over_open_reservation_overwrite);
	TAP_RUN(test_counters_near_wrap_give_same_packets_discard);
	TAP_RUN(test_counters_near_wrap_give_same_packets_overwrite);
	TAP_RUN(test_copy_open_takes_committed_records);
	TAP_RUN(test_bad_geometry_is_refused_with_reason);
	TAP_RUN(test_attach_refuses_corrupt_control_block);
	TAP_RUN(test_packet_checks_catch_corruption);
	return tap_done();
}

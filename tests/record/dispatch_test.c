// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The record loop's dispatch to outputs (record/consume.c): buffers in
 * this process's memory (layout/ubuf.h) behind a buffers ops table of the
 * test's own, fake outputs registered as the stream files, the live
 * reader and the relay register.  Every delivered packet reaches every
 * output once, in rank order whatever the order they registered in,
 * buffer by buffer and oldest first; a packet whose header is not a
 * packet's reaches none; a failed write stops the packet and the
 * consumer; flush(), round(), summary() and close() reach the outputs
 * that have them; the summary counts records and losses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "record/session.h"
#include "layout/ubuf.h"

#define SB		4096u
#define NSTREAMS	2
#define NEVENTS		3
#define MISSES_ID	2	/* the recursion misses' event: its records are not counted */
#define PAYLOAD		100

/* --- The buffers: two in process memory, behind an ops table ----------------- */

static struct tr_ubuf ubufs[NSTREAMS];
static struct trb_buf handles[NSTREAMS];
static unsigned int taken, given_back;
static int corrupt_next;		/* the next packet taken is given a bad magic */

static int ubuf_get_subbuf(struct tr_buffers *b, unsigned int stream, __u64 *pos,
			   const char **packet)
{
	int err = trb_get_subbuf(&b->buf[stream], pos, packet);

	if (!err && corrupt_next) {
		((struct tr_packet_header *)*packet)->magic = ~TR_PACKET_MAGIC;
		corrupt_next = 0;
	}
	taken += !err;
	return err;
}

static void ubuf_put_subbuf(struct tr_buffers *b, unsigned int stream, __u64 pos)
{
	given_back++;
	trb_put_subbuf(&b->buf[stream], pos);
}

static const struct tr_buffers_ops ubuf_ops = {
	.name = "ubuf", .get_subbuf = ubuf_get_subbuf, .put_subbuf = ubuf_put_subbuf,
};

/* Fresh buffers (discard mode, two sub-buffers each) and counts. */
static void make_buffers(struct tr_buffers *b)
{
	unsigned int i;

	for (i = 0; i < NSTREAMS; i++) {
		struct trb_config cfg = {
			.subbuf_size = SB, .nsubbuf = 2, .mode = TR_MODE_DISCARD,
			.cpu = i, .stream_id = 0,
		};

		if (tr_ubuf_create(&ubufs[i], &cfg, tr_clock_monotonic_ns)) {
			tap_diag("cannot create a buffer");
			exit(1);
		}
		handles[i] = ubufs[i].rb;
	}
	*b = (struct tr_buffers) { .ops = &ubuf_ops, .buf = handles, .nstreams = NSTREAMS };
	taken = given_back = 0;
	corrupt_next = 0;
}

static void free_buffers(void)
{
	unsigned int i;

	for (i = 0; i < NSTREAMS; i++)
		tr_ubuf_destroy(&ubufs[i]);
}

/* A record of event id into buffer stream; 0 or the loss's error. */
static int write_record(unsigned int stream, __u32 id)
{
	struct trb_slot slot;
	int err = trb_reserve(&handles[stream], &slot, id, PAYLOAD, 42ull << 32 | 43);

	if (err)
		return err;
	memset(trb_payload(&slot), id, PAYLOAD);
	trb_commit(&handles[stream], &slot);
	return 0;
}

/* A packet of these records delivered in buffer stream (the sub-buffer closed). */
static void deliver(unsigned int stream, const __u32 *ids, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (write_record(stream, ids[i])) {
			tap_diag("cannot write a record");
			exit(1);
		}
	trb_flush(&handles[stream]);
}

/* --- The outputs: each notes what reached it ---------------------------------- */

#define MAX_CALLS	64

/* What reached an output: a packet (its buffer, sequence number), or another call. */
struct call {
	char output;			/* 'F'iles, 'L'ive, 'R'elay */
	char what;			/* 'p'acket, 'f'lush, 'r'ound, 's'ummary, 'c'lose */
	unsigned int stream;
	__u64 seq;			/* a packet's; flush()'s and round()'s now */
	int last;			/* round()'s */
};

static struct call calls[MAX_CALLS];
static unsigned int ncalls;
static int fail_packet_seq = -1;	/* the files' write of this packet fails */

static void note(char output, char what, unsigned int stream, __u64 seq, int last)
{
	if (ncalls < MAX_CALLS)
		calls[ncalls] = (struct call) { output, what, stream, seq, last };
	ncalls++;
}

static __u64 seq_of(const void *packet)
{
	return ((const struct tr_packet_header *)packet)->packet_seq_num;
}

static void files_packet(struct session *s, unsigned int stream, const void *packet)
{
	note('F', 'p', stream, seq_of(packet), 0);
	if ((int)seq_of(packet) == fail_packet_seq)
		s->write_error = -EIO;
}

static void files_close(struct session *s)
{
	(void)s;
	note('F', 'c', 0, 0, 0);
}

static void live_packet(struct session *s, unsigned int stream, const void *packet)
{
	(void)s;
	note('L', 'p', stream, seq_of(packet), 0);
}

static void live_round(struct session *s, __u64 now, int last)
{
	(void)s;
	note('L', 'r', 0, now, last);
}

static void relay_packet(struct session *s, unsigned int stream, const void *packet)
{
	(void)s;
	note('R', 'p', stream, seq_of(packet), 0);
}

static void relay_flush(struct session *s, __u64 now)
{
	(void)s;
	note('R', 'f', 0, now, 0);
}

static void relay_summary(const struct session *s)
{
	(void)s;
	note('R', 's', 0, 0, 0);
}

static void relay_close(struct session *s)
{
	(void)s;
	note('R', 'c', 0, 0, 0);
}

/* As the stream files, the live reader and the relay: each has what theirs have. */
static const struct rec_output files = {
	.rank = REC_OUTPUT_FILES, .packet = files_packet, .close = files_close,
};
static const struct rec_output live = {
	.rank = REC_OUTPUT_LIVE, .packet = live_packet, .round = live_round,
};
static const struct rec_output relay = {
	.rank = REC_OUTPUT_RELAY, .packet = relay_packet, .flush = relay_flush,
	.summary = relay_summary, .close = relay_close,
};

/* --- The session ----------------------------------------------------------------- */

static struct tr_record_opts opts = { .output = "trace" };
static unsigned long per_event[NEVENTS];

/* A session over fresh buffers, the three outputs registered out of rank order. */
static void make_session(struct session *s)
{
	*s = (struct session) {
		.o = &opts, .nstreams = NSTREAMS, .ncpu = NSTREAMS, .nchannels = 1,
		.misses_event = MISSES_ID, .per_event = per_event,
	};
	s->events.count = NEVENTS;
	memset(per_event, 0, sizeof(per_event));
	make_buffers(&s->buffers);
	ncalls = 0;
	fail_packet_seq = -1;
	rec_output_add(s, &relay);
	rec_output_add(s, &files);
	rec_output_add(s, &live);
	rec_output_add(s, &relay);	/* once only */
}

/* Call i was output's packet seq of buffer stream. */
static int packet_call(unsigned int i, char output, unsigned int stream, __u64 seq)
{
	return i < ncalls && calls[i].output == output && calls[i].what == 'p' &&
	       calls[i].stream == stream && calls[i].seq == seq;
}

/* Calls from i on were packet seq of buffer stream to the files, the live reader, the relay. */
static int packet_to_all(unsigned int i, unsigned int stream, __u64 seq)
{
	return packet_call(i, 'F', stream, seq) && packet_call(i + 1, 'L', stream, seq) &&
	       packet_call(i + 2, 'R', stream, seq);
}

/* --- Tests --------------------------------------------------------------------------- */

static void every_packet_reaches_every_output_once_in_rank_order(void)
{
	static const __u32 first[] = { 0, 1, MISSES_ID }, second[] = { 1, 1 }, other[] = { 0 };
	struct session s;

	make_session(&s);
	REQUIRE_EQ(s.noutputs, 3);
	deliver(0, first, 3);
	deliver(0, second, 2);
	deliver(1, other, 1);
	rec_consume(&s);
	EXPECT_EQ(ncalls, 9);
	EXPECT(packet_to_all(0, 0, 0));
	EXPECT(packet_to_all(3, 0, 1));
	EXPECT(packet_to_all(6, 1, 0));
	EXPECT_EQ(taken, 3);
	EXPECT_EQ(given_back, 3);
	/* The summary's counts: every record but the misses' own. */
	EXPECT_EQ(s.records, 5);
	EXPECT_EQ(per_event[0], 2);
	EXPECT_EQ(per_event[1], 3);
	EXPECT_EQ(per_event[MISSES_ID], 0);
	/* Nothing delivered since: nothing more. */
	rec_consume(&s);
	EXPECT_EQ(ncalls, 9);
	EXPECT_EQ(s.write_error, 0);
	rec_outputs_close(&s);
	free_buffers();
}

static void a_packet_that_is_not_one_reaches_no_output(void)
{
	static const __u32 ids[] = { 0 };
	struct session s;

	make_session(&s);
	deliver(0, ids, 1);
	deliver(0, ids, 1);
	corrupt_next = 1;
	rec_consume(&s);
	EXPECT_EQ(ncalls, 3);
	EXPECT(packet_to_all(0, 0, 1));
	EXPECT_EQ(given_back, 2);		/* given back all the same */
	EXPECT_EQ(s.records, 1);
	rec_outputs_close(&s);
	free_buffers();
}

static void a_failed_write_stops_the_packet_and_the_consumer(void)
{
	static const __u32 ids[] = { 1 };
	struct session s;

	make_session(&s);
	deliver(0, ids, 1);
	deliver(0, ids, 1);
	deliver(1, ids, 1);
	fail_packet_seq = 1;
	rec_consume(&s);
	/* Packet 0 everywhere; packet 1 to the files only; buffer 1 not read. */
	EXPECT_EQ(ncalls, 4);
	EXPECT(packet_to_all(0, 0, 0));
	EXPECT(packet_call(3, 'F', 0, 1));
	EXPECT_EQ(s.write_error, -EIO);
	EXPECT_EQ(taken, 2);
	EXPECT_EQ(given_back, 2);
	EXPECT_EQ(s.records, 1);	/* the failed packet's are not counted */
	rec_outputs_close(&s);
	free_buffers();
}

static void a_removed_output_gets_no_more_packets(void)
{
	static const __u32 ids[] = { 0 };
	struct session s;

	make_session(&s);
	rec_output_remove(&s, &live);
	rec_output_remove(&s, &live);	/* no more than once */
	EXPECT_EQ(s.noutputs, 2);
	deliver(1, ids, 1);
	rec_consume(&s);
	EXPECT_EQ(ncalls, 2);
	EXPECT(packet_call(0, 'F', 1, 0));
	EXPECT(packet_call(1, 'R', 1, 0));
	rec_outputs_close(&s);
	free_buffers();
}

static void flush_round_summary_and_close_reach_those_that_have_them(void)
{
	struct session s;

	make_session(&s);
	rec_outputs_flush(&s, 1000);
	rec_outputs_round(&s, 2000, 0);
	rec_outputs_round(&s, 3000, 1);
	rec_outputs_summary(&s);
	REQUIRE_EQ(ncalls, 4);
	EXPECT(calls[0].output == 'R' && calls[0].what == 'f' && calls[0].seq == 1000);
	EXPECT(calls[1].output == 'L' && calls[1].what == 'r' && calls[1].seq == 2000 &&
	       !calls[1].last);
	EXPECT(calls[2].output == 'L' && calls[2].what == 'r' && calls[2].seq == 3000 &&
	       calls[2].last);
	EXPECT(calls[3].output == 'R' && calls[3].what == 's');
	/* Closing: each once, in rank order, none left. */
	rec_outputs_close(&s);
	REQUIRE_EQ(ncalls, 6);
	EXPECT(calls[4].output == 'F' && calls[4].what == 'c');
	EXPECT(calls[5].output == 'R' && calls[5].what == 'c');
	EXPECT_EQ(s.noutputs, 0);
	rec_outputs_close(&s);
	EXPECT_EQ(ncalls, 6);
	free_buffers();
}

static void losses_are_counted_with_the_misses(void)
{
	static const __u32 ids[] = { 0 };
	struct session s;
	unsigned int lost = 0, i;

	make_session(&s);
	/* Buffer 1 fills (discard mode): what does not fit is lost. */
	for (i = 0; i < 3 * SB / PAYLOAD; i++)
		lost += write_record(1, 0) != 0;
	EXPECT(lost > 0);
	deliver(0, ids, 1);
	s.misses = 7;
	EXPECT_EQ(rec_lost_total(&s), lost + 7);
	rec_consume(&s);
	/* Taking what was delivered loses nothing more. */
	EXPECT_EQ(rec_lost_total(&s), lost + 7);
	EXPECT(ncalls >= 3 && ncalls % 3 == 0);
	for (i = 0; i + 2 < ncalls && i + 2 < MAX_CALLS; i += 3)
		EXPECT(packet_to_all(i, calls[i].stream, calls[i].seq));
	rec_outputs_close(&s);
	free_buffers();
}

int main(void)
{
	TAP_RUN(every_packet_reaches_every_output_once_in_rank_order);
	TAP_RUN(a_packet_that_is_not_one_reaches_no_output);
	TAP_RUN(a_failed_write_stops_the_packet_and_the_consumer);
	TAP_RUN(a_removed_output_gets_no_more_packets);
	TAP_RUN(flush_round_summary_and_close_reach_those_that_have_them);
	TAP_RUN(losses_are_counted_with_the_misses);
	return tap_done();
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One layout, two writers: the BPF writer (bpf/ringbuf.bpf.h), run in the
 * kernel through BPF_PROG_TEST_RUN, fills the same packets as the C writer
 * (include/tracer/ringbuf.h) given the same records, and the user-space
 * reader takes them from the mapped BPF map with the counts adding up.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tap.h"
#include "layout/ubuf.h"
#include "buffers/bpfbuf.h"
#include "drain.h"
#include "writer_loop.skel.h"

#define SB		4096u
#define NEAR_WRAP	(0ull - 3 * SB)

struct bpf_writer {
	struct writer_loop *skel;
	struct tr_bpfbuf bb;
};

static unsigned char pattern[TR_BPF_MAX_RECORD];

static int bpf_writer_open(struct bpf_writer *w, const struct trb_config *cfg)
{
	unsigned int ncpu = libbpf_num_possible_cpus();
	int err;

	w->skel = writer_loop__open();
	if (!w->skel)
		return -errno;
	TR_BPFBUF_SET_GEOMETRY(w->skel->rodata, cfg, 1, ncpu);
	err = tr_bpfbuf_size_map(w->skel->maps.trb_regions, cfg, 1, ncpu);
	if (!err)
		err = writer_loop__load(w->skel);
	if (!err)
		err = tr_bpfbuf_open(&w->bb, w->skel->maps.trb_regions, cfg, 1, ncpu,
				     tr_clock_monotonic_ns);
	if (err) {
		writer_loop__destroy(w->skel);
		return err;
	}
	memcpy(w->skel->bss->trb_payload_src, pattern, sizeof(pattern));
	return 0;
}

static void bpf_writer_close(struct bpf_writer *w)
{
	tr_bpfbuf_close(&w->bb);
	writer_loop__destroy(w->skel);
}

/* Runs the BPF loop on a CPU: count records of one id and payload size. */
static int bpf_write(struct bpf_writer *w, int cpu, __u64 count, __u32 id, __u32 size)
{
	__u64 args[3] = { count, id, size };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args,
		    .ctx_size_in = sizeof(args), .flags = BPF_F_TEST_RUN_ON_CPU,
		    .cpu = cpu);
	int err = bpf_prog_test_run_opts(bpf_program__fd(w->skel->progs.trb_write_loop),
					 &opts);

	return err ? err : (int)opts.retval;
}

/* Writes as this thread, as the BPF loop run from it on its CPU does. */
static void c_write(const struct trb_buf *b, __u64 count, __u32 id, __u32 size)
{
	__u64 me = (__u64)getpid() << 32 | gettid();
	struct trb_slot s;

	while (count--)
		if (trb_reserve(b, &s, id, size, me) == 0) {
			memcpy(trb_payload(&s), pattern, size);
			trb_commit(b, &s);
		}
}

/* Records of every switch kind, and losses: no reader until the end. */
static const struct { __u64 count; __u32 id, size; } script[] = {
	{ 3, 1, 1184 }, { 2, 2, 40 }, { 1, 3, 0 }, { 5, 4, 1184 },
	{ 1, 5, 3976 }, { 1, 6, 5000 }, { 9, 7, 13 },
};

/* Packets with their clock readings zeroed, content only, in read order. */
static size_t collect(const struct trb_buf *b, char *out, size_t max)
{
	const char *packet;
	size_t n = 0;
	__u64 pos;

	trb_flush(b);
	while (trb_get_subbuf(b, &pos, &packet) == 0) {
		struct tr_packet_header *h = (void *)(out + n * SB);
		struct tr_packet_iter it;
		const struct tr_event_header *e;
		const char *problem;

		if (n < max) {
			memcpy(h, packet, ((const struct tr_packet_header *)packet)->content_size / 8);
			tr_packet_iter_init(&it, h);
			while ((e = tr_packet_next(&it, &problem)))
				((struct tr_event_header *)e)->timestamp = 0;
			EXPECT(problem == NULL);
			h->timestamp_begin = h->timestamp_end = 0;
			n++;
		}
		trb_put_subbuf(b, pos);
	}
	return n;
}

static void same_packets_from_both_writers(enum tr_buf_mode mode, __u64 start)
{
	enum { MAX = 16 };
	struct trb_config cfg = {
		.subbuf_size = SB, .nsubbuf = 2, .mode = mode, .start = start,
	};
	char *from_c = calloc(MAX, SB), *from_bpf = calloc(MAX, SB);
	cpu_set_t before, cpu0;
	struct bpf_writer w;
	struct tr_ubuf u;
	size_t n, i;

	/*
	 * On CPU 0 the loop runs in this thread (not in an interrupt there),
	 * so its records name this thread, as c_write()'s do.
	 */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	REQUIRE_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
	REQUIRE_EQ(sched_setaffinity(0, sizeof(cpu0), &cpu0), 0);
	REQUIRE_EQ(bpf_writer_open(&w, &cfg), 0);
	REQUIRE_EQ(tr_ubuf_create(&u, &cfg, tr_clock_monotonic_ns), 0);
	for (i = 0; i < sizeof(script) / sizeof(script[0]); i++) {
		EXPECT_EQ(bpf_write(&w, 0, script[i].count, script[i].id, script[i].size), 0);
		c_write(&u.rb, script[i].count, script[i].id, script[i].size);
	}
	EXPECT(trb_lost(&u.rb) > 0);
	EXPECT_EQ(trb_lost(&w.bb.buf[0]), trb_lost(&u.rb));
	EXPECT_EQ(w.bb.buf[0].ctl->lost_big, u.rb.ctl->lost_big);
	n = collect(&u.rb, from_c, MAX);
	EXPECT(n >= 2);
	EXPECT_EQ(collect(&w.bb.buf[0], from_bpf, MAX), n);
	EXPECT(memcmp(from_c, from_bpf, n * SB) == 0);
	sched_setaffinity(0, sizeof(before), &before);
	tr_ubuf_destroy(&u);
	bpf_writer_close(&w);
	free(from_c);
	free(from_bpf);
}

static void test_same_packets_discard(void)
{
	same_packets_from_both_writers(TR_MODE_DISCARD, 0);
}

static void test_same_packets_overwrite_counters_near_wrap(void)
{
	same_packets_from_both_writers(TR_MODE_OVERWRITE, NEAR_WRAP);
}

struct reader {
	const struct trb_buf *buf;
	struct drain_state d;
	volatile int stop;
};

static void *read_until_stopped(void *p)
{
	struct reader *r = p;

	while (!r->stop)
		if (!drain(r->buf, &r->d, NULL, NULL))
			usleep(100);
	return NULL;
}

/* A million records from the BPF loop on CPU 0 while a thread reads. */
static void counts_add_up_with_concurrent_reader(enum tr_buf_mode mode)
{
	struct trb_config cfg = { .subbuf_size = 65536, .nsubbuf = 4, .mode = mode };
	struct reader r = { 0 };
	const struct trb_buf *b;
	struct bpf_writer w;
	pthread_t reader;
	__u64 attempted = 0;
	int round;

	REQUIRE_EQ(bpf_writer_open(&w, &cfg), 0);
	b = &w.bb.buf[0];
	r.buf = b;
	pthread_create(&reader, NULL, read_until_stopped, &r);
	for (round = 0; round < 200; round++) {
		EXPECT_EQ(bpf_write(&w, 0, 5000, 1, 8 * (round % 10)), 0);
		attempted += 5000;
		if (round % 2)
			usleep(1000);
	}
	r.stop = 1;
	pthread_join(reader, NULL);
	trb_flush(b);
	drain(b, &r.d, NULL, NULL);
	tap_diag("%s: attempted %llu, read %lu, lost full %llu wrap %llu busy %llu, overrun %llu",
		 mode == TR_MODE_DISCARD ? "discard" : "overwrite", attempted,
		 r.d.records, b->ctl->lost_full, b->ctl->lost_wrap,
		 b->ctl->lost_busy, b->ctl->records_overrun);
	EXPECT(r.d.problem == NULL);
	EXPECT_EQ(w.skel->bss->trb_written + w.skel->bss->trb_failed, attempted);
	EXPECT_EQ(w.skel->bss->trb_failed, trb_lost(b));
	EXPECT_EQ(r.d.records + b->ctl->records_overrun, w.skel->bss->trb_written);
	EXPECT(r.d.packets > 10);
	bpf_writer_close(&w);
}

static void test_counts_add_up_discard(void)
{
	counts_add_up_with_concurrent_reader(TR_MODE_DISCARD);
}

static void test_counts_add_up_overwrite(void)
{
	counts_add_up_with_concurrent_reader(TR_MODE_OVERWRITE);
}

static void test_each_cpu_writes_its_own_buffer(void)
{
	struct trb_config cfg = { .subbuf_size = SB, .nsubbuf = 4 };
	struct drain_state d[2] = { 0 };
	struct bpf_writer w;
	int cpu;

	if (libbpf_num_possible_cpus() < 2) {
		tap_diag("one CPU: nothing to compare");
		return;
	}
	REQUIRE_EQ(bpf_writer_open(&w, &cfg), 0);
	for (cpu = 0; cpu < 2; cpu++) {
		EXPECT_EQ(bpf_write(&w, cpu, 10 + cpu, cpu + 1, 16), 0);
		trb_flush(&w.bb.buf[cpu]);
		drain(&w.bb.buf[cpu], &d[cpu], NULL, NULL);
		EXPECT(d[cpu].problem == NULL);
		EXPECT_EQ(d[cpu].records, 10 + cpu);
	}
	bpf_writer_close(&w);
}

int main(void)
{
	struct trb_config cfg = { .subbuf_size = SB, .nsubbuf = 2 };
	struct bpf_writer probe;
	unsigned i;
	int err;

	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = i * 13 + 7;
	err = bpf_writer_open(&probe, &cfg);
	if (err == -EPERM || err == -EACCES) {
		tap_skip("BPF writer tests", "loading BPF programs needs root or CAP_BPF and CAP_PERFMON");
		return tap_done();
	}
	if (err) {
		tap_diag("the BPF writer does not load: %s", strerror(-err));
		return 1;
	}
	bpf_writer_close(&probe);
	libbpf_set_print(NULL);
	TAP_RUN(test_same_packets_discard);
	TAP_RUN(test_same_packets_overwrite_counters_near_wrap);
	TAP_RUN(test_counts_add_up_discard);
	TAP_RUN(test_counts_add_up_overwrite);
	TAP_RUN(test_each_cpu_writes_its_own_buffer);
	return tap_done();
}

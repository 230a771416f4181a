/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A trace directory written by a test (report_test.c, analyze_test.c):
 * records of known times, tasks and payloads written through the ring
 * buffer with a clock the test sets, each CPU's packets appended to its
 * stream file, and losses made as the buffer makes them (an event too big
 * for a sub-buffer, counted in the next packet's header).
 */
#ifndef TRACER_TESTS_REPORT_WRITER_H
#define TRACER_TESTS_REPORT_WRITER_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <tracer/record.h>

#include "tap.h"
#include "layout/ubuf.h"

static char dir[64];
static __u64 fake_now;

static __u64 fake_clock(void)
{
	return fake_now;
}

/* What one CPU's buffer writes into its stream file, channel0_CPU. */
struct cpu_stream {
	struct tr_ubuf buf;
	int fd;
};

static void write_file(const char *name, const void *data, size_t len)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	EXPECT(fd >= 0);
	EXPECT_EQ(write(fd, data, len), len);
	close(fd);
}

/* The trace directory dir made, with its .tracer/ (name: the test's, in the path). */
static void make_dir(const char *name)
{
	char path[128];

	snprintf(dir, sizeof(dir), "/tmp/tracer-%s-test.XXXXXX", name);
	REQUIRE_EQ(mkdtemp(dir) != NULL, 1);
	snprintf(path, sizeof(path), "%s/.tracer", dir);
	REQUIRE_EQ(mkdir(path, 0700), 0);
}

/* A record of id at ts by pid/tid, its payload size bytes of payload. */
static void emit(struct cpu_stream *c, __u64 ts, __u32 id, __u32 pid, __u32 tid,
		 const void *payload, size_t size)
{
	struct trb_slot slot;

	fake_now = ts;
	REQUIRE_EQ(trb_reserve(&c->buf.rb, &slot, id, size, (__u64)pid << 32 | tid), 0);
	memcpy(trb_payload(&slot), payload, size);
	trb_commit(&c->buf.rb, &slot);
}

/* The packets the buffer delivered up to now, appended to its stream file. */
static void flush(struct cpu_stream *c, __u64 now)
{
	const char *packet;
	__u64 pos;

	fake_now = now;
	trb_flush(&c->buf.rb);
	while (trb_get_subbuf(&c->buf.rb, &pos, &packet) == 0) {
		EXPECT_EQ(write(c->fd, packet, c->buf.rb.subbuf_size), c->buf.rb.subbuf_size);
		trb_put_subbuf(&c->buf.rb, pos);
	}
}

static void open_stream(struct cpu_stream *c, unsigned int cpu)
{
	struct trb_config cfg = { .subbuf_size = 4096, .nsubbuf = 2, .mode = TR_MODE_DISCARD,
				  .cpu = cpu };
	char path[128];

	EXPECT_EQ(tr_ubuf_create(&c->buf, &cfg, fake_clock), 0);
	snprintf(path, sizeof(path), "%s/channel0_%u", dir, cpu);
	c->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	EXPECT(c->fd >= 0);
}

static void close_stream(struct cpu_stream *c)
{
	close(c->fd);
	tr_ubuf_destroy(&c->buf);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

static void remove_trace(void)
{
	nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

#endif /* TRACER_TESTS_REPORT_WRITER_H */

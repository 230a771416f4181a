// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Sub-buffers are CTF packets as they stand: records written through the
 * ring buffer, packets appended to a stream file unchanged, and
 * babeltrace2 reads every event with its field names and values, and the
 * losses where they happened.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "layout/ubuf.h"
#include "layout/ctf.h"

struct sample {
	__u32 count;
	__s64 delta;
	char comm[16];
	char path[];		/* NUL-terminated */
} __attribute__((packed));

static const struct tr_ctf_field sample_fields[] = {
	{ "count", TR_CTF_UINT, 4 },
	{ "delta", TR_CTF_INT, 8 },
	{ "comm", TR_CTF_CHARS, 16 },
	{ "path", TR_CTF_STRING, 0 },
};

static const struct tr_ctf_event_class classes[] = {
	{ "sample", 3, 0, sample_fields, 4 },
};

struct trace {
	char dir[64];
	struct tr_ubuf buf;
	int stream_fd;
	unsigned long written;
};

static void open_trace(struct trace *t, enum tr_buf_mode mode)
{
	struct trb_config cfg = {
		.subbuf_size = 4096, .nsubbuf = 2, .mode = mode,
	};
	struct tr_ctf_channel channel = {
		"channel0", 0, cfg.subbuf_size * cfg.nsubbuf, cfg.subbuf_size, mode,
	};
	struct tr_ctf_trace desc = {
		.hostname = "testhost", .backend = "user", .clock = "CLOCK_MONOTONIC",
		.clock_offset_ns = tr_ctf_clock_offset_ns(),
		.classes = classes, .nclasses = 1, .channels = &channel, .nchannels = 1,
	};
	char path[128];
	FILE *metadata;

	strcpy(t->dir, "/tmp/tracer-ctf-XXXXXX");
	if (!mkdtemp(t->dir) ||
	    tr_ubuf_create(&t->buf, &cfg, tr_clock_monotonic_ns)) {
		tap_diag("cannot set up %s", t->dir);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/metadata", t->dir);
	metadata = fopen(path, "w");
	EXPECT_EQ(tr_ctf_write_metadata(metadata, &desc), 0);
	fclose(metadata);
	snprintf(path, sizeof(path), "%s/channel0_0", t->dir);
	t->stream_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	t->written = 0;
}

static void emit_sample(struct trace *t, __u32 count)
{
	char path[32];
	struct sample *s;
	struct trb_slot slot;
	int len = snprintf(path, sizeof(path), "/p/%u", count) + 1;

	if (trb_reserve(&t->buf.rb, &slot, 3, sizeof(*s) + len, 7ull << 32 | 8))
		return;
	s = trb_payload(&slot);
	s->count = count;
	s->delta = -(__s64)count;
	memset(s->comm, 0, sizeof(s->comm));
	strcpy(s->comm, "abc");
	memcpy(s->path, path, len);
	trb_commit(&t->buf.rb, &slot);
	t->written++;
}

/* The consumer's job: every delivered sub-buffer to the stream file, unchanged. */
static void consume(struct trace *t)
{
	const char *packet;
	__u64 pos;

	while (trb_get_subbuf(&t->buf.rb, &pos, &packet) == 0) {
		EXPECT_EQ(tr_ctf_write_packet(t->stream_fd, packet), 0);
		trb_put_subbuf(&t->buf.rb, pos);
	}
}

static void close_trace(struct trace *t)
{
	trb_flush(&t->buf.rb);
	consume(t);
	close(t->stream_fd);
	tr_ubuf_destroy(&t->buf);
}

/* Runs babeltrace2 on the trace; returns its output, stderr included. */
static char *babeltrace(const struct trace *t, int *status)
{
	char cmd[128], *out = calloc(1, 1 << 20);
	size_t n = 0, got;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "babeltrace2 %s 2>&1", t->dir);
	p = popen(cmd, "r");
	while (p && n < (1 << 20) - 1 && (got = fread(out + n, 1, (1 << 20) - 1 - n, p)))
		n += got;
	*status = p ? pclose(p) : -1;
	return out;
}

static unsigned count_lines(const char *text, const char *needle)
{
	unsigned n = 0;
	const char *at;

	for (at = text; (at = strstr(at, needle)); at++)
		n++;
	return n;
}

static void remove_trace(struct trace *t)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/metadata", t->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/channel0_0", t->dir);
	unlink(path);
	rmdir(t->dir);
}

static void test_babeltrace_reads_every_event_with_fields(void)
{
	struct trace t;
	char *out;
	int status;
	__u32 i;

	open_trace(&t, TR_MODE_DISCARD);
	for (i = 0; i < 300; i++) {
		emit_sample(&t, i);
		if (i % 50 == 0)
			consume(&t);
	}
	close_trace(&t);
	EXPECT_EQ(t.written, 300);
	out = babeltrace(&t, &status);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(count_lines(out, " sample: "), 300);
	EXPECT(strstr(out, "{ count = 0, delta = 0, comm = \"abc\", path = \"/p/0\" }"));
	EXPECT(strstr(out, "{ count = 299, delta = -299, comm = \"abc\", path = \"/p/299\" }"));
	EXPECT(strstr(out, "testhost sample: { tracer_lost_full = 0, tracer_lost_wrap = 0, tracer_lost_big = 0, "
			   "tracer_lost_busy = 0, cpu_id = 0, tracer_layout_version = 2 }, "
			   "{ tracer_payload_size = 33, pid = 7, tid = 8 }"));
	EXPECT_EQ(count_lines(out, " W "), 0);
	EXPECT_EQ(count_lines(out, "discarded"), 0);
	if (tap_current_failed)
		tap_diag("babeltrace2 said: %.400s", out);
	free(out);
	remove_trace(&t);
}

static void test_babeltrace_reports_discarded_events(void)
{
	struct trace t;
	unsigned long lost;
	char *out, expect[64];
	int status;
	__u32 i;

	open_trace(&t, TR_MODE_DISCARD);
	for (i = 0; i < 1000; i++)
		emit_sample(&t, i);
	lost = t.buf.rb.ctl->lost_full;
	close_trace(&t);
	EXPECT(lost > 0);
	EXPECT_EQ(t.written + lost, 1000);
	out = babeltrace(&t, &status);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(count_lines(out, " sample: "), t.written);
	snprintf(expect, sizeof(expect), "discarded %lu events", lost);
	EXPECT(strstr(out, expect));
	if (tap_current_failed)
		tap_diag("babeltrace2 said: %.600s", out);
	free(out);
	remove_trace(&t);
}

int main(void)
{
	if (system("babeltrace2 --version >/dev/null 2>&1")) {
		tap_skip("babeltrace2 reads our packets", "babeltrace2 is not installed");
		return tap_done();
	}
	TAP_RUN(test_babeltrace_reads_every_event_with_fields);
	TAP_RUN(test_babeltrace_reports_discarded_events);
	return tap_done();
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Dumps: the buffers' contents as a CTF trace directory, from the
 * program, from a signal handler, or from a fatal signal's.  Everything
 * here is async-signal-safe: system calls only, no allocation, no stdio;
 * the texts were made when the events registered (ust_meta.c).
 *
 * A flight-recorder channel's dump is a snapshot (tr_ubuf_snapshot()): it
 * takes nothing, so each dump holds the newest events.  A discard
 * channel's dump is its reader: it consumes what the buffers delivered
 * (ringbuf.h's get and put), then copies the sub-buffer each writer is
 * filling (tr_ubuf_copy_open()), which it may not close.  That sub-buffer
 * is delivered later with the records this dump took: the next dump
 * writes only the records after them.  But a buffer a recorder reads (it
 * holds its reader_claim) has its reader: the dump takes a snapshot of it,
 * and leaves every record to the recorder.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout/ctf.h"
#include "layout/ubuf.h"
#include "ust_impl.h"

static int dumping;
static const char *signal_dir[NSIG];

static int write_text(int dir_fd, const char *name, const char *text)
{
	int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int err;

	if (fd < 0)
		return -errno;
	err = tr_ctf_write_all(fd, text, strlen(text));
	close(fd);
	return err;
}

/* Decimal digits of v at the end of buf (size bytes): where they start. */
static char *decimal(char *buf, size_t size, unsigned long v)
{
	char *p = buf + size - 1;

	*p = 0;
	do
		*--p = '0' + v % 10;
	while ((v /= 10) && p > buf);
	return p;
}

struct stream {
	int dir_fd;
	int fd;			/* CHANNEL_NUMBER, created with its first packet */
	struct ust_buffer *b;
	char *scratch;		/* a sub-buffer's worth */
};

static int stream_file(struct stream *s)
{
	const char *channel = ust.channels[s->b->rb.stream_id]->name;
	char name[64], digits[16];
	size_t len = strlen(channel);

	if (s->fd >= 0)
		return 0;
	if (len > sizeof(name) - sizeof(digits) - 1)
		return -ENAMETOOLONG;
	memcpy(name, channel, len);
	name[len] = '_';
	strcpy(name + len + 1, decimal(digits, sizeof(digits), s->b->rb.cpu));
	s->fd = openat(s->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	return s->fd < 0 ? -errno : 0;
}

/*
 * Write the packet at pos, without the records an earlier dump took from
 * it (those before dumped_to): then the packet is remade in scratch, its
 * header followed by the later records from their 8-byte alignment on.
 * Its sizes are shared memory, which whoever holds the memfd may have
 * rewritten: sizes past the sub-buffer are -EPROTO, never copied.
 */
static int write_packet(struct stream *s, __u64 pos, const char *packet)
{
	const struct tr_packet_header *h = (const void *)packet;
	__u64 content = h->content_size / 8, skip, on_disk;
	struct tr_packet_header *copy;
	int err = stream_file(s);

	if (!err && (content < sizeof(*h) || content > s->b->rb.subbuf_size ||
		     h->packet_size / 8 > s->b->rb.subbuf_size))
		err = -EPROTO;
	if (err || s->b->dumped_to <= pos || trb_sb_trunc(&s->b->rb, s->b->dumped_to) != pos)
		return err ?: tr_ctf_write_packet(s->fd, packet);
	skip = trb_record_align(s->b->dumped_to) - pos;
	if (skip >= content)
		return 0;
	copy = (struct tr_packet_header *)s->scratch;
	if (packet != s->scratch)
		memcpy(copy, h, sizeof(*h));
	memmove(s->scratch + sizeof(*h), packet + skip, content - skip);
	content = sizeof(*h) + content - skip;
	on_disk = trb_packet_sizes(&s->b->rb, copy, content);
	memset(s->scratch + content, 0, on_disk - content);
	return tr_ctf_write_packet(s->fd, copy);
}

/*
 * The copy of an open sub-buffer ends at the dumper's clock, which may lag
 * the writer's by an anchor's width (ust_clock.c): never before its last
 * record.
 */
static void end_after_records(char *copy, __u64 content)
{
	struct tr_packet_header *h = (struct tr_packet_header *)copy;
	__u64 at = sizeof(*h);

	while (at + sizeof(struct tr_event_header) <= content) {
		const struct tr_event_header *e = (const void *)(copy + at);

		if (e->timestamp > h->timestamp_end)
			h->timestamp_end = e->timestamp;
		at = trb_record_align(at + sizeof(*e) + e->size);
	}
}

/* The sub-buffer being filled (tr_ubuf_copy_open()), into s->scratch, its end after its records. */
static long copy_open(struct stream *s, __u64 *pos)
{
	long content = tr_ubuf_copy_open(&s->b->rb, s->scratch, pos);

	if (content > 0)
		end_after_records(s->scratch, content);
	return content;
}

static int snapshot_packet(void *data, __u64 pos, long content)
{
	struct stream *s = data;

	if (content > 0)
		end_after_records(s->scratch, content);
	return write_packet(s, pos, s->scratch);
}

/*
 * Flight recorder: the buffer as it is (tr_ubuf_snapshot()); nothing is
 * consumed, so each dump holds the newest events.
 */
static int snapshot_buffer(struct stream *s)
{
	return tr_ubuf_snapshot(&s->b->rb, s->scratch, snapshot_packet, s);
}

/* Whether the sub-buffer at packet lies inside b's region (its table may have been rewritten). */
static int inside(const struct ust_buffer *b, const char *packet)
{
	const char *data = (const char *)b->region + TR_CTL_SIZE;

	return packet >= data && packet + b->rb.subbuf_size <= (const char *)b->region + b->region_size;
}

/* Whether a recorder reads b: it holds the buffer's reader claim (user/record/ust_buffers.c). */
static int read_by_recorder(const struct ust_buffer *b)
{
	return __atomic_load_n(&b->rb.ctl->reader_claim, __ATOMIC_ACQUIRE) != 0;
}

/*
 * Discard mode: the dump is the buffer's reader, and consumes what it
 * writes; the open sub-buffer's records it copies are left out of the
 * next dump (dumped_to).
 */
static int drain_buffer(struct stream *s)
{
	const struct trb_buf *rb = &s->b->rb;
	const char *packet;
	int err = 0;
	long content;
	__u64 pos;

	while (!err && !trb_get_subbuf(rb, &pos, &packet)) {
		err = inside(s->b, packet) ? write_packet(s, pos, packet) : -EPROTO;
		trb_put_subbuf(rb, pos);
	}
	content = err ? 0 : copy_open(s, &pos);
	if (content > 0 && pos + content > s->b->dumped_to) {
		err = write_packet(s, pos, s->scratch);
		s->b->dumped_to = pos + content;
	}
	return err;
}

/*
 * A buffer whose thread ended has no writer: the dump holds it (no thread
 * takes it over meanwhile) and closes its open sub-buffer, which only a
 * writer may do (ringbuf.h, I8), at a time after its last record.  Its
 * overwritten records are then all counted (I7).
 */
static int hold_if_ownerless(struct ust_buffer *b)
{
	int none = 0;

	if (!__atomic_compare_exchange_n(&b->owner, &none, -1, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return 0;
	ust_clock_after(b->released);
	trb_flush(&b->rb);
	return 1;
}

static int dump_into(int dir_fd, const struct ust_texts *texts)
{
	struct stream s = { .dir_fd = dir_fd, .fd = -1 };
	size_t scratch_size = TR_MIN_SUBBUF_SIZE;
	int meta_fd, err = 0;
	unsigned int i;

	if (mkdirat(dir_fd, ".tracer", 0700))
		return -errno;
	meta_fd = openat(dir_fd, ".tracer", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (meta_fd < 0)
		return -errno;
	err = write_text(dir_fd, "metadata", texts->metadata) ?:
	      write_text(meta_fd, "events", texts->events) ?:
	      write_text(meta_fd, "channels", texts->channels);
	close(meta_fd);
	for (i = 0; i < ust.nchannels; i++)
		if (ust.channels[i]->subbuf_size > scratch_size)
			scratch_size = ust.channels[i]->subbuf_size;
	s.scratch = mmap(NULL, scratch_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (s.scratch == MAP_FAILED)
		return err ?: -ENOMEM;
	for (s.b = __atomic_load_n(&ust.buffers, __ATOMIC_ACQUIRE); s.b && !err; s.b = s.b->next) {
		int held = hold_if_ownerless(s.b);

		err = s.b->rb.mode == TR_MODE_OVERWRITE || read_by_recorder(s.b) ? snapshot_buffer(&s) :
										 drain_buffer(&s);
		if (held)
			__atomic_store_n(&s.b->owner, 0, __ATOMIC_RELEASE);
		if (s.fd >= 0)
			close(s.fd);
		s.fd = -1;
	}
	munmap(s.scratch, scratch_size);
	return err;
}

/* Into dir, or the first of dir.1 ... dir.999 that does not exist when numbered. */
static int dump(const char *dir, int numbered)
{
	const struct ust_texts *texts = __atomic_load_n(&ust.texts, __ATOMIC_ACQUIRE);
	char path[PATH_MAX], digits[8];
	size_t len = strlen(dir);
	int n, dir_fd, err;

	if (!texts)
		return -ENODATA;
	if (len > sizeof(path) - sizeof(digits) - 1)
		return -ENAMETOOLONG;
	memcpy(path, dir, len + 1);
	for (n = 1; mkdir(path, 0700); n++) {
		if (errno != EEXIST || !numbered || n == 1000)
			return -errno;
		path[len] = '.';
		strcpy(path + len + 1, decimal(digits, sizeof(digits), n));
	}
	dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir_fd < 0)
		return -errno;
	err = dump_into(dir_fd, texts);
	close(dir_fd);
	return err;
}

static int dump_once(const char *dir, int numbered)
{
	int err;

	if (__atomic_exchange_n(&dumping, 1, __ATOMIC_ACQUIRE))
		return -EBUSY;
	err = dump(dir, numbered);
	__atomic_store_n(&dumping, 0, __ATOMIC_RELEASE);
	return err;
}

int tracer_ust_dump(const char *dir)
{
	return dump_once(dir, 0);
}

static int is_fatal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT;
}

static void on_signal(int sig)
{
	int saved_errno = errno;

	dump_once(__atomic_load_n(&signal_dir[sig], __ATOMIC_ACQUIRE), 1);
	if (is_fatal(sig)) {
		/* Dies of it as it would have: the default action, once this handler returns. */
		signal(sig, SIG_DFL);
		raise(sig);
	}
	errno = saved_errno;
}

int tracer_ust_dump_on_signal(int sig, const char *dir)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	char *copy;

	if (sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP || !dir || !*dir)
		return -EINVAL;
	copy = strdup(dir);
	if (!copy)
		return -ENOMEM;
	sigfillset(&sa.sa_mask);
	/* A handler running now may be reading the directory it replaces: that one stays. */
	__atomic_store_n(&signal_dir[sig], copy, __ATOMIC_RELEASE);
	return sigaction(sig, &sa, NULL) ? -errno : 0;
}

void ust_crash_dumps_from_env(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	/* Not in a set-user-ID program: its user would choose where root writes. */
	const char *dir = secure_getenv("TRACER_UST_CRASH_DIR");
	unsigned int i;

	for (i = 0; dir && *dir && i < sizeof(fatal) / sizeof(fatal[0]); i++)
		tracer_ust_dump_on_signal(fatal[i], dir);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A hostile program for a recorder of libtracer-ust's events
 * (tests/run-ust-limits.t): it makes the library's memory itself, sealed
 * as layout/handoff.h says, and hands it to the recorder that started it
 * (TRACER_UST_FD); without one it keeps it open, for a recorder of -p to
 * find through /proc.
 *
 *	usthostile forge	sched:sched_switch and evil:tick, records saying pid and tid 1
 *	usthostile inject	an event named with quotes and braces, and evil:tick
 *	usthostile rename PID	evil:rename, whose fields comm and pid say PID is "forged"
 *	usthostile names N	N events described, evil:eI
 *	usthostile buffers N	N buffers of 2 x 4 KiB
 *	usthostile huge		a buffer of 1 GiB sub-buffers in a sparse memfd, one delivered
 *	usthostile junk		evil:tick records whose size is not their fields', delivered always
 *	usthostile losses	a buffer whose loss counts say 5.6e18, one record delivered
 *	usthostile claim	one record delivered, then its reader_claim rewritten without end
 *
 * It says "ready PID" on stdout once all is made; forge and inject then end,
 * the others live until killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <tracer/ringbuf.h>

#include "layout/handoff.h"

#define FORMAT_COMMON							\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static int recorder = -1;

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "usthostile: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* fd to the recorder, as the library hands it (ust_handoff()), then closed; without one, kept. */
static void hand_over(char kind, int fd)
{
	char control[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &kind, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control, .msg_controllen = sizeof(control) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (recorder < 0)
		return;
	if (sendmsg(recorder, &msg, MSG_NOSIGNAL) < 0)
		die("sendmsg");
	close(fd);
}

/* The format of an event named name, id id, with one u64 field x. */
static char *format_of(const char *name, unsigned int id)
{
	char *text;

	if (asprintf(&text, "name: %s\nID: %u\nformat:\n" FORMAT_COMMON
		     "\tfield:u64 x;\toffset:8;\tsize:8;\tsigned:0;\n\nprint fmt: \"x=%%llu\", REC->x\n",
		     name, id) < 0)
		die("asprintf");
	return text;
}

/* "event ID SYSTEM NAME LEN\nFORMAT" into f; the format's own name line says "x". */
static void describe(FILE *f, unsigned int id, const char *system, const char *name)
{
	char *format = format_of("x", id);

	fprintf(f, "event %u %s %s %zu\n%s", id, system, name, strlen(format), format);
	free(format);
}

/* A description memfd of text, handed over. */
static void hand_meta(const char *text, size_t len)
{
	int fd = memfd_create(UST_META_MEMFD, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len || fcntl(fd, F_ADD_SEALS, UST_META_SEALS))
		die("meta memfd");
	hand_over(UST_HANDOFF_META, fd);
}

/* evil:tick described (id 1), handed over. */
static void hand_tick(void)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	describe(f, 1, "evil", "tick");
	fclose(f);
	hand_meta(text, len);
	free(text);
}

/* A buffer of this geometry in a memfd (sparse: only what is written is memory), handed over. */
static struct trb_buf *hand_buffer(__u64 subbuf_size, __u32 nsubbuf, int mode)
{
	struct trb_config cfg = { .subbuf_size = subbuf_size, .nsubbuf = nsubbuf, .mode = mode };
	__u64 size = TR_BUF_REGION_SIZE(subbuf_size, nsubbuf);
	struct trb_buf *b = calloc(1, sizeof(*b));
	int fd = memfd_create(UST_BUFFER_MEMFD, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *region;

	if (!b || fd < 0 || ftruncate(fd, size) || fcntl(fd, F_ADD_SEALS, UST_BUFFER_SEALS))
		die("buffer memfd");
	region = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (region == MAP_FAILED || trb_init(b, region, &cfg, now_ns))
		die("buffer");
	hand_over(UST_HANDOFF_BUFFER, fd);
	return b;
}

/* A record of local event id, payload bytes long (x = value), saying pid_tid. */
static int put(struct trb_buf *b, __u32 id, __u32 payload, __u64 value, __u64 pid_tid)
{
	struct trb_slot slot;
	char *p;

	if (trb_reserve(b, &slot, id, payload, pid_tid))
		return -1;
	p = trb_payload(&slot);
	memset(p, 0, payload);
	memcpy(p, &id, 2);
	memcpy(p + 4, &pid_tid, 4);
	if (payload >= 16)
		memcpy(p + 8, &value, 8);
	trb_commit(b, &slot);
	return 0;
}

static void ready(void)
{
	printf("ready %d\n", getpid());
	fflush(stdout);
}

/* Records that say they are init's, of sched:sched_switch (1) and evil:tick (2). */
static int forge(void)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	struct trb_buf *b;
	int i;

	describe(f, 1, "sched", "sched_switch");
	describe(f, 2, "evil", "tick");
	fclose(f);
	hand_meta(text, len);
	b = hand_buffer(4096, 2, TR_MODE_DISCARD);
	for (i = 0; i < 10; i++) {
		put(b, 1, 16, i, 1ull << 32 | 1);
		put(b, 2, 16, i, 1ull << 32 | 1);
	}
	trb_flush(b);
	ready();
	return 0;
}

/*
 * evil:rename, with the fields a kernel event names a task by (comm and
 * pid), saying victim is "forged".
 */
static int rename_task(__u32 victim)
{
	static const char format[] = "name: rename\nID: 1\nformat:\n" FORMAT_COMMON
		"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:int pid;\toffset:24;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"comm=%s pid=%d\", REC->comm, REC->pid\n";
	__u64 me = (__u64)getpid() << 32 | (__u32)gettid();
	char *text = NULL, *p;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	struct trb_buf *b;
	struct trb_slot slot;

	fprintf(f, "event 1 evil rename %zu\n%s", strlen(format), format);
	fclose(f);
	hand_meta(text, len);
	b = hand_buffer(4096, 2, TR_MODE_DISCARD);
	if (trb_reserve(b, &slot, 1, 28, me))
		die("reserve");
	p = trb_payload(&slot);
	memset(p, 0, 28);
	p[0] = 1;
	memcpy(p + 4, &me, 4);
	strcpy(p + 8, "forged");
	memcpy(p + 24, &victim, 4);
	trb_commit(b, &slot);
	trb_flush(b);
	ready();
	return 0;
}

/* An event whose name closes the CTF event and opens another, then evil:tick. */
static int inject(void)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	struct trb_buf *b;
	__u64 me = (__u64)getpid() << 32 | (__u32)gettid();
	int i;

	describe(f, 1, "evil", "x\";};event{name=\"y");
	describe(f, 2, "evil", "tick");
	fclose(f);
	hand_meta(text, len);
	b = hand_buffer(4096, 2, TR_MODE_DISCARD);
	for (i = 0; i < 10; i++) {
		put(b, 1, 16, i, me);
		put(b, 2, 16, i, me);
	}
	trb_flush(b);
	ready();
	return 0;
}

static int names(long n)
{
	char *text = NULL, name[32], format[128];
	size_t len;
	FILE *f = open_memstream(&text, &len);
	long i;

	/* Formats of one field, so that 300000 fit the 64 MiB a recorder reads. */
	for (i = 1; i <= n; i++) {
		snprintf(name, sizeof(name), "e%ld", i);
		snprintf(format, sizeof(format), "name: x\nID: %ld\nformat:\n"
			 "\tfield:u64 x;\toffset:8;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n", i);
		fprintf(f, "event %ld evil %s %zu\n%s", i, name, strlen(format), format);
	}
	fclose(f);
	hand_meta(text, len);
	hand_buffer(4096, 2, TR_MODE_DISCARD);
	ready();
	pause();
	return 0;
}

static int buffers(long n)
{
	long i;

	for (i = 0; i < n; i++)
		hand_buffer(4096, 2, TR_MODE_DISCARD);
	ready();
	pause();
	return 0;
}

/* 1 GiB sub-buffers, the first delivered: a reader that copies one touches all of it. */
static int huge(void)
{
	struct trb_buf *b;

	hand_tick();
	b = hand_buffer(1ull << 30, 2, TR_MODE_DISCARD);
	put(b, 1, 16, 1, (__u64)getpid() << 32 | (__u32)gettid());
	trb_flush(b);
	ready();
	pause();
	return 0;
}

/* evil:tick records of 64 bytes (its fields are 16), sub-buffer after sub-buffer. */
static int junk(void)
{
	struct trb_buf *b;
	__u64 me = (__u64)getpid() << 32 | (__u32)gettid(), i;

	hand_tick();
	b = hand_buffer(4096, 64, TR_MODE_OVERWRITE);
	ready();
	/* About a sub-buffer every 100 us: 40 MB a second. */
	for (i = 0;; i++) {
		put(b, 1, 64, i, me);
		if (i % 46 == 45)
			usleep(100);
	}
	return 0;
}

/* One evil:tick delivered, from a buffer that says it lost 5.6e18 events and overwrote as many. */
static int losses(void)
{
	struct trb_buf *b;

	hand_tick();
	b = hand_buffer(4096, 2, TR_MODE_DISCARD);
	b->ctl->lost_full = 5600000000000000000ull;
	b->ctl->records_overrun = 5600000000000000000ull;
	put(b, 1, 16, 1, (__u64)getpid() << 32 | (__u32)gettid());
	trb_flush(b);
	ready();
	pause();
	return 0;
}

/*
 * One evil:tick delivered, then the buffer's claim word rewritten without
 * end, each value a recorder that is gone (pid 1 with a start time that
 * is not init's): a recorder that takes over a gone one's claim finds the
 * word changed under it at every try.
 */
static int claim(void)
{
	struct trb_buf *b;
	__u64 i;

	hand_tick();
	b = hand_buffer(4096, 2, TR_MODE_DISCARD);
	put(b, 1, 16, 1, (__u64)getpid() << 32 | (__u32)gettid());
	trb_flush(b);
	ready();
	for (i = 1;; i++)
		__atomic_store_n(&b->ctl->reader_claim, (i | 1ull << 40) << 22 | 1, __ATOMIC_RELEASE);
	return 0;
}

int main(int argc, char **argv)
{
	const char *fd = getenv(UST_HANDOFF_ENV);
	struct rlimit files;

	if (argc < 2) {
		fprintf(stderr, "usage: usthostile MODE [N]\n");
		return 2;
	}
	recorder = fd ? atoi(fd) : -1;
	/* Buffers kept open for a scan are descriptors: as many as it may have. */
	if (!getrlimit(RLIMIT_NOFILE, &files)) {
		files.rlim_cur = files.rlim_max;
		setrlimit(RLIMIT_NOFILE, &files);
	}
	if (!strcmp(argv[1], "forge"))
		return forge();
	if (!strcmp(argv[1], "inject"))
		return inject();
	if (!strcmp(argv[1], "rename") && argc == 3)
		return rename_task(atol(argv[2]));
	if (!strcmp(argv[1], "names") && argc == 3)
		return names(atol(argv[2]));
	if (!strcmp(argv[1], "buffers") && argc == 3)
		return buffers(atol(argv[2]));
	if (!strcmp(argv[1], "huge"))
		return huge();
	if (!strcmp(argv[1], "junk"))
		return junk();
	if (!strcmp(argv[1], "claim"))
		return claim();
	if (!strcmp(argv[1], "losses"))
		return losses();
	fprintf(stderr, "usthostile: unknown mode %s\n", argv[1]);
	return 2;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hostile programs for libtracer-ust's handoff (tests/run-ust-handoff.t):
 * what a program linked with the library, or its user, may do to a root
 * recorder, and what a user may do to root's programs.
 *
 *	ust_hostile squat dgram|seqpacket
 *				take the registry's address first (layout/handoff.h), as a
 *				datagram socket or a listening sequenced-packet one; say
 *				"ready"; on SIGTERM, "received N": the descriptors sent to it
 *	ust_hostile pair PROGRAM ARGS...
 *				run PROGRAM (as root) with TRACER_UST_FD the end of a
 *				socket pair made as nobody (effective uid 65534):
 *				"received N", the descriptors it handed over
 *	ust_hostile without-pidfd-getfd PROGRAM ARGS...
 *				run PROGRAM where pidfd_getfd() fails with ENOSYS, as
 *				on kernels before 5.6
 *	ust_hostile shrink	hand a buffer's memfd, not sealed, to the recorder that
 *				started it (TRACER_UST_FD); once the recorder received it,
 *				shrink it to nothing, and end
 *	ust_hostile unsealed	hold a buffer's memfd, not sealed; say "ready"; shrink it
 *				to nothing when another process that opened it closes it;
 *				end on SIGTERM
 *	ust_hostile hold FILE	hold FILE open (read-only, not blocking: a FIFO too); say
 *				"ready"; on SIGTERM, "opened N": how often another process
 *				opened it meanwhile
 *	ust_hostile rewrite N DIR
 *				N events in each of two channels (flight recorder, discard),
 *				then each buffer's sub-buffer table rewritten to name
 *				sub-buffers far past the buffer, then N more, then a dump
 *				into DIR: "wrote 2N", and what the dump said
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <tracer/ringbuf.h>
#include <tracer/ust.h>

#include "layout/handoff.h"

#define SUBBUF		4096
#define NSUBBUF		2
#define REGION		TR_BUF_REGION_SIZE(SUBBUF, NSUBBUF)

TRACER_CHANNEL(ROUNDS, SUBBUF, 4, TRACER_UST_OVERWRITE);
TRACER_CHANNEL(KEPT, SUBBUF, 2, TRACER_UST_DISCARD);

static __u64 no_clock(void)
{
	return 1;
}

/* A buffer as the library makes one, but not sealed: a descriptor, or -1. */
static int unsealed_buffer(void)
{
	struct trb_config cfg = { .subbuf_size = SUBBUF, .nsubbuf = NSUBBUF, .mode = TR_MODE_DISCARD };
	int fd = memfd_create(UST_BUFFER_MEMFD, MFD_CLOEXEC);
	struct trb_buf rb;
	void *region;

	if (fd < 0 || ftruncate(fd, REGION))
		return -1;
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (region == MAP_FAILED || trb_init(&rb, region, &cfg, no_clock))
		return -1;
	munmap(region, REGION);
	return fd;
}

/* SIGTERM, as a descriptor to wait on (it no longer kills). */
static int sigterm_fd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	return signalfd(-1, &set, SFD_CLOEXEC);
}

static void ready(void)
{
	printf("ready\n");
	fflush(stdout);
}

/* Every descriptor sock holds queued, closed; how many. */
static int drain_fds(int sock)
{
	char control[CMSG_SPACE(16 * sizeof(int))], byte;
	int count = 0;

	for (;;) {
		struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
				      .msg_controllen = sizeof(control) };
		struct cmsghdr *c;

		if (recvmsg(sock, &msg, MSG_DONTWAIT) <= 0)
			return count;
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
			if (c->cmsg_type == SCM_RIGHTS) {
				int n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int), i, fd;

				for (i = 0; i < n; i++, count++) {
					memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
					close(fd);
				}
			}
	}
}

static int squat(const char *type)
{
	struct sockaddr_un addr;
	socklen_t len = ust_registry_address(&addr);
	int seqpacket = !strcmp(type, "seqpacket"), received = 0, peer;
	int sock = socket(AF_UNIX, (seqpacket ? SOCK_SEQPACKET : SOCK_DGRAM) | SOCK_NONBLOCK, 0);
	int term = sigterm_fd();
	struct signalfd_siginfo si;

	if (sock < 0 || bind(sock, (struct sockaddr *)&addr, len) || (seqpacket && listen(sock, 64))) {
		perror("ust_hostile: squat");
		return 1;
	}
	ready();
	if (read(term, &si, sizeof(si)) != sizeof(si))
		return 1;
	if (!seqpacket)
		received = drain_fds(sock);
	while (seqpacket && (peer = accept(sock, NULL, NULL)) >= 0) {
		received += drain_fds(peer);
		close(peer);
	}
	printf("received %d\n", received);
	return 0;
}

static int pair(char **argv)
{
	char number[16];
	int sv[2], status;
	pid_t child;

	if (seteuid(65534) || socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) || seteuid(0)) {
		perror("ust_hostile: pair");
		return 1;
	}
	child = fork();
	if (child == 0) {
		close(sv[0]);
		snprintf(number, sizeof(number), "%d", sv[1]);
		setenv(UST_HANDOFF_ENV, number, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(sv[1]);
	if (child < 0 || waitpid(child, &status, 0) != child || status) {
		fprintf(stderr, "ust_hostile: %s failed\n", argv[0]);
		return 1;
	}
	printf("received %d\n", drain_fds(sv[0]));
	return 0;
}

static int without_pidfd_getfd(char **argv)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pidfd_getfd, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("ust_hostile: seccomp");
		return 1;
	}
	execvp(argv[0], argv);
	perror(argv[0]);
	return 127;
}

static int send_buffer(int sock, int fd)
{
	char control[CMSG_SPACE(sizeof(int))] = { 0 }, kind = UST_HANDOFF_BUFFER;
	struct iovec iov = { .iov_base = &kind, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			      .msg_controllen = sizeof(control) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

/*
 * Sent twice: once the recorder has received the second (nothing left
 * in our queue), it is done with the first, mapped, as it reads them in
 * order.  Then the memfd shrinks under its mapping.
 */
static int shrink(void)
{
	const char *env = getenv(UST_HANDOFF_ENV);
	int sock = env ? atoi(env) : -1, fd = unsealed_buffer(), queued = 1, waited;

	if (sock < 0 || fd < 0 || send_buffer(sock, fd) || send_buffer(sock, fd)) {
		fprintf(stderr, "ust_hostile: no recorder to hand a buffer to\n");
		return 1;
	}
	for (waited = 0; waited < 30000 && !ioctl(sock, SIOCOUTQ, &queued) && queued; waited++)
		usleep(1000);
	if (queued) {
		fprintf(stderr, "ust_hostile: the recorder took nothing in 30 s\n");
		return 1;
	}
	return ftruncate(fd, 0) ? 1 : 0;
}

/* Watch the file fd holds for mask; ready; then act on each event until SIGTERM. */
static int watch(int fd, unsigned int mask, int (*event)(int fd))
{
	char path[64];
	struct pollfd p[2] = { { .fd = inotify_init1(IN_CLOEXEC), .events = POLLIN },
			       { .fd = sigterm_fd(), .events = POLLIN } };
	union {
		struct inotify_event e;
		char bytes[sizeof(struct inotify_event) + NAME_MAX + 1];
	} ev;
	int events = 0;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (p[0].fd < 0 || p[1].fd < 0 || inotify_add_watch(p[0].fd, path, mask) < 0)
		return -1;
	ready();
	while (poll(p, 2, -1) >= 0 && !p[1].revents)
		if (p[0].revents && read(p[0].fd, &ev, sizeof(ev)) > 0 && !event(fd))
			events++;
	return events;
}

static int truncate_it(int fd)
{
	return ftruncate(fd, 0);
}

static int count_it(int fd)
{
	(void)fd;
	return 0;
}

static int unsealed(void)
{
	int fd = unsealed_buffer();

	return fd < 0 || watch(fd, IN_CLOSE_NOWRITE | IN_CLOSE_WRITE, truncate_it) < 0;
}

static int hold(const char *file)
{
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC), opened;

	opened = fd < 0 ? -1 : watch(fd, IN_OPEN, count_it);
	if (opened < 0) {
		perror(file);
		return 1;
	}
	printf("opened %d\n", opened);
	return 0;
}

/* Each of this process's buffers: its sub-buffer table names sub-buffer 0x7fffffff.  How many. */
static int rewrite_tables(void)
{
	char path[64], link[64];
	int fd, rewritten = 0, i;

	for (fd = 0; fd < 1024; fd++) {
		struct tr_buf_ctl *ctl;
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0 || (link[n] = 0, strcmp(link, "/memfd:" UST_BUFFER_MEMFD " (deleted)")))
			continue;
		ctl = mmap(NULL, TR_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (ctl == MAP_FAILED)
			continue;
		for (i = 0; i < TR_MAX_SUBBUFS; i++)
			ctl->sbid[i] = (ctl->sbid[i] & ~TR_SBID_INDEX_MASK) | 0x7fffffff;
		munmap(ctl, TR_CTL_SIZE);
		rewritten++;
	}
	return rewritten;
}

static int rewrite(long n, const char *dir)
{
	long i;
	int err;

	for (i = 0; i < n; i++) {
		tracer_event(ROUNDS, round, i);
		tracer_event(KEPT, kept, i);
	}
	if (rewrite_tables() != 2) {
		fprintf(stderr, "ust_hostile: not the 2 buffers expected\n");
		return 1;
	}
	for (; i < 2 * n; i++) {
		tracer_event(ROUNDS, round, i);
		tracer_event(KEPT, kept, i);
	}
	printf("wrote %ld\n", i);
	fflush(stdout);
	err = tracer_ust_dump(dir);
	printf("dump: %s\n", err ? strerror(-err) : "done");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "squat"))
		return squat(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "pair"))
		return pair(argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "without-pidfd-getfd"))
		return without_pidfd_getfd(argv + 2);
	if (argc == 2 && !strcmp(argv[1], "shrink"))
		return shrink();
	if (argc == 2 && !strcmp(argv[1], "unsealed"))
		return unsealed();
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "rewrite"))
		return rewrite(atol(argv[2]), argv[3]);
	fprintf(stderr, "usage: ust_hostile squat dgram|seqpacket | pair PROGRAM... | without-pidfd-getfd PROGRAM... | shrink | unsealed | hold FILE | rewrite N DIR\n");
	return 2;
}

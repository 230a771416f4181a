// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Handing the buffers to a recorder: `tracer record -e ust:... -- CMD`
 * gives its command (and what that starts) a datagram socket,
 * TRACER_UST_FD in the environment; a recorder of -a or -p listens on
 * UST_REGISTRY_NAME, which any other program started while it records
 * connects to.  Either is used only if its peer is root's or this
 * process's user's (trusted_peer()): anyone may take the address first.
 * Each buffer and event description made is sent there as it is made
 * (its memfd, with SCM_RIGHTS; the kernel adds this process's
 * credentials).  The recorder then holds the memory, so it reads even a
 * program that lived for a millisecond to its last record.  Programs
 * started before it, it finds itself, through /proc (user/record/ust_buffers.c).
 * A command's writers also wake it through TRACER_UST_WAKE_FD each time a
 * sub-buffer ends; it reads the others at its flush period.
 * Async-signal-safe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ust_impl.h"

static int recorder_fd = -1;
static int wake_fd = -1;
/* A recorder we were not started by is not waited for: /proc finds what it misses. */
static int send_flags = MSG_NOSIGNAL;

/*
 * The descriptor numbered by environment variable name, or -1; -1 in a
 * set-user-ID program, whose user would choose it.
 */
static int inherited_fd(const char *name)
{
	const char *text = secure_getenv(name);
	char *end;
	long fd = text ? strtol(text, &end, 10) : -1;

	return fd >= 0 && fd < (1 << 20) && !*end ? fd : -1;
}

/* Whether fd is an eventfd: an 8-byte write into anything else would damage it. */
static int is_eventfd(int fd)
{
	char path[32], link[sizeof(UST_WAKE_LINK) + 1];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link));
	return n == sizeof(UST_WAKE_LINK) - 1 && !memcmp(link, UST_WAKE_LINK, n);
}

/*
 * Whether the process at the other end of socket fd may have this one's
 * memory: it is root's, or this process's effective user's (layout/handoff.h).
 * A socket with no peer credentials (a datagram socket that connected)
 * is not.
 */
static int trusted_peer(int fd)
{
	struct ucred peer;
	socklen_t len = sizeof(peer);

	return !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) && len == sizeof(peer) &&
	       peer.pid > 0 && (peer.uid == 0 || peer.uid == geteuid());
}

/* A recorder's registry, connected, or -1 when none we trust records. */
static int registry(void)
{
	struct sockaddr_un addr;
	socklen_t len = ust_registry_address(&addr);
	/* Non-blocking: a recorder whose queue of connections is full is not waited for. */
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd >= 0 && (connect(fd, (struct sockaddr *)&addr, len) || !trusted_peer(fd))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

void ust_handoff_init(void)
{
	int fd = inherited_fd(UST_HANDOFF_ENV), saved = errno;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !S_ISSOCK(st.st_mode) || !trusted_peer(fd)) {
		recorder_fd = registry();
		send_flags |= MSG_DONTWAIT;
		errno = saved;
		return;
	}
	recorder_fd = fd;
	fd = inherited_fd(UST_WAKE_ENV);
	if (fd >= 0 && is_eventfd(fd))
		wake_fd = fd;
	errno = saved;
}

void ust_handoff_wake(void)
{
	const __u64 one = 1;
	int saved = errno;

	if (wake_fd < 0)
		return;
	/* Fails only when the count would overflow: the recorder is awake then. */
	if (write(wake_fd, &one, sizeof(one)) < 0)
		errno = saved;
}

void ust_handoff(char kind, int fd)
{
	char control[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &kind, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	int saved = errno;

	if (recorder_fd < 0)
		return;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	/* A recorder that is gone refuses it: nothing else to do. */
	if (sendmsg(recorder_fd, &msg, send_flags) < 0)
		errno = saved;
}

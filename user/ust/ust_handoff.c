// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Handing the buffers to a recorder that started this program: `tracer
 * record -e ust:... -- CMD` gives its command (and what that starts) a
 * datagram socket, TRACER_UST_FD in the environment, and each buffer and
 * event description made is sent there as it is made (its memfd, with
 * SCM_RIGHTS; the kernel adds this process's credentials).  The recorder
 * then holds the memory, so it reads even a program that lived for a
 * millisecond to its last record.  Processes it did not start it finds
 * itself, through /proc (user/record_ust.c).  Async-signal-safe.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "ust_impl.h"

static int recorder_fd = -1;

void ust_handoff_init(void)
{
	const char *text = getenv(UST_HANDOFF_ENV);
	char *end;
	long fd = text ? strtol(text, &end, 10) : -1;
	struct stat st;

	if (fd >= 0 && fd < (1 << 20) && !*end && !fstat(fd, &st) && S_ISSOCK(st.st_mode))
		recorder_fd = fd;
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

	if (recorder_fd < 0)
		return;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	/* A recorder that is gone refuses it: nothing else to do. */
	sendmsg(recorder_fd, &msg, MSG_NOSIGNAL);
}

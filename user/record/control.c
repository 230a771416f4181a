// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The control socket of a flight recorder: `tracer snapshot -o DIR` from
 * another shell asks the recorder writing into DIR for a snapshot, as
 * SIGUSR2 does, and prints its answer.  Each recording has its own socket
 * in its own directory, so several run side by side.  One request per
 * connection ("snapshot"), one answer (the line the recorder says); only
 * root and the directory's owner may ask.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "record/session.h"

#define REQUEST		"snapshot"
/* How long a connected client may take to send its request. */
#define REQUEST_TIMEOUT_S	1

int rec_control_open(struct session *s)
{
	s->control_fd = tr_trace_dir_listen(&s->dir);
	if (s->control_fd < 0) {
		rec_say("cannot create the control socket in %s/.tracer: %s", s->o->output,
			strerror(-s->control_fd));
		return s->control_fd;
	}
	return tr_waiter_watch(&s->waiter, s->control_fd, EPOLLIN);
}

static int peer_may_ask(const struct session *s, int conn)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return 0;
	return cred.uid == 0 || cred.uid == s->dir.uid || cred.uid == geteuid();
}

static void answer(struct session *s, int conn)
{
	struct timeval timeout = { REQUEST_TIMEOUT_S, 0 };
	char request[64], reply[1024];
	ssize_t n;

	setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	n = recv(conn, request, sizeof(request) - 1, 0);
	if (n < 0)
		return;
	request[n] = 0;
	if (!peer_may_ask(s, conn))
		snprintf(reply, sizeof(reply), "refused: only root and the owner of %s may ask",
			 s->o->output);
	else if (strcmp(request, REQUEST))
		snprintf(reply, sizeof(reply), "refused: unknown request");
	else {
		rec_snapshot(s, 0, reply, sizeof(reply));
		rec_say("%s", reply);
	}
	send(conn, reply, strlen(reply), MSG_NOSIGNAL);
}

void rec_control_serve(struct session *s)
{
	int conn;

	while (s->control_fd >= 0 && (conn = accept4(s->control_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		answer(s, conn);
		close(conn);
	}
}

void rec_control_close(struct session *s)
{
	if (s->control_fd >= 0)
		tr_trace_dir_unlisten(&s->dir, s->control_fd);
	s->control_fd = -1;
}

static int request_failed(int err, const char *dir, char *reply, size_t len)
{
	if (err == -ENOENT || err == -ENOTDIR)
		snprintf(reply, len, "no flight recorder is recording into %s (tracer record --flight-recorder -o %s)",
			 dir, dir);
	else if (err == -ECONNREFUSED)
		snprintf(reply, len, "the flight recorder of %s has ended", dir);
	else if (err == -EACCES || err == -EPERM)
		snprintf(reply, len, "cannot reach the recorder of %s: %s (run as its owner or root)",
			 dir, strerror(-err));
	else
		snprintf(reply, len, "cannot reach the recorder of %s: %s", dir, strerror(-err));
	return err;
}

/*
 * Whether the peer of the connected socket fd is a recorder we may
 * believe: run by root or by us, not by another user who put a socket in
 * a directory they can write.  If not, why into reply.
 */
static int peer_trusted(int fd, const char *dir, char *reply, size_t len)
{
	struct ucred cred;
	socklen_t credlen = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &credlen)) {
		snprintf(reply, len, "cannot tell who serves the control socket of %s: %s", dir,
			 strerror(errno));
		return 0;
	}
	if (cred.uid == 0 || cred.uid == geteuid())
		return 1;
	snprintf(reply, len, "the control socket of %s is served by uid %u, not by root or you: "
		 "not asked (remove %s/.tracer/control)", dir, cred.uid, dir);
	return 0;
}

/* The reply as printable text: each byte that is not becomes '?'. */
static void printable_only(char *reply)
{
	for (; *reply; reply++)
		if (*reply < ' ' || *reply > '~')
			*reply = '?';
}

int tr_record_snapshot(const char *dir, char *reply, size_t len)
{
	int fd = tr_trace_dir_connect(dir);
	ssize_t n = -1;

	if (fd < 0)
		return request_failed(fd, dir, reply, len);
	if (!peer_trusted(fd, dir, reply, len)) {
		close(fd);
		return -EPERM;
	}
	if (send(fd, REQUEST, strlen(REQUEST), MSG_NOSIGNAL) == (ssize_t)strlen(REQUEST))
		n = recv(fd, reply, len - 1, 0);
	close(fd);
	if (n <= 0) {
		snprintf(reply, len, "the recorder of %s ended before it answered", dir);
		return -EPIPE;
	}
	reply[n] = 0;
	printable_only(reply);
	return strncmp(reply, "snapshot ", strlen("snapshot ")) ? -EIO : 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A hostile "flight recorder" for the snapshot tests: listens on the Unix
 * socket PATH (SOCK_SEQPACKET, as a recorder's .tracer/control), writes
 * "ready" to standard output, then answers one connection with REPLY,
 * bytes as they are (escape codes for a terminal, say), and exits.
 *	control_server PATH REPLY
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char request[64];
	int fd, conn;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: control_server PATH REPLY\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1)) {
		perror(argv[1]);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	conn = accept(fd, NULL, NULL);
	if (conn < 0 || recv(conn, request, sizeof(request), 0) < 0 ||
	    send(conn, argv[2], strlen(argv[2]), MSG_NOSIGNAL) != (ssize_t)strlen(argv[2])) {
		perror("answering");
		return 1;
	}
	close(conn);
	unlink(argv[1]);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Makes exactly N getppid() system calls, INTERVAL_MS apart, once the file
 * GO exists (if given): a known number of known events.  With "seq" it
 * calls close(100000 + i) instead, so each event carries its number; with
 * a PATH (starting with /) it opens, reads and closes that file instead
 * (the kprobe tests: the opens come back as fd 3; a sysfs attribute's read
 * calls its show function once).
 *   getppid_n N [INTERVAL_MS [GO [seq | PATH]]]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static void read_once(const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return;
	if (read(fd, buf, sizeof(buf)) < 0)
		perror(path);
	close(fd);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long interval_ms = argc > 2 ? atol(argv[2]) : 0;
	struct timespec nap = { interval_ms / 1000, interval_ms % 1000 * 1000000L };
	struct timespec poll = { 0, 1000000 };

	while (argc > 3 && access(argv[3], F_OK))
		nanosleep(&poll, NULL);
	long i;
	int numbered = argc > 4 && argv[4][0] == 's';
	const char *path = argc > 4 && argv[4][0] == '/' ? argv[4] : NULL;

	for (i = 0; i < n; i++) {
		if (numbered)
			syscall(SYS_close, 100000 + i);
		else if (path)
			read_once(path);
		else
			syscall(SYS_getppid);
		if (interval_ms && i + 1 < n)
			nanosleep(&nap, NULL);
	}
	return 0;
}

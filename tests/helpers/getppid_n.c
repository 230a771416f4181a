// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Makes exactly N getppid() system calls, INTERVAL_MS apart, once the file
 * GO exists (if given): a known number of known events.  With "seq" it
 * calls close(100000 + i) instead, so each event carries its number.
 *   getppid_n N [INTERVAL_MS [GO [seq]]]
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

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

	for (i = 0; i < n; i++) {
		if (numbered)
			syscall(SYS_close, 100000 + i);
		else
			syscall(SYS_getppid);
		if (interval_ms && i + 1 < n)
			nanosleep(&nap, NULL);
	}
	return 0;
}

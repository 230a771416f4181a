// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A workload with known field values, for filters: for i in 0..N-1 it
 * calls lseek(-1, i, i % 3), which fails but is traced with fd
 * 4294967295, offset i and whence i % 3, and renames itself to
 * NAMES[i % 4] (task:task_rename, newcomm).
 *   filter_load N
 */
#include <stdlib.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static const char *const names[] = { "fl-alpha", "fl-beta", "fl-gamma", "fl-alphabet" };

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i;

	for (i = 0; i < n; i++) {
		syscall(SYS_lseek, -1, i, i % 3);
		prctl(PR_SET_NAME, names[i % 4]);
	}
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * probed N: calls tr_probed(i, 2 * i + 1) for i in 1..N, which returns
 * their sum: the uprobe tests' known arguments and return values.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, used)) long tr_probed(long a, long b)
{
	/* keeps the call: the compiler may not fold it away */
	__asm__ volatile("" : : : "memory");
	return a + b;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 1, sum = 0;

	for (i = 1; i <= n; i++)
		sum += tr_probed(i, 2 * i + 1);
	printf("%ld\n", sum);
	return 0;
}

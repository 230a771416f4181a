// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * probed N [GO]: the uprobe tests' known calls, once the file GO exists
 * if given.  For i in 1..N it calls
 * tr_probed(i, 2 * i + 1), which returns their sum, and
 * tr_named(names[i % 3], -i), which returns -2 * i, and passes the USDT
 * probes tracer_test:step with i, -i and (unsigned char)i,
 * tracer_test:named with names[i % 3] (from a register) and i, and
 * tracer_test:indexed with names[i % 3] as the compiler finds it (gcc -O2:
 * at base, index and scale).  The names are read
 * first: a uprobe reads no page that was never touched (as ftrace's and
 * perf's, it records "(fault)").
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/sdt.h>

/* Keeps each call: the compiler may not fold it away. */
#define OPAQUE()	__asm__ volatile("" : : : "memory")

__attribute__((noinline, used)) long tr_probed(long a, long b)
{
	OPAQUE();
	return a + b;
}

__attribute__((noinline, used)) int tr_named(const char *name, int delta)
{
	OPAQUE();
	return name[0] ? 2 * delta : 0;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "alpha", "beta", "gamma" };
	long i, n = argc > 1 ? atol(argv[1]) : 1, sum = 0;
	const char *name;

	while (argc > 2 && access(argv[2], F_OK))
		usleep(10000);
	for (i = 0; i < 3; i++)
		sum += *(volatile const char *)names[i];
	for (i = 1; i <= n; i++) {
		sum += tr_probed(i, 2 * i + 1);
		sum += tr_named(names[i % 3], -i);
		STAP_PROBE3(tracer_test, step, i, (int)-i, (unsigned char)i);
		name = names[i % 3];
		__asm__ volatile("" : "+r"(name));	/* a register: 8@%REG */
		STAP_PROBE2(tracer_test, named, name, i);
		STAP_PROBE1(tracer_test, indexed, names[i % 3]);
	}
	printf("%ld\n", sum);
	return 0;
}

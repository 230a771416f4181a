// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>

#include "common/cpus.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A CPU number, decimal digits only; *p moves past it. */
static int cpu_number(const char **p, unsigned int ncpu, unsigned long *cpu)
{
	const char *s = *p;
	unsigned long n = 0;

	if (!is_digit(*s))
		return -EINVAL;
	for (; is_digit(*s); s++)
		if (n < ncpu)	/* once out of range it stays so, and never overflows */
			n = n * 10 + (*s - '0');
	*p = s;
	*cpu = n;
	return n < ncpu ? 0 : -ERANGE;
}

int tr_parse_cpu_list(const char *list, unsigned char *set, unsigned int ncpu)
{
	const char *p = list;
	unsigned long lo, hi;
	int err;

	do {
		err = cpu_number(&p, ncpu, &lo);
		hi = lo;
		if (!err && *p == '-') {
			p++;
			err = cpu_number(&p, ncpu, &hi);
		}
		if (!err && (lo > hi || (*p && *p != ',')))
			err = -EINVAL;
		if (err)
			return err;
		while (set && lo <= hi)
			set[lo++] = 1;
	} while (*p++ == ',');
	return 0;
}

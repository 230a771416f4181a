// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>

#include "cpus.h"

int tr_parse_cpu_list(const char *list, unsigned char *set, unsigned int ncpu)
{
	const char *p = list;

	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p)
			return -EINVAL;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (lo > hi || hi >= ncpu)
			return -ERANGE;
		while (lo <= hi)
			set[lo++] = 1;
		if (*end != ',' && *end)
			return -EINVAL;
		p = *end ? end + 1 : end;
	}
	return 0;
}

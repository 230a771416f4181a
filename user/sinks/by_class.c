// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>

#include "sinks/by_class.h"

void *tr_by_class_grow(struct tr_by_class *a, __u32 id)
{
	unsigned int n = id + 64;
	unsigned char *at = id < (unsigned int)-64 ? realloc(a->at, (size_t)n * a->size) : NULL;

	if (!at)
		return NULL;
	memset(at + (size_t)a->n * a->size, a->fill, (size_t)(n - a->n) * a->size);
	a->at = at;
	a->n = n;
	return at + (size_t)id * a->size;
}

void tr_by_class_free(struct tr_by_class *a)
{
	free(a->at);
	a->at = NULL;
	a->n = 0;
}

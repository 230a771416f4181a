/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the report works out once per event class, kept in an array by the
 * class's id (the same in both passes, which open the trace apart): the
 * filter's verdict, whether its records name tasks, the text's printing
 * plans.  The array grows as higher ids come; an entry starts with every
 * byte set to the array's fill.
 */
#ifndef TRACER_BY_CLASS_H
#define TRACER_BY_CLASS_H

#include <stddef.h>
#include <linux/types.h>

struct tr_by_class {
	unsigned char *at;		/* n entries of size bytes */
	unsigned int n;
	size_t size;			/* an entry's */
	int fill;			/* a new entry's bytes */
};

/* Grows a to hold id's entry: it, or NULL without memory (a stays as it was). */
void *tr_by_class_grow(struct tr_by_class *a, __u32 id);

/* id's entry, or NULL (no memory: the caller works it out each time). */
static inline void *tr_by_class(struct tr_by_class *a, __u32 id)
{
	return id < a->n ? a->at + id * a->size : tr_by_class_grow(a, id);
}

/* Frees the entries (what they point to is their owner's). */
void tr_by_class_free(struct tr_by_class *a);

#endif /* TRACER_BY_CLASS_H */

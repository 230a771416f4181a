/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Close names, for "did you mean" in messages about events and fields. */
#ifndef TRACER_SUGGEST_H
#define TRACER_SUGGEST_H

#include <stddef.h>

/* Levenshtein distance: insertions, deletions and substitutions from a to b. */
unsigned int tr_edit_distance(const char *a, const char *b);

/*
 * The closest of the names offered to a wanted one, within the distance a
 * suggestion allows (a third of its length, plus 2); the first of equals.
 */
struct tr_closest {
	const char *wanted;
	size_t wanted_len;
	unsigned int distance;	/* name's; until a name is close, one past the limit */
	char name[128];		/* the closest so far, or "" */
};

void tr_closest_init(struct tr_closest *c, const char *wanted);

/*
 * Offer name.  Its length alone bounds its distance from below, so most
 * names cost a strlen: lists of thousands (symbol tables, kallsyms) are
 * walked on the way to finding the wanted name itself.
 */
void tr_closest_offer(struct tr_closest *c, const char *name);

#endif /* TRACER_SUGGEST_H */

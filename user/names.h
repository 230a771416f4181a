/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Close names, for "did you mean" in messages about events and fields. */
#ifndef TRACER_NAMES_H
#define TRACER_NAMES_H

/* Levenshtein distance: insertions, deletions and substitutions from a to b. */
unsigned int tr_edit_distance(const char *a, const char *b);

#endif /* TRACER_NAMES_H */

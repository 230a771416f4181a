// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Close names, for "did you mean" in messages about events and fields. */
#include <stdlib.h>
#include <string.h>

#include "common/suggest.h"

unsigned int tr_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned int *row = calloc(lb + 1, sizeof(*row)), result;

	if (!row)
		return ~0u;	/* no memory: nothing is close */
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		unsigned int diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			unsigned int up = row[j];
			unsigned int best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	result = row[lb];
	free(row);
	return result;
}

void tr_closest_init(struct tr_closest *c, const char *wanted)
{
	c->wanted = wanted;
	c->wanted_len = strlen(wanted);
	c->distance = c->wanted_len / 3 + 3;
	c->name[0] = 0;
}

void tr_closest_offer(struct tr_closest *c, const char *name)
{
	size_t len = strlen(name);
	size_t apart = len > c->wanted_len ? len - c->wanted_len : c->wanted_len - len;
	unsigned int d;

	if (len >= sizeof(c->name) || apart >= c->distance)
		return;
	d = tr_edit_distance(c->wanted, name);
	if (d < c->distance) {
		c->distance = d;
		memcpy(c->name, name, len + 1);
	}
}

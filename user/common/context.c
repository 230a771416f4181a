// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <tracer/record.h>

#include "common/context.h"
#include "common/suggest.h"

static const char *const names[TR_CONTEXT_FIELDS] = {
	[TR_CONTEXT_CGROUP] = "cgroup", [TR_CONTEXT_UID] = "uid", [TR_CONTEXT_GID] = "gid",
	[TR_CONTEXT_PRIO] = "prio", [TR_CONTEXT_NICE] = "nice",
};

const char *tr_context_name(unsigned int i)
{
	return i < TR_CONTEXT_FIELDS ? names[i] : NULL;
}

int tr_context_signed(const char *name)
{
	return !strcmp(name, names[TR_CONTEXT_PRIO]) || !strcmp(name, names[TR_CONTEXT_NICE]);
}

/* The known name closest to name, for "did you mean". */
static const char *closest(const char *name)
{
	unsigned int i, best = 0;

	for (i = 1; i < TR_CONTEXT_FIELDS; i++)
		if (tr_edit_distance(name, names[i]) < tr_edit_distance(name, names[best]))
			best = i;
	return tr_edit_distance(name, names[best]) <= 2 ? names[best] : NULL;
}

int tr_context_parse(const char *list, __u32 *flags, char *why, size_t whylen)
{
	const char *at = list, *end;
	unsigned int i;

	do {
		end = strchrnul(at, ',');
		for (i = 0; i < TR_CONTEXT_FIELDS; i++)
			if (strlen(names[i]) == (size_t)(end - at) && !strncmp(at, names[i], end - at))
				break;
		if (i == TR_CONTEXT_FIELDS) {
			const char *near;
			char name[32];

			snprintf(name, sizeof(name), "%.*s", (int)(end - at), at);
			near = closest(name);
			snprintf(why, whylen, "unknown context field '%s'%s%s%s; known: cgroup, uid, gid, prio, nice",
				 name, near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
			return -EINVAL;
		}
		*flags |= 1u << i;
		at = end + 1;
	} while (*end);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness over tr_format_sanitize(): an input is one format
 * text.  What it accepts, libtraceevent must parse without failing
 * (format.h); a refusal there means the sanitizer let through text the
 * parser misreads, and aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tep_event *ev = NULL;
	struct tep_handle *tep;
	const char *why;
	char *sane;

	sane = tr_format_sanitize((const char *)data, size, 1, &why);
	if (!sane)
		return 0;
	tep = tep_alloc();
	if (!tep)
		abort();
	if (tep_parse_format(tep, &ev, sane, strlen(sane), "tracer") || !ev ||
	    (ev->flags & TEP_EVENT_FL_FAILED)) {
		fprintf(stderr, "libtraceevent refused a sanitized format:\n%s\n", sane);
		abort();
	}
	tep_free(tep);
	free(sane);
	return 0;
}

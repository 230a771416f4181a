// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracer record's messages (record/say.h). */
#include <stdarg.h>
#include <stdio.h>

#include "record/say.h"

static const char *command_name = "record";	/* for messages */

void rec_say_as(const char *name)
{
	if (name)
		command_name = name;
}

const char *rec_said_as(void)
{
	return command_name;
}

void rec_say(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tracer %s: ", command_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

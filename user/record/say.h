/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer record's messages, and those of the commands that record through
 * it (tracer top, tracer ust dump): one line of stderr each.
 */
#ifndef TRACER_SAY_H
#define TRACER_SAY_H

/* "tracer record: " (or the command rec_say_as() names) and the message, on a line of stderr. */
void rec_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The command the messages name from now on ("record" until then); NULL keeps it. */
void rec_say_as(const char *name);
/* ... that name ("record", "top", "ust dump"). */
const char *rec_said_as(void);

#endif /* TRACER_SAY_H */

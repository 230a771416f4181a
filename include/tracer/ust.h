/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libtracer-ust: events recorded by an application into tracer's buffers
 * (include/tracer/ringbuf.h), always on, dumped as a CTF trace that
 * `tracer report` and babeltrace2 read.
 *
 *	#include <tracer/ust.h>
 *
 *	TRACER_CHANNEL(MOVES, 4096, 4, TRACER_UST_OVERWRITE);
 *
 *	tracer_event(MOVES, move, disk, from, to);	   typed: fields disk, from, to
 *	TRACE(MOVES, "Move disk %d from %s to %s", disk, from, to);
 *
 *	tracer_ust_dump("trace-dir");
 *
 * A channel is a set of buffers, one per thread that writes to it, of
 * NSUBBUF sub-buffers of SUBBUF_SIZE bytes (powers of two, at least 4096
 * and 2), in flight-recorder mode (TRACER_UST_OVERWRITE: the newest
 * events survive) or discard mode (the oldest survive, later ones are
 * counted as lost).  Give rare events a channel of their own so that a
 * flood of frequent ones does not overwrite them.
 *
 * tracer_event() records the values of its arguments under their own
 * names (an argument that is not a plain name is called argN), as event
 * PROVIDER:NAME.  TRACE() records the values and the format string's
 * address, nothing else: the format is applied when the trace is read,
 * so it must be a string literal.  Its event is PROVIDER:CHANNEL_LINE.
 * PROVIDER is TRACER_PROVIDER if defined before including this header,
 * else "ust".  Arguments are integers, pointers and strings (char *,
 * copied up to TRACER_UST_STRING_MAX bytes); at most 8 per event.
 *
 * Every event of a program and of its shared libraries is registered when
 * it is loaded (ELF section tracer_ust_events), so recording never
 * allocates more than a thread's first buffer of a channel, and a dump
 * from a signal handler has all it needs.  Recording is async-signal-safe
 * and lock-free; a thread's buffers outlive it and are taken over by the
 * next new thread.
 */
#ifndef TRACER_UST_H
#define TRACER_UST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the library exports; everything else in it is hidden. */
#define TRACER_UST_API __attribute__((visibility("default")))

#define TRACER_UST_DISCARD	0
#define TRACER_UST_OVERWRITE	1

/* Bytes of a string argument kept, the terminating NUL included. */
#define TRACER_UST_STRING_MAX	256
#define TRACER_UST_MAX_ARGS	8

struct tracer_ust_channel {
	const char *name;
	uint32_t subbuf_size;
	uint32_t nsubbuf;
	int mode;
	int index;		/* the library's, -1 until registered */
};

/* What one call site records: its channel, name, format and argument types. */
struct tracer_ust_event {
	struct tracer_ust_channel *channel;
	const char *provider;
	const char *name;	/* tracer_event()'s; NULL for TRACE() */
	const char *format;	/* TRACE()'s; NULL for tracer_event() */
	const char *arg_names;	/* each NUL-terminated, one after the other */
	const char *arg_types;	/* one letter per argument: i signed, u unsigned, p pointer, s string */
	const char *file;
	uint32_t line;
	uint32_t nargs;
	uint32_t id;		/* the library's, 0 until registered */
};

#define TRACER_CHANNEL(var, subbuf_size, nsubbuf, mode) \
	struct tracer_ust_channel var = { #var, subbuf_size, nsubbuf, mode, -1 }
#define TRACER_CHANNEL_DECLARE(var) extern struct tracer_ust_channel var

/*
 * Write a directory DIR holding the buffers' contents as a CTF trace
 * (created 0700; it must not exist).  What it writes is consumed: the
 * next dump holds what was recorded after.  Async-signal-safe.  0, or
 * -errno (-EEXIST, -EBUSY while another dump runs).
 */
TRACER_UST_API int tracer_ust_dump(const char *dir);

/*
 * Dump into DIR (or DIR.1, DIR.2, ... when it exists) when sig arrives.
 * For SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT the signal then takes
 * its default action, so the program still dies of it.  The environment
 * variable TRACER_UST_CRASH_DIR=DIR does this for those five at start.
 * 0, or -errno.
 */
TRACER_UST_API int tracer_ust_dump_on_signal(int sig, const char *dir);

/*
 * Events not in the buffers, so far: every event attempted is recorded
 * (and dumped), lost or overwritten.
 */
struct tracer_ust_counts {
	uint64_t lost;		/* buffer full (discard mode), too large, no buffer */
	uint64_t overwritten;	/* flight recorder: overwritten before a dump took it */
};
TRACER_UST_API void tracer_ust_counts(struct tracer_ust_counts *counts);

/* --- What the macros expand to ------------------------------------------ */

TRACER_UST_API void tracer_ust_write(const struct tracer_ust_event *event, const uint64_t *values);
TRACER_UST_API void tracer_ust_register(struct tracer_ust_event *const *begin,
					struct tracer_ust_event *const *end);

#ifndef TRACER_PROVIDER
#define TRACER_PROVIDER ust
#endif
#define TRACER_STR_(x) #x
#define TRACER_STR(x) TRACER_STR_(x)
#define TRACER_CAT_(a, b) a##b
#define TRACER_CAT(a, b) TRACER_CAT_(a, b)

#define TRACER_NARGS(...) TRACER_NARGS_(0, ##__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define TRACER_NARGS_(_0, _1, _2, _3, _4, _5, _6, _7, _8, n, ...) n
#define TRACER_MAP(m, ...) TRACER_CAT(TRACER_MAP_, TRACER_NARGS(__VA_ARGS__))(m, ##__VA_ARGS__)
#define TRACER_MAP_0(m)
#define TRACER_MAP_1(m, a) m(a)
#define TRACER_MAP_2(m, a, ...) m(a) TRACER_MAP_1(m, __VA_ARGS__)
#define TRACER_MAP_3(m, a, ...) m(a) TRACER_MAP_2(m, __VA_ARGS__)
#define TRACER_MAP_4(m, a, ...) m(a) TRACER_MAP_3(m, __VA_ARGS__)
#define TRACER_MAP_5(m, a, ...) m(a) TRACER_MAP_4(m, __VA_ARGS__)
#define TRACER_MAP_6(m, a, ...) m(a) TRACER_MAP_5(m, __VA_ARGS__)
#define TRACER_MAP_7(m, a, ...) m(a) TRACER_MAP_6(m, __VA_ARGS__)
#define TRACER_MAP_8(m, a, ...) m(a) TRACER_MAP_7(m, __VA_ARGS__)

/* An argument's type letter (tracer_ust_event.arg_types); f is refused. */
#define TRACER_TYPE(x) _Generic((x),						\
	_Bool: 'u', char: ((char)-1 < 0 ? 'i' : 'u'),				\
	signed char: 'i', short: 'i', int: 'i', long: 'i', long long: 'i',	\
	unsigned char: 'u', unsigned short: 'u', unsigned int: 'u',		\
	unsigned long: 'u', unsigned long long: 'u',				\
	char *: 's', const char *: 's',						\
	float: 'f', double: 'f', long double: 'f',				\
	default: 'p')
#define TRACER_TYPE_(x) TRACER_TYPE(x),
#define TRACER_CHECK_(x) _Static_assert(TRACER_TYPE(x) != 'f',			\
	"tracer: floating-point arguments are not recorded: " #x);
#define TRACER_NAME_(x) #x "\0"
#define TRACER_VALUE_(x) (uint64_t)(uintptr_t)(x),

#define TRACER_RECORD_(chan, event_name, fmt, ...) do {				\
	TRACER_MAP(TRACER_CHECK_, ##__VA_ARGS__)					\
	_Static_assert(TRACER_NARGS(__VA_ARGS__) <= TRACER_UST_MAX_ARGS,	\
		       "tracer: at most 8 arguments");				\
	static const char tracer_types_[] = { TRACER_MAP(TRACER_TYPE_, ##__VA_ARGS__) 0 }; \
	static struct tracer_ust_event tracer_event_ = {			\
		&(chan), TRACER_STR(TRACER_PROVIDER), event_name, fmt,		\
		TRACER_MAP(TRACER_NAME_, ##__VA_ARGS__) "", tracer_types_,	\
		__FILE__, __LINE__, TRACER_NARGS(__VA_ARGS__), 0,		\
	};									\
	static struct tracer_ust_event *const tracer_event_entry_		\
		__attribute__((used, section("tracer_ust_events"))) = &tracer_event_; \
	const uint64_t tracer_values_[] = { TRACER_MAP(TRACER_VALUE_, ##__VA_ARGS__) 0 }; \
	tracer_ust_write(&tracer_event_, tracer_values_);			\
} while (0)

#define tracer_event(chan, name, ...) TRACER_RECORD_(chan, #name, (const char *)0, ##__VA_ARGS__)
#define TRACE(chan, fmt, ...) TRACER_RECORD_(chan, (const char *)0, "" fmt, ##__VA_ARGS__)

/* Each object that includes this header registers its program's or library's events at load. */
extern struct tracer_ust_event *const __start_tracer_ust_events[]
	__attribute__((weak, visibility("hidden")));
extern struct tracer_ust_event *const __stop_tracer_ust_events[]
	__attribute__((weak, visibility("hidden")));

static void __attribute__((constructor, used)) tracer_ust_register_here(void)
{
	tracer_ust_register(__start_tracer_ust_events, __stop_tracer_ust_events);
}

#ifdef __cplusplus
}
#endif
#endif /* TRACER_UST_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What record and top share: what to record and how (-e, --filter, -p,
 * -C, --buffer-size...), the setters of those options, and the slots -e,
 * --function and --filter fill.
 */
#ifndef TRACER_CLI_RECORDING_H
#define TRACER_CLI_RECORDING_H

#include <tracer/recording.h>

/*
 * What -e, --function and --filter fill, one slot per argument, and the
 * specs made for them (--function's, and -e's without their @CHANNEL).
 */
struct event_args {
	const char **events, **filters;
	unsigned int *channels;
	char **made;			/* two at most per argument */
	unsigned int nmade;
};

/*
 * The state record's and top's options fill: the recording's options (o,
 * record's own or top's), a's slots, and what was given.  It comes first
 * in top's state, which the shared setters take as theirs.
 */
struct recording {
	struct tr_record_opts *o;
	struct event_args a;
	int mode_given;			/* --mode: refuse --mode discard --flight-recorder */
	int output_given;		/* -o: with --relay, the trace is written there as well */
};

/* A channel's mode not given: the recording's, decided once all options are read. */
#define MODE_UNSET	((enum tr_buf_mode)-1)

/* Slots for argc arguments: 0, or -ENOMEM (free them all the same). */
int event_args_new(struct event_args *a, int argc);
/* a's slots and the specs made for them. */
void event_args_free(struct event_args *a);
/* A spec made, freed with a's slots; NULL (no memory) stays NULL. */
char *keep_made(struct event_args *a, char *spec);

/* What record and top record when not told otherwise; events, filters and channels as -e fills a's. */
struct tr_record_opts record_defaults(const struct event_args *a);
/*
 * Each -e's channel, by name, into a's channels; the specs lose their
 * @CHANNEL.  Channels without a mode take the recording's.  0, or -errno
 * said on stderr.
 */
int assign_channels(struct tr_record_opts *o, struct event_args *a);

/* o's channel of that name, or NULL. */
struct tr_channel_opts *find_channel(struct tr_record_opts *o, const char *name);
/*
 * -e EVENT[@CHANNEL] (or --function's spec) into r's slots: the event part
 * is checked now, the channel once all are known (assign_channels()).
 * 0, or -errno said on stderr.
 */
int add_event(struct recording *r, const char *spec);

/* The setters of the options record and top share (options.h): state is a struct recording. */
int set_event(void *state, const char *value);
int set_filter(void *state, const char *value);
int set_pid(void *state, const char *value);
int set_cpu(void *state, const char *value);
int set_comm(void *state, const char *value);
int set_force(void *state, const char *value);
int set_duration(void *state, const char *value);
int set_buffer_size(void *state, const char *value);
int set_subbuf_size(void *state, const char *value);
int set_flush_ms(void *state, const char *value);
int set_backend(void *state, const char *value);
int set_verbose(void *state, const char *value);

#endif /* TRACER_CLI_RECORDING_H */

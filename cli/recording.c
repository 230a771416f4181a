// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What record and top share (recording.h): the options that say what to
 * record and how, and the slots -e, --function and --filter fill.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "options.h"
#include "recording.h"

#define MAX_FLUSH_MS		60000
#define MAX_COMM		15		/* what the kernel keeps of a name */

int event_args_new(struct event_args *a, int argc)
{
	*a = (struct event_args) {
		.events = calloc(argc, sizeof(*a->events)), .filters = calloc(argc, sizeof(*a->filters)),
		.channels = calloc(argc, sizeof(*a->channels)), .made = calloc(2 * argc, sizeof(*a->made)),
	};
	return a->events && a->filters && a->channels && a->made ? 0 : -ENOMEM;
}

char *keep_made(struct event_args *a, char *spec)
{
	if (spec)
		a->made[a->nmade++] = spec;
	return spec;
}

void event_args_free(struct event_args *a)
{
	while (a->nmade)
		free(a->made[--a->nmade]);
	free(a->made);
	free(a->channels);
	free(a->filters);
	free(a->events);
}

struct tr_record_opts record_defaults(const struct event_args *a)
{
	return (struct tr_record_opts) {
		.events = a->events, .filters = a->filters, .event_channels = a->channels,
		.output = "tracer.data", .flush_ms = 100,
		.channels = { { .name = TR_DEFAULT_CHANNEL, .buffer_size = 4 << 20,
				.subbuf_size = 1 << 20, .mode = TR_MODE_DISCARD } },
		.nchannels = 1,
	};
}

struct tr_channel_opts *find_channel(struct tr_record_opts *o, const char *name)
{
	unsigned int i;

	for (i = 0; i < o->nchannels; i++)
		if (!strcmp(o->channels[i].name, name))
			return &o->channels[i];
	return NULL;
}

int assign_channels(struct tr_record_opts *o, struct event_args *a)
{
	const char **events = a->events;
	unsigned int i;

	for (i = 1; i < o->nchannels; i++)
		if (o->channels[i].mode == MODE_UNSET)
			o->channels[i].mode = o->channels[0].mode;
	for (i = 0; i < o->nevents; i++) {
		const char *at = strchr(events[i], '@');
		struct tr_channel_opts *c = at ? find_channel(o, at + 1) : o->channels;

		if (!c)
			return refuse("--event", events[i], "no --channel %s", at + 1);
		a->channels[i] = c - o->channels;
		if (at && !(events[i] = keep_made(a, strndup(events[i], at - events[i]))))
			return -ENOMEM;
	}
	return 0;
}

int add_event(struct recording *r, const char *spec)
{
	char *event = strndup(spec, strcspn(spec, "@"));
	int err = event ? parse_event("--event", event) : -ENOMEM;

	r->a.events[r->o->nevents++] = spec;
	free(event);
	return err;
}

/* The shared setters (recording.h, options.h's set()): state is a struct recording. */
int set_event(void *state, const char *value)
{
	return add_event(state, value);
}

/* --filter belongs to the -e before it, as in perf record. */
int set_filter(void *state, const char *expr)
{
	struct recording *r = state;
	struct tr_record_opts *o = r->o;

	if (!o->nevents)
		return refuse("--filter", expr, "it filters the events of the -e before it, and none came before");
	if (r->a.filters[o->nevents - 1])
		return refuse("--filter", expr, "-e %s has a filter already; join the two with &&",
			      o->events[o->nevents - 1]);
	if (!*expr)
		return refuse("--filter", expr, "empty");
	r->a.filters[o->nevents - 1] = expr;
	return 0;
}

int set_pid(void *state, const char *value)
{
	return parse_pid("--pid", value, 1, &((struct recording *)state)->o->pid);
}

int set_cpu(void *state, const char *value)
{
	((struct recording *)state)->o->cpus = value;
	return parse_cpus("--cpu", value, libbpf_num_possible_cpus());
}

int set_comm(void *state, const char *value)
{
	((struct recording *)state)->o->comm = value;
	if (!*value || strlen(value) > MAX_COMM)
		return refuse("--comm", value, "a command name has 1 to %d characters", MAX_COMM);
	return 0;
}

int set_force(void *state, const char *value)
{
	(void)value;
	((struct recording *)state)->o->force = 1;
	return 0;
}

int set_duration(void *state, const char *value)
{
	return parse_duration("--duration", value, &((struct recording *)state)->o->duration);
}

int set_buffer_size(void *state, const char *value)
{
	return parse_size("--buffer-size", value, &((struct recording *)state)->o->channels[0].buffer_size);
}

int set_subbuf_size(void *state, const char *value)
{
	return parse_size("--subbuf-size", value, &((struct recording *)state)->o->channels[0].subbuf_size);
}

int set_flush_ms(void *state, const char *value)
{
	return parse_uint_into("--flush-ms", value, 1, MAX_FLUSH_MS, &((struct recording *)state)->o->flush_ms);
}

int set_backend(void *state, const char *value)
{
	struct tr_record_opts *o = ((struct recording *)state)->o;

	if (!strcmp(value, "auto"))
		o->backend = TR_BACKEND_AUTO;
	else if (!strcmp(value, "bpf"))
		o->backend = TR_BACKEND_BPF;
	else if (!strcmp(value, "kmod"))
		o->backend = TR_BACKEND_KMOD;
	else
		return refuse("--backend", value, "must be auto, bpf or kmod");
	return 0;
}

int set_verbose(void *state, const char *value)
{
	(void)value;
	((struct recording *)state)->o->verbose = 1;
	return 0;
}

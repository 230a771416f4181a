// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a dump writes beside the buffers' packets, made when events
 * register: each event's format in tracefs's syntax (.tracer/events, so
 * `tracer report` prints it, TRACE()'s format string becoming its print
 * fmt), the same fields in CTF metadata (babeltrace2), and the channels.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <tracer/record.h>

#include "layout/ctf.h"
#include "ust_impl.h"

#define MAX_FIELDS	(4 + 2 * TRACER_UST_MAX_ARGS + TRACER_UST_MAX_ARGS)

/* A recorded value's name in the formats: its own if it is a C name, else argN. */
struct arg_name {
	char text[32];
};

static int is_c_name(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n >= sizeof(((struct arg_name *)0)->text) || isdigit((unsigned char)*s) ||
	    !strncmp(s, "common_", 7))
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

static void arg_names(const struct tracer_ust_event *e, struct arg_name *names)
{
	const char *s = e->arg_names;
	unsigned int i, j;

	for (i = 0; i < e->nargs; i++, s += strlen(s) + 1) {
		if (is_c_name(s))
			snprintf(names[i].text, sizeof(names[i].text), "%s", s);
		else
			snprintf(names[i].text, sizeof(names[i].text), "arg%u", i);
		for (j = 0; j < i; j++)
			if (!strcmp(names[i].text, names[j].text))
				snprintf(names[i].text, sizeof(names[i].text), "arg%u", i);
	}
}

/* tracer_event()'s name, or TRACE()'s CHANNEL_LINE; _ID after a name taken before. */
static void event_name(const struct tracer_ust_event *e, char *name, size_t size)
{
	unsigned int i;

	if (e->name)
		snprintf(name, size, "%s", e->name);
	else
		snprintf(name, size, "%s_%u", e->channel->name, e->line);
	for (i = 0; i + 1 < e->id; i++) {
		const struct tracer_ust_event *o = ust.events[i];
		char other[96];

		if (strcmp(o->provider, e->provider))
			continue;
		event_name(o, other, sizeof(other));
		if (!strcmp(other, name)) {
			snprintf(name + strlen(name), size - strlen(name), "_%u", e->id);
			return;
		}
	}
}

static const char *field_type(char type)
{
	switch (type) {
	case 'i': return "s64";
	case 'u': return "u64";
	case 's': return "__data_loc char[]";
	default: return "void *";
	}
}

static const char *conversion(char type)
{
	switch (type) {
	case 'i': return "%lld";
	case 'u': return "%llu";
	case 's': return "\\\"%s\\\"";
	default: return "0x%lx";
	}
}

/* The user's format as a C string literal's contents. */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '\t')
			fputs("\\t", f);
		else if ((unsigned char)*s >= ' ')
			fputc(*s, f);
	}
}

static void put_format(FILE *f, const struct tracer_ust_event *e, const char *name,
		       const struct arg_name *names)
{
	unsigned int i;
	char *body = NULL;
	size_t size;
	FILE *text = open_memstream(&body, &size);

	if (!text)
		return;
	fprintf(text, "name: %s\nID: %u\nformat:\n" TR_FORMAT_COMMON_FIELDS, name, e->id);
	for (i = 0; i < e->nargs; i++)
		fprintf(text, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			field_type(e->arg_types[i]), names[i].text, 8 + 8 * i,
			e->arg_types[i] == 's' ? 4 : 8, e->arg_types[i] == 'i');
	fputs("\nprint fmt: \"", text);
	if (e->format)
		put_escaped(text, e->format);
	for (i = 0; !e->format && i < e->nargs; i++)
		fprintf(text, "%s%s=%s", i ? " " : "", names[i].text, conversion(e->arg_types[i]));
	fputc('"', text);
	for (i = 0; i < e->nargs; i++)
		fprintf(text, e->arg_types[i] == 's' ? ", __get_str(%s)" : ", REC->%s", names[i].text);
	fputc('\n', text);
	if (!fclose(text))
		fprintf(f, "event %u %s %s %zu\n%s", e->id, e->provider, name, size, body);
	free(body);
}

/* The record's fields as CTF sees them: names point into names. */
static unsigned int ctf_fields(const struct tracer_ust_event *e, const struct arg_name *names,
			       struct tr_ctf_field *fields)
{
	static const char *const pads[] = { "pad0", "pad1", "pad2", "pad3",
					    "pad4", "pad5", "pad6", "pad7" };
	static const struct tr_ctf_field common[] = {
		{ "common_type", TR_CTF_UINT, 2 }, { "common_flags", TR_CTF_UINT, 1 },
		{ "common_preempt_count", TR_CTF_UINT, 1 }, { "common_pid", TR_CTF_INT, 4 },
	};
	unsigned int i, n = 4, npad = 0;

	memcpy(fields, common, sizeof(common));
	for (i = 0; i < e->nargs; i++) {
		switch (e->arg_types[i]) {
		case 'i':
		case 'u':
			fields[n++] = (struct tr_ctf_field) {
				names[i].text, e->arg_types[i] == 'i' ? TR_CTF_INT : TR_CTF_UINT, 8 };
			break;
		case 's':
			fields[n++] = (struct tr_ctf_field) { names[i].text, TR_CTF_LOC, 4 };
			if (i + 1 < e->nargs)
				fields[n++] = (struct tr_ctf_field) { pads[npad++], TR_CTF_BYTES, 4 };
			break;
		default:
			fields[n++] = (struct tr_ctf_field) { names[i].text, TR_CTF_ADDR, 8 };
		}
	}
	for (i = 0; i < e->nargs; i++)
		if (e->arg_types[i] == 's')
			fields[n++] = (struct tr_ctf_field) { names[i].text, TR_CTF_DYN_CHARS, 0 };
	return n;
}

struct ctf_event {
	char name[160];
	struct arg_name names[TRACER_UST_MAX_ARGS];
	struct tr_ctf_field fields[MAX_FIELDS];
};

static char *metadata_text(struct ctf_event *ctf, struct tr_ctf_event_class *classes)
{
	struct tr_ctf_channel channels[TR_MAX_CHANNELS];
	char hostname[256], *text = NULL;
	struct tr_ctf_trace trace = {
		.backend = "ust", .domain = "ust",
		.clock = "CLOCK_MONOTONIC",
		.context = "user space: common_pid is the thread id, common_flags and common_preempt_count 0",
		.clock_offset_ns = tr_ctf_clock_offset_ns(),
		.classes = classes, .nclasses = ust.nevents,
		.channels = channels, .nchannels = ust.nchannels,
	};
	unsigned int i;
	size_t size;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	/* Without random bytes the trace is still written, its uuid zero. */
	tr_ctf_identify(&trace, hostname, sizeof(hostname));
	for (i = 0; i < ust.nchannels; i++) {
		const struct tracer_ust_channel *c = ust.channels[i];

		channels[i] = (struct tr_ctf_channel) {
			c->name, i, (__u64)c->subbuf_size * c->nsubbuf, c->subbuf_size, c->mode,
		};
	}
	for (i = 0; i < ust.nevents; i++) {
		const struct tracer_ust_event *e = ust.events[i];

		classes[i] = (struct tr_ctf_event_class) {
			ctf[i].name, e->id, e->channel->index, ctf[i].fields,
			ctf_fields(e, ctf[i].names, ctf[i].fields),
		};
	}
	if (tr_ctf_write_metadata(f, &trace) | fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static char *events_text(struct ctf_event *ctf)
{
	char *text = NULL, name[96];
	unsigned int i;
	size_t size;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	for (i = 0; i < ust.nevents; i++) {
		const struct tracer_ust_event *e = ust.events[i];

		event_name(e, name, sizeof(name));
		snprintf(ctf[i].name, sizeof(ctf[i].name), "%s:%s", e->provider, name);
		arg_names(e, ctf[i].names);
		put_format(f, e, name, ctf[i].names);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static char *channels_text(void)
{
	char *text = NULL;
	unsigned int i;
	size_t size;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	for (i = 0; i < ust.nchannels; i++)
		fprintf(f, "channel %u %s\n", i, ust.channels[i]->name);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * The events' descriptions for a recorder (user/record/ust_buffers.c), which finds
 * them through /proc/PID/fd: a memfd named tracer-ust-meta holding
 * .tracer/events's text, replaced whole at each registration.
 */
void ust_texts_publish(const struct ust_texts *t)
{
	static int published = -1;
	int fd = memfd_create(UST_META_MEMFD, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return;
	if (tr_ctf_write_all(fd, t->events, strlen(t->events)) ||
	    fcntl(fd, F_ADD_SEALS, UST_META_SEALS)) {
		close(fd);
		return;
	}
	ust_handoff(UST_HANDOFF_META, fd);
	if (published >= 0)
		close(published);
	published = fd;
}

struct ust_texts *ust_texts_make(void)
{
	struct ctf_event *ctf = calloc(ust.nevents, sizeof(*ctf));
	struct tr_ctf_event_class *classes = calloc(ust.nevents, sizeof(*classes));
	struct ust_texts *t = calloc(1, sizeof(*t));

	if (ctf && classes && t) {
		t->events = events_text(ctf);
		t->metadata = t->events ? metadata_text(ctf, classes) : NULL;
		t->channels = channels_text();
	}
	free(ctf);
	free(classes);
	if (t && t->events && t->metadata && t->channels)
		return t;
	if (t) {
		free(t->events);
		free(t->metadata);
		free(t->channels);
	}
	free(t);
	return NULL;
}

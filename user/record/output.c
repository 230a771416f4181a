// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer record's output: the trace directory's CTF metadata, tracer's
 * formats beside it, and the stream files, the output (struct rec_output)
 * the consumer appends packets to; --flight-recorder's snapshots.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>

#include "record/session.h"
#include "record/statedump.h"
#include "layout/ctf.h"
#include "common/context.h"

#define MAX_FIELDS	128

/* For the module's clock, its mapping too (composed in s->clock_desc). */
const char *rec_clock_name(struct session *s)
{
	return s->buffers.ops->clock(&s->buffers, s->clock_desc, sizeof(s->clock_desc));
}

/* What common_flags and common_preempt_count hold, for the metadata. */
static const char *context_desc(const struct session *s)
{
	if (s->kmod_via_perf)
		return "from the kernel (perf events)";
	if (s->derive_context)
		return "derived from the preempt count as ftrace does; irqs-off known only in hard interrupts and NMIs";
	return "unknown (0): this kernel does not let BPF programs read the preempt count";
}

static void channel_names(const struct session *s, const char *names[TR_MAX_CHANNELS])
{
	unsigned int c;

	for (c = 0; c < s->nchannels; c++)
		names[c] = s->o->channels[c].name;
}

/* .tracer/channels: which stream files a reader opens. */
static int write_channels(const struct session *s)
{
	const char *names[TR_MAX_CHANNELS];

	channel_names(s, names);
	return tr_trace_dir_write_channels(&s->dir, names, s->nchannels);
}

/* .tracer/context: the names of the context fields the records carry, in their order. */
static int write_context_names(struct session *s)
{
	unsigned int i;
	FILE *f;
	int err;

	if (!s->o->context)
		return 0;
	f = tr_trace_dir_meta_file(&s->dir, TR_TRACE_CONTEXT);
	if (!f)
		return -errno;
	for (i = 0; i < TR_CONTEXT_FIELDS; i++)
		if (s->o->context & (1u << i))
			fprintf(f, "%s\n", tr_context_name(i));
	err = ferror(f) ? -EIO : 0;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* .tracer/name, with text or what copy writes into it.  0 or -errno. */
static int write_meta(struct session *s, const char *name, const char *text, int (*copy)(FILE *))
{
	FILE *f = tr_trace_dir_meta_file(&s->dir, name);
	int err;

	if (!f)
		return -errno;
	err = copy ? copy(f) : (fputs(text, f) == EOF ? -EIO : 0);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* /proc/kallsyms's text symbols ("ADDRESS T NAME [module]"), as report reads them. */
static int copy_kallsyms(FILE *out)
{
	FILE *in = fopen("/proc/kallsyms", "r");
	char line[512], type;

	if (!in)
		return -errno;
	while (fgets(line, sizeof(line), in))
		if (sscanf(line, "%*x %c", &type) == 1 && (type == 't' || type == 'T'))
			fputs(line, out);
	fclose(in);
	return ferror(out) ? -EIO : 0;
}

/* tracefs's printk_formats: "ADDRESS : \"TEXT\"" for each string a const char * field may point to. */
static int copy_printk_formats(FILE *out)
{
	int size = 0;
	char *text = tracefs_instance_file_read(NULL, "printk_formats", &size);
	int err;

	if (!text)
		return -ENOENT;
	err = fwrite(text, 1, size, out) == (size_t)size ? 0 : -EIO;
	free(text);
	return err;
}

/* Whether an event's print format names a function by its address (%pS, %ps, %pF, %pf). */
static int prints_functions(const struct session *s)
{
	unsigned int i;

	for (i = 0; i < s->events.count; i++) {
		const char *fmt = strstr(s->events.events[i].format, "print fmt:");

		while (fmt && (fmt = strstr(fmt, "%p")))
			if (*(fmt += 2) && strchr("SsFf", *fmt))
				return 1;
	}
	return 0;
}

/*
 * What report needs to print fields as the kernel does: the strings of
 * printk_formats (rcu_utilization's s=, for one), and the kernel's
 * symbols where stacks or a format name functions.  A kernel without
 * printk_formats only leaves such strings as addresses.
 */
static int write_kernel_names(struct session *s)
{
	int err = write_meta(s, TR_TRACE_PRINTK, NULL, copy_printk_formats);

	if (err == -ENOENT)
		err = 0;
	if (!err && ((s->o->stacks & TR_STACK_KERNEL) || prints_functions(s)))
		err = write_meta(s, TR_TRACE_KALLSYMS, NULL, copy_kallsyms);
	return err;
}

/* .tracer/stacks: which stacks the records carry (-g); says why not.  0 or -errno. */
static int write_stacks_info(struct session *s)
{
	unsigned int which = s->o->stacks;
	int err;

	if (!which)
		return 0;
	err = write_meta(s, TR_TRACE_STACKS,
			     which == TR_STACK_KERNEL ? "kernel\n" :
			     which == TR_STACK_USER ? "user\n" : "kernel user\n", NULL);
	if (err)
		rec_say("cannot write which stacks the records carry into %s: %s",
			s->o->output, strerror(-err));
	return err;
}

int rec_write_metadata(struct session *s)
{
	unsigned int n = s->events.count, i;
	struct tr_ctf_event_class *classes = calloc(n, sizeof(*classes));
	struct tr_ctf_field *fields = calloc((size_t)n * MAX_FIELDS, sizeof(*fields));
	char **names = calloc(n, sizeof(*names));	/* "system:name", as perf's CTF has them */
	struct tr_ctf_channel channels[TR_MAX_CHANNELS];
	struct tr_ctf_trace trace = {
		.backend = s->buffers.ops->name, .clock = rec_clock_name(s), .context = context_desc(s),
		.clock_offset_ns = tr_ctf_clock_offset_ns(),
		.classes = classes, .nclasses = n, .channels = channels, .nchannels = s->nchannels,
	};
	char host[256];
	int err = classes && fields && names ? 0 : -ENOMEM, nf;
	FILE *f;

	if (!err)
		err = tr_ctf_identify(&trace, host, sizeof(host));
	for (i = 0; i < s->nchannels; i++)
		channels[i] = (struct tr_ctf_channel) {
			s->o->channels[i].name, i, s->cfg[i].subbuf_size * s->cfg[i].nsubbuf,
			s->cfg[i].subbuf_size, s->cfg[i].mode,
		};
	for (i = 0; i < n && !err; i++) {
		const struct tr_event *ev = &s->events.events[i];

		nf = tr_ctf_fields_from_format(ev->tep, fields + i * MAX_FIELDS, MAX_FIELDS);
		if (nf >= 0 && s->o->context && !ev->not_a_tracepoint)
			nf = tr_ctf_add_context_fields(fields + i * MAX_FIELDS, nf, MAX_FIELDS,
						       s->o->context);
		if (nf >= 0 && s->o->stacks && !ev->not_a_tracepoint)
			nf = tr_ctf_add_stack_fields(fields + i * MAX_FIELDS, nf, MAX_FIELDS);
		if (nf < 0)
			err = nf;
		if (asprintf(&names[i], "%s:%s", ev->system, ev->name) < 0) {
			names[i] = NULL;
			err = -ENOMEM;
		}
		classes[i] = (struct tr_ctf_event_class) {
			names[i], ev->id, ev->shape.channel, fields + i * MAX_FIELDS, nf < 0 ? 0 : nf,
		};
	}
	f = err ? NULL : tr_trace_dir_metadata(&s->dir);
	if (!err && !f)
		err = -errno;
	if (f) {
		err = tr_ctf_write_metadata(f, &trace);
		if (fclose(f) && !err)
			err = -errno;
	}
	if (!err)
		err = rec_write_formats(&s->dir, &s->events);
	if (!err)
		err = write_channels(s);
	if (!err)
		err = write_context_names(s);
	if (!err)
		err = write_kernel_names(s);
	if (err)
		rec_say("cannot write the trace metadata in %s: %s", s->o->output, strerror(-err));
	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(classes);
	free(fields);
	return err ? err : write_stacks_info(s);
}

/* Write a packet; on failure cut the file back so it ends on a whole packet. */
static int store_packet(struct session *s, unsigned int stream, const void *packet)
{
	off_t before = lseek(s->stream_fd[stream], 0, SEEK_CUR);
	int err = tr_ctf_write_packet(s->stream_fd[stream], packet);

	if (err) {
		if (ftruncate(s->stream_fd[stream], before))
			err = -errno;
		return err;
	}
	s->bytes += ((const struct tr_packet_header *)packet)->packet_size / 8;
	return 0;
}

/* The stream files' output: a packet appended to its buffer's file. */
static void stream_packet(struct session *s, unsigned int stream, const void *packet)
{
	s->write_error = store_packet(s, stream, packet);
}

static const struct rec_output stream_files = {
	.rank = REC_OUTPUT_FILES, .packet = stream_packet, .close = rec_close_streams,
};

int rec_open_streams(struct session *s)
{
	const char *names[TR_MAX_CHANNELS];
	int err;

	rec_output_add(s, &stream_files);
	channel_names(s, names);
	s->stream_fd = calloc(s->nstreams, sizeof(int));
	err = s->stream_fd ? tr_trace_dir_open_streams(&s->dir, names, s->nchannels,
						       s->ncpu, s->stream_fd) : -ENOMEM;
	if (err)
		rec_say("cannot create the stream files in %s: %s", s->o->output, strerror(-err));
	return err;
}

void rec_close_streams(struct session *s)
{
	unsigned int stream;

	rec_output_remove(s, &stream_files);
	for (stream = 0; s->stream_fd && stream < s->nstreams; stream++)
		if (s->stream_fd[stream] > 0)
			close(s->stream_fd[stream]);
	free(s->stream_fd);
	s->stream_fd = NULL;
}

/*
 * A snapshot starts with a state dump: the one at the start of the
 * recording is long overwritten.  Its records are the newest in the
 * buffers, so every thread is named even if they cost some of the oldest.
 */
int rec_state_dump(struct session *s)
{
	int err = tr_tasks_dump(s->task_dump);

	return err || !s->vm_dump ? err : tr_tasks_dump(s->vm_dump);
}

void rec_snapshot_dump(struct session *s)
{
	int err = rec_state_dump(s);

	if (err)
		rec_say("the snapshot has no state dump (%s): report names fewer threads",
			strerror(-err));
}

/*
 * The snapshot is a trace directory of its own inside the recording's
 * (private and locked like it), written through the same steps as a
 * streamed trace: s->dir and the stream files stand for it meanwhile.
 * What it holds is delivered first, before any file is written: on
 * Linux 6.1 the module's perf events would record this process's own
 * system calls once the programs that filter them are detached (so the
 * last snapshot's state dump comes before, rec_snapshot_dump()).
 */
int rec_snapshot(struct session *s, int last, char *said, size_t len)
{
	struct tr_trace_dir recording = s->dir;
	unsigned long before = s->records;
	char path[PATH_MAX], why[1024];
	int err;

	if (last) {
		s->buffers.ops->finish(&s->buffers);
	} else {
		rec_snapshot_dump(s);
		s->buffers.ops->flush(&s->buffers);
	}
	snprintf(path, sizeof(path), "%s/snapshot-%u", s->o->output, s->snapshots + 1);
	err = tr_trace_dir_create(&s->dir, path, 0, why, sizeof(why));
	if (err) {
		s->dir = recording;
		snprintf(said, len, "no snapshot: %s", why);
		return err;
	}
	err = rec_write_metadata(s);
	if (!err)
		err = rec_open_streams(s);
	if (!err) {
		rec_consume(s);
		err = s->write_error;
	}
	rec_close_streams(s);
	tr_trace_dir_close(&s->dir);
	s->dir = recording;
	if (err) {
		snprintf(said, len, "no snapshot: writing %s failed: %s", path, strerror(-err));
		return err;
	}
	s->snapshots++;
	snprintf(said, len, "snapshot %u: %lu events in %s", s->snapshots, s->records - before, path);
	return 0;
}

int rec_format_events(const struct tr_event_set *set, FILE *out)
{
	unsigned int i;

	for (i = 0; i < set->count; i++) {
		const struct tr_event *ev = &set->events[i];

		if (fprintf(out, "event %u %s %s %zu\n%s", ev->id, ev->system, ev->name,
			    strlen(ev->format), ev->format) < 0)
			return -errno;
	}
	return 0;
}

int rec_write_formats(const struct tr_trace_dir *d, const struct tr_event_set *events)
{
	FILE *f = tr_trace_dir_meta_file(d, TR_TRACE_FORMATS);
	int err;

	if (!f)
		return -errno;
	err = rec_format_events(events, f);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

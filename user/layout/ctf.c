// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <tracer/layout.h>
#include <tracer/version.h>

#include "layout/ctf.h"

/*
 * The fixed part: type aliases, trace, clock, and a stream class per
 * channel, all alike: their packet header and packet context are exactly struct
 * tr_packet_header, and whose event header and event context are struct
 * tr_event_header (CTF readers want only id and timestamp in the header;
 * the context is the payload's size and the writing task's process and
 * thread ids).  Integers are byte-aligned except the timestamps, whose
 * 64-bit alignment is the 8-byte alignment of every record
 * (TR_RECORD_ALIGN).
 */
static const char metadata_head[] =
"/* CTF 1.8 */\n"
"\n"
"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
"typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
"typealias integer { size = 16; align = 8; signed = true; } := int16_t;\n"
"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
"typealias integer { size = 8; align = 8; signed = false; encoding = UTF8; } := char_t;\n"
"typealias integer { size = 8; align = 8; signed = false; base = 16; } := byte_t;\n"
"typealias integer { size = 64; align = 8; signed = false; base = 16; } := addr_t;\n"
"\n";

/* After "trace {" and its "uuid = ...;". */
static const char metadata_trace[] =
"\tmajor = 1;\n"
"\tminor = 8;\n"
"\tbyte_order = le;\n"
"\tpacket.header := struct {\n"
"\t\tuint32_t magic;\n"
"\t\tuint32_t stream_id;\n"
"\t\tuint64_t stream_instance_id;\n"
"\t};\n"
"};\n"
"\n";

static const char metadata_clock_type[] =
"typealias integer { size = 64; align = 64; signed = false; map = clock.monotonic.value; } := tr_clock_t;\n"
"\n";

/* After "stream {", "id = N;". */
static const char metadata_stream[] =
"\tpacket.context := struct {\n"
"\t\ttr_clock_t timestamp_begin;\n"
"\t\ttr_clock_t timestamp_end;\n"
"\t\tuint64_t content_size;\n"
"\t\tuint64_t packet_size;\n"
"\t\tuint64_t packet_seq_num;\n"
"\t\tuint64_t events_discarded;\n"
"\t\tuint64_t tracer_lost_full;\n"
"\t\tuint64_t tracer_lost_wrap;\n"
"\t\tuint64_t tracer_lost_big;\n"
"\t\tuint64_t tracer_lost_busy;\n"
"\t\tuint32_t cpu_id;\n"
"\t\tuint32_t tracer_layout_version;\n"
"\t};\n"
"\tevent.header := struct {\n"
"\t\ttr_clock_t timestamp;\n"
"\t\tuint32_t id;\n"
"\t};\n"
"\tevent.context := struct {\n"
"\t\tuint32_t tracer_payload_size;\n"
"\t\tint32_t pid;\n"
"\t\tint32_t tid;\n"
"\t};\n"
"};\n"
"\n";

int tr_ctf_identify(struct tr_ctf_trace *trace, char *host, size_t len)
{
	int err = getrandom(trace->uuid, sizeof(trace->uuid), 0) == sizeof(trace->uuid) ? 0 : -EIO;

	if (err)
		memset(trace->uuid, 0, sizeof(trace->uuid));
	/* RFC 4122: version 4 (random), variant 1 */
	trace->uuid[6] = (trace->uuid[6] & 0x0f) | 0x40;
	trace->uuid[8] = (trace->uuid[8] & 0x3f) | 0x80;
	if (gethostname(host, len - 1))
		snprintf(host, len, "unknown");
	host[len - 1] = 0;
	trace->hostname = host;
	return err;
}

__s64 tr_ctf_clock_offset_ns(void)
{
	struct timespec real, mono;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	return (real.tv_sec - mono.tv_sec) * 1000000000ll +
	       (real.tv_nsec - mono.tv_nsec);
}

static void write_field(FILE *out, const struct tr_ctf_field *f)
{
	static const char *const ints[2][9] = {
		{ [1] = "uint8_t", [2] = "uint16_t", [4] = "uint32_t", [8] = "uint64_t" },
		{ [1] = "int8_t", [2] = "int16_t", [4] = "int32_t", [8] = "int64_t" },
	};

	switch (f->kind) {
	case TR_CTF_UINT:
	case TR_CTF_INT:
		fprintf(out, "\t\t%s _%s;\n", ints[f->kind == TR_CTF_INT][f->size], f->name);
		break;
	case TR_CTF_ADDR:
		fprintf(out, "\t\taddr_t _%s;\n", f->name);
		break;
	case TR_CTF_CHARS:
		fprintf(out, "\t\tchar_t _%s[%u];\n", f->name, f->size);
		break;
	case TR_CTF_BYTES:
		fprintf(out, "\t\tbyte_t _%s[%u];\n", f->name, f->size);
		break;
	case TR_CTF_STRING:
		fprintf(out, "\t\tstring _%s;\n", f->name);
		break;
	case TR_CTF_LOC:
		fprintf(out, "\t\tuint16_t _%s_offset;\n\t\tuint16_t _%s_length;\n",
			f->name, f->name);
		break;
	case TR_CTF_DYN_CHARS:
		fprintf(out, "\t\tchar_t _%s[_%s_length];\n", f->name, f->name);
		break;
	case TR_CTF_DYN_BYTES:
		fprintf(out, "\t\tbyte_t _%s[_%s_length];\n", f->name, f->name);
		break;
	case TR_CTF_FRAMES:
		fprintf(out, "\t\taddr_t _%s_stack[_%s_frames];\n", f->name, f->name);
		break;
	}
}

int tr_ctf_is_identifier(const char *name)
{
	if (!isalpha((unsigned char)*name) && *name != '_')
		return 0;
	while (isalnum((unsigned char)*name) || *name == '_')
		name++;
	return !*name;
}

int tr_ctf_is_quotable(const char *text)
{
	for (; *text; text++)
		if (*text == '"' || *text == '\\' || (unsigned char)*text < ' ' || *text == 0x7f)
			return 0;
	return 1;
}

static int field_problem(const struct tr_ctf_field *f)
{
	if (!tr_ctf_is_identifier(f->name))
		return 1;
	if (f->kind == TR_CTF_UINT || f->kind == TR_CTF_INT)
		return f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8;
	if (f->kind == TR_CTF_ADDR)
		return f->size != 8;
	return f->kind > TR_CTF_ADDR;
}

int tr_ctf_write_event_class(FILE *out, const struct tr_ctf_event_class *c)
{
	unsigned int i;

	if (!tr_ctf_is_quotable(c->name))
		return -EINVAL;
	for (i = 0; i < c->nfields; i++)
		if (field_problem(&c->fields[i]))
			return -EINVAL;
	fprintf(out, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = %u;\n",
		c->name, c->id, c->stream_id);
	fprintf(out, "\tfields := struct {\n");
	for (i = 0; i < c->nfields; i++)
		write_field(out, &c->fields[i]);
	fprintf(out, "\t};\n};\n\n");
	return 0;
}

/* What each stream class is: its channel's name, buffers and mode. */
static void write_channel_env(FILE *out, const struct tr_ctf_channel *c, const char *per)
{
	fprintf(out, "\ttracer_channel_%u = \"%s: %llu bytes per %s, sub-buffers of %llu, %s\";\n",
		c->id, c->name, (unsigned long long)c->buffer_size, per,
		(unsigned long long)c->subbuf_size,
		c->mode == TR_MODE_OVERWRITE ? "overwrite" : "discard");
}

void tr_ctf_write_stream_class(FILE *out, __u32 id)
{
	fprintf(out, "stream {\n\tid = %u;\n%s", id, metadata_stream);
}

int tr_ctf_write_metadata(FILE *out, const struct tr_ctf_trace *trace)
{
	int ust = trace->domain && !strcmp(trace->domain, "ust");
	unsigned int i;
	int err;

	fputs(metadata_head, out);
	fputs("trace {\n\tuuid = \"", out);
	for (i = 0; i < 16; i++)
		fprintf(out, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", trace->uuid[i]);
	fputs("\";\n", out);
	fputs(metadata_trace, out);
	fprintf(out, "env {\n\thostname = \"%s\";\n\tdomain = \"%s\";\n"
		"\ttracer_name = \"tracer\";\n\ttracer_major = %d;\n\ttracer_minor = %d;\n"
		"\ttracer_patchlevel = %d;\n\ttracer_backend = \"%s\";\n"
		"\ttracer_clock = \"%s\";\n\ttracer_common_context = \"%s\";\n"
		"\tlayout_version = %d;\n",
		trace->hostname, ust ? "ust" : "kernel", TRACER_VERSION_MAJOR, TRACER_VERSION_MINOR,
		TRACER_VERSION_PATCH, trace->backend, trace->clock,
		trace->context ? trace->context : "unknown", TR_LAYOUT_VERSION);
	for (i = 0; i < trace->nchannels; i++)
		write_channel_env(out, &trace->channels[i], ust ? "thread" : "CPU");
	fputs("};\n\n", out);
	fprintf(out, "clock {\n\tname = \"monotonic\";\n"
		"\tdescription = \"%s\";\n\tfreq = 1000000000;\n"
		"\toffset_s = %lld;\n\toffset = %lld;\n};\n\n", trace->clock,
		(long long)(trace->clock_offset_ns / 1000000000),
		(long long)(trace->clock_offset_ns % 1000000000));
	fputs(metadata_clock_type, out);
	for (i = 0; i < trace->nchannels; i++)
		tr_ctf_write_stream_class(out, trace->channels[i].id);
	for (i = 0; i < trace->nclasses; i++) {
		err = tr_ctf_write_event_class(out, &trace->classes[i]);
		if (err)
			return err;
	}
	return fflush(out) ? -errno : 0;
}

int tr_ctf_write_all(int fd, const void *bytes, size_t left)
{
	const char *from = bytes;

	while (left) {
		ssize_t n = write(fd, from, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		from += n;
		left -= n;
	}
	return 0;
}

int tr_ctf_write_packet(int fd, const void *packet)
{
	return tr_ctf_write_all(fd, packet, ((const struct tr_packet_header *)packet)->packet_size / 8);
}

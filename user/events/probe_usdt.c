// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * USDT probes (sys/sdt.h's, as SystemTap, bpftrace and perf read them):
 * each is an ELF note of type 3 named "stapsdt" in .note.stapsdt whose
 * descriptor holds the probe's address, the .stapsdt.base address and
 * the semaphore's, then three strings: provider, name, and the arguments'
 * specs ("-4@%eax 8@-8(%rbp)": size, negative if signed, and where).
 * libbpf attaches and fetches the values (bpf_usdt_arg()); these notes
 * give the events their names and their fields' sizes and signs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/probes.h"

#define NT_STAPSDT	3

/* The next string of a descriptor from *at, within end: NULL if unterminated. */
static const char *next_string(const char **at, const char *end)
{
	const char *s = *at, *nul = s < end ? memchr(s, 0, end - s) : NULL;

	*at = nul ? nul + 1 : end;
	return nul ? s : NULL;
}

/* The note of desc (size bytes) into note: 0, or -1 if it is malformed. */
static int read_note(const char *desc, size_t size, struct tr_usdt_note *note)
{
	const char *at = desc + 3 * sizeof(__u64), *end = desc + size;
	const char *provider, *name, *args;

	if (size < 3 * sizeof(__u64))
		return -1;
	memcpy(&note->address, desc, sizeof(note->address));
	memcpy(&note->semaphore, desc + 2 * sizeof(__u64), sizeof(note->semaphore));
	provider = next_string(&at, end);
	name = provider ? next_string(&at, end) : NULL;
	args = name ? next_string(&at, end) : NULL;
	if (!args || strlen(provider) >= sizeof(note->provider) ||
	    strlen(name) >= sizeof(note->name) || strlen(args) >= sizeof(note->args))
		return -1;
	strcpy(note->provider, provider);
	strcpy(note->name, name);
	strcpy(note->args, args);
	return 0;
}

/* Each note of section data, to fn: what fn last returned (stops at non-zero). */
static int each_note(Elf_Data *data, int (*fn)(const struct tr_usdt_note *, void *),
		     void *arg)
{
	size_t offset = 0, name_at, desc_at;
	struct tr_usdt_note note;
	GElf_Nhdr header;
	int ret = 0;

	while (!ret && (offset = gelf_getnote(data, offset, &header, &name_at, &desc_at)) > 0) {
		if (header.n_type != NT_STAPSDT || header.n_namesz != sizeof("stapsdt") ||
		    memcmp((char *)data->d_buf + name_at, "stapsdt", sizeof("stapsdt")))
			continue;
		if (!read_note((char *)data->d_buf + desc_at, header.n_descsz, &note))
			ret = fn(&note, arg);
	}
	return ret;
}

int tr_usdt_notes(int fd, int (*fn)(const struct tr_usdt_note *, void *), void *arg)
{
	Elf_Scn *scn = NULL;
	size_t strings;
	GElf_Shdr shdr;
	int ret = 0;
	Elf *elf = tr_probe_elf_begin(fd, &ret);

	if (!elf)
		return ret;
	if (elf_getshdrstrndx(elf, &strings)) {
		elf_end(elf);
		return -EBADMSG;
	}
	while (!ret && (scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE ||
		    !(name = elf_strptr(elf, strings, shdr.sh_name)) ||
		    strcmp(name, ".note.stapsdt") || !(data = elf_getdata(scn, NULL)))
			continue;
		ret = each_note(data, fn, arg);
	}
	elf_end(elf);
	return ret;
}

int tr_usdt_args(const char *specs, struct tr_probe_args *args)
{
	const char *at = specs;

	memset(args, 0, sizeof(*args));
	while (*(at += strspn(at, " "))) {
		struct tr_probe_arg *a = &args->arg[args->count];
		char *end;
		long size = strtol(at, &end, 10);

		if (*end != '@' || args->count == TR_PROBE_VALUES)
			return -EINVAL;
		a->is_signed = size < 0;
		a->size = labs(size);
		if (a->size != 1 && a->size != 2 && a->size != 4 && a->size != 8)
			return -EINVAL;
		/* Unsigned 8-byte values are mostly addresses: in hex. */
		a->kind = a->size == 8 && !a->is_signed ? TR_PROBE_REGISTER : TR_PROBE_INT;
		a->slot = args->count;
		snprintf(a->name, sizeof(a->name), "arg%u", ++args->count);
		at = end + strcspn(end, " ");
	}
	return 0;
}

unsigned int tr_usdt_indexed_arg(const char *specs, char *loc, size_t len)
{
	const char *at = specs;
	unsigned int n;

	for (n = 1; *(at += strspn(at, " ")); n++) {
		size_t spec_len = strcspn(at, " ");
		const char *open = memchr(at, '(', spec_len);

		if (open && memchr(open, ',', spec_len - (open - at))) {
			snprintf(loc, len, "%.*s", (int)spec_len, at);
			return n;
		}
		at += spec_len;
	}
	return 0;
}

/* tracer list --usdt: each probe once (a probe may have several sites). */
struct usdt_listing {
	FILE *out;
	const char *path;
	char (*seen)[130];
	unsigned int count, size;
};

static int list_note(const struct tr_usdt_note *note, void *arg)
{
	struct usdt_listing *l = arg;
	char full[130];
	unsigned int i;

	snprintf(full, sizeof(full), "%s:%s", note->provider, note->name);
	for (i = 0; i < l->count; i++)
		if (!strcmp(l->seen[i], full))
			return 0;
	if (l->count == l->size) {
		void *more = reallocarray(l->seen, l->size * 2 + 16, sizeof(*l->seen));

		if (!more)
			return -ENOMEM;
		l->seen = more;
		l->size = l->size * 2 + 16;
	}
	strcpy(l->seen[l->count++], full);
	fprintf(l->out, "usdt:%s:%s\tevent sdt_%s, arguments: %s\n", l->path, full, full,
		note->args[0] ? note->args : "none");
	return 0;
}

int tr_usdt_list(const char *path, FILE *out, char *why, size_t whylen)
{
	struct usdt_listing l = { out, path, NULL, 0, 0 };
	int fd = tr_probe_open_file(path, why, whylen), err;

	if (fd < 0)
		return fd;
	err = tr_usdt_notes(fd, list_note, &l);
	close(fd);
	free(l.seen);
	if (err == -ENOEXEC || err == -EBADMSG)
		tr_probe_elf_why(path, err, why, whylen);
	else if (err)
		snprintf(why, whylen, "%s: %s", path, strerror(-err));
	else if (!l.count)
		snprintf(why, whylen, "%s has no USDT probes", path);
	return err ? -EINVAL : (int)l.count;
}

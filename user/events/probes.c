// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Probe specs into event classes (events/probes.h): uprobes, uretprobes and USDT
 * probes, and what kernel function probes (events/probe_kernel.c) share with
 * them: the event's format, the arguments selected.  The function or USDT
 * probe is looked up in the file here, so that a wrong name is said before
 * anything is recorded; the recorder attaches by name (libbpf finds the
 * same symbol or note).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>

#include "events/events.h"
#include "common/suggest.h"
#include "events/probes.h"

int tr_probe_spec(const char *spec)
{
	return !strncmp(spec, "uprobe:", 7) || !strncmp(spec, "uretprobe:", 10) ||
	       !strncmp(spec, "usdt:", 5) || tr_kernel_probe_spec(spec);
}

int tr_probe_identifier(const char *s, size_t n)
{
	return n && n < 64 && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789_") >= n && !(s[0] >= '0' && s[0] <= '9');
}

int tr_probe_take_selection(char *s, char **selection)
{
	char *open = s ? strchr(s, '(') : NULL;

	if (!open)
		return 0;
	if (open[strlen(open) - 1] != ')')
		return -1;
	open[strlen(open) - 1] = 0;
	*open = 0;
	*selection = open + 1;
	return 1;
}

/*
 * usdt:PATH:PROVIDER:NAME[(ARG, ...)]: p->function the name, *provider (in
 * p->text) the provider, p->selection the arguments.
 */
static int parse_usdt(const char *spec, struct tr_probe_spec *p, char **provider, char *why,
		      size_t whylen)
{
	memset(p, 0, sizeof(*p));
	p->path = p->text = strdup(spec + 5);
	if (tr_probe_take_selection(p->text, &p->selection) < 0)
		p->path = NULL;
	p->function = p->path ? strrchr(p->path, ':') : NULL;
	if (p->function) {
		*p->function++ = 0;
		*provider = strrchr(p->path, ':');
	}
	if (*provider && *provider != p->path) {
		*(*provider)++ = 0;
		if (tr_probe_identifier(*provider, strlen(*provider)) &&
		    tr_probe_identifier(p->function, strlen(p->function)))
			return 0;
	}
	snprintf(why, whylen, "-e %s: as usdt:PATH:PROVIDER:NAME[(ARG[:string], ...)], the provider and name "
		 "C names (tracer list --usdt PATH lists them)", spec);
	free(p->text);
	return -EINVAL;
}

int tr_probe_malformed(const char *spec, struct tr_probe_spec *p, const char *form, char *why,
		       size_t whylen)
{
	snprintf(why, whylen, "-e %s: as %s, the function a C name", spec, form);
	free(p->text);
	return -EINVAL;
}

/* A uprobe's spec, or a USDT probe's (*provider set). */
static int parse_spec(const char *spec, struct tr_probe_spec *p, char **provider, char *why,
		      size_t whylen)
{
	char *plus, *end;
	int selected;

	if (!strncmp(spec, "usdt:", 5))
		return parse_usdt(spec, p, provider, why, whylen);
	memset(p, 0, sizeof(*p));
	p->ret = !strncmp(spec, "uretprobe:", 10);
	p->path = p->text = strdup(strchr(spec, ':') + 1);
	selected = tr_probe_take_selection(p->text, &p->selection);
	p->function = p->path ? strrchr(p->path, ':') : NULL;
	if (p->function && p->function != p->path)
		*p->function++ = 0;
	plus = p->function ? strchr(p->function, '+') : NULL;
	if (plus && !p->ret) {
		*plus++ = 0;
		errno = 0;
		p->offset = strtoul(plus, &end, 0);
		if (errno || *end || !*plus || *plus == '-')
			plus = p->function = NULL;
	}
	if (p->function && tr_probe_identifier(p->function, strlen(p->function)) &&
	    (!selected || (selected > 0 && !p->ret && !p->offset)))
		return 0;
	return tr_probe_malformed(spec, p, p->ret ? "uretprobe:PATH:FUNCTION (it records the return value)" :
				 "uprobe:PATH:FUNCTION[(ARG[:string], ...)] or uprobe:PATH:FUNCTION+OFFSET",
			 why, whylen);
}

/* Whether the table of scn defines function c->wanted; else the closest one into c. */
static int table_has(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr, struct tr_closest *c)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n = shdr->sh_entsize ? shdr->sh_size / shdr->sh_entsize : 0;
	GElf_Sym sym;

	for (i = 0; data && i < n; i++) {
		const char *s;

		if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_value || !(s = elf_strptr(elf, shdr->sh_link, sym.st_name)))
			continue;
		if (!strcmp(s, c->wanted))
			return 1;
		tr_closest_offer(c, s);
	}
	return 0;
}

/* Whether the len bytes at offset lie within a file of size bytes. */
static int within(__u64 offset, __u64 len, __u64 size)
{
	return offset <= size && len <= size - offset;
}

/*
 * Whether the ELF file elf, of size bytes, holds all it says it has: its
 * program and section headers, and each section's contents.
 */
static int elf_whole(Elf *elf, __u64 size)
{
	Elf_Scn *scn = NULL;
	size_t nsections;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	/* libelf counts only the headers it could read: the file's header says how many */
	if (!gelf_getehdr(elf, &eh) || (!(nsections = eh.e_shnum) && elf_getshdrnum(elf, &nsections)) ||
	    !within(eh.e_phoff, (__u64)eh.e_phnum * eh.e_phentsize, size) ||
	    !within(eh.e_shoff, (__u64)nsections * eh.e_shentsize, size))
		return 0;
	while ((scn = elf_nextscn(elf, scn)))
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_NOBITS && !within(sh.sh_offset, sh.sh_size, size)))
			return 0;
	return 1;
}

/* Whether the file at fd begins as an ELF file does. */
static int elf_magic(int fd)
{
	char magic[SELFMAG];

	return pread(fd, magic, SELFMAG, 0) == SELFMAG && !memcmp(magic, ELFMAG, SELFMAG);
}

struct Elf *tr_probe_elf_begin(int fd, int *err)
{
	struct stat st;
	Elf *elf;

	*err = -ENOEXEC;
	if (elf_version(EV_CURRENT) == EV_NONE || fstat(fd, &st) ||
	    !(elf = elf_begin(fd, ELF_C_READ, NULL)))
		return NULL;
	*err = elf_kind(elf) == ELF_K_ELF && elf_whole(elf, st.st_size) ? 0 :
	       elf_magic(fd) ? -EBADMSG : -ENOEXEC;
	if (!*err)
		return elf;
	elf_end(elf);
	return NULL;
}

void tr_probe_elf_why(const char *path, int err, char *why, size_t whylen)
{
	if (err == -EBADMSG)
		snprintf(why, whylen, "%s is a damaged ELF file: its headers or sections lie past "
			 "its end (cut short?)", path);
	else
		snprintf(why, whylen, "%s is not an ELF file", path);
}

/*
 * 1 if the ELF file at fd defines function c->wanted, 0 if not (c: the
 * closest), or tr_probe_elf_begin()'s -ENOEXEC or -EBADMSG.
 */
static int elf_has_function(int fd, struct tr_closest *c)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	int found = 0, err;
	Elf *elf = tr_probe_elf_begin(fd, &err);

	if (!elf)
		return err;
	while (!found && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &shdr) &&
		    (shdr.sh_type == SHT_SYMTAB || shdr.sh_type == SHT_DYNSYM))
			found = table_has(elf, scn, &shdr, c);
	elf_end(elf);
	return found;
}

int tr_probe_open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), err;
	struct stat st;

	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
	if (!err)
		return fd;
	close(fd);
	return err;
}

int tr_probe_open_file(const char *path, char *why, size_t whylen)
{
	int fd = tr_probe_open_regular(path);

	if (fd < 0)
		snprintf(why, whylen, "%s: %s", path,
			 fd == -EINVAL ? "not a regular file" : strerror(-fd));
	return fd;
}

/* The file of p, open, if it defines p's function; else -errno and why. */
static int open_target(const struct tr_probe_spec *p, char *why, size_t whylen)
{
	int fd = tr_probe_open_file(p->path, why, whylen), has;
	struct tr_closest c;

	if (fd < 0)
		return fd;
	tr_closest_init(&c, p->function);
	has = elf_has_function(fd, &c);
	if (has > 0)
		return fd;
	close(fd);
	if (has < 0)
		tr_probe_elf_why(p->path, has, why, whylen);
	else if (c.name[0])
		snprintf(why, whylen, "%s has no function '%s'; did you mean %s?", p->path,
			 p->function, c.name);
	else
		snprintf(why, whylen, "%s has no function '%s' in its symbol tables", p->path,
			 p->function);
	return has < 0 ? -EINVAL : -ENOENT;
}

void tr_probe_raw_registers(struct tr_probe_args *args)
{
	unsigned int i;

	memset(args, 0, sizeof(*args));
	for (i = 0; i < TR_PROBE_ARG_REGISTERS; i++) {
		snprintf(args->arg[i].name, sizeof(args->arg[i].name), "arg%u", i + 1);
		args->arg[i].slot = i;
		args->arg[i].size = 8;
		args->arg[i].kind = TR_PROBE_REGISTER;
	}
	args->count = TR_PROBE_ARG_REGISTERS;
	args->ret = (struct tr_probe_arg) { "ret", 0, 8, 0, TR_PROBE_REGISTER };
	args->has_ret = 1;
}

/*
 * Whether p's offset is where an instruction starts (the breakpoint
 * replaces one; in the middle of one it would corrupt the program): 0, or
 * -EINVAL and why.
 */
static int check_offset(int fd, const struct tr_probe_spec *p, char *why, size_t whylen)
{
	int line = p->offset ? tr_probe_dwarf_line_at(fd, p->function, p->offset) : 1;

	if (line > 0)
		return 0;
	if (line < 0)
		snprintf(why, whylen, "%s+%lu: %s has no debug information for %s to tell "
			 "whether an instruction starts there", p->function, p->offset, p->path,
			 p->function);
	else
		snprintf(why, whylen, "%s+%lu: no line of %s's source starts there (not an "
			 "instruction's start, or outside the function)", p->function, p->offset,
			 p->function);
	return -EINVAL;
}

/* The arguments of p: from DWARF at the function's entry, else raw (said in note). */
static void arguments(int fd, const struct tr_probe_spec *p, struct tr_probe_args *args,
		      char *note, size_t notelen)
{
	if (!p->offset && tr_probe_dwarf_args(fd, p->function, args) > 0) {
		if (args->note[0])
			snprintf(note, notelen, "%s: %s", p->function, args->note);
		return;
	}
	tr_probe_raw_registers(args);
	if (!p->offset)
		snprintf(note, notelen, "%s has no debug information for %s: "
			 "its registers are recorded raw (arg1..arg6, ret)", p->path, p->function);
}

static struct tr_probe_arg *find_arg(struct tr_probe_args *args, const char *name)
{
	unsigned int i;

	for (i = 0; i < args->count; i++)
		if (!strcmp(args->arg[i].name, name))
			return &args->arg[i];
	return NULL;
}

static int no_argument(const struct tr_probe_spec *p, const struct tr_probe_args *args,
		       const char *name, char *why, size_t whylen)
{
	unsigned int i;
	int n = snprintf(why, whylen, "%s has no argument '%s'%s", p->function, name,
			 args->count ? "; it has " : "");

	for (i = 0; i < args->count && n > 0 && (size_t)n < whylen; i++)
		n += snprintf(why + n, whylen - n, "%s%s", i ? ", " : "", args->arg[i].name);
	return -ENOENT;
}

/*
 * NAME:string: an argument of pointer size read as the string it points
 * to, as perf probe's :string (USDT notes and raw registers give no types).
 */
static int as_string(const struct tr_probe_spec *p, struct tr_probe_arg *a, const char *type,
		     char *why, size_t whylen)
{
	if (strcmp(type, "string")) {
		snprintf(why, whylen, "%s: '%s:%s': string is the only type an argument can be given",
			 p->function, a->name, type);
		return -EINVAL;
	}
	if (a->kind == TR_PROBE_INT && a->size != 8) {
		snprintf(why, whylen, "%s: argument %s is a %u-byte integer, not a pointer: it cannot be read as a string",
			 p->function, a->name, a->size);
		return -EINVAL;
	}
	a->kind = TR_PROBE_STRING;
	return 0;
}

/* In the function's order: the record's. */
int tr_probe_select_args(const struct tr_probe_spec *p, struct tr_probe_args *args,
		       char *why, size_t whylen)
{
	struct tr_probe_args all = *args;
	char *names, *name, *save = NULL;
	unsigned int i, selected = 0;
	int err = 0;

	if (!p->selection)
		return 0;
	names = strdup(p->selection);
	if (!names) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (name = strtok_r(names, ", ", &save); name && !err;
	     name = strtok_r(NULL, ", ", &save)) {
		char *type = strchr(name, ':');
		struct tr_probe_arg *a;

		if (type)
			*type++ = 0;
		a = find_arg(&all, name);
		if (!a)
			err = no_argument(p, &all, name, why, whylen);
		else if (type)
			err = as_string(p, a, type, why, whylen);
		if (a)
			selected |= 1u << (a - all.arg);
	}
	free(names);
	for (args->count = 0, i = 0; i < all.count; i++)
		if (selected & (1u << i))
			args->arg[args->count++] = all.arg[i];
	return err;
}

/* The type tracefs formats give a value, and how the print fmt prints it. */
static const char *type_of(const struct tr_probe_arg *a, const char **conversion)
{
	static const char *const ints[2][4] = { { "u8", "u16", "u32", "u64" },
						{ "s8", "s16", "s32", "s64" } };
	static const char *const conversions[2][4] = { { "%u", "%u", "%u", "%llu" },
						       { "%d", "%d", "%d", "%lld" } };
	unsigned int log2 = a->size == 8 ? 3 : a->size == 4 ? 2 : a->size == 2;

	switch (a->kind) {
	case TR_PROBE_STRING:
		*conversion = "\\\"%s\\\"";
		return "__data_loc char[]";
	case TR_PROBE_POINTER:
		*conversion = "0x%lx";
		return "void *";
	case TR_PROBE_REGISTER:
		*conversion = "0x%lx";
		return "unsigned long";
	default:
		*conversion = conversions[!!a->is_signed][log2];
		return ints[!!a->is_signed][log2];
	}
}

/* Bit i: values[i] is a string's address. */
static unsigned int string_slots(const struct tr_probe_arg *vals, unsigned int n)
{
	unsigned int i, strings = 0;

	for (i = 0; i < n; i++)
		strings |= (vals[i].kind == TR_PROBE_STRING) << vals[i].slot;
	return strings;
}

/* The format of a probe recording vals (its arguments, or its return value). */
static char *format_of(const char *name, unsigned int id, const struct tr_probe_arg *vals,
		       unsigned int n)
{
	const char *conversion;
	unsigned int i;
	char *format = NULL;
	size_t size;
	FILE *f = open_memstream(&format, &size);

	if (!f)
		return NULL;
	fprintf(f, "name: %s\nID: %u\nformat:\n" TR_FORMAT_COMMON_FIELDS
		"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n", name, id);
	for (i = 0; i < n; i++) {
		const char *type = type_of(&vals[i], &conversion);

		fprintf(f, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", type, vals[i].name,
			(unsigned int)offsetof(struct tr_probe_record, values[vals[i].slot]), vals[i].kind == TR_PROBE_STRING ? 4 : vals[i].size,
			vals[i].is_signed);
	}
	fprintf(f, "\nprint fmt: \"(0x%%lx)");
	for (i = 0; i < n; i++) {
		type_of(&vals[i], &conversion);
		fprintf(f, " %s=%s", vals[i].name, conversion);
	}
	fprintf(f, "\", REC->ip");
	for (i = 0; i < n; i++)
		fprintf(f, vals[i].kind == TR_PROBE_STRING ? ", __get_str(%s)" : ", REC->%s",
			vals[i].name);
	fprintf(f, "\n");
	if (fclose(f)) {
		free(format);
		return NULL;
	}
	return format;
}

int tr_probe_add_event(struct tr_event_set *set, const char *spec, const char *system,
		     const char *name, const struct tr_probe_arg *vals, unsigned int n,
		     struct tr_probe *probe, char *why, size_t whylen)
{
	struct tr_event *ev;
	char full[160];
	char *format;
	int err;

	snprintf(full, sizeof(full), "%s:%s", system, name);
	if (tr_events_find(set, full)) {
		snprintf(why, whylen, "-e %s: %s is already probed", spec, full);
		tr_probe_free(probe);
		return -EEXIST;
	}
	format = format_of(name, set->count, vals, n);
	err = format ? tr_events_add_format(set, system, name, format) : -ENOMEM;
	free(format);
	if (err) {
		snprintf(why, whylen, "-e %s: %s", spec, strerror(-err));
		tr_probe_free(probe);
		return err;
	}
	ev = &set->events[set->count - 1];
	ev->not_a_tracepoint = 0;
	ev->shape.probe_strings = string_slots(vals, n);
	if (ev->shape.probe_strings && probe->kernel)
		ev->shape.probe_strings |= TR_PROBE_STRINGS_KERNEL;
	ev->probe = probe;
	return 0;
}

struct tr_probe *tr_probe_new(const struct tr_probe_spec *p, const char *provider,
				  const char *note)
{
	struct tr_probe *probe = calloc(1, sizeof(*probe));

	if (!probe)
		return NULL;
	probe->function = strdup(p->function);
	probe->provider = provider ? strdup(provider) : NULL;
	probe->path = p->path ? strdup(p->path) : NULL;
	if (!probe->function || (provider && !probe->provider) || (p->path && !probe->path)) {
		tr_probe_free(probe);
		return NULL;
	}
	probe->offset = p->offset;
	probe->ret = p->ret;
	probe->kernel = p->kernel;
	probe->trampoline = p->trampoline;
	snprintf(probe->note, sizeof(probe->note), "%s", note);
	return probe;
}

void tr_probe_free(struct tr_probe *probe)
{
	if (!probe)
		return;
	free(probe->path);
	free(probe->function);
	free(probe->provider);
	free(probe);
}

/* The uprobe or uretprobe of p, with args, into set. */
static int add_function_probe(struct tr_event_set *set, const char *spec,
			      const struct tr_probe_spec *p, const struct tr_probe_args *args,
			      const char *note, char *why, size_t whylen)
{
	const char *system = p->ret ? "uretprobe" : "uprobe";
	struct tr_probe *probe = tr_probe_new(p, NULL, note);
	char name[96];

	if (!probe) {
		snprintf(why, whylen, "-e %s: out of memory", spec);
		return -ENOMEM;
	}
	if (probe->offset)
		snprintf(name, sizeof(name), "%s_%lu", probe->function, probe->offset);
	else
		snprintf(name, sizeof(name), "%s", probe->function);
	if (p->ret)
		return tr_probe_add_event(set, spec, system, name, &args->ret, !!args->has_ret, probe,
				 why, whylen);
	return tr_probe_add_event(set, spec, system, name, args->arg, args->count, probe, why, whylen);
}

/* What a search of a file's USDT notes looks for, and what it found. */
struct usdt_search {
	const char *provider, *name;
	char args[256];
	int found;
	unsigned int count;
	char wanted[130];	/* PROVIDER:NAME */
	struct tr_closest closest;
};

static int usdt_match(const struct tr_usdt_note *note, void *arg)
{
	struct usdt_search *search = arg;
	char full[130];

	search->count++;
	if (!strcmp(note->provider, search->provider) && !strcmp(note->name, search->name)) {
		strcpy(search->args, note->args);
		search->found = 1;
		return 1;
	}
	snprintf(full, sizeof(full), "%s:%s", note->provider, note->name);
	tr_closest_offer(&search->closest, full);
	return 0;
}

/* libbpf 1.7 and later fetch USDT arguments at base, index and scale locations. */
#define INDEXED_USDT_LIBBPF	7

/* The USDT probe of p (p->function: its name) with the arguments its note gives. */
static int add_usdt(struct tr_event_set *set, const char *spec, struct tr_probe_spec *p,
		    const char *provider, char *why, size_t whylen)
{
	struct usdt_search search = { .provider = provider, .name = p->function };
	struct tr_probe_args args;
	unsigned int indexed;
	char loc[64];
	struct tr_probe *probe;
	char system[80];
	int fd = tr_probe_open_file(p->path, why, whylen), err;

	if (fd < 0)
		return fd;
	snprintf(search.wanted, sizeof(search.wanted), "%s:%s", provider, p->function);
	tr_closest_init(&search.closest, search.wanted);
	err = tr_usdt_notes(fd, usdt_match, &search);
	if (err < 0) {
		tr_probe_elf_why(p->path, err, why, whylen);
		close(fd);
		return -EINVAL;
	}
	close(fd);
	if (!search.found) {
		if (!search.count)
			snprintf(why, whylen, "%s has no USDT probes", p->path);
		else if (search.closest.name[0])
			snprintf(why, whylen, "%s has no USDT probe %s; did you mean %s? "
				 "(tracer list --usdt %s)", p->path, search.wanted,
				 search.closest.name, p->path);
		else
			snprintf(why, whylen, "%s has no USDT probe %s (tracer list --usdt %s)",
				 p->path, search.wanted, p->path);
		return -ENOENT;
	}
	if (tr_usdt_args(search.args, &args)) {
		snprintf(why, whylen, "%s:%s: arguments '%s' not understood", provider,
			 p->function, search.args);
		return -EINVAL;
	}
	if (tr_probe_select_args(p, &args, why, whylen))
		return -EINVAL;
	if ((indexed = tr_usdt_indexed_arg(search.args, loc, sizeof(loc))) &&
	    libbpf_major_version() == 1 && libbpf_minor_version() < INDEXED_USDT_LIBBPF) {
		snprintf(why, whylen, "%s:%s: argument %u is at '%s' (base, index and scale), which libbpf %u.%u cannot fetch: the probe cannot be attached",
			 provider, p->function, indexed, loc, libbpf_major_version(),
			 libbpf_minor_version());
		return -EOPNOTSUPP;
	}
	probe = tr_probe_new(p, provider, "");
	if (!probe) {
		snprintf(why, whylen, "-e %s: out of memory", spec);
		return -ENOMEM;
	}
	snprintf(system, sizeof(system), "sdt_%s", provider);
	return tr_probe_add_event(set, spec, system, p->function, args.arg, args.count, probe, why,
			 whylen);
}

int tr_probe_add(struct tr_event_set *set, const char *spec, char *why, size_t whylen)
{
	struct tr_probe_args args;
	char *provider = NULL;
	struct tr_probe_spec p;
	char note[200] = "";
	int fd, err;

	if (tr_kernel_probe_spec(spec))
		return tr_kernel_probe_add(set, spec, why, whylen);
	err = parse_spec(spec, &p, &provider, why, whylen);
	if (err)
		return err;
	if (provider) {
		err = add_usdt(set, spec, &p, provider, why, whylen);
		free(p.text);
		return err;
	}
	fd = open_target(&p, why, whylen);
	if (fd < 0) {
		free(p.text);
		return fd;
	}
	err = check_offset(fd, &p, why, whylen);
	if (!err)
		arguments(fd, &p, &args, note, sizeof(note));
	close(fd);
	if (!err)
		err = tr_probe_select_args(&p, &args, why, whylen);
	if (!err)
		err = add_function_probe(set, spec, &p, &args, note, why, whylen);
	free(p.text);
	return err;
}

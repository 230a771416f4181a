// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Uprobe and uretprobe specs into event classes (probes.h).  The function
 * is looked up in the file's symbol tables here, so that a wrong name is
 * said before anything is recorded; the recorder attaches by name
 * (libbpf finds the same symbol).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "events.h"
#include "names.h"
#include "probes.h"

#define STR(x)	#x
#define XSTR(x)	STR(x)

/* The records' layout: bpf/record.bpf.c's struct tr_uprobe_record. */
#define FIELD(name, offset) \
	"\tfield:unsigned long " name ";\toffset:" XSTR(offset) ";\tsize:8;\tsigned:0;\n"

static const char entry_fields[] =
	FIELD("ip", 8) FIELD("arg1", 16) FIELD("arg2", 24) FIELD("arg3", 32)
	FIELD("arg4", 40) FIELD("arg5", 48) FIELD("arg6", 56)
	"\nprint fmt: \"(0x%lx) arg1=0x%lx arg2=0x%lx arg3=0x%lx arg4=0x%lx arg5=0x%lx arg6=0x%lx\", "
	"REC->ip, REC->arg1, REC->arg2, REC->arg3, REC->arg4, REC->arg5, REC->arg6\n";

/* ip: where the function returns to. */
static const char return_fields[] =
	FIELD("ip", 8) FIELD("ret", 16)
	"\nprint fmt: \"(0x%lx) ret=0x%lx\", REC->ip, REC->ret\n";

int tr_probe_spec(const char *spec)
{
	return !strncmp(spec, "uprobe:", 7) || !strncmp(spec, "uretprobe:", 10);
}

static int identifier(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

	return n && !s[n] && !(s[0] >= '0' && s[0] <= '9') && n < 128;
}

/* The closest function name in an ELF symbol table so far, and its distance. */
struct closest {
	char name[128];
	unsigned int distance;
};

/* Whether the table of scn defines function name; else the closest one into c. */
static int table_has(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr, const char *name,
		     struct closest *c)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n = shdr->sh_entsize ? shdr->sh_size / shdr->sh_entsize : 0;
	GElf_Sym sym;

	for (i = 0; data && i < n; i++) {
		const char *s;
		unsigned int d;

		if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_value || !(s = elf_strptr(elf, shdr->sh_link, sym.st_name)))
			continue;
		if (!strcmp(s, name))
			return 1;
		if (strlen(s) < sizeof(c->name) && (d = tr_edit_distance(name, s)) < c->distance) {
			strcpy(c->name, s);
			c->distance = d;
		}
	}
	return 0;
}

/* 1 if the ELF file at fd defines function name, 0 if not (c: the closest), -1 if no ELF. */
static int elf_has_function(int fd, const char *name, struct closest *c)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	int found = 0;

	if (elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_begin(fd, ELF_C_READ, NULL)))
		return -1;
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -1;
	}
	while (!found && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &shdr) &&
		    (shdr.sh_type == SHT_SYMTAB || shdr.sh_type == SHT_DYNSYM))
			found = table_has(elf, scn, &shdr, name, c);
	elf_end(elf);
	return found;
}

/* Why path:function cannot be probed, into why; 0 if it can. */
static int check_target(const char *path, const char *function, char *why, size_t whylen)
{
	struct closest c = { "", ~0u };
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), has;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return fd < 0 ? -errno : -EINVAL;
	}
	has = elf_has_function(fd, function, &c);
	close(fd);
	if (has < 0) {
		snprintf(why, whylen, "%s is not an ELF file", path);
		return -EINVAL;
	}
	if (has)
		return 0;
	if (c.name[0] && c.distance <= strlen(function) / 3 + 2)
		snprintf(why, whylen, "%s has no function '%s'; did you mean %s?", path, function, c.name);
	else
		snprintf(why, whylen, "%s has no function '%s' in its symbol tables", path, function);
	return -ENOENT;
}

int tr_probe_add(struct tr_event_set *set, const char *spec, char *why, size_t whylen)
{
	int ret = !strncmp(spec, "uretprobe:", 10);
	char *path = strdup(strchr(spec, ':') + 1), *function = path ? strrchr(path, ':') : NULL;
	char *format = NULL, full[160];
	struct tr_event *ev;
	int err;

	if (!function || function == path || !identifier(function + 1)) {
		snprintf(why, whylen, "-e %s: as %s:PATH:FUNCTION, the function a C name", spec,
			 ret ? "uretprobe" : "uprobe");
		free(path);
		return -EINVAL;
	}
	*function++ = 0;
	err = check_target(path, function, why, whylen);
	snprintf(full, sizeof(full), "%s:%s", ret ? "uretprobe" : "uprobe", function);
	if (!err && tr_events_find(set, full)) {
		snprintf(why, whylen, "-e %s: %s is already probed", spec, full);
		err = -EEXIST;
	}
	if (!err && asprintf(&format, "name: %s\nID: %u\nformat:\n" TR_FORMAT_COMMON_FIELDS "%s",
			     function, set->count, ret ? return_fields : entry_fields) < 0) {
		format = NULL;
		err = -ENOMEM;
		snprintf(why, whylen, "-e %s: out of memory", spec);
	}
	if (!err) {
		err = tr_events_add_format(set, ret ? "uretprobe" : "uprobe", function, format);
		if (err)
			snprintf(why, whylen, "-e %s: %s", spec, strerror(-err));
	}
	if (!err) {
		ev = &set->events[set->count - 1];
		ev->not_a_tracepoint = 0;
		ev->probe_path = path;
		ev->probe_return = ret;
		path = NULL;
	}
	free(format);
	free(path);
	return err;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <tracer/record.h>

#include "reader/symbols.h"
#include "reader/trace.h"
#include "reader/trace_dir.h"

/* What a trace's files may hold, at most: more is not read. */
#define MAX_SYMBOLS	(1u << 22)
#define MAX_MAPS	(1u << 20)
#define MAX_FILES	4096
#define MAX_FILE_SIZE	(4ll << 30)
/* The largest .tracer/kallsyms read (a kernel's is a few MiB, a distribution kernel's with modules 20). */
#define MAX_KALLSYMS	(256u << 20)

struct symbol {
	__u64 address;
	__u64 size;			/* 0: up to the next one */
	char *name;
};

struct symbol_table {
	struct symbol *symbols;		/* by address */
	unsigned int count;
	char *names;			/* where the names are, if in one block (kallsyms'), else each its own */
};

/* A mapped file: its functions, and its loadable segments to place them. */
struct file {
	char *path;
	int loaded;
	struct symbol_table table;
	GElf_Phdr *segments;		/* PT_LOAD only */
	unsigned int nsegments;
};

/* A tracer:vm_map record (tracer/record.h): where a process's code is, and when. */
struct mapping {
	__u32 pid;
	__u32 reason;			/* enum tr_vm_reason */
	__u64 start, end, offset;
	__u64 made;			/* its record's time */
	__u64 since, until;		/* it holds from since up to until */
	struct file *file;
};

/* A new process, from its tracer:task_state record: it runs its parent's code until it execs. */
struct parent {
	__u32 pid, ppid;
};

struct tr_symbols {
	const struct tr_trace *trace;	/* whose .tracer/kallsyms the first kernel lookup reads */
	int kernel_read;
	struct symbol_table kernel;
	struct mapping *maps;		/* by pid, then time, once ready */
	unsigned int nmaps, maps_room;
	struct parent *parents;		/* by pid, once ready */
	unsigned int nparents, parents_room;
	int ready;
	struct file *files;
	unsigned int nfiles;
};

static int by_address(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	return x->address < y->address ? -1 : x->address > y->address;
}

static void sort_table(struct symbol_table *t)
{
	unsigned int i;

	for (i = 1; i < t->count && t->symbols[i - 1].address <= t->symbols[i].address; i++)
		;
	if (i < t->count)	/* (kallsyms comes nearly sorted: mostly not) */
		qsort(t->symbols, t->count, sizeof(*t->symbols), by_address);
}

/* A symbol into t, its name copied unless the table's names are in one block. */
static int add_symbol(struct symbol_table *t, unsigned int *room, __u64 address, __u64 size,
		      const char *name)
{
	if (t->count == *room) {
		unsigned int more = *room ? 2 * *room : 1024;
		struct symbol *bigger;

		if (more > MAX_SYMBOLS)
			return -E2BIG;
		bigger = realloc(t->symbols, more * sizeof(*bigger));
		if (!bigger)
			return -ENOMEM;
		t->symbols = bigger;
		*room = more;
	}
	t->symbols[t->count] = (struct symbol) { address, size, t->names ? (char *)name : strdup(name) };
	if (!t->symbols[t->count].name)
		return -ENOMEM;
	t->count++;
	return 0;
}

/* The symbol that address falls in, or NULL. */
static const struct symbol *find_symbol(const struct symbol_table *t, __u64 address)
{
	unsigned int low = 0, high = t->count;
	const struct symbol *s;

	while (low < high) {
		unsigned int mid = low + (high - low) / 2;

		if (t->symbols[mid].address <= address)
			low = mid + 1;
		else
			high = mid;
	}
	if (!low)
		return NULL;
	s = &t->symbols[low - 1];
	return !s->size || address < s->address + s->size ? s : NULL;
}

static void free_table(struct symbol_table *t)
{
	unsigned int i;

	for (i = 0; i < t->count && !t->names; i++)
		free(t->symbols[i].name);
	free(t->names);
	free(t->symbols);
}

/* A file of the trace's .tracer, to read, or NULL (none, or not a regular file). */
/*
 * One line of kallsyms at line, "ADDRESS TYPE NAME [MODULE]", its name
 * ended in place: its address and name, or NULL for a line that is not
 * one.  *next: where the next line starts.
 */
static char *kallsyms_line(char *line, __u64 *address, char **next)
{
	char *end, *name, *nl = strchr(line, '\n');

	*next = nl ? nl + 1 : line + strlen(line);
	if (nl)
		*nl = '\0';
	*address = strtoull(line, &end, 16);
	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ' || !end[3])
		return NULL;
	name = end + 3;
	name[strcspn(name, " \t")] = '\0';
	return *name ? name : NULL;
}

/* .tracer/kallsyms, read whole: its names stay where they were read. */
static void load_kernel(struct tr_symbols *s, const struct tr_trace *trace)
{
	int fd = tr_trace_open_meta(trace, TR_TRACE_KALLSYMS);
	char *text, *line, *next, *name;
	unsigned int room = 0;
	struct stat st;
	__u64 address;
	ssize_t n;

	if (fd < 0)
		return;
	text = !fstat(fd, &st) && st.st_size <= MAX_KALLSYMS ? malloc(st.st_size + 1) : NULL;
	n = text ? tr_read_all(fd, text, st.st_size) : -1;
	close(fd);
	if (n < 0) {
		free(text);
		return;
	}
	text[n] = '\0';
	s->kernel.names = text;
	for (line = text; *line; line = next)
		if ((name = kallsyms_line(line, &address, &next)) &&
		    add_symbol(&s->kernel, &room, address, 0, name))
			break;
	sort_table(&s->kernel);
}

static struct file *file_named(struct tr_symbols *s, const char *path)
{
	unsigned int i;

	for (i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i].path, path))
			return &s->files[i];
	if (s->nfiles == MAX_FILES)
		return NULL;
	s->files[s->nfiles] = (struct file) { .path = strdup(path) };
	return s->files[s->nfiles].path ? &s->files[s->nfiles++] : NULL;
}

/* Room for one more of an array's elements of size each; 0 or -errno. */
static int grow(void **array, unsigned int count, unsigned int *room, size_t size,
		unsigned int most)
{
	unsigned int more = *room ? 2 * *room : 256;
	void *bigger;

	if (count < *room)
		return 0;
	if (more > most)
		return -E2BIG;
	bigger = realloc(*array, more * size);
	if (!bigger)
		return -ENOMEM;
	*array = bigger;
	*room = more;
	return 0;
}

static void learn_mapping(struct tr_symbols *s, const struct tr_item *it)
{
	char path[TR_VM_PATH_MAX];
	struct file *file;
	const char *raw;
	int len = 0;

	raw = tr_item_field(it, "path", &len);
	if (!raw || len <= 0 || tr_item_number(it, "start") >= tr_item_number(it, "end"))
		return;
	snprintf(path, sizeof(path), "%.*s", len, raw);
	file = file_named(s, path);
	if (!file || grow((void **)&s->maps, s->nmaps, &s->maps_room, sizeof(*s->maps), MAX_MAPS))
		return;
	s->maps[s->nmaps++] = (struct mapping) {
		.pid = tr_item_number(it, "pid"), .reason = tr_item_number(it, "reason"),
		.start = tr_item_number(it, "start"), .end = tr_item_number(it, "end"),
		.offset = tr_item_number(it, "offset"), .made = it->ts, .file = file,
	};
}

static void learn_parent(struct tr_symbols *s, const struct tr_item *it)
{
	__u32 pid = tr_item_number(it, "pid");

	if (tr_item_number(it, "reason") != TR_TASK_NEW || pid != tr_item_number(it, "tgid") ||
	    grow((void **)&s->parents, s->nparents, &s->parents_room, sizeof(*s->parents),
		 MAX_MAPS))
		return;
	s->parents[s->nparents++] = (struct parent) { pid, tr_item_number(it, "ppid") };
}

void tr_symbols_learn(struct tr_symbols *s, const struct tr_item *it)
{
	if (it->kind != TR_ITEM_RECORD || strcmp(it->class->system, "tracer"))
		return;
	if (!strcmp(it->class->name, "vm_map") && s->files)
		learn_mapping(s, it);
	else if (!strcmp(it->class->name, "task_state"))
		learn_parent(s, it);
}

static int by_pid_and_time(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->made < y->made ? -1 : x->made > y->made;
}

static int by_pid(const void *a, const void *b)
{
	const struct parent *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * When each mapping holds: from its record up to its process's next exec
 * record; the state dump's from the trace's start, since what it saw was
 * there before (a snapshot's dump comes after the events it precedes).
 */
static void make_ready(struct tr_symbols *s)
{
	__u64 next_exec = ~0ull;
	unsigned int i;

	s->ready = 1;
	if (s->nmaps)
		qsort(s->maps, s->nmaps, sizeof(*s->maps), by_pid_and_time);
	if (s->nparents)
		qsort(s->parents, s->nparents, sizeof(*s->parents), by_pid);
	for (i = s->nmaps; i-- > 0;) {
		struct mapping *m = &s->maps[i];

		if (i + 1 == s->nmaps || m[1].pid != m->pid)
			next_exec = ~0ull;
		m->since = m->reason == TR_VM_DUMP ? 0 : m->made;
		m->until = next_exec;
		if (m->reason == TR_VM_EXEC)
			next_exec = m->made;
	}
}

/* Where pid's mappings start in s->maps (s->nmaps if it has none). */
static unsigned int first_of(const struct tr_symbols *s, __u32 pid)
{
	unsigned int low = 0, high = s->nmaps;

	while (low < high) {
		unsigned int mid = low + (high - low) / 2;

		if (s->maps[mid].pid < pid)
			low = mid + 1;
		else
			high = mid;
	}
	return low;
}

static __u32 parent_of(const struct tr_symbols *s, __u32 pid)
{
	struct parent key = { pid, 0 };
	const struct parent *p = s->parents ? bsearch(&key, s->parents, s->nparents,
						      sizeof(key), by_pid) : NULL;

	return p ? p->ppid : 0;
}

/* The latest mapping of pid that holds address at ts. */
static const struct mapping *mapping_at(const struct tr_symbols *s, __u32 pid, __u64 ts,
					__u64 address)
{
	const struct mapping *best = NULL;
	unsigned int i;

	for (i = first_of(s, pid); i < s->nmaps && s->maps[i].pid == pid; i++) {
		const struct mapping *m = &s->maps[i];

		if (address >= m->start && address < m->end && ts >= m->since && ts < m->until &&
		    (!best || m->since >= best->since))
			best = m;
	}
	return best;
}

/* ... or, for a process that has not exec'd since the trace began, its parent's. */
static const struct mapping *find_mapping(struct tr_symbols *s, __u32 pid, __u64 ts,
					  __u64 address)
{
	const struct mapping *m = NULL;
	unsigned int hops;

	if (!s->ready)
		make_ready(s);
	for (hops = 0; hops < 8 && pid && !m; hops++) {
		m = mapping_at(s, pid, ts, address);
		pid = m ? pid : parent_of(s, pid);
	}
	return m;
}

struct tr_symbols *tr_symbols_open(const struct tr_trace *trace)
{
	struct tr_symbols *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->trace = trace;
	s->files = calloc(MAX_FILES, sizeof(*s->files));
	return s;
}

/* The functions of an ELF file's symbol table (the full one, else the dynamic one). */
static void read_functions(struct file *f, Elf *elf)
{
	Elf_Scn *scn = NULL, *best = NULL;
	GElf_Shdr shdr, best_shdr = { 0 };
	unsigned int room = 0;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &shdr) &&
		    (shdr.sh_type == SHT_SYMTAB || (shdr.sh_type == SHT_DYNSYM && !best))) {
			best = scn;
			best_shdr = shdr;
		}
	if (best) {
		Elf_Data *data = elf_getdata(best, NULL);
		size_t i, n = data && best_shdr.sh_entsize ? best_shdr.sh_size / best_shdr.sh_entsize : 0;

		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_value)
				continue;
			name = elf_strptr(elf, best_shdr.sh_link, sym.st_name);
			if (name && *name && add_symbol(&f->table, &room, sym.st_value, sym.st_size, name))
				break;
		}
	}
	sort_table(&f->table);
}

static void read_segments(struct file *f, Elf *elf)
{
	size_t n, i;

	if (elf_getphdrnum(elf, &n) || !n || !(f->segments = calloc(n, sizeof(*f->segments))))
		return;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, i, &f->segments[f->nsegments]) &&
		    f->segments[f->nsegments].p_type == PT_LOAD)
			f->nsegments++;
}

/*
 * Reads a mapped file's functions once: a regular file only, never a FIFO
 * or a device, and of a size a program has (not /proc's files, empty or
 * as large as the address space).
 */
static void load_file(struct file *f)
{
	int fd = open(f->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	Elf *elf;

	f->loaded = 1;
	if (fd < 0)
		return;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < MAX_FILE_SIZE &&
	    elf_version(EV_CURRENT) != EV_NONE &&
	    (elf = elf_begin(fd, ELF_C_READ, NULL))) {
		if (elf_kind(elf) == ELF_K_ELF) {
			read_functions(f, elf);
			read_segments(f, elf);
		}
		elf_end(elf);
	}
	close(fd);
}

struct tr_frame_name tr_symbols_kernel(struct tr_symbols *s, __u64 address)
{
	const struct symbol *sym;

	if (!s->kernel_read)	/* (megabytes: a report without kernel frames never reads them) */
		load_kernel(s, s->trace);
	s->kernel_read = 1;
	sym = find_symbol(&s->kernel, address);

	return (struct tr_frame_name) {
		sym ? sym->name : NULL, sym ? address - sym->address : 0, "[kernel.kallsyms]",
	};
}

struct tr_frame_name tr_symbols_user(struct tr_symbols *s, __u32 pid, __u64 ts, __u64 address)
{
	const struct mapping *m = find_mapping(s, pid, ts, address);
	struct tr_frame_name name = { NULL, 0, NULL };
	__u64 in_file, at;
	unsigned int i;

	if (!m)
		return name;
	name.file = m->file->path;
	if (!m->file->loaded)
		load_file(m->file);
	in_file = address - m->start + m->offset;
	for (i = 0; i < m->file->nsegments; i++) {
		const GElf_Phdr *p = &m->file->segments[i];
		const struct symbol *sym;

		if (in_file < p->p_offset || in_file >= p->p_offset + p->p_filesz)
			continue;
		at = in_file - p->p_offset + p->p_vaddr;
		sym = find_symbol(&m->file->table, at);
		if (sym) {
			name.function = sym->name;
			name.offset = at - sym->address;
		}
		break;
	}
	return name;
}

void tr_symbols_close(struct tr_symbols *s)
{
	unsigned int i;

	if (!s)
		return;
	free_table(&s->kernel);
	for (i = 0; i < s->nfiles; i++) {
		free(s->files[i].path);
		free_table(&s->files[i].table);
		free(s->files[i].segments);
	}
	free(s->files);
	free(s->maps);
	free(s->parents);
	free(s);
}

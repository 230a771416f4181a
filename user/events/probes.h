/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * User-space probes as events: "-e uprobe:PATH:FUNCTION" records the function's
 * entry with its arguments, "-e uretprobe:PATH:FUNCTION" its return with
 * the return value (ret).  Names and types come from the file's DWARF
 * (events/probe_dwarf.c) where it has debug information; without, the six
 * argument registers are recorded raw (arg1..arg6).  "FUNCTION(a, b)"
 * records only the arguments named; "FUNCTION+OFFSET" probes inside the
 * function, where only the raw registers mean anything.
 * "-e kprobe:FUNCTION[(ARG, ...)]" and "-e kretprobe:FUNCTION" do the same
 * for a kernel function, its arguments from the kernel's BTF.
 * "-e usdt:PATH:PROVIDER:NAME" records a USDT probe with its arguments
 * (arg1..argN, sized and signed as its note says), as event sdt_PROVIDER:NAME,
 * as perf names them.
 *
 * Each probe is an event class like a tracepoint, named uprobe:FUNCTION
 * or uretprobe:FUNCTION, with a format of its own written beside the
 * trace, so report and babeltrace2 print its fields by name.
 * bpf/record.bpf.c's tr_uprobe and tr_uretprobe write the records
 * (tracer/record.h's struct tr_probe_record).
 */
#ifndef TRACER_PROBES_H
#define TRACER_PROBES_H

#include <stddef.h>
#include <stdio.h>
#include <tracer/events.h>
#include <tracer/record.h>

struct btf;
struct Elf;
struct tr_event_set;

enum tr_probe_kind {
	TR_PROBE_INT,		/* size bytes, is_signed */
	TR_PROBE_POINTER,	/* an address */
	TR_PROBE_REGISTER,	/* a register as it is, no type known: printed in hex */
	TR_PROBE_STRING,	/* a char pointer: the string, in user memory */
};

/* One recorded value: where the record holds it, and how it prints. */
struct tr_probe_arg {
	char name[64];
	unsigned int slot;	/* values[slot]: the argument register, or 0 (ret) */
	unsigned int size;	/* of an integer: 1, 2, 4 or 8 */
	int is_signed;
	enum tr_probe_kind kind;
};

/* A function's arguments and return value as debug information gives them. */
struct tr_probe_args {
	struct tr_probe_arg arg[TR_PROBE_VALUES];
	unsigned int count;
	struct tr_probe_arg ret;
	int has_ret;		/* not void */
	char note[160];		/* arguments left out, and why, or "" */
};

/* What the recorder attaches, and what it says before (tr_event's probe). */
struct tr_probe {
	char *path;
	char *function;		/* or a USDT probe's name */
	char *provider;		/* a USDT probe's provider, or NULL */
	unsigned long offset;	/* into the function */
	int ret;		/* a uretprobe, kretprobe or fexit */
	int kernel;		/* a kernel function's (path NULL) */
	int trampoline;		/* ... by fentry or fexit, else by kprobe */
	int btf_id;		/* fentry, fexit: the function's id in the kernel's BTF */
	unsigned int group;	/* kprobes of one glob, attached at once (kprobe.multi), or 0 */
	char note[200];		/* what the user should know (no debug information), or "" */
};

/*
 * Whether spec names a probe: uprobe:, uretprobe:, usdt:, kprobe:,
 * kretprobe:, fentry:, fexit:, function: (--function).
 */
int tr_probe_spec(const char *spec);

/*
 * The events of probe spec (one, or one per function a glob matches),
 * added to set: 0, or -errno with one line in why (a malformed spec, a
 * file that is not there, a function the file does not have, with the
 * closest it has, an argument it does not have, the same function twice).
 */
int tr_probe_add(struct tr_event_set *set, const char *spec, char *why, size_t whylen);

void tr_probe_free(struct tr_probe *probe);

/*
 * The arguments of function in the ELF file at fd from its DWARF: 1, 0 if
 * the file has no debug information for it, -1 on error (events/probe_dwarf.c).
 */
int tr_probe_dwarf_args(int fd, const char *function, struct tr_probe_args *args);

/*
 * The arguments of the kernel function of BTF id id (btf__load_vmlinux_btf's):
 * id, or 0 if it is no function there (events/probe_btf.c).
 */
int tr_probe_btf_args(const struct btf *btf, int id, struct tr_probe_args *args);


/*
 * Whether function + offset is where a line of its source begins, so an
 * instruction (the uprobe's breakpoint replaces one): 1, 0 if not (or
 * outside the function), -1 if the file has no debug information for it.
 */
int tr_probe_dwarf_line_at(int fd, const char *function, unsigned long offset);

/* Kernel functions (events/probe_kernel.c). */

/*
 * Whether /proc/kallsyms has kernel function function: 1 (module: the
 * module defining it, or ""), 0 (closest: the closest name, or ""), or
 * -errno.
 */
int tr_kallsyms_function(const char *function, char *module, size_t modlen, char *closest,
			 size_t closelen);
/* How many kernel functions glob matches, or -errno. */
int tr_kernel_functions_match(const char *glob);

/* --- Between events/probes.c and events/probe_kernel.c -------------------------------------- */

/*
 * A spec taken apart: KIND:PATH:FUNCTION[+OFFSET][(NAME, ...)],
 * usdt:PATH:PROVIDER:NAME, or KIND:FUNCTION[(NAME, ...)] for the kernel.
 */
struct tr_probe_spec {
	int ret;			/* a uretprobe, kretprobe or fexit */
	int kernel;			/* a kernel function's */
	int trampoline;			/* ... by fentry or fexit */
	char *text;			/* allocated: the rest point into it */
	char *path;			/* or NULL: the kernel's */
	char *function;
	unsigned long offset;
	char *selection;		/* the names between the parentheses, or NULL */
};

/* Whether s's first n bytes are a C name. */
int tr_probe_identifier(const char *s, size_t n);
/*
 * Cuts "(NAME, ...)" off the end of s into *selection: 1 if s had one, 0
 * if none, -1 if it is unclosed.
 */
int tr_probe_take_selection(char *s, char **selection);
/* Why spec is malformed: the form of its kind; p's text freed.  -EINVAL. */
int tr_probe_malformed(const char *spec, struct tr_probe_spec *p, const char *form, char *why,
		       size_t whylen);
/* The six argument registers and the return register, as they are. */
void tr_probe_raw_registers(struct tr_probe_args *args);
/* Keep only the arguments p selects (NAME, or NAME:string for a string): 0, or -errno and why. */
int tr_probe_select_args(const struct tr_probe_spec *p, struct tr_probe_args *args, char *why,
			 size_t whylen);
/* What attaches probe p (provider: a USDT probe's), or NULL. */
struct tr_probe *tr_probe_new(const struct tr_probe_spec *p, const char *provider,
			      const char *note);
/*
 * Add the event system:name recording vals (n of them), which probe (freed
 * here on error) attaches: 0, or -errno and why.
 */
int tr_probe_add_event(struct tr_event_set *set, const char *spec, const char *system,
		       const char *name, const struct tr_probe_arg *vals, unsigned int n,
		       struct tr_probe *probe, char *why, size_t whylen);

/* Whether spec names a kernel function probe (events/probe_kernel.c). */
int tr_kernel_probe_spec(const char *spec);
/* tr_probe_add for one. */
int tr_kernel_probe_add(struct tr_event_set *set, const char *spec, char *why, size_t whylen);

/* A USDT probe's note (events/probe_usdt.c). */
struct tr_usdt_note {
	char provider[64];
	char name[64];
	char args[256];		/* the arguments' specs, e.g. "-4@%eax 8@-8(%rbp)" */
	__u64 address;
	__u64 semaphore;	/* its address, or 0 */
};

/*
 * The file at path for reading, without waiting on a FIFO or taking a
 * terminal: its descriptor if it is a regular file, else -errno (-EINVAL:
 * it is not a regular file).
 */
int tr_probe_open_regular(const char *path);
/* tr_probe_open_regular(), with why it failed ("PATH: ...") into why. */
int tr_probe_open_file(const char *path, char *why, size_t whylen);
/*
 * The ELF file at fd, whole, for reading (elf_end() frees it); or NULL
 * with -ENOEXEC in *err if it is no ELF file, -EBADMSG if a damaged one:
 * cut short, or with headers or sections past its end.
 */
struct Elf *tr_probe_elf_begin(int fd, int *err);
/* Why the file at path is no use (err: tr_probe_elf_begin()'s) into why, as one line. */
void tr_probe_elf_why(const char *path, int err, char *why, size_t whylen);

/*
 * Each USDT note of the ELF file at fd, to fn, until fn returns non-zero:
 * what fn last returned, or tr_probe_elf_begin()'s -ENOEXEC or -EBADMSG.
 */
int tr_usdt_notes(int fd, int (*fn)(const struct tr_usdt_note *, void *), void *arg);

/* The values a note's argument specs describe, into args: 0, or -EINVAL. */
int tr_usdt_args(const char *specs, struct tr_probe_args *args);
/*
 * The first argument (1..) of specs at a base, index and scale location
 * ("8@(%r10,%r8,8)", which libbpf fetches from 1.7 on), its spec in loc;
 * or 0.
 */
unsigned int tr_usdt_indexed_arg(const char *specs, char *loc, size_t len);

#endif /* TRACER_PROBES_H */

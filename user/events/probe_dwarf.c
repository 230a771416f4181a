// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A user function's arguments by name and type, from the DWARF of its
 * file (libdw), as perf probe and bpftrace take them.  A uprobe fires on
 * the function's first instruction, where the x86-64 System V calling
 * convention says where each argument is: integer and pointer arguments
 * in rdi, rsi, rdx, rcx, r8, r9 in order, floating-point ones in SSE
 * registers (no integer register used, not recorded).  An argument
 * passed otherwise (a struct by value, a 128-bit integer) ends the list:
 * where the ones after it are depends on its layout.
 *
 * The DWARF is the file's own, or for a stripped file the separate file
 * its build-id names, DEBUG_DIR/.build-id/NN/REST.debug, where Debian's
 * -dbgsym packages install it and gdb and perf look for it.
 * TRACER_DEBUG_DIR names another directory laid out the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>

#include "events/probes.h"

/* How a value of type die is recorded. */
enum passed {
	PASSED_IN_REGISTER,	/* an integer register: kind, size, is_signed set */
	PASSED_ELSEWHERE,	/* floating point: an SSE register */
	PASSED_UNKNOWN,		/* on the stack, or split: ends the list */
};

static Dwarf_Word attr_word(Dwarf_Die *die, unsigned int name, Dwarf_Word otherwise)
{
	Dwarf_Attribute attr;
	Dwarf_Word word;

	if (!dwarf_attr_integrate(die, name, &attr) || dwarf_formudata(&attr, &word))
		return otherwise;
	return word;
}

/* The type of die, without typedefs and qualifiers: 0, or -1 if it has none. */
static int type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, type))
		return -1;
	return dwarf_peel_type(type, type) ? -1 : 0;
}

/* Whether a pointer to pointee points to characters: a string. */
static int points_to_chars(Dwarf_Die *pointer)
{
	Dwarf_Die pointee;

	if (type_of(pointer, &pointee) || dwarf_tag(&pointee) != DW_TAG_base_type)
		return 0;
	switch (attr_word(&pointee, DW_AT_encoding, 0)) {
	case DW_ATE_signed_char:
	case DW_ATE_unsigned_char:
		return dwarf_bytesize(&pointee) == 1;
	default:
		return 0;
	}
}

static enum passed base_type(Dwarf_Die *type, struct tr_probe_arg *a)
{
	int size = dwarf_bytesize(type);

	switch (attr_word(type, DW_AT_encoding, 0)) {
	case DW_ATE_float:
	case DW_ATE_complex_float:
		return PASSED_ELSEWHERE;
	case DW_ATE_signed:
	case DW_ATE_signed_char:
		a->is_signed = 1;
		break;
	case DW_ATE_unsigned:
	case DW_ATE_unsigned_char:
	case DW_ATE_boolean:
		break;
	default:
		return PASSED_UNKNOWN;
	}
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return PASSED_UNKNOWN;
	a->size = size;
	return PASSED_IN_REGISTER;
}

/* How the value of die (a parameter, or a function: its return value) is passed. */
static enum passed classify(Dwarf_Die *die, struct tr_probe_arg *a)
{
	Dwarf_Die type;
	int size;

	a->kind = TR_PROBE_INT;
	a->size = 8;
	a->is_signed = 0;
	if (type_of(die, &type))
		return PASSED_UNKNOWN;
	switch (dwarf_tag(&type)) {
	case DW_TAG_base_type:
		return base_type(&type, a);
	case DW_TAG_enumeration_type:
		size = dwarf_bytesize(&type);
		if (size != 1 && size != 2 && size != 4 && size != 8)
			return PASSED_UNKNOWN;
		a->size = size;
		return PASSED_IN_REGISTER;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		a->kind = points_to_chars(&type) ? TR_PROBE_STRING : TR_PROBE_POINTER;
		return PASSED_IN_REGISTER;
	default:
		return PASSED_UNKNOWN;
	}
}

/* The parameters of subprogram fn into args, in argument registers' order. */
static void parameters(Dwarf_Die *fn, struct tr_probe_args *args)
{
	Dwarf_Die child;
	unsigned int reg = 0;
	int more = dwarf_child(fn, &child) == 0;

	for (; more; more = dwarf_siblingof(&child, &child) == 0) {
		struct tr_probe_arg *a = &args->arg[args->count];
		const char *name;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		switch (classify(&child, a)) {
		case PASSED_ELSEWHERE:
			continue;
		case PASSED_UNKNOWN:
			name = dwarf_diename(&child);
			snprintf(args->note, sizeof(args->note),
				 "argument '%s' and those after it are not in integer registers",
				 name ? name : "?");
			return;
		case PASSED_IN_REGISTER:
			break;
		}
		if (reg == TR_PROBE_ARG_REGISTERS) {
			snprintf(args->note, sizeof(args->note),
				 "arguments after the sixth are on the stack");
			return;
		}
		name = dwarf_diename(&child);
		if (name && strlen(name) < sizeof(a->name))
			strcpy(a->name, name);
		else
			snprintf(a->name, sizeof(a->name), "arg%u", reg + 1);
		a->slot = reg++;
		args->count++;
	}
}

/* The defining DIE of function in cu (not a declaration, not only inlined). */
static int find_function(Dwarf_Die *cu, const char *function, Dwarf_Die *fn)
{
	int more = dwarf_child(cu, fn) == 0;

	for (; more; more = dwarf_siblingof(fn, fn) == 0) {
		const char *name;

		if (dwarf_tag(fn) != DW_TAG_subprogram || dwarf_hasattr(fn, DW_AT_declaration) ||
		    !dwarf_hasattr(fn, DW_AT_low_pc))
			continue;
		name = dwarf_diename(fn);
		if (name && !strcmp(name, function))
			return 1;
	}
	return 0;
}

#define DEBUG_DIR	"/usr/lib/debug"

/* The separate debug information of the ELF file at fd, opened (a regular file), or < 0. */
static int open_by_build_id(int fd)
{
	const char *dir = getenv("TRACER_DEBUG_DIR");
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const unsigned char *id;
	char path[4096];
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, (const void **)&id) : -1;
	int at, i, debug_fd = -1;

	if (n > 1 && n < 64) {
		at = snprintf(path, sizeof(path), "%s/.build-id/%02x/", dir && *dir ? dir : DEBUG_DIR,
			      id[0]);
		for (i = 1; i < n && at < (int)sizeof(path) - 8; i++)
			at += snprintf(path + at, sizeof(path) - at, "%02x", id[i]);
		snprintf(path + at, sizeof(path) - at, ".debug");
		debug_fd = tr_probe_open_regular(path);
	}
	if (elf)
		elf_end(elf);
	return debug_fd;
}

/* The DWARF for the ELF file at fd: its own, or its separate file's (*debug_fd). */
static Dwarf *open_dwarf(int fd, int *debug_fd)
{
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);

	*debug_fd = -1;
	if (dw)
		return dw;
	*debug_fd = open_by_build_id(fd);
	return *debug_fd >= 0 ? dwarf_begin(*debug_fd, DWARF_C_READ) : NULL;
}

static void close_dwarf(Dwarf *dw, int debug_fd)
{
	if (dw)
		dwarf_end(dw);
	if (debug_fd >= 0)
		close(debug_fd);
}

/* The DWARF of the ELF file at fd, and function's defining DIE in it: 1, or 0. */
static int find_in_file(Dwarf *dw, const char *function, Dwarf_Die *fn)
{
	Dwarf_Off offset = 0, next;
	size_t header;
	Dwarf_Die cu;
	int found = 0;

	while (dw && !found && dwarf_nextcu(dw, offset, &next, &header, NULL, NULL, NULL) == 0) {
		found = dwarf_offdie(dw, offset + header, &cu) &&
			find_function(&cu, function, fn);
		offset = next;
	}
	return found;
}

int tr_probe_dwarf_args(int fd, const char *function, struct tr_probe_args *args)
{
	int debug_fd;
	Dwarf *dw = open_dwarf(fd, &debug_fd);
	Dwarf_Die fn;
	int found = find_in_file(dw, function, &fn);

	memset(args, 0, sizeof(*args));
	if (found) {
		parameters(&fn, args);
		strcpy(args->ret.name, "ret");
		args->has_ret = dwarf_hasattr_integrate(&fn, DW_AT_type) &&
				classify(&fn, &args->ret) == PASSED_IN_REGISTER;
	}
	close_dwarf(dw, debug_fd);
	return found;
}

/* Whether a row of the line table of fn's unit is at address. */
static int line_starts_at(Dwarf_Die *fn, Dwarf_Addr address)
{
	Dwarf_Lines *lines;
	Dwarf_Addr at;
	Dwarf_Die cu;
	size_t i, n;

	if (!dwarf_diecu(fn, &cu, NULL, NULL) || dwarf_getsrclines(&cu, &lines, &n))
		return 0;
	for (i = 0; i < n; i++)
		if (!dwarf_lineaddr(dwarf_onesrcline(lines, i), &at) && at == address)
			return 1;
	return 0;
}

int tr_probe_dwarf_line_at(int fd, const char *function, unsigned long offset)
{
	int debug_fd;
	Dwarf *dw = open_dwarf(fd, &debug_fd);
	Dwarf_Addr low, high;
	Dwarf_Die fn;
	int found = find_in_file(dw, function, &fn) ? 0 : -1;

	if (!found && !dwarf_lowpc(&fn, &low) && !dwarf_highpc(&fn, &high) &&
	    offset < high - low)
		found = line_starts_at(&fn, low + offset);
	close_dwarf(dw, debug_fd);
	return found;
}

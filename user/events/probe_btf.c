// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A kernel function's arguments by name and type, from the kernel's BTF
 * (/sys/kernel/btf/vmlinux).  A kprobe fires on the function's first
 * instruction, where the x86-64 calling convention puts the first six
 * integer and pointer arguments in registers (events/probe_dwarf.c says the same of user code; the
 * kernel has no floating-point arguments).  BTF does not say which
 * pointers are __user (GCC-built kernels carry no type tags), so a char
 * pointer is read as a kernel string, then as a user one.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>

#include "events/probes.h"

/* Type id without typedefs and qualifiers. */
static const struct btf_type *peel(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

/* Whether type id (a pointer's target) is a character: the pointer a string. */
static int is_char(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = peel(btf, id);

	return t && btf_is_int(t) && t->size == 1;
}

/* Type id into a; 0 if it cannot travel in an integer register. */
static int classify(const struct btf *btf, __u32 id, struct tr_probe_arg *a)
{
	const struct btf_type *t = peel(btf, id);

	a->kind = TR_PROBE_INT;
	a->size = 8;
	a->is_signed = 0;
	if (!t)
		return 0;
	if (btf_is_ptr(t)) {
		a->kind = is_char(btf, t->type) ? TR_PROBE_STRING : TR_PROBE_POINTER;
		return 1;
	}
	if (btf_is_int(t)) {
		a->is_signed = !!(btf_int_encoding(t) & BTF_INT_SIGNED);
		a->size = t->size;
	} else if (btf_is_enum(t) || btf_is_enum64(t)) {
		a->is_signed = btf_kflag(t);
		a->size = t->size;
	} else {
		return 0;
	}
	return a->size == 1 || a->size == 2 || a->size == 4 || a->size == 8;
}

static void parameters(const struct btf *btf, const struct btf_type *proto,
		       struct tr_probe_args *args)
{
	const struct btf_param *p = btf_params(proto);
	unsigned int i, n = btf_vlen(proto);

	for (i = 0; i < n; i++) {
		struct tr_probe_arg *a = &args->arg[args->count];
		const char *name = btf__name_by_offset(btf, p[i].name_off);

		if (i == TR_PROBE_ARG_REGISTERS) {
			snprintf(args->note, sizeof(args->note),
				 "arguments after the sixth are on the stack");
			return;
		}
		if (!classify(btf, p[i].type, a)) {
			snprintf(args->note, sizeof(args->note),
				 "argument '%s' and those after it are not in integer registers",
				 name && *name ? name : "?");
			return;
		}
		if (name && *name && strlen(name) < sizeof(a->name))
			strcpy(a->name, name);
		else
			snprintf(a->name, sizeof(a->name), "arg%u", i + 1);
		a->slot = i;
		args->count++;
	}
}

int tr_probe_btf_args(const struct btf *btf, int id, struct tr_probe_args *args)
{
	const struct btf_type *fn, *proto;

	memset(args, 0, sizeof(*args));
	fn = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (fn && !btf_is_func(fn))
		fn = NULL;
	proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return 0;
	parameters(btf, proto, args);
	strcpy(args->ret.name, "ret");
	args->has_ret = proto->type && classify(btf, proto->type, &args->ret);
	return id;
}

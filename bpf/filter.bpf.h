/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The event filter interpreter (include/tracer/filter.h): runs an event's
 * postfix program over its raw record before the record takes any buffer
 * space.  One bpf_loop step per instruction, and for a '~' comparison one
 * nested bpf_loop step per move of the glob matcher, so the verifier sees
 * each step once whatever the program's length.
 *
 * Fields are read with bpf_probe_read_kernel: the record is the
 * tracepoint's buffer or, for system calls, one the program built on its
 * stack, and offsets come from a map.  The common header is read from a
 * copy of the record's as it will be written (its pid, flags and preempt
 * count are the program's, not the kernel's raw ones).  A string field is
 * compared whole, however long, as ftrace compares it: through a window
 * of TR_FILTER_STR of its bytes, moved when the matcher steps outside it
 * ('~' backtracks at most one pattern's length behind, so it moves
 * seldom).
 *
 * The interpreter's state (the boolean stack, the matcher's positions)
 * lives in a per-CPU map value, not on the BPF stack: the verifier tracks
 * stack values exactly and would explore every depth and position the
 * loops could reach; values read from a map are unknown to it, so each
 * step is verified once.  A classic tracepoint program never runs nested
 * on its CPU, nor does a tp_btf program nest in itself, nor an fentry or
 * fexit program in another (record.bpf.c's busy flag), and none makes
 * system calls: one slot per kind of program is enough.
 */
#ifndef TRACER_FILTER_BPF_H
#define TRACER_FILTER_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <tracer/filter.h>

/* Set by the loader when some event has a filter: callers skip the rest if not. */
const volatile bool tr_have_filters;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct tr_filter);
	__uint(max_entries, 1);			/* set by the loader: events */
} tr_filters SEC(".maps");

/*
 * Worst case of the glob matcher: between two backtracks (one per byte of
 * the field at most) it moves forward through the pattern, once.
 */
#define GLOB_STEPS	(TR_FILTER_STR * (TR_FILTER_FIELD_MAX + 2))
#define STR_MASK	(TR_FILTER_STR - 1)

#define TR_FILTER_SLOT_TRACEPOINT	0
#define TR_FILTER_SLOT_TP_BTF		1
#define TR_FILTER_SLOT_TRAMPOLINE	2	/* fentry, fexit */
#define TR_FILTER_SLOT_UPROBE		3	/* uprobes, uretprobes, USDT */
#define TR_FILTER_SLOTS			4

struct filter_run {
	struct trace_entry common;	/* the record's common header, as written */
	__u32 key;			/* of the program in tr_filters */
	__u32 depth;			/* booleans on the stack */
	__u64 stack;			/* the top in bit 0 */
	bool malformed;
	/* A string comparison: the operand, and the field's string. */
	char pat[TR_FILTER_STR];
	char str[TR_FILTER_STR];	/* its bytes from win on (as many as it has) */
	__u64 addr;			/* where it is; COMM's is all in str */
	__u32 len;			/* its bytes: it ends there, or at a NUL */
	__u32 win;
	/* The glob matcher: positions in pat and str, and the last '*'. */
	__s32 p, s, star_p, star_s;
	bool match;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct filter_run);
	__uint(max_entries, TR_FILTER_SLOTS);
} tr_filter_runs SEC(".maps");

/* What a bpf_loop step gets: on the caller's stack, so pointers keep their types. */
struct filter_ctx {
	const void *record;
	struct filter_run *run;
};

static __always_inline const void *field_base(const struct filter_ctx *fc, __u32 offset)
{
	return offset < sizeof(struct trace_entry) ? (const void *)&fc->run->common : fc->record;
}

static __always_inline __u64 read_int(const struct filter_ctx *fc,
				      const struct tr_filter_insn *insn)
{
	__u32 size = insn->size, shift;
	__u64 v = 0;

	if (insn->src == TR_FSRC_CPU)
		return bpf_get_smp_processor_id();
	if (size > sizeof(v))
		size = sizeof(v);
	bpf_probe_read_kernel(&v, size, field_base(fc, insn->offset) + insn->offset);
	if (insn->is_signed && size && size < sizeof(v)) {
		shift = 64 - 8 * size;
		v = (__s64)(v << shift) >> shift;
	}
	return v;
}

static __always_inline bool compare_int(const struct filter_ctx *fc,
					const struct tr_filter_insn *insn)
{
	__u64 v = read_int(fc, insn), x = insn->value;
	bool sign = insn->is_signed;

	switch (insn->op) {
	case TR_FOP_EQ: return v == x;
	case TR_FOP_NE: return v != x;
	case TR_FOP_LT: return sign ? (__s64)v < (__s64)x : v < x;
	case TR_FOP_LE: return sign ? (__s64)v <= (__s64)x : v <= x;
	case TR_FOP_GT: return sign ? (__s64)v > (__s64)x : v > x;
	case TR_FOP_GE: return sign ? (__s64)v >= (__s64)x : v >= x;
	default: return (v & x) != 0;
	}
}

/* The field string's bytes from at (< run->len) into run->str. */
static __always_inline void load_window(struct filter_run *run, __u32 at)
{
	__u32 n = run->len - at;

	if (n > TR_FILTER_STR)
		n = TR_FILTER_STR;
	run->win = at;
	bpf_probe_read_kernel(run->str, n, (const void *)(long)(run->addr + at));
}

/* Where the field's string is, how long, and its first bytes in the window. */
static __always_inline void read_str(const struct filter_ctx *fc,
				     const struct tr_filter_insn *insn)
{
	struct filter_run *run = fc->run;
	const void *base = field_base(fc, insn->offset);
	__u32 n = insn->chars, loc = 0, at = insn->offset;

	run->win = 0;
	if (insn->src == TR_FSRC_COMM) {
		run->len = 16;
		bpf_get_current_comm(run->str, 16);
		return;
	}
	if (insn->src != TR_FSRC_CHARS) {
		bpf_probe_read_kernel(&loc, sizeof(loc), base + at);
		n = loc >> 16;
		at = (loc & 0xffff) + (insn->src == TR_FSRC_REL_LOC ? at + sizeof(loc) : 0);
	}
	run->addr = (long)(base + at);
	run->len = n;
	if (n)
		load_window(run, 0);
}

/* The field string's byte at s, 0 past its end; the window moved to s if s is outside it. */
static __always_inline char char_at(struct filter_run *run, __s32 s)
{
	if (s < 0 || (__u32)s >= run->len)
		return 0;
	if ((__u32)s < run->win || (__u32)s - run->win >= TR_FILTER_STR)
		load_window(run, s);
	return run->str[(s - run->win) & STR_MASK];
}

/* The window is at 0, and the operand ends within it: no byte past it can be equal. */
static __always_inline bool str_equal(const struct filter_run *run)
{
	int k;

	for (k = 0; k < TR_FILTER_STR; k++) {
		char c = (__u32)k < run->len ? run->str[k] : 0;

		if (c != run->pat[k])
			return false;
		if (!c)
			return true;
	}
	return false;
}

/*
 * One move of the matcher: advance on a literal or '?', remember a '*',
 * or go back to the last '*' and let it take one more character.
 */
static long glob_step(__u64 i, void *ctx)
{
	struct filter_run *r = ((struct filter_ctx *)ctx)->run;
	char pc = r->p >= 0 && r->p < TR_FILTER_STR ? r->pat[r->p & STR_MASK] : 0;
	char sc = char_at(r, r->s);

	if (pc == '*') {
		r->star_p = r->p++;
		r->star_s = r->s;
		return 0;
	}
	if (sc && pc && (pc == '?' || pc == sc)) {
		r->p++;
		r->s++;
		return 0;
	}
	if (sc && r->star_p >= 0) {
		r->p = r->star_p + 1;
		r->s = ++r->star_s;
		return 0;
	}
	r->match = !sc && !pc;
	return 1;
}

static __always_inline bool compare_str(const struct filter_ctx *fc, const struct tr_filter *f,
					const struct tr_filter_insn *insn)
{
	struct filter_run *run = fc->run;

	read_str(fc, insn);
	bpf_probe_read_kernel_str(run->pat, sizeof(run->pat),
				  &f->strings[insn->value & (TR_FILTER_STRINGS - 1)]);
	if (insn->op == TR_FOP_STR_EQ)
		return str_equal(run);
	if (insn->op == TR_FOP_STR_NE)
		return !str_equal(run);
	run->p = run->s = 0;
	run->star_p = -1;
	run->match = false;
	bpf_loop(GLOB_STEPS, glob_step, (void *)fc, 0);
	return run->match;
}

static long filter_step(__u64 i, void *ctx)
{
	const struct filter_ctx *fc = ctx;
	struct filter_run *run = fc->run;
	const struct tr_filter *f = bpf_map_lookup_elem(&tr_filters, &run->key);
	const struct tr_filter_insn *insn;
	__u64 a, b;

	if (!f || i >= TR_FILTER_MAX_INSNS)
		goto malformed;
	insn = &f->insn[i];
	switch (insn->op) {
	case TR_FOP_AND:
	case TR_FOP_OR:
		if (run->depth < 2)
			goto malformed;
		a = run->stack & 1;
		b = (run->stack >> 1) & 1;
		run->stack = (run->stack >> 2) << 1 | (insn->op == TR_FOP_AND ? a & b : a | b);
		run->depth--;
		return 0;
	case TR_FOP_NOT:
		if (!run->depth)
			goto malformed;
		run->stack ^= 1;
		return 0;
	}
	if (run->depth >= 64)
		goto malformed;
	b = insn->op <= TR_FOP_BAND ? compare_int(fc, insn) : compare_str(fc, f, insn);
	run->stack = run->stack << 1 | b;
	run->depth++;
	return 0;
malformed:
	run->malformed = true;
	return 1;
}

/*
 * Whether the filter at key in tr_filters passes the record.  common is
 * its common header as the record will hold it; slot the TR_FILTER_SLOT_*
 * of the calling program.  A malformed program passes all: a filter never
 * loses events by mistake.
 */
static __always_inline bool tr_filter_passes(const void *record, const struct trace_entry *common,
					     __u32 key, __u32 slot)
{
	struct filter_ctx fc = { .record = record };
	const struct tr_filter *f = bpf_map_lookup_elem(&tr_filters, &key);
	struct filter_run *run;

	if (!f || !f->ninsn)
		return true;
	run = bpf_map_lookup_elem(&tr_filter_runs, &slot);
	if (!run)
		return true;
	run->common = *common;
	run->key = key;
	run->depth = 0;
	run->stack = 0;
	run->malformed = false;
	fc.run = run;
	bpf_loop(f->ninsn < TR_FILTER_MAX_INSNS ? f->ninsn : TR_FILTER_MAX_INSNS,
		 filter_step, &fc, 0);
	return run->malformed || run->depth != 1 || (run->stack & 1);
}

#endif /* TRACER_FILTER_BPF_H */

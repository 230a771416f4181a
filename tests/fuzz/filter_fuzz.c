// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness over tr_filter_compile(): an input is one filter
 * expression, compiled against a format with every kind of field (signed
 * and unsigned integers of each size, a char array, a __data_loc string,
 * a char pointer, a u8 array).  A refusal must say why in one line; what
 * it accepts must be a program the BPF interpreter runs as written
 * (include/tracer/filter.h): each comparison pushes, AND and OR find two
 * booleans, NOT one, one is left; string operands are NUL-terminated
 * inside the pool.  Anything else aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "events/filter.h"

static const char format[] =
	"name: fuzz\n"
	"ID: 1\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:s8 a;\toffset:28;\tsize:1;\tsigned:1;\n"
	"\tfield:u16 b;\toffset:30;\tsize:2;\tsigned:0;\n"
	"\tfield:long c;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:const char * p;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u8 addr[4];\toffset:48;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"%s\", REC->comm\n";

static struct tep_event *event(void)
{
	static struct tep_event *ev;
	struct tep_handle *tep;

	if (ev)
		return ev;
	tep = tep_alloc();
	if (!tep || tep_parse_format(tep, &ev, format, strlen(format), "fuzz") || !ev)
		abort();
	return ev;
}

static void check_program(const struct tr_filter *prog)
{
	unsigned int i, depth = 0;

	if (prog->ninsn > TR_FILTER_MAX_INSNS || prog->strings_used > TR_FILTER_STRINGS)
		abort();
	for (i = 0; i < prog->ninsn; i++) {
		const struct tr_filter_insn *insn = &prog->insn[i];

		switch (insn->op) {
		case TR_FOP_AND:
		case TR_FOP_OR:
			if (depth-- < 2)
				abort();
			break;
		case TR_FOP_NOT:
			if (!depth)
				abort();
			break;
		case TR_FOP_STR_EQ:
		case TR_FOP_STR_NE:
		case TR_FOP_GLOB:
			if (insn->value >= prog->strings_used ||
			    !memchr(prog->strings + insn->value, 0, prog->strings_used - insn->value) ||
			    strlen(prog->strings + insn->value) >= TR_FILTER_STR)
				abort();
			depth++;
			break;
		default:
			if (insn->op > TR_FOP_BAND)
				abort();
			depth++;
		}
	}
	if (depth != 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *expr = strndup((const char *)data, size), why[512] = "";
	struct tr_filter prog;

	if (!expr)
		return 0;
	if (tr_filter_compile(event(), expr, &prog, why, sizeof(why)))
		if (strncmp(why, "column ", 7) || strchr(why, '\n'))
			abort();
	if (!why[0])
		check_program(&prog);
	free(expr);
	return 0;
}

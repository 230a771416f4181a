// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What names the frames of a recording with call stacks (-g), for report:
 * .tracer/stacks (which stacks the records carry) and the kernel's text
 * symbols, which record/output.c writes; and, with user stacks,
 * tracer:vm_map records of where each process's code is, written by the
 * BPF programs (tracer/record.h) into the trace itself: a process that
 * exits before the recorder reads its records is named all the same.
 * This file declares that event and sums its records up.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "record/session.h"
#include "record.skel.h"

#define STR(x)	#x
#define XSTR(x)	STR(x)

static const char vm_map_format[] =
"name: vm_map\n"
"ID: " XSTR(TR_VM_MAP_TYPE) "\n"
"format:\n"
TR_FORMAT_COMMON_FIELDS
"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
"\tfield:unsigned int reason;\toffset:12;\tsize:4;\tsigned:0;\n"
"\tfield:unsigned long start;\toffset:16;\tsize:8;\tsigned:0;\n"
"\tfield:unsigned long end;\toffset:24;\tsize:8;\tsigned:0;\n"
"\tfield:unsigned long offset;\toffset:32;\tsize:8;\tsigned:0;\n"
"\tfield:__data_loc char[] path;\toffset:40;\tsize:4;\tsigned:0;\n"
"\n"
"print fmt: \"pid=%d start=0x%lx end=0x%lx offset=0x%lx path=%s reason=%s\", REC->pid, "
"REC->start, REC->end, REC->offset, __get_str(path), "
"__print_symbolic(REC->reason, { 0, \"dump\" }, { 1, \"exec\" }, { 2, \"mmap\" })\n";
_Static_assert(__builtin_offsetof(struct tr_vm_map, path) == 40 &&
	       __builtin_offsetof(struct tr_vm_map, path_data) == 44,
	       "vm_map_format describes struct tr_vm_map");

int rec_declare_vm_map(struct session *s, char *why, size_t len)
{
	int err;

	if (!(s->o->stacks & TR_STACK_USER))
		return 0;
	s->vm_map_id = s->events.count;
	err = tr_events_add_format(&s->events, "tracer", "vm_map", vm_map_format);
	if (err)
		snprintf(why, len, "cannot declare tracer:vm_map: %s", strerror(-err));
	return err;
}

void rec_vm_map_summary(const struct session *s)
{
	__u64 unread = s->skel->bss->tr_vm_unread;

	if (!(s->o->stacks & TR_STACK_USER))
		return;
	fprintf(stderr, "  mapping records: %llu (where code is, for user stacks: state dump, exec, mmap)\n",
		(unsigned long long)s->skel->bss->tr_vm_records);
	if (unread)
		fprintf(stderr, "  mappings not read: %llu (another thread held the process's mappings locked): their frames go unnamed\n",
			(unsigned long long)unread);
}

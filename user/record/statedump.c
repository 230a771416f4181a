// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <tracer/record.h>

#include "record/statedump.h"
#include "events/events.h"

#define STR(x)	#x
#define XSTR(x)	STR(x)

const char tr_task_state_format[] =
"name: task_state\n"
"ID: " XSTR(TR_TASK_STATE_TYPE) "\n"
"format:\n"
TR_FORMAT_COMMON_FIELDS
"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
"\tfield:pid_t tgid;\toffset:12;\tsize:4;\tsigned:1;\n"
"\tfield:pid_t ppid;\toffset:16;\tsize:4;\tsigned:1;\n"
"\tfield:unsigned int reason;\toffset:20;\tsize:4;\tsigned:0;\n"
"\tfield:char comm[16];\toffset:24;\tsize:16;\tsigned:0;\n"
"\n"
"print fmt: \"pid=%d tgid=%d ppid=%d comm=%s reason=%s\", REC->pid, REC->tgid, REC->ppid, "
"REC->comm, __print_symbolic(REC->reason, { 0, \"dump\" }, { 1, \"new\" }, { 2, \"comm\" })\n";
_Static_assert(sizeof(struct tr_task_state) == 40,
	       "tr_task_state_format describes struct tr_task_state");

int tr_tasks_dump(const struct bpf_program *iter)
{
	struct bpf_link *link = bpf_program__attach_iter(iter, NULL);
	int fd, err = 0;
	char buf[64];
	ssize_t n;

	if (!link)
		return -errno;
	/* The program prints nothing: reading to the end runs it once per task. */
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		err = -errno;
	} else {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		if (n < 0)
			err = -errno;
		close(fd);
	}
	bpf_link__destroy(link);
	return err;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "record/recursion_misses.h"
#include "events/events.h"

const char tr_misses_format[] =
"name: recursion_misses\n"
"ID: 65534\n"
"format:\n"
TR_FORMAT_COMMON_FIELDS
"\tfield:u64 skipped;\toffset:8;\tsize:8;\tsigned:0;\n"
"\tfield:u64 since;\toffset:16;\tsize:8;\tsigned:0;\n"
"\n"
"print fmt: \"skipped=%llu since=%llu\", REC->skipped, REC->since\n";
_Static_assert(sizeof(struct tr_misses_record) == 24,
	       "tr_misses_format describes struct tr_misses_record");

__u64 tr_recursion_misses(const struct bpf_object *obj)
{
	struct bpf_program *prog;
	__u64 sum = 0;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

int tr_misses_write(const struct trb_buf *b, __u32 event_id, __u64 skipped, __u64 since)
{
	struct tr_misses_record r = {
		.common_type = 65534, .common_pid = getpid(),
		.skipped = skipped, .since = since,
	};
	struct trb_slot slot;
	int err = trb_reserve(b, &slot, event_id, sizeof(r),
			      (__u64)getpid() << 32 | gettid());

	if (err)
		return err;
	memcpy(trb_payload(&slot), &r, sizeof(r));
	trb_commit(b, &slot);
	return 0;
}

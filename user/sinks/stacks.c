// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "sinks/stacks.h"

struct tr_frame_name tr_stack_frame_name(struct tr_symbols *symbols, const struct tr_item *it,
					 unsigned int i)
{
	__u64 address = tr_item_frame(it, i);

	if (i < it->kernel_frames)
		return tr_symbols_kernel(symbols, address);
	return tr_symbols_user(symbols, it->record->pid, it->ts, address);
}

void tr_stacks_print(FILE *out, struct tr_symbols *symbols, const struct tr_item *it)
{
	unsigned int n = it->kernel_frames + it->user_frames, i;

	for (i = 0; i < n; i++) {
		struct tr_frame_name name = tr_stack_frame_name(symbols, it, i);

		fprintf(out, "\t%16llx ", (unsigned long long)tr_item_frame(it, i));
		if (name.function)
			fprintf(out, "%s+0x%llx", name.function, (unsigned long long)name.offset);
		else
			fputs("[unknown]", out);
		fprintf(out, " (%s)\n", name.file ? name.file : "[unknown]");
	}
	if (n)
		fputc('\n', out);
}

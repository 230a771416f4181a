// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "common/syscalls.h"

/* { "read", 0 }, ...: generated from <asm/unistd_64.h> by the Makefile. */
static const struct {
	const char *name;
	int nr;
} numbers[] = {
#include "syscall_numbers.h"
};

/*
 * Entry points named otherwise than their __NR_ constant
 * (arch/x86/entry/syscalls/syscall_64.tbl); tracefs names the events
 * after the entry point.
 */
static const struct {
	const char *entry;
	const char *nr_name;
} renamed[] = {
	{ "newstat", "stat" }, { "newfstat", "fstat" }, { "newlstat", "lstat" },
	{ "newuname", "uname" }, { "sendfile64", "sendfile" }, { "umount", "umount2" },
};

int tr_syscall_nr(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (!strcmp(name, renamed[i].entry))
			name = renamed[i].nr_name;
	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		if (!strcmp(name, numbers[i].name))
			return numbers[i].nr;
	return -1;
}

const char *tr_syscall_name(int nr)
{
	size_t i;

	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		if (numbers[i].nr == nr)
			return numbers[i].name;
	return NULL;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A known call chain for the call-stack tests, built with frame pointers
 * (Makefile): main -> chain_one -> chain_two -> chain_three, which makes
 * the getppid system call itself (no libc frame without a frame pointer
 * in between).  Waits for the file GO, calls N times, creates CALLED,
 * then waits for the file DONE before it exits, so that its mappings can
 * be read while it lives.
 *	callchain N GO CALLED DONE
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

static void wait_for(const char *path)
{
	while (access(path, F_OK))
		usleep(10000);
}

__attribute__((noinline)) static long chain_three(void)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "0"((long)SYS_getppid) : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) static long chain_two(void)
{
	return chain_three() + 1;
}

__attribute__((noinline)) static long chain_one(void)
{
	return chain_two() + 1;
}

int main(int argc, char **argv)
{
	long n, sum = 0;

	if (argc != 5)
		return 2;
	wait_for(argv[2]);
	for (n = atol(argv[1]); n > 0; n--)
		sum += chain_one();
	close(open(argv[3], O_CREAT | O_WRONLY, 0600));
	wait_for(argv[4]);
	return sum == 0;
}

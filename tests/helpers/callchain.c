// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A known call chain for the call-stack tests, built with frame pointers
 * (Makefile): main -> chain_one -> chain_two -> chain_three, which makes
 * the getppid system call itself (no libc frame without a frame pointer
 * in between).  With files, waits for the file GO, calls N times,
 * creates CALLED, then waits for the file DONE before it exits, so that
 * its mappings can be read while it lives.  Without, calls N times and
 * exits; with -f, a child it forks (and does not exec) makes the calls.
 *	callchain N GO CALLED DONE
 *	callchain [-f] N
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

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

/* The calls are made from main itself, so that it is the chain's outermost frame. */
int main(int argc, char **argv)
{
	int fork_first = argc == 3 && !strcmp(argv[1], "-f"), files = argc == 5, status;
	long n, sum = 0;
	pid_t child;

	if (argc != 2 && !fork_first && !files)
		return 2;
	if (fork_first) {
		child = fork();
		if (child)
			return child < 0 || waitpid(child, &status, 0) != child ||
			       !WIFEXITED(status) || WEXITSTATUS(status);
	}
	if (files)
		wait_for(argv[2]);
	for (n = atol(argv[fork_first ? 2 : 1]); n > 0; n--)
		sum += chain_one();
	if (files) {
		close(open(argv[3], O_CREAT | O_WRONLY, 0600));
		wait_for(argv[4]);
	}
	return sum == 0;
}

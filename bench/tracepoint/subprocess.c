// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recorders tracepoint_bench runs as subprocesses (tracer, perf,
 * trace-cmd, bpftrace): started with their output in a log, waited for
 * until they have attached, stopped with everything they forked.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

pid_t spawn(char *const argv[], const char *log)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int nul = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGINT);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (nul >= 0)
			dup2(nul, 0);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int reap(pid_t pid, int timeout_ms)
{
	int status = -1, waited = 0;

	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (waited >= timeout_ms) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		sleep_ms(10);
		waited += 10;
	}
	return status;
}

/*
 * Processes our child left in its process group (trace-cmd forks a
 * recorder per CPU): each is ours, killed by its id.
 */
static void kill_leftovers(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		pid_t pid = atoi(de->d_name);
		char buf[512], *p;
		int pgrp;

		if (pid <= 0)
			continue;
		p = proc_stat(pid, buf, sizeof(buf));
		if (p && sscanf(p + 2, "%*c %*d %d", &pgrp) == 1 && pgrp == pgid) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, WNOHANG);
		}
	}
	if (d)
		closedir(d);
}

void stop_child(int sig, int timeout_ms, int *status)
{
	int st;

	if (child_pid <= 0)
		return;
	kill(child_pid, sig);
	st = reap(child_pid, timeout_ms);
	kill_leftovers(child_pid);
	if (status)
		*status = st;
	child_pid = 0;
}

bool child_alive(pid_t pid, int *status)
{
	return waitpid(pid, status, WNOHANG) == 0;
}

int count_bpf_links(pid_t pid)
{
	char dir[64], path[PATH_MAX], target[256];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		ssize_t len;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = 0;
			n += strstr(target, "bpf_link") != NULL;
		}
	}
	if (d)
		closedir(d);
	return n;
}

void log_tail(const char *log, const char *indent)
{
	char buf[2048];
	FILE *f = fopen(log, "r");

	while (f && fgets(buf, sizeof(buf), f))
		progress("%s%s", indent, buf);
	if (f)
		fclose(f);
}

int await_attached(bool (*ready)(const void *arg), const void *arg, const char *what,
		   const char *log, int tries)
{
	int i, status;

	for (i = 0; i < tries; i++) {
		if (ready(arg))
			return 0;
		if (!child_alive(child_pid, &status)) {
			child_pid = 0;
			progress("\n%s exited before attaching:\n", what);
			log_tail(log, "  ");
			return -ECHILD;
		}
		sleep_ms(5);
	}
	stop_child(SIGKILL, 1000, NULL);
	return -ETIMEDOUT;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracepoint_bench's shared state and small helpers: time, files,
 * statistics over rounds, CPU pinning, key lists, and the run's temporary
 * directory.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

int ncpu;
char tmpdir[256];
volatile sig_atomic_t interrupted;
pid_t child_pid;

__u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	close(fd);
	return err;
}

char *read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return buf;
}

char *proc_stat(pid_t pid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	read_str(path, buf, len);
	return strrchr(buf, ')');
}

/* nftw's callback: removes one entry, children first. */
static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)type;
	(void)f;
	return remove(path);
}

void rm_rf(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* qsort's order of doubles. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	if (n <= 0)
		return 0;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double vmin(const double *v, int n)
{
	double m = v[0];

	while (--n > 0)
		m = v[n] < m ? v[n] : m;
	return m;
}

double vmax(const double *v, int n)
{
	double m = v[0];

	while (--n > 0)
		m = v[n] > m ? v[n] : m;
	return m;
}

bool key_listed(const char *list, const char *key)
{
	size_t len = strlen(key);
	const char *p = list;

	while ((p = strstr(p, key))) {
		if ((p == list || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

/* Temporary directories of killed runs (their owner's pid is in "pid"): removed. */
static void remove_stale_tmpdirs(void)
{
	DIR *d = opendir("/tmp");
	struct dirent *de;
	char path[PATH_MAX], buf[32], proc[64];

	while (d && (de = readdir(d))) {
		int pid;

		if (strncmp(de->d_name, "tracepoint_bench.", 17))
			continue;
		snprintf(path, sizeof(path), "/tmp/%s/pid", de->d_name);
		pid = atoi(read_str(path, buf, sizeof(buf)));
		snprintf(proc, sizeof(proc), "/proc/%d", pid);
		if (pid <= 0 || pid == getpid() || access(proc, F_OK) == 0)
			continue;
		snprintf(path, sizeof(path), "/tmp/%s", de->d_name);
		rm_rf(path);
		progress("removed a stale %s\n", path);
	}
	if (d)
		closedir(d);
}

int make_tmpdir(void)
{
	char path[PATH_MAX], pid[32];
	int fd;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tracepoint_bench.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		tmpdir[0] = 0;
		return -1;
	}
	snprintf(path, sizeof(path), "%s/pid", tmpdir);
	snprintf(pid, sizeof(pid), "%d\n", getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, pid, strlen(pid)) < 0)
		perror(path);
	if (fd >= 0)
		close(fd);
	remove_stale_tmpdirs();
	return 0;
}

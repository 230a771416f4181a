// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The machine tracepoint_bench measures on: its state at the start (load,
 * other busy processes, other BPF programs on the measured tracepoint),
 * and the CPU time others use while a run measures (a disturbance).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "harness.h"

bool foreign_program;
double loadavg_start;

/* The 1-minute load average. */
static double loadavg1(void)
{
	char buf[128];

	return atof(read_str("/proc/loadavg", buf, sizeof(buf)));
}

/* CPU ticks (utime + stime) of a process, or -1. */
static long proc_ticks(pid_t pid, char *comm, size_t len)
{
	char buf[1024], *p;
	unsigned long ut, st;

	p = proc_stat(pid, buf, sizeof(buf));
	if (!p)
		return -1;
	if (comm) {
		char *open = strchr(buf, '(');

		snprintf(comm, len, "%.*s", (int)(p - open - 1), open + 1);
	}
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return ut + st;
}

/*
 * Disturbance: CPU time others used while we measured.  The CPUs' busy time
 * (/proc/stat user + nice + system) minus ours: this process, the process
 * group of the child we run (tracer, perf, trace-cmd) and kernel threads
 * (writeback of the traces we write is part of the cost we measure).
 * Short-lived processes of others are counted too: they are in the total.
 */
#define PF_KTHREAD_FLAG	0x00200000u

void cpu_sample(struct cpu_sample *s)
{
	unsigned long long user = 0, nice = 0, system = 0, idle, iowait, irq, softirq;
	char buf[512];
	struct dirent *de;
	DIR *d;

	memset(s, 0, sizeof(*s));
	read_str("/proc/stat", buf, sizeof(buf));
	sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system, &idle,
	       &iowait, &irq, &softirq, &s->steal);
	s->busy = user + nice + system;
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		pid_t pid = atoi(de->d_name);
		unsigned long ut, st;
		unsigned int flags;
		char *p;
		int pgrp;

		if (pid <= 0)
			continue;
		p = proc_stat(pid, buf, sizeof(buf));
		if (!p || sscanf(p + 2, "%*c %*d %d %*d %*d %*d %u %*u %*u %*u %*u %lu %lu",
				 &pgrp, &flags, &ut, &st) != 4)
			continue;
		if (pid == getpid() || (child_pid > 0 && pgrp == child_pid) || (flags & PF_KTHREAD_FLAG))
			s->ours += ut + st;
	}
	if (d)
		closedir(d);
	s->t = now_ns();
}

void cpu_others(const struct cpu_sample *a, const struct cpu_sample *b, double *others,
		double *steal)
{
	double secs = (b->t - a->t) / 1e9, hz = sysconf(_SC_CLK_TCK);
	long long other = (long long)(b->busy - a->busy) - (long long)(b->ours - a->ours);

	*others = secs > 0 && other > 0 ? other / hz / secs : 0;
	*steal = secs > 0 ? (b->steal - a->steal) / hz / secs : 0;
}

/* Other processes busy on the CPUs (over 0.5 s) or holding BPF links. */
static void other_activity(FILE *out)
{
	enum { MAXP = 4096 };
	static pid_t pids[MAXP];
	static long before[MAXP];
	long hz = sysconf(_SC_CLK_TCK);
	struct dirent *de;
	int n = 0, i, found = 0;
	DIR *d = opendir("/proc");

	while (d && (de = readdir(d)) && n < MAXP) {
		pid_t pid = atoi(de->d_name);

		if (pid > 0 && pid != getpid()) {
			pids[n] = pid;
			before[n++] = proc_ticks(pid, NULL, 0);
		}
	}
	if (d)
		closedir(d);
	sleep_ms(500);
	for (i = 0; i < n; i++) {
		char comm[64], path[64], cmd[160] = "";
		long t = proc_ticks(pids[i], comm, sizeof(comm));
		int links = count_bpf_links(pids[i]);
		double cpu = before[i] >= 0 && t >= 0 ? (t - before[i]) * 2.0 / hz : 0;
		ssize_t len;
		int fd;

		if (cpu < 0.2 && !links)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", pids[i]);
		fd = open(path, O_RDONLY);
		len = fd >= 0 ? read(fd, cmd, sizeof(cmd) - 1) : 0;
		if (fd >= 0)
			close(fd);
		for (ssize_t j = 0; j + 1 < len; j++)
			if (!cmd[j])
				cmd[j] = ' ';
		fprintf(out, "- WARNING: pid %d (%s) %s%.0f%% CPU%s: `%.100s`\n", pids[i], comm,
			links ? "holds BPF links (a tracer?), " : "", cpu * 100,
			links ? ": its programs may run on the tracepoint measured here" : "",
			len > 0 ? cmd : comm);
		found++;
	}
	if (!found)
		fprintf(out, "- no other process above 20%% CPU or holding BPF links\n");
}

/*
 * Events a counting perf event sees on the tracepoint during calls getppid()
 * calls, or -errno.  The kernel skips perf's own events on a tracepoint
 * when a BPF program attached to it returns 0: 0 means someone else's BPF
 * program runs on every event measured here (and perf record sees none).
 */
static long long tracepoint_count_probe(long calls)
{
	char path[PATH_MAX], buf[32];
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a) };
	long long count = 0;
	long i;
	int fd;

	snprintf(path, sizeof(path), TRACEFS "/events/%s/%s/id", EVENT_SYSTEM, event_name);
	a.config = atoi(read_str(path, buf, sizeof(buf)));
	if (!a.config)
		return -ENOENT;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (i = 0; i < calls; i++)
		syscall(sys_nr);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = -EIO;
	close(fd);
	return count;
}

void machine_state(FILE *out)
{
	long long seen;
	char buf[256];
	struct utsname u;
	time_t t = time(NULL);

	uname(&u);
	fprintf(out, "## Machine\n\n");
	fprintf(out, "- %s", ctime(&t));
	fprintf(out, "- kernel %s, %d CPUs (nproc %ld)\n", u.release, ncpu,
		sysconf(_SC_NPROCESSORS_ONLN));
	fprintf(out, "- loadavg %s\n", read_str("/proc/loadavg", buf, sizeof(buf)));
	loadavg_start = loadavg1();
	if (loadavg1() > 0.5)
		fprintf(out, "- WARNING: 1-minute load %.2f > 0.5: the generator threads are pinned, "
			"so other work on CPU 0 or 1 shows in every number\n", loadavg1());
	other_activity(out);
	seen = tracepoint_count_probe(1000);
	foreign_program = seen == 0;
	if (seen == 0)
		fprintf(out, "- WARNING: another BPF program is attached to %s (a counting perf "
			"event saw 0 of 1000 calls): it runs on every event measured here, a second program "
			"costs less than the first, and perf record sees no events; --syscall getpid "
			"measures another tracepoint\n", event_spec);
	else if (seen < 0)
		fprintf(out, "- could not check for other BPF programs on %s: %s\n", event_spec,
			strerror(-seen));
	else
		fprintf(out, "- no other BPF program on %s (a counting perf event saw %lld of 1000 calls)\n",
			event_spec, seen);
	fprintf(out, "\n");
}

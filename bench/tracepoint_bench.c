// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracepoint_bench: what recording one tracepoint event costs, per event,
 * with this tracer and with its peers, on this machine.  Method and last
 * results: bench/tracepoint_bench.md.
 *
 *  1. A generator makes getppid() calls from 1 thread (pinned to CPU 0) or
 *     2 threads (CPUs 0 and 1) while one configuration records
 *     syscalls:sys_enter_getppid: nothing; an empty BPF program; the
 *     tracer CLI (build/tracer record -a, a subprocess writing to disk);
 *     the tracer's BPF program alone (in this process, overwrite mode, no
 *     reader); BPF ringbuf; perf buffer; perf record; trace-cmd record, or
 *     when trace-cmd cannot run, the kernel's ftrace ring buffer through
 *     tracefs with a reader writing to a file.  Configurations are
 *     interleaved, several rounds; wall ns per call per thread.
 *  2. The buffer path alone: BPF_PROG_TEST_RUN of a bpf_loop writing
 *     records, the tracer's writer (bpf/writer_loop.bpf.c, and the same
 *     loop without its shared counters in bpf/bench_peers.bpf.c) against
 *     BPF ringbuf reserve/submit, on 1 CPU and on 2 CPUs at once.
 *  3. Saturation: the tracer CLI recording 2 threads calling as fast as
 *     they can; events/s and losses.
 *  4. Where loss begins: the tracer CLI recording 4 events per call
 *     (raw_syscalls and the call's own enter/exit) while 2 threads call
 *     at fixed rates; the lowest rate that loses events, and the loss at
 *     twice that rate.
 * Then the targets of the issue, PASS or FAIL with the numbers.
 *
 *   tracepoint_bench [--quick] [--rounds N] [--calls N] [--loop-records N]
 *                    [--sat-calls N] [--ladder M,...] [--ladder-secs S]
 *                    [--syscall NAME] [--only KEY,...] [--diag] [--tracer PATH]
 *                    [--csv FILE]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "buffers/bpfbuf.h"
#include "events/events.h"
#include "layout/packet.h"
#include "layout/ubuf.h"
#include "bench_peers.skel.h"
#include "writer_loop.skel.h"
#include "record.skel.h"
#include "bench_csv.h"

#define TRACEFS		"/sys/kernel/tracing"
#define EVENT_SYSTEM	"syscalls"
#define MAX_ROUNDS	32
#define MAX_THREADS	2
#define PEER_RB_BYTES	(8u << 20)	/* BPF ringbuf: the tracer's 2 x 4 MiB */
#define PEER_PB_PAGES	1024		/* perf buffer: 4 MiB per CPU */
#define FTRACE_BUF_KB	8192		/* ftrace / trace-cmd: 8 MiB per CPU */
#define LOOP_PAYLOADS	4
#define MAX_LADDER	16
#define LADDER_EVENTS	4		/* per call: raw_syscalls enter/exit, the call's enter/exit */

/* --- Options and state ------------------------------------------------------ */

static struct {
	int rounds;
	long calls;
	long loop_records;
	long sat_calls;
	double ladder[MAX_LADDER];	/* offered events/s; 0: as fast as the threads can */
	int nladder;
	double ladder_secs;
	int quick;
	char tracer[PATH_MAX];
	const char *csv;
} opt = { .rounds = 5, .calls = 1000000, .loop_records = 2000000, .sat_calls = 4000000,
	  .ladder = { 0.5e6, 1e6, 2e6, 3e6, 4e6, 0 }, .nladder = 6, .ladder_secs = 1 };

/*
 * The generator's system call: getppid by default; another argument-less
 * one (same 12-byte raw record) when getppid's tracepoint is taken.
 */
static const struct { const char *name; long nr; } syscalls_known[] = {
	{ "getppid", SYS_getppid }, { "getpid", SYS_getpid },
	{ "getuid", SYS_getuid }, { "getgid", SYS_getgid },
};
static const char *sys_name = "getppid";
static long sys_nr = SYS_getppid;
static char event_name[64] = "sys_enter_getppid";
static char event_spec[96] = "syscalls:sys_enter_getppid";
static char exit_spec[96] = "syscalls:sys_exit_getppid";

static int ncpu;
static int opt_diag;
static const char *only;		/* --only: configurations of part 1 */
static bool key_listed(const char *list, const char *key);
static char tmpdir[256];
static int tracefs_mounted_by_us;
static volatile sig_atomic_t interrupted;
static pid_t child_pid;			/* tracer, perf or trace-cmd while running */

/* Threads of the current generator run: records of theirs are "ours". */
static volatile pid_t cur_tid[MAX_THREADS];
static volatile int cur_ntid;

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

static void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* Which generator thread the pid is, or -1. */
static int our_index(int pid)
{
	int i, n = cur_ntid;

	for (i = 0; i < n; i++)
		if (pid == cur_tid[i])
			return i;
	return -1;
}

static bool is_ours(int pid)
{
	return our_index(pid) >= 0;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* The file's text, without the trailing newline; "" when unreadable. */
static char *read_str(const char *path, char *buf, size_t len)
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

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)type;
	(void)f;
	return remove(path);
}

static void rm_rf(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	if (n <= 0)
		return 0;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double vmin(const double *v, int n)
{
	double m = v[0];

	while (--n > 0)
		m = v[n] < m ? v[n] : m;
	return m;
}

static double vmax(const double *v, int n)
{
	double m = v[0];

	while (--n > 0)
		m = v[n] > m ? v[n] : m;
	return m;
}

/* --- Subprocesses ------------------------------------------------------------ */

/* Run argv with stdout and stderr into log; it gets SIGINT if we die. */
static pid_t spawn(char *const argv[], const char *log)
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

/* Wait for the child, SIGKILL after timeout_ms; its wait status or -1. */
static int reap(pid_t pid, int timeout_ms)
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
		char path[64], buf[512], *p;
		int pgrp;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		read_str(path, buf, sizeof(buf));
		p = strrchr(buf, ')');
		if (p && sscanf(p + 2, "%*c %*d %d", &pgrp) == 1 && pgrp == pgid) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, WNOHANG);
		}
	}
	if (d)
		closedir(d);
}

static void stop_child(int sig, int timeout_ms, int *status)
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

static bool child_alive(pid_t pid, int *status)
{
	return waitpid(pid, status, WNOHANG) == 0;
}

/* Does the process hold a BPF link (has a recorder attached)? */
static int count_bpf_links(pid_t pid)
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

static void log_tail(const char *log, const char *indent)
{
	char buf[2048];
	FILE *f = fopen(log, "r");

	while (f && fgets(buf, sizeof(buf), f))
		progress("%s%s", indent, buf);
	if (f)
		fclose(f);
}

/* --- Machine state ------------------------------------------------------------ */

static double loadavg1(void)
{
	char buf[128];

	return atof(read_str("/proc/loadavg", buf, sizeof(buf)));
}

/* CPU ticks (utime + stime) of a process, or -1. */
static long proc_ticks(pid_t pid, char *comm, size_t len)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	read_str(path, buf, sizeof(buf));
	p = strrchr(buf, ')');
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
#define DISTURBED	0.05		/* of one CPU, over the run */
#define MAX_ATTEMPTS	2

struct cpu_sample {
	unsigned long long busy, steal, ours;
	__u64 t;
};

static void cpu_sample(struct cpu_sample *s)
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
		char path[64], *p;
		int pgrp;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		read_str(path, buf, sizeof(buf));
		p = strrchr(buf, ')');
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

/* CPUs' worth of time others used between a and b (others), and steal. */
static void cpu_others(const struct cpu_sample *a, const struct cpu_sample *b, double *others,
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

static bool foreign_program;
static double loadavg_start;

static void machine_state(FILE *out)
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

/* --- tracefs ---------------------------------------------------------------------- */

static char instance[256];		/* our ftrace instance, if made */
static int ftrace_event_id;

struct tracefs_setting {
	const char *file;
	char value[128];
	bool saved;
};
#define SETTING(f)	{ .file = (f), .value = "", .saved = false }

static char event_enable_file[128] = "events/syscalls/sys_enter_getppid/enable";

/* Top-level files trace-cmd touches: restored after it, even on failure. */
static struct tracefs_setting top_settings[] = {
	SETTING("tracing_on"), SETTING("buffer_size_kb"), SETTING("current_tracer"),
	SETTING(event_enable_file), SETTING("options/function-trace"),
	SETTING("options/overwrite"), SETTING("trace_clock"),
};
static bool top_saved;

static void save_top_tracefs(void)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(top_settings) / sizeof(top_settings[0]); i++) {
		snprintf(path, sizeof(path), TRACEFS "/%s", top_settings[i].file);
		read_str(path, top_settings[i].value, sizeof(top_settings[i].value));
		top_settings[i].saved = top_settings[i].value[0] != 0;
	}
	top_saved = true;
}

/* "7 (expanded: 1408)" -> "1408"; "[local] global" -> "local". */
static void setting_value(const char *file, const char *text, char *out, size_t len)
{
	const char *p;

	if (!strcmp(file, "buffer_size_kb") && (p = strstr(text, "expanded: ")))
		snprintf(out, len, "%ld", atol(p + 10));
	else if ((p = strchr(text, '[')))
		snprintf(out, len, "%.*s", (int)strcspn(p + 1, "]"), p + 1);
	else
		snprintf(out, len, "%s", text);
}

static void restore_top_tracefs(void)
{
	char path[PATH_MAX], cur[128], want[128], now[128];
	size_t i;

	if (!top_saved)
		return;
	for (i = 0; i < sizeof(top_settings) / sizeof(top_settings[0]); i++) {
		if (!top_settings[i].saved)
			continue;
		snprintf(path, sizeof(path), TRACEFS "/%s", top_settings[i].file);
		read_str(path, cur, sizeof(cur));
		if (!strcmp(cur, top_settings[i].value))
			continue;
		setting_value(top_settings[i].file, top_settings[i].value, want, sizeof(want));
		setting_value(top_settings[i].file, cur, now, sizeof(now));
		if (strcmp(want, now) && write_str(path, want))
			progress("warning: could not restore %s to %s\n", path, want);
	}
}

static bool tracefs_is_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " " TRACEFS " tracefs "))
			found = true;
	if (f)
		fclose(f);
	return found;
}

static int ensure_tracefs(void)
{
	if (tracefs_is_mounted())
		return 0;
	if (mount("nodev", TRACEFS, "tracefs", 0, NULL))
		return -errno;
	tracefs_mounted_by_us = 1;
	return 0;
}

/* Instances left by a killed run of this benchmark: remove them. */
static void remove_stale_instances(void)
{
	DIR *d = opendir(TRACEFS "/instances");
	struct dirent *de;
	char path[PATH_MAX], proc[64];

	while (d && (de = readdir(d))) {
		int pid;

		if (sscanf(de->d_name, "tracepoint_bench_%d", &pid) != 1)
			continue;
		snprintf(proc, sizeof(proc), "/proc/%d", pid);
		if (pid == getpid() || access(proc, F_OK) == 0)
			continue;
		snprintf(path, sizeof(path), TRACEFS "/instances/%s/events/enable", de->d_name);
		write_str(path, "0");
		snprintf(path, sizeof(path), TRACEFS "/instances/%s", de->d_name);
		if (rmdir(path) == 0)
			progress("removed a stale ftrace instance %s\n", path);
	}
	if (d)
		closedir(d);
}

/* Temporary directories of killed runs (their owner's pid is in "pid"). */
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

/* --- The generator -------------------------------------------------------------- */

/*
 * Calls per second per thread, 0 for as fast as it can: a throttled thread
 * makes a batch of calls per tick of about 1 ms, then sleeps until the
 * next tick (not at all when it is behind).
 */
static double gen_rate;

struct gen {
	int nthreads;
	long calls;
	long batch;			/* calls per tick */
	__u64 tick_ns;			/* 0: not throttled */
	pthread_barrier_t ready;
	__u64 start[MAX_THREADS], end[MAX_THREADS];
	long done[MAX_THREADS];
};

struct gen_thread {
	struct gen *g;
	int index;
};

static void *gen_run(void *p)
{
	struct gen_thread *t = p;
	struct gen *g = t->g;
	struct timespec tick;
	__u64 next;
	long i, j;

	pin_self(t->index % ncpu);
	cur_tid[t->index] = gettid();
	pthread_barrier_wait(&g->ready);
	g->start[t->index] = next = now_ns();
	for (i = 0; i < g->calls && !interrupted; i += g->batch) {
		long n = g->calls - i < g->batch ? g->calls - i : g->batch;

		for (j = 0; j < n; j++)
			syscall(sys_nr);
		if (g->tick_ns) {
			next += g->tick_ns;
			tick = (struct timespec){ next / 1000000000, next % 1000000000 };
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &tick, NULL);
		}
	}
	g->end[t->index] = now_ns();
	g->done[t->index] = i < g->calls ? i : g->calls;
	return NULL;
}

/* Wall ns per call per thread: first start to last end over the calls of one thread. */
static double generate(int nthreads, long calls)
{
	struct gen g = { .nthreads = nthreads, .calls = calls, .batch = 1024 };
	struct gen_thread t[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	__u64 start = ~0ull, end = 0;
	int i;

	if (gen_rate > 0) {
		g.batch = gen_rate / 1000 < 1 ? 1 : (long)(gen_rate / 1000 + 0.5);
		g.tick_ns = g.batch * 1e9 / gen_rate;
	}
	cur_ntid = nthreads;
	pthread_barrier_init(&g.ready, NULL, nthreads);
	for (i = 0; i < nthreads; i++) {
		t[i] = (struct gen_thread){ &g, i };
		pthread_create(&th[i], NULL, gen_run, &t[i]);
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		start = g.start[i] < start ? g.start[i] : start;
		end = g.end[i] > end ? g.end[i] : end;
	}
	pthread_barrier_destroy(&g.ready);
	return (double)(end - start) / calls;
}

/* --- Configurations --------------------------------------------------------------- */

struct run_result {
	double ns;
	long long expected;		/* system calls of all threads */
	long long ours;			/* of them, records found */
	long long total;		/* records found, of any process */
	long long lost;			/* the mechanism's own loss count */
	double others, steal;		/* CPUs used by others, stolen, during the run */
	int attempts;
	bool counted;			/* ours/total are known */
	bool lost_known;
	bool failed;
	char note[160];
};

struct config {
	const char *key;
	const char *label;
	int (*setup)(struct config *c);		/* once; 0 or -errno (then skipped) */
	int (*start)(void);			/* before each run */
	void (*stop)(struct run_result *r);	/* after each run */
	bool available;
	char why[512];				/* why not available, or a remark */
};

static struct bench_peers *peers;
static struct bpf_link *cur_link;

static void stop_link(struct run_result *r)
{
	(void)r;
	bpf_link__destroy(cur_link);
	cur_link = NULL;
}

static struct tr_bpfbuf peer_bufs;	/* bp_tracer_loop's regions */

static int peers_setup(void)
{
	struct trb_config cfg = { .subbuf_size = 1 << 20, .nsubbuf = 4, .mode = TR_MODE_OVERWRITE };
	int err;

	if (peers)
		return 0;
	peers = bench_peers__open();
	if (!peers)
		return -errno;
	TR_BPFBUF_SET_GEOMETRY(peers->rodata, &cfg, 1, ncpu);
	err = tr_bpfbuf_size_map(peers->maps.trb_regions, &cfg, 1, ncpu);
	if (err) {
		bench_peers__destroy(peers);
		peers = NULL;
		return err;
	}
	bpf_map__set_max_entries(peers->maps.bp_rb, PEER_RB_BYTES);
	bpf_map__set_max_entries(peers->maps.bp_rb_loop, PEER_RB_BYTES);
	bpf_map__set_max_entries(peers->maps.bp_pages, ncpu);
	err = bench_peers__load(peers);
	if (!err)
		err = tr_bpfbuf_open(&peer_bufs, peers->maps.trb_regions, &cfg, 1, ncpu,
				     tr_clock_monotonic_ns);
	if (err) {
		bench_peers__destroy(peers);
		peers = NULL;
	}
	return err;
}

/* none */

static int none_start(void)
{
	return 0;
}

static void none_stop(struct run_result *r)
{
	(void)r;
}

/* empty BPF program */

static int empty_setup(struct config *c)
{
	int err = peers_setup();

	if (err)
		snprintf(c->why, sizeof(c->why), "bench_peers does not load: %s", strerror(-err));
	return err;
}

static int empty_start(void)
{
	cur_link = bpf_program__attach_tracepoint(peers->progs.bp_empty, EVENT_SYSTEM, event_name);
	return cur_link ? 0 : -errno;
}

/* Consumers of BPF ringbuf and perf buffer: a thread draining every 1 ms into a file. */

struct consumer {
	pthread_t thread;
	volatile int stop;
	int (*consume)(void);
	int fd;
	char *buf;
	size_t used;
	long long total, ours, lost, write_errors;
};

#define CONSUMER_BUF	(1u << 20)

static struct consumer cons;
static struct ring_buffer *peer_rb;
static struct perf_buffer *peer_pb;

static void consumer_take(const void *data, size_t size)
{
	const char *rec = data;

	cons.total++;
	if (size >= 24 && is_ours(*(const int *)(rec + 16 + 4)))
		cons.ours++;
	if (cons.used + size > CONSUMER_BUF) {
		if (write(cons.fd, cons.buf, cons.used) < 0)
			cons.write_errors++;
		cons.used = 0;
	}
	memcpy(cons.buf + cons.used, data, size);
	cons.used += size;
}

static int rb_sample(void *ctx, void *data, size_t size)
{
	(void)ctx;
	consumer_take(data, size);
	return 0;
}

static enum bpf_perf_event_ret pb_event(void *ctx, int cpu, struct perf_event_header *e)
{
	(void)ctx;
	(void)cpu;
	if (e->type == PERF_RECORD_SAMPLE) {
		__u32 size = *(__u32 *)(e + 1);

		consumer_take((char *)(e + 1) + 4, size);
	} else if (e->type == PERF_RECORD_LOST) {
		cons.lost += ((__u64 *)(e + 1))[1];
	}
	return LIBBPF_PERF_EVENT_CONT;
}

static int rb_consume(void)
{
	return ring_buffer__consume(peer_rb);
}

static int pb_consume(void)
{
	return perf_buffer__consume(peer_pb);
}

static void *consumer_run(void *p)
{
	(void)p;
	while (!cons.stop) {
		cons.consume();
		sleep_ms(1);
	}
	cons.consume();
	return NULL;
}

static int consumer_start(int (*consume)(void), const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, file);
	cons.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (cons.fd < 0)
		return -errno;
	unlink(path);
	cons.consume = consume;
	cons.stop = 0;
	cons.used = 0;
	consume();		/* anything left from before */
	cons.used = 0;
	cons.total = cons.ours = cons.lost = cons.write_errors = 0;
	return -pthread_create(&cons.thread, NULL, consumer_run, NULL);
}

static void consumer_stop(struct run_result *r)
{
	cons.stop = 1;
	pthread_join(cons.thread, NULL);
	if (cons.used && write(cons.fd, cons.buf, cons.used) < 0)
		cons.write_errors++;
	if (cons.write_errors)
		snprintf(r->note, sizeof(r->note), "the consumer's file writes failed %lld times",
			 cons.write_errors);
	close(cons.fd);
	r->counted = true;
	r->ours = cons.ours;
	r->total = cons.total;
}

static __u64 bpf_lost_before;

static int ringbuf_setup(struct config *c)
{
	int err = peers_setup();

	if (!err) {
		peer_rb = ring_buffer__new(bpf_map__fd(peers->maps.bp_rb), rb_sample, NULL, NULL);
		err = peer_rb ? 0 : -errno;
	}
	if (!cons.buf)
		cons.buf = malloc(CONSUMER_BUF);
	if (err)
		snprintf(c->why, sizeof(c->why), "BPF ringbuf: %s", strerror(-err));
	return err;
}

/* Start a peer's consumer, then attach its program; lost is its counter now. */
static int peer_start(__u64 lost, int (*consume)(void), const char *file,
		      const struct bpf_program *prog)
{
	int err;

	bpf_lost_before = lost;
	err = consumer_start(consume, file);
	if (err)
		return err;
	cur_link = bpf_program__attach_tracepoint(prog, EVENT_SYSTEM, event_name);
	if (!cur_link) {
		err = -errno;
		cons.stop = 1;
		pthread_join(cons.thread, NULL);
		close(cons.fd);
	}
	return err;
}

static int ringbuf_start(void)
{
	return peer_start(peers->bss->bp_rb_lost, rb_consume, "ringbuf.out",
			  peers->progs.bp_ringbuf);
}

static void ringbuf_stop(struct run_result *r)
{
	stop_link(r);
	consumer_stop(r);
	r->lost = peers->bss->bp_rb_lost - bpf_lost_before;
	r->lost_known = true;
}

static int perfbuf_setup(struct config *c)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		.watermark = 1,
		.wakeup_watermark = PEER_PB_PAGES * 4096 / 2,
	};
	int err = peers_setup();

	if (!err) {
		peer_pb = perf_buffer__new_raw(bpf_map__fd(peers->maps.bp_pb), PEER_PB_PAGES,
					       &attr, pb_event, NULL, NULL);
		err = peer_pb ? 0 : -errno;
	}
	if (!cons.buf)
		cons.buf = malloc(CONSUMER_BUF);
	if (err)
		snprintf(c->why, sizeof(c->why), "perf buffer: %s", strerror(-err));
	return err;
}

static int perfbuf_start(void)
{
	return peer_start(peers->bss->bp_pb_lost, pb_consume, "perfbuf.out",
			  peers->progs.bp_perfbuf);
}

static void perfbuf_stop(struct run_result *r)
{
	stop_link(r);
	consumer_stop(r);
	/* Each record the kernel could not store is counted by both sides. */
	r->lost = cons.lost > (long long)(peers->bss->bp_pb_lost - bpf_lost_before) ?
		  cons.lost : (long long)(peers->bss->bp_pb_lost - bpf_lost_before);
	r->lost_known = true;
}

/* The tracer CLI as a subprocess. */

static char tracer_out[320], tracer_log[320];

/* What tracer record records: the measured event, or part 4's events. */
static const char *tracer_events[LADDER_EVENTS] = { event_spec };
static int tracer_nevents = 1;
/* --filter of the first event (the filter diagnostics), or NULL. */
static const char *tracer_filter;

static int tracer_setup(struct config *c)
{
	if (access(opt.tracer, X_OK)) {
		snprintf(c->why, sizeof(c->why), "%.300s: %s (build it: make -C /work/main all)",
			 opt.tracer, strerror(errno));
		return -ENOENT;
	}
	snprintf(tracer_out, sizeof(tracer_out), "%s/tracer.data", tmpdir);
	snprintf(tracer_log, sizeof(tracer_log), "%s/tracer.log", tmpdir);
	return 0;
}

/*
 * Wait in 5 ms steps, at most `tries` of them, until ready(arg) says the
 * child (child_pid) has attached; if it exits first, show its log's end.
 */
static int await_attached(bool (*ready)(const void *arg), const void *arg,
			  const char *what, const char *log, int tries)
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

static bool holds_bpf_link(const void *unused)
{
	(void)unused;
	return count_bpf_links(child_pid) > 0;
}

/* Start the CLI, wait until its program is attached; it consumes to disk until SIGINT. */
static int tracer_start(void)
{
	char *argv[10 + 2 * LADDER_EVENTS];
	int i, n = 0;

	argv[n++] = opt.tracer;
	argv[n++] = "record";
	for (i = 0; i < tracer_nevents; i++) {
		argv[n++] = "-e";
		argv[n++] = (char *)tracer_events[i];
		if (!i && tracer_filter) {
			argv[n++] = "--filter";
			argv[n++] = (char *)tracer_filter;
		}
	}
	argv[n++] = "-a";
	argv[n++] = "-o";
	argv[n++] = tracer_out;
	argv[n++] = "--force";
	argv[n] = NULL;

	child_pid = spawn(argv, tracer_log);
	if (child_pid < 0)
		return -errno;
	return await_attached(holds_bpf_link, NULL, "tracer record", tracer_log, 3000);
}

/*
 * Is the record one of our threads' calls?  Every event recorded here has
 * the common fields (pid at offset 4) and then the system call's number at
 * offset 8 (raw_syscalls' long id, syscalls' int __syscall_nr): the
 * threads' other calls (clock_nanosleep when throttled) are not counted.
 */
static bool is_our_call(const struct tr_event_header *e)
{
	const char *raw = (const char *)(e + 1);

	return e->size >= 12 && is_ours(*(const int *)(raw + 4)) && *(const int *)(raw + 8) == sys_nr;
}

/* Records in the trace's stream files: all, and those of our threads' calls. */
static void count_tracer_trace(const char *dir, long long *total, long long *ours)
{
	char path[PATH_MAX];
	int cpu;

	*total = *ours = 0;
	for (cpu = 0; cpu < ncpu; cpu++) {
		struct stat st;
		char *map;
		size_t off = 0;
		int fd;

		snprintf(path, sizeof(path), "%s/channel0_%d", dir, cpu);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) || st.st_size == 0) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (map == MAP_FAILED)
			continue;
		while (off + sizeof(struct tr_packet_header) <= (size_t)st.st_size) {
			const struct tr_packet_header *h = (const void *)(map + off);
			size_t psize = h->packet_size / 8;
			const struct tr_event_header *e;
			struct tr_packet_iter it;
			const char *problem;

			if (h->magic != TR_PACKET_MAGIC || !psize || off + psize > (size_t)st.st_size)
				break;
			if (!tr_packet_header_problem(h, TR_MAX_SUBBUF_SIZE)) {
				tr_packet_iter_init(&it, h);
				while ((e = tr_packet_next(&it, &problem))) {
					(*total)++;
					*ours += is_our_call(e);
				}
			}
			off += psize;
		}
		munmap(map, st.st_size);
	}
}

static void tracer_stop(struct run_result *r)
{
	char line[512];
	int status = -1;
	unsigned long events;
	FILE *f;

	stop_child(SIGINT, 60000, &status);
	f = fopen(tracer_log, "r");
	r->lost_known = f != NULL;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long full, wrap, big, busy, over;
		unsigned int cpu;

		if (sscanf(line, "tracer record: %lu events", &events) == 1)
			continue;
		if (sscanf(line, " cpu %u lost: %llu buffer full, %llu not yet committed, %llu too big, %llu busy, %llu overwritten",
			   &cpu, &full, &wrap, &big, &busy, &over) == 6)
			r->lost += full + wrap + big + busy + over;
	}
	if (f)
		fclose(f);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		r->failed = true;
		snprintf(r->note, sizeof(r->note), "tracer record exit status %d", status);
		log_tail(tracer_log, "  tracer: ");
	}
	count_tracer_trace(tracer_out, &r->total, &r->ours);
	r->counted = true;
	rm_rf(tracer_out);
}

/* The tracer's BPF program alone, in this process: overwrite mode, no reader. */

static struct record *rec_skel;
static struct tr_bpfbuf rec_bufs;

static int tracer_prog_setup(struct config *c)
{
	const char *specs[] = { event_spec };
	struct trb_config cfg = { .subbuf_size = 1 << 20, .nsubbuf = 4, .mode = TR_MODE_OVERWRITE };
	struct tr_event_set set = { 0 };
	char why[512];
	__u32 key = 0;
	int err;

	err = tr_events_resolve(&set, specs, NULL, NULL, 1, why, sizeof(why));
	if (err) {
		snprintf(c->why, sizeof(c->why), "%s", why);
		return err;
	}
	rec_skel = record__open();
	if (!rec_skel) {
		err = -errno;
		goto out;
	}
	TR_BPFBUF_SET_GEOMETRY(rec_skel->rodata, &cfg, 1, ncpu);
	rec_skel->rodata->tr_self_tgid = 0;	/* the generator is this process */
	err = tr_bpfbuf_size_map(rec_skel->maps.trb_regions, &cfg, 1, ncpu);
	if (!err)
		err = bpf_map__set_max_entries(rec_skel->maps.tr_cpus, ncpu);
	bpf_program__set_autoload(rec_skel->progs.tr_follow_fork, false);
	if (!err)
		err = record__load(rec_skel);
	if (!err)
		err = bpf_map__update_elem(rec_skel->maps.tr_events, &key, sizeof(key),
					   &set.events[0].shape, sizeof(set.events[0].shape), BPF_ANY);
	if (!err)
		err = tr_bpfbuf_open(&rec_bufs, rec_skel->maps.trb_regions, &cfg, 1, ncpu,
				     tr_clock_monotonic_ns);
out:
	if (err) {
		snprintf(c->why, sizeof(c->why), "record.bpf.c does not load: %s", strerror(-err));
		record__destroy(rec_skel);
		rec_skel = NULL;
	}
	tr_events_free(&set);
	return err;
}

static int tracer_prog_start(void)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, topts, .bpf_cookie = 0);

	cur_link = bpf_program__attach_tracepoint_opts(rec_skel->progs.tr_tracepoint,
						       EVENT_SYSTEM, event_name, &topts);
	return cur_link ? 0 : -errno;
}

/* perf record -a, to a file, enabled through its control FIFO once ready. */

static char perf_data[PATH_MAX], perf_log[PATH_MAX], perf_ctl[PATH_MAX], perf_ack[PATH_MAX];

static int perf_setup(struct config *c)
{
	char *argv[] = { "perf", "--version", NULL };
	char log[PATH_MAX];
	int status;
	pid_t pid;

	snprintf(log, sizeof(log), "%s/perf-version.log", tmpdir);
	pid = spawn(argv, log);
	status = reap(pid, 10000);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(c->why, sizeof(c->why), "perf does not run (apt-get install -y linux-perf)");
		return -ENOENT;
	}
	snprintf(perf_data, sizeof(perf_data), "%s/perf.data", tmpdir);
	snprintf(perf_log, sizeof(perf_log), "%s/perf.log", tmpdir);
	snprintf(perf_ctl, sizeof(perf_ctl), "%s/perf.ctl", tmpdir);
	snprintf(perf_ack, sizeof(perf_ack), "%s/perf.ack", tmpdir);
	if (mkfifo(perf_ctl, 0600) || mkfifo(perf_ack, 0600)) {
		snprintf(c->why, sizeof(c->why), "mkfifo: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static int perf_start(void)
{
	char control[2 * PATH_MAX + 16], ack[8] = "";
	char *argv[] = { "perf", "record", "-e", event_spec, "-a", "-o", perf_data,
			 "--no-buildid", "-D", "-1", "--control", control, NULL };
	int ctl = open(perf_ctl, O_RDWR | O_CLOEXEC), ackfd = open(perf_ack, O_RDWR | O_CLOEXEC);
	struct pollfd p = { .fd = ackfd, .events = POLLIN };
	int err = 0, waited, status;

	snprintf(control, sizeof(control), "fifo:%s,%s", perf_ctl, perf_ack);
	if (ctl < 0 || ackfd < 0) {
		err = -errno;
		goto out;
	}
	child_pid = spawn(argv, perf_log);
	if (write(ctl, "enable\n", 7) != 7) {
		err = -errno;
		goto out;
	}
	for (waited = 0; waited < 30000; waited += 50) {
		if (poll(&p, 1, 50) == 1) {
			if (read(ackfd, ack, sizeof(ack) - 1) <= 0 || strncmp(ack, "ack", 3))
				err = -EPROTO;
			goto out;
		}
		if (!child_alive(child_pid, &status)) {
			child_pid = 0;
			progress("\nperf record exited:\n");
			log_tail(perf_log, "  ");
			err = -ECHILD;
			goto out;
		}
	}
	err = -ETIMEDOUT;
out:
	if (ctl >= 0)
		close(ctl);
	if (ackfd >= 0)
		close(ackfd);
	if (err)
		stop_child(SIGKILL, 1000, NULL);
	return err;
}

struct perf_file_section {
	__u64 offset, size;
};

struct perf_file_header {
	__u64 magic, size, attr_size;
	struct perf_file_section attrs, data, event_types;
	__u64 flags[4];
};

struct times {
	__u64 *t;
	size_t n, cap;
};

static void times_add(struct times *v, __u64 t)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 1 << 20;
		v->t = realloc(v->t, v->cap * sizeof(*v->t));
	}
	v->t[v->n++] = t;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static size_t times_distinct(struct times *v)
{
	size_t i, n = 0;

	qsort(v->t, v->n, sizeof(*v->t), cmp_u64);
	for (i = 0; i < v->n; i++)
		n += !i || v->t[i] != v->t[i - 1];
	return n;
}

/*
 * Samples in perf.data: all, and ours counted once each (perf 6.1 on this
 * kernel writes some samples twice when its buffer overflows: a thread's
 * samples have distinct timestamps, so duplicates are dropped by time).
 * Lost: the kernel's LOST records and perf's LOST_SAMPLES count the same
 * samples; the larger is taken.
 */
static int parse_perf_data(const char *path, struct run_result *r)
{
	struct times ours[MAX_THREADS] = { 0 };
	long long lost_records = 0, lost_samples = 0, dup = 0;
	const struct perf_file_header *h;
	__u64 sample_type, off, end;
	int i;
	struct stat st;
	char *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size < sizeof(*h)) {
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	h = (const void *)map;
	if (memcmp(&h->magic, "PERFILE2", 8) || h->attrs.offset + 32 > (__u64)st.st_size) {
		munmap(map, st.st_size);
		return -EINVAL;
	}
	sample_type = *(const __u64 *)(map + h->attrs.offset + 24);
	off = h->data.offset;
	end = h->data.size ? off + h->data.size : (__u64)st.st_size;
	end = end > (__u64)st.st_size ? (__u64)st.st_size : end;
	while (off + sizeof(struct perf_event_header) <= end) {
		const struct perf_event_header *e = (const void *)(map + off);
		const char *p = (const char *)(e + 1);

		if (e->size < sizeof(*e) || off + e->size > end)
			break;
		if (e->type == PERF_RECORD_SAMPLE) {
			int who = -1;

			r->total++;
			p += sample_type & PERF_SAMPLE_IDENTIFIER ? 8 : 0;
			p += sample_type & PERF_SAMPLE_IP ? 8 : 0;
			if (sample_type & PERF_SAMPLE_TID) {
				who = our_index(((const __u32 *)p)[1]);
				p += 8;
			}
			if (who >= 0)
				times_add(&ours[who], sample_type & PERF_SAMPLE_TIME ?
					  *(const __u64 *)p : ours[who].n);
		} else if (e->type == PERF_RECORD_LOST) {
			lost_records += ((const __u64 *)p)[1];
		} else if (e->type == PERF_RECORD_LOST_SAMPLES) {
			lost_samples += ((const __u64 *)p)[0];
		}
		off += e->size;
	}
	munmap(map, st.st_size);
	for (i = 0; i < MAX_THREADS; i++) {
		size_t n = times_distinct(&ours[i]);

		dup += ours[i].n - n;
		r->ours += n;
		free(ours[i].t);
	}
	r->total -= dup;
	r->lost = lost_records > lost_samples ? lost_records : lost_samples;
	if (dup)
		snprintf(r->note, sizeof(r->note), "perf.data holds %lld duplicate samples of ours (counted once)",
			 dup);
	r->counted = true;
	r->lost_known = true;
	return 0;
}

static void perf_stop(struct run_result *r)
{
	int status = -1;

	stop_child(SIGINT, 120000, &status);
	if (parse_perf_data(perf_data, r)) {
		r->failed = true;
		snprintf(r->note, sizeof(r->note), "perf.data unreadable (perf status %d)", status);
		log_tail(perf_log, "  perf: ");
	}
	if (r->counted && r->total == 0 && r->expected)
		snprintf(r->note, sizeof(r->note),
			 "0 samples: another BPF program on this tracepoint that returns 0 suppresses perf samples");
	unlink(perf_data);
}

/* The kernel's ftrace ring buffer, in our own tracefs instance, with a reader per CPU. */

struct ftrace_reader {
	pthread_t thread;
	int cpu, fd, out;
	long long total, ours;
	int error;
};

static struct ftrace_reader readers[64];
static volatile int readers_stop;
static long ftrace_page;

static void ftrace_count_page(struct ftrace_reader *rd, const char *page, size_t n)
{
	__u64 commit;
	const char *q, *end;

	if (n < 16)
		return;
	commit = *(const __u64 *)(page + 8) & ((1ull << 30) - 1);
	q = page + 16;
	end = q + (commit < n - 16 ? commit : n - 16);
	while (q + 4 <= end) {
		__u32 h = *(const __u32 *)q, type_len = h & 31, delta = h >> 5;
		const char *data = NULL;
		size_t len;

		if (type_len == 29) {			/* padding */
			if (!delta || q + 8 > end)
				break;
			len = 4 + *(const __u32 *)(q + 4);
		} else if (type_len >= 30) {		/* time extend, time stamp */
			len = 8;
		} else if (type_len == 0) {
			if (q + 8 > end)
				break;
			len = 4 + *(const __u32 *)(q + 4);
			data = q + 8;
		} else {
			len = 4 + type_len * 4;
			data = q + 4;
		}
		if (data && data + 8 <= end && *(const __u16 *)data == ftrace_event_id) {
			rd->total++;
			if (is_ours(*(const int *)(data + 4)))
				rd->ours++;
		}
		if (len < 4)
			break;
		q += (len + 3) & ~3ul;
	}
}

static void *ftrace_read(void *p)
{
	struct ftrace_reader *rd = p;
	size_t cap = 1 << 20, used = 0;
	char *buf = malloc(cap);

	for (;;) {
		ssize_t n;

		if (used + ftrace_page > cap) {
			if (write(rd->out, buf, used) < 0)
				rd->error = errno;
			used = 0;
		}
		n = read(rd->fd, buf + used, ftrace_page);
		if (n > 0) {
			ftrace_count_page(rd, buf + used, n);
			used += n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			rd->error = errno;
			break;
		}
		if (readers_stop)
			break;		/* disabled first, so empty now means done */
		sleep_ms(1);
	}
	if (used && write(rd->out, buf, used) < 0)
		rd->error = errno;
	free(buf);
	return NULL;
}

static long long ftrace_lost_now(void)
{
	char path[PATH_MAX], line[256];
	long long lost = 0;
	int cpu;

	for (cpu = 0; cpu < ncpu; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", instance, cpu);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			long long v;

			if (sscanf(line, "overrun: %lld", &v) == 1 ||
			    sscanf(line, "dropped events: %lld", &v) == 1)
				lost += v;
		}
		if (f)
			fclose(f);
	}
	return lost;
}

static int ftrace_setup(struct config *c)
{
	char path[PATH_MAX], buf[64];

	snprintf(instance, sizeof(instance), TRACEFS "/instances/tracepoint_bench_%d", getpid());
	if (mkdir(instance, 0755) && errno != EEXIST) {
		snprintf(c->why, sizeof(c->why), "cannot create an ftrace instance: %s", strerror(errno));
		instance[0] = 0;
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/buffer_size_kb", instance);
	snprintf(buf, sizeof(buf), "%d", FTRACE_BUF_KB);
	write_str(path, buf);
	snprintf(path, sizeof(path), TRACEFS "/events/%s/%s/id", EVENT_SYSTEM, event_name);
	ftrace_event_id = atoi(read_str(path, buf, sizeof(buf)));
	snprintf(path, sizeof(path), "%s/buffer_subbuf_size_kb", instance);
	ftrace_page = atol(read_str(path, buf, sizeof(buf))) * 1024;
	if (ftrace_page <= 0)
		ftrace_page = sysconf(_SC_PAGESIZE);
	return ftrace_event_id > 0 ? 0 : -ENOENT;
}

static long long ftrace_lost_before;

static int ftrace_enable(int on)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events/%s/%s/enable", instance, EVENT_SYSTEM, event_name);
	return write_str(path, on ? "1" : "0");
}

static int ftrace_start(void)
{
	char path[PATH_MAX];
	int cpu;

	ftrace_lost_before = ftrace_lost_now();
	readers_stop = 0;
	for (cpu = 0; cpu < ncpu; cpu++) {
		struct ftrace_reader *rd = &readers[cpu];

		*rd = (struct ftrace_reader){ .cpu = cpu };
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", instance, cpu);
		rd->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		snprintf(path, sizeof(path), "%s/ftrace.cpu%d", tmpdir, cpu);
		rd->out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		unlink(path);
		if (rd->fd < 0 || rd->out < 0)
			return -errno;
		pthread_create(&rd->thread, NULL, ftrace_read, rd);
	}
	return ftrace_enable(1);
}

static void ftrace_stop(struct run_result *r)
{
	int cpu;

	ftrace_enable(0);
	readers_stop = 1;
	for (cpu = 0; cpu < ncpu; cpu++) {
		struct ftrace_reader *rd = &readers[cpu];

		pthread_join(rd->thread, NULL);
		close(rd->fd);
		close(rd->out);
		rd->fd = rd->out = -1;
		r->total += rd->total;
		r->ours += rd->ours;
		if (rd->error)
			snprintf(r->note, sizeof(r->note), "reader cpu%d: %s", cpu, strerror(rd->error));
	}
	r->counted = true;
	r->lost = ftrace_lost_now() - ftrace_lost_before;
	r->lost_known = true;
}

static void ftrace_teardown(void)
{
	char path[PATH_MAX];
	int cpu;

	if (!instance[0])
		return;
	ftrace_enable(0);
	for (cpu = 0; cpu < ncpu && cpu < 64; cpu++)
		if (readers[cpu].fd > 0)
			close(readers[cpu].fd);
	snprintf(path, sizeof(path), "%s/events/enable", instance);
	write_str(path, "0");
	if (rmdir(instance))
		progress("warning: cannot remove %s: %s\n", instance, strerror(errno));
	instance[0] = 0;
}

/* trace-cmd record, if it runs on this kernel. */

static char tc_data[PATH_MAX], tc_log[PATH_MAX], tc_error[256];

static int trace_cmd_setup(struct config *c)
{
	char *argv[] = { "trace-cmd", "record", "-e", event_spec, "-o", tc_data, "true", NULL };
	char line[256];
	int status;
	FILE *f;

	snprintf(tc_data, sizeof(tc_data), "%s/trace-cmd-probe.dat", tmpdir);
	snprintf(tc_log, sizeof(tc_log), "%s/trace-cmd.log", tmpdir);
	save_top_tracefs();
	status = reap(spawn(argv, tc_log), 30000);
	restore_top_tracefs();
	unlink(tc_data);
	snprintf(tc_data, sizeof(tc_data), "%s/trace-cmd.dat", tmpdir);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	/* Its complaint, on one line. */
	f = fopen(tc_log, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strstr(line, "data recorded") && !strstr(line, "bytes in size") && line[0]) {
			size_t len = strlen(tc_error);

			snprintf(tc_error + len, sizeof(tc_error) - len, "%s%s", len ? " " : "",
				 line + strspn(line, " "));
		}
	}
	if (f)
		fclose(f);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !tc_error[0])
		snprintf(tc_error, sizeof(tc_error), "trace-cmd is not installed");
	if (!tc_error[0])
		snprintf(tc_error, sizeof(tc_error), "exit status %d", status);
	snprintf(c->why, sizeof(c->why), "trace-cmd cannot run here: \"%s\"", tc_error);
	return -ENOTSUP;
}

static int trace_cmd_start(void)
{
	char size[16], path[PATH_MAX], buf[64];
	char *argv[] = { "trace-cmd", "record", "-b", size, "-e", event_spec, "-o", tc_data, NULL };
	int i, status;

	snprintf(size, sizeof(size), "%d", FTRACE_BUF_KB);
	save_top_tracefs();
	child_pid = spawn(argv, tc_log);
	snprintf(path, sizeof(path), TRACEFS "/events/%s/%s/enable", EVENT_SYSTEM, event_name);
	for (i = 0; i < 3000; i++) {
		if (!strcmp(read_str(path, buf, sizeof(buf)), "1")) {
			sleep_ms(100);	/* its recorders start after enabling */
			return 0;
		}
		if (!child_alive(child_pid, &status)) {
			child_pid = 0;
			restore_top_tracefs();
			return -ECHILD;
		}
		sleep_ms(5);
	}
	stop_child(SIGKILL, 1000, NULL);
	restore_top_tracefs();
	return -ETIMEDOUT;
}

static void trace_cmd_stop(struct run_result *r)
{
	char line[256];
	int status = -1;
	FILE *f;

	stop_child(SIGINT, 120000, &status);
	restore_top_tracefs();
	f = fopen(tc_log, "r");
	r->lost_known = f != NULL;
	while (f && fgets(line, sizeof(line), f)) {
		long long v;

		if (sscanf(line, "overrun: %lld", &v) == 1 || sscanf(line, "dropped events: %lld", &v) == 1)
			r->lost += v;
	}
	if (f)
		fclose(f);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		r->failed = true;
		snprintf(r->note, sizeof(r->note), "trace-cmd exit status %d", status);
	}
	unlink(tc_data);
}

/* bpftrace counting the event per thread in a map: aggregated in the kernel, nothing streamed. */

static char bt_log[PATH_MAX], bt_prog[256];

static bool file_has(const char *path, const char *text)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(path, "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	if (f)
		fclose(f);
	return found;
}

static int bpftrace_setup(struct config *c)
{
	char *argv[] = { "bpftrace", "--version", NULL };
	char log[PATH_MAX];
	int status;

	snprintf(log, sizeof(log), "%s/bpftrace-version.log", tmpdir);
	status = reap(spawn(argv, log), 10000);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(c->why, sizeof(c->why), "bpftrace does not run (apt-get install -y bpftrace)");
		return -ENOENT;
	}
	snprintf(bt_log, sizeof(bt_log), "%s/bpftrace.log", tmpdir);
	snprintf(bt_prog, sizeof(bt_prog),
		 "tracepoint:%s { @[tid] = count(); } BEGIN { printf(\"ready\\n\"); }", event_spec);
	return 0;
}

static bool said_ready(const void *log)
{
	return file_has(log, "ready");
}

/* bpftrace runs BEGIN once every probe is attached: "ready" means recording. */
static int bpftrace_start(void)
{
	char *argv[] = { "bpftrace", "-e", bt_prog, NULL };

	unlink(bt_log);		/* the last run's "ready" is not this one's */
	child_pid = spawn(argv, bt_log);
	return await_attached(said_ready, bt_log, "bpftrace", bt_log, 6000);
}

/* On SIGINT bpftrace prints its map: "@[tid]: count" lines. */
static void bpftrace_stop(struct run_result *r)
{
	char line[256];
	int status = -1, tid;
	long long n;
	FILE *f;

	stop_child(SIGINT, 30000, &status);
	f = fopen(bt_log, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "@[%d]: %lld", &tid, &n) != 2)
			continue;
		r->total += n;
		r->ours += is_ours(tid) ? n : 0;
	}
	if (f)
		fclose(f);
	r->counted = true;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		r->failed = true;
		snprintf(r->note, sizeof(r->note), "bpftrace exit status %d", status);
		log_tail(bt_log, "  bpftrace: ");
	}
}

static bool diag_wanted(struct config *c)
{
	if (!opt_diag && !(only && key_listed(only, c->key))) {
		snprintf(c->why, sizeof(c->why), "diagnostic, with --diag only");
		return false;
	}
	return true;
}

/* Diagnostics (--diag): a clock read, one or four pages touched, on the tracepoint. */
static int diag_setup(struct config *c)
{
	return diag_wanted(c) ? empty_setup(c) : -ENOTSUP;
}

/*
 * The cost of record --filter (--diag): the CLI with a one-comparison
 * filter that passes every event or none, and with a glob on the comm.
 */
static int filter_setup(struct config *c)
{
	return diag_wanted(c) ? tracer_setup(c) : -ENOTSUP;
}

static int tracer_with_filter(const char *filter)
{
	int err;

	tracer_filter = filter;
	err = tracer_start();
	tracer_filter = NULL;
	return err;
}

static int filter_pass_start(void)
{
	return tracer_with_filter("common_pid != 0");
}

static int filter_none_start(void)
{
	return tracer_with_filter("common_pid == 0");
}

static int filter_glob_start(void)
{
	return tracer_with_filter("comm ~ \"*point*\"");
}

static int clock_start(void)
{
	cur_link = bpf_program__attach_tracepoint(peers->progs.bp_clock, EVENT_SYSTEM, event_name);
	return cur_link ? 0 : -errno;
}

static int touch1_start(void)
{
	cur_link = bpf_program__attach_tracepoint(peers->progs.bp_touch1, EVENT_SYSTEM, event_name);
	return cur_link ? 0 : -errno;
}

static int touch4_start(void)
{
	cur_link = bpf_program__attach_tracepoint(peers->progs.bp_touch4, EVENT_SYSTEM, event_name);
	return cur_link ? 0 : -errno;
}

enum { C_NONE, C_EMPTY, C_TRACER, C_TRACER_PROG, C_RINGBUF, C_PERFBUF, C_PERF, C_TRACE_CMD,
       C_FTRACE, C_BPFTRACE, C_CLOCK, C_TOUCH1, C_TOUCH4, C_FILTER_PASS, C_FILTER_NONE,
       C_FILTER_GLOB, NCONFIGS };

static struct config configs[NCONFIGS] = {
	[C_NONE] = { "none", "no tracing", NULL, none_start, none_stop },
	[C_EMPTY] = { "empty", "empty BPF program (classic tracepoint)", empty_setup, empty_start, stop_link },
	[C_TRACER] = { "tracer", "**tracer record -a** (CLI, discard mode, to disk)", tracer_setup,
		       tracer_start, tracer_stop },
	[C_TRACER_PROG] = { "tracer-prog", "tracer's BPF program alone (overwrite, no reader)",
			    tracer_prog_setup, tracer_prog_start, stop_link },
	[C_RINGBUF] = { "ringbuf", "BPF ringbuf, NO_WAKEUP, drained every 1 ms to a file",
			ringbuf_setup, ringbuf_start, ringbuf_stop },
	[C_PERFBUF] = { "perfbuf", "perf buffer, 2 MiB watermark, drained every 1 ms to a file",
			perfbuf_setup, perfbuf_start, perfbuf_stop },
	[C_PERF] = { "perf", "perf record -a (to a file)", perf_setup, perf_start, perf_stop },
	[C_TRACE_CMD] = { "trace-cmd", "trace-cmd record (8 MiB/CPU)", trace_cmd_setup,
			  trace_cmd_start, trace_cmd_stop },
	[C_FTRACE] = { "ftrace", "ftrace ring buffer via tracefs (own instance, 8 MiB/CPU, reader per CPU to a file)",
		       ftrace_setup, ftrace_start, ftrace_stop },
	[C_BPFTRACE] = { "bpftrace", "bpftrace, @[tid] = count() (in-kernel map, nothing streamed)",
			 bpftrace_setup, bpftrace_start, bpftrace_stop },
	[C_CLOCK] = { "clock", "diagnostic: bpf_ktime_get_ns only", diag_setup, clock_start, stop_link },
	[C_TOUCH1] = { "touch1", "diagnostic: 1 page of an mmapable map touched (1 atomic add)",
		       diag_setup, touch1_start, stop_link },
	[C_TOUCH4] = { "touch4", "diagnostic: 4 pages touched (4 atomic adds)", diag_setup,
		       touch4_start, stop_link },
	[C_FILTER_PASS] = { "filter-pass", "diagnostic: tracer record -a --filter 'common_pid != 0' (passes all)",
			    filter_setup, filter_pass_start, tracer_stop },
	[C_FILTER_NONE] = { "filter-none", "diagnostic: tracer record -a --filter 'common_pid == 0' (passes none)",
			    filter_setup, filter_none_start, tracer_stop },
	[C_FILTER_GLOB] = { "filter-glob", "diagnostic: tracer record -a --filter 'comm ~ \"*point*\"' (passes all)",
			    filter_setup, filter_glob_start, tracer_stop },
};

/* --- Cleanup ---------------------------------------------------------------------- */

static struct writer_loop *wl_skel;
static struct tr_bpfbuf wl_bufs;

static void cleanup(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	stop_child(SIGINT, 10000, NULL);
	bpf_link__destroy(cur_link);
	cur_link = NULL;
	ftrace_teardown();
	restore_top_tracefs();
	if (rec_skel) {
		tr_bpfbuf_close(&rec_bufs);
		record__destroy(rec_skel);
	}
	if (wl_skel) {
		tr_bpfbuf_close(&wl_bufs);
		writer_loop__destroy(wl_skel);
	}
	ring_buffer__free(peer_rb);
	perf_buffer__free(peer_pb);
	if (peers)
		tr_bpfbuf_close(&peer_bufs);
	bench_peers__destroy(peers);
	if (tmpdir[0])
		rm_rf(tmpdir);
	if (tracefs_mounted_by_us && umount2(TRACEFS, 0))
		progress("warning: cannot unmount %s (mounted by this benchmark): %s\n", TRACEFS,
			 strerror(errno));
}

static void on_signal(int sig)
{
	if (interrupted) {
		cleanup();
		_exit(128 + sig);
	}
	interrupted = sig;
}

/* --- Part 1: system calls under each configuration --------------------------------------- */

struct cell {
	double ns[MAX_ROUNDS];
	struct run_result r[MAX_ROUNDS];
	int n;
};

static struct cell cells[NCONFIGS][MAX_THREADS + 1];

static int run_config(int c, int threads, long calls, struct run_result *r)
{
	struct cpu_sample a, b;
	int err;

	memset(r, 0, sizeof(*r));
	r->expected = (long long)threads * calls;
	err = configs[c].start();
	if (err) {
		r->failed = true;
		snprintf(r->note, sizeof(r->note), "start: %s", strerror(-err));
		return err;
	}
	cpu_sample(&a);
	r->ns = generate(threads, calls);
	cpu_sample(&b);
	cpu_others(&a, &b, &r->others, &r->steal);
	configs[c].stop(r);
	return 0;
}

static bool disturbed(const struct run_result *r)
{
	return r->others > DISTURBED || r->steal > DISTURBED;
}

/* A run, again (at most MAX_ATTEMPTS) while others used the CPUs during it. */
static int run_config_quiet(int c, int threads, long calls, struct run_result *r)
{
	int attempt, err = 0;

	for (attempt = 1; attempt <= MAX_ATTEMPTS && !interrupted; attempt++) {
		err = run_config(c, threads, calls, r);
		r->attempts = attempt;
		if (err || !disturbed(r))
			break;
		progress(" [%s disturbed: others %.0f%%, steal %.0f%% of a CPU]", configs[c].key,
			 r->others * 100, r->steal * 100);
	}
	return err;
}

static void part1(void)
{
	int round, t, i, c, order[NCONFIGS], n = 0;
	struct run_result r;

	for (c = 0; c < NCONFIGS; c++)
		if (configs[c].available)
			order[n++] = c;
	progress("warm-up...\n");
	generate(1, opt.calls / 4);
	for (round = 0; round < opt.rounds && !interrupted; round++) {
		for (t = 1; t <= MAX_THREADS && t <= ncpu; t++) {
			progress("round %d/%d, %d thread%s:", round + 1, opt.rounds, t, t > 1 ? "s" : "");
			for (i = 0; i < n && !interrupted; i++) {
				/* Rotate the order so no configuration always follows the same one. */
				c = order[(i + round) % n];
				if (run_config_quiet(c, t, opt.calls, &r) || interrupted) {
					progress(" %s: %s", configs[c].key, interrupted ? "interrupted" : "FAILED: ");
					progress("%s", interrupted ? "" : r.note);
					continue;
				}
				cells[c][t].ns[cells[c][t].n] = r.ns;
				cells[c][t].r[cells[c][t].n++] = r;
				progress(" %s %.0f", configs[c].key, r.ns);
				if (r.counted && r.ours != r.expected)
					progress(" (%lld/%lld recorded)", r.ours, r.expected);
				if (r.lost_known && r.lost)
					progress(" (lost %lld)", r.lost);
			}
			progress("\n");
		}
	}
}

/* Median over rounds of (config - base) with both measured in the same round. */
static double added(int c, int base, int t)
{
	double d[MAX_ROUNDS];
	int n = cells[c][t].n < cells[base][t].n ? cells[c][t].n : cells[base][t].n, i;

	for (i = 0; i < n; i++)
		d[i] = cells[c][t].ns[i] - cells[base][t].ns[i];
	return median(d, n);
}

static bool have(int c, int t)
{
	return configs[c].available && cells[c][t].n > 0;
}

/* The configuration standing for trace-cmd: itself, or the ftrace buffer it would use. */
static int trace_cmd_row(void)
{
	return configs[C_TRACE_CMD].available ? C_TRACE_CMD : C_FTRACE;
}

static void print_part1(FILE *out)
{
	int c, t, i;

	fprintf(out, "## 1. %s() with %s recorded\n\n", sys_name, event_spec);
	fprintf(out, "%ld calls per thread, %d rounds, configurations interleaved; wall ns per call "
		"per thread; \"added\" = median over rounds of (configuration - baseline in the same round); "
		"\"x ringbuf\" = added over empty / BPF ringbuf's added over empty (same threads).\n\n",
		opt.calls, opt.rounds);
	fprintf(out, "| configuration | threads | median ns/call | min | max | added over no tracing | added over empty program | x ringbuf | recorded (ours/expected) | lost |\n");
	fprintf(out, "|---|---|---|---|---|---|---|---|---|---|\n");
	for (c = 0; c < NCONFIGS; c++) {
		for (t = 1; t <= MAX_THREADS; t++) {
			struct cell *e = &cells[c][t];
			long long lost = 0, worst_ours = -1, worst_exp = 0, others = 0;
			bool counted = false, lost_known = false, all = true;
			char rec[96] = "-", losts[64] = "-", xrb[32] = "", over_empty[32] = "";

			if (!have(c, t))
				continue;
			for (i = 0; i < e->n; i++) {
				struct run_result *r = &e->r[i];

				if (r->counted) {
					counted = true;
					if (r->ours != r->expected)
						all = false;
					if (worst_ours < 0 || r->ours * (double)worst_exp < worst_ours * (double)r->expected) {
						worst_ours = r->ours;
						worst_exp = r->expected;
					}
					others += r->total - r->ours;
				}
				if (r->lost_known) {
					lost_known = true;
					lost += r->lost;
				}
			}
			if (counted && all)
				snprintf(rec, sizeof(rec), "all");
			else if (counted)
				snprintf(rec, sizeof(rec), "%lld/%lld (worst round)", worst_ours, worst_exp);
			if (counted && others)
				snprintf(rec + strlen(rec), sizeof(rec) - strlen(rec), ", +%lld of other processes", others);
			if (c == C_TRACER_PROG)
				snprintf(rec, sizeof(rec), "n/a (overwritten)");
			if (lost_known)
				snprintf(losts, sizeof(losts), "%lld", lost);
			if (c != C_NONE && have(C_EMPTY, t))
				snprintf(over_empty, sizeof(over_empty), "%+.0f", added(c, C_EMPTY, t));
			if (c != C_NONE && c != C_EMPTY && have(C_RINGBUF, t) && have(C_EMPTY, t))
				snprintf(xrb, sizeof(xrb), "%.2f",
					 added(c, C_EMPTY, t) / added(C_RINGBUF, C_EMPTY, t));
			fprintf(out, "| %s | %d | %.0f | %.0f | %.0f | %+.0f | %s | %s | %s | %s |\n",
				configs[c].label, t, median(e->ns, e->n), vmin(e->ns, e->n),
				vmax(e->ns, e->n), added(c, C_NONE, t), over_empty, xrb, rec, losts);
		}
	}
	fprintf(out, "\n");
	{
		int repeated = 0, kept = 0, runs = 0;

		for (c = 0; c < NCONFIGS; c++)
			for (t = 1; t <= MAX_THREADS; t++)
				for (i = 0; i < cells[c][t].n; i++) {
					runs++;
					repeated += cells[c][t].r[i].attempts > 1;
					if (disturbed(&cells[c][t].r[i])) {
						kept++;
						fprintf(out, "- %s, %d thread%s, round %d: DISTURBED in all %d attempts "
							"(others used %.0f%%, steal %.0f%% of a CPU); kept\n",
							configs[c].key, t, t > 1 ? "s" : "", i + 1,
							cells[c][t].r[i].attempts, cells[c][t].r[i].others * 100,
							cells[c][t].r[i].steal * 100);
					}
				}
		fprintf(out, "- %d of %d runs were repeated because other processes used more than %.0f%% of a CPU "
			"during them; %d stayed disturbed after %d attempts\n", repeated, runs,
			DISTURBED * 100, kept, MAX_ATTEMPTS);
	}
	for (c = 0; c < NCONFIGS; c++) {
		if (!configs[c].available && configs[c].why[0])
			fprintf(out, "- not measured: %s: %s\n", configs[c].key, configs[c].why);
		for (t = 1; t <= MAX_THREADS; t++)
			for (i = 0; i < cells[c][t].n; i++)
				if (cells[c][t].r[i].note[0])
					fprintf(out, "- %s, %d thread%s, round %d: %s\n", configs[c].key, t,
						t > 1 ? "s" : "", i + 1, cells[c][t].r[i].note);
	}
	if (!configs[C_TRACE_CMD].available && tc_error[0] && have(C_FTRACE, 1))
		fprintf(out, "- The ftrace row stands in for trace-cmd: %s. It is the kernel ring buffer "
			"trace-cmd would record from, read the way trace-cmd does (one reader per CPU, "
			"trace_pipe_raw pages to a file).\n", configs[C_TRACE_CMD].why);
	fprintf(out, "\n");
}

/* --- Part 2: the buffer path alone, in the kernel --------------------------------- */

static const __u32 loop_payloads[LOOP_PAYLOADS] = { 0, 16, 64, 256 };

enum { L_TRACER, L_TRACER_PEER, L_RINGBUF, L_EMPTY, L_CLOCK, NLOOPS };

static const char *loop_keys[NLOOPS] = { "writer_loop", "tracer", "ringbuf", "empty", "clock" };

static const char *loop_labels[NLOOPS] = {
	"tracer writer: writer_loop (overwrite, 4 x 1 MiB per CPU; + a shared atomic counter per record)",
	"tracer writer: same loop without writer_loop's shared counters (bench_peers)",
	"BPF ringbuf reserve/submit (NO_WAKEUP, 8 MiB shared)",
	"empty bpf_loop callback",
	"bpf_ktime_get_ns only",
};

struct loop_cell {
	double ns[MAX_ROUNDS];
	int n;
};

static struct loop_cell loops[NLOOPS][LOOP_PAYLOADS][MAX_THREADS + 1];
static volatile __u64 *rb_loop_consumer;
static const volatile __u64 *rb_loop_producer;

static int loop_setup(char *why, size_t len)
{
	struct trb_config cfg = { .subbuf_size = 1 << 20, .nsubbuf = 4, .mode = TR_MODE_OVERWRITE };
	long page = sysconf(_SC_PAGESIZE);
	int err = peers_setup(), i;
	void *p;

	if (err) {
		snprintf(why, len, "bench_peers: %s", strerror(-err));
		return err;
	}
	wl_skel = writer_loop__open();
	if (!wl_skel)
		return -errno;
	TR_BPFBUF_SET_GEOMETRY(wl_skel->rodata, &cfg, 1, ncpu);
	err = tr_bpfbuf_size_map(wl_skel->maps.trb_regions, &cfg, 1, ncpu);
	if (!err)
		err = writer_loop__load(wl_skel);
	if (!err)
		err = tr_bpfbuf_open(&wl_bufs, wl_skel->maps.trb_regions, &cfg, 1, ncpu,
				     tr_clock_monotonic_ns);
	if (err) {
		snprintf(why, len, "writer_loop: %s", strerror(-err));
		writer_loop__destroy(wl_skel);
		wl_skel = NULL;
		return err;
	}
	for (i = 0; i < (int)sizeof(wl_skel->bss->trb_payload_src); i++)
		wl_skel->bss->trb_payload_src[i] = i * 13 + 7;
	for (i = 0; i < (int)sizeof(peers->bss->bp_payload_src); i++)
		peers->bss->bp_payload_src[i] = i * 13 + 7;
	/* The loop ringbuf has no reader: we move its consumer position ourselves. */
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(peers->maps.bp_rb_loop), 0);
	if (p == MAP_FAILED)
		return -errno;
	rb_loop_consumer = p;
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, bpf_map__fd(peers->maps.bp_rb_loop), page);
	if (p == MAP_FAILED)
		return -errno;
	rb_loop_producer = p;
	return 0;
}

static int loop_prog_fd(int loop)
{
	switch (loop) {
	case L_TRACER: return bpf_program__fd(wl_skel->progs.trb_write_loop);
	case L_TRACER_PEER: return bpf_program__fd(peers->progs.bp_tracer_loop);
	case L_RINGBUF: return bpf_program__fd(peers->progs.bp_ringbuf_loop);
	case L_EMPTY: return bpf_program__fd(peers->progs.bp_empty_loop);
	default: return bpf_program__fd(peers->progs.bp_clock_loop);
	}
}

/* Records per program run: what fits in 80% of the ringbuf with every CPU writing. */
static long loop_chunk(__u32 payload, int threads)
{
	long rec = 8 + ((16 + payload + 7) & ~7u);

	return (long)(PEER_RB_BYTES * 0.8) / rec / threads;
}

struct loop_job {
	int loop, cpu, threads;
	__u32 payload;
	long records, chunk;
	pthread_barrier_t *barrier;
	__u64 busy_ns;
	int err;
};

static void *loop_thread(void *p)
{
	struct loop_job *j = p;
	__u64 args[3];
	long done;

	pin_self(j->cpu);
	for (done = 0; done < j->records && !interrupted; done += j->chunk) {
		long n = j->records - done < j->chunk ? j->records - done : j->chunk;
		LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args),
			    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = j->cpu);
		__u64 t0;

		/* Between runs: the ringbuf emptied, as by a reader keeping up. */
		pthread_barrier_wait(j->barrier);
		if (j->cpu == 0)
			__atomic_store_n(rb_loop_consumer, __atomic_load_n(rb_loop_producer, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
		pthread_barrier_wait(j->barrier);
		if (j->loop == L_TRACER) {
			args[0] = n;
			args[1] = 1;
			args[2] = j->payload;
		} else {
			args[0] = n;
			args[1] = j->payload;
			args[2] = 0;
		}
		t0 = now_ns();
		if (bpf_prog_test_run_opts(loop_prog_fd(j->loop), &o) || o.retval)
			j->err = -errno ? -errno : -EIO;
		j->busy_ns += now_ns() - t0;
	}
	return NULL;
}

/* ns per record per CPU: the time inside the program runs over the records of one CPU. */
static double run_loop(int loop, __u32 payload, int threads, long records, int *err)
{
	struct loop_job jobs[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	pthread_barrier_t barrier;
	double ns = 0;
	int i;

	pthread_barrier_init(&barrier, NULL, threads);
	for (i = 0; i < threads; i++) {
		jobs[i] = (struct loop_job){ .loop = loop, .cpu = i, .threads = threads,
					     .payload = payload, .records = records,
					     .chunk = loop_chunk(payload, threads), .barrier = &barrier };
		pthread_create(&th[i], NULL, loop_thread, &jobs[i]);
	}
	for (i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		ns += (double)jobs[i].busy_ns / records / threads;
		if (jobs[i].err)
			*err = jobs[i].err;
	}
	pthread_barrier_destroy(&barrier);
	return ns;
}

static char loop_problem[512];
static int loop_repeated, loop_kept_disturbed, loop_runs;

static double run_loop_quiet(int loop, __u32 payload, int threads, long records, int *err)
{
	struct cpu_sample a, b;
	double ns = 0, others = 0, steal = 0;
	int attempt;

	loop_runs++;
	for (attempt = 1; attempt <= MAX_ATTEMPTS && !interrupted; attempt++) {
		cpu_sample(&a);
		ns = run_loop(loop, payload, threads, records, err);
		cpu_sample(&b);
		cpu_others(&a, &b, &others, &steal);
		if (others <= DISTURBED && steal <= DISTURBED)
			return ns;
		loop_repeated += attempt == 1;
	}
	loop_kept_disturbed++;
	return ns;
}

static void part2(void)
{
	__u64 wl_written0, wl_failed0, rb_failed0;
	int round, l, p, t, err = 0;

	if (loop_setup(loop_problem, sizeof(loop_problem))) {
		progress("in-kernel loops: %s\n", loop_problem);
		return;
	}
	wl_written0 = wl_skel->bss->trb_written;
	wl_failed0 = wl_skel->bss->trb_failed;
	rb_failed0 = peers->bss->bp_loop_failed;
	for (round = 0; round < opt.rounds && !interrupted; round++) {
		progress("in-kernel loops, round %d/%d\n", round + 1, opt.rounds);
		for (l = 0; l < NLOOPS; l++)
			for (p = 0; p < LOOP_PAYLOADS; p++) {
				if ((l == L_EMPTY || l == L_CLOCK) && p)
					continue;
				for (t = 1; t <= MAX_THREADS && t <= ncpu; t++) {
					struct loop_cell *e = &loops[l][p][t];

					/* The other payloads only show the trend: half the records. */
					long n = loop_payloads[p] == 16 ? opt.loop_records : opt.loop_records / 2;

					e->ns[e->n++] = run_loop_quiet(l, loop_payloads[p], t, n, &err);
				}
			}
	}
	if (err)
		snprintf(loop_problem, sizeof(loop_problem), "a program run failed: %s", strerror(-err));
	if (wl_skel->bss->trb_failed != wl_failed0 || peers->bss->bp_loop_failed != rb_failed0)
		snprintf(loop_problem, sizeof(loop_problem),
			 "records not written: tracer %llu (of %llu), ringbuf %llu",
			 (unsigned long long)(wl_skel->bss->trb_failed - wl_failed0),
			 (unsigned long long)(wl_skel->bss->trb_written - wl_written0),
			 (unsigned long long)(peers->bss->bp_loop_failed - rb_failed0));
}

static void print_part2(FILE *out)
{
	int l, p, t;

	fprintf(out, "## 2. The buffer path alone: a bpf_loop run with BPF_PROG_TEST_RUN\n\n");
	fprintf(out, "%ld records per CPU per measurement (half as many for payloads other than 16), in program runs of at most what fills 80%% "
		"of the 8 MiB ringbuf (which is emptied between runs, as by a reader that keeps up); "
		"\"2 CPUs\": both CPUs run the loop at the same time, ns per record per CPU. "
		"Record = 16-byte header (timestamp from bpf_ktime_get_ns, id, size) + payload "
		"copied with bpf_probe_read_kernel. %d rounds, median (min-max).\n\n",
		opt.loop_records, opt.rounds);
	if (loop_problem[0])
		fprintf(out, "**Problem: %s**\n\n", loop_problem);
	fprintf(out, "%d of %d measurements were repeated because other processes used more than %.0f%% of a "
		"CPU during them; %d stayed disturbed after %d attempts.\n\n", loop_repeated, loop_runs,
		DISTURBED * 100, loop_kept_disturbed, MAX_ATTEMPTS);
	fprintf(out, "| loop | payload bytes | 1 CPU ns/record | 2 CPUs ns/record |\n|---|---|---|---|\n");
	for (l = 0; l < NLOOPS; l++)
		for (p = 0; p < LOOP_PAYLOADS; p++) {
			if (!loops[l][p][1].n)
				continue;
			if (l >= L_EMPTY)
				fprintf(out, "| %s | - |", loop_labels[l]);
			else
				fprintf(out, "| %s | %u |", loop_labels[l], loop_payloads[p]);
			for (t = 1; t <= MAX_THREADS; t++) {
				struct loop_cell *e = &loops[l][p][t];

				if (e->n)
					fprintf(out, " %.1f (%.1f-%.1f) |", median(e->ns, e->n),
						vmin(e->ns, e->n), vmax(e->ns, e->n));
				else
					fprintf(out, " - |");
			}
			fprintf(out, "\n");
		}
	fprintf(out, "\n");
#define LMED(l, p, t)	median(loops[l][p][t].ns, loops[l][p][t].n)
	for (p = 0; p < LOOP_PAYLOADS; p++) {
		if (!loops[L_TRACER][p][1].n || !loops[L_RINGBUF][p][1].n || !loops[L_TRACER_PEER][p][1].n)
			continue;
		fprintf(out, "- payload %u: tracer / ringbuf = %.2f (1 CPU), %.2f (2 CPUs); "
			"writer_loop / ringbuf = %.2f (1 CPU), %.2f (2 CPUs)", loop_payloads[p],
			LMED(L_TRACER_PEER, p, 1) / LMED(L_RINGBUF, p, 1),
			LMED(L_TRACER_PEER, p, 2) / LMED(L_RINGBUF, p, 2),
			LMED(L_TRACER, p, 1) / LMED(L_RINGBUF, p, 1),
			LMED(L_TRACER, p, 2) / LMED(L_RINGBUF, p, 2));
		if (loops[L_CLOCK][0][1].n)
			fprintf(out, "; without the clock read: tracer %.1f ns, ringbuf %.1f ns (1 CPU)",
				LMED(L_TRACER_PEER, p, 1) - LMED(L_CLOCK, 0, 1),
				LMED(L_RINGBUF, p, 1) - LMED(L_CLOCK, 0, 1));
		fprintf(out, "\n");
	}
#undef LMED
	fprintf(out, "\n");
}

/* --- Part 3: saturation ------------------------------------------------------------ */

static struct run_result sat;
static bool sat_done;

static void part3(void)
{
	if (!configs[C_TRACER].available || interrupted)
		return;
	progress("saturation: tracer record -a, 2 threads x %ld calls...\n", opt.sat_calls);
	if (run_config_quiet(C_TRACER, ncpu < 2 ? 1 : 2, opt.sat_calls, &sat) == 0)
		sat_done = true;
}

static void print_part3(FILE *out)
{
	int threads = sat.expected / opt.sat_calls;
	double secs = sat.ns * opt.sat_calls / 1e9, rate = sat.expected / secs;

	fprintf(out, "## 3. Saturation: tracer record -a, %d threads calling %s() as fast as they can\n\n",
		threads, sys_name);
	if (!sat_done) {
		fprintf(out, "not run%s%s\n\n", configs[C_TRACER].why[0] ? ": " : "", configs[C_TRACER].why);
		return;
	}
	fprintf(out, "%lld events in %.2f s = **%.2f M events/s** sustained, recorder consuming to a file "
		"on the same 2 CPUs: %lld of ours recorded, %lld lost%s%s.\n\n",
		sat.expected, secs, rate / 1e6, sat.ours, sat.lost, sat.note[0] ? "; " : "", sat.note);
	if (disturbed(&sat))
		fprintf(out, "DISTURBED: other processes used %.0f%% of a CPU during this run (after %d attempts).\n\n",
			sat.others * 100, sat.attempts);
}

/* --- Part 4: where loss begins ------------------------------------------------------- */

/*
 * tracer record -a of raw_syscalls:sys_enter/sys_exit and the call's own
 * enter/exit while the threads call at an offered rate: 4 events per call,
 * so that the recorder, not the generator, is the limit.  The steps run
 * interleaved, once per round; a step with rate 0 calls as fast as it can.
 */
#define LADDER_FULL_SPEED_CALLS	600000	/* per thread and second of --ladder-secs */

struct ladder_step {
	double achieved[MAX_ROUNDS];	/* events/s */
	double lost_pct[MAX_ROUNDS];	/* of our events, missing from the trace */
	long long expected, recorded, lost;	/* lost: the tracer's count, all processes */
	int n, disturbed;
	char note[160];
};

static struct ladder_step ladder[MAX_LADDER];
static bool ladder_done;

/* The offered rate of a step: its target, or what the threads reached at full speed. */
static double ladder_offered(int k)
{
	struct ladder_step *e = &ladder[k];

	return opt.ladder[k] > 0 ? opt.ladder[k] : median(e->achieved, e->n);
}

static void ladder_run(int k, int threads)
{
	struct ladder_step *e = &ladder[k];
	double rate = opt.ladder[k];
	long calls = (rate > 0 ? rate / LADDER_EVENTS / threads : LADDER_FULL_SPEED_CALLS) *
		     opt.ladder_secs;
	struct run_result r;
	long long expected;

	gen_rate = rate / LADDER_EVENTS / threads;
	if (run_config_quiet(C_TRACER, threads, calls, &r) || interrupted) {
		gen_rate = 0;
		progress(" %.2fM: %s", rate / 1e6, interrupted ? "interrupted" : r.note);
		snprintf(e->note, sizeof(e->note), "%s", r.note);
		return;
	}
	gen_rate = 0;
	expected = r.expected * LADDER_EVENTS;
	e->achieved[e->n] = threads * LADDER_EVENTS * 1e9 / r.ns;
	e->lost_pct[e->n] = 100.0 * (expected - r.ours) / expected;
	e->expected += expected;
	e->recorded += r.ours;
	e->lost += r.lost;
	e->disturbed += disturbed(&r);
	if (r.note[0])
		snprintf(e->note, sizeof(e->note), "%s", r.note);
	progress(" %.2fM->%.2fM %.2f%%", rate / 1e6, e->achieved[e->n] / 1e6, e->lost_pct[e->n]);
	e->n++;
}

static void part4(void)
{
	int threads = ncpu < 2 ? 1 : 2, round, i;

	if (!configs[C_TRACER].available || interrupted)
		return;
	tracer_events[0] = "raw_syscalls:sys_enter";
	tracer_events[1] = "raw_syscalls:sys_exit";
	tracer_events[2] = event_spec;
	tracer_events[3] = exit_spec;
	tracer_nevents = LADDER_EVENTS;
	for (round = 0; round < opt.rounds && !interrupted; round++) {
		progress("loss onset, round %d/%d (offered->achieved events/s, our events lost):",
			 round + 1, opt.rounds);
		for (i = 0; i < opt.nladder && !interrupted; i++)
			ladder_run((i + round) % opt.nladder, threads);
		progress("\n");
	}
	tracer_events[0] = event_spec;
	tracer_nevents = 1;
	ladder_done = !interrupted;
}

/* Steps by target rate, lowest first, full speed last: the order of the table. */
static int ladder_order[MAX_LADDER];

static int cmp_target(const void *a, const void *b)
{
	double x = opt.ladder[*(const int *)a], y = opt.ladder[*(const int *)b];

	x = x > 0 ? x : INFINITY;
	y = y > 0 ? y : INFINITY;
	return x < y ? -1 : x > y;
}

static void ladder_sort(void)
{
	int i;

	for (i = 0; i < opt.nladder; i++)
		ladder_order[i] = i;
	qsort(ladder_order, opt.nladder, sizeof(*ladder_order), cmp_target);
}

/* Per round: the lowest offered rate of a step that lost events, INFINITY if none did. */
static int ladder_onsets(double *onset)
{
	int round, k;

	for (round = 0; round < opt.rounds; round++) {
		onset[round] = INFINITY;
		for (k = 0; k < opt.nladder; k++)
			if (round < ladder[k].n && ladder[k].lost_pct[round] > 0 &&
			    ladder_offered(k) < onset[round])
				onset[round] = ladder_offered(k);
	}
	return opt.rounds;
}

/* The step offering twice the onset, or the fastest one when none does; -1 without an onset. */
static int ladder_double(double onset)
{
	int k, fastest = -1;

	if (!isfinite(onset))
		return -1;
	for (k = 0; k < opt.nladder; k++) {
		if (fabs(ladder_offered(k) - 2 * onset) < 0.05 * onset)
			return k;
		if (fastest < 0 || ladder_offered(k) > ladder_offered(fastest))
			fastest = k;
	}
	return fastest;
}

static void print_part4(FILE *out)
{
	double onset[MAX_ROUNDS], at;
	char max[32] = "none (a round without loss)";
	int i, n, k2;

	fprintf(out, "## 4. Where loss begins: tracer record -a of %d events per %s() call "
		"(raw_syscalls:sys_enter/sys_exit, %s, %s), threads calling at offered rates\n\n",
		LADDER_EVENTS, sys_name, event_spec, exit_spec);
	if (!ladder_done) {
		fprintf(out, "not run%s%s\n\n", configs[C_TRACER].why[0] ? ": " : "", configs[C_TRACER].why);
		return;
	}
	fprintf(out, "%d rounds, steps interleaved, about %.1f s of calls each; the recorder writes to a file "
		"and shares the 2 CPUs; \"lost\" is our events missing from the trace, and the tracer's own "
		"count (all processes) in the last column.\n\n", opt.rounds, opt.ladder_secs);
	fprintf(out, "| offered events/s | achieved M events/s, median (min-max) | our events lost %%, median (min-max) "
		"| recorded / expected, all rounds | tracer's lost count |\n|---|---|---|---|---|\n");
	ladder_sort();
	for (i = 0; i < opt.nladder; i++) {
		int k = ladder_order[i];
		struct ladder_step *e = &ladder[k];
		char offered[32];

		if (!e->n)
			continue;
		if (opt.ladder[k] > 0)
			snprintf(offered, sizeof(offered), "%.2f M", opt.ladder[k] / 1e6);
		else
			snprintf(offered, sizeof(offered), "as fast as possible");
		fprintf(out, "| %s | %.2f (%.2f-%.2f) | %.3f (%.3f-%.3f) | %lld / %lld | %lld |\n", offered,
			median(e->achieved, e->n) / 1e6, vmin(e->achieved, e->n) / 1e6,
			vmax(e->achieved, e->n) / 1e6, median(e->lost_pct, e->n), vmin(e->lost_pct, e->n),
			vmax(e->lost_pct, e->n), e->recorded, e->expected, e->lost);
	}
	fprintf(out, "\n");
	n = ladder_onsets(onset);
	at = median(onset, n);
	if (!isfinite(at)) {
		fprintf(out, "- **no loss begins** in most rounds, up to the fastest step\n\n");
		return;
	}
	if (isfinite(vmax(onset, n)))
		snprintf(max, sizeof(max), "%.2f", vmax(onset, n) / 1e6);
	fprintf(out, "- **loss begins at %.2f M events/s** offered (median over rounds of the lowest step "
		"that lost events; min %.2f, max %s)\n", at / 1e6, vmin(onset, n) / 1e6, max);
	k2 = ladder_double(at);
	if (k2 >= 0) {
		struct ladder_step *e = &ladder[k2];
		double offered = ladder_offered(k2);

		fprintf(out, "- at %s (%.2f M events/s offered, %.2f achieved): **%.3f%% of our events lost** "
			"(median; %.3f-%.3f), %lld of %lld over %d rounds\n",
			fabs(offered - 2 * at) < 0.05 * at ? "twice that rate" :
			"the fastest step (twice the onset is beyond what the threads reach)",
			offered / 1e6, median(e->achieved, e->n) / 1e6, median(e->lost_pct, e->n),
			vmin(e->lost_pct, e->n), vmax(e->lost_pct, e->n), e->expected - e->recorded,
			e->expected, e->n);
	}
	for (i = 0; i < opt.nladder; i++)
		if (ladder[i].disturbed || ladder[i].note[0])
			fprintf(out, "- step %.2f M: %d run%s kept disturbed%s%s\n", opt.ladder[i] / 1e6,
				ladder[i].disturbed, ladder[i].disturbed == 1 ? "" : "s",
				ladder[i].note[0] ? "; " : "", ladder[i].note);
	fprintf(out, "\n");
}

/* --- Targets ------------------------------------------------------------------------- */

static int print_targets(FILE *out)
{
	int t, fails = 0, tc = trace_cmd_row();
	const double limit[MAX_THREADS + 1] = { 0, 0.75, 0.5 };

	fprintf(out, "## Targets\n\n");
	if (foreign_program || loadavg_start > 0.5)
		fprintf(out, "**This run is not a valid measurement:%s%s%s. Rerun on a quiet machine.**\n\n",
			foreign_program ? " another process's BPF program runs on the measured tracepoint" : "",
			foreign_program && loadavg_start > 0.5 ? ";" : "",
			loadavg_start > 0.5 ? " the machine was busy at the start (load > 0.5)" : "");
	for (t = 1; t <= MAX_THREADS; t++) {
		if (!have(C_TRACER, t) || !have(C_RINGBUF, t) || !have(C_EMPTY, t)) {
			fprintf(out, "- added cost over the empty program <= %.2fx BPF ringbuf's, %d producer%s: NOT MEASURED\n",
				limit[t], t, t > 1 ? "s" : "");
			fails++;
			continue;
		}
		double tr = added(C_TRACER, C_EMPTY, t), rb = added(C_RINGBUF, C_EMPTY, t);
		bool pass = tr <= limit[t] * rb;

		fails += !pass;
		fprintf(out, "- **%s**: added cost over the empty program <= %.2fx BPF ringbuf's, %d producer%s: "
			"tracer %+.0f ns, ringbuf %+.0f ns, ratio %.2f",
			pass ? "PASS" : "FAIL", limit[t], t, t > 1 ? "s" : "", tr, rb, tr / rb);
		if (have(C_TRACER_PROG, t))
			fprintf(out, " (the tracer's BPF program alone, no consumer: %+.0f ns, ratio %.2f)",
				added(C_TRACER_PROG, C_EMPTY, t), added(C_TRACER_PROG, C_EMPTY, t) / rb);
		fprintf(out, "\n");
	}
	for (t = 1; t <= MAX_THREADS; t++) {
		if (!have(C_TRACER, t) || !have(tc, t)) {
			fprintf(out, "- total cost per event <= trace-cmd's, %d thread%s: NOT MEASURED\n", t,
				t > 1 ? "s" : "");
			fails++;
			continue;
		}
		double tr = added(C_TRACER, C_NONE, t), ref = added(tc, C_NONE, t);
		bool pass = tr <= ref;

		fails += !pass;
		fprintf(out, "- **%s**: total cost per event <= %s, %d thread%s: tracer %+.0f ns "
			"over no tracing (%.0f ns/call), %s %+.0f ns (%.0f ns/call)\n",
			pass ? "PASS" : "FAIL",
			tc == C_TRACE_CMD ? "trace-cmd's" :
			"trace-cmd's (trace-cmd cannot run here; compared with the ftrace ring buffer it records from)",
			t, t > 1 ? "s" : "", tr, median(cells[C_TRACER][t].ns, cells[C_TRACER][t].n),
			configs[tc].key, ref, median(cells[tc][t].ns, cells[tc][t].n));
	}
	if (!sat_done) {
		fprintf(out, "- no loss at 1 M events/s sustained to disk: NOT MEASURED\n");
		fails++;
	} else {
		double rate = sat.expected / (sat.ns * opt.sat_calls / 1e9);
		bool complete = sat.ours == sat.expected && sat.lost == 0 && !sat.failed;
		bool pass = complete && rate >= 1e6;

		fails += !pass;
		fprintf(out, "- **%s**: no loss at >= 1 M events/s sustained to disk, consumer sharing the CPUs: "
			"%.2f M events/s, %lld lost, %lld/%lld recorded%s\n",
			pass ? "PASS" : "FAIL", rate / 1e6, sat.lost, sat.ours, sat.expected,
			complete && rate < 1e6 ? " (no loss, but the generator stays below 1 M events/s)" : "");
	}
	fprintf(out, "\n");
	return fails;
}

/* --- CSV (bench/bench_csv.h) ----------------------------------------------------------- */

static void csv_part1(FILE *f)
{
	int c, t, i;

	for (c = 0; c < NCONFIGS; c++)
		for (t = 1; t <= MAX_THREADS; t++) {
			struct cell *e = &cells[c][t];
			struct bench_row row;
			bool counted = false, lost_known = false;

			if (!have(c, t))
				continue;
			row = (struct bench_row){ .workload = "events", .config = configs[c].key,
					.label = configs[c].label, .threads = t, .param = event_spec,
					.unit = "ns/call", .values = e->ns, .n = e->n,
					.median = median(e->ns, e->n), .min = vmin(e->ns, e->n),
					.max = vmax(e->ns, e->n), .baseline = c == C_NONE };
			for (i = 0; i < e->n; i++) {
				const struct run_result *r = &e->r[i];

				counted |= r->counted;
				lost_known |= r->lost_known;
				row.recorded += r->ours;
				row.expected += r->expected;
				row.lost += r->lost;
				row.disturbed += disturbed(r);
				if (r->note[0])
					row.note = r->note;
			}
			/* The program alone overwrites: its buffers hold the newest records only. */
			row.counted = counted && c != C_TRACER_PROG;
			row.lost_known = lost_known;
			/* The suite pairs the rows by round (bench/paired.py). */
			if (c != C_NONE && c != C_EMPTY && have(C_RINGBUF, t) && have(C_EMPTY, t))
				row.ratio_to = "ringbuf (added over the empty program)";
			bench_csv_row(f, &row);
		}
}

static void csv_part2(FILE *f)
{
	int l, p, t;

	for (l = 0; l < NLOOPS; l++)
		for (p = 0; p < LOOP_PAYLOADS; p++)
			for (t = 1; t <= MAX_THREADS; t++) {
				struct loop_cell *e = &loops[l][p][t], *rb = &loops[L_RINGBUF][p][t];
				char payload[16] = "";
				struct bench_row row;

				if (!e->n)
					continue;
				if (l < L_EMPTY)
					snprintf(payload, sizeof(payload), "%u", loop_payloads[p]);
				row = (struct bench_row){ .workload = "loop", .config = loop_keys[l],
						.label = loop_labels[l], .threads = t, .param = payload,
						.unit = "ns/record", .values = e->ns, .n = e->n,
						.median = median(e->ns, e->n), .min = vmin(e->ns, e->n),
						.max = vmax(e->ns, e->n), .note = loop_problem };
				if (l < L_EMPTY && rb->n)
					row.ratio_to = "ringbuf";
				bench_csv_row(f, &row);
			}
}

static void csv_part3(FILE *f)
{
	double rate;

	if (!sat_done)
		return;
	rate = sat.expected / (sat.ns * opt.sat_calls / 1e9);
	bench_csv_row(f, &(struct bench_row){ .workload = "saturation", .config = "full-speed",
		.label = "tracer record -a, 1 event per call, threads as fast as they can",
		.threads = sat.expected / opt.sat_calls, .param = event_spec, .unit = "events/s",
		.values = &rate, .n = 1, .median = rate, .min = rate, .max = rate, .counted = true,
		.recorded = sat.ours, .expected = sat.expected, .lost_known = sat.lost_known,
		.lost = sat.lost, .disturbed = disturbed(&sat), .note = sat.note });
}

static void csv_part4(FILE *f)
{
	double onset[MAX_ROUNDS];
	int i, n, k2;

	if (!ladder_done)
		return;
	ladder_sort();
	for (i = 0; i < opt.nladder; i++) {
		int k = ladder_order[i];
		struct ladder_step *e = &ladder[k];
		char offered[32];
		struct bench_row row;

		if (!e->n)
			continue;
		snprintf(offered, sizeof(offered), "%.0f", opt.ladder[k]);
		row = (struct bench_row){ .workload = "saturation", .config = "ladder-lost",
				.label = "our events lost at this offered rate (0: as fast as possible)",
				.threads = 2, .param = offered, .unit = "lost %", .values = e->lost_pct,
				.n = e->n, .median = median(e->lost_pct, e->n),
				.min = vmin(e->lost_pct, e->n), .max = vmax(e->lost_pct, e->n),
				.counted = true, .recorded = e->recorded, .expected = e->expected,
				.lost_known = true, .lost = e->lost, .disturbed = e->disturbed,
				.note = e->note };
		bench_csv_row(f, &row);
		row.config = "ladder-achieved";
		row.label = "events/s the threads reached at this offered rate";
		row.disturbed = 0;	/* counted once, in the row above */
		row.unit = "events/s";
		row.values = e->achieved;
		row.median = median(e->achieved, e->n);
		row.min = vmin(e->achieved, e->n);
		row.max = vmax(e->achieved, e->n);
		bench_csv_row(f, &row);
	}
	n = ladder_onsets(onset);
	bench_csv_row(f, &(struct bench_row){ .workload = "saturation", .config = "loss-onset",
		.label = "lowest offered rate that lost events (inf: none)", .threads = 2,
		.unit = "events/s", .values = onset, .n = n, .median = median(onset, n),
		.min = vmin(onset, n), .max = vmax(onset, n) });
	k2 = ladder_double(median(onset, n));
	if (k2 >= 0) {
		struct ladder_step *e = &ladder[k2];
		char offered[32];

		snprintf(offered, sizeof(offered), "%.0f", ladder_offered(k2));
		bench_csv_row(f, &(struct bench_row){ .workload = "saturation",
			.config = "lost-at-2x-onset",
			.label = "our events lost at twice the onset (or the fastest step)", .threads = 2,
			.param = offered, .unit = "lost %", .values = e->lost_pct, .n = e->n,
			.median = median(e->lost_pct, e->n), .min = vmin(e->lost_pct, e->n),
			.max = vmax(e->lost_pct, e->n), .counted = true, .recorded = e->recorded,
			.expected = e->expected, .lost_known = true, .lost = e->lost });
	}
}

static int write_csv(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	bench_csv_header(f);
	csv_part1(f);
	csv_part2(f);
	csv_part3(f);
	csv_part4(f);
	return fclose(f) ? -errno : 0;
}

/* --- Main ---------------------------------------------------------------------------- */

/* Is key in the comma-separated list? */
static bool key_listed(const char *list, const char *key)
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

static void usage(void)
{
	fprintf(stderr, "usage: tracepoint_bench [--quick] [--rounds N] [--calls N] [--loop-records N] "
		"[--sat-calls N] [--ladder M,...] [--ladder-secs S] [--syscall getppid|getpid|getuid|getgid] "
		"[--only KEY,...] [--diag] [--tracer PATH] [--csv FILE]\n"
		"  --only KEY,...  part 1 with these configurations (none, empty and ringbuf always), and\n"
		"                  parts 2, 3 and 4 only if 'loops', 'saturation' or 'ladder' is listed; keys:\n"
		"                  tracer, tracer-prog, perfbuf, perf, trace-cmd, ftrace, bpftrace, clock,\n"
		"                  touch1, touch4\n"
		"  --ladder M,...  part 4's offered rates in M events/s, 0 for as fast as possible\n"
		"                  (default 0.5,1,2,3,4,0)\n"
		"  --ladder-secs S seconds of calls per step of part 4 (default 1)\n"
		"  --diag          add the diagnostic configurations clock, touch1, touch4\n"
		"  --csv FILE      also write every figure as the suite's CSV (bench/bench_csv.h)\n");
	exit(2);
}

/* "0.25,0.5,1": offered rates in M events/s. */
static void parse_ladder(const char *list)
{
	char *end;

	opt.nladder = 0;
	while (*list && opt.nladder < MAX_LADDER) {
		opt.ladder[opt.nladder++] = strtod(list, &end) * 1e6;
		if (end == list || (*end && *end != ','))
			usage();
		list = *end ? end + 1 : end;
	}
}

static void default_tracer_path(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0) {
		snprintf(opt.tracer, sizeof(opt.tracer), "build/tracer");
		return;
	}
	self[n] = 0;
	slash = strrchr(self, '/');	/* .../build/bench/tracepoint_bench */
	if (slash)
		*slash = 0;
	slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	snprintf(opt.tracer, sizeof(opt.tracer), "%.4000s/tracer", self);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	__u64 t0 = now_ns();
	int i, c, err, fails;

	default_tracer_path();
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			opt.quick = 1;
			opt.rounds = 2;
			opt.calls = 100000;
			opt.loop_records = 300000;
			opt.sat_calls = 200000;
			opt.ladder_secs = 0.3;
		} else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			opt.rounds = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
			opt.calls = atol(argv[++i]);
		} else if (!strcmp(argv[i], "--loop-records") && i + 1 < argc) {
			opt.loop_records = atol(argv[++i]);
		} else if (!strcmp(argv[i], "--sat-calls") && i + 1 < argc) {
			opt.sat_calls = atol(argv[++i]);
		} else if (!strcmp(argv[i], "--ladder") && i + 1 < argc) {
			parse_ladder(argv[++i]);
		} else if (!strcmp(argv[i], "--ladder-secs") && i + 1 < argc) {
			opt.ladder_secs = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
			opt.csv = argv[++i];
		} else if (!strcmp(argv[i], "--syscall") && i + 1 < argc) {
			size_t k;

			sys_name = argv[++i];
			sys_nr = -1;
			for (k = 0; k < sizeof(syscalls_known) / sizeof(syscalls_known[0]); k++)
				if (!strcmp(sys_name, syscalls_known[k].name))
					sys_nr = syscalls_known[k].nr;
			if (sys_nr < 0)
				usage();
			snprintf(event_name, sizeof(event_name), "sys_enter_%s", sys_name);
			snprintf(event_spec, sizeof(event_spec), EVENT_SYSTEM ":%s", event_name);
			snprintf(exit_spec, sizeof(exit_spec), EVENT_SYSTEM ":sys_exit_%s", sys_name);
			snprintf(event_enable_file, sizeof(event_enable_file), "events/" EVENT_SYSTEM "/%s/enable",
				 event_name);
		} else if (!strcmp(argv[i], "--diag")) {
			opt_diag = 1;
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--tracer") && i + 1 < argc) {
			snprintf(opt.tracer, sizeof(opt.tracer), "%s", argv[++i]);
		} else {
			usage();
		}
	}
	if (opt.rounds < 1 || opt.rounds > MAX_ROUNDS || opt.calls < 1 || opt.loop_records < 1 ||
	    opt.sat_calls < 1 || opt.nladder < 1 || opt.ladder_secs <= 0)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	ncpu = libbpf_num_possible_cpus();
	if (geteuid()) {
		fprintf(stderr, "tracepoint_bench: needs root (BPF, tracefs, perf -a)\n");
		return 1;
	}
	libbpf_set_print(NULL);
	atexit(cleanup);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tracepoint_bench.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		tmpdir[0] = 0;
		return 1;
	}
	{
		char path[PATH_MAX], pid[32];
		int fd;

		snprintf(path, sizeof(path), "%s/pid", tmpdir);
		snprintf(pid, sizeof(pid), "%d\n", getpid());
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, pid, strlen(pid)) < 0)
			perror(path);
		if (fd >= 0)
			close(fd);
	}
	remove_stale_tmpdirs();

	err = ensure_tracefs();
	if (err) {
		fprintf(stderr, "tracepoint_bench: cannot mount tracefs: %s\n", strerror(-err));
		return 1;
	}
	printf("# tracepoint_bench%s\n\n", opt.quick ? " --quick (smoke run: numbers are not meaningful)" : "");
	machine_state(stdout);
	remove_stale_instances();
	for (c = 0; c < NCONFIGS; c++) {
		if (only && c != C_NONE && c != C_EMPTY && c != C_RINGBUF && !key_listed(only, configs[c].key)) {
			snprintf(configs[c].why, sizeof(configs[c].why), "not in --only %s", only);
			continue;
		}
		configs[c].available = !configs[c].setup || configs[c].setup(&configs[c]) == 0;
		if (!configs[c].available)
			progress("not measured: %s: %s\n", configs[c].key, configs[c].why);
	}
	/* With trace-cmd working, its row is the reference; the raw ftrace row stays as a detail. */

	part1();
	if (!interrupted && (!only || key_listed(only, "loops")))
		part2();
	if (!interrupted && (!only || key_listed(only, "saturation")))
		part3();
	if (!interrupted && (!only || key_listed(only, "ladder")))
		part4();
	if (interrupted) {
		fprintf(stderr, "interrupted\n");
		return 130;
	}
	print_part1(stdout);
	if (!only || key_listed(only, "loops"))
		print_part2(stdout);
	if (!only || key_listed(only, "saturation"))
		print_part3(stdout);
	if (!only || key_listed(only, "ladder"))
		print_part4(stdout);
	fails = print_targets(stdout);
	if (opt.csv && (err = write_csv(opt.csv)))
		fprintf(stderr, "tracepoint_bench: cannot write %s: %s\n", opt.csv, strerror(-err));
	printf("Run time %.0f s; loadavg at the end: ", (now_ns() - t0) / 1e9);
	{
		char buf[128];

		printf("%s\n", read_str("/proc/loadavg", buf, sizeof(buf)));
	}
	return fails ? 3 : 0;
}

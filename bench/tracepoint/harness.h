/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracepoint_bench's harness: the options, the measured event, time and
 * files, statistics, subprocesses, the machine's state, tracefs, the
 * generator of system calls, and the run of one configuration.  Peers and
 * workloads are built on it; it calls neither (README.md).
 */
#ifndef TRACEPOINT_BENCH_HARNESS_H
#define TRACEPOINT_BENCH_HARNESS_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

#define TRACEFS		"/sys/kernel/tracing"
#define EVENT_SYSTEM	"syscalls"
#define MAX_ROUNDS	32
#define MAX_THREADS	2
#define MAX_LADDER	16
#define LADDER_EVENTS	4		/* per call: raw_syscalls enter/exit, the call's enter/exit */

/* --- Options (options.c) ----------------------------------------------------- */

struct options {
	int rounds;
	long calls;
	long loop_records;
	long sat_calls;
	double ladder[MAX_LADDER];	/* offered events/s; 0: as fast as the threads can */
	int nladder;
	double ladder_secs;
	int quick;
	int diag;			/* --diag: the diagnostic configurations too */
	const char *only;		/* --only: configurations of part 1, and parts */
	char tracer[PATH_MAX];
	const char *csv;
};

extern struct options opt;

/*
 * The generator's system call and its tracepoint: getppid by default;
 * another argument-less one (same 12-byte raw record) when getppid's
 * tracepoint is taken (--syscall).
 */
extern const char *sys_name;
extern long sys_nr;
extern char event_name[64];		/* sys_enter_getppid */
extern char event_spec[96];		/* syscalls:sys_enter_getppid */
extern char exit_spec[96];		/* syscalls:sys_exit_getppid */

/* Sets opt and the measured event from the command line; usage() on an error. */
void parse_options(int argc, char **argv);

/* Prints the usage text on stderr and exits with status 2. */
void usage(void);

struct config;

/* Is the diagnostic configuration c asked for (--diag or --only)?  If not, c->why says so. */
bool diag_wanted(struct config *c);

/* --- Shared state and helpers (harness.c) ------------------------------------- */

extern int ncpu;
extern char tmpdir[256];		/* this run's files; "" when none */
extern volatile sig_atomic_t interrupted;	/* the signal that asked us to stop */
extern pid_t child_pid;			/* tracer, perf, trace-cmd or bpftrace while running */

/* CLOCK_MONOTONIC in ns. */
__u64 now_ns(void);

void sleep_ms(long ms);

/* A progress message on stderr. */
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes s to the file (truncated); 0 or -errno. */
int write_str(const char *path, const char *s);

/* The file's text, without the trailing newline; "" when unreadable. */
char *read_str(const char *path, char *buf, size_t len);

/*
 * Reads /proc/PID/stat into buf; where the command's name ends (its ')',
 * the fields follow 2 bytes on), or NULL when unreadable.
 */
char *proc_stat(pid_t pid, char *buf, size_t len);

/* Removes the tree below path, path included; errors are ignored. */
void rm_rf(const char *path);

/* Pins the calling thread to cpu; 0 or an error number. */
int pin_self(int cpu);

/* Median, minimum and maximum of n values (n <= MAX_ROUNDS; median 0 when n is 0). */
double median(const double *v, int n);
double vmin(const double *v, int n);
double vmax(const double *v, int n);

/* Is key in the comma-separated list? */
bool key_listed(const char *list, const char *key);

/*
 * Makes tmpdir (/tmp/tracepoint_bench.XXXXXX) with our pid in its file
 * "pid", and removes those of killed runs; 0, or -1 after saying why.
 */
int make_tmpdir(void);

/* --- Subprocesses (subprocess.c) ---------------------------------------------- */

/* Runs argv with stdout and stderr into log; it gets SIGINT if we die. Its pid. */
pid_t spawn(char *const argv[], const char *log);

/* Waits for the child, SIGKILL after timeout_ms; its wait status or -1. */
int reap(pid_t pid, int timeout_ms);

/*
 * Stops child_pid (if any) with sig, SIGKILL after timeout_ms, and the
 * processes left in its process group; its wait status in *status (if not
 * NULL); child_pid is 0 after.
 */
void stop_child(int sig, int timeout_ms, int *status);

/* Is the child still running?  If not, its wait status is in *status. */
bool child_alive(pid_t pid, int *status);

/* How many BPF links the process holds (a recorder has attached when > 0). */
int count_bpf_links(pid_t pid);

/* Copies the log to stderr, each line after indent. */
void log_tail(const char *log, const char *indent);

/*
 * Waits in 5 ms steps, at most `tries` of them, until ready(arg) says
 * child_pid has attached: 0; -ECHILD if it exits first (its log's end
 * shown), -ETIMEDOUT (it is killed).
 */
int await_attached(bool (*ready)(const void *arg), const void *arg, const char *what,
		   const char *log, int tries);

/* --- Machine state (machine.c) ------------------------------------------------- */

#define DISTURBED	0.05		/* of one CPU, over the run */
#define MAX_ATTEMPTS	2

/* The CPUs' busy and stolen time, and the part that is ours, at time t. */
struct cpu_sample {
	unsigned long long busy, steal, ours;
	__u64 t;
};

void cpu_sample(struct cpu_sample *s);

/* CPUs' worth of time others used between a and b (*others), and stolen (*steal). */
void cpu_others(const struct cpu_sample *a, const struct cpu_sample *b, double *others,
		double *steal);

/* Writes the "## Machine" section: kernel, load, other busy processes and BPF programs. */
void machine_state(FILE *out);

/* What machine_state() found: another BPF program on the event; the 1-minute load. */
extern bool foreign_program;
extern double loadavg_start;

/* --- tracefs (tracefs.c) --------------------------------------------------------- */

/* Mounts tracefs unless it is; 0 or -errno. */
int ensure_tracefs(void);

/* Unmounts tracefs if ensure_tracefs() mounted it (a warning if it cannot). */
void unmount_tracefs_if_ours(void);

/* Removes the ftrace instances of killed runs of this benchmark. */
void remove_stale_instances(void);

/*
 * The top-level tracefs settings trace-cmd changes: saved before it runs,
 * restored after it, even on failure (restoring before any save does nothing).
 */
void save_top_tracefs(void);
void restore_top_tracefs(void);

/* --- The generator (generator.c) ----------------------------------------------- */

/*
 * Calls per second per thread, 0 for as fast as it can: a throttled thread
 * makes a batch of calls per tick of about 1 ms, then sleeps until the
 * next tick (not at all when it is behind).
 */
extern double gen_rate;

/*
 * Makes calls sys_nr calls on each of nthreads threads (thread i pinned to
 * CPU i); wall ns per call per thread: first start to last end over the
 * calls of one thread.
 */
double generate(int nthreads, long calls);

/* Threads of the current generator run: records of theirs are "ours". */
extern volatile pid_t cur_tid[MAX_THREADS];
extern volatile int cur_ntid;

/* Which generator thread the pid is, or -1 (inline: consumers ask per record). */
static inline int our_index(int pid)
{
	int i, n = cur_ntid;

	for (i = 0; i < n; i++)
		if (pid == cur_tid[i])
			return i;
	return -1;
}

static inline bool is_ours(int pid)
{
	return our_index(pid) >= 0;
}

/* --- Configurations and their runs (run.c) --------------------------------------- */

/* One run of a configuration. */
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

/* A way of recording the event (a peer), as part 1 runs it. */
struct config {
	const char *key;
	const char *label;
	int (*setup)(struct config *c);		/* once; 0 or -errno (then skipped) */
	int (*start)(void);			/* before each run */
	void (*stop)(struct run_result *r);	/* after each run */
	bool available;
	char why[512];				/* why not available, or a remark */
};

/*
 * Runs c once with the generator, again (at most MAX_ATTEMPTS) while others
 * used the CPUs during it; 0 or the start's -errno (then r->note says so).
 */
int run_config_quiet(struct config *c, int threads, long calls, struct run_result *r);

/* Did others use more than DISTURBED of a CPU during the run? */
bool disturbed(const struct run_result *r);

#endif

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Peer: bpftrace counting the event per thread in a map (aggregated in the
 * kernel, nothing streamed); the counts are read from what it prints on
 * SIGINT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peers.h"

static char bt_log[PATH_MAX], bt_prog[256];

/* Does a line of the file hold text? */
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

int bpftrace_setup(struct config *c)
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

/* await_attached()'s test: bpftrace has said "ready" in its log. */
static bool said_ready(const void *log)
{
	return file_has(log, "ready");
}

/* bpftrace runs BEGIN once every probe is attached: "ready" means recording. */
int bpftrace_start(void)
{
	char *argv[] = { "bpftrace", "-e", bt_prog, NULL };

	unlink(bt_log);		/* the last run's "ready" is not this one's */
	child_pid = spawn(argv, bt_log);
	return await_attached(said_ready, bt_log, "bpftrace", bt_log, 6000);
}

/* On SIGINT bpftrace prints its map: "@[tid]: count" lines. */
void bpftrace_stop(struct run_result *r)
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

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Peer: `trace-cmd record` (8 MiB per CPU), if it runs on this kernel;
 * the top-level tracefs settings it changes are restored after it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peers.h"

static char tc_data[PATH_MAX], tc_log[PATH_MAX], tc_error[256];

/* Runs trace-cmd once on `true`: 0 if it works, else -ENOTSUP with its complaint in c->why. */
int trace_cmd_setup(struct config *c)
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

int trace_cmd_start(void)
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

void trace_cmd_stop(struct run_result *r)
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

const char *trace_cmd_error(void)
{
	return tc_error;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracefs for tracepoint_bench: mounted if it is not (and unmounted at the
 * end), the top-level settings trace-cmd changes saved and restored, and
 * the ftrace instances of killed runs removed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "harness.h"

static int tracefs_mounted_by_us;

struct tracefs_setting {
	const char *file;
	char value[128];
	bool saved;
};
#define SETTING(f)	{ .file = (f), .value = "", .saved = false }

/* The measured event's enable file, named when the settings are saved. */
static char event_enable_file[128];

/* Top-level files trace-cmd touches: restored after it, even on failure. */
static struct tracefs_setting top_settings[] = {
	SETTING("tracing_on"), SETTING("buffer_size_kb"), SETTING("current_tracer"),
	SETTING(event_enable_file), SETTING("options/function-trace"),
	SETTING("options/overwrite"), SETTING("trace_clock"),
};
static bool top_saved;

/* Saves top_settings' values (those it can read). */
void save_top_tracefs(void)
{
	char path[PATH_MAX];
	size_t i;

	snprintf(event_enable_file, sizeof(event_enable_file), "events/" EVENT_SYSTEM "/%s/enable",
		 event_name);
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

void restore_top_tracefs(void)
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

/* Is tracefs mounted at TRACEFS? */
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

int ensure_tracefs(void)
{
	if (tracefs_is_mounted())
		return 0;
	if (mount("nodev", TRACEFS, "tracefs", 0, NULL))
		return -errno;
	tracefs_mounted_by_us = 1;
	return 0;
}

void unmount_tracefs_if_ours(void)
{
	if (tracefs_mounted_by_us && umount2(TRACEFS, 0))
		progress("warning: cannot unmount %s (mounted by this benchmark): %s\n", TRACEFS,
			 strerror(errno));
}

/* Instances left by a killed run of this benchmark: remove them. */
void remove_stale_instances(void)
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

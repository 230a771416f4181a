// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include <tracefs.h>
#include <event-parse.h>

#include "events/events.h"
#include "events/probes.h"
#include "events/filter.h"
#include "common/suggest.h"
#include "common/syscalls.h"

#define TRACEFS_PATH "/sys/kernel/tracing"

/*
 * Where a tracefs is mounted, the first in /proc/mounts as libtracefs
 * finds it, into dir (len bytes): 0, or -ENOENT.  libtracefs' own
 * answers leak: tracefs_tracing_dir_is_mounted() the path it found, and
 * tracefs_tracing_dir() a copy each time it cannot read the directory.
 */
static int tracefs_mount_point(char *dir, size_t len)
{
	FILE *mounts = setmntent("/proc/mounts", "r");
	struct mntent *m;
	int err = -ENOENT;

	while (mounts && err && (m = getmntent(mounts)))
		if (!strcmp(m->mnt_type, "tracefs"))
			err = snprintf(dir, len, "%s", m->mnt_dir) < (int)len ? 0 : -ENOENT;
	if (mounts)
		endmntent(mounts);
	return err;
}

int tr_tracefs_mount(void)
{
	char dir[PATH_MAX];

	if (!tracefs_mount_point(dir, sizeof(dir)))
		return 0;
	return mount("nodev", TRACEFS_PATH, "tracefs", 0, NULL) ? -errno : 0;
}

/* Every "system:event" tracefs knows, or NULL. */
static char **all_event_names(void)
{
	char **systems = tracefs_event_systems(NULL), **names = NULL;
	int i, j;

	for (i = 0; systems && systems[i]; i++) {
		char **events = tracefs_system_events(NULL, systems[i]);

		for (j = 0; events && events[j]; j++) {
			char *full;

			if (asprintf(&full, "%s:%s", systems[i], events[j]) < 0)
				continue;
			names = tracefs_list_add(names, full);
			free(full);
		}
		tracefs_list_free(events);
	}
	tracefs_list_free(systems);
	return names;
}

/* Why all_event_names() found none: one line in why, -errno. */
static int no_names(char *why, size_t whylen)
{
	char dir[PATH_MAX];

	if (!tracefs_mount_point(dir, sizeof(dir)) && access(dir, R_OK | X_OK) && errno == EACCES) {
		snprintf(why, whylen, "reading the tracepoints in %s is not permitted: run as root", dir);
		return -EACCES;
	}
	snprintf(why, whylen, "no tracepoints found in tracefs (is it mounted at %s?)",
		 TRACEFS_PATH);
	return -ENOENT;
}

/*
 * Specs longer than this get no suggestions: the edit distance costs the
 * product of the lengths for each of the thousands of names.
 */
#define SUGGEST_MAX_LEN	256

/* "unknown event 'x'; did you mean a, b?" with up to three close names. */
static void suggest(const char *spec, char **names, char *why, size_t whylen)
{
	const char *best[3] = { 0 };
	unsigned int dist[3] = { ~0u, ~0u, ~0u }, limit = strlen(spec) / 3 + 2;
	int i, k, n;

	if (strlen(spec) > SUGGEST_MAX_LEN) {
		snprintf(why, whylen, "unknown event '%.32s...' (%zu characters; tracer list shows the events)",
			 spec, strlen(spec));
		return;
	}
	for (i = 0; names && names[i]; i++) {
		const char *colon = strchr(names[i], ':');
		unsigned int d = tr_edit_distance(spec, strchr(spec, ':') ? names[i] : colon + 1);

		for (k = 0; k < 3; k++)
			if (d <= limit && d < dist[k]) {
				memmove(&best[k + 1], &best[k], (2 - k) * sizeof(best[0]));
				memmove(&dist[k + 1], &dist[k], (2 - k) * sizeof(dist[0]));
				best[k] = names[i];
				dist[k] = d;
				break;
			}
	}
	n = snprintf(why, whylen, "unknown event '%s'", spec);
	for (k = 0; k < 3 && best[k] && n > 0 && (size_t)n < whylen; k++)
		n += snprintf(why + n, whylen - n, "%s%s", k ? ", " : "; did you mean ",
			      best[k]);
	if (n > 0 && (size_t)n < whylen)
		snprintf(why + n, whylen - n, "%s", best[0] ? "?" :
			 " (tracer list shows the events)");
}

static int matches(const char *spec, const char *full)
{
	/* A bare event name matches in any system. */
	if (!strchr(spec, ':'))
		return fnmatch(spec, strchr(full, ':') + 1, 0) == 0;
	return fnmatch(spec, full, 0) == 0;
}

struct tr_event *tr_events_find(struct tr_event_set *set, const char *full)
{
	unsigned int i;
	size_t sys = strchr(full, ':') - full;

	for (i = 0; i < set->count; i++)
		if (strlen(set->events[i].system) == sys &&
		    !strncmp(set->events[i].system, full, sys) &&
		    !strcmp(set->events[i].name, full + sys + 1))
			return &set->events[i];
	return NULL;
}

/* The fixed size and dynamic-field locators the BPF program walks. */
static int shape_of(struct tep_event *ev, struct tr_event_shape *shape)
{
	struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	struct tep_format_field *f;
	int l;

	shape->kernel_id = ev->id;
	shape->fixed_size = 0;
	shape->ndyn = 0;
	for (l = 0; l < 2; l++)
		for (f = lists[l]; f; f = f->next) {
			if ((__u32)(f->offset + f->size) > shape->fixed_size)
				shape->fixed_size = f->offset + f->size;
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
				continue;
			if (shape->ndyn == TR_MAX_DYN)
				return -E2BIG;
			shape->dyn_offset[shape->ndyn++] = f->offset |
				(f->flags & TEP_FIELD_IS_RELATIVE ? TR_DYN_RELATIVE : 0);
		}
	return 0;
}

/* The next slot, not yet counted: set->count once it is complete. */
static struct tr_event *new_event(struct tr_event_set *set, char *system, char *name)
{
	struct tr_event *ev = &set->events[set->count];

	memset(ev, 0, sizeof(*ev));
	ev->id = set->count;
	ev->system = system;
	ev->name = name;
	ev->syscall_nr = -1;
	return ev;
}

/* syscalls:sys_enter_NAME and sys_exit_NAME: which system call, which end. */
static void find_syscall(struct tr_event *ev)
{
	static const char enter[] = "sys_enter_", exit[] = "sys_exit_";

	if (strcmp(ev->system, "syscalls"))
		return;
	if (!strncmp(ev->name, enter, strlen(enter)))
		ev->syscall_nr = tr_syscall_nr(ev->name + strlen(enter));
	if (!strncmp(ev->name, exit, strlen(exit))) {
		ev->syscall_nr = tr_syscall_nr(ev->name + strlen(exit));
		ev->syscall_exit = 1;
	}
}

int tr_events_add_format(struct tr_event_set *set, const char *system,
			 const char *name, const char *format)
{
	struct tr_event *ev;

	if (set->count == TR_MAX_EVENTS)
		return -E2BIG;
	ev = new_event(set, strdup(system), strdup(name));
	ev->format = strdup(format);
	ev->not_a_tracepoint = 1;
	if (tep_parse_format(set->tep, &ev->tep, ev->format, strlen(format), system))
		return -EINVAL;
	set->count++;
	return shape_of(ev->tep, &ev->shape);
}

static int add_event(struct tr_event_set *set, const char *full, char *why,
		     size_t whylen)
{
	struct tr_event *ev;
	size_t sys = strchr(full, ':') - full;
	int size = 0, err;

	if (set->count == TR_MAX_EVENTS) {
		snprintf(why, whylen, "more than %d events", TR_MAX_EVENTS);
		return -E2BIG;
	}
	ev = new_event(set, strndup(full, sys), strdup(full + sys + 1));
	ev->format = tracefs_event_file_read(NULL, ev->system, ev->name, "format", &size);
	if (!ev->format || tep_parse_format(set->tep, &ev->tep, ev->format, size,
					    ev->system)) {
		snprintf(why, whylen, "cannot read the format of %s", full);
		return -EIO;
	}
	err = shape_of(ev->tep, &ev->shape);
	if (err) {
		snprintf(why, whylen, "%s has more than %d dynamic fields", full, TR_MAX_DYN);
		return err;
	}
	find_syscall(ev);
	set->count++;
	return 0;
}

/* What a one-line message quotes of a filter: QUOTE_MAX bytes at most, then "...". */
#define QUOTE_MAX	80

static const char *quote(const char *text, char buf[QUOTE_MAX + 4])
{
	if (strlen(text) <= QUOTE_MAX)
		return text;
	snprintf(buf, QUOTE_MAX + 4, "%.*s...", QUOTE_MAX, text);
	return buf;
}

/*
 * Give ev the filter of the spec that selected it, or OR it with the
 * filter it has from another spec; a spec without a filter makes the
 * event unfiltered for good.
 */
static int add_filter(struct tr_event *ev, const char *spec, const char *filter,
		      char *why, size_t whylen)
{
	struct tr_filter *prog;
	char what[512], quoted[QUOTE_MAX + 4];
	int err;

	if (ev->unfiltered || !filter) {
		free(ev->filter);
		ev->filter = NULL;
		ev->unfiltered = 1;
		return 0;
	}
	prog = malloc(sizeof(*prog));
	if (!prog)
		return -ENOMEM;
	err = tr_filter_compile(ev->tep, filter, prog, what, sizeof(what));
	if (err && strpbrk(spec, "*?["))
		snprintf(why, whylen, "--filter '%s' (for %s:%s, one of -e %s): %s",
			 quote(filter, quoted), ev->system, ev->name, spec, what);
	else if (err)
		snprintf(why, whylen, "--filter '%s': %s", quote(filter, quoted), what);
	if (!err && !ev->filter) {
		ev->filter = prog;
		return 0;
	}
	if (!err) {
		err = tr_filter_or(ev->filter, prog);
		if (err)
			snprintf(why, whylen, "the filters of %s:%s from several -e options make more than %d operations together",
				 ev->system, ev->name, TR_FILTER_MAX_INSNS);
	}
	free(prog);
	return err;
}

/* An event selected again by a spec sending it to another channel: why not. */
static int channel_conflict(const struct tr_event *ev, const char *spec, char *why, size_t whylen)
{
	snprintf(why, whylen, "-e %s sends %s:%s to another channel than an -e before it; an event has one channel",
		 spec, ev->system, ev->name);
	return -EINVAL;
}

/*
 * The events of probe spec (its -e as written: given), each in channel,
 * each with filter (or none).
 */
static int add_probes(struct tr_event_set *set, const char *spec, const char *given,
		      const char *filter, unsigned int channel, char *why, size_t whylen)
{
	unsigned int i, first = set->count;
	int err = tr_probe_add(set, spec, why, whylen);

	for (i = first; i < set->count && !err; i++) {
		set->events[i].shape.channel = channel;
		err = add_filter(&set->events[i], given, filter, why, whylen);
	}
	return err;
}

/*
 * Whether an -e that names no tracepoint names kernel functions instead
 * (-e vfs_read, -e 'vfs_*'), as --function does.
 */
static int names_functions(const char *spec)
{
	char module[64], closest[128];

	if (strchr(spec, ':'))
		return 0;
	if (strpbrk(spec, "*?["))
		return tr_kernel_functions_match(spec) > 0;
	return tr_kallsyms_function(spec, module, sizeof(module), closest, sizeof(closest)) > 0;
}

int tr_events_resolve(struct tr_event_set *set, const char *const *specs,
		      const char *const *filters, const unsigned int *channels,
		      unsigned int nspecs, char *why, size_t whylen)
{
	struct tr_event *ev;
	char **names = all_event_names();
	unsigned int s, found;
	int i, err = 0;

	memset(set, 0, sizeof(*set));
	if (!names)
		return no_names(why, whylen);
	set->tep = tep_alloc();
	set->events = calloc(TR_MAX_EVENTS, sizeof(*set->events));
	for (s = 0; s < nspecs && !err; s++) {
		if (tr_ust_spec(specs[s]))
			continue;
		if (tr_probe_spec(specs[s])) {
			err = add_probes(set, specs[s], specs[s], filters ? filters[s] : NULL,
					 channels ? channels[s] : 0, why, whylen);
			continue;
		}
		for (i = 0, found = 0; names[i] && !err; i++) {
			if (!matches(specs[s], names[i]))
				continue;
			found++;
			ev = tr_events_find(set, names[i]);
			if (ev && ev->shape.channel != (channels ? channels[s] : 0))
				err = channel_conflict(ev, specs[s], why, whylen);
			if (!ev && !err) {
				err = add_event(set, names[i], why, whylen);
				ev = err ? NULL : &set->events[set->count - 1];
				if (ev)
					ev->shape.channel = channels ? channels[s] : 0;
			}
			if (ev && !err)
				err = add_filter(ev, specs[s], filters ? filters[s] : NULL,
						 why, whylen);
		}
		if (!found && !err && names_functions(specs[s])) {
			char function[256];

			snprintf(function, sizeof(function), "function:%s", specs[s]);
			err = add_probes(set, function, specs[s], filters ? filters[s] : NULL,
					 channels ? channels[s] : 0, why, whylen);
			continue;
		}
		if (!found && !err) {
			if (strpbrk(specs[s], "*?["))
				snprintf(why, whylen, "'%s' matches no tracepoint", specs[s]);
			else
				suggest(specs[s], names, why, whylen);
			err = -ENOENT;
		}
	}
	tracefs_list_free(names);
	if (err)
		tr_events_free(set);
	return err;
}

int tr_events_add_trigger(struct tr_event_set *set, const char *spec, __u32 *id,
			  int *recorded, struct tr_filter *trigger, char *why, size_t whylen)
{
	const char *colon = strchr(spec, ':'), *filter = colon ? strchr(colon + 1, ':') : NULL;
	char *name = strndup(spec, filter ? (size_t)(filter - spec) : strlen(spec)), **names;
	struct tr_event *ev;
	char what[512], quoted_spec[QUOTE_MAX + 4], quoted[QUOTE_MAX + 4];
	int err = 0, i, found = 0;

	memset(trigger, 0, sizeof(*trigger));
	if (!name)
		return -ENOMEM;
	if (!colon || strpbrk(name, "*?[")) {
		snprintf(why, whylen, "--snapshot-on '%s': one event, as system:event[:filter]", spec);
		free(name);
		return -EINVAL;
	}
	ev = tr_events_find(set, name);
	*recorded = ev != NULL;
	names = ev ? NULL : all_event_names();
	for (i = 0; names && names[i] && !found; i++)
		found = !strcmp(names[i], name);
	if (!ev && !found) {
		if (names)
			suggest(name, names, why, whylen);
		else
			no_names(why, whylen);
		err = -ENOENT;
	}
	if (!err && !ev) {
		err = add_event(set, name, why, whylen);
		ev = err ? NULL : &set->events[set->count - 1];
	}
	tracefs_list_free(names);
	if (ev) {
		*id = ev->id;
		if (filter && filter[1])
			err = tr_filter_compile(ev->tep, filter + 1, trigger, what, sizeof(what));
		if (err)
			snprintf(why, whylen, "--snapshot-on '%s': filter '%s': %s",
				 quote(spec, quoted_spec), quote(filter + 1, quoted), what);
	}
	free(name);
	return err;
}

void tr_events_free(struct tr_event_set *set)
{
	unsigned int i;

	for (i = 0; set->events && i <= set->count && i < TR_MAX_EVENTS; i++) {
		free(set->events[i].system);
		free(set->events[i].name);
		free(set->events[i].format);
		free(set->events[i].filter);
		tr_probe_free(set->events[i].probe);
	}
	free(set->events);
	if (set->tep)
		tep_free(set->tep);
	memset(set, 0, sizeof(*set));
}

int tr_events_list(const char *glob, FILE *out, char *why, size_t whylen)
{
	char **names = all_event_names();
	int i, n = 0;

	if (!names)
		return no_names(why, whylen);
	for (i = 0; names && names[i]; i++)
		if (!glob || matches(glob, names[i])) {
			fprintf(out, "%s\n", names[i]);
			n++;
		}
	tracefs_list_free(names);
	return n;
}

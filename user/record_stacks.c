// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a recording with call stacks (-g) leaves for report to name their
 * frames by: .tracer/stacks (which stacks the records carry), the
 * kernel's text symbols (/proc/kallsyms as the recorder sees them), and
 * the executable mappings of every process whose records carry a user
 * stack, read from /proc/PID/maps when the consumer first meets it.  A
 * process that exits, or replaces its image, before then is not named.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

/* Adds pid to the table; 0 if it was there. */
static int insert_pid(__u32 *pids, __u32 size, __u32 pid)
{
	__u32 i = pid & (size - 1);

	while (pids[i] && pids[i] != pid)
		i = (i + 1) & (size - 1);
	if (pids[i])
		return 0;
	pids[i] = pid;
	return 1;
}

/* The set of processes met: open addressing, at most half full.  1 if pid was in it. */
static int pid_seen(struct rec_maps *m, __u32 pid)
{
	__u32 *bigger, i, size;

	if (2 * (m->npids + 1) > m->size) {
		size = m->size ? 2 * m->size : 64;
		bigger = calloc(size, sizeof(*bigger));
		if (!bigger)
			return 1;
		for (i = 0; i < m->size; i++)
			if (m->pids[i])
				insert_pid(bigger, size, m->pids[i]);
		free(m->pids);
		m->pids = bigger;
		m->size = size;
	}
	if (!insert_pid(m->pids, m->size, pid))
		return 1;
	m->npids++;
	return 0;
}

/* Appends pid's executable file mappings as "PID START END OFFSET PATH" lines. */
static void read_maps(struct rec_maps *m, __u32 pid)
{
	char path[64], line[4096], perms[8], file[PATH_MAX];
	unsigned long long start, end, offset;
	FILE *in;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	in = fopen(path, "r");
	if (!in)
		return;
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms,
			   &offset, file) != 5 || !strchr(perms, 'x') || file[0] != '/')
			continue;
		if (m->text_len + strlen(file) + 80 > m->text_size) {
			size_t size = 2 * m->text_size + strlen(file) + 4096;
			char *bigger = realloc(m->text, size);

			if (!bigger)
				break;
			m->text = bigger;
			m->text_size = size;
		}
		m->text_len += sprintf(m->text + m->text_len, "%u %llx %llx %llx %s\n",
				       pid, start, end, offset, file);
	}
	fclose(in);
}

void rec_maps_meet(struct rec_maps *m, __u32 pid)
{
	if (pid && !pid_seen(m, pid))
		read_maps(m, pid);
}

void rec_maps_free(struct rec_maps *m)
{
	free(m->pids);
	free(m->text);
	memset(m, 0, sizeof(*m));
}

/* /proc/kallsyms's text symbols ("ADDRESS T NAME [module]"), as report reads them. */
static int copy_kallsyms(FILE *out)
{
	FILE *in = fopen("/proc/kallsyms", "r");
	char line[512], type;

	if (!in)
		return -errno;
	while (fgets(line, sizeof(line), in))
		if (sscanf(line, "%*x %c", &type) == 1 && (type == 't' || type == 'T'))
			fputs(line, out);
	fclose(in);
	return 0;
}

static int write_meta(struct session *s, const char *name, const char *text,
		      int (*copy)(FILE *))
{
	FILE *f = tr_trace_dir_meta_file(&s->dir, name);
	int err;

	if (!f)
		return -errno;
	err = copy ? copy(f) : (fputs(text, f) == EOF ? -EIO : 0);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

int rec_write_stacks_info(struct session *s)
{
	unsigned int which = s->o->stacks;
	int err;

	if (!which)
		return 0;
	err = write_meta(s, TR_TRACE_STACKS,
			 which == TR_STACK_KERNEL ? "kernel\n" :
			 which == TR_STACK_USER ? "user\n" : "kernel user\n", NULL);
	if (!err && (which & TR_STACK_KERNEL))
		err = write_meta(s, TR_TRACE_KALLSYMS, NULL, copy_kallsyms);
	if (err)
		rec_say("cannot write what names the stacks' frames into %s: %s",
			s->o->output, strerror(-err));
	return err;
}

int rec_write_maps(struct session *s)
{
	int err;

	if (!(s->o->stacks & TR_STACK_USER))
		return 0;
	err = write_meta(s, TR_TRACE_MAPS, s->maps.text ? s->maps.text : "", NULL);
	if (err)
		rec_say("cannot write the processes' mappings into %s: %s", s->o->output,
			strerror(-err));
	return err;
}

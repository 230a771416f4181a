// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer export --format trace-cmd -o FILE: a trace.dat for trace-cmd
 * report and KernelShark, written by libtracecmd (trace-cmd's own
 * writer), as `trace-cmd restore` writes one from a tracing directory and
 * per-CPU pages:
 *   - a directory of our own (made beside FILE, removed at the end) laid
 *     out as tracefs is: events/header_page and header_event (the page
 *     layout ftrace_pages.h writes), each event class's format as
 *     events/SYSTEM/ID/format, printk_formats and kallsyms as the trace
 *     saved them, saved_cmdlines from the tasks the trace names, and
 *     trace_clock (mono: the records' clock);
 *   - per CPU, the records in the kernel's ring-buffer pages
 *     (ftrace_pages.h); a loss sets the missed-events flag of the page
 *     after it, with the number lost where it is known.
 * A record goes as its tracepoint record (what precedes its stacks and
 * context), its common_type the class's trace.dat id (the class id + 1)
 * and its common_pid its thread.  Classes of the "ftrace" system (trace-cmd
 * gives it a meaning of its own), or without the common fields, and
 * records larger than a page are left out, and said.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <event-parse.h>
#include <trace-cmd/trace-cmd.h>
#include <tracefs.h>
#include <tracer/cpus.h>
#include <tracer/record.h>

#include "sinks/sink.h"
#include "sinks/by_class.h"
#include "sinks/ftrace_pages.h"
#include "sinks/tasks.h"
#include "reader/trace.h"
#include "reader/trace_dir.h"

/*
 * libtracecmd's writer, exported by libtracecmd.so.1 but declared only in
 * trace-cmd's private header (trace-cmd-private.h of trace-cmd 3.1), which
 * libtracecmd-dev does not install: what trace-cmd restore calls.
 */
struct tracecmd_output;
struct tracecmd_event_list;
struct tracecmd_output *tracecmd_output_create_fd(int fd);
void tracecmd_set_quiet(struct tracecmd_output *handle, bool set_quiet);
int tracecmd_output_set_trace_dir(struct tracecmd_output *handle, const char *tracing_dir);
int tracecmd_output_set_kallsyms(struct tracecmd_output *handle, const char *kallsyms);
int tracecmd_output_write_headers(struct tracecmd_output *handle, struct tracecmd_event_list *list);
int tracecmd_write_cmdlines(struct tracecmd_output *handle);
int tracecmd_append_cpu_data(struct tracecmd_output *handle, int cpus, char *const *cpu_data_files);
void tracecmd_output_close(struct tracecmd_output *handle);

/* What a class is to the export, by class id (tr_by_class, filled with 0). */
enum class_state { CLASS_NEW, CLASS_WRITTEN, CLASS_LEFT_OUT };

/*
 * The largest class id trace.dat takes: its ids are 16 bits, 0 is left
 * unused and the last one is ftrace_print's.
 */
#define MAX_CLASS_ID		65533

/*
 * libtracecmd reads the ftrace system's formats and needs one at least
 * (it crashes without): the kernel's trace_printk() event, which no
 * record uses, with an id no class has.
 */
static const char ftrace_print[] =
	"name: print\n"
	"ID: 65535\n"
	"format:\n"
	TR_FORMAT_COMMON_FIELDS
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n"
	"\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

struct tracecmd {
	struct tr_trace *trace;
	const char *command;
	int out_fd;			/* FILE's, our own copy (libtracecmd closes it) */
	char dir[PATH_MAX];		/* the tracing directory made for libtracecmd */
	int dir_fd;
	struct tr_ftrace_pages *cpus[TR_MAX_CPUS];	/* NULL until the CPU has a record or a loss */
	unsigned int ncpus;		/* the highest CPU met + 1 */
	struct tr_by_class classes;	/* enum class_state, as __u8 */
	__u64 too_big, left_out;	/* records not written: larger than a page, of a class left out */
	unsigned int losses_at_end;	/* CPUs whose last loss no record follows */
	int err;			/* the first failure, -errno: the export fails */
	const char *failed;		/* ... in what */
	unsigned char record[TR_FTRACE_PAYLOAD_MAX];
};

/* The first failure (what, -errno) is kept: t->err. */
static int fail(struct tracecmd *t, const char *what, int err)
{
	if (!t->err) {
		t->err = err;
		t->failed = what;
	}
	return t->err;
}

/* text as the file name (relative to the tracing directory): 0 or fail()'s. */
static int write_file(struct tracecmd *t, const char *name, const char *text, size_t len)
{
	int fd = openat(t->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int err = fd < 0 ? -errno : 0;

	if (!err && write(fd, text, len) != (ssize_t)len)
		err = -EIO;
	if (fd >= 0 && close(fd) && !err)
		err = -errno;
	return err ? fail(t, name, err) : 0;
}

/* The trace's .tracer/name copied as the file name: 0 when it has none, or fail()'s. */
static int copy_meta(struct tracecmd *t, const char *meta, const char *name)
{
	int in = tr_trace_open_meta(t->trace, meta), out, err = 0;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return 0;
	out = openat(t->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		err = -errno;
	while (!err && (n = tr_read_all(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			err = -EIO;
	if (!err && n < 0)
		err = n;
	if (out >= 0 && close(out) && !err)
		err = -errno;
	close(in);
	return err ? fail(t, name, err) : 0;
}

/* A directory at path (relative to the tracing directory), if new: 0 or fail()'s. */
static int make_dir(struct tracecmd *t, const char *path)
{
	return mkdirat(t->dir_fd, path, 0700) && errno != EEXIST ? fail(t, path, -errno) : 0;
}

/*
 * Class id's format as events/SYSTEM/ID/format, with id + 1 as its ID: 0;
 * -ENOENT for a class trace.dat cannot hold; or fail()'s.
 */
static int write_format(struct tracecmd *t, __u32 id, const struct tr_trace_class *class)
{
	const struct tep_format_field *type, *pid;
	char path[600], *text;
	int err;

	type = tep_find_common_field(class->tep, "common_type");
	pid = tep_find_common_field(class->tep, "common_pid");
	if (id > MAX_CLASS_ID || !strcmp(class->system, "ftrace") || class->system[0] == '.' ||
	    !type || type->offset != 0 || type->size != 2 || !pid || pid->offset != 4 || pid->size != 4)
		return -ENOENT;
	text = tr_trace_format_text(t->trace, id, id + 1);
	if (!text)
		return -ENOENT;
	snprintf(path, sizeof(path), "events/%s", class->system);
	err = make_dir(t, path);
	if (!err) {
		snprintf(path, sizeof(path), "events/%s/%u", class->system, id + 1);
		err = make_dir(t, path);
	}
	if (!err) {
		snprintf(path, sizeof(path), "events/%s/%u/format", class->system, id + 1);
		err = write_file(t, path, text, strlen(text));
	}
	free(text);
	return err;
}

/* The class of it written out if new: whether its records go in. */
static bool class_written(struct tracecmd *t, const struct tr_item *it)
{
	__u8 *state = tr_by_class(&t->classes, it->record->id);
	int err;

	if (!state) {
		fail(t, "memory", -ENOMEM);
		return false;
	}
	if (*state == CLASS_NEW) {
		err = write_format(t, it->record->id, it->class);
		*state = err == -ENOENT ? CLASS_LEFT_OUT : CLASS_WRITTEN;
	}
	return *state == CLASS_WRITTEN;
}

/* The CPU's pages, begun on their first use: NULL for a CPU beyond TR_MAX_CPUS, or fail()ed. */
static struct tr_ftrace_pages *pages_of(struct tracecmd *t, __u32 cpu)
{
	char name[32];
	int fd;

	if (cpu >= TR_MAX_CPUS)
		return fail(t, "a CPU number", -ERANGE), NULL;
	if (t->cpus[cpu])
		return t->cpus[cpu];
	snprintf(name, sizeof(name), "cpu%u", cpu);
	fd = openat(t->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || !(t->cpus[cpu] = malloc(sizeof(*t->cpus[cpu])))) {
		fail(t, name, fd < 0 ? -errno : -ENOMEM);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	tr_ftrace_pages_init(t->cpus[cpu], fd);
	t->ncpus = cpu + 1 > t->ncpus ? cpu + 1 : t->ncpus;
	return t->cpus[cpu];
}

/* The bytes of a record's tracepoint record: its payload less its stacks and context. */
static __u32 tracepoint_bytes(const struct tr_item *it)
{
	__u32 bytes = it->record->size;

	if (it->kernel_frames + it->user_frames && it->frames_at < bytes)
		bytes = it->frames_at;
	if (it->context_at && it->context_at < bytes)
		bytes = it->context_at;
	return bytes;
}

static void dat_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct tracecmd *t = state;
	__u32 bytes = tracepoint_bytes(it);
	__u16 type = htole16(it->record->id + 1);
	__u32 pid = htole32(it->record->tid);
	struct tr_ftrace_pages *p;

	(void)tasks;
	if (t->err)
		return;
	if (!class_written(t, it) || bytes < 8) {
		t->left_out++;
		return;
	}
	if (bytes > TR_FTRACE_PAYLOAD_MAX) {
		t->too_big++;
		return;
	}
	p = pages_of(t, it->cpu);
	if (!p)
		return;
	memcpy(t->record, it->payload, bytes);
	memcpy(t->record, &type, 2);
	memcpy(t->record + 4, &pid, 4);
	if (tr_ftrace_pages_add(p, it->ts, t->record, bytes))
		fail(t, "the CPU data", p->err);
}

/* A loss: the next page of its CPU says so (with the number, unless sub-buffers were overwritten). */
static void dat_lost(void *state, const struct tr_item *it)
{
	struct tracecmd *t = state;
	struct tr_ftrace_pages *p = t->err ? NULL : pages_of(t, it->cpu);

	if (p)
		tr_ftrace_pages_lost(p, tr_item_lost(it), it->lost_packets != 0);
}

/* nftw()'s step: removes path (a directory once emptied). */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* Frees t, its tracing directory removed. */
static void dat_free(struct tracecmd *t)
{
	unsigned int i;

	for (i = 0; i < t->ncpus; i++)
		if (t->cpus[i]) {
			close(t->cpus[i]->fd);
			free(t->cpus[i]);
		}
	if (t->dir_fd >= 0)
		close(t->dir_fd);
	if (t->dir[0])
		nftw(t->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (t->out_fd >= 0)
		close(t->out_fd);
	tr_by_class_free(&t->classes);
	free(t);
}

static void dat_abandon(void *state)
{
	dat_free(state);
}

/* saved_cmdlines: "TID NAME" for each task the trace names. */
static int write_cmdlines(struct tracecmd *t, const struct tr_tasks *tasks)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	unsigned int i;
	int err;

	if (!f)
		return fail(t, "memory", -ENOMEM);
	for (i = 0; i < tasks->size; i++)
		if (tasks->slot[i].key && tasks->slot[i].comm[0])
			fprintf(f, "%u %.16s\n", tr_task_tid(&tasks->slot[i]), tasks->slot[i].comm);
	err = fclose(f) ? fail(t, "memory", -ENOMEM) : write_file(t, "saved_cmdlines", text, len);
	free(text);
	return err;
}

/*
 * The tracing directory's files besides the formats, and every CPU's last
 * page: 0 or fail()'s.
 */
static int finish_dir(struct tracecmd *t, const struct tr_tasks *tasks)
{
	static const char clock[] = "local global counter uptime perf [mono] mono_raw boot\n";
	struct tr_ftrace_pages *p;
	unsigned int i;

	/* every CPU up to the last one met has its file (a trace.dat has one at least) */
	for (i = 0; i < (t->ncpus ?: 1) && !t->err; i++) {
		if (!(p = pages_of(t, i)))
			break;
		t->losses_at_end += !p->used && (p->missed || p->missed_unknown);
		if (tr_ftrace_pages_flush(p))
			fail(t, "the CPU data", p->err);
	}
	if (!t->err)
		write_file(t, "events/header_page", tr_ftrace_header_page, strlen(tr_ftrace_header_page));
	if (!t->err)
		write_file(t, "events/header_event", tr_ftrace_header_event, strlen(tr_ftrace_header_event));
	if (!t->err && !make_dir(t, "events/ftrace") && !make_dir(t, "events/ftrace/print"))
		write_file(t, "events/ftrace/print/format", ftrace_print, strlen(ftrace_print));
	if (!t->err)
		write_file(t, "trace_clock", clock, strlen(clock));
	if (!t->err)
		copy_meta(t, TR_TRACE_PRINTK, "printk_formats");
	if (!t->err)
		copy_meta(t, TR_TRACE_KALLSYMS, "kallsyms");
	if (!t->err)
		write_cmdlines(t, tasks);
	return t->err;
}

/*
 * libtracecmd, copying kallsyms, sets kptr_restrict to 0 for the time of
 * the copy (it expects to read /proc/kallsyms): a setting of the whole
 * machine, which an export has no business changing.  Without
 * CAP_SYS_ADMIN the write fails and nothing changes; export needs it no
 * more.
 */
static void drop_sys_admin(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d))
		return;
	d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	syscall(SYS_capset, &h, d);
}

/* The trace.dat written into t->out_fd by libtracecmd (which closes it): 0 or fail()'s. */
static int write_trace_dat(struct tracecmd *t)
{
	char kallsyms[PATH_MAX + 16], *files[TR_MAX_CPUS];
	struct tracecmd_output *h;
	unsigned int i;
	int ok;

	for (i = 0; i < t->ncpus; i++)
		if (asprintf(&files[i], "%s/cpu%u", t->dir, i) < 0) {
			while (i--)
				free(files[i]);
			return fail(t, "memory", -ENOMEM);
		}
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", t->dir);
	drop_sys_admin();
	tracecmd_set_loglevel(TEP_LOG_ERROR);
	/* its page size from the directory's header_page, not the machine's tracefs */
	ok = !t->err && !tracefs_set_tracing_dir(t->dir);
	h = ok ? tracecmd_output_create_fd(t->out_fd) : NULL;
	tracefs_set_tracing_dir(NULL);
	ok = h != NULL;
	if (ok) {
		t->out_fd = -1;
		tracecmd_set_quiet(h, true);
		ok = !tracecmd_output_set_trace_dir(h, t->dir) &&
		     !tracecmd_output_set_kallsyms(h, kallsyms) &&
		     !tracecmd_output_write_headers(h, NULL) && !tracecmd_write_cmdlines(h) &&
		     !tracecmd_append_cpu_data(h, t->ncpus, files);
		tracecmd_output_close(h);
	}
	for (i = 0; i < t->ncpus; i++)
		free(files[i]);
	return ok ? t->err : fail(t, "libtracecmd", errno ? -errno : -EIO);
}

/*
 * Writes the trace.dat, says what was left out, frees t: 0 or -errno (the
 * pipeline says writing failed; where it failed is said here first unless
 * the disk or the file size limit was what failed).
 */
static int dat_close(void *state, const struct tr_tasks *tasks)
{
	struct tracecmd *t = state;
	int err;

	if (!t->err && !finish_dir(t, tasks))
		write_trace_dat(t);
	if (t->err && t->err != -ENOSPC && t->err != -EFBIG)	/* said by the pipeline as they are */
		fprintf(stderr, "tracer %s: %s: %s\n", t->command, t->failed, strerror(-t->err));
	else if (!t->err && (t->left_out || t->too_big))
		fprintf(stderr, "tracer %s: %llu records left out: %llu of events trace.dat cannot hold (of a system named ftrace or starting with '.', or without the common fields), %llu larger than a page\n",
			t->command, (unsigned long long)(t->left_out + t->too_big),
			(unsigned long long)t->left_out, (unsigned long long)t->too_big);
	if (!t->err && t->losses_at_end)
		fprintf(stderr, "tracer %s: trace.dat says a loss with the record after it: the losses at the end of %u CPUs are not in it\n",
			t->command, t->losses_at_end);
	err = t->err;
	dat_free(t);
	return err;
}

/*
 * The tracing directory for libtracecmd, private, in dir (or $TMPDIR, or
 * /tmp): 0 or fail()'s.
 */
static int make_tracing_dir(struct tracecmd *t, const char *dir)
{
	const char *tmp = getenv("TMPDIR");

	if (!dir)
		dir = tmp && *tmp ? tmp : "/tmp";
	if (snprintf(t->dir, sizeof(t->dir), "%s/.tracer-trace-cmd.XXXXXX", dir) >= (int)sizeof(t->dir)) {
		t->dir[0] = '\0';
		return fail(t, dir, -ENAMETOOLONG);
	}
	if (!mkdtemp(t->dir)) {
		t->dir[0] = '\0';
		return fail(t, dir, -errno);
	}
	t->dir_fd = open(t->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->dir_fd < 0)
		return fail(t, t->dir, -errno);
	return make_dir(t, "events");
}

/* export --format trace-cmd into out, a regular file (libtracecmd seeks in it). */
static int dat_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace,
			 const struct tr_report_opts *o)
{
	struct tracecmd *t = calloc(1, sizeof(*t));
	struct stat st;

	if (!t) {
		fprintf(stderr, "tracer %s: out of memory\n", o->command);
		return -ENOMEM;
	}
	*t = (struct tracecmd) { .trace = trace, .command = o->command, .dir_fd = -1, .out_fd = -1,
				 .classes = { .size = 1 } };
	if (fstat(fileno(out), &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "tracer %s: --format trace-cmd writes a file it can seek in: give -o FILE, not a pipe or a device\n",
			o->command);
		free(t);
		return -EINVAL;
	}
	t->out_fd = fcntl(fileno(out), F_DUPFD_CLOEXEC, 3);
	if (t->out_fd < 0)
		fail(t, "the output", -errno);
	else
		make_tracing_dir(t, o->scratch_dir);
	if (t->err) {
		fprintf(stderr, "tracer %s: cannot make the directory trace.dat is written from: %s: %s\n",
			o->command, t->failed, strerror(-t->err));
		dat_free(t);
		return -EIO;
	}
	*sink = (struct tr_sink) { .ops = &tr_tracecmd_sink, .state = t };
	return 0;
}

const struct tr_sink_ops tr_tracecmd_sink = {
	.open = dat_open, .record = dat_record, .lost = dat_lost, .close = dat_close,
	.abandon = dat_abandon, .whole_or_nothing = true,
};

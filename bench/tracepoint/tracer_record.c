// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Peer: the tracer CLI, `tracer record -a` as a subprocess writing to
 * disk, its records counted from the trace's stream files; and the cost
 * of record --filter (--diag): the CLI with a one-comparison filter that
 * passes every event or none, and with a glob on the comm.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "layout/packet.h"
#include "peers.h"

static char tracer_out[320], tracer_log[320];

/* What tracer record records: the measured event, or part 4's events. */
static const char *tracer_events[LADDER_EVENTS] = { event_spec };
static int tracer_nevents = 1;
/* --filter of the first event (the filter diagnostics), or NULL. */
static const char *tracer_filter;

void tracer_set_events(const char *const *events, int n)
{
	int i;

	for (i = 0; i < n; i++)
		tracer_events[i] = events[i];
	tracer_nevents = n;
}

int tracer_setup(struct config *c)
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

/* await_attached()'s test: the tracer holds a BPF link. */
static bool holds_bpf_link(const void *unused)
{
	(void)unused;
	return count_bpf_links(child_pid) > 0;
}

/* Start the CLI, wait until its program is attached; it consumes to disk until SIGINT. */
int tracer_start(void)
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

void tracer_stop(struct run_result *r)
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

/* The filter diagnostics' setup: the CLI's, when --diag or --only asks for them. */
int filter_setup(struct config *c)
{
	return diag_wanted(c) ? tracer_setup(c) : -ENOTSUP;
}

/* Starts the CLI with --filter filter on its event. */
static int tracer_with_filter(const char *filter)
{
	int err;

	tracer_filter = filter;
	err = tracer_start();
	tracer_filter = NULL;
	return err;
}

int filter_pass_start(void)
{
	return tracer_with_filter("common_pid != 0");
}

int filter_none_start(void)
{
	return tracer_with_filter("common_pid == 0");
}

int filter_glob_start(void)
{
	return tracer_with_filter("comm ~ \"*point*\"");
}

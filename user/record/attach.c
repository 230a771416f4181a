// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer record's probes (events/probes.h): which probe programs load, and how
 * each probe attaches.  Uprobes, uretprobes, USDT probes and single
 * kprobes attach by libbpf, each event its own link with its id as the
 * BPF cookie; a glob's kprobes attach in one kprobe.multi link, a cookie
 * per function.
 *
 * fentry and fexit: a trampoline program is bound to one function when
 * it is loaded.  The skeleton loads tr_fentry (tr_fexit) for the first
 * such event; every other one gets an instance of the skeleton of its
 * own that loads only that program, for its function, over the session's
 * maps (bpf_map__reuse_fd): the same buffers, settings and filters.
 * (Loading a copy of the instructions, as retsnoop does, would need the
 * program's func_info, which libbpf does not give out and the kernel
 * gives back only as it left it after removing dead code.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record.skel.h"
#include "record/recursion_misses.h"
#include "events/probes.h"
#include "record/session.h"

enum probe_kind {
	UPROBE, URETPROBE, USDT, KPROBE, KRETPROBE, KPROBE_MULTI, KRETPROBE_MULTI, FENTRY, FEXIT,
	PROBE_KINDS
};

static enum probe_kind kind_of(const struct tr_probe *probe)
{
	if (probe->provider)
		return USDT;
	if (probe->trampoline)
		return probe->ret ? FEXIT : FENTRY;
	if (probe->group)
		return probe->ret ? KRETPROBE_MULTI : KPROBE_MULTI;
	if (probe->kernel)
		return probe->ret ? KRETPROBE : KPROBE;
	return probe->ret ? URETPROBE : UPROBE;
}

/* The first event of a kind, or -1. */
static int first_of(const struct session *s, enum probe_kind kind)
{
	unsigned int i;

	for (i = 0; i < s->events.count; i++)
		if (s->events.events[i].probe && kind_of(s->events.events[i].probe) == kind)
			return i;
	return -1;
}

unsigned int rec_probe_count(const struct session *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->events.count; i++)
		n += s->events.events[i].probe != NULL;
	return n;
}

unsigned int rec_kprobe_program_count(const struct session *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->events.count; i++)
		n += s->events.events[i].probe && !s->events.events[i].probe->trampoline;
	return n;
}

static struct bpf_program *program_of(const struct session *s, enum probe_kind kind)
{
	struct bpf_program *const progs[PROBE_KINDS] = {
		s->skel->progs.tr_uprobe, s->skel->progs.tr_uretprobe, s->skel->progs.tr_usdt,
		s->skel->progs.tr_kprobe, s->skel->progs.tr_kretprobe,
		s->skel->progs.tr_kprobe_multi, s->skel->progs.tr_kretprobe_multi,
		s->skel->progs.tr_fentry, s->skel->progs.tr_fexit,
	};

	return progs[kind];
}

int rec_probes_configure(struct session *s)
{
	enum probe_kind kind;
	int err = 0;

	for (kind = 0; kind < PROBE_KINDS && !err; kind++) {
		int first = first_of(s, kind);

		bpf_program__set_autoload(program_of(s, kind), first >= 0);
		if (first >= 0 && (kind == FENTRY || kind == FEXIT))
			err = bpf_program__set_attach_target(program_of(s, kind), 0,
							     s->events.events[first].probe->function);
	}
	return err;
}

/* A kprobe or kretprobe on its kernel function. */
static struct bpf_link *attach_kprobe(struct session *s, const struct tr_event *ev)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .retprobe = ev->probe->ret, .bpf_cookie = ev->id);

	return bpf_program__attach_kprobe_opts(program_of(s, kind_of(ev->probe)),
					       ev->probe->function, &opts);
}

/*
 * A uprobe, uretprobe or USDT probe: in -p's process only, else in every
 * process (wanted() picks a command's).
 */
static struct bpf_link *attach_user_probe(struct session *s, const struct tr_event *ev)
{
	const struct tr_probe *probe = ev->probe;
	LIBBPF_OPTS(bpf_uprobe_opts, uopts, .func_name = probe->function, .retprobe = probe->ret,
		    .bpf_cookie = ev->id);
	LIBBPF_OPTS(bpf_usdt_opts, usdt_opts, .usdt_cookie = ev->id);
	pid_t pid = s->o->pid ? s->o->pid : -1;

	if (probe->provider)
		return bpf_program__attach_usdt(s->skel->progs.tr_usdt, pid, probe->path,
						probe->provider, probe->function, &usdt_opts);
	return bpf_program__attach_uprobe_opts(program_of(s, kind_of(probe)), pid, probe->path,
					       probe->offset, &uopts);
}

/* The functions of event i's kprobe.multi group, attached at once: how many, or -errno. */
static int attach_group(struct session *s, unsigned int i)
{
	const struct tr_probe *probe = s->events.events[i].probe;
	const char **syms = calloc(s->events.count, sizeof(*syms));
	__u64 *cookies = calloc(s->events.count, sizeof(*cookies));
	unsigned int j, n = 0;
	int err = 0;

	for (j = i; syms && cookies && j < s->events.count; j++) {
		const struct tr_probe *other = s->events.events[j].probe;

		if (other && other->group == probe->group && !other->trampoline) {
			syms[n] = other->function;
			cookies[n++] = s->events.events[j].id;
		}
	}
	if (syms && cookies) {
		LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = syms, .cookies = cookies,
			    .cnt = n, .retprobe = probe->ret);

		s->links[i] = bpf_program__attach_kprobe_multi_opts(program_of(s, kind_of(probe)),
								    NULL, &opts);
		err = s->links[i] ? 0 : -errno;
	} else {
		err = -ENOMEM;
	}
	if (err)
		rec_say("the kernel refused to attach %s to %u functions at once (kprobe.multi): %s; "
			"notrace, blacklisted and inlined functions cannot be probed",
			probe->ret ? "kretprobes" : "kprobes", n, strerror(-err));
	free(syms);
	free(cookies);
	return err ? err : (int)n;
}

/* skel's fentry or fexit program. */
static struct bpf_program *trampoline_of(const struct record *skel, enum probe_kind kind)
{
	return kind == FENTRY ? skel->progs.tr_fentry : skel->progs.tr_fexit;
}

/*
 * Another instance of the skeleton, for the fentry or fexit (kind) of
 * function: only that program loads, and every map it would create is
 * the session's.  The instance, or NULL (errno set).
 */
static struct record *load_instance(struct session *s, enum probe_kind kind,
				    const char *function)
{
	struct record *skel = record__open();
	struct bpf_program *prog;
	struct bpf_map *map;
	int err;

	if (!skel)
		return NULL;
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	prog = trampoline_of(skel, kind);
	bpf_program__set_autoload(prog, true);
	err = bpf_program__set_attach_target(prog, 0, function);
	bpf_object__for_each_map(map, skel->obj) {
		const struct bpf_map *ours = bpf_object__find_map_by_name(s->skel->obj,
									  bpf_map__name(map));

		if (!err)
			err = ours ? bpf_map__reuse_fd(map, bpf_map__fd(ours)) : -ENOENT;
	}
	if (!err)
		err = record__load(skel);
	if (!err)
		return skel;
	record__destroy(skel);
	errno = -err;
	return NULL;
}

/* Event i's fentry or fexit: the template's program, or another instance's; its link.  0 or -errno. */
static int attach_trampoline(struct session *s, unsigned int i)
{
	const struct tr_event *ev = &s->events.events[i];
	enum probe_kind kind = kind_of(ev->probe);
	struct rec_trampoline *t = &s->trampolines[i];
	LIBBPF_OPTS(bpf_link_create_opts, opts, .tracing.cookie = ev->id);
	const struct bpf_program *prog = trampoline_of(s->skel, kind);
	int err = 0;

	if ((int)i != first_of(s, kind)) {
		t->instance = load_instance(s, kind, ev->probe->function);
		err = t->instance ? 0 : -errno;
		prog = t->instance ? trampoline_of(t->instance, kind) : NULL;
	}
	if (!err) {
		t->link_fd = bpf_link_create(bpf_program__fd(prog), 0,
					     bpf_program__expected_attach_type(prog), &opts);
		err = t->link_fd < 0 ? -errno : 0;
	}
	if (err)
		rec_say("the kernel refused %s on %s (%s)%s", kind == FENTRY ? "fentry" : "fexit",
			ev->probe->function, strerror(-err), t->instance || (int)i == first_of(s, kind) ?
			"" : ": loading its program failed (-v shows why)");
	return err;
}

int rec_probe_attach(struct session *s, unsigned int i)
{
	const struct tr_event *ev = &s->events.events[i];
	enum probe_kind kind = kind_of(ev->probe);
	int err, n = 1;

	if (kind == FENTRY || kind == FEXIT) {
		err = attach_trampoline(s, i);
	} else if (kind == KPROBE_MULTI || kind == KRETPROBE_MULTI) {
		int first = 1;
		unsigned int j;

		for (j = 0; j < i && first; j++)
			first = !s->events.events[j].probe ||
				s->events.events[j].probe->group != ev->probe->group;
		n = first ? attach_group(s, i) : 0;
		err = n < 0 ? n : 0;
	} else {
		s->links[i] = ev->probe->kernel ? attach_kprobe(s, ev) : attach_user_probe(s, ev);
		err = s->links[i] ? 0 : -errno;
		if (err && ev->probe->kernel)
			rec_say("the kernel refused a kprobe on %s (%s): notrace, blacklisted and "
				"inlined functions cannot be probed", ev->probe->function,
				strerror(-err));
		else if (err)
			rec_say("cannot attach %s:%s in %s: %s", ev->system, ev->name,
				ev->probe->path, strerror(-err));
	}
	if (!err)
		s->nattached += n;
	return err;
}

int rec_probes_prepare(struct session *s)
{
	unsigned int i;

	s->trampolines = calloc(s->events.count, sizeof(*s->trampolines));
	if (!s->trampolines)
		return -ENOMEM;
	s->ntrampolines = s->events.count;
	for (i = 0; i < s->ntrampolines; i++)
		s->trampolines[i] = (struct rec_trampoline) { NULL, -1 };
	return 0;
}

void rec_probe_detach(struct session *s, unsigned int i)
{
	if (i >= s->ntrampolines)
		return;
	if (s->trampolines[i].link_fd >= 0)
		close(s->trampolines[i].link_fd);
	record__destroy(s->trampolines[i].instance);
	s->trampolines[i] = (struct rec_trampoline) { NULL, -1 };
}

__u64 rec_probes_misses(const struct session *s)
{
	__u64 sum = s->skel->bss->tr_probe_nested;
	unsigned int i;

	for (i = 0; i < s->ntrampolines; i++)
		if (s->trampolines[i].instance)
			sum += tr_recursion_misses(s->trampolines[i].instance->obj);
	return sum;
}

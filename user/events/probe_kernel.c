// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel function probes as events (events/probes.h): kprobe:, kretprobe:,
 * fentry:, fexit: and function: (--function, or an -e naming no
 * tracepoint but kernel functions), each of one function or of a glob
 * over them, one event class per function.  Arguments come from the
 * kernel's BTF (events/probe_btf.c).
 *
 * What this kernel allows decides before anything loads:
 * - kprobes need CONFIG_KPROBES (its perf event source is there);
 * - fentry and fexit need ftrace's function hooks (available_filter_functions
 *   opens) and BTF: vmlinux's, or for a function of a module the module's;
 * - function: takes fentry where it can (a trampoline costs least), else
 *   kprobes, and says which in one line.
 * A glob's kprobes attach at once by kprobe.multi where the kernel has it
 * (CONFIG_FPROBE), else one kprobe each; its fentries load one program
 * each, so globs through fentry match at most TR_MAX_TRAMPOLINES functions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "events/events.h"
#include "common/suggest.h"
#include "events/probes.h"

#define FILTER_FUNCTIONS	"/sys/kernel/tracing/available_filter_functions"
#define KPROBE_BLACKLIST	"/sys/kernel/debug/kprobes/blacklist"

/* fentry/fexit programs loaded for one glob, each verified on its own. */
#define TR_MAX_TRAMPOLINES	64
/* Functions one glob's kprobes attach. */
#define TR_MAX_MULTI		2000

enum hook { KPROBE, KRETPROBE, FENTRY, FEXIT, FUNCTION };

static const char *const hook_prefix[] = { "kprobe:", "kretprobe:", "fentry:", "fexit:",
					   "function:" };

static int hook_of(const char *spec)
{
	int h;

	for (h = KPROBE; h <= FUNCTION; h++)
		if (!strncmp(spec, hook_prefix[h], strlen(hook_prefix[h])))
			return h;
	return -1;
}

int tr_kernel_probe_spec(const char *spec)
{
	return hook_of(spec) >= 0;
}

/* --- What this kernel allows ------------------------------------------------ */

static int have_kprobes(void)
{
	return !access("/sys/bus/event_source/devices/kprobe", F_OK);
}

/* 0 if ftrace's function hooks (fentry's, kprobe.multi's) are usable, else the errno. */
static int hooks_off(void)
{
	int fd = open(FILTER_FUNCTIONS, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/*
 * Whether the kernel attaches kprobe.multi links (it needs CONFIG_FPROBE):
 * a link to no function is refused with EINVAL where it does, with
 * EOPNOTSUPP where not.
 */
static int kprobe_multi_works(void)
{
	const struct bpf_insn return_0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_KPROBE_MULTI);
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", return_0, 2, &opts), link;

	if (fd < 0)
		return 0;
	link = bpf_link_create(fd, 0, BPF_TRACE_KPROBE_MULTI, NULL);
	if (link >= 0)
		close(link);
	close(fd);
	return link >= 0 || errno == EINVAL;
}

static const char works_here[] = "tracepoints (tracer list), uprobe:, uretprobe: and usdt: record here";

/*
 * The hook spec's probes take here: KPROBE or FENTRY (for a function: spec,
 * the cheaper one the kernel allows), or -EOPNOTSUPP and why, in one line.
 */
static int usable_hook(const char *spec, int hook, char *why, size_t whylen)
{
	int off = hooks_off();

	if ((hook == FENTRY || hook == FEXIT || hook == FUNCTION) && !off)
		return FENTRY;
	if ((hook == KPROBE || hook == KRETPROBE || hook == FUNCTION) && have_kprobes())
		return KPROBE;
	if (hook == KPROBE || hook == KRETPROBE)
		snprintf(why, whylen, "%s: this kernel has no kprobes (built without "
			 "CONFIG_KPROBES); %s", spec, works_here);
	else if (hook == FUNCTION)
		snprintf(why, whylen, "%s: this kernel can probe no function: it has no kprobes "
			 "(CONFIG_KPROBES) and its function hooks are off (%s); %s", spec,
			 strerror(off), works_here);
	else
		snprintf(why, whylen, "%s: this kernel refuses fentry and fexit (its function "
			 "hooks are off: %s); %s", spec, strerror(off), works_here);
	return -EOPNOTSUPP;
}

/* --- Which functions: one, or those a glob matches ------------------------- */

/* Names, sorted, without repeats. */
struct names {
	char **name;
	size_t count, size;
};

static int names_add(struct names *n, const char *name)
{
	if (n->count == n->size) {
		size_t size = n->size ? 2 * n->size : 256;
		char **more = realloc(n->name, size * sizeof(*more));

		if (!more)
			return -ENOMEM;
		n->name = more;
		n->size = size;
	}
	n->name[n->count] = strdup(name);
	return n->name[n->count++] ? 0 : -ENOMEM;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_sort(struct names *n)
{
	size_t i, kept = 0;

	if (n->count)
		qsort(n->name, n->count, sizeof(*n->name), by_name);
	for (i = 0; i < n->count; i++) {
		if (kept && !strcmp(n->name[kept - 1], n->name[i]))
			free(n->name[i]);
		else
			n->name[kept++] = n->name[i];
	}
	n->count = kept;
}

static int names_has(const struct names *n, const char *name)
{
	return n->count && bsearch(&name, n->name, n->count, sizeof(*n->name), by_name);
}

static void names_free(struct names *n)
{
	size_t i;

	for (i = 0; i < n->count; i++)
		free(n->name[i]);
	free(n->name);
	memset(n, 0, sizeof(*n));
}

/*
 * The BTF functions of vmlinux by name, and of each module met so far
 * (loaded on first use, split over vmlinux's): one pass over each BTF,
 * then binary searches.
 */
struct btf_functions {
	struct btf *btf;		/* or NULL: the kernel (the module) has none */
	struct btf_function {
		const char *name;	/* in btf */
		int id;
	} *f;
	size_t count;
	char module[64];		/* a module's, or "" */
	struct btf_functions *modules;	/* vmlinux's: the modules' */
	size_t nmodules;
};

static int by_function_name(const void *a, const void *b)
{
	return strcmp(((const struct btf_function *)a)->name,
		      ((const struct btf_function *)b)->name);
}

/* bf's index of the functions of its BTF from id first on.  0 or -ENOMEM. */
static int btf_functions_index(struct btf_functions *bf, __u32 first)
{
	__u32 id, n = bf->btf ? btf__type_cnt(bf->btf) : 0;

	bf->f = n > first ? calloc(n - first, sizeof(*bf->f)) : NULL;
	if (n > first && !bf->f)
		return -ENOMEM;
	for (id = first; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(bf->btf, id);

		if (btf_is_func(t))
			bf->f[bf->count++] = (struct btf_function) {
				btf__name_by_offset(bf->btf, t->name_off), id };
	}
	if (bf->count)
		qsort(bf->f, bf->count, sizeof(*bf->f), by_function_name);
	return 0;
}

/* bf from the kernel's BTF, if it has one.  0 or -ENOMEM. */
static int btf_functions_load(struct btf_functions *bf)
{
	memset(bf, 0, sizeof(*bf));
	bf->btf = btf__load_vmlinux_btf();
	return btf_functions_index(bf, 1);
}

/* The functions of module's BTF (btf NULL without one), or NULL without memory. */
static struct btf_functions *module_functions(struct btf_functions *bf, const char *module)
{
	struct btf_functions *m;
	size_t i;

	for (i = 0; i < bf->nmodules; i++)
		if (!strcmp(bf->modules[i].module, module))
			return &bf->modules[i];
	m = realloc(bf->modules, (bf->nmodules + 1) * sizeof(*m));
	if (!m)
		return NULL;
	bf->modules = m;
	m = &bf->modules[bf->nmodules];
	memset(m, 0, sizeof(*m));
	snprintf(m->module, sizeof(m->module), "%s", module);
	m->btf = bf->btf ? btf__load_module_btf(module, bf->btf) : NULL;
	if (btf_functions_index(m, bf->btf ? btf__type_cnt(bf->btf) : 0)) {
		btf__free(m->btf);
		return NULL;
	}
	bf->nmodules++;
	return m;
}

/*
 * The BTF that describes function name of module ("": vmlinux) and its
 * id there (*id 0: none describes it).
 */
static const struct btf *btf_function(struct btf_functions *bf, const char *module,
				      const char *name, int *id)
{
	struct btf_function key = { name, 0 };
	const struct btf_function *found;

	if (module[0])
		bf = module_functions(bf, module);
	found = bf && bf->count ? bsearch(&key, bf->f, bf->count, sizeof(key), by_function_name) :
		NULL;
	*id = found ? found->id : 0;
	return bf ? bf->btf : NULL;
}

/* Whether BTF describes function name of module (""). */
static int btf_has_function(struct btf_functions *bf, const char *module, const char *name)
{
	int id;

	btf_function(bf, module, name, &id);
	return id > 0;
}

static void btf_functions_free(struct btf_functions *bf)
{
	size_t i;

	for (i = 0; i < bf->nmodules; i++)
		btf_functions_free(&bf->modules[i]);
	free(bf->modules);
	btf__free(bf->btf);
	free(bf->f);
	memset(bf, 0, sizeof(*bf));
}

/* The functions the kprobe blacklist names (absent without debugfs: none). */
static int read_blacklist(struct names *out)
{
	FILE *f = fopen(KPROBE_BLACKLIST, "re");
	char line[256], name[128];
	int err = 0;

	if (!f)
		return 0;
	while (!err && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %127s", name) == 1)
			err = names_add(out, name);
	fclose(f);
	names_sort(out);
	return err;
}

/*
 * A line of available_filter_functions ("name" or "name [module]") or of
 * /proc/kallsyms (a text symbol): its name and module, or 0.
 */
static int function_of(const char *line, int kallsyms, char name[128], char module[64])
{
	unsigned long long address;
	char type;

	module[0] = 0;
	if (!kallsyms)
		return sscanf(line, "%127s [%63[^]]]", name, module) >= 1;
	return sscanf(line, "%llx %c %127s [%63[^]]]", &address, &type, name, module) >= 3 &&
	       (type == 't' || type == 'T');
}

int tr_kallsyms_function(const char *function, char *module, size_t modlen, char *closest,
			 size_t closelen)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256], name[128], mod[64];
	struct tr_closest c;
	int found = 0;

	if (!f)
		return -errno;
	tr_closest_init(&c, function);
	while (!found && fgets(line, sizeof(line), f)) {
		if (!function_of(line, 1, name, mod))
			continue;
		found = !strcmp(name, function);
		if (!found)
			tr_closest_offer(&c, name);
	}
	fclose(f);
	snprintf(module, modlen, "%s", found ? mod : "");
	snprintf(closest, closelen, "%s", found ? "" : c.name);
	return found;
}

/*
 * Whether a glob's match is left out: tracer's own module, the kprobe
 * blacklist, what the BPF programs themselves call (their recursion would
 * only count misses), and for fentry those BTF (vmlinux's or their
 * module's) does not describe.
 */
static int left_out(const char *name, const char *module, const struct names *blacklist,
		    struct btf_functions *fentry)
{
	if (!strcmp(module, "tracer") || names_has(blacklist, name) ||
	    !strncmp(name, "bpf_", 4) || !strncmp(name, "__bpf", 5) ||
	    !strncmp(name, "migrate_", 8) || strstr(name, "rcu_read_"))
		return 1;
	return fentry && !btf_has_function(fentry, module, name);
}

/*
 * The kernel functions glob matches, sorted, into out: those ftrace can
 * hook where it says (fentry and kprobe.multi hook there), else kallsyms'
 * text symbols.  With fentry, only those BTF describes.  in_modules (if
 * not NULL) gets "NAME MODULE" for each of a module.  0 or -errno.
 */
static int match_functions(const char *glob, struct btf_functions *fentry, struct names *out,
			   struct names *in_modules)
{
	FILE *f = fopen(FILTER_FUNCTIONS, "re");
	int kallsyms = !f, err;
	struct names blacklist = { 0 };
	char line[256], name[128], module[64];

	if (!f)
		f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -errno;
	err = read_blacklist(&blacklist);
	while (!err && fgets(line, sizeof(line), f)) {
		if (!function_of(line, kallsyms, name, module) || fnmatch(glob, name, 0) ||
		    left_out(name, module, &blacklist, fentry))
			continue;
		err = names_add(out, name);
		if (!err && in_modules && module[0]) {
			snprintf(line, sizeof(line), "%s %s", name, module);
			err = names_add(in_modules, line);
		}
	}
	fclose(f);
	names_free(&blacklist);
	names_sort(out);
	if (in_modules)
		names_sort(in_modules);
	return err;
}

/* A function name against an in_modules entry's name, for bsearch(). */
static int by_function_of_entry(const void *key, const void *entry)
{
	const char *name = key, *e = *(char *const *)entry;
	size_t n = strcspn(e, " ");
	int c = strncmp(name, e, n);

	return c ? c : name[n] ? 1 : 0;
}

/* The module of function name in match_functions()' in_modules, or "". */
static const char *module_in(const struct names *in_modules, const char *name)
{
	char *const *e = in_modules->count ? bsearch(name, in_modules->name, in_modules->count,
						     sizeof(*in_modules->name),
						     by_function_of_entry) : NULL;

	return e ? strchr(*e, ' ') + 1 : "";
}

int tr_kernel_functions_match(const char *glob)
{
	struct names matched = { 0 };
	int err = match_functions(glob, NULL, &matched, NULL), n = matched.count;

	names_free(&matched);
	return err ? err : n;
}

/* --- Events ------------------------------------------------------------------ */

static int is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* KIND:FUNCTION[(ARG, ...)], or KIND:GLOB; no selection on kretprobe: or a glob. */
static int parse_kernel(const char *spec, int hook, struct tr_probe_spec *p, char *why,
			size_t whylen)
{
	static const char *const forms[] = {
		"kprobe:FUNCTION[(ARG, ...)] or kprobe:GLOB",
		"kretprobe:FUNCTION or kretprobe:GLOB (it records the return value)",
		"fentry:FUNCTION[(ARG, ...)] or fentry:GLOB",
		"fexit:FUNCTION[(ARG, ...)] or fexit:GLOB (the arguments and the return value)",
		"--function FUNCTION or --function GLOB",
	};
	int selected;

	memset(p, 0, sizeof(*p));
	p->kernel = 1;
	p->ret = hook == KRETPROBE || hook == FEXIT;
	p->function = p->text = strdup(spec + strlen(hook_prefix[hook]));
	selected = tr_probe_take_selection(p->text, &p->selection);
	if (p->function && *p->function && strlen(p->function) < 128 &&
	    (is_glob(p->function) ? !selected && strspn(p->function, "abcdefghijklmnopqrstuvwxyz"
					"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_*?[]!") ==
					strlen(p->function) :
	     tr_probe_identifier(p->function, strlen(p->function))) &&
	    (!selected || (selected > 0 && hook != KRETPROBE)))
		return 0;
	return tr_probe_malformed(spec, p, forms[hook], why, whylen);
}

/* The system of p's events: kprobe, kretprobe, fentry or fexit. */
static const char *system_of(const struct tr_probe_spec *p)
{
	static const char *const systems[2][2] = { { "kprobe", "kretprobe" },
						   { "fentry", "fexit" } };

	return systems[!!p->trampoline][!!p->ret];
}

/* One function's probe of a glob's, or of one function's spec. */
struct function_probe {
	const char *spec;
	const struct tr_probe_spec *p;
	struct btf_functions funcs;
	unsigned int group;		/* a glob's kprobe.multi (its first id + 1), or 0 */
	int raw;			/* functions recorded raw, so far */
};

/*
 * The event of function name: its arguments from btf (vmlinux's or its
 * module's) where id describes it, or raw registers (fp->raw counts them;
 * one function's spec says so in the note).
 */
static int add_function(struct tr_event_set *set, struct function_probe *fp, const char *name,
			const struct btf *btf, int id, const char *note_before, char *why,
			size_t whylen)
{
	struct tr_probe_spec one = *fp->p;
	struct tr_probe_args args;
	struct tr_probe_arg vals[TR_PROBE_ARG_REGISTERS + 1];
	struct tr_probe *probe;
	char note[200];
	int btf_id = tr_probe_btf_args(btf, id, &args);
	unsigned int n;

	snprintf(note, sizeof(note), "%s", note_before);
	if (btf_id <= 0) {
		tr_probe_raw_registers(&args);
		fp->raw++;
		if (!fp->group && !note[0])
			snprintf(note, sizeof(note), "the kernel's BTF does not describe %s: its "
				 "registers are recorded raw (arg1..arg6, ret)", name);
	} else if (args.note[0] && !fp->group && !note[0]) {
		snprintf(note, sizeof(note), "%s: %s", name, args.note);
	}
	one.function = (char *)name;
	if (tr_probe_select_args(&one, &args, why, whylen))
		return -ENOENT;
	probe = tr_probe_new(&one, NULL, note);
	if (!probe) {
		snprintf(why, whylen, "%s: out of memory", fp->spec);
		return -ENOMEM;
	}
	probe->btf_id = btf_id;
	probe->group = fp->group;
	n = one.ret && !one.trampoline ? 0 : args.count;
	memcpy(vals, args.arg, n * sizeof(*vals));
	if (one.ret && args.has_ret) {
		vals[n] = args.ret;
		vals[n++].slot = one.trampoline ? TR_PROBE_ARG_REGISTERS : 0;
	}
	return tr_probe_add_event(set, fp->spec, system_of(&one), name, vals, n, probe, why,
				  whylen);
}

/*
 * One function, checked in kallsyms (with the closest name when it is not
 * there, and refused when it is tracer's own or, for fentry, one that BTF
 * does not describe).
 */
static int add_one(struct tr_event_set *set, struct function_probe *fp, const char *note,
		   char *why, size_t whylen)
{
	const char *name = fp->p->function;
	char module[64], closest[128];
	int found = tr_kallsyms_function(name, module, sizeof(module), closest, sizeof(closest));
	int id = 0, err = -EINVAL;
	const struct btf *btf = found > 0 ? btf_function(&fp->funcs, module, name, &id) : NULL;

	if (found < 0) {
		snprintf(why, whylen, "%s: /proc/kallsyms: %s", fp->spec, strerror(-found));
		err = found;
	} else if (!found) {
		snprintf(why, whylen, "%s: the kernel has no function '%s'%s%s%s", fp->spec,
			 name, closest[0] ? "; did you mean " : "", closest, closest[0] ? "?" : "");
		err = -ENOENT;
	} else if (!strcmp(module, "tracer")) {
		snprintf(why, whylen, "%s: %s is tracer's own module, whose recording path "
			 "a probe would recurse into", fp->spec, name);
	} else if (fp->p->trampoline && !id) {
		snprintf(why, whylen, "%s: the BTF of %s%s does not describe %s, which fentry "
			 "and fexit need: use kprobe:%s", fp->spec, module[0] ? "module " : "the kernel",
			 module, name, name);
	} else {
		err = add_function(set, fp, name, btf, id, note, why, whylen);
	}
	return err;
}

/* The functions a glob matches, each an event (those already probed kept as they are). */
static int add_glob(struct tr_event_set *set, struct function_probe *fp, const char *how,
		    char *why, size_t whylen)
{
	struct names matched = { 0 }, in_modules = { 0 };
	unsigned int limit = fp->p->trampoline ? TR_MAX_TRAMPOLINES : TR_MAX_MULTI;
	unsigned int first = set->count;
	char note[200] = "";
	size_t i;
	int err = match_functions(fp->p->function, fp->p->trampoline ? &fp->funcs : NULL,
				  &matched, &in_modules);

	if (!err && !matched.count) {
		snprintf(why, whylen, "%s: '%s' matches no function this kernel can probe%s",
			 fp->spec, fp->p->function, fp->p->trampoline ?
			 " through fentry and fexit (those that BTF describes)" : "");
		err = -ENOENT;
	} else if (!err && matched.count > limit) {
		snprintf(why, whylen, "%s: '%s' matches %zu functions; tracer attaches at most %u "
			 "per glob%s: narrow it", fp->spec, fp->p->function, matched.count, limit,
			 fp->p->trampoline ? " through fentry and fexit (one program each), "
			 "kprobe: attaches more" : "");
		err = -E2BIG;
	} else if (err) {
		snprintf(why, whylen, "%s: the kernel's functions: %s", fp->spec, strerror(-err));
	}
	for (i = 0; !err && i < matched.count; i++) {
		char full[160];

		const char *name = matched.name[i];
		const struct btf *btf;
		int id;

		snprintf(full, sizeof(full), "%s:%s", system_of(fp->p), name);
		if (tr_events_find(set, full))
			continue;
		btf = btf_function(&fp->funcs, module_in(&in_modules, name), name, &id);
		err = add_function(set, fp, name, btf, id, "", why, whylen);
	}
	if (!err && set->count > first) {
		snprintf(note, sizeof(note), "%s: %u functions%s%s", fp->spec, set->count - first,
			 how, fp->raw ? ", some recorded raw (BTF does not describe them)" : "");
		snprintf(set->events[first].probe->note, sizeof(set->events[first].probe->note),
			 "%s", note);
	}
	names_free(&matched);
	names_free(&in_modules);
	return err;
}

int tr_kernel_probe_add(struct tr_event_set *set, const char *spec, char *why, size_t whylen)
{
	int hook = hook_of(spec), usable, err;
	struct function_probe fp = { .spec = spec };
	struct tr_probe_spec p;
	char how[120] = "", shown[160];

	/* As typed: -e kprobe:vfs_read; --function vfs_read (or -e vfs_read). */
	snprintf(shown, sizeof(shown), "%s%s", hook == FUNCTION ? "--function " : "-e ",
		 hook == FUNCTION ? spec + strlen(hook_prefix[FUNCTION]) : spec);
	fp.spec = shown;
	usable = usable_hook(shown, hook, why, whylen);
	if (usable < 0)
		return usable;
	err = parse_kernel(spec, hook, &p, why, whylen);
	if (err)
		return err;
	p.trampoline = usable == FENTRY;
	fp.p = &p;
	err = btf_functions_load(&fp.funcs);
	if (!err && !fp.funcs.btf && p.trampoline) {
		snprintf(why, whylen, "%s: the kernel has no BTF (/sys/kernel/btf/vmlinux), which "
			 "fentry and fexit need%s", shown, hook == FUNCTION ? "" : ": use kprobe:");
		err = -EOPNOTSUPP;
	} else if (err) {
		snprintf(why, whylen, "%s: out of memory", shown);
	}
	if (err) {
		btf_functions_free(&fp.funcs);
		free(p.text);
		return err;
	}
	fp.group = !p.trampoline && is_glob(p.function) && kprobe_multi_works() ?
		   set->count + 1 : 0;
	if (hook == FUNCTION)
		snprintf(how, sizeof(how), ", through %s (the cheapest this kernel allows)",
			 p.trampoline ? "fentry" : fp.group ? "kprobe.multi" : "kprobes");
	else if (!p.trampoline)
		snprintf(how, sizeof(how), fp.group ? ", attached at once (kprobe.multi)" :
			 ", one kprobe each (this kernel has no kprobe.multi: CONFIG_FPROBE)");
	if (is_glob(p.function)) {
		err = add_glob(set, &fp, how, why, whylen);
	} else {
		char note[sizeof(shown) + sizeof(how)] = "";	/* both whole */

		if (hook == FUNCTION)
			snprintf(note, sizeof(note), "%s%s", shown, how);
		err = add_one(set, &fp, note, why, whylen);
	}
	btf_functions_free(&fp.funcs);
	free(p.text);
	return err;
}

/* --- tracer list --functions ------------------------------------------------ */

int tr_kernel_functions_list(const char *glob, FILE *out, char *why, size_t whylen)
{
	int off = hooks_off(), kprobes = have_kprobes();
	struct btf_functions funcs = { 0 };
	struct names matched = { 0 }, in_modules = { 0 };
	size_t i;
	int err;

	if (off && !kprobes) {
		snprintf(why, whylen, "this kernel can probe no function: it has no kprobes "
			 "(CONFIG_KPROBES) and its function hooks are off (%s); %s", strerror(off),
			 works_here);
		return -EOPNOTSUPP;
	}
	err = off ? 0 : btf_functions_load(&funcs);
	if (!err)
		err = match_functions(glob ? glob : "*", NULL, &matched, &in_modules);
	if (err)
		snprintf(why, whylen, "the kernel's functions: %s", strerror(-err));
	for (i = 0; !err && i < matched.count; i++) {
		const char *name = matched.name[i];
		int fentry = !off && btf_has_function(&funcs, module_in(&in_modules, name), name);

		fprintf(out, "%-40s %s%s%s\n", name, fentry ? "fentry fexit" : "",
			fentry && kprobes ? " " : "", kprobes ? "kprobe kretprobe" : "");
	}
	btf_functions_free(&funcs);
	names_free(&matched);
	names_free(&in_modules);
	return err ? err : (int)i;
}

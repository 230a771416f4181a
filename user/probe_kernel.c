// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel function probes as events (probes.h): kprobe:, kretprobe:,
 * fentry:, fexit: and function: (--function, or an -e naming no
 * tracepoint but kernel functions), each of one function or of a glob
 * over them, one event class per function.  Arguments come from the
 * kernel's BTF (probe_btf.c).
 *
 * What this kernel allows decides before anything loads:
 * - kprobes need CONFIG_KPROBES (its perf event source is there);
 * - fentry and fexit need ftrace's function hooks (available_filter_functions
 *   opens) and BTF: vmlinux's, or for one function of a module, the
 *   module's (a glob through them matches vmlinux's functions only);
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

#include "events.h"
#include "names.h"
#include "probes.h"

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

/* The kernel's BTF functions by name: one pass over BTF, then binary searches. */
struct btf_functions {
	struct btf *btf;		/* or NULL: the kernel has none */
	struct btf_function {
		const char *name;	/* in btf */
		int id;
	} *f;
	size_t count;
};

static int by_function_name(const void *a, const void *b)
{
	return strcmp(((const struct btf_function *)a)->name,
		      ((const struct btf_function *)b)->name);
}

/* bf from the kernel's BTF, if it has one.  0 or -ENOMEM. */
static int btf_functions_load(struct btf_functions *bf)
{
	__u32 id, n;

	memset(bf, 0, sizeof(*bf));
	bf->btf = btf__load_vmlinux_btf();
	n = bf->btf ? btf__type_cnt(bf->btf) : 0;
	bf->f = n ? calloc(n, sizeof(*bf->f)) : NULL;
	if (n && !bf->f)
		return -ENOMEM;
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(bf->btf, id);

		if (btf_is_func(t))
			bf->f[bf->count++] = (struct btf_function) {
				btf__name_by_offset(bf->btf, t->name_off), id };
	}
	if (bf->count)
		qsort(bf->f, bf->count, sizeof(*bf->f), by_function_name);
	return 0;
}

/* Function name's BTF id, or 0. */
static int btf_function_id(const struct btf_functions *bf, const char *name)
{
	struct btf_function key = { name, 0 };
	const struct btf_function *found = bf->count ?
		bsearch(&key, bf->f, bf->count, sizeof(key), by_function_name) : NULL;

	return found ? found->id : 0;
}

static void btf_functions_free(struct btf_functions *bf)
{
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
 * only count misses), and for fentry the functions of modules (their BTF
 * is the module's) and those BTF does not describe.
 */
static int left_out(const char *name, const char *module, const struct names *blacklist,
		    const struct btf_functions *fentry)
{
	if (!strcmp(module, "tracer") || names_has(blacklist, name) ||
	    !strncmp(name, "bpf_", 4) || !strncmp(name, "__bpf", 5) ||
	    !strncmp(name, "migrate_", 8) || strstr(name, "rcu_read_"))
		return 1;
	return fentry && (module[0] || !btf_function_id(fentry, name));
}

/*
 * The kernel functions glob matches, sorted, into out: those ftrace can
 * hook where it says (fentry and kprobe.multi hook there), else kallsyms'
 * text symbols.  With fentry, only vmlinux's that its BTF describes.
 * 0 or -errno.
 */
static int match_functions(const char *glob, const struct btf_functions *fentry,
			   struct names *out)
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
	while (!err && fgets(line, sizeof(line), f))
		if (function_of(line, kallsyms, name, module) && !fnmatch(glob, name, 0) &&
		    !left_out(name, module, &blacklist, fentry))
			err = names_add(out, name);
	fclose(f);
	names_free(&blacklist);
	names_sort(out);
	return err;
}

int tr_kernel_functions_match(const char *glob)
{
	struct names matched = { 0 };
	int err = match_functions(glob, NULL, &matched), n = matched.count;

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
 * The BTF of module (loaded into *owned, which the caller frees) or, for
 * "", vmlinux's; and function name's id in it, or 0.
 */
static const struct btf *btf_of(const struct function_probe *fp, const char *module,
				const char *name, struct btf **owned, int *id)
{
	*owned = NULL;
	if (!module[0]) {
		*id = btf_function_id(&fp->funcs, name);
		return fp->funcs.btf;
	}
	*owned = fp->funcs.btf ? btf__load_module_btf(module, fp->funcs.btf) : NULL;
	*id = *owned ? btf__find_by_name_kind(*owned, name, BTF_KIND_FUNC) : 0;
	if (*id < 0)
		*id = 0;
	return *owned;
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
	struct btf *owned = NULL;
	const struct btf *btf = found > 0 ? btf_of(fp, module, name, &owned, &id) : NULL;

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
	btf__free(owned);
	return err;
}

/* The functions a glob matches, each an event (those already probed kept as they are). */
static int add_glob(struct tr_event_set *set, struct function_probe *fp, const char *how,
		    char *why, size_t whylen)
{
	struct names matched = { 0 };
	unsigned int limit = fp->p->trampoline ? TR_MAX_TRAMPOLINES : TR_MAX_MULTI;
	unsigned int first = set->count;
	char note[200] = "";
	size_t i;
	int err = match_functions(fp->p->function, fp->p->trampoline ? &fp->funcs : NULL,
				  &matched);

	if (!err && !matched.count) {
		snprintf(why, whylen, "%s: '%s' matches no function this kernel can probe%s",
			 fp->spec, fp->p->function, fp->p->trampoline ?
			 " through fentry and fexit (those of vmlinux that BTF describes)" : "");
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

		snprintf(full, sizeof(full), "%s:%s", system_of(fp->p), matched.name[i]);
		if (!tr_events_find(set, full))
			err = add_function(set, fp, matched.name[i], fp->funcs.btf,
					   btf_function_id(&fp->funcs, matched.name[i]), "",
					   why, whylen);
	}
	if (!err && set->count > first) {
		snprintf(note, sizeof(note), "%s: %u functions%s%s", fp->spec, set->count - first,
			 how, fp->raw ? ", some recorded raw (BTF does not describe them)" : "");
		snprintf(set->events[first].probe->note, sizeof(set->events[first].probe->note),
			 "%s", note);
	}
	names_free(&matched);
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
		char note[200] = "";

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
	struct names matched = { 0 };
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
		err = match_functions(glob ? glob : "*", NULL, &matched);
	if (err)
		snprintf(why, whylen, "the kernel's functions: %s", strerror(-err));
	for (i = 0; !err && i < matched.count; i++) {
		int fentry = btf_function_id(&funcs, matched.name[i]) > 0;

		fprintf(out, "%-40s %s%s%s\n", matched.name[i], fentry ? "fentry fexit" : "",
			fentry && kprobes ? " " : "", kprobes ? "kprobe kretprobe" : "");
	}
	btf_functions_free(&funcs);
	names_free(&matched);
	return err ? err : (int)i;
}

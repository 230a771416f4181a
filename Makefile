# tracer: one entry point.  `make` builds what this machine can build;
# `make check` runs the test suite; `make bench` runs the benchmarks.

BUILD   ?= build
CC      ?= gcc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror -Iinclude -Iuser -Ibpf -I$(BUILD)/bpf -I$(BUILD)/gen \
	   $(shell pkg-config --cflags libtracefs libtraceevent)
# CPPFLAGS and LDFLAGS from the environment (dpkg-buildflags' hardening,
# debian/rules) go to every compile and every link.
CFLAGS  += $(CPPFLAGS)
LDLIBS  += -lbpf -ldw -lelf -lz -lpthread \
	   $(shell pkg-config --libs libtracecmd libtracefs libtraceevent liburcu-memb ncurses) -lm

# BPF programs: one object and one bpftool skeleton per bpf/*.bpf.c.
# The multiarch directory after the others: libbpf's usdt.bpf.h includes <linux/errno.h>.
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Wall -Werror \
	      -Ivmlinux/x86 -Iinclude -Ibpf -idirafter /usr/include/$(shell $(CC) -dumpmachine)
BPF_SRCS   := $(wildcard bpf/*.bpf.c)
BPF_OBJS   := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/bpf/%.bpf.o)
BPF_SKELS  := $(BPF_OBJS:.bpf.o=.skel.h)

# The library, libtracer.a, folder by folder (user/README.md: what each
# holds and which folders it may call; `make layers` checks it).
COMMON_SRCS  := $(wildcard user/common/*.c)
LAYOUT_SRCS  := $(wildcard user/layout/*.c)
READER_SRCS  := $(wildcard user/reader/*.c)
PRINT_SRCS   := $(wildcard user/print/*.c)
EVENTS_SRCS  := $(wildcard user/events/*.c)
BUFFERS_SRCS := $(wildcard user/buffers/*.c)
RECORD_SRCS  := $(wildcard user/record/*.c)
SINKS_SRCS   := $(wildcard user/sinks/*.c)
TOP_SRCS     := $(wildcard user/top/*.c)
LIB_SRCS := $(COMMON_SRCS) $(LAYOUT_SRCS) $(READER_SRCS) $(PRINT_SRCS) $(EVENTS_SRCS) \
	    $(BUFFERS_SRCS) $(RECORD_SRCS) $(SINKS_SRCS) $(TOP_SRCS)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libtracer.a

# libtracer-ust, the user-space tracing library (include/tracer/ust.h):
# position-independent, exporting only the API, shared and static; it is
# user/ust/ over user/layout/ (the packets and buffers both libraries write).
UST_SRCS := $(wildcard user/ust/*.c) $(LAYOUT_SRCS)
UST_OBJS := $(UST_SRCS:%.c=$(BUILD)/pic/%.o)
UST_LIBS := $(BUILD)/libtracer-ust.so $(BUILD)/libtracer-ust.a $(BUILD)/tracer-ust.pc
EXAMPLE_BINS := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))

TEST_SRCS := $(wildcard tests/*/*_test.c)
TEST_BINS := $(TEST_SRCS:%.c=$(BUILD)/%)

HELPER_BINS := $(patsubst tests/helpers/%.c,$(BUILD)/tests/helpers/%,$(wildcard tests/helpers/*.c))

BENCH_BINS := $(BUILD)/bench/ringbuf_bench $(BUILD)/bench/tracepoint_bench $(BUILD)/bench/uprobe_target \
	      $(BUILD)/tests/helpers/topcheck $(BUILD)/bench/ust_bench $(BUILD)/bench/ust_bench_disk \
	      $(BUILD)/bench/ust_lttng
# e.g. make bench BENCH_ARGS=--quick; bench/suite.py --help lists the options.
BENCH_ARGS ?=

TRACER := $(BUILD)/tracer

# The version, from one place (VERSION): tracer --version, the man pages,
# the trace's env, libtracer-ust's file name and soname (its major), its
# pkg-config file and the Debian packages (debian/changelog must agree).
VERSION      := $(shell cat VERSION)
UST_SOMAJOR  := $(firstword $(subst ., ,$(VERSION)))

.PHONY: all check vm-check bench fuzz deps vmlinux clean layers man install uninstall dist
all: $(LIB) $(BPF_SKELS) $(TRACER) $(UST_LIBS) $(EXAMPLE_BINS) $(BUILD)/man/tracer.1

# Skeletons are what the C side includes; the objects need not be rebuilt.
.SECONDARY: $(BPF_OBJS)

# Every C compile writes its own dependencies (-MMD -MP: the headers it
# read); generated headers come first, as order-only prerequisites.  The
# dependency files read are those of today's targets (the end of this file),
# so one left by a source since moved names nothing that is gone.
DEPFLAGS := -MMD -MP
GEN_HEADERS := $(BPF_SKELS) $(BUILD)/gen/syscall_numbers.h $(BUILD)/gen/tracer/version.h

# The command: cli/, a file per command, over the library.
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
$(TRACER): $(CLI_OBJS) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIB) $(LDLIBS)

# The man pages, tracer.1 and tracer-COMMAND.1, and the bash completion,
# made from the commands' option tables (cli/man/man_pages.c and
# cli/completion/completion_data.c, over cli/ but for main); the pages
# are dated by the last commit.
CLI_TABLE_OBJS := $(filter-out $(BUILD)/cli/tracer.o,$(CLI_OBJS))
MAN_GEN   := $(BUILD)/cli/man/man_pages
MAN_DATE  := $(shell git log -1 --format=%cs 2>/dev/null || date -u -r VERSION +%F)
man: $(BUILD)/man/tracer.1
$(BUILD)/man/tracer.1: $(MAN_GEN)
	@mkdir -p $(@D)
	$(MAN_GEN) $(@D) $(MAN_DATE)
COMPLETION_GEN := $(BUILD)/cli/completion/completion_data
COMPLETION     := $(BUILD)/completion/tracer
all: $(COMPLETION)
$(COMPLETION): cli/completion/tracer.bash $(COMPLETION_GEN)
	@mkdir -p $(@D)
	{ $(COMPLETION_GEN) && cat $<; } >$@.tmp && mv $@.tmp $@
$(MAN_GEN) $(COMPLETION_GEN): $(BUILD)/cli/%: cli/%.c $(CLI_TABLE_OBJS) $(LIB) | $(GEN_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) -o $@ $< $(CLI_TABLE_OBJS) $(LIB) $(LDLIBS)

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h include/tracer/*.h) vmlinux/x86/vmlinux.h
	@mkdir -p $(@D)
	clang $(BPF_CFLAGS) -c -o $@ $<

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	bpftool gen skeleton $< name $* > $@

$(BUILD)/%.o: %.c | $(GEN_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/gen/tracer/version.h: VERSION
	@mkdir -p $(@D)
	@echo '$(VERSION)' | grep -qxE '[0-9]+\.[0-9]+\.[0-9]+' || \
		{ echo 'VERSION: "$(VERSION)" is not MAJOR.MINOR.PATCH' >&2; exit 1; }
	printf '#define TRACER_VERSION "%s"\n#define TRACER_VERSION_MAJOR %s\n#define TRACER_VERSION_MINOR %s\n#define TRACER_VERSION_PATCH %s\n' \
		$(VERSION) $(subst ., ,$(VERSION)) >$@

# System call numbers by name, from the installed kernel headers.
SYSCALL_HEADER := /usr/include/x86_64-linux-gnu/asm/unistd_64.h
$(BUILD)/gen/syscall_numbers.h: $(SYSCALL_HEADER)
	@mkdir -p $(@D)
	awk '/^#define __NR_/ { printf "\t{ \"%s\", %s },\n", substr($$2, 6), $$3 }' $< >$@

$(LIB): $(LIB_OBJS)
	$(AR) rcs $@ $^

$(BUILD)/pic/%.o: %.c | $(BUILD)/gen/tracer/version.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

# The library's file carries the version, its soname the major, and the
# development name links to it (ldconfig's and Debian's scheme).
UST_SONAME := libtracer-ust.so.$(UST_SOMAJOR)
$(BUILD)/libtracer-ust.so.$(VERSION): $(UST_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(UST_SONAME) -o $@ $^ -lpthread
$(BUILD)/libtracer-ust.so: $(BUILD)/libtracer-ust.so.$(VERSION)
	ln -sf $(<F) $(BUILD)/$(UST_SONAME)
	ln -sf $(<F) $@

$(BUILD)/libtracer-ust.a: $(UST_OBJS)
	$(AR) rcs $@ $^

# pkg-config's file, for a prefix (1), headers (2) and libraries (3).
define ust_pc
printf 'prefix=%s\nincludedir=%s\nlibdir=%s\n\nName: tracer-ust\nDescription: %s\nVersion: %s\nCflags: -I$${includedir}\nLibs: -L$${libdir} -ltracer-ust\nLibs.private: -lpthread\n' \
	'$(1)' '$(2)' '$(3)' 'user-space tracing into tracer buffers' '$(VERSION)'
endef
# For programs built against this tree: PKG_CONFIG_PATH=$(BUILD) pkg-config --cflags --libs tracer-ust
$(BUILD)/tracer-ust.pc: Makefile VERSION
	@mkdir -p $(@D)
	$(call ust_pc,$(CURDIR),$${prefix}/include,$(abspath $(BUILD))) >$@

# Examples link the shared library, found where it was built.
$(BUILD)/examples/%: examples/%.c $(BUILD)/libtracer-ust.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) -o $@ $< -L$(BUILD) -ltracer-ust -Wl,-rpath,$(abspath $(BUILD))

$(BUILD)/tests/%: tests/%.c $(LIB) | $(GEN_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) -Itests -o $@ $< $(LIB) $(LDLIBS)

# The user-space library's tests and helpers: its static archive, internals included.
$(BUILD)/tests/ust/%: tests/ust/%.c $(BUILD)/libtracer-ust.a $(LIB) | $(GEN_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) -Itests -o $@ $< $(BUILD)/libtracer-ust.a $(LIB) $(LDLIBS)
$(BUILD)/tests/helpers/ust%: tests/helpers/ust%.c $(BUILD)/libtracer-ust.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) -o $@ $< $(BUILD)/libtracer-ust.a -lpthread

# tracer top's known truths: static, so that no loader's read() (of libc)
# joins the read() calls whose number and latencies tests/run-top.t knows.
$(BUILD)/tests/helpers/topcheck: tests/helpers/topcheck.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) -static -o $@ $< -lpthread

# The call-stack tests' known chain: every function with its frame pointer
# (gcc 12 leaves it out of a leaf function at -O2 whatever it is told).
$(BUILD)/tests/helpers/callchain: CFLAGS += -O0 -fno-omit-frame-pointer

$(BUILD)/bench/%: bench/%.c $(LIB) | $(GEN_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# Workloads 1, 2 and 4: bench/tracepoint/, a harness and a file per peer and
# per workload (its README.md), each compiled by the rule for objects above.
TRACEPOINT_BENCH_SRCS := $(wildcard bench/tracepoint/*.c)
TRACEPOINT_BENCH_OBJS := $(TRACEPOINT_BENCH_SRCS:%.c=$(BUILD)/%.o)
$(BUILD)/bench/tracepoint_bench: $(TRACEPOINT_BENCH_OBJS) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(TRACEPOINT_BENCH_OBJS) $(LIB) $(LDLIBS)

# Workload 6: the same loop through libtracer-ust (shared, as applications
# link it) and through lttng-ust (setup installs liblttng-ust-dev).
$(BUILD)/bench/ust_bench $(BUILD)/bench/ust_bench_disk: bench/ust_bench.c $(BUILD)/libtracer-ust.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) $(if $(findstring _disk,$@),-DUST_BENCH_DISCARD) -o $@ $< -L$(BUILD) -ltracer-ust -Wl,-rpath,$(abspath $(BUILD)) -lpthread
$(BUILD)/bench/ust_lttng: bench/ust_lttng.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(DEPFLAGS) -Ibench -o $@ $< -llttng-ust -llttng-ust-common -ldl -lpthread

# The fuzzers: the trace reader and report, and the format sanitizer,
# built with libFuzzer, AddressSanitizer and UBSan (the libraries they link
# are not instrumented).
FUZZ_CFLAGS := -g -O1 -std=gnu11 -Wall -Wextra -Werror -Iinclude -Iuser -I$(BUILD)/gen \
	       $(shell pkg-config --cflags libtracecmd libtracefs libtraceevent) \
	       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_LIBS := $(shell pkg-config --libs libtracecmd libtracefs libtraceevent) -lelf
FUZZ_BINS := $(BUILD)/fuzz/report_fuzz $(BUILD)/fuzz/format_fuzz $(BUILD)/fuzz/filter_fuzz
FUZZ_SECONDS ?= 300

# Each fuzzer is built from the folders it needs, by their lists above.
REPORT_FUZZ_SRCS := tests/fuzz/report_fuzz.c $(COMMON_SRCS) $(LAYOUT_SRCS) $(READER_SRCS) $(PRINT_SRCS) $(SINKS_SRCS)
# (format_fuzz stands in for the trace the printers ask for names: the
# sanitizer of the reader's folder, the printers, no trace)
FORMAT_FUZZ_SRCS := tests/fuzz/format_fuzz.c user/reader/format_check.c $(PRINT_SRCS)
FILTER_FUZZ_SRCS := tests/fuzz/filter_fuzz.c user/events/filter.c $(COMMON_SRCS)
$(BUILD)/fuzz/report_fuzz: $(REPORT_FUZZ_SRCS)
$(BUILD)/fuzz/format_fuzz: $(FORMAT_FUZZ_SRCS)
$(BUILD)/fuzz/filter_fuzz: $(FILTER_FUZZ_SRCS)
# (one compile of many files, so no -MMD: every header counts)
$(FUZZ_BINS): $(wildcard include/tracer/*.h user/*/*.h tests/format/*.h) | $(BUILD)/gen/syscall_numbers.h $(BUILD)/gen/tracer/version.h
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) $(FUZZ_LIBS)

# make asan: tracer, its libraries and test helpers built with AddressSanitizer
# and UBSan in $(ASAN_BUILD), and the command-line tests run on them (about 2
# minutes here, the build from scratch 40 s; make check runs it too).  Any sanitizer
# report (a memory error, undefined behaviour, a leak) fails the run: each goes
# to a file in $(ASAN_REPORTS), which must stay empty.  LeakSanitizer leaves
# out libtraceevent's own leaks only (tests/fuzz/lsan.supp).
ASAN_BUILD   ?= build-asan
ASAN_CFLAGS  := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_TESTS   := tests/run-cli.t tests/run-report-hostile.t tests/run-filter.t tests/run-print.t tests/run-export.t \
		tests/run-tracecmd.t tests/run-analyze.t
ASAN_REPORTS  = $(abspath $(ASAN_BUILD))/sanitizer-reports

# The tests' workloads, counted system call by system call, are left plain:
# LeakSanitizer makes its own at exit (getppid(), lseek()); and topcheck is
# static, which the sanitizers' runtimes cannot be.
$(ASAN_BUILD)/tests/helpers/getppid_n $(ASAN_BUILD)/tests/helpers/filter_load \
$(ASAN_BUILD)/tests/helpers/topcheck: \
	CFLAGS := $(filter-out -fsanitize=%,$(CFLAGS))

.PHONY: asan
asan: deps
	CFLAGS='$(ASAN_CFLAGS)' $(MAKE) BUILD=$(ASAN_BUILD) all $(HELPER_BINS:$(BUILD)/%=$(ASAN_BUILD)/%)
	rm -rf $(ASAN_REPORTS) && mkdir -p $(ASAN_REPORTS) && chmod 1777 $(ASAN_REPORTS)
	status=0; \
	ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:log_path=$(ASAN_REPORTS)/asan \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$(ASAN_REPORTS)/ubsan \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp:print_suppressions=0 \
	BUILD=$(ASAN_BUILD) prove --exec '' --merge --verbose $(ASAN_TESTS) || status=1; \
	if [ -n "$$(ls -A $(ASAN_REPORTS))" ]; then \
		cat $(ASAN_REPORTS)/*; echo "make asan: the sanitizers reported the above ($(ASAN_REPORTS))"; status=1; \
	fi; \
	exit $$status
check: asan

# The call graph between user/'s folders and cli/, checked against
# user/README.md's table: fails on a cycle or an edge it does not allow.
layers: $(LIB) $(CLI_OBJS)
	tests/layers.py $(BUILD)
check: layers

# Installs missing Debian packages (a no-op when all are present).
deps:
	./setup --deps-only

# Each test prints TAP; prove runs them all and prints the summary.
check: deps all $(TEST_BINS) $(HELPER_BINS) $(FUZZ_BINS)
	BUILD=$(BUILD) prove --exec '' --merge --verbose $(TEST_BINS) $(wildcard tests/run-*.t)

# The fuzzers alone, as long as asked; their corpora grow in $(BUILD)/fuzz/corpus/.
fuzz: $(FUZZ_BINS)
	BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_CORPUS=$(BUILD)/fuzz/corpus \
		prove --exec '' --merge --verbose tests/run-fuzz.t

# Only the VM suite (a part of check): Debian's kernels under qemu, tests/vm/.
vm-check: deps all $(HELPER_BINS)
	BUILD=$(BUILD) prove --exec '' --merge --verbose tests/run-vm.t

# The suite runs build/tracer and the peers setup installs; results in
# $(BUILD)/bench-results/<time>/ (bench/README.md).
bench: deps all $(BENCH_BINS)
	bench/suite.py --build $(BUILD) $(BENCH_ARGS)

# Regenerate the committed CO-RE header from the running kernel's BTF.
vmlinux:
	bpftool btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/x86/vmlinux.h

clean:
	rm -rf $(BUILD)

# make install [PREFIX=/usr/local] [DESTDIR=]: the command, libtracer-ust
# (shared, with its soname's link and the development link; static; its
# header; its pkg-config file, holding PREFIX), the man pages, the bash
# completion and the example.  make uninstall removes exactly that (the
# commands' pages by their names, tracer-*.1).  Into the system itself (no
# DESTDIR), both refresh the loader's cache (ldconfig), so that programs
# find libtracer-ust.so.N at once.
LDCONFIG = $(if $(DESTDIR),:,command -v ldconfig >/dev/null && [ "$$(id -u)" = 0 ] && ldconfig || :)
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
MANDIR      ?= $(PREFIX)/share/man
DOCDIR      ?= $(PREFIX)/share/doc/tracer
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# The pages written by hand: the library's API (3), the trace and its losses (7).
MAN_WRITTEN := $(wildcard cli/man/*.3 cli/man/*.7)
INSTALLED   := $(BINDIR)/tracer $(LIBDIR)/libtracer-ust.so.$(VERSION) $(LIBDIR)/$(UST_SONAME) \
	       $(LIBDIR)/libtracer-ust.so $(LIBDIR)/libtracer-ust.a $(INCLUDEDIR)/tracer/ust.h \
	       $(LIBDIR)/pkgconfig/tracer-ust.pc $(BASHCOMPDIR)/tracer \
	       $(foreach page,$(MAN_WRITTEN),$(MANDIR)/man$(subst .,,$(suffix $(page)))/$(notdir $(page))) \
	       $(MANDIR)/man1/tracer.1 $(MANDIR)/man1/tracer-*.1 \
	       $(patsubst %,$(DOCDIR)/%,$(wildcard examples/*.c))

install: all
	install -d $(addprefix $(DESTDIR),$(BINDIR) $(LIBDIR)/pkgconfig $(INCLUDEDIR)/tracer \
		$(MANDIR)/man1 $(MANDIR)/man3 $(MANDIR)/man7 $(BASHCOMPDIR) $(DOCDIR)/examples)
	install -m 755 $(TRACER) $(DESTDIR)$(BINDIR)/tracer
	install -m 644 $(BUILD)/libtracer-ust.so.$(VERSION) $(BUILD)/libtracer-ust.a $(DESTDIR)$(LIBDIR)/
	ln -sfn libtracer-ust.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(UST_SONAME)
	ln -sfn $(UST_SONAME) $(DESTDIR)$(LIBDIR)/libtracer-ust.so
	install -m 644 include/tracer/ust.h $(DESTDIR)$(INCLUDEDIR)/tracer/
	$(call ust_pc,$(PREFIX),$(INCLUDEDIR),$(LIBDIR)) >$(DESTDIR)$(LIBDIR)/pkgconfig/tracer-ust.pc
	install -m 644 $(BUILD)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	$(foreach page,$(MAN_WRITTEN),install -m 644 $(page) $(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(page)))/;)
	install -m 644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/tracer
	install -m 644 examples/*.c $(DESTDIR)$(DOCDIR)/examples/
	$(LDCONFIG)

# make dist: $(BUILD)/tracer-VERSION.tar.xz, the tree's source files (git's
# list, with the untracked files it does not ignore; in a tree unpacked
# from a tarball, its MANIFEST) under tracer-VERSION/,
# with MANIFEST: the files, for what copies the tree without git
# (tests/lib.sh's source_files).  Its files dated by the last commit (by
# VERSION's date without git), owned by root, sorted: the same source
# makes the same tarball.
DIST := $(BUILD)/tracer-$(VERSION).tar.xz
dist:
	@mkdir -p $(BUILD)/dist
	{ git ls-files --cached --others --exclude-standard 2>/dev/null || grep -vx MANIFEST MANIFEST; } | \
		{ cat; echo MANIFEST; } | LC_ALL=C sort >$(BUILD)/dist/MANIFEST
	@[ $$(wc -l <$(BUILD)/dist/MANIFEST) -gt 1 ] || \
		{ echo 'make dist: no source files (neither git nor a MANIFEST lists them)' >&2; exit 1; }
	grep -vx MANIFEST $(BUILD)/dist/MANIFEST | \
		tar -cf $(BUILD)/dist/tracer.tar --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime=@$$(git log -1 --format=%ct 2>/dev/null || date -r VERSION +%s) \
		--transform 's,^,tracer-$(VERSION)/,' -T - -C $(BUILD)/dist MANIFEST
	xz -T1 -c $(BUILD)/dist/tracer.tar >$(DIST).tmp && mv $(DIST).tmp $(DIST)
	rm -rf $(BUILD)/dist
	@echo $(DIST)

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(addprefix $(DESTDIR),$(INCLUDEDIR)/tracer $(DOCDIR)/examples $(DOCDIR)) 2>/dev/null
	$(LDCONFIG)

# What each compile wrote with -MMD: an object's beside it, a program
# compiled from one source beside the program.
-include $(patsubst %.o,%.d,$(LIB_OBJS) $(CLI_OBJS) $(UST_OBJS) $(TRACEPOINT_BENCH_OBJS)) \
	 $(addsuffix .d,$(TEST_BINS) $(HELPER_BINS) $(EXAMPLE_BINS) $(MAN_GEN) $(COMPLETION_GEN) \
	 $(filter-out $(BUILD)/bench/tracepoint_bench,$(BENCH_BINS)))

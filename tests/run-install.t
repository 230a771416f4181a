#!/usr/bin/env bash
# make install and make uninstall, as a user of the installed tracer sees
# them: installed into a DESTDIR, the tracer records and reports from
# another directory with PATH holding only the install, and with the
# source tree hidden (a tmpfs over it in a mount namespace of its own);
# examples/hanoi.c, as installed, builds against the installed pkg-config
# file and its trace reads back; man finds the pages; bash completes a
# command and an event name through a terminal; make uninstall leaves no
# file behind.
set -u
TEST_NAME=install
. "$(dirname "$0")/lib.sh"
require_root "recording needs root here (BPF), and hiding the source tree a mount namespace"

src=$(pwd)
build=$(cd "$BUILD" && pwd)
root=$work/root
prefix=/usr/local
installed=$root$prefix
version=$(cat VERSION)
soname=libtracer-ust.so.${version%%.*}
# make's own settings stay with the make that runs this test.
unset MAKEFLAGS MAKELEVEL MFLAGS

# hidden COMMAND...: COMMAND in $work/elsewhere, with the source tree
# (and the build in it) hidden under an empty tmpfs.
hidden() {
	unshare -m --propagation private sh -c \
		'mount -t tmpfs -o size=1m tracer-install-test "$1" && cd "$2" && shift 2 && exec "$@"' \
		sh "$src" "$work/elsewhere" "$@"
}
mkdir -p "$work/elsewhere"

check "make install DESTDIR=... PREFIX=$prefix" \
	eval 'make -s BUILD="$BUILD" install DESTDIR="$root" PREFIX=$prefix >"$work/make" 2>&1 ||
		{ diag "$work/make"; false; }'

expected_files() {
	printf '%s\n' bin/tracer \
		include/tracer/ust.h \
		lib/libtracer-ust.a \
		lib/libtracer-ust.so \
		lib/libtracer-ust.so.$version \
		lib/$soname \
		lib/pkgconfig/tracer-ust.pc \
		share/bash-completion/completions/tracer \
		share/doc/tracer/examples/hanoi.c
	(cd "$BUILD/man" && ls *.1) | sed 's|^|share/man/man1/|'
	(cd cli/man && ls *.3 *.7 2>/dev/null) | sed -E 's|^(.*)\.([0-9])$|share/man/man\2/\1.\2|'
}
check "installed: the command, the library (file, soname and development links, archive, header, pkg-config), pages, completion, example" \
	eval 'expected_files | sort >"$work/expected" &&
		(cd "$installed" && find . -type f -o -type l) | sed "s|^\./||" | sort >"$work/got" &&
		diff "$work/expected" "$work/got" >"$work/diff" || { diag "$work/diff"; false; }'
check "libtracer-ust: soname $soname; its link and the development link lead to libtracer-ust.so.$version" \
	eval '[ "$(readlink "$installed/lib/$soname")" = libtracer-ust.so.$version ] &&
		[ "$(readlink -f "$installed/lib/libtracer-ust.so")" = "$installed/lib/libtracer-ust.so.$version" ] &&
		readelf -d "$installed/lib/libtracer-ust.so.$version" | grep -q "SONAME.*\[$soname\]"'
check "the pkg-config file holds the install prefix and the version" \
	eval 'grep -qx "prefix=$prefix" "$installed/lib/pkgconfig/tracer-ust.pc" &&
		[ "$(PKG_CONFIG_LIBDIR="$installed/lib/pkgconfig" pkg-config --modversion tracer-ust)" = "$version" ]'

# The installed tracer, PATH holding only the install, the source tree hidden.
itracer() { hidden env PATH="$installed/bin" tracer "$@"; }
check "tracer --version says $version" \
	eval '[ "$(itracer --version)" = "tracer $version" ]'

cp "$GETPPID" "$work/getppid_n"
record_installed() {
	itracer record -e syscalls:sys_enter_getppid -o "$work/trace" -- "$work/getppid_n" 300 \
		>"$work/record.out" 2>&1 &&
	itracer report "$work/trace" >"$work/report" 2>"$work/report.err" &&
	[ "$(grep -c 'syscalls:sys_enter_getppid:' "$work/report")" = 300 ] ||
		{ diag "$work/record.out" "$work/report.err"; false; }
}
check "from another directory: record 300 getppid, and report shows 300" record_installed
check "the trace's env carries the version: tracer_major, tracer_minor, tracer_patchlevel" \
	eval 'IFS=. read -r major minor patch <<<"$version" &&
		grep -q "tracer_major = $major;" "$work/trace/metadata" &&
		grep -q "tracer_minor = $minor;" "$work/trace/metadata" &&
		grep -q "tracer_patchlevel = $patch;" "$work/trace/metadata"'

hanoi_installed() {
	local flags
	flags=$(PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$installed/lib/pkgconfig \
		pkg-config --cflags --libs tracer-ust) &&
	hidden cc -o "$work/hanoi" "$installed/share/doc/tracer/examples/hanoi.c" $flags \
		-Wl,-rpath,"$installed/lib" 2>"$work/cc.err" &&
	ldd "$work/hanoi" | grep -q "$soname => $installed/lib/$soname" &&
	hidden "$work/hanoi" "$work/hanoi.trace" >/dev/null 2>"$work/hanoi.err" &&
	itracer report "$work/hanoi.trace" >"$work/hanoi.report" &&
	[ "$(grep -c 'hanoi:CALLS_' "$work/hanoi.report")" = 94 ] &&
	[ "$(grep -c 'hanoi:MOVES_' "$work/hanoi.report")" = 63 ] ||
		{ diag "$work/cc.err" "$work/hanoi.err"; false; }
}
check "the installed examples/hanoi.c builds by the installed pkg-config file; its trace: 94 CALLS, 63 MOVES" \
	hanoi_installed

man_finds() { # man_finds PAGE SECTION
	local path
	path=$(MANPATH=$installed/share/man man -w "$2" "$1" 2>&1) &&
		[ "$path" = "$installed/share/man/man$2/$1.$2" ] ||
		{ echo "# man -w $2 $1: $path"; false; }
}
check "man finds tracer(1) and tracer-record(1) in the install" \
	eval 'man_finds tracer 1 && man_finds tracer-record 1'
for page in cli/man/*.[37]; do
	[ -e "$page" ] || continue
	name=$(basename "$page")
	check "man finds ${name%.*}(${name##*.}) in the install" man_finds "${name%.*}" "${name##*.}"
done

# tab TEXT...: the line the installed completion leaves, in an interactive
# bash on a terminal; what bash showed after the last TEXT in $work/tab.
cp tests/install/tab.py "$work/tab.py"
tab() {
	hidden env PATH="$installed/bin:/usr/bin:/bin" \
		"$work/tab.py" "$installed/share/bash-completion/completions/tracer" "$@" >"$work/tab" &&
		head -n 1 "$work/tab"
}
check "bash: tracer rec<Tab> completes to tracer record" \
	eval '[ "$(tab "tracer rec")" = "tracer record " ]'
check "bash: tracer record -e sched:sched_swi<Tab> completes to sched:sched_switch" \
	eval '[ "$(tab "tracer record -e sched:sched_swi")" = "tracer record -e sched:sched_switch " ]'
check "bash: tracer record -e sched:sched_sw<Tab><Tab> lists sched_switch" \
	eval 'tab "tracer record -e sched:sched_sw" $'"'"'\t'"'"' >/dev/null && sed 1d "$work/tab" | grep -qx sched_switch ||
		{ diag "$work/tab"; false; }'
check "bash: tracer report --sta<Tab>ts<Tab> completes the option, from its table" \
	eval '[ "$(tab "tracer report --sta" "ts")" = "tracer report --stats " ]'

check "make uninstall leaves no file behind" \
	eval 'make -s BUILD="$BUILD" uninstall DESTDIR="$root" PREFIX=$prefix >"$work/make" 2>&1 &&
		(cd "$root" && find . -type f -o -type l) >"$work/left" && [ ! -s "$work/left" ] ||
		{ diag "$work/make" "$work/left"; false; }'

echo "1..$n"

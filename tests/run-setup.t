#!/usr/bin/env bash
# README's first command, ./setup, as a newcomer runs it: in the release
# tarball (make dist) unpacked, nothing built, it builds, records, prints
# the start of the report, and exits 0.  The tarball holds the tree's
# source files (source_files) and MANIFEST listing them.
set -u
TEST_NAME=setup
. "$(dirname "$0")/lib.sh"
require_root "./setup records with BPF, which needs root here"
# make's own settings stay with the make that runs this test.
unset MAKEFLAGS MAKELEVEL MFLAGS

version=$(cat VERSION)
tree=$work/tracer-$version
unpacked() {
	local tarball
	tarball=$(make -s BUILD="$BUILD" dist 2>"$work/dist.err" | tail -n 1) &&
		[ "$tarball" = "$BUILD/tracer-$version.tar.xz" ] && tar -xJf "$tarball" -C "$work" ||
		{ diag "$work/dist.err"; false; }
}
check "make dist writes $BUILD/tracer-$version.tar.xz" unpacked || { echo "1..$n"; exit 1; }

holds_the_source() {
	(cd "$tree" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$work/members" &&
		{ source_files | tr '\0' '\n'; echo MANIFEST; } | LC_ALL=C sort | diff - "$work/members" >"$work/diff" &&
		diff "$tree/MANIFEST" "$work/members" >>"$work/diff" || { head -n 20 "$work/diff" | diag; false; }
}
check "the tarball holds the tree's source files and MANIFEST, which lists them" holds_the_source

sets_up() {
	(cd "$tree" && ./setup) >"$work/setup.out" 2>&1
	local status=$?
	[ "$status" = 0 ] && grep -q ' sched:sched_[a-z_]*: ' "$work/setup.out" &&
		grep -q 'setup: the whole report' "$work/setup.out" ||
		{ echo "# exit $status"; tail -n 15 "$work/setup.out" | diag; false; }
}
check "./setup in the unpacked tarball builds, records, reports and exits 0" sets_up
echo "1..$n"

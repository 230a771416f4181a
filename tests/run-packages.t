#!/usr/bin/env bash
# The Debian packages (debian/), as a Debian user gets them: built with
# dpkg-buildpackage -b from a copy of the tree (its files as git lists
# them; the packages go to the copy's parent directory), and lintian finds
# no error or warning in them; installed with dpkg -i, /usr/bin/tracer records and
# reports from another directory, examples/hanoi.c as installed builds
# against the installed pkg-config file and its trace reads back, and
# dpkg --purge leaves none of their files.  DKMS builds the module of
# tracer-modules-dkms for Debian's 6.12 cloud kernel, with the headers that
# tests/vm/fetch-kernel unpacks for the VM tests, with its BTF.  Not here
# yet: loading that module in the VM, and 6.1, whose headers have no
# vmlinux and whose kbuild no resolve_btfids, so that DKMS builds its module
# without BTF (tests/vm/build-module makes both for the VM tests).
#
# The machine is left as found: the packages purged and DKMS's tree entry
# removed at exit, whatever failed; a machine that has any of the packages
# installed already is skipped.  80 to 110 s here: the build 30 s,
# lintian 7 s, DKMS 8 s (plus each kernel's first fetch, 10 s).
set -u
TEST_NAME=packages
. "$(dirname "$0")/lib.sh"
require_root "dpkg -i and dkms need root, and recording BPF"
# make's own settings stay with the make that runs this test.
unset MAKEFLAGS MAKELEVEL MFLAGS

version=$(cat VERSION)
packages=(tracer libtracer-ust0 libtracer-ust-dev tracer-modules-dkms)
for tool in dpkg-buildpackage dh_dkms lintian dkms; do
	command -v "$tool" >/dev/null || { echo "1..0 # SKIP no $tool (./setup --deps-only installs it)"; exit 0; }
done
if dpkg-query -W -f='${Status}\n' "${packages[@]}" 2>/dev/null | grep -q ' installed$'; then
	echo "1..0 # SKIP tracer's packages are installed here: this test would remove them"
	exit 0
fi
keep_tracefs_as_found

# Whatever the test reached, nothing of the packages stays: DKMS's tree
# entry (with every module built in it), then the packages, after dpkg has
# finished what an interrupted dpkg -i left half done (its triggers).
at_exit 'dpkg --configure -a >/dev/null 2>&1; dpkg --purge "${packages[@]}" >/dev/null 2>&1'
at_exit '[ -z "$(dkms status -m tracer -v "$version")" ] || dkms remove -m tracer -v "$version" --all >/dev/null 2>&1'

check "debian/changelog's version is VERSION's, $version" \
	eval '[ "$(dpkg-parsechangelog -S Version | sed "s/-[^-]*$//")" = "$version" ]'

# The copy: the tree's source files (source_files).
mkdir "$work/src"
build_packages() {
	source_files | tar --null -T - -cf - | tar -xf - -C "$work/src" &&
	# BUILD, from the make that runs this test, would send the package's
	# build into this tree's; the flags are dpkg-buildflags'.
	(cd "$work/src" && env -u BUILD -u CFLAGS -u CPPFLAGS -u LDFLAGS \
		dpkg-buildpackage -b -us -uc) >"$work/build.log" 2>&1 ||
		{ tail -n 30 "$work/build.log" | diag; false; }
}
started=$SECONDS
check "dpkg-buildpackage -b -us -uc builds ${packages[*]}" build_packages || { echo "1..$n"; exit 1; }
build_seconds=$((SECONDS - started))

debs=()
for package in "${packages[@]}"; do
	debs+=("$(ls "$work"/"${package}"_"$version"_*.deb)")
done
# A warning that cannot be avoided is overridden in debian/, with the reason.
# (lintian's temporary files, which it leaves, in $work: mldbm-elf-*)
mkdir "$work/tmp"
check "lintian: no error, no warning (build $build_seconds s)" \
	eval 'TMPDIR=$work/tmp lintian --fail-on error,warning "$work"/tracer_"$version"_*.changes >"$work/lintian" 2>&1 ||
		{ diag "$work/lintian"; false; }'

# What the packages hold, and which of those paths were there before.
for deb in "${debs[@]}"; do
	dpkg-deb --fsys-tarfile "$deb" | tar -t
done | sed 's|^\.||; s|/$||' | grep . | sort -u >"$work/paths"
while read -r path; do
	[ ! -e "$path" ] || echo "$path"
done <"$work/paths" >"$work/there-before"

check "dpkg -i installs the four packages" \
	eval 'dpkg -i "${debs[@]}" >"$work/dpkg-i" 2>&1 || { diag "$work/dpkg-i"; false; }'
# What dpkg says they installed, less its name for / and the blank lines
# between packages.
dpkg -L "${packages[@]}" 2>/dev/null | grep -vxE '/\.|' | sort -u >"$work/listed"

mkdir "$work/elsewhere"
cp "$GETPPID" "$work/getppid_n"
record_installed() {
	(cd "$work/elsewhere" &&
		/usr/bin/tracer record -e syscalls:sys_enter_getppid -o "$work/trace" -- "$work/getppid_n" 300 \
			>"$work/record.out" 2>&1 &&
		/usr/bin/tracer report "$work/trace" >"$work/report" 2>"$work/report.err") &&
	[ "$(grep -c 'syscalls:sys_enter_getppid:' "$work/report")" = 300 ] ||
		{ diag "$work/record.out" "$work/report.err"; false; }
}
check "/usr/bin/tracer records 300 getppid from another directory, and reports 300" record_installed
check "/usr/bin/tracer --version says $version" \
	eval '[ "$(/usr/bin/tracer --version)" = "tracer $version" ]'
check "man finds tracer(1), tracer-record(1), tracer-ust(3) and tracer-format(7)" \
	eval 'man -w 1 tracer >/dev/null && man -w 1 tracer-record >/dev/null &&
		man -w 3 tracer-ust >/dev/null && man -w 7 tracer-format >/dev/null'

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
hanoi_installed() {
	local flags
	flags=$(env -u PKG_CONFIG_PATH pkg-config --cflags --libs tracer-ust) &&
	cc -o "$work/hanoi" /usr/share/doc/tracer/examples/hanoi.c $flags 2>"$work/cc.err" &&
	ldd "$work/hanoi" | grep -qE "libtracer-ust\.so\.${version%%.*} => (/usr)?/lib/$multiarch/" &&
	(cd "$work/elsewhere" && "$work/hanoi" "$work/hanoi.trace" >/dev/null 2>"$work/hanoi.err") &&
	/usr/bin/tracer report "$work/hanoi.trace" >"$work/hanoi.report" &&
	[ "$(grep -c 'hanoi:CALLS_' "$work/hanoi.report")" = 94 ] &&
	[ "$(grep -c 'hanoi:MOVES_' "$work/hanoi.report")" = 63 ] ||
		{ diag "$work/cc.err" "$work/hanoi.err"; false; }
}
check "examples/hanoi.c, installed, builds by pkg-config tracer-ust against libtracer-ust0; its trace: 94 CALLS, 63 MOVES" \
	hanoi_installed

check "tracer-modules-dkms: the module's source is in DKMS's tree as tracer/$version" \
	eval 'dkms status -m tracer -v "$version" | grep -q "^tracer/$version"'

# DKMS, as a kernel's header package would call it: the module for KVER,
# with BTF.  It is kept as $BUILD/vm/KVER/dkms/tracer.ko, which run-vm.t
# loads in that kernel (an earlier run's is removed first).
dkms_build() { # dkms_build KVER KDIR
	local ko=/var/lib/dkms/tracer/$version/$1/$(uname -m)/module/tracer.ko kept=$BUILD/vm/$1/dkms
	rm -rf "$kept"
	dkms build -m tracer -v "$version" -k "$1" --kernelsourcedir "$2" >"$work/dkms.log" 2>&1 &&
	[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$1" ] &&
	readelf -S "$ko" | grep -q ' \.BTF ' &&
	mkdir -p "$kept" && cp "$ko" "$kept/tracer.ko" ||
		{ tail -n 30 "$work/dkms.log" | diag; false; }
}

# with_kernel PATTERN SERIES WHAT CHECK: CHECK KVER KDIR, "dkms build for
# KVER, WHAT", for the VM tests' kernel of SERIES (PATTERN) as
# tests/vm/fetch-kernel gives it; skipped when apt cannot provide it.
with_kernel() {
	local vm status kver
	vm=$(tests/vm/fetch-kernel "$1" 2>"$work/fetch.log")
	status=$?
	if [ "$status" = 75 ]; then
		skip "dkms build for Debian's $2 cloud kernel" "$(tail -n 1 "$work/fetch.log")"
	elif [ "$status" != 0 ]; then
		check "tests/vm/fetch-kernel: Debian's $2 cloud kernel" false
		diag "$work/fetch.log"
	else
		kver=$(basename "$vm")
		check "dkms build for $kver, $3" "$4" "$kver" "$vm/root/usr/src/linux-headers-$kver"
	fi
}

# Debian's 6.1 headers carry neither a vmlinux nor resolve_btfids, without
# which kbuild gives the module no BTF: it would build, then fail to load
# (its kfuncs unregistered), so its build stops and says why.  (run-vm.t
# builds it for 6.1 with the BTF it extracts from the kernel image and the
# 6.12 kbuild's resolve_btfids.)
dkms_refused() { # dkms_refused KVER KDIR
	dkms build -m tracer -v "$version" -k "$1" --kernelsourcedir "$2" >"$work/dkms.log" 2>&1 &&
		{ echo "# built"; return 1; }
	grep -q "^tracer module: no $2/.*, without which kbuild gives the module no BTF" \
		"/var/lib/dkms/tracer/$version/build/make.log" ||
		{ tail -n 20 "$work/dkms.log" "/var/lib/dkms/tracer/$version/build/make.log" | diag; false; }
}

# run-vm.t's lock keeps the VM tests' kernels from changing meanwhile.
mkdir -p "$BUILD/vm"
exec 9>"$BUILD/vm/.lock"
flock 9
with_kernel '6\.12\.[0-9]+\+deb12-cloud-amd64' 6.12 "with its headers: tracer.ko for that kernel, with BTF" \
	dkms_build
with_kernel '6\.1\.0-[0-9]+-cloud-amd64' 6.1 \
	"whose headers have no resolve_btfids: stops, saying the module would have no BTF" dkms_refused
exec 9>&-

# Purged, the packages leave none of their paths but those there before
# (directories that other packages share), and nothing in DKMS's tree.
purged() {
	dpkg --purge "${packages[@]}" >"$work/purge" 2>&1 || { diag "$work/purge"; return 1; }
	while read -r path; do
		[ ! -e "$path" ] || grep -qxF "$path" "$work/there-before" || echo "$path"
	done <"$work/listed" >"$work/left"
	[ -e /var/lib/dkms/tracer ] && echo /var/lib/dkms/tracer >>"$work/left"
	[ ! -s "$work/left" ] || { diag "$work/left"; false; }
}
check "dpkg --purge leaves no file of the packages behind, nor DKMS's entry" purged

echo "1..$n"

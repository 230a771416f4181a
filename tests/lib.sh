# shellcheck shell=bash
# What the tests/run-*.t scripts that record share.  Source it first thing:
# it sets BUILD, TRACER and GETPPID, and skips the test unless root.  Each
# test then traps EXIT to a cleanup that calls end_test with its
# temporary paths, and prints "1..$n" at the end.
BUILD=${BUILD:-build}
TRACER=$BUILD/tracer
GETPPID=$BUILD/tests/helpers/getppid_n
tracefs_was_mounted=$(grep -c ' /sys/kernel/tracing tracefs ' /proc/mounts)

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP recording with BPF needs root here"
	exit 0
fi

# end_test PATH...: no recorder or helper outlives the test, whatever
# failed; PATHs removed; tracefs left mounted or not, as it was found.
end_test() {
	local job
	for job in $(jobs -p); do
		kill -KILL "$job" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$@"
	if [ "$tracefs_was_mounted" = 0 ] && grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts; then
		umount /sys/kernel/tracing
	fi
}

n=0
check() { # check DESCRIPTION COMMAND...: one TAP line from a command's status
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; fi
}
diag() { sed 's/^/# /' "$@"; }

# Waits until the recorder $1 has attached its BPF programs.
wait_attached() {
	local i
	for i in $(seq 200); do
		ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'anon_inode:bpf_link' && return 0
		sleep 0.05
	done
	return 1
}

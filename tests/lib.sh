# Shared by the tests/run-*.t scripts: TAP lines, a scratch directory
# removed at exit, and waiting for a recorder.  Source it after setting
# TEST_NAME; it sets BUILD, TRACER, GETPPID and work.
BUILD=${BUILD:-build}
TRACER=$BUILD/tracer
GETPPID=$BUILD/tests/helpers/getppid_n
work=$(mktemp -d "/tmp/tracer-$TEST_NAME-test.XXXXXX")
n=0

# Cleanup steps a test adds (at_exit 'command'), run in reverse order
# after every background job of the test is killed.
exit_steps=()
at_exit() { exit_steps=("$1" "${exit_steps[@]}"); }
test_shell=$BASHPID
run_exit_steps() {
	local job step
	# Not in a subshell a signal ended before it ran its command: the
	# test's jobs and $work are the test shell's to end.
	[ "$BASHPID" = "$test_shell" ] || return 0
	for job in $(jobs -p); do
		kill -KILL "$job" 2>/dev/null
	done
	wait 2>/dev/null
	for step in "${exit_steps[@]}"; do
		eval "$step"
	done
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"
}
trap run_exit_steps EXIT

check() { # check DESCRIPTION COMMAND...: one TAP line from a command's status
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; return 1; fi
}
skip() { # skip DESCRIPTION REASON
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}
diag() { sed 's/^/# /' "$@"; }

# Where a command that must be refused is told to write (-o "$out").
out=$work/out

# refused CODE PATTERN ARGS...: tracer ARGS exits CODE with one line on
# stderr matching PATTERN (extended regex), and creates no $out.
refused() {
	local code=$1 pattern=$2
	shift 2
	rm -rf "$out"
	"$TRACER" "$@" >"$work/stdout" 2>"$work/stderr"
	local got=$? lines
	lines=$(wc -l <"$work/stderr")
	[ "$got" = "$code" ] && [ "$lines" = 1 ] && grep -qE -- "$pattern" "$work/stderr" &&
		[ ! -e "$out" ] ||
		{ echo "# exit $got, $lines lines"; diag "$work/stderr"; [ ! -e "$out" ] || echo "# $out created"; return 1; }
}

# TEXT as an extended regex that matches it literally.
literally() { printf '%s' "$1" | sed 's/[][\.*^$(){}?+|]/\\&/g'; }

# The source files of the tree in the current directory, NUL-separated:
# git's list (with the untracked files it does not ignore), or in a tree
# unpacked from make dist's tarball, its MANIFEST but for itself.
source_files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z --cached --others --exclude-standard
	else
		grep -vx MANIFEST MANIFEST | tr '\n' '\0'
	fi
}

# export_signalled FORMAT TRACE KIB: export --format FORMAT of TRACE into a
# directory, ended by a signal at a known point, the file size limit's
# SIGXFSZ at the first write past KIB: it dies of the signal, saying the
# directory it removed, and none is left.
export_signalled() {
	local got
	# (bash says the signal that ended it on the group's stderr)
	{ (ulimit -f "$3"; exec "$TRACER" export --format "$1" -o "$work/cut" "$2") 2>"$work/cut.err"; } 2>/dev/null
	got=$?
	[ "$got" = $((128 + $(kill -l XFSZ))) ] && [ ! -e "$work/cut" ] &&
		grep -qx "tracer export: stopped by a signal: $work/cut removed" "$work/cut.err" ||
		{ echo "# exit $got"; diag "$work/cut.err"; ls -laR "$work/cut" 2>&1 | diag; return 1; }
}

require_root() { # require_root WHY: the whole script is skipped without root
	[ "$(id -u)" = 0 ] && return 0
	echo "1..0 # SKIP $1"
	exit 0
}

# Leaves tracefs mounted or not, as the test found it.
keep_tracefs_as_found() {
	if ! grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts; then
		at_exit "grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts && umount /sys/kernel/tracing"
	fi
}

# Mounts tracefs for the test's own ftrace instance, as keep_tracefs_as_found.
use_tracefs() {
	keep_tracefs_as_found
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
}

# This test's own ftrace instance in $instance, its events disabled and the
# instance removed at exit (after the at_exit steps added later); without
# one the whole script is skipped.  After use_tracefs.
use_instance() { # use_instance NAME
	instance=/sys/kernel/tracing/instances/tracer-$1-$$
	mkdir "$instance" || { echo "1..0 # SKIP cannot make an ftrace instance"; exit 0; }
	at_exit "echo 0 >$instance/events/enable; rmdir $instance"
}

# Waits until a recorder has attached its BPF programs: no time limit of
# its own but the recorder's life, so load cannot make it fail.
wait_attached() { # wait_attached PID
	while kill -0 "$1" 2>/dev/null; do
		ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'anon_inode:bpf_link' && return 0
		sleep 0.05
	done
	return 1
}

# Waits until a recorder without a command says it records (LOG: its
# stderr), for as long as it lives.  LOG must be new: the shell empties
# a reused one only once the recorder's process runs, so an earlier
# recorder's line there would pass for this one's.
wait_recording() { # wait_recording PID LOG
	while kill -0 "$1" 2>/dev/null; do
		grep -qs '^tracer record: recording ' "$2" && return 0
		sleep 0.05
	done
	return 1
}

# Waits until a command succeeds, for at most SECONDS: a guard against a
# hang, far beyond what the condition needs even on a loaded machine.
wait_until() { # wait_until SECONDS COMMAND...
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

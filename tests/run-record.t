#!/usr/bin/env bash
# tracer record on this machine's kernel: real tracepoints, real events,
# read back with babeltrace2; and every refusal with its message and exit
# code.  Leaves tracefs mounted or not, as it found it.
set -u
BUILD=${BUILD:-build}
TRACER=$BUILD/tracer
GETPPID=$BUILD/tests/helpers/getppid_n
work=$(mktemp -d /tmp/tracer-record-test.XXXXXX)
tracefs_was_mounted=$(grep -c ' /sys/kernel/tracing tracefs ' /proc/mounts)

cleanup() {
	rm -rf "$work"
	if [ "$tracefs_was_mounted" = 0 ] && grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts; then
		umount /sys/kernel/tracing
	fi
}
trap cleanup EXIT

n=0
check() { # check DESCRIPTION COMMAND...: one TAP line from a command's status
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; fi
}
diag() { sed 's/^/# /' "$@"; }

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP recording with BPF needs root here"
	exit 0
fi

# Events of one name in a trace, as babeltrace2 prints them.
bt_events() { babeltrace2 "$1" 2>"$work/bt.err" | grep " $2: "; }

# --- exact counts -------------------------------------------------------------

exact_count_with_command() {
	"$TRACER" record -e syscalls:sys_enter_getppid -o "$work/cmd" -- "$GETPPID" 1000 \
		2>"$work/cmd.log" || { diag "$work/cmd.log"; return 1; }
	local lines pids
	lines=$(bt_events "$work/cmd" sys_enter_getppid | wc -l)
	pids=$(bt_events "$work/cmd" sys_enter_getppid | grep -o 'common_pid = [0-9]*' | sort -u | wc -l)
	[ "$lines" = 1000 ] && [ "$pids" = 1 ] && grep -q '1000  syscalls:sys_enter_getppid' "$work/cmd.log" ||
		{ echo "# $lines events from $pids pids"; diag "$work/cmd.log"; return 1; }
}
check "record -- command: exactly 1000 getppid events, all from the command" exact_count_with_command

# Waits until a recorder has attached its BPF programs.
wait_attached() {
	local i
	for i in $(seq 200); do
		ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'anon_inode:bpf_link' && return 0
		sleep 0.05
	done
	return 1
}

exact_count_with_pid_and_ctrl_c() {
	"$GETPPID" 500 0 "$work/go" &
	local target=$!
	"$TRACER" record -e syscalls:sys_enter_getppid -p "$target" -o "$work/pid" 2>"$work/pid.log" &
	local recorder=$!
	wait_attached "$recorder" || { kill "$recorder" "$target"; wait; return 1; }
	touch "$work/go"
	wait "$target"
	kill -INT "$recorder"
	wait "$recorder" || { diag "$work/pid.log"; return 1; }
	[ "$(bt_events "$work/pid" sys_enter_getppid | wc -l)" = 500 ] || { diag "$work/pid.log"; return 1; }
}
check "record -p PID, stopped by SIGINT: exactly 500 events, none lost at stop" exact_count_with_pid_and_ctrl_c

# --- sched:* --------------------------------------------------------------------

sched_events_of_a_command() {
	"$TRACER" record -e 'sched:*' -o "$work/sched" -- /bin/true 2>"$work/sched.log" ||
		{ diag "$work/sched.log"; return 1; }
	bt_events "$work/sched" sched_process_exec | grep -q 'filename = "/bin/true"' &&
		bt_events "$work/sched" sched_switch | grep -q 'prev_comm = ".*", prev_pid = [0-9]*, prev_prio = [0-9]*' &&
		[ ! -s "$work/bt.err" ] || { diag "$work/sched.log" "$work/bt.err"; return 1; }
}
check "record sched:* -- /bin/true: exec with its filename, sched_switch fields" sched_events_of_a_command

# --- a killed recorder ----------------------------------------------------------

killed_recorder_leaves_readable_trace() {
	"$TRACER" record -a -e 'sched:*' -e 'syscalls:sys_enter_getppid' -o "$work/killed" 2>/dev/null &
	local recorder=$!
	wait_attached "$recorder" || { kill "$recorder"; wait; return 1; }
	"$GETPPID" 2000 1
	kill -KILL "$recorder"
	wait "$recorder" 2>/dev/null
	babeltrace2 "$work/killed" >"$work/killed.txt" 2>"$work/killed.err" ||
		{ diag "$work/killed.err"; return 1; }
	[ "$(grep -c ' sys_enter_getppid: ' "$work/killed.txt")" -gt 0 ]
}
check "a recorder killed with SIGKILL leaves a trace babeltrace2 reads" killed_recorder_leaves_readable_trace

# --- refusals -------------------------------------------------------------------

refuses() { # refuses CODE PATTERN ARGS...: exit code and message
	local code=$1 pattern=$2
	shift 2
	"$TRACER" record "$@" >"$work/out" 2>&1
	local got=$?
	[ "$got" = "$code" ] && grep -q -- "$pattern" "$work/out" ||
		{ echo "# exit $got"; diag "$work/out"; return 1; }
}

check "unknown event: exit 2, close names suggested" \
	refuses 2 "unknown event 'sched:sched_swich'; did you mean sched:sched_switch" \
	-e sched:sched_swich -o "$work/x" -- /bin/true
check "glob matching nothing: exit 2" \
	refuses 2 "'nosuch:\*' matches no tracepoint" -e 'nosuch:*' -o "$work/x" -- /bin/true
mkdir -p "$work/exists"
check "existing output directory: exit 2, --force suggested" \
	refuses 2 "already exists; choose another -o or add --force" \
	-e sched:sched_switch -o "$work/exists" -- /bin/true
check "--force replaces an existing output directory" \
	refuses 0 "1  sched:sched_process_exec" -f -e sched:sched_process_exec -o "$work/exists" -- /bin/true
check "bad geometry: exit 2 with the reason" \
	refuses 2 "sub-buffer size must be a power of two" \
	--subbuf-size 3000 -e sched:sched_switch -o "$work/y" -- /bin/true
check "no event: exit 2" refuses 2 "no event given" -o "$work/y" -- /bin/true

unprivileged_is_told_what_is_missing() {
	grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts && umount /sys/kernel/tracing
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TRACER" record -e sched:sched_switch -o "$work/nobody" -- /bin/true >"$work/out" 2>&1
	local got=$?
	[ "$got" = 1 ] && grep -q 'run as root' "$work/out" || { echo "# exit $got"; diag "$work/out"; return 1; }
}
check "without privileges: exit 1 and what is needed" unprivileged_is_told_what_is_missing

echo "1..$n"

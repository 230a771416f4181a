#!/usr/bin/env bash
# tracer record on this machine's kernel: real tracepoints, real events,
# read back with babeltrace2; and every refusal with its message and exit
# code.  Leaves tracefs mounted or not, as it found it.
set -u
TEST_NAME=record
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
keep_tracefs_as_found

# Events of one name in a trace, as babeltrace2 prints them.
bt_events() { babeltrace2 "$1" 2>"$work/bt.err" | grep ":$2: "; }

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

# Waits until a recorder started without a command, its messages in LOG,
# has attached every tracepoint: it says so.
exact_count_with_pid_and_ctrl_c() {
	"$GETPPID" 500 0 "$work/go" &
	local target=$!
	"$TRACER" record -e syscalls:sys_enter_getppid -p "$target" -o "$work/pid" 2>"$work/pid.log" &
	local recorder=$!
	wait_recording "$recorder" "$work/pid.log" || { kill "$recorder" "$target"; wait; return 1; }
	touch "$work/go"
	wait "$target"
	kill -INT "$recorder"
	wait "$recorder" || { diag "$work/pid.log"; return 1; }
	[ "$(bt_events "$work/pid" sys_enter_getppid | wc -l)" = 500 ] &&
		[ "$("$TRACER" report "$work/pid" | grep -c 'sys_enter_getppid: ')" = 500 ] ||
		{ diag "$work/pid.log"; return 1; }
}
check "record -p PID, stopped by SIGINT: exactly 500 events in babeltrace2 and report" exact_count_with_pid_and_ctrl_c

# --- sched:* --------------------------------------------------------------------

sched_events_of_a_command() {
	"$TRACER" record -e 'sched:*' -o "$work/sched" -- /bin/true 2>"$work/sched.log" ||
		{ diag "$work/sched.log"; return 1; }
	bt_events "$work/sched" sched_process_exec | grep -q 'filename = "/bin/true"' &&
		bt_events "$work/sched" sched_switch | grep -q 'prev_comm = ".*", prev_pid = [0-9]*, prev_prio = [0-9]*' &&
		[ ! -s "$work/bt.err" ] || { diag "$work/sched.log" "$work/bt.err"; return 1; }
}
check "record sched:* -- /bin/true: exec with its filename, sched_switch fields" sched_events_of_a_command

# What babeltrace2 shows of the metadata: each trace's own random UUID
# (RFC 4122 version 4), event names with their system.
uuid_of() { sed -n 's/^\tuuid = "\(.*\)";$/\1/p' "$1/metadata"; }
metadata_names_and_uuid() {
	local a b v4='^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
	a=$(uuid_of "$work/cmd")
	b=$(uuid_of "$work/sched")
	[[ $a =~ $v4 ]] && [[ $b =~ $v4 ]] && [ "$a" != "$b" ] &&
		[ "$(babeltrace2 "$work/sched" | grep -c ' sched:sched_process_exec: ')" -ge 1 ] ||
		{ echo "# uuids '$a' and '$b'"; return 1; }
}
check "the metadata: a UUID per trace, events named system:name in babeltrace2" metadata_names_and_uuid

# --- a killed recorder ----------------------------------------------------------

killed_recorder_leaves_readable_trace() {
	"$TRACER" record -a -e 'sched:*' -e 'syscalls:sys_enter_getppid' -o "$work/killed" 2>"$work/killed.log" &
	local recorder=$!
	wait_recording "$recorder" "$work/killed.log" || { kill "$recorder"; wait; return 1; }
	"$GETPPID" 2000 1
	kill -KILL "$recorder"
	wait "$recorder" 2>/dev/null
	babeltrace2 "$work/killed" >"$work/killed.txt" 2>"$work/killed.err" ||
		{ diag "$work/killed.err"; return 1; }
	[ "$(grep -c ' syscalls:sys_enter_getppid: ' "$work/killed.txt")" -gt 0 ]
}
check "a recorder killed with SIGKILL leaves a trace babeltrace2 reads" killed_recorder_leaves_readable_trace

# --- report -------------------------------------------------------------------

report_counts_and_names() {
	"$TRACER" report "$work/cmd" >"$work/report.txt" 2>"$work/report.err" || { diag "$work/report.err"; return 1; }
	[ "$(grep -c ' syscalls:sys_enter_getppid: ' "$work/report.txt")" = 1000 ] &&
		[ "$(grep -c '^ *getppid_n ' "$work/report.txt")" = 1000 ] || { head -3 "$work/report.txt" | diag; return 1; }
}
check "report: the 1000 getppid events, with the command's name" report_counts_and_names

merged_in_time_and_cpu_order() {
	# Small sub-buffers: several packets per stream (the damage test cuts
	# the last one); 256 KiB per CPU hold the whole workload unread.
	"$TRACER" record -a -e 'sched:*' -e 'syscalls:sys_enter_getppid' --subbuf-size 4K \
		--buffer-size 256K -o "$work/merge" 2>"$work/merge.log" &
	local recorder=$!
	wait_recording "$recorder" "$work/merge.log" || { kill "$recorder"; wait; return 1; }
	taskset -c 0 "$GETPPID" 3000 & local on0=$!
	taskset -c 1 "$GETPPID" 3000 & local on1=$!
	wait "$on0" "$on1"
	kill -INT "$recorder"
	wait "$recorder" || return 1
	"$TRACER" report "$work/merge" >"$work/merged.txt" || return 1
	local cpus
	cpus=$(grep -o '^ *[^ ]* *[0-9]* \[[0-9]*\]' "$work/merged.txt" | grep -o '\[[0-9]*\]' | sort -u | wc -l)
	[ "$cpus" -ge 2 ] || { echo "# events from $cpus CPUs"; return 1; }
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { ts = $(i + 1); sub(":", "", ts);
		if (ts + 0 < last + 0) { print "# back in time: " $0; exit 1 } last = ts } }' "$work/merged.txt" || return 1
	for cpu in 0 1; do
		"$TRACER" report --cpu "$cpu" "$work/merge" >"$work/cpu$cpu.txt" || return 1
		grep " \[00$cpu\] " "$work/merged.txt" | cmp -s - "$work/cpu$cpu.txt" ||
			{ echo "# CPU $cpu differs from its subsequence of the merge"; return 1; }
	done
}
check "report: all CPUs merged in time order; each CPU's events in buffer order" merged_in_time_and_cpu_order

report_filters() {
	local pid
	pid=$(grep -m1 ' syscalls:sys_enter_getppid: ' <(babeltrace2 "$work/cmd") | grep -o 'common_pid = [0-9]*' | grep -o '[0-9]*$')
	[ "$("$TRACER" report --pid "$pid" "$work/cmd" | wc -l)" = 1000 ] &&
		[ "$("$TRACER" report --pid 1 "$work/cmd" | wc -l)" = 0 ] &&
		[ "$("$TRACER" report --event 'sched:*' "$work/cmd" | wc -l)" = 0 ] &&
		[ "$("$TRACER" report --event sys_enter_getppid "$work/cmd" | wc -l)" = 1000 ]
}
check "report --pid and --event select exactly their events" report_filters

report_survives_damage() {
	# A stream cut inside its last packet: the packets before it still read.
	cp -r "$work/merge" "$work/damaged"
	local stream whole
	stream=$(ls -S "$work/damaged"/channel0_* | head -1)
	whole=$("$TRACER" report --cpu "${stream##*_}" "$work/merge" | wc -l)
	truncate -s $(($(stat -c %s "$stream") - 100)) "$stream"
	"$TRACER" report --cpu "${stream##*_}" "$work/damaged" >"$work/damaged.txt" 2>"$work/damaged.err"
	local got=$? some
	some=$(wc -l <"$work/damaged.txt")
	[ "$got" = 1 ] && grep -q 'truncated packet' "$work/damaged.err" &&
		[ "$some" -gt 0 ] && [ "$some" -lt "$whole" ] ||
		{ echo "# exit $got, $some of $whole lines"; diag "$work/damaged.err"; return 1; }
	printf 'garbage' | dd of="$stream" bs=1 seek=0 conv=notrunc status=none
	"$TRACER" report "$work/damaged" >/dev/null 2>"$work/damaged.err"
	[ $? = 1 ] && grep -q 'bad packet magic' "$work/damaged.err" || { diag "$work/damaged.err"; return 1; }
	"$TRACER" report "$work" >/dev/null 2>"$work/damaged.err"
	[ $? = 2 ] && grep -q 'is not a tracer trace' "$work/damaged.err"
}
check "report on damaged or foreign files: error lines, exit code, no crash" report_survives_damage

# --- loss with a stalled consumer -------------------------------------------------

# Records N numbered events while the recorder is stopped, so buffers fill.
record_stalled() { # record_stalled MODE DIR N
	rm -f "$work/go"
	"$GETPPID" "$3" 0 "$work/go" seq &
	local target=$!
	"$TRACER" record -e syscalls:sys_enter_close -p "$target" --mode "$1" \
		--buffer-size 16K --subbuf-size 4K -o "$2" 2>"$2.log" &
	local recorder=$!
	wait_recording "$recorder" "$2.log" || { kill "$recorder" "$target"; wait; return 1; }
	kill -STOP "$recorder"
	touch "$work/go"
	wait "$target"
	kill -CONT "$recorder"
	kill -INT "$recorder"
	wait "$recorder"
}

# Events in the summary, and lost ones by cause, must add up to N and
# the task records (the state dump's: the workload starts no task).
summary_adds_up() { # summary_adds_up LOG N
	awk -v n="$2" '/events, / { ev = $3 } /lost:/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/ && i > 3) lost += $i }
		/task records: / { sub(/.*: /, ""); tasks = $1 }
		END { if (ev + lost != n + tasks || lost == 0 || tasks == 0) {
			print "# " ev " events + " lost " lost != " n " + " tasks " task records"; exit 1 } }' "$1"
}

discard_mode_counts_every_loss() {
	record_stalled discard "$work/discard" 20000 || return 1
	summary_adds_up "$work/discard.log" 20000 || { diag "$work/discard.log"; return 1; }
	"$TRACER" report "$work/discard" >"$work/discard.txt" || return 1
	local shown lost
	shown=$(grep -c 'sys_enter_close: ' "$work/discard.txt")
	lost=$(grep -o 'LOST [0-9]* events' "$work/discard.txt" | awk '{ s += $2 } END { print s + 0 }')
	[ $((shown + lost)) = 20000 ] && grep -q 'buffer full' "$work/discard.txt" ||
		{ echo "# report: $shown events + $lost lost"; return 1; }
	# Discard keeps the oldest: the first event survives.
	grep -m1 'sys_enter_close: ' "$work/discard.txt" | grep -q 'fd: 0x0*186a0$'
}
check "discard mode, stalled consumer: recorded + lost == emitted, loss shown where it happened" \
	discard_mode_counts_every_loss

overwrite_mode_keeps_the_newest() {
	record_stalled overwrite "$work/overwrite" 20000 || return 1
	summary_adds_up "$work/overwrite.log" 20000 || { diag "$work/overwrite.log"; return 1; }
	"$TRACER" report "$work/overwrite" >"$work/overwrite.txt" || return 1
	grep -q 'sub-buffers overwritten' "$work/overwrite.txt" &&
		grep 'sys_enter_close: ' "$work/overwrite.txt" | tail -1 | grep -q 'fd: 0x0*1d4bf$' ||
		{ tail -2 "$work/overwrite.txt" | diag; return 1; }
}
check "overwrite mode, stalled consumer: the newest events survive, overwritten sub-buffers reported" \
	overwrite_mode_keeps_the_newest

# --- filters ----------------------------------------------------------------------

cpu_and_comm_filters() {
	"$TRACER" record -a -C 1 -e syscalls:sys_enter_getppid -o "$work/cpu1" -- \
		sh -c "taskset -c 0 $GETPPID 300; taskset -c 1 $GETPPID 200" 2>/dev/null || return 1
	local on1
	on1=$("$TRACER" report "$work/cpu1" | grep -c '\[001\]')
	[ "$("$TRACER" report "$work/cpu1" | wc -l)" = "$on1" ] && [ "$on1" -ge 200 ] ||
		{ echo "# $on1 events on CPU 1"; return 1; }
	cp "$GETPPID" "$work/other_name"
	"$TRACER" record --comm getppid_n -e syscalls:sys_enter_getppid -o "$work/comm" -- \
		sh -c "$GETPPID 70; $work/other_name 30" 2>/dev/null || return 1
	"$TRACER" report "$work/comm" >"$work/comm.report" &&
	[ "$(wc -l <"$work/comm.report")" = 70 ] &&
	[ "$(awk '{ print $1 }' "$work/comm.report" | sort -u)" = getppid_n ] ||
		{ echo "# --comm: $(wc -l <"$work/comm.report") events, tasks named: $(awk '{ print $1 }' "$work/comm.report" | sort -u | tr '\n' ' ')"; false; }
}
check "-C records only the listed CPUs; --comm only that command name, and names it (the exec's rename recorded)" \
	cpu_and_comm_filters

# --- a full disk -------------------------------------------------------------------

full_disk_stops_cleanly() {
	mkdir -p "$work/small"
	mount -t tmpfs -o size=256k tmpfs "$work/small" || return 1
	"$TRACER" record -e syscalls:sys_enter_getppid --subbuf-size 64K --buffer-size 256K \
		-o "$work/small/t" -- "$GETPPID" 200000 >"$work/full.log" 2>&1
	local got=$?
	"$TRACER" report "$work/small/t" >"$work/full.txt" 2>"$work/full.err"
	local readable=$?
	umount "$work/small"
	[ "$got" = 1 ] && grep -q 'No space left on device.*what was written stays readable' "$work/full.log" &&
		[ "$readable" = 0 ] && [ "$(wc -l <"$work/full.txt")" -gt 1000 ] ||
		{ echo "# exit $got, report exit $readable"; diag "$work/full.log" "$work/full.err"; return 1; }
}
check "a full disk stops the recording with a message; the trace stays readable" full_disk_stops_cleanly

# --- latency of a low-rate event --------------------------------------------------

# A lone event in a partly filled sub-buffer reaches the trace files while
# the recorder runs and nothing else happens: the flush delivers it.  The
# target makes one call and then waits an hour (it is killed).
lone_event_reaches_the_files() {
	rm -f "$work/go"
	"$GETPPID" 2 3600000 "$work/go" &
	local target=$!
	"$TRACER" record -e syscalls:sys_enter_getppid -p "$target" --flush-ms 100 -o "$work/slow" \
		2>"$work/slow.log" &
	local recorder=$!
	wait_recording "$recorder" "$work/slow.log" || { kill "$recorder" "$target"; wait; return 1; }
	touch "$work/go"
	wait_until 60 sh -c "[ \$(cat $work/slow/channel0_* | wc -c) -gt 0 ]"
	local arrived=$?
	kill "$target"
	kill -INT "$recorder"
	wait "$recorder"
	[ "$arrived" = 0 ] && [ "$("$TRACER" report "$work/slow" | wc -l)" = 1 ] ||
		{ echo "# nothing on disk while recording"; return 1; }
}
check "a lone event reaches the trace files by the periodic flush, while recording" lone_event_reaches_the_files

# On a terminal (script(1) gives it one) a status line is redrawn every
# second; without one, stderr has the summary only.
status_line_on_a_terminal() {
	script -qec "$TRACER record -e syscalls:sys_enter_getppid -o $work/tty -- $GETPPID 2500 1" \
		/dev/null >"$work/tty.out" 2>&1 || return 1
	local lines
	lines=$(tr '\r' '\n' <"$work/tty.out" |
		grep -cE '^\[ [0-9.]+ s  [0-9]+ events/s  [0-9.]+ MiB written  0 lost \]')
	"$TRACER" record -e syscalls:sys_enter_getppid -o "$work/notty" -- "$GETPPID" 10 2>"$work/notty.err" &&
		[ "$lines" -ge 2 ] && ! grep -q 'events/s' "$work/notty.err" ||
		{ echo "# $lines status lines"; tr '\r' '\n' <"$work/tty.out" | head -n 5 | diag; return 1; }
}
check "on a terminal a live status line shows elapsed time, events/s, bytes and losses" status_line_on_a_terminal

# --- list --------------------------------------------------------------------------

list_by_glob() {
	"$TRACER" list 'sched:sched_sw*' >"$work/list.txt" &&
		grep -qx 'sched:sched_switch' "$work/list.txt" &&
		! grep -qv '^sched:sched_sw' "$work/list.txt" &&
		[ "$("$TRACER" list | wc -l)" -gt 100 ] || return 1
	"$TRACER" list 'nosuch:*' >/dev/null 2>"$work/list.err"
	[ $? = 1 ] && grep -q "no tracepoint matches 'nosuch:\*'" "$work/list.err"
}
check "list prints the tracepoints matching a glob, and says when none does" list_by_glob

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
"$TRACER" record -e sched:sched_process_exec -o "$work/exists" -- /bin/true 2>/dev/null
check "existing output directory: exit 2, --force suggested" \
	refuses 2 "already exists; choose another -o or add --force" \
	-e sched:sched_switch -o "$work/exists" -- /bin/true
check "--force replaces an existing trace" \
	refuses 0 "1  sched:sched_process_exec" -f -e sched:sched_process_exec -o "$work/exists" -- /bin/true
check "bad geometry: exit 2 with the reason" \
	refuses 2 "sub-buffer size must be at least 4 KiB" \
	--subbuf-size 2K -e sched:sched_switch -o "$work/y" -- /bin/true
check "no event: exit 2" refuses 2 "no event given" -o "$work/y" -- /bin/true

# Whether tracefs is mounted (then it is unreadable) or not (then it cannot
# be mounted), an unprivileged user is told to run as root.
unprivileged_is_told_what_is_missing() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TRACER" record -e sched:sched_switch -o "$work/nobody" -- /bin/true >"$work/out" 2>&1
	local got=$?
	[ "$got" = 1 ] && grep -q 'run as root' "$work/out" || { echo "# exit $got"; diag "$work/out"; return 1; }
}
check "without privileges: exit 1 and what is needed" unprivileged_is_told_what_is_missing

echo "1..$n"

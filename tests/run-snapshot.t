#!/usr/bin/env bash
# record --flight-recorder: nothing written while recording, snapshots on
# SIGUSR2, on `tracer snapshot`, on a trigger event and at the end.  The workload is counter-stamped (getppid_n seq:
# close(100000 + i), on CPU 0), so a snapshot must hold the newest calls,
# contiguous and ending with the last one; babeltrace2 must read every
# snapshot as a complete trace; and the snapshots' events plus those
# overwritten must be every call.  Leaves tracefs mounted or not, as it
# found it.
set -u
TEST_NAME=snapshot
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
keep_tracefs_as_found

# The workload runs under a name of this test's own (WORKER), and the
# filter keeps only its calls: a system-wide recorder sees every close()
# on the machine, and another test's getppid_n seq beside this one makes
# the same numbered calls.
WORKER=snap$$
cp "$GETPPID" "$work/$WORKER" || exit 1

# 64 KiB per CPU: about 1500 of these records, so the workloads overflow it.
FLIGHT=(--flight-recorder --buffer-size 64K --subbuf-size 4K
	-e syscalls:sys_enter_close --filter "fd >= 100000 && fd < 110000 && comm == \"$WORKER\"")

# The fds a snapshot's close() calls carry, in the order report prints them.
fds_of() { # fds_of SNAPSHOT
	"$TRACER" report --raw "$1" | grep -o 'sys_enter_close: .* fd=0x[0-9a-f]*' |
		sed 's/.*fd=//' | while read -r hex; do echo $((hex)); done
}

# The snapshot holds LAST and the calls just before it, at least MIN of them
# and nothing else; babeltrace2 reads the same number of them.
newest_contiguous() { # newest_contiguous SNAPSHOT LAST MIN
	local fds count first last bt
	fds_of "$1" >"$work/fds" || return 1
	count=$(wc -l <"$work/fds")
	first=$(head -n 1 "$work/fds")
	last=$(tail -n 1 "$work/fds")
	bt=$(babeltrace2 "$1" 2>"$work/bt.err" | grep -c ' syscalls:sys_enter_close: ')
	[ "$last" = "$2" ] && [ "$count" -ge "$3" ] && [ $((last - first + 1)) = "$count" ] &&
		[ "$(sort -n -u "$work/fds" | wc -l)" = "$count" ] && [ "$bt" = "$count" ] ||
		{ echo "# $count calls, $first to $last (want ...$2, >= $3); babeltrace2: $bt"; diag "$work/bt.err"; return 1; }
}

# "N overwritten" of the summary's CPU lines, summed.
overwritten() { # overwritten LOG
	grep -o '[0-9]* overwritten' "$1" | awk '{ n += $1 } END { print n + 0 }'
}

# The summary's count of records in the snapshots, and of task records
# made (user/record/statedump.h): those compete with the calls for the buffers.
in_snapshots() { sed -n 's/^tracer record: [0-9]* snapshots*, \([0-9]*\) events, .*/\1/p' "$1"; }
task_records() { sed -n 's/^  task records: \([0-9]*\) .*/\1/p' "$1"; }

# Every call and every task record made is in a snapshot, overwritten, or
# (FROZEN) not written while a trigger froze the buffers.
all_accounted() { # all_accounted LOG CALLS FROZEN
	local in tasks over
	in=$(in_snapshots "$1") tasks=$(task_records "$1") over=$(overwritten "$1")
	[ -n "$in" ] && [ -n "$tasks" ] && [ $((in + over + $3)) = $(($2 + tasks)) ] ||
		{ echo "# $in in snapshots + $over overwritten + $3 frozen != $2 calls + $tasks task records"; diag "$1"; return 1; }
}

by_signal_and_at_the_end() {
	local log=$work/fr.log recorder total
	"$TRACER" record -a -o "$work/fr" "${FLIGHT[@]}" 2>"$log" &
	recorder=$!
	wait_until 60 grep -q '^tracer record: recording' "$log" || { diag "$log"; return 1; }
	taskset -c 0 "$work/$WORKER" 5000 0 / seq
	[ ! -e "$work/fr/snapshot-1" ] || { echo "# a snapshot before it was asked for"; return 1; }
	kill -USR2 "$recorder"
	wait_until 60 grep -q '^tracer record: snapshot 1: ' "$log" || { diag "$log"; return 1; }
	taskset -c 0 "$work/$WORKER" 3000 0 / seq
	kill -INT "$recorder"
	wait "$recorder" || { diag "$log"; return 1; }
	grep -q '^tracer record: 2 snapshots, ' "$log" || { diag "$log"; return 1; }
	"$TRACER" report --raw "$work/fr" 2>&1 | grep -q "holds a flight recorder's snapshots, each a trace: $work/fr/snapshot-1" ||
		{ echo "# report of the recording's directory does not point at its snapshots"; return 1; }
	newest_contiguous "$work/fr/snapshot-1" 104999 1000 || return 1
	newest_contiguous "$work/fr/snapshot-2" 102999 1000 || return 1
	all_accounted "$log" 8000 0
}
check "flight recorder: SIGUSR2 and the end each write the newest calls, contiguous; snapshots + overwritten = all 8000 and the task records" \
	by_signal_and_at_the_end

with_a_command() {
	local log=$work/cmd.log
	"$TRACER" record -o "$work/cmd" "${FLIGHT[@]}" -- taskset -c 0 "$work/$WORKER" 5000 0 / seq 2>"$log" ||
		{ diag "$log"; return 1; }
	[ "$(ls "$work/cmd")" = snapshot-1 ] || { ls "$work/cmd" | diag; return 1; }
	newest_contiguous "$work/cmd/snapshot-1" 104999 1000
}
check "flight recorder of a command: one snapshot at its end, with its newest calls" with_a_command

# Two flight recorders side by side; tracer snapshot asks one of them.
by_command_of_one_session() {
	local recorder_a recorder_b out
	"$TRACER" record -a -o "$work/a" "${FLIGHT[@]}" 2>"$work/a.log" &
	recorder_a=$!
	"$TRACER" record -a -o "$work/b" "${FLIGHT[@]}" 2>"$work/b.log" &
	recorder_b=$!
	wait_until 60 grep -q '^tracer record: recording' "$work/a.log" &&
		wait_until 60 grep -q '^tracer record: recording' "$work/b.log" ||
		{ diag "$work/a.log" "$work/b.log"; return 1; }
	taskset -c 0 "$work/$WORKER" 5000 0 / seq
	out=$("$TRACER" snapshot -o "$work/a") || { echo "# $out"; return 1; }
	[[ $out == "snapshot 1: "*" events in $work/a/snapshot-1" ]] || { echo "# $out"; return 1; }
	[ ! -e "$work/b/snapshot-1" ] || { echo "# the other session took a snapshot"; return 1; }
	newest_contiguous "$work/a/snapshot-1" 104999 1000 || return 1
	kill -INT "$recorder_a" "$recorder_b"
	wait "$recorder_a" && wait "$recorder_b" || { diag "$work/a.log" "$work/b.log"; return 1; }
	newest_contiguous "$work/b/snapshot-1" 104999 1000
}
check "tracer snapshot -o DIR: that session's newest calls, the other session untouched" \
	by_command_of_one_session

no_such_session() {
	local status=0
	"$TRACER" snapshot -o "$work/nothing" 2>"$work/ns.log" || status=$?
	[ "$status" = 1 ] && grep -q "^tracer snapshot: no flight recorder is recording into $work/nothing" "$work/ns.log" ||
		{ diag "$work/ns.log"; return 1; }
}
check "tracer snapshot where nothing records: one line, exit 1" no_such_session

killed_recorder() {
	local recorder status=0
	"$TRACER" record -a -o "$work/k" "${FLIGHT[@]}" 2>"$work/k.log" &
	recorder=$!
	wait_until 60 grep -q '^tracer record: recording' "$work/k.log" || { diag "$work/k.log"; return 1; }
	kill -KILL "$recorder"
	{ wait "$recorder"; } 2>/dev/null
	"$TRACER" snapshot -o "$work/k" 2>"$work/k2.log" || status=$?
	[ "$status" = 1 ] && grep -q "^tracer snapshot: the flight recorder of $work/k has ended" "$work/k2.log" ||
		{ diag "$work/k2.log"; return 1; }
}
check "tracer snapshot of a killed recorder: it says the recorder ended" killed_recorder

# "N not written while the buffers were frozen" of the summary.
frozen() { # frozen LOG
	grep -o '[0-9]* not written while the buffers were frozen' "$1" | awk '{ n += $1 } END { print n + 0 }'
}

# The trigger is the last call of the first run: the snapshot it fires
# ends there, whatever the second run does meanwhile.
by_trigger() {
	local log=$work/trig.log total
	"$TRACER" record -o "$work/trig" "${FLIGHT[@]}" \
		--snapshot-on 'syscalls:sys_enter_close:fd == 104999' \
		-- taskset -c 0 sh -c "$work/$WORKER 5000 0 / seq; $work/$WORKER 3000 0 / seq" 2>"$log" ||
		{ diag "$log"; return 1; }
	grep -q '^tracer record: syscalls:sys_enter_close fired: snapshot 1: ' "$log" &&
		grep -q '^tracer record: 2 snapshots, ' "$log" || { diag "$log"; return 1; }
	newest_contiguous "$work/trig/snapshot-1" 104999 1000 || return 1
	all_accounted "$log" 8000 "$(frozen "$log")"
}
check "--snapshot-on EVENT:FILTER: its snapshot ends with the triggering call; snapshots + overwritten + frozen = all 8000 and the task records" \
	by_trigger

# The trigger is the command's very last call: the recorder may see the
# command end before it sees the trigger (before the fix, one run in six
# here), and the trigger still has its own snapshot, before the end's.
trigger_at_the_end() {
	local log=$work/trig-end.log round
	for round in 1 2 3; do
		rm -rf "$work/trig-end"
		"$TRACER" record -o "$work/trig-end" "${FLIGHT[@]}" \
			--snapshot-on 'syscalls:sys_enter_close:fd == 102999' \
			-- taskset -c 0 "$work/$WORKER" 3000 0 / seq 2>"$log" || { diag "$log"; return 1; }
		grep -q '^tracer record: syscalls:sys_enter_close fired: snapshot 1: ' "$log" &&
			grep -q '^tracer record: 2 snapshots, ' "$log" || { diag "$log"; return 1; }
		newest_contiguous "$work/trig-end/snapshot-1" 102999 1000 || return 1
	done
}
check "--snapshot-on on the command's last call: its own snapshot, then the end's (3 runs)" \
	trigger_at_the_end

# SNAPSHOT-ON SPEC @ the message
bad_triggers=(
	"syscalls:sys_enter_clos@unknown event 'syscalls:sys_enter_clos'; did you mean syscalls:sys_enter_close"
	"syscalls:*@--snapshot-on 'syscalls:*': one event, as system:event[:filter]"
	"syscalls:sys_enter_close:fdd == 1@--snapshot-on 'syscalls:sys_enter_close:fdd == 1': filter 'fdd == 1': column 1: syscalls:sys_enter_close has no field 'fdd'; did you mean fd?"
)
for c in "${bad_triggers[@]}"; do
	IFS='@' read -r spec message <<<"$c"
	check "--snapshot-on '$spec' refused" refused 2 "$(literally "tracer record: $message")" \
		record --flight-recorder -e sched:sched_switch --snapshot-on "$spec" -o "$out"
done

check "--snapshot-on without --flight-recorder is refused" \
	refused 2 "--snapshot-on takes the snapshots of a flight recorder: add --flight-recorder" \
	record -e sched:sched_switch --snapshot-on sched:sched_switch -o "$out"

check "--flight-recorder with --mode discard is refused" \
	refused 2 "--flight-recorder keeps the newest events: it overwrites" \
	record --mode discard --flight-recorder -e sched:sched_switch -o "$out"

echo "1..$n"

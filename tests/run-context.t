#!/usr/bin/env bash
# Who did it: every record carries its process and thread ids (the event
# header, the trace's stream event context), report names every thread
# from the state dump and the task records that follow it
# (tracer:task_state, user/record/statedump.h), and report --pid / --tid select a
# process or one thread.  The workload (tests/helpers/threads) prints its
# own ids and names; babeltrace2 reads the ids from the metadata; an
# ftrace instance of this test's records task:task_rename at the same
# time.  Leaves tracefs mounted or not, as it found it.
set -u
TEST_NAME=context
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
use_tracefs

THREADS=$BUILD/tests/helpers/threads
use_instance context
echo 1024 >"$instance/buffer_size_kb"
echo 'newcomm ~ "tr-*"' >"$instance/events/task/task_rename/filter"
echo 1 >"$instance/events/task/task_rename/enable"

# The workload under tracer, in the background so that $! is the recorder.
"$TRACER" record -o "$work/t" -e syscalls:sys_enter_getppid -- "$THREADS" 3 \
	>"$work/threads.out" 2>"$work/record.log" &
recorder=$!
wait "$recorder"
status=$?
echo 0 >"$instance/events/task/task_rename/enable"
read -r pid _ <"$work/threads.out"

recorded() {
	[ "$status" = 0 ] && [ "$(wc -l <"$work/threads.out")" = 4 ] &&
		"$TRACER" report --raw "$work/t" >"$work/report" 2>"$work/report.err" && [ ! -s "$work/report.err" ] ||
		{ echo "# exit $status"; diag "$work/record.log" "$work/report.err"; return 1; }
}
check "the threaded workload recorded; report reads it without a complaint" recorded

# report prints "COMM PID" for a process's first thread, "COMM PID/TID" for the others.
who() { [ "$1" = "$2" ] && echo "$1" || echo "$1/$2"; }

named_threads() {
	local p t name count got total=0
	while read -r p t name count; do
		got=$(awk -v c="$name" -v w="$(who "$p" "$t")" \
			'$1 == c && $2 == w && / syscalls:sys_enter_getppid: /' "$work/report" | wc -l)
		[ "$got" = "$count" ] || { echo "# $name $p/$t: $got lines, expected $count"; return 1; }
		total=$((total + count))
	done <"$work/threads.out"
	[ "$(grep -c ' syscalls:sys_enter_getppid: ' "$work/report")" = "$total" ] ||
		{ grep ' syscalls:sys_enter_getppid: ' "$work/report" | head -3 | diag; return 1; }
}
check "report: each thread's calls under its name, its process id and its thread id" named_threads

selected() {
	local worker
	worker=$(awk '$3 == "tr-worker-1" { print $2 }' "$work/threads.out")
	[ "$("$TRACER" report --raw --pid "$pid" "$work/t" | grep -c ' syscalls:sys_enter_getppid: ')" = 65 ] &&
		[ "$("$TRACER" report --raw --pid "$pid" "$work/t" | wc -l)" = 65 ] &&
		[ "$("$TRACER" report --raw --tid "$worker" "$work/t" | wc -l)" = 20 ] &&
		[ "$("$TRACER" report --raw --tid "$pid" "$work/t" | wc -l)" = 5 ] &&
		[ "$("$TRACER" report --raw --pid "$worker" "$work/t" | wc -l)" = 0 ]
}
check "report --pid selects the process's 65 calls, --tid one thread's" selected

in_babeltrace2() {
	local p t name count got
	babeltrace2 "$work/t" >"$work/bt" 2>"$work/bt.err" || { diag "$work/bt.err"; return 1; }
	while read -r p t name count; do
		got=$(grep ' syscalls:sys_enter_getppid: ' "$work/bt" | grep -c "pid = $p, tid = $t }")
		[ "$got" = "$count" ] || { echo "# $p/$t: $got in babeltrace2, expected $count"; return 1; }
	done <"$work/threads.out"
}
check "babeltrace2 reads each call's process and thread ids from the trace's context" in_babeltrace2

# tracer:task_state records: "pid=TID tgid=PID ppid=PPID reason=R comm=NAME".
task_states() { "$TRACER" report --raw --event tracer:task_state "$work/t" | sed 's/.*tracer:task_state: *//'; }

# Each thread appears (reason 1) with its process and the recorder as the
# process's parent, then takes its name (reason 2), as ftrace saw it.  Other
# processes may name threads tr-* meanwhile (this test run twice at once,
# run-stacks.t): ftrace's renames of this workload's threads are compared,
# and ours must be those four and no other.
followed() {
	local p t name count
	task_states >"$work/states" || return 1
	grep -q "^pid=$pid tgid=$pid ppid=$recorder reason=2 comm=tr-main$" "$work/states" ||
		{ echo "# no rename of $pid to tr-main"; diag "$work/states" | tail -5; return 1; }
	while read -r p t name count; do
		[ "$t" = "$p" ] && continue
		grep -q "^pid=$t tgid=$p ppid=$recorder reason=1 " "$work/states" &&
			grep -q "^pid=$t tgid=$p ppid=$recorder reason=2 comm=$name$" "$work/states" ||
			{ echo "# thread $t: no new-task and rename records"; return 1; }
	done <"$work/threads.out"
	sed -n 's/.* task_rename: pid=\([0-9]*\) .*newcomm=\(tr-[^ ]*\) .*/\1 \2/p' "$instance/trace" |
		awk 'NR == FNR { ours[$2]; next } $1 in ours' "$work/threads.out" - | sort >"$work/ftrace-renames"
	sed -n 's/^pid=\([0-9]*\) .* reason=2 comm=\(tr-.*\)$/\1 \2/p' "$work/states" | sort >"$work/our-renames"
	[ "$(wc -l <"$work/our-renames")" = 4 ] && cmp -s "$work/ftrace-renames" "$work/our-renames" ||
		{ echo "# ftrace's renames, then ours:"; diag "$work/ftrace-renames" "$work/our-renames"; return 1; }
}
check "new threads and their names are followed, as ftrace's task_rename saw them" followed

# kthreadd (pid 2) and this shell were there before the recording.
dumped() {
	grep -q "^pid=2 tgid=2 ppid=0 reason=0 comm=kthreadd$" "$work/states" &&
		grep -q "^pid=$$ tgid=$$ ppid=$PPID reason=0 comm=$(cat /proc/$$/comm)$" "$work/states" &&
		grep -q "task records: [1-9][0-9]* (state dump at the start" "$work/record.log" ||
		{ echo "# no state dump records for kthreadd and this shell ($$)"; return 1; }
}
check "the state dump at the start names the tasks already running" dumped

# A snapshot while the command's shell runs: its state dump names that shell.
snapshot_dump() {
	local log=$work/fr.log shell
	"$TRACER" record --flight-recorder -o "$work/fr" -e syscalls:sys_enter_getppid -- \
		sh -c "$THREADS 2 >/dev/null; $TRACER snapshot -o $work/fr >/dev/null; echo \$\$ >$work/shell" 2>"$log" ||
		{ diag "$log"; return 1; }
	shell=$(cat "$work/shell")
	"$TRACER" report --raw --event tracer:task_state "$work/fr/snapshot-1" >"$work/snap-states" &&
		grep -q "tracer:task_state: *pid=$shell tgid=$shell .* reason=0 comm=sh$" "$work/snap-states" &&
		[ "$("$TRACER" report --raw "$work/fr/snapshot-1" | awk '$1 ~ /^tr-/' | wc -l)" = 35 ] ||
		{ echo "# snapshot-1: no dump record of the shell $shell, or unnamed calls"; diag "$log"; return 1; }
}
check "a snapshot starts with a state dump; the calls in it are named" snapshot_dump

# --context: more of who ran each record.  The command is this test's:
# it runs at nice 7, as nobody (setpriv), in a cgroup v2 of its own, so
# each value is one the record can only have from the kernel.  The
# oracles: the cgroup directory's inode (its cgroup id), and babeltrace2
# reading the same values through the metadata.
cgroup2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cgroup2" ]; then
	cgroup2=$work/cgroup2
	mkdir "$cgroup2" && mount -t cgroup2 none "$cgroup2" && at_exit "umount $cgroup2"
fi
cgroup=$cgroup2/tracer-context-$$
mkdir "$cgroup" && at_exit "rmdir $cgroup"

context_recorded() {
	"$TRACER" record --context cgroup,uid,gid,prio,nice -o "$work/ctx" -e syscalls:sys_enter_exit_group -- \
		sh -c "echo \$\$ >$cgroup/cgroup.procs && exec nice -n 7 setpriv --reuid=65534 --regid=65534 --clear-groups /bin/true" \
		2>"$work/ctx.log" || { diag "$work/ctx.log"; return 1; }
	"$TRACER" report --raw "$work/ctx" >"$work/ctx.report" || return 1
	[ "$(grep -c ' syscalls:sys_enter_exit_group: ' "$work/ctx.report")" = 1 ] &&
		grep -q "^ *true .* syscalls:sys_enter_exit_group: .* {cgroup=$(stat -c %i "$cgroup"), uid=65534, gid=65534, prio=127, nice=7}$" \
			"$work/ctx.report" || { diag "$work/ctx.report"; return 1; }
}
check "--context: the command's cgroup id, user, group, priority and nice in its record" context_recorded

context_in_babeltrace2() {
	babeltrace2 "$work/ctx" 2>"$work/ctx.bt.err" | grep ' syscalls:sys_enter_exit_group: ' >"$work/ctx.bt" ||
		{ diag "$work/ctx.bt.err"; return 1; }
	grep -q "context_cgroup = $(stat -c %i "$cgroup"), context_uid = 65534, context_gid = 65534, context_prio = 127, context_nice = 7 }$" \
		"$work/ctx.bt" || { diag "$work/ctx.bt"; return 1; }
}
check "babeltrace2 reads the context fields from the metadata" context_in_babeltrace2

# A .tracer/context that names one field more than the records carry.
context_damaged() {
	cp -r "$work/ctx" "$work/ctx-bad" && echo prio >>"$work/ctx-bad/.tracer/context"
	"$TRACER" report --raw "$work/ctx-bad" >/dev/null 2>"$work/ctx-bad.err"
	local got=$?
	[ "$got" = 1 ] && grep -q 'record at offset [0-9]*: no room for its 6 context fields after byte 24 of 64; record skipped$' \
		"$work/ctx-bad.err" || { echo "# exit $got"; diag "$work/ctx-bad.err"; return 1; }
}
check "a .tracer/context naming more fields than the records carry: their records skipped, said" context_damaged

check "--context with an unknown field is refused, with the closest name" \
	refused 2 "^tracer record: --context 'cgroup,nic': unknown context field 'nic' \(did you mean nice\?\); known: cgroup, uid, gid, prio, nice$" \
	record --context cgroup,nic -e sched:sched_switch -o "$work/never"

echo "1..$n"

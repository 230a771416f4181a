#!/usr/bin/env bash
# tracer record (root) against hostile libtracer-ust programs
# (tests/helpers/usthostile, run as nobody, each in a private network
# namespace with its recorder): forged kernel events and pids, names that
# would rewrite the CTF metadata, records whose size is not their fields',
# 300000 event names, thousands of buffers, sparse 1 GiB sub-buffers, a
# buffer always delivering junk, absurd loss counts.  Each is refused or
# bounded, counted, and said in the summary's one line of refusals.
set -u
TEST_NAME=ust-limits
. "$(dirname "$0")/lib.sh"
HOSTILE=$BUILD/tests/helpers/usthostile
require_root "recording needs root"
keep_tracefs_as_found

AS_NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
# A hang guard, far beyond what any of these recordings needs.
GUARD=120

# hostile_command OUT MODE...: record -e 'ust:*:*' -o OUT with the hostile
# program as its command; its "ready PID" in $work/ready, stderr in $work/err.
hostile_command() {
	local out=$1
	shift
	unshare -n timeout -s KILL "$GUARD" "$TRACER" record -e 'ust:*:*' -o "$out" -- \
		"${AS_NOBODY[@]}" "$HOSTILE" "$@" >"$work/ready" 2>"$work/err"
}

# start_hostile MODE...: the hostile program on its own, its memory kept
# open for a recorder of -p to find; its pid in $hostile once it is ready.
start_hostile() {
	rm -f "$work/ready"
	unshare -n "${AS_NOBODY[@]}" "$HOSTILE" "$@" >"$work/ready" 2>"$work/hostile.err" &
	hostile=$!
	wait_until "$GUARD" grep -qs ready "$work/ready"
}
stop_hostile() {
	kill -KILL "$hostile" 2>/dev/null
	wait "$hostile" 2>/dev/null
}

# record_pid OUT ARGS...: record -e 'ust:*:*' -p $hostile -o OUT ARGS; its
# status (137: killed by the guard); stderr in $work/err.
record_pid() {
	local out=$1
	shift
	unshare -n timeout -s KILL "$GUARD" "$TRACER" record -e 'ust:*:*' -p "$hostile" -o "$out" "$@" \
		>/dev/null 2>"$work/err"
}

refusals() { grep '^  user space: refused ' "$work/err"; }

# A program names its event sched:sched_switch and its records pid 1.
forged() {
	hostile_command "$work/forge" forge || { diag "$work/err"; return 1; }
	local pid
	pid=$(sed -n 's/^ready //p' "$work/ready")
	"$TRACER" report "$work/forge" --event sched:sched_switch >"$work/switches" 2>&1
	"$TRACER" report "$work/forge" --pid 1 | grep -E ' (sched|evil):' >"$work/init"
	"$TRACER" report "$work/forge" --pid "$pid" --tid "$pid" | grep ' evil:tick: ' >"$work/ticks"
	[ ! -s "$work/switches" ] && [ ! -s "$work/init" ] && [ "$(wc -l <"$work/ticks")" = 10 ] &&
		[ "$(refusals)" = "  user space: refused 1 events in a kernel or tracer system" ] ||
		{ diag "$work/switches" "$work/init" "$work/ticks" "$work/err"; return 1; }
}
check "sched:sched_switch from a program refused; its records' pid is its own, not the 1 they say" forged

# An event named x";};event{name="y: the metadata stays babeltrace2's.
injected() {
	hostile_command "$work/inject" inject || { diag "$work/err"; return 1; }
	babeltrace2 "$work/inject" >"$work/bt" 2>"$work/bt.err"
	[ "$(grep -c ' evil:tick: ' "$work/bt")" = 10 ] && [ ! -s "$work/bt.err" ] &&
		[ "$("$TRACER" report "$work/inject" 2>&1 | grep -c ' evil:tick: ')" = 10 ] &&
		[ "$(refusals)" = "  user space: refused 1 events not named by C identifiers" ] ||
		{ diag "$work/bt.err" "$work/err"; return 1; }
}
check "an event name of quotes and braces refused; babeltrace2 and report read the rest" injected

# A program's event with comm and pid fields says a root task is "forged";
# the task then takes a signal (recorded: the recording ends once the task
# is a zombie or gone): report names it as the kernel does, never
# by what a user-space event says.
renamed() {
	local victim
	victim=$(sh -c 'sleep 1000 >/dev/null 2>&1 & echo $!') # not this shell's child: init reaps it
	at_exit "kill -KILL $victim 2>/dev/null"
	unshare -n timeout -s KILL "$GUARD" "$TRACER" record -a -e signal:signal_deliver -e 'ust:*:*' \
		-o "$work/rename" -- sh -c "${AS_NOBODY[*]} $HOSTILE rename $victim && kill -KILL $victim &&
			until ! [ -e /proc/$victim ] || grep -q ') Z ' /proc/$victim/stat; do sleep 0.01; done" \
		>/dev/null 2>"$work/err"
	"$TRACER" report "$work/rename" >"$work/renamed" 2>&1
	grep -q ' evil:rename: comm=forged pid='"$victim"'$' "$work/renamed" &&
		grep -Eq '^ +sleep +'"$victim"' .* signal:signal_deliver: sig=9 ' "$work/renamed" &&
		! grep -q '^ *forged ' "$work/renamed" || { diag "$work/renamed" "$work/err"; return 1; }
}
check "a user-space event's comm and pid fields name no task: report names the kernel's" renamed

# 300000 event names: --duration and SIGINT end the recording.
names_duration() {
	start_hostile names 300000 || { diag "$work/hostile.err"; return 1; }
	record_pid "$work/names" --duration 1
	local status=$?
	stop_hostile
	[ "$status" = 0 ] &&
		[ "$(refusals)" = "  user space: refused 298976 events past 1024 a process" ] ||
		{ echo "# exit $status"; head -n 20 "$work/err" | diag; return 1; }
}
check "300000 event names: 1024 taken, the rest refused; --duration 1 ends the recording" names_duration

names_sigint() {
	start_hostile names 300000 || { diag "$work/hostile.err"; return 1; }
	# A log of its own: the last check's says "recording" too, and a SIGINT
	# sent on it could reach this shell's child before it runs the recorder.
	unshare -n "$TRACER" record -e 'ust:*:*' -p "$hostile" -o "$work/names-int" >/dev/null \
		2>"$work/names-int.err" &
	local recorder=$! status
	wait_recording "$recorder" "$work/names-int.err" && kill -INT "$recorder" &&
		wait_until "$GUARD" eval '! kill -0 '"$recorder"' 2>/dev/null'
	status=$?
	kill -KILL "$recorder" 2>/dev/null
	wait "$recorder" 2>/dev/null
	stop_hostile
	[ "$status" = 0 ] && grep -q '^  user space: refused 298976 events past 1024 a process$' "$work/names-int.err" ||
		{ echo "# still running after SIGINT: $status"; head -n 20 "$work/names-int.err" | diag; return 1; }
}
check "300000 event names: SIGINT ends the recording" names_sigint

# 5000 buffers: 256 taken (a stream file and a descriptor each), the rest refused.
many_buffers() {
	start_hostile buffers 5000 || { diag "$work/hostile.err"; return 1; }
	record_pid "$work/bufs" --duration 1
	local status=$? streams
	stop_hostile
	streams=$(find "$work/bufs" -name 'ust_*' | wc -l)
	[ "$status" = 0 ] && [ "$streams" = 256 ] &&
		grep -q '^  user space: 0 events from 1 process (256 buffers)' "$work/err" &&
		[ "$(refusals)" = "  user space: refused 4744 buffers past 256 a process or 1024 in all" ] ||
		{ echo "# exit $status, $streams streams"; diag "$work/err"; return 1; }
}
check "5000 buffers of one process: 256 streams and descriptors, 4744 refused" many_buffers

# A delivered 1 GiB sub-buffer of a sparse memfd: refused, never copied.
huge() {
	start_hostile huge || { diag "$work/hostile.err"; return 1; }
	/usr/bin/time -f %M -o "$work/rss" unshare -n timeout -s KILL "$GUARD" \
		"$TRACER" record -e 'ust:*:*' -p "$hostile" -o "$work/huge" --duration 1 >/dev/null 2>"$work/err"
	local status=$? rss
	stop_hostile
	rss=$(tail -n 1 "$work/rss")
	[ "$status" = 0 ] && [ "$rss" -lt 262144 ] &&
		[ "$(refusals)" = "  user space: refused 1 buffers of sub-buffers over 8 MiB" ] ||
		{ echo "# exit $status, max RSS $rss KiB"; diag "$work/err"; return 1; }
}
check "1 GiB sub-buffers in a sparse memfd refused: the recorder stays under 256 MiB" huge

# A buffer always delivering records whose size is not their fields': none in the trace.
junk() {
	start_hostile junk || { diag "$work/hostile.err"; return 1; }
	record_pid "$work/junk" --duration 1
	local status=$? bytes
	stop_hostile
	bytes=$(cat "$work/junk"/ust_* 2>/dev/null | wc -c)
	[ "$status" = 0 ] && [ "$bytes" = 0 ] &&
		refusals | grep -qE "^  user space: refused [1-9][0-9]* records whose size is not their fields'$" ||
		{ echo "# exit $status, $bytes bytes of user-space streams"; diag "$work/err"; return 1; }
}
check "a buffer always delivering junk records: refused, counted, not a byte in the trace" junk

# Loss counts of 5.6e18 from a control block: left out, said.
absurd_losses() {
	start_hostile losses || { diag "$work/hostile.err"; return 1; }
	record_pid "$work/losses" --duration 1
	local status=$?
	stop_hostile
	"$TRACER" report "$work/losses" >"$work/losses.txt" 2>&1
	[ "$status" = 0 ] &&
		grep -q '^  user space: 1 events from 1 process (1 buffers); lost 0, overwritten 0$' "$work/err" &&
		[ "$(refusals)" = "  user space: refused 1 buffers' loss counts above an event a nanosecond since boot (left out)" ] &&
		! grep -q 5600000000000000000 "$work/losses.txt" && grep -q ' evil:tick: x=1$' "$work/losses.txt" ||
		{ echo "# exit $status"; diag "$work/err" "$work/losses.txt"; return 1; }
}
check "loss counts of 5.6e18 in a control block: left out of the summary and the packets, said" absurd_losses

# A claim word rewritten without end (each value a gone recorder's): the
# recorder tries a few times at each scan, then leaves the buffer, never
# spinning; --duration 1 ends it.  Whether a try ever lands depends on
# when the program runs, so the buffer is either read (its one record in
# the trace) or left (said), and nothing else.
claim_rewritten() {
	start_hostile claim || { diag "$work/hostile.err"; return 1; }
	local started=$SECONDS status took ticks
	record_pid "$work/claim" --duration 1
	status=$? took=$((SECONDS - started))
	stop_hostile
	ticks=$("$TRACER" report "$work/claim" 2>/dev/null | grep -c ' evil:tick: x=1$')
	echo "# exit $status after ${took} s; $ticks of its 1 record in the trace"
	[ "$status" = 0 ] && [ "$took" -le 30 ] &&
		{ { [ "$ticks" = 1 ] && grep -q '^  user space: 1 events from 1 process (1 buffers)' "$work/err"; } ||
		  { [ "$ticks" = 0 ] && grep -q '^  user space: 1 buffers left to the recorder that was reading them' "$work/err"; }; } ||
		{ diag "$work/err"; return 1; }
}
check "a claim word rewritten without end: the recorder reads or leaves the buffer, says which, ends on time" claim_rewritten

echo "1..$n"

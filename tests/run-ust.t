#!/usr/bin/env bash
# libtracer-ust, the user-space tracing library: the Towers of Hanoi of the
# ELFE flight recorder (S3) recorded and dumped, read by report and by
# babeltrace2 against the sequence the algorithm makes; a rare event that
# survives a flood in its own channel; dumps on a signal and on a crash;
# every kind of value; bad channels and dumps refused in one line; a
# program built against the library through its pkg-config file; and
# tracer record merging a program's events with the kernel's.
set -u
# Every program of the library hands its buffers to the recorder that
# listens on the registry's abstract address (user/layout/handoff.h), and
# this test's -a and -p recorders listen there: as root it runs in a
# network namespace of its own (abstract addresses are a namespace's), so
# another test's recorder takes none of its programs, nor its recorders
# another test's.
if [ "$(id -u)" = 0 ] && [ -z "${RUN_UST_OWN_NETNS:-}" ]; then
	RUN_UST_OWN_NETNS=1 exec unshare -n "$0" "$@"
fi
TEST_NAME=ust
. "$(dirname "$0")/lib.sh"
HANOI=$BUILD/examples/hanoi
USTCHECK=$BUILD/tests/helpers/ustcheck

# What report prints after "SYSTEM:NAME: ", one line per event.
messages() { "$TRACER" report "$1" | sed 's/^.*: [a-z]*:[A-Za-z_0-9]*: //'; }

# The records hanoi_record(n) makes, in order, as examples/hanoi.c formats them.
hanoi_expected() {
	python3 - "$1" <<'EOF'
import sys
name = ["LEFT", "MIDDLE", "RIGHT"]
def rec(n, left, right, middle):
    print("n=%d, left=%-6s, right=%-6s, middle=%-6s" % (n, name[left], name[right], name[middle]))
    if n == 1:
        print("Move disk from %s to %s" % (name[left], name[right]))
        return
    print("Recurse #1 n=%d" % n); rec(n - 1, left, middle, right)
    print("Recurse #2 n=%d" % n); rec(1, left, right, middle)
    print("Recurse #3 n=%d" % n); rec(n - 1, middle, right, left)
n = int(sys.argv[1])
print("Begin printing Hanoi with %d" % n)
print("End printing Hanoi with %d" % n)
print("Begin recording Hanoi with %d" % n)
rec(n, 0, 1, 2)
print("End recording Hanoi with %d" % n)
EOF
}

# Events per class name prefix (CHANNEL of CHANNEL_LINE), as "NAME COUNT" lines.
per_channel() { # per_channel READER-OUTPUT
	grep -o 'hanoi:[A-Z]*_' "$1" | sort | uniq -c | awk '{ printf "%s %s\n", substr($2, 7), $1 }'
}

hanoi_trace() {
	"$HANOI" "$work/hanoi" >"$work/moves" 2>"$work/hanoi.err" || { diag "$work/hanoi.err"; return 1; }
	hanoi_expected 6 >"$work/expected"
	messages "$work/hanoi" >"$work/got"
	"$TRACER" report "$work/hanoi" >"$work/report"
	babeltrace2 "$work/hanoi" >"$work/bt" 2>"$work/bt.err"
	printf 'CALLS_ 94\nMOVES_ 63\nRECURSE_ 93\nTIMING_ 4\n' >"$work/counts"
}
check "hanoi n=6: printed 63 moves, dumped a trace" \
	eval 'hanoi_trace && [ "$(wc -l <"$work/moves")" = 63 ]'
check "report: CALLS 94, MOVES 63, RECURSE 93, TIMING 4" \
	eval 'per_channel "$work/report" | diff "$work/counts" - >"$work/diff" || { diag "$work/diff"; false; }'
check "report: the 254 records in the algorithm's order, index 253 the last TIMING" \
	eval 'diff "$work/expected" "$work/got" >"$work/diff" && [ "$(wc -l <"$work/got")" = 254 ] &&
		sed -n 254p "$work/report" | grep -q "hanoi:TIMING_[0-9]*: End recording Hanoi with 6" ||
		{ head -n 20 "$work/diff" | diag; false; }'
check "babeltrace2: the same counts, no warning" \
	eval 'per_channel "$work/bt" | diff "$work/counts" - >"$work/diff" && [ ! -s "$work/bt.err" ] ||
		{ diag "$work/diff" "$work/bt.err"; false; }'
check "babeltrace2: the records in the same order (n of CALLS, in time order)" \
	eval 'grep -o "hanoi:CALLS_.* n = [0-9]*" "$work/bt" | sed "s/.* n = //" >"$work/bt_n" &&
		grep -o "^n=[0-9]*" "$work/expected" | sed "s/n=//" | diff - "$work/bt_n" >/dev/null'

# A rare event in its own channel survives 200000 floods in a small one.
rare() {
	"$USTCHECK" rare "$work/rare" 2>"$work/err" || { diag "$work/err"; return 1; }
	"$TRACER" report "$work/rare" >"$work/rare.txt"
	local rare_lines first last count
	rare_lines=$(grep -c ' ust:rare: i=100000$' "$work/rare.txt")
	grep -o ' ust:flood: i=[0-9]*' "$work/rare.txt" | sed 's/.*=//' >"$work/floods"
	count=$(wc -l <"$work/floods")
	first=$(head -n 1 "$work/floods")
	last=$(tail -n 1 "$work/floods")
	[ "$rare_lines" = 1 ] && [ "$last" = 199999 ] && [ "$count" -gt 100 ] && [ "$count" -lt 1000 ] &&
		[ $((last - first + 1)) = "$count" ] ||
		{ echo "# rare $rare_lines; floods $count, $first to $last"; return 1; }
}
check "flight recorder: the rare event survives, the newest floods are kept, contiguous" rare

# Each kind of value, printed by report and read by babeltrace2 by name.
values() {
	"$USTCHECK" values "$work/values" 2>"$work/err" || { diag "$work/err"; return 1; }
	messages "$work/values" >"$work/values.txt"
	printf '%s\n' 'negative=-5 big=18446744073709551615 name="hello "ust"" none="(null)" where=0x1234' \
		'negative=-5 big=18446744073709551615 name=hello "ust" where=0x1234' | diff - "$work/values.txt" &&
	babeltrace2 "$work/values" >"$work/values.bt" &&
	grep -q 'ust:kinds: .*negative = -5, big = 18446744073709551615, .* where = 0x1234, name = "hello \\"ust\\"", none = "(null)" }' "$work/values.bt" ||
		{ diag "$work/values.bt"; return 1; }
}
check "values: signed, unsigned, strings, NULL, pointers, in report and babeltrace2" values

# SIGUSR1 dumps into DIR, then DIR.1; a flight-recorder dump is a snapshot.
on_signal() {
	"$USTCHECK" signal "$work/sig" 10 7 2>"$work/err" || { diag "$work/err"; return 1; }
	[ "$(messages "$work/sig" | grep -c '^first')" = 10 ] &&
		[ "$(messages "$work/sig.1" | grep -c '^first')" = 10 ] &&
		[ "$(messages "$work/sig.1" | grep -c '^second')" = 7 ] &&
		[ "$(babeltrace2 "$work/sig.1" | wc -l)" = 17 ]
}
check "SIGUSR1: a dump into DIR, the next into DIR.1, both read" on_signal

# A program killed by SIGSEGV after 200 events leaves them, readable.
crash() {
	local status
	# (in a subshell whose stderr is /dev/null: bash's "Segmentation fault" goes there)
	status=$({ TRACER_UST_CRASH_DIR=$work/crash "$USTCHECK" crash 200; echo $?; } 2>/dev/null)
	[ "$status" = 139 ] && [ "$(babeltrace2 "$work/crash" | grep -c 'ust:FLOOD_')" = 200 ] &&
		messages "$work/crash" | tail -n 1 | grep -qx 'event 199 before the crash' ||
		{ echo "# exit $status"; ls -la "$work" | diag; return 1; }
}
check "SIGSEGV after 200 events: the program dies of it, its 200 events dumped" crash

bad_channel() {
	"$USTCHECK" bad >"$work/out" 2>"$work/err"
	[ "$(cat "$work/out")" = "lost 5" ] && [ "$(wc -l <"$work/err")" = 1 ] &&
		grep -qx 'tracer-ust: channel BAD: sub-buffer size must be a power of two; its events are not recorded' "$work/err" ||
		{ diag "$work/out" "$work/err"; return 1; }
}
check "a channel of a bad geometry: said in one line, its events counted lost" bad_channel

exists() {
	mkdir "$work/there" && touch "$work/there/mine"
	"$USTCHECK" exists "$work/there" 2>"$work/err"
	[ $? = 1 ] && grep -q ': File exists$' "$work/err" && [ "$(ls "$work/there")" = mine ] ||
		{ diag "$work/err"; return 1; }
}
check "a dump into a directory that exists: refused, the directory untouched" exists

# Built as a user of the library would: pkg-config, the shared library.
pkg_config() {
	cat >"$work/app.c" <<'EOF'
#include <tracer/ust.h>
TRACER_CHANNEL(APP, 4096, 2, TRACER_UST_DISCARD);
int main(int argc, char **argv)
{
	int i;

	(void)argc;
	for (i = 0; i < 3; i++)
		tracer_event(APP, step, i);
	return tracer_ust_dump(argv[1]) != 0;
}
EOF
	local flags
	flags=$(PKG_CONFIG_PATH=$BUILD pkg-config --cflags --libs tracer-ust) &&
	cc -o "$work/app" "$work/app.c" $flags -Wl,-rpath,"$(cd "$BUILD" && pwd)" 2>"$work/err" &&
	"$work/app" "$work/app.trace" && ldd "$work/app" | grep -q libtracer-ust.so &&
	[ "$(messages "$work/app.trace" | tr '\n' ' ')" = "i=0 i=1 i=2 " ] || { diag "$work/err"; return 1; }
}
check "pkg-config tracer-ust: a program linked to the shared library records and dumps" pkg_config

# Merged with the kernel's events by tracer record: the program's events
# and its getppid() calls alternate, the same thread's.
if [ "$(id -u)" = 0 ]; then
	keep_tracefs_as_found
	merged() {
		"$TRACER" record -e ust:ust:step -e syscalls:sys_enter_getppid -o "$work/merged" \
			-- "$USTCHECK" alternate 2000 >"$work/rec.out" 2>"$work/rec.err" ||
			{ diag "$work/rec.err"; return 1; }
		"$TRACER" report "$work/merged" | grep -E ' (ust:step|syscalls:sys_enter_getppid):' >"$work/merged.txt"
		# Each line: its thread and event; the events must be step i, getppid, step i+1, ...
		awk '{ tid[NR] = $2; ev[NR] = $5; msg[NR] = $6 }
		     END { if (NR != 4000) { print "# " NR " lines"; exit 1 }
			   for (i = 1; i <= NR; i++) {
				want = i % 2 ? "ust:step:" : "syscalls:sys_enter_getppid:"
				if (ev[i] != want || tid[i] != tid[1] ||
				    (i % 2 && msg[i] != "i=" (i - 1) / 2)) {
					print "# line " i ": " tid[i] " " ev[i] " " msg[i]; exit 1 } } }' \
			"$work/merged.txt" &&
		grep -q '  user space: 2000 events from 1 process (1 buffers); lost 0' "$work/rec.err" &&
		[ "$(babeltrace2 "$work/merged" | grep -cE ' (ust:step|syscalls:sys_enter_getppid):')" = 4000 ] ||
			{ diag "$work/rec.err"; return 1; }
	}
	check "record -- CMD: user and kernel events in one trace, strictly alternating, one thread" merged

	# Strings through the recorder: hanoi recorded, in report and babeltrace2.
	recorded_hanoi() {
		"$TRACER" record -e 'ust:hanoi:*' -o "$work/rec-hanoi" -- "$HANOI" "$work/hanoi2" \
			>/dev/null 2>"$work/rec.err" || { diag "$work/rec.err"; return 1; }
		"$TRACER" report "$work/rec-hanoi" | grep ' hanoi:' | sed 's/^.*: [a-z]*:[A-Za-z_0-9]*: //' >"$work/rec-got"
		diff "$work/expected" "$work/rec-got" >"$work/diff" &&
			[ "$(babeltrace2 "$work/rec-hanoi" | grep -c ' hanoi:')" = 254 ] ||
			{ head -n 20 "$work/diff" | diag; diag "$work/rec.err"; return 1; }
	}
	check "record -e 'ust:hanoi:*': the 254 records in order in report, all in babeltrace2" recorded_hanoi

	# A flood through small flight-recorder buffers, read while it runs:
	# what the recorder kept, lost and saw overwritten is every event.
	accounted() {
		"$TRACER" record -e 'ust:*:*' -o "$work/flood" -- "$USTCHECK" rare "$work/flood-dump" \
			>/dev/null 2>"$work/rec.err" || { diag "$work/rec.err"; return 1; }
		local line kept lost over
		line=$(grep '  user space: ' "$work/rec.err")
		kept=$(echo "$line" | sed -n 's/.*space: \([0-9]*\) events.*/\1/p')
		lost=$(echo "$line" | sed -n 's/.*lost \([0-9]*\),.*/\1/p')
		over=$(echo "$line" | sed -n 's/.*overwritten \([0-9]*\)$/\1/p')
		[ -n "$kept" ] && [ $((kept + lost + over)) = 200001 ] &&
			[ "$("$TRACER" report "$work/flood" | grep -c ' ust:')" = "$kept" ] ||
			{ echo "# kept $kept lost $lost overwritten $over"; diag "$work/rec.err"; return 1; }
	}
	check "record: kept + lost + overwritten = the 200001 events of a flood, read while it runs" accounted

	# Discard mode streams without a loss when the recorder reads each
	# sub-buffer as it ends: the writer wakes it (its flush period here is
	# a minute); the program writes a sub-buffer only once the one before
	# was read, and fails after 30 s of waiting.  errno stays the program's.
	woken() {
		"$TRACER" record --flush-ms 60000 -e 'ust:ust:paced' -e 'ust:bench:*' -e 'ust:ust:pace' \
			-o "$work/paced" -- "$USTCHECK" paced 20000 >/dev/null 2>"$work/rec.err" ||
			{ diag "$work/rec.err"; return 1; }
		grep -q '  user space: 20000 events from 1 process (1 buffers); lost 0, overwritten 0' "$work/rec.err" &&
			[ "$("$TRACER" report "$work/paced" | grep -c ' ust:paced: i=')" = 20000 ] &&
			grep -q "^  user space: -e ust:bench:\* matched none of the events found: ust:ust:" "$work/rec.err" &&
			grep -q "^  user space: -e ust:ust:pace matched none of the events found; did you mean ust:ust:paced?" "$work/rec.err" ||
			{ diag "$work/rec.err"; return 1; }
	}
	check "record: a discard channel's writer wakes the recorder, nothing lost; unmatched -e ust: said" woken

	# The program's own dump while the recorder reads its discard buffer:
	# the recorder stopped (SIGSTOP) while the program ends a sub-buffer
	# and dumps, the dump takes a snapshot and leaves that sub-buffer to
	# the recorder, whose trace has all 160 events (a dump that consumed
	# it would leave the trace without them).
	dump_beside() {
		"$TRACER" record --flush-ms 60000 -e 'ust:ust:beside' -o "$work/beside" -- \
			"$USTCHECK" dump-beside "$work/own-dump" >"$work/beside.out" 2>"$work/beside.err" &
		local rec=$! prog kept dumped status
		wait_until 30 grep -q '^ready ' "$work/beside.out" || { kill "$rec"; diag "$work/beside.err"; return 1; }
		prog=$(sed -n 's/^ready //p' "$work/beside.out")
		kill -STOP "$rec" && kill -USR1 "$prog" &&
			wait_until 30 grep -qx dumped "$work/beside.out"
		status=$?
		kill -CONT "$rec"
		kill -USR1 "$prog"
		wait "$rec" && [ "$status" = 0 ] || { diag "$work/beside.out" "$work/beside.err"; return 1; }
		kept=$("$TRACER" report "$work/beside" | grep -c ' ust:beside: i=')
		dumped=$("$TRACER" report "$work/own-dump" 2>&1 | grep -c ' ust:beside: i=')
		echo "# the recorder's trace: $kept events; the program's dump: $dumped"
		[ "$kept" = 160 ] && [ "$dumped" -ge 1 ] || { diag "$work/beside.err"; return 1; }
	}
	check "the program's own dump beside a recorder: a snapshot, the recorder keeps all 160 events" dump_beside

	# With -a, a program started while it records but not by its command
	# (no TRACER_UST_FD) hands its buffers over through the registry as it
	# makes them: all of a program that lives a millisecond is recorded,
	# its 100 steps in order.  -a records every program of the library on
	# the machine, here another one beside it too: the check picks its
	# program out by pid.
	registry() {
		"$USTCHECK" ticks 100000 10 2>/dev/null &
		local other=$! status
		"$TRACER" record -a -e 'ust:ust:step' -o "$work/registry" -- \
			sh -c 'echo $$ >"$0" && exec env -u TRACER_UST_FD -u TRACER_UST_WAKE_FD "$1" alternate 100' \
			"$work/registry.pid" "$USTCHECK" >/dev/null 2>"$work/rec.err"
		status=$?
		kill "$other"
		wait "$other" 2>/dev/null
		[ "$status" = 0 ] &&
			[ "$("$TRACER" report --pid "$(cat "$work/registry.pid")" "$work/registry" |
				grep -o ' ust:step: i=[0-9]*$' | cut -d= -f2)" = "$(seq 0 99)" ] ||
			{ diag "$work/rec.err"; return 1; }
	}
	check "record -a: a short program started during the recording, not by it, is read whole" registry

	# Two recorders of one running program (-p both): each buffer is read
	# by one recorder only, the first to find it; the second leaves it to
	# the first and says so, though it scans the program all through its
	# second.  Two readers would take sub-buffers from each other: both
	# traces would hold some of its ticks, neither all.  A recorder takes
	# the buffers of the programs already running before it says it records.
	two_recorders() {
		local pid first ticks
		rm -rf "$work/first" "$work/second"
		"$USTCHECK" ticks 100000 10 2>/dev/null &
		pid=$!
		wait_until 30 eval "ls -l /proc/$pid/fd 2>/dev/null | grep -q 'memfd:tracer-ust '" ||
			{ kill "$pid"; wait "$pid"; echo "# no buffer in 30 s"; return 1; }
		"$TRACER" record -e 'ust:ust:tick' -p "$pid" -o "$work/first" 2>"$work/first.err" &
		first=$!
		wait_recording "$first" "$work/first.err" &&
			"$TRACER" record -e 'ust:ust:tick' -p "$pid" --duration 1 -o "$work/second" \
				2>"$work/second.err"
		kill -INT "$first"
		wait "$first"
		kill "$pid"
		wait "$pid" 2>/dev/null
		"$TRACER" report "$work/first" | grep -o ' ust:tick: i=[0-9]*$' | cut -d= -f2 >"$work/ticks"
		ticks=$(wc -l <"$work/ticks")
		[ "$ticks" -ge 100 ] &&
			[ $(($(tail -n 1 "$work/ticks") - $(head -n 1 "$work/ticks") + 1)) = "$ticks" ] &&
			[ "$("$TRACER" report "$work/second" | grep -c ' ust:tick: ')" = 0 ] &&
			grep -q '^  user space: 1 buffers left to the recorder that was reading them' "$work/second.err" ||
			{ echo "# first: $ticks ticks; second: $("$TRACER" report "$work/second" | grep -c ' ust:tick: ')"
			  diag "$work/first.err" "$work/second.err"; return 1; }
	}
	check "record -p twice: each buffer read by one recorder, the first; the second says it left it" two_recorders

	# A program started before the recorder is found by -p, every tick from when it is.
	found_by_pid() {
		"$USTCHECK" ticks 300 10 2>/dev/null &
		local pid=$! ticks
		sleep 0.5
		"$TRACER" record -e 'ust:*:*' -p "$pid" --duration 1 -o "$work/bypid" >"$work/rec.out" 2>"$work/rec.err" ||
			{ diag "$work/rec.err"; return 1; }
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		"$TRACER" report "$work/bypid" | grep -o ' ust:tick: i=[0-9]*' | sed 's/.*=//' >"$work/ticks"
		ticks=$(wc -l <"$work/ticks")
		[ "$ticks" -ge 40 ] && [ $(($(tail -n 1 "$work/ticks") - $(head -n 1 "$work/ticks") + 1)) = "$ticks" ] ||
			{ echo "# $ticks ticks: $(head -n 1 "$work/ticks") to $(tail -n 1 "$work/ticks")"; diag "$work/rec.err"; return 1; }
	}
	check "record -p PID: a program that started before is found, its events contiguous" found_by_pid

	# tracer ust dump PID, twice, during a recording of the same program:
	# snapshots (the second holds the first), and the recording misses nothing.
	dump_pid() {
		local pid first second
		"$USTCHECK" ticks 400 10 2>/dev/null &
		pid=$!
		sleep 0.3
		"$TRACER" record -e 'ust:*:*' -p "$pid" --duration 2 -o "$work/dumprec" >/dev/null 2>"$work/rec.err" &
		local rec=$!
		sleep 0.8
		"$TRACER" ust dump "$pid" -o "$work/dump1" 2>"$work/dump.err" &&
			sleep 0.3 && "$TRACER" ust dump "$pid" -o "$work/dump2" 2>>"$work/dump.err" ||
			{ diag "$work/dump.err"; kill "$pid" "$rec"; return 1; }
		wait "$rec"
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		ticks_of() { "$TRACER" report "$1" | grep -o ' ust:tick: i=[0-9]*' | sed 's/.*=//'; }
		ticks_of "$work/dump1" >"$work/t1"
		ticks_of "$work/dump2" >"$work/t2"
		ticks_of "$work/dumprec" >"$work/t3"
		first=$(wc -l <"$work/t1")
		second=$(wc -l <"$work/t2")
		[ "$first" -ge 50 ] && [ "$(head -n 1 "$work/t1")" = 0 ] &&
			[ "$(tail -n 1 "$work/t1")" = $((first - 1)) ] && [ "$second" -gt "$first" ] &&
			[ "$(head -n "$first" "$work/t2" | cmp - "$work/t1" && echo same)" = same ] &&
			[ "$(babeltrace2 "$work/dump2" | grep -c ' ust:tick: ')" = "$second" ] &&
			[ "$(head -n 1 "$work/t3")" = 0 ] &&
			[ $(($(tail -n 1 "$work/t3") + 1)) = "$(wc -l <"$work/t3")" ] &&
			[ "$(tail -n 1 "$work/t3")" -gt "$(tail -n 1 "$work/t2")" ] ||
			{ echo "# dumps $first, $second; recording $(wc -l <"$work/t3")"; diag "$work/dump.err" "$work/rec.err"; return 1; }
	}
	check "ust dump PID: snapshots of a running program, nothing taken from its recording" dump_pid
else
	skip "record -- CMD: user and kernel events in one trace" "recording needs root here"
	skip "record -e 'ust:hanoi:*'" "recording needs root here"
	skip "record: kept + lost + overwritten" "recording needs root here"
	skip "ust dump PID during a recording" "recording needs root here"
	skip "record -p PID: a program that started before is found" "recording needs root here"
	skip "record: a discard channel's writer wakes the recorder" "recording needs root here"
	skip "record -a: a short program started during the recording" "recording needs root here"
fi

# Refused in one line, nothing created.
dump_refused() {
	"$TRACER" ust dump 999999999 -o "$work/none" 2>"$work/err"
	local gone=$?
	"$TRACER" ust dump $$ -o "$work/none" 2>>"$work/err"
	local without=$?
	[ "$gone" = 1 ] && [ "$without" = 1 ] && [ ! -e "$work/none" ] && [ "$(wc -l <"$work/err")" = 2 ] &&
		grep -q 'process 999999999 has no libtracer-ust buffers that can be read (no such process)' "$work/err" &&
		grep -q "process $$ has no libtracer-ust buffers that can be read (not linked" "$work/err" ||
		{ diag "$work/err"; return 1; }
}
check "ust dump of no process, of a process without the library: one line each, exit 1" dump_refused

echo "1..$n"

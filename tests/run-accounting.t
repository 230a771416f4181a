#!/usr/bin/env bash
# Every event accounted for, and the trace says what happened: checked
# against the kernel's own tracer (an ftrace instance of this test's own)
# and babeltrace2.  Each check provokes its case on this kernel.
set -u
TEST_NAME=accounting
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
keep_tracefs_as_found
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing

# --- byte arrays --------------------------------------------------------------

# A TCP connection on the loopback: sock:inet_sock_set_state carries the
# addresses as __u8[4] and __u8[16]; 127.0.0.1 starts with 0x7f, and
# 0.0.0.0 is four zeros, not an empty string.
connect_loopback() {
	python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname()); a, _ = s.accept()
c.close(); a.close(); s.close()'
}

byte_arrays_are_numbers() {
	"$TRACER" record -e sock:inet_sock_set_state -o "$work/bytes" -- \
		bash -c "$(declare -f connect_loopback); connect_loopback" 2>"$work/bytes.log" ||
		{ diag "$work/bytes.log"; return 1; }
	babeltrace2 "$work/bytes" >"$work/bytes.txt" 2>"$work/bytes.err" || { diag "$work/bytes.err"; return 1; }
	grep -q 'daddr = \[ \[0\] = 0x7F, \[1\] = 0x0, \[2\] = 0x0, \[3\] = 0x1 \]' "$work/bytes.txt" &&
		grep -q 'daddr = \[ \[0\] = 0x0, \[1\] = 0x0, \[2\] = 0x0, \[3\] = 0x0 \]' "$work/bytes.txt" ||
		{ grep -m2 -o 'daddr = [^]]*\]' "$work/bytes.txt" | diag; return 1; }
}
check "u8 arrays (IPv4 addresses) read back by babeltrace2 as numbers, zeros included" byte_arrays_are_numbers

# --- an ftrace instance beside the recorder --------------------------------------

instance=/sys/kernel/tracing/instances/tracer-accounting-$$
ftrace_start() { # ftrace_start EVENT...: this test's own instance, mono clock
	mkdir "$instance" || return 1
	at_exit "rmdir $instance 2>/dev/null"
	echo mono >"$instance/trace_clock"
	echo 16384 >"$instance/buffer_size_kb"
	local ev
	for ev in "$@"; do
		echo "$ev" >>"$instance/set_event" || return 1
	done
	echo 1 >"$instance/tracing_on"
}
ftrace_stop() { # ftrace_stop FILE: the instance's text, then no events
	echo 0 >"$instance/tracing_on"
	grep -v '^#' "$instance/trace" >"$1"
	echo >"$instance/set_event"
	grep -h '^overrun:' "$instance"/per_cpu/cpu*/stats | awk '$2 != 0 { bad = 1 } END { exit bad }' ||
		{ echo "# the ftrace instance overran its buffer"; return 1; }
}

# Events of a text trace between the first and the last getppid of the
# workload (both included), counted from each tool's own timestamps.  The
# two tools name the task and the event differently (ftrace: getppid_n-PID
# and sys_getppid(), report: getppid_n PID and sys_enter_getppid), and in
# this machine's containers they do not even show the same pid numbers.
between_markers() { # between_markers FILE MARKER-REGEX
	awk -v marker="$2" '
		{ for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break;
		  ts = $(i + 1) ~ /^[0-9.]+:$/ ? $(i + 1) : $(i + 2); sub(":", "", ts); at[NR] = ts }
		$0 ~ marker { if (first == "") first = ts; last = ts }
		END { for (i = 1; i <= NR; i++) if (at[i] >= first && at[i] <= last) n++; print n + 0 }' "$1"
}

# Interrupts arrive while the program runs for the getppid calls: the
# kernel skips the irq and timer events they fire.  Each skip must be
# counted, so between two markers ftrace's count equals tracer's records
# plus what tracer says it lost (losses outside the markers can only add).
recursion_misses_counted() {
	local events=(irq:irq_handler_entry irq:irq_handler_exit irq:softirq_entry irq:softirq_exit
		timer:hrtimer_expire_entry timer:hrtimer_expire_exit timer:hrtimer_start
		syscalls:sys_enter_getppid)
	# The workload under a name of its own: its first and last calls are
	# the markers, whatever else runs on the machine.
	local task=tr-acct-$$
	cp "$GETPPID" "$work/$task"
	ftrace_start "${events[@]}" || return 1
	"$TRACER" record -a $(printf -- '-e %s ' "${events[@]}") -o "$work/misses" \
		-- "$work/$task" 300000 2>"$work/misses.log"
	local status=$?
	ftrace_stop "$work/ftrace.txt" || return 1
	[ "$status" = 0 ] || { diag "$work/misses.log"; return 1; }
	# The recorder never records itself, interrupts of it included; other
	# recorders running meanwhile are left out on both sides alike.
	"$TRACER" report "$work/misses" | grep -v -e ' tracer:recursion_misses: ' -e '^ *tracer ' \
		>"$work/misses.txt" || return 1
	local ours theirs skipped lost
	ours=$(between_markers "$work/misses.txt" "^ *$task .* syscalls:sys_enter_getppid: ")
	grep -v '^ *tracer-[0-9]* ' "$work/ftrace.txt" >"$work/ftrace-others.txt"
	theirs=$(between_markers "$work/ftrace-others.txt" "^ *$task-[0-9]+ .* sys_getppid\\(")
	skipped=$(grep -o 'lost: [0-9]* skipped' "$work/misses.log" | grep -o '[0-9]*')
	lost=$(awk '/cpu [0-9]+ lost:/ { for (i = 4; i <= NF; i++) if ($i ~ /^[0-9]+$/) l += $i } END { print l + 0 }' \
		"$work/misses.log")
	echo "# between the markers: ftrace $theirs, tracer $ours; tracer skipped ${skipped:-0}, lost $lost in all"
	[ "$ours" -gt 300000 ] && [ "$ours" -le "$theirs" ] &&
		[ "$theirs" -le $((ours + ${skipped:-0} + lost)) ] || { diag "$work/misses.log"; return 1; }
	# The skips are in the trace too, as records with their counts.
	[ "$("$TRACER" report "$work/misses" | grep -o ' skipped=[0-9]*' | awk -F= '{ s += $2 } END { print s + 0 }')" = \
		"${skipped:-0}" ]
}
check "recursion misses: ftrace's events == tracer's records + counted losses; the trace holds the counts" \
	recursion_misses_counted

# --- a slow attach ----------------------------------------------------------------

# Attaching every system call's tracepoint takes about a second; a
# process that calls getppid() every millisecond, whose tracepoints are
# attached first, meanwhile fills an 8 KiB buffer several times over
# unless the recorder reads while it attaches.
nothing_lost_while_attaching() {
	"$GETPPID" 1000000 1 &
	local load=$!
	"$TRACER" record -p "$load" -e 'syscalls:sys_*_getppid' -e 'syscalls:*' \
		--buffer-size 8K --subbuf-size 4K \
		-o "$work/attach" 2>"$work/attach.log" &
	local recorder=$!
	wait_until 120 grep -qs 'recording' "$work/attach.log"
	kill -INT "$recorder"
	wait "$recorder"
	local status=$? events
	kill "$load"
	wait "$load" 2>/dev/null
	events=$(awk '/ events, / { print $3 }' "$work/attach.log")
	echo "# ${events:-no} events"
	[ "$status" = 0 ] && [ "${events:-0}" -gt 0 ] && ! grep -q 'lost:' "$work/attach.log" ||
		{ diag "$work/attach.log" | grep -v '^#  *[0-9]*  syscalls'; return 1; }
}
check "a slow attach (syscalls:*) of a busy process: nothing lost while attaching" \
	nothing_lost_while_attaching

# --- the recorder's own wake-ups ------------------------------------------------

# Idle but for the scheduler's events, the recorder wakes for its flush
# period (10 a second at --flush-ms 100) and for each delivered
# sub-buffer, not on a polling tick.  Its voluntary context switches
# over a recording bound its wake-ups.
few_wakeups_when_idle() {
	"$TRACER" record -a -e 'sched:*' --flush-ms 100 -o "$work/idle" 2>"$work/idle.log" &
	local recorder=$!
	wait_until 60 grep -qs 'recording' "$work/idle.log" || return 1
	local before after packets
	before=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$recorder/status")
	sleep 3
	after=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$recorder/status")
	kill -INT "$recorder"
	wait "$recorder" || return 1
	packets=$(cat "$work/idle"/channel0_* | od -An -tx4 -w4 -v | grep -c 'c1fc1fc1')
	echo "# $((after - before)) wake-ups in 3 s; $packets packets in the whole trace"
	# 3 s of flushes, one per packet delivered, and a few for slack.
	[ $((after - before)) -le $((30 + packets + 5)) ]
}
check "idle, the recorder wakes for its flush period and delivered sub-buffers only" few_wakeups_when_idle

echo "1..$n"

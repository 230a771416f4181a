#!/usr/bin/env bash
# Every event accounted for, and the trace says what happened: checked
# against the kernel's own tracer (an ftrace instance of this test's own)
# and babeltrace2.  Each check provokes its case on this kernel.
set -u
TEST_NAME=accounting
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
use_tracefs

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

# This test's own ftrace instance, on tracer's clock, recording EVENTs
# (globs allowed) only while a task named COMM is current.
instance=
ftrace_start() { # ftrace_start COMM EVENT...
	instance=/sys/kernel/tracing/instances/tracer-accounting-$$-$n
	mkdir "$instance" || return 1
	at_exit "rmdir $instance 2>/dev/null"
	echo mono >"$instance/trace_clock"
	echo 32768 >"$instance/buffer_size_kb"
	local comm=$1 ev dir
	shift
	for ev in "$@"; do
		for dir in "$instance"/events/${ev%%:*}/${ev#*:}; do
			echo "comm == \"$comm\"" >"$dir/filter" && echo 1 >"$dir/enable" || return 1
		done
	done
	echo 1 >"$instance/tracing_on"
}
ftrace_stop() { # ftrace_stop FILE: the instance's text, then no instance
	echo 0 >"$instance/tracing_on"
	grep -v '^#' "$instance/trace" >"$1"
	grep -h '^overrun:' "$instance"/per_cpu/cpu*/stats | awk '$2 != 0 { bad = 1 } END { exit bad }' ||
		{ echo "# the ftrace instance overran its buffer"; return 1; }
	rmdir "$instance"
}

# The interrupt events of the workload in a window both traces agree on,
# counted from each tool's own timestamps, and our markers in all:
# "ours theirs markers".  The two tools
# name the task and the event differently (ftrace: getppid_n-PID and
# sys_getppid(), report: getppid_n PID and sys_enter_getppid), and in this
# machine's containers they do not even show the same pid numbers.  The
# window is not the markers themselves: ftrace's probe runs before
# tracer's on the same system call and prints whole microseconds, so an
# interrupt at a marker may fall inside the window for one tool and
# outside for the other.  Its ends are instead the first and the last
# quiet moment (no interrupt event in either trace within 200 us) at
# least 1 ms inside both tools' first and last getppid of the workload.
interrupt_events_in_window() { # interrupt_events_in_window OURS THEIRS OUR_MARKER THEIR_MARKER
	python3 - "$@" <<'EOF'
import re, sys

IRQ = {"irq_handler_entry", "irq_handler_exit", "softirq_entry", "softirq_exit",
       "hrtimer_expire_entry", "hrtimer_expire_exit", "hrtimer_start"}
QUIET, INSIDE = 200e-6, 1e-3

def read(path, marker):
    irq, markers = [], []
    for line in open(path):
        f = line.split()
        cpu = next(i for i, x in enumerate(f) if re.fullmatch(r"\[\d+\]", x))
        at = cpu + 1 if re.fullmatch(r"[\d.]+:", f[cpu + 1]) else cpu + 2
        t, event = float(f[at][:-1]), f[at + 1].rstrip(":").split(":")[-1]
        if event in IRQ:
            irq.append(t)
        elif re.search(marker, line):
            markers.append(t)
    return irq, markers

(ours, our_marks), (theirs, their_marks) = read(sys.argv[1], sys.argv[3]), read(sys.argv[2], sys.argv[4])
both = sorted(ours + theirs)
quiet = [(a + b) / 2 for a, b in zip(both, both[1:]) if b - a > 2 * QUIET]
begin = max(our_marks[0], their_marks[0]) + INSIDE
end = min(our_marks[-1], their_marks[-1]) - INSIDE
begin = min((t for t in quiet if t >= begin), default=end)
end = max((t for t in quiet if t <= end), default=begin)
print(sum(begin < t < end for t in ours), sum(begin < t < end for t in theirs), len(our_marks))
EOF
}

# The events of interrupts: what arrives while the workload makes its
# system calls.
interrupt_events=(irq:irq_handler_entry irq:irq_handler_exit irq:softirq_entry irq:softirq_exit
	timer:hrtimer_expire_entry timer:hrtimer_expire_exit timer:hrtimer_start)

# Records the interrupt events and SYSCALL_EVENTS while a workload of its
# own name makes 300000 getppid() calls, beside an ftrace instance; both
# keep only what comes while a task of that name is current (the
# recorder by --comm, so the trace is the workload's but for the task
# records: another process's system calls beside it filled the buffers
# and lost the workload's).  Sets
# ours and theirs, the events of the workload between its first and last
# getppid() in each trace (the event names that match OUR_MARKER and
# FTRACE_MARKER), and skipped and lost, what the recorder says it lost.
record_beside_ftrace() { # record_beside_ftrace NAME SYSCALL_EVENTS OUR_MARKER FTRACE_MARKER
	local events=("${interrupt_events[@]}" "$2") task=tr-acct-$$
	cp "$GETPPID" "$work/$task"
	ftrace_start "$task" "${events[@]}" || return 1
	"$TRACER" record -a --comm "$task" $(printf -- '-e %s ' "${events[@]}") -o "$work/$1" \
		-- "$work/$task" 300000 2>"$work/$1.log"
	local status=$?
	ftrace_stop "$work/$1.ftrace" || return 1
	[ "$status" = 0 ] || { diag "$work/$1.log"; return 1; }
	"$TRACER" report "$work/$1" >"$work/$1.txt" || return 1
	grep "^ *$task-[0-9]* " "$work/$1.ftrace" >"$work/$1.ftrace-task"	# (filtered already)
	read -r ours theirs markers < <(interrupt_events_in_window "$work/$1.txt" "$work/$1.ftrace-task" "$3" "$4")
	skipped=$(grep -o 'lost: [0-9]* skipped' "$work/$1.log" | grep -o '[0-9]*')
	skipped=${skipped:-0}
	lost=$(awk '/cpu [0-9]+ lost:/ { for (i = 4; i <= NF; i++) if ($i ~ /^[0-9]+$/) l += $i } END { print l + 0 }' \
		"$work/$1.log")
	echo "# interrupt events of the workload: ftrace $theirs, tracer $ours; tracer skipped $skipped, lost $lost in all"
	[ "${markers:-0}" -ge 300000 ] && [ "${theirs:-0}" -gt 0 ] || { diag "$work/$1.log"; return 1; }
}

# raw_syscalls:sys_enter is a classic tracepoint: while its program runs,
# the kernel skips the tracepoints of interrupts that arrive.  Each skip
# must be counted: ftrace's count equals tracer's records plus what
# tracer says it lost (losses outside the markers or in other tasks can
# only add), and the skips are in the trace as records with their counts.
recursion_misses_counted() {
	local ours theirs skipped lost markers
	record_beside_ftrace raw raw_syscalls:sys_enter 'raw_syscalls:sys_enter: NR 110 ' \
		'sys_enter: NR 110 ' || return 1
	[ "$ours" -le "$theirs" ] && [ "$theirs" -le $((ours + skipped + lost)) ] || return 1
	[ "$(skipped_in_report "$work/raw")" = "$skipped" ]
}
# The events report's LOST lines of a trace say the kernel skipped.
skipped_in_report() { # skipped_in_report TRACE
	"$TRACER" report "$1" | grep -o 'LOST [0-9]* events (skipped by the kernel' |
		awk '{ s += $2 } END { print s + 0 }'
}
check "classic tracepoints: ftrace's events == tracer's records + counted losses; the trace holds the counts" \
	recursion_misses_counted

# The kernel's skips are losses like the others: report says each in a
# LOST line, and report --stats counts them in its lost total.  The
# interrupts that arrive while raw_syscalls:sys_enter's program runs are
# skipped; a recording is made again (5 times at most) until some were.
# Of the command only, not -a: another process's system calls beside it
# filled the buffers, and the skips' records were lost with the rest.
skips_are_lost() {
	local try skipped=0 stats lines
	for try in 1 2 3 4 5; do
		rm -rf "$work/skips"
		"$TRACER" record $(printf -- '-e %s ' "${interrupt_events[@]}") -e raw_syscalls:sys_enter \
			-o "$work/skips" -- "$GETPPID" 300000 2>"$work/skips.log" || { diag "$work/skips.log"; return 1; }
		skipped=$(grep -o 'lost: [0-9]* skipped' "$work/skips.log" | grep -o '[0-9]*')
		[ "${skipped:-0}" -gt 0 ] && break
	done
	stats=$("$TRACER" report --stats "$work/skips" | awk 'NR == 1 { for (i = 1; i < NF; i++) if ($(i + 1) == "lost,") print $i }')
	lines=$("$TRACER" report "$work/skips" | grep -o 'LOST [0-9]* events' | awk '{ s += $2 } END { print s + 0 }')
	echo "# the kernel skipped ${skipped:-none}; report's LOST lines say $lines events in all, $(skipped_in_report "$work/skips") skipped; --stats says ${stats:-none} lost"
	[ "${skipped:-0}" -gt 0 ] && [ "$(skipped_in_report "$work/skips")" = "$skipped" ] && [ "$stats" = "$lines" ]
}
check "the kernel's skips are counted lost by report --stats and shown in report's LOST lines" skips_are_lost

# Many system call events (here every sys_enter_*) come from tp_btf
# programs, which leave interrupts free to run their tracepoints: every
# interrupt event ftrace sees in the workload is recorded.
syscall_events_leave_interrupts_recorded() {
	local ours theirs skipped lost markers
	record_beside_ftrace getppid 'syscalls:sys_enter_*' 'syscalls:sys_enter_getppid: ' \
		'sys_getppid[(]' &&
		[ "$ours" = "$theirs" ]
}
check "system call events: every interrupt event of the workload recorded, as ftrace sees them" \
	syscall_events_leave_interrupts_recorded

# --- a slow attach ----------------------------------------------------------------

# Attaching about a thousand tracepoints takes a second or more; a
# process that calls getppid() every millisecond, whose events are
# attached first, meanwhile fills an 8 KiB buffer several times over
# unless the recorder reads while it attaches.  The other tracepoints
# (file systems, KVM, writeback) never fire in that process.
nothing_lost_while_attaching() {
	"$GETPPID" 1000000 1 &
	local load=$!
	"$TRACER" record -p "$load" -e 'syscalls:sys_*_getppid' -e 'xfs:*' -e 'btrfs:*' -e 'ext4:*' \
		-e 'kvm:*' -e 'writeback:*' \
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
	[ "$status" = 0 ] && [ "${events:-0}" -gt 0 ] && ! grep -q 'cpu [0-9]* lost:' "$work/attach.log" &&
		! "$TRACER" report "$work/attach" | grep -q ': LOST ' ||
		{ diag "$work/attach.log" | grep -v '^#  *[0-9]*  syscalls'; return 1; }
}
check "a slow attach (a thousand tracepoints) of a busy process: nothing lost while attaching" \
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

# --- other tools on the same tracepoints -------------------------------------------

# While tracer records a tracepoint, perf still counts it: the program
# lets the kernel hand the record on to the tracepoint's perf events.
perf_still_counts() {
	"$TRACER" record -a -e sched:sched_process_exec -o "$work/share" 2>"$work/share.log" &
	local recorder=$! counted
	wait_until 60 grep -qs 'recording' "$work/share.log" || return 1
	counted=$(perf stat -a -x, -e sched:sched_process_exec -- \
		sh -c 'for i in $(seq 20); do /bin/true; done' 2>&1 | awk -F, '/sched_process_exec/ { print $1 }')
	kill -INT "$recorder"
	wait "$recorder" || return 1
	echo "# perf counted ${counted:-nothing} execs of at least 21"
	[ "${counted:-0}" -ge 21 ] 2>/dev/null
}
check "perf stat counts a tracepoint that tracer records at the same time" perf_still_counts

echo "1..$n"

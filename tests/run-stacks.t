#!/usr/bin/env bash
# record -g: call stacks with every record, named by report and folded
# for FlameGraph.  The workload (tests/helpers/callchain, frame pointers)
# calls getppid() through main -> chain_one -> chain_two -> chain_three;
# an ftrace instance of this test's takes the kernel's own stack trace of
# the same calls at the same time (a stacktrace trigger).  Leaves tracefs
# mounted or not, as it found it.
set -u
TEST_NAME=stacks
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
use_tracefs

CHAIN=$BUILD/tests/helpers/callchain
CALLS=20
use_instance stacks
getppid_event=$instance/events/syscalls/sys_enter_getppid
echo 'comm == "callchain"' >"$getppid_event/filter"
echo 'stacktrace if comm == "callchain"' >"$getppid_event/trigger"
at_exit "echo '!stacktrace if comm == \"callchain\"' >$getppid_event/trigger; echo 0 >$getppid_event/enable"

# Records the chain's calls with -g and EVENTS into DIR while the instance
# takes their stacks; the chain lives until the recorder has ended.  Its
# pid into DIR.pid, its code mappings as /proc/PID/maps shows them into
# DIR.procmaps.
record_chain() { # record_chain DIR EVENT...
	local dir=$1 chain recorder
	shift
	rm -f "$work/go" "$work/called" "$work/done"
	"$CHAIN" "$CALLS" "$work/go" "$work/called" "$work/done" &
	chain=$!
	echo "$chain" >"$dir.pid"
	echo >"$instance/trace"
	echo 1 >"$getppid_event/enable"
	"$TRACER" record -g -p "$chain" -o "$dir" "$@" 2>"$dir.log" &
	recorder=$!
	wait_recording "$recorder" "$dir.log" || { kill "$recorder" "$chain"; wait; return 1; }
	touch "$work/go"
	wait_until 60 test -e "$work/called"
	kill -INT "$recorder"
	wait "$recorder"
	local status=$?
	echo 0 >"$getppid_event/enable"
	awk '$2 ~ /x/ && $6 ~ /^\// { print }' "/proc/$chain/maps" >"$dir.procmaps"
	touch "$work/done"
	wait "$chain"
	[ "$status" = 0 ] || { diag "$dir.log"; return 1; }
}

# The function names of the first stack in a report: kernel, then user.
first_stack() { # first_stack REPORT KIND
	awk -v kind="$2" '/^\t/ { in_stack = 1; name = $2; sub(/\+0x[0-9a-f]+$/, "", name)
		if ((kind == "kernel") == ($3 == "([kernel.kallsyms])")) print name; next }
		in_stack { exit }' "$1"
}

# ftrace's first stack trace, without its first frame (its own hook, where
# ours has the BPF program's).
ftrace_stack() {
	awk '/<stack trace>/ { on = 1; next } on && /^ => / { print $2; next } on { exit }' \
		"$instance/trace" | tail -n +2
}

# REPORT's first getppid record: its user stack is the chain, and its
# kernel stack ends as ftrace's does.
stacks_as_known() { # stacks_as_known REPORT
	local ours theirs
	first_stack "$1" user | head -n 4 | tr '\n' ' ' >"$work/user"
	[ "$(cat "$work/user")" = "chain_three chain_two chain_one main " ] ||
		{ echo "# user stack: $(cat "$work/user")"; return 1; }
	theirs=$(ftrace_stack)
	ours=$(first_stack "$1" kernel | tail -n "$(echo "$theirs" | wc -l)")
	[ -n "$theirs" ] && [ "$ours" = "$theirs" ] ||
		{ echo "# kernel stack, ours then ftrace's:"; echo "$ours" | diag; echo "$theirs" | diag; return 1; }
}

# How many of REPORT's records have a user stack that starts with the chain.
chained() { # chained REPORT
	awk 'function end_record() { if (u ~ /^chain_three chain_two chain_one main /) n++; u = "" }
		/^\t/ { if ($3 != "([kernel.kallsyms])") { f = $2; sub(/\+0x[0-9a-f]+$/, "", f); u = u f " " }
			next }
		{ end_record() } END { end_record(); print n + 0 }' "$1"
}

echo "1..12"

one_tracepoint() {
	record_chain "$work/t" -e syscalls:sys_enter_getppid || return 1
	"$TRACER" report --raw "$work/t" >"$work/report" 2>"$work/report.err" && [ ! -s "$work/report.err" ] &&
		[ "$(grep -c ' syscalls:sys_enter_getppid: ' "$work/report")" = "$CALLS" ] ||
		{ diag "$work/report.err"; return 1; }
	stacks_as_known "$work/report"
}
check "-g: each call's user stack is the chain, its kernel stack ends as ftrace's" one_tracepoint

folded() {
	"$TRACER" report --raw --folded "$work/t" >"$work/folded" || return 1
	local line count
	line=$(grep '^callchain;' "$work/folded")
	count=$(awk '/^callchain;/ { n += $NF } END { print n + 0 }' "$work/folded")
	[ "$count" = "$CALLS" ] && [[ $line == *";main;chain_one;chain_two;chain_three;"* ]] &&
		[[ $line == *";$(ftrace_stack | tac | paste -sd ';')"* ]] ||
		{ echo "# $count calls folded"; diag "$work/folded"; return 1; }
}
check "report --folded: the calls under one stack, outermost first, counts adding up" folded

# The state dump's tracer:vm_map records of the chain, against what
# /proc/PID/maps showed of its code while it lived.
maps_as_proc() {
	"$TRACER" report --raw --event tracer:vm_map "$work/t" >"$work/vm_map" || return 1
	python3 - "$work/t.procmaps" "$work/vm_map" "$(cat "$work/t.pid")" <<'EOF'
import re, sys
proc = set()
for line in open(sys.argv[1]):
    f = line.split()
    start, end = f[0].split("-")
    proc.add((int(start, 16), int(end, 16), int(f[2], 16), f[5]))
ours = set()
record = re.compile(r"pid=(\d+) reason=0 start=(\w+) end=(\w+) offset=(\w+) path=(.*)$")
for line in open(sys.argv[2]):
    m = record.search(line.rstrip("\n"))
    if m and m.group(1) == sys.argv[3]:
        ours.add((int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16), m.group(5)))
if not proc or proc != ours:
    for m in sorted(proc ^ ours):
        print("# %s: %x-%x %x %s" % ("/proc only" if m in proc else "trace only", *m))
    sys.exit(1)
EOF
}
check "the state dump's mapping records of the chain are its code mappings in /proc/PID/maps" maps_as_proc

# A command that ends at once, before the recorder could read anything of
# it: its stacks are named from the mappings its exec and its loader's
# mmap() wrote into the trace.
short_lived() {
	"$TRACER" record -g -o "$work/short" -e syscalls:sys_enter_getppid -- "$CHAIN" "$CALLS" \
		2>"$work/short.log" && "$TRACER" report --raw "$work/short" >"$work/short.report" ||
		{ diag "$work/short.log"; return 1; }
	[ "$(chained "$work/short.report")" = "$CALLS" ] &&
		"$TRACER" report --raw --event tracer:vm_map "$work/short" | grep -q "reason=1 .*path=$(realpath "$CHAIN")\$" ||
		{ head -n 20 "$work/short.report" | diag; return 1; }
}
check "a command that exits at once: every call's user stack is the chain, named" short_lived

# A child that forks and does not exec runs its parent's code: named
# through its parent's mappings (it has no mapping record of its own).
forked_child() {
	local child
	"$TRACER" record -g -o "$work/forked" -e syscalls:sys_enter_getppid -- "$CHAIN" -f "$CALLS" \
		2>"$work/forked.log" && "$TRACER" report --raw "$work/forked" >"$work/forked.report" ||
		{ diag "$work/forked.log"; return 1; }
	child=$(awk '/ syscalls:sys_enter_getppid: / { print $2; exit }' "$work/forked.report")
	[ -n "$child" ] && [ "$(chained "$work/forked.report")" = "$CALLS" ] &&
		! "$TRACER" report --raw --event tracer:vm_map "$work/forked" | grep -q " pid=$child " ||
		{ echo "# child $child"; head -n 20 "$work/forked.report" | diag; return 1; }
}
check "a forked child that did not exec: its user stacks named through its parent's mappings" forked_child

in_babeltrace2() {
	babeltrace2 "$work/t" 2>"$work/bt.err" | grep ' syscalls:sys_enter_getppid: ' >"$work/bt" || { diag "$work/bt.err"; return 1; }
	[ "$(wc -l <"$work/bt")" = "$CALLS" ] &&
		[ "$(grep -c 'kernel_frames = [1-9][0-9]*, user_frames = [4-9][0-9]*, kernel_stack = \[ \[0\] = 0x' "$work/bt")" = "$CALLS" ] ||
		{ head -n 2 "$work/bt" | diag; return 1; }
}
check "babeltrace2 reads each call's stacks from the trace's metadata" in_babeltrace2

# 64 system call events or more come from the raw sys_enter tracepoint.
raw_syscall_program() {
	record_chain "$work/raw" -e 'syscalls:sys_enter_*' || return 1
	"$TRACER" report --raw --event sys_enter_getppid "$work/raw" >"$work/raw.report" || return 1
	[ "$(grep -c ' syscalls:sys_enter_getppid: ' "$work/raw.report")" = "$CALLS" ] &&
		stacks_as_known "$work/raw.report"
}
check "-g with every sys_enter_* event (the raw system call program): the same stacks" raw_syscall_program

# A tracepoint program's stacks (system call events come from the raw
# sys_enter program with -g): a fork by a shell named tr-forker.
fork_stack() {
	local fork_event=$instance/events/sched/sched_process_fork theirs ours
	cp /bin/sh "$work/tr-forker"
	echo 'parent_comm == "tr-forker"' >"$fork_event/filter"
	echo 'stacktrace if parent_comm == "tr-forker"' >"$fork_event/trigger"
	echo >"$instance/trace"
	echo 1 >"$fork_event/enable"
	"$TRACER" record -g -o "$work/fork" -e sched:sched_process_fork -- \
		"$work/tr-forker" -c '/bin/true & wait' 2>"$work/fork.log"
	local status=$?
	echo 0 >"$fork_event/enable"
	echo '!stacktrace if parent_comm == "tr-forker"' >"$fork_event/trigger"
	[ "$status" = 0 ] && "$TRACER" report --raw "$work/fork" >"$work/fork.report" || { diag "$work/fork.log"; return 1; }
	theirs=$(ftrace_stack)
	ours=$(first_stack "$work/fork.report" kernel | tail -n "$(echo "$theirs" | wc -l)")
	[ -n "$theirs" ] && [ "$ours" = "$theirs" ] ||
		{ echo "# kernel stack, ours then ftrace's:"; echo "$ours" | diag; echo "$theirs" | diag; return 1; }
}
check "-g on a tracepoint program: sched_process_fork's kernel stack ends as ftrace's" fork_stack

kernel_only() {
	record_chain "$work/k" --call-graph kernel -e syscalls:sys_enter_getppid || return 1
	"$TRACER" report --raw "$work/k" >"$work/k.report" || return 1
	[ -z "$(first_stack "$work/k.report" user)" ] && [ -n "$(first_stack "$work/k.report" kernel)" ]
}
check "--call-graph kernel: kernel frames only" kernel_only

# A record whose frame counts run past its end is skipped with a message.
damaged_counts() {
	cp -r "$work/t" "$work/bad"
	python3 - "$work/bad" <<'EOF' || return 1
import glob, struct, sys
# The first getppid record of any packet (which packet holds one depends
# on when the buffers were flushed).
for path in sorted(glob.glob(sys.argv[1] + "/channel0_*")):
    d = bytearray(open(path, "rb").read())
    p = 0
    while p + 104 <= len(d):
        content, packet = struct.unpack_from("<QQ", d, p + 32)
        o = p + 104
        while o + 24 <= p + content // 8:
            ts, id, size = struct.unpack_from("<QII", d, o)
            if id == 0:
                struct.pack_into("<H", d, o + 24 + 12, 60000)  # getppid's raw record is 12 bytes
                open(path, "wb").write(d)
                sys.exit()
            o = p + ((o - p + 24 + size + 7) & ~7)
        p += max(packet // 8, 104)
sys.exit(1)
EOF
	"$TRACER" report --raw "$work/bad" >"$work/bad.out" 2>"$work/bad.err"
	local got=$?
	[ "$got" = 1 ] && [ "$(wc -l <"$work/bad.err")" = 1 ] &&
		grep -q 'record at offset [0-9]*: its stacks (60000 kernel and [0-9]* user frames) end at byte' "$work/bad.err" &&
		[ "$(grep -c ' syscalls:sys_enter_getppid: ' "$work/bad.out")" = $((CALLS - 1)) ] ||
		{ echo "# exit $got"; diag "$work/bad.err"; return 1; }
}
check "a record whose frame counts run past it: skipped, one line, the others print" damaged_counts

no_stacks_refused() {
	"$TRACER" record -o "$work/plain" -e syscalls:sys_enter_getppid -- true 2>/dev/null &&
		refused 2 "^tracer report: --folded: $work/plain has no call stacks \(record -g takes them\)$" \
			report --folded "$work/plain"
}
check "report --folded of a trace without stacks is refused" no_stacks_refused

check "--call-graph dwarf is refused, saying what is there" \
	refused 2 "^tracer record: --call-graph 'dwarf': must be kernel, user or both$" \
	record --call-graph dwarf -e sched:sched_switch -o "$out"

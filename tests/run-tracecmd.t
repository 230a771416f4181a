#!/usr/bin/env bash
# tracer export --format trace-cmd: a trace.dat, read by trace-cmd itself
# (Debian's trace-cmd, the oracle; KernelShark reads the same file through
# the same libtracecmd).  A known workload recorded machine-wide: every
# event trace-cmd report prints is one tracer report --raw prints, with the
# same CPU, time to the nanosecond, thread, event and field values, and as
# many; the tasks keep their names; losses are where the trace has them,
# with their number when it is known.  Bad cases fail in one line and leave
# nothing: a pipe, a damaged trace, a signal.
set -u
TEST_NAME=tracecmd
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
command -v trace-cmd >/dev/null || { echo "1..0 # SKIP trace-cmd is not installed (./setup installs it)"; exit 0; }
use_tracefs

N=300
nice -n 10 "$TRACER" record -a -o "$work/t" -e sched:sched_switch -e sched:sched_waking \
	-e sched:sched_process_exec -e 'irq:*' -e syscalls:sys_enter_getppid -e syscalls:sys_exit_getppid \
	-e raw_syscalls:sys_exit -- \
	sh -c "sh -c 'echo \$\$ >$work/getppid.pid; exec $GETPPID $N' >/dev/null" \
	>/dev/null 2>"$work/record.log"
recorded=$?

# exported DAT TRACE: the trace.dat, nothing said, nothing left beside it.
exported() {
	local dat=$1
	"$TRACER" export --format trace-cmd -o "$dat" "$2" 2>"$work/export.err" && [ ! -s "$work/export.err" ] &&
		[ -s "$dat" ] && [ -z "$(find "$(dirname "$dat")" -maxdepth 1 -name '.*' ! -name . | head -n 1)" ] ||
		{ diag "$work/export.err"; ls -la "$(dirname "$dat")" | diag; return 1; }
}
export_t() {
	[ "$recorded" = 0 ] || { diag "$work/record.log"; return 1; }
	mkdir -p "$work/out" && exported "$work/out/t.dat" "$work/t"
}
check "export --format trace-cmd writes a trace.dat, says nothing, leaves nothing else" export_t

# Lines of trace-cmd report -R -t and of tracer report --raw as
# "CPU TIME TID EVENT FIELDS", sorted (equal times on two CPUs may come in
# either order).  The command name is left out: a record names its task as
# it was then, trace.dat has one name per thread.  A trace recorded with
# --context: report's "{NAME=VALUE, ...}" after the fields is left out
# too, trace.dat has no such thing.  A tracer:recursion_misses record
# (events the kernel skipped) is a LOST line in report, an event in
# trace.dat: both become "CPU TIME - recursion_misses skipped=N since=NS"
# (the LOST line names no thread).
normalized() { # normalized trace-cmd|tracer FILE [context]
	python3 - "$@" <<'PYEOF'
import re, sys
kind, lines = sys.argv[1], open(sys.argv[2]).read().splitlines()
context = sys.argv[3:] == ["context"]
out = []
for line in lines:
    if kind == "trace-cmd":
        m = re.match(r"^\s*.*-(\d+)\s+\[(\d+)\]\s+(\d+\.\d{9}):\s+(\S+):\s*(.*)$", line)
        if not m:
            continue
        tid, cpu, ts, event, fields = m.groups()
        if event == "recursion_misses":
            tid = "-"
    else:
        m = re.match(r"^\s*\[(\d+)\]\s+(\d+\.\d{9}): LOST (\d+) events \(skipped by the kernel on any CPU"
                     r" since (\d+)\.(\d{9}): recursion misses\)$", line)
        if m:
            cpu, ts, skipped, since_s, since_ns = m.groups()
            tid, event = "-", "recursion_misses"
            fields = "skipped=%s since=%d" % (skipped, int(since_s) * 10**9 + int(since_ns))
            out.append("%d %s %s %s %s" % (int(cpu), ts, tid, event, fields))
            continue
        m = re.match(r"^\s*.*?\s(\d+)(?:/(\d+))?\s+\[(\d+)\]\s+(\d+\.\d{9}):\s+\S+:(\S+):\s*(.*)$", line)
        if not m:
            continue
        pid, tid, cpu, ts, event, fields = m.groups()
        tid = tid or pid
        if context:
            fields = re.sub(r"\s*\{[^{}]*\}$", "", fields)
    out.append("%d %s %s %s %s" % (int(cpu), ts, tid, event, " ".join(fields.split())))
for l in sorted(out):
    print(l)
PYEOF
}

# same_events TRACE DAT [context]: trace-cmd report prints the events
# tracer report --raw does (its event lines and its lines of events the
# kernel skipped: not its other LOST lines, nor the frames of a trace
# with stacks).
same_events() {
	local trace=$1 dat=$2
	trace-cmd report -R -t -i "$dat" >"$dat.report" 2>"$dat.report.err" &&
		"$TRACER" report --raw "$trace" >"$trace.raw" &&
		normalized trace-cmd "$dat.report" >"$dat.norm" && normalized tracer "$trace.raw" ${3:-} >"$trace.norm" ||
		{ diag "$dat.report.err"; return 1; }
	local want got
	want=$(grep -c -e '^ .* \[[0-9]*\] [0-9]*\.[0-9]\{9\}: [^ ]*:[^ ]*: ' -e ': recursion misses)$' "$trace.raw")
	got=$(wc -l <"$dat.norm")
	[ ! -s "$dat.report.err" ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ] &&
		[ "$(wc -l <"$trace.norm")" = "$want" ] && cmp -s "$trace.norm" "$dat.norm" || {
		echo "# tracer report --raw: $want events; trace-cmd report: $got"
		diff "$trace.norm" "$dat.norm" | head -n 6 | diag
		diag "$dat.report.err"
		return 1
	}
}
check "trace-cmd report: every event, with tracer report --raw's CPU, time, thread and field values" \
	same_events "$work/t" "$work/out/t.dat"

# The getppid process's N calls, each under its command name.
named_tasks() {
	local pid got
	pid=$(cat "$work/getppid.pid") &&
		got=$(grep -c "^ *getppid_n-$pid  *\[[0-9]*\] [0-9.]*: sys_enter_getppid:" "$work/out/t.dat.report") &&
		[ "$got" -ge "$N" ] || { echo "# $pid: ${got:-?} sys_enter_getppid named getppid_n, want $N or more"; return 1; }
}
check "trace-cmd report names the tasks as the trace does (getppid_n's $N calls)" named_tasks

# Records with stacks (-g) and context (--context): trace.dat gets the
# tracepoint's record, fields as before, the rest left to tracer's own formats.
with_stacks() {
	"$TRACER" record -g --context uid,prio -o "$work/g" -e syscalls:sys_enter_getppid -- "$GETPPID" 50 \
		>/dev/null 2>"$work/g.log" || { diag "$work/g.log"; return 1; }
	exported "$work/g.dat" "$work/g" && same_events "$work/g" "$work/g.dat" context
}
check "a trace with stacks and context: the same events and fields" with_stacks

# Losses: a flight recorder's overwritten sub-buffers (a number unknown)
# and a full buffer's discarded events (a number known) are said on the
# CPU and before the event where tracer report says them.  trace-cmd says
# a loss with the record after it: the losses no record of their CPU
# follows are said by export instead, and counted.
losses_said() { # losses_said TRACE DAT
	local trace=$1 dat=$2 want got at_end said
	"$TRACER" report "$trace" >"$trace.txt" &&
		"$TRACER" export --format trace-cmd -o "$dat" "$trace" 2>"$dat.err" &&
		trace-cmd report -i "$dat" >"$dat.txt" 2>&1 || { diag "$dat.err"; return 1; }
	want=$(python3 - "$trace.txt" <<'PYEOF'
import re, sys
pending = {}  # CPU: what trace-cmd says of the losses before its next record
for line in open(sys.argv[1]):
    m = re.search(r"\[(\d+)\] \d+\.\d{9}: (LOST (\d+) (events|sub-buffers))?", line)
    if not m:
        continue
    cpu = int(m.group(1))
    if m.group(2):
        known = m.group(4) == "events" and pending.get(cpu, 0) != -1
        pending[cpu] = pending.get(cpu, 0) + int(m.group(3)) if known else -1
    elif cpu in pending:
        n = pending.pop(cpu)
        print("CPU:%d [%sEVENTS DROPPED]" % (cpu, "%d " % n if n >= 0 else ""))
print("at end: %d" % len(pending))
PYEOF
)
	at_end=${want##*at end: }
	want=${want%at end: *}
	got=$(grep 'EVENTS DROPPED' "$dat.txt")
	said=$(grep -c "the losses at the end of $at_end CPUs are not in it" "$dat.err")
	[ -n "$want" ] && [ "$got" = "${want%$'\n'}" ] && { [ "$at_end" = 0 ] || [ "$said" = 1 ]; } ||
		{ echo "# want: $want"; echo "# got: $got"; echo "# at the end: $at_end"; diag "$dat.err"; return 1; }
}
overwritten() {
	"$TRACER" record --flight-recorder -o "$work/fr" --buffer-size 8K --subbuf-size 4K \
		-e syscalls:sys_enter_getppid -- "$GETPPID" 20000 >/dev/null 2>"$work/fr.log" ||
		{ diag "$work/fr.log"; return 1; }
	losses_said "$work/fr/snapshot-1" "$work/fr.dat"
}
check "a flight recorder's overwritten sub-buffers: [EVENTS DROPPED] on their CPU" overwritten
# The recorder is stopped while its command calls getppid 200000 times
# on CPU 0 into 8 KiB: whatever the machine's load, the buffer fills and
# discards.  Then, the recorder going again, 100 more calls there: the
# records after the loss.
discarded() {
	"$TRACER" record -o "$work/full" --buffer-size 8K --subbuf-size 4K -e syscalls:sys_enter_getppid -- \
		sh -c 'kill -STOP $PPID; taskset -c 0 "$0" 200000; kill -CONT $PPID; sleep 1; taskset -c 0 "$0" 100' \
		"$GETPPID" >/dev/null 2>"$work/full.log" || { diag "$work/full.log"; return 1; }
	losses_said "$work/full" "$work/full.dat"
}
check "a full buffer's discarded events: [N EVENTS DROPPED], N as tracer counts them" discarded

# libtracecmd sets kptr_restrict to 0 while it copies kallsyms (it
# expects /proc/kallsyms): export never lets it change that setting of
# the machine.  strace -y names the file each write goes to.
kptr_left_alone() {
	# (LeakSanitizer cannot run under ptrace: make asan's build runs without it here)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -y -e trace=write -o "$work/strace" \
		"$TRACER" export --format trace-cmd -o "$work/k.dat" "$work/g" 2>"$work/k.err" ||
		{ diag "$work/k.err"; return 1; }
	grep -q 'kptr_restrict>' "$work/strace" && ! grep -E 'kptr_restrict>, .*\) = [0-9]' "$work/strace" ||
		{ grep kptr_restrict "$work/strace" | diag; return 1; }
}
if command -v strace >/dev/null; then
	check "export of a trace with kallsyms: kptr_restrict never written (libtracecmd's attempt fails)" kptr_left_alone
else
	skip "export of a trace with kallsyms: kptr_restrict never written" "strace is not installed (./setup installs it)"
fi

# A trace whose formats name the system ".." (a directory above, for
# libtracecmd's tracing directory) or "ftrace" (trace-cmd's own): their
# records are left out and counted in one line, the rest exported.
hostile_systems() {
	local left
	cp -r "$work/t" "$work/h" &&
		sed -i 's/^\(event [0-9]* \)sched sched_switch /\1.. sched_switch /;
			s/^\(event [0-9]* \)raw_syscalls sys_exit /\1ftrace sys_exit /' "$work/h/.tracer/events" &&
		mkdir "$work/hout" && "$TRACER" export --format trace-cmd -o "$work/hout/h.dat" "$work/h" 2>"$work/h.err" &&
		trace-cmd report -i "$work/hout/h.dat" >"$work/h.txt" 2>&1 || { diag "$work/h.err"; return 1; }
	left=$(grep -Ec ': sched_switch:|: sys_exit:' "$work/out/t.dat.report")
	[ "$(ls -A "$work/hout")" = h.dat ] && [ "$(wc -l <"$work/h.err")" = 1 ] &&
		grep -q "^tracer export: $left records left out: $left of events trace.dat cannot hold" "$work/h.err" &&
		! grep -Eq ': sched_switch:|: sys_exit:' "$work/h.txt" &&
		[ "$(grep -c ': sys_enter_getppid:' "$work/h.txt")" = "$(grep -c ': sys_enter_getppid:' "$work/out/t.dat.report")" ] ||
		{ echo "# want $left left out"; diag "$work/h.err"; ls -la "$work/hout" | diag; return 1; }
}
check "event systems named '..' and 'ftrace': their records left out, counted in one line" hostile_systems

# Refusals, each in one line, nothing left behind.
to_pipe() {
	"$TRACER" export --format trace-cmd -o - "$work/t" 2>"$work/pipe.err" | cat >/dev/null
	[ "${PIPESTATUS[0]}" = 2 ] && [ "$(wc -l <"$work/pipe.err")" = 1 ] &&
		grep -q 'not a pipe' "$work/pipe.err" || { diag "$work/pipe.err"; return 1; }
}
check "export --format trace-cmd -o - into a pipe: refused in one line (trace.dat is seeked in)" to_pipe

damaged() {
	local got
	mkdir -p "$work/dmg" && cp -r "$work/t" "$work/damaged" && truncate -s 100 "$work/damaged/channel0_0" || return 1
	"$TRACER" export --format trace-cmd -o "$work/dmg/d.dat" "$work/damaged" 2>"$work/damaged.err"
	got=$?
	[ "$got" = 1 ] && [ "$(wc -l <"$work/damaged.err")" = 1 ] && [ -z "$(ls -A "$work/dmg")" ] &&
		grep -q "^tracer export: channel0_0: .*truncated" "$work/damaged.err" ||
		{ echo "# exit $got"; diag "$work/damaged.err"; ls -la "$work/dmg" | diag; return 1; }
}
check "export of a damaged trace: said in one line, exit 1, nothing written" damaged

# Ended by the file size limit's SIGXFSZ: it dies of it, nothing left.
signalled() {
	local got
	mkdir -p "$work/sig" || return 1
	{ (ulimit -f 64; exec "$TRACER" export --format trace-cmd -o "$work/sig/s.dat" "$work/t") 2>"$work/sig.err"; } 2>/dev/null
	got=$?
	[ "$got" = $((128 + $(kill -l XFSZ))) ] && [ -z "$(ls -A "$work/sig")" ] ||
		{ echo "# exit $got"; diag "$work/sig.err"; ls -la "$work/sig" | diag; return 1; }
}
check "export --format trace-cmd ended by a signal (SIGXFSZ): dies of it, nothing left" signalled

echo "1..$n"

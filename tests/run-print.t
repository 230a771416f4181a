#!/bin/bash
# report prints events as the kernel formats them, checked against an
# ftrace instance of our own on the same events at the same time: each
# event's text by its print format (sched_switch's prev_state=S ==> ...),
# the strings rcu:rcu_utilization's const char * field points to (from the
# trace's printk_formats) and the functions timer:timer_start names
# (%ps, from the trace's kallsyms).  The instance traces from before the
# recorder attaches to after it detaches, so every value report prints
# for a CPU is one ftrace printed for that CPU: a timer by its function
# and expiry time.  (Not the whole sequence: the instance has been seen
# to miss the idle task's context switch that BPF records.)  Its buffer
# keeps the newest events: what it overwrote while the recorder set up
# (seconds, on a loaded machine) is no loss, and its clock is the
# recording's (mono: CLOCK_MONOTONIC) to tell.
# Also: a damaged printk_formats is said and skipped, never trusted.
TEST_NAME=print
. "$(dirname "$0")/lib.sh"
require_root "needs root for BPF and tracefs"
use_tracefs
use_instance print

echo "1..9"

for ev in rcu/rcu_utilization timer/timer_start sched/sched_switch sched/sched_waking; do
	echo 1 >"$instance/events/$ev/enable"
done
echo 8192 >"$instance/buffer_size_kb"
echo mono >"$instance/trace_clock"
echo 1 >"$instance/tracing_on"
"$TRACER" record -a -o "$work/t" -e rcu:rcu_utilization -e timer:timer_start \
	-e sched:sched_switch -e sched:sched_waking \
	--duration 1 2>"$work/record.log"
status=$?
echo 0 >"$instance/tracing_on"
cat "$instance/trace" >"$work/ftrace.txt"
"$TRACER" report "$work/t" >"$work/report.txt" 2>"$work/report.err"
report_status=$?

# Events ftrace lost after its oldest (a full buffer in overwrite mode loses only its oldest).
lost_midway() { grep -hE '^(commit overrun|dropped events):' "$instance"/per_cpu/cpu*/stats | awk '{ s += $NF } END { print s + 0 }'; }

# Each CPU's events in ftrace's buffer start no later than the recording's first on that CPU.
ftrace_from_before() {
	python3 - "$work/report.txt" "$work/ftrace.txt" <<'EOF'
import re, sys
report, ftrace = sys.argv[1:]

def first_ns(path):     # "[000] 15011.472678902: " or ftrace's "[000] d..2. 15011.502461: "
    per_cpu = {}
    for line in open(path, errors="replace"):
        m = re.search(r"\[(\d+)\] (?:\S+ )?(\d+)\.(\d+): ", line)
        if m:
            cpu, ns = int(m.group(1)), int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, "0"))
            per_cpu[cpu] = min(ns, per_cpu.get(cpu, ns))
    return per_cpu

ours, theirs = first_ns(report), first_ns(ftrace)
late = {cpu: (theirs.get(cpu), ns) for cpu, ns in ours.items() if theirs.get(cpu, ns + 1) > ns}
for cpu, (t, o) in sorted(late.items()):
    print("# CPU %d: ftrace's oldest event at %s ns, the recording's first at %d ns" % (cpu, t, o))
sys.exit(1 if late or not ours else 0)
EOF
}

recorded_and_seen() {
	[ "$status" = 0 ] && [ "$report_status" = 0 ] && [ "$(lost_midway)" = 0 ] && ftrace_from_before ||
		{ echo "# exit $status, report's $report_status, $(lost_midway) lost midway by ftrace"
		  diag "$work/record.log" "$work/report.err"; return 1; }
}
check "the recording and its report succeed, ftrace lost nothing of its time" recorded_and_seen

# same_values EVENT: each CPU's values in report are among ftrace's of
# that CPU: the whole text, as the event's print format makes it (timer:
# "function=NAME" and "expires=N"; ftrace hashes the %p pointers).
same_values() {
	python3 - "$1" "$work/report.txt" "$work/ftrace.txt" <<'EOF'
import re, sys
event, report, ftrace = sys.argv[1:]

def values(path, ours):
    per_cpu = {}
    for line in open(path, errors="replace"):
        m = re.search(r"\[(\d+)\].*? (?:\w+:)?%s: (.*)$" % event.split(":")[1], line)
        if not m or (ours and (event + ":") not in line):
            continue
        text = m.group(2).strip()
        if event.endswith("sched_switch") and "prev_pid=0 " in text:
            continue        # the instance misses the idle task's switches (above)
        if not event.endswith("timer_start"):
            value = text
        else:
            f = re.search(r"function=(\S+)", text)
            e = re.search(r"expires=(\d+)", text)
            value = "%s %s" % (f.group(1), e.group(1)) if f and e else "?"
        per_cpu.setdefault(int(m.group(1)), []).append(value)
    return per_cpu

ours, theirs = values(report, True), values(ftrace, False)
total = sum(len(v) for v in ours.values())
print("# %s: %d in report, %d in ftrace" % (event, total,
                                             sum(len(v) for v in theirs.values())))
ok = total >= 3
for cpu, seq in ours.items():
    known = set(theirs.get(cpu, []))
    alien = [v for v in seq if v not in known]
    if alien:
        print("# CPU %d: %d of report's %s values not in ftrace's, as %r" %
              (cpu, len(alien), event, alien[:3]))
        ok = False
sys.exit(0 if ok else 1)
EOF
}

check "rcu_utilization's strings are the kernel's, as ftrace prints them" same_values rcu:rcu_utilization
check "timer_start's functions are named as ftrace names them" same_values timer:timer_start
check "sched_switch prints as ftrace prints it (prev_state=S ==> ...)" same_values sched:sched_switch
check "sched_waking prints as ftrace prints it" same_values sched:sched_waking

# babeltrace2 shows the same pointers, in hex, as the numbers export writes.
pointers_in_hex() {
	"$TRACER" export "$work/t" --event timer:timer_start --format jsonl -o "$work/t.jsonl" &&
		babeltrace2 "$work/t" >"$work/t.bt" || return 1
	python3 - "$work/t.jsonl" "$work/t.bt" <<'EOF'
import json, re, sys
ours = [json.loads(l)["fields"]["function"] for l in open(sys.argv[1])]
theirs = [int(m.group(1), 16) for m in
          (re.search(r" timer:timer_start: .*function = 0x([0-9A-F]+),", l) for l in open(sys.argv[2])) if m]
print("# %d timer_start functions, %d in babeltrace2" % (len(ours), len(theirs)))
sys.exit(0 if ours and sorted(ours) == sorted(theirs) else 1)
EOF
}
check "babeltrace2 names timer:timer_start and shows its function pointer in hex" pointers_in_hex

# A damaged printk_formats: its bad lines said and skipped, its good ones used.
cp -r "$work/t" "$work/bad"
said=$(grep -m1 -o 'rcu:rcu_utilization: .*' "$work/report.txt" | cut -d' ' -f2-)
good=$(grep -m1 -F " : \"$said\"" "$work/t/.tracer/printk_formats")
printf '%s\n' '0xzz : "x"' '0xffffffff81000000 : "a"' '0xffffffff81000000 : "no end' \
	"$(printf '0x1 : "\001\002"')" "$good" >"$work/bad/.tracer/printk_formats"
"$TRACER" report "$work/bad" >"$work/bad.txt" 2>"$work/bad.err"
check "a damaged printk_formats is said, line by line counted" \
	grep -q 'printk_formats: 4 lines that are no address and string, skipped' "$work/bad.err" ||
	diag "$work/bad.err"
check "and its good line still names its string" \
	sh -c "[ -n '$said' ] && grep -qF 'rcu:rcu_utilization: $said' '$work/bad.txt'"

# --raw prints a u8 array's bytes, as babeltrace2 shows them, whatever its
# first byte: over a TCP connection on the loopback,
# sock:inet_sock_set_state carries ::ffff:127.0.0.1 in saddr_v6, whose
# first byte is 0 (libtraceevent's text stops there: "saddr_v6=").
raw_bytes_as_babeltrace2() {
	"$TRACER" record -e sock:inet_sock_set_state -o "$work/bytes" -- python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname()); a, _ = s.accept()
c.close(); a.close(); s.close()' 2>"$work/bytes.log" || { diag "$work/bytes.log"; return 1; }
	"$TRACER" report --raw "$work/bytes" >"$work/bytes.txt" && babeltrace2 "$work/bytes" >"$work/bytes.bt" ||
		return 1
	python3 - "$work/bytes.txt" "$work/bytes.bt" <<'EOF'
import re, sys
FIELDS = ("saddr", "daddr", "saddr_v6", "daddr_v6")

def ours(line):     # " saddr_v6=ARRAY[00, 7f]", or text: "saddr_v6="
    m = [re.search(r" %s=(ARRAY\[([0-9a-f, ]*)\])?" % f, line) for f in FIELDS]
    return [[int(x, 16) for x in b.group(2).split(", ")] if b and b.group(1) else None for b in m]

def theirs(line):   # "saddr_v6 = [ [0] = 0x0, [1] = 0x7F ]"
    m = [re.search(r"\b%s = \[ ((?:\[\d+\] = 0x[0-9A-F]+(?:, )?)*) \]" % f, line) for f in FIELDS]
    return [[int(x, 16) for x in re.findall(r"0x([0-9A-F]+)", b.group(1))] if b else None for b in m]

a = [ours(l) for l in open(sys.argv[1]) if " sock:inet_sock_set_state: " in l]
b = [theirs(l) for l in open(sys.argv[2]) if " sock:inet_sock_set_state: " in l]
zero_first = sum(1 for r in b for v in r if v and v[0] == 0)
print("# %d records in report, %d in babeltrace2, %d arrays starting with 0" % (len(a), len(b), zero_first))
if a != b:
    print("# report: %r\n# babeltrace2: %r" % (a[:1], b[:1]))
sys.exit(0 if a and a == b and zero_first else 1)
EOF
}
check "report --raw prints u8 arrays' bytes as babeltrace2 shows them, a first byte 0 too" raw_bytes_as_babeltrace2

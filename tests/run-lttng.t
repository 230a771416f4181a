#!/usr/bin/env bash
# tracer export --format lttng: a trace in lttng-modules 2.13's layout,
# read by its real consumers.  A known workload recorded machine-wide:
# a process that calls getppid exactly N times, then a shell that counts
# to 300000 on a CPU (about a second when the machine is idle).  The oracles: babeltrace2 reads the export
# without a word; lttng-analyses (Debian's python3-lttnganalyses) counts
# N getppid for that process, gives the spinning shell the CPU time its
# sched_switch records say it had (worked out here from our own trace's
# JSON lines), and runs its IRQ and scheduling analyses; the metadata
# has what Trace Compass's LTTng 2.9+ layout selects and reads.
set -u
TEST_NAME=lttng
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
use_tracefs

N=500
nice -n 10 "$TRACER" record -a -o "$work/t" -e sched:sched_switch -e sched:sched_waking \
	-e sched:sched_process_fork -e sched:sched_process_exec -e sched:sched_process_exit \
	-e 'irq:*' -e syscalls:sys_enter_getppid -e syscalls:sys_exit_getppid -- \
	sh -c "sh -c 'echo \$\$ >$work/getppid.pid; exec $GETPPID $N' >/dev/null &&
	       sh -c 'echo \$\$ >$work/spin.pid; i=0; while [ \$i -lt 300000 ]; do i=\$((i + 1)); done' &&
	       dd if=/dev/zero of=$work/x bs=4k count=64 oflag=direct 2>/dev/null; rm -f $work/x" \
	>/dev/null 2>"$work/record.log"
recorded=$?

exported() {
	[ "$recorded" = 0 ] || { diag "$work/record.log"; return 1; }
	"$TRACER" export --format lttng -o "$work/l" "$work/t" 2>"$work/export.err" &&
		[ ! -s "$work/export.err" ] && [ -f "$work/l/kernel/metadata" ] &&
		ls "$work/l/kernel"/channel0_* >/dev/null ||
		{ diag "$work/export.err"; return 1; }
}
check "export --format lttng writes a session directory with the kernel trace in kernel/" exported

babeltrace2_reads() {
	babeltrace2 "$work/l" >"$work/l.bt" 2>"$work/l.bt.err" && [ ! -s "$work/l.bt.err" ] &&
		[ "$(grep -c ' syscall_entry_getppid: ' "$work/l.bt")" -ge "$N" ] ||
		{ diag "$work/l.bt.err"; return 1; }
}
check "babeltrace2 reads the export without a warning" babeltrace2_reads

# The shell that execs the helper calls getppid once itself: the count
# is N and what our own trace says that shell called before the exec.
syscallstats_counts() {
	local pid want
	pid=$(cat "$work/getppid.pid") &&
		"$TRACER" export --format jsonl -o "$work/t.jsonl" "$work/t" &&
		want=$(grep '"event":"syscalls:sys_enter_getppid"' "$work/t.jsonl" | grep -c "\"tid\":$pid,") &&
		[ "$want" -ge "$N" ] && [ "$want" -le $((N + 2)) ] &&
		timeout 600 nice -n 10 lttng-syscallstats "$work/l" >"$work/syscallstats" 2>&1 || {
		echo "# our trace: ${want:-?} getppid by $pid"
		diag "$work/syscallstats"
		return 1
	}
	# The block of our task: its header line names its TID, then " - NAME  COUNT ..." lines.
	awk -v tid="TID: $pid)" -v n="$want" '
		index($0, tid) { ours = 1; next }
		/TID: / { ours = 0 }
		ours && $1 == "-" && $2 == "getppid" { got = $3 }
		END { if (got != n) { print "# getppid: " got ", want " n; exit 1 } }' "$work/syscallstats" ||
		{ diag "$work/syscallstats"; return 1; }
}
check "lttng-syscallstats: exactly the getppid calls of the process that made them ($N, and its shell's)" syscallstats_counts

# The spinning shell's time on a CPU by its sched_switch records (in to
# out, or to the end), as a share of cputop's time range.
cputop_agrees() {
	local pid
	pid=$(cat "$work/spin.pid") &&
		timeout 600 nice -n 10 lttng-cputop "$work/l" >"$work/cputop" 2>&1 || {
		diag "$work/cputop"
		return 1
	}
	python3 - "$work/t.jsonl" "$work/cputop" "$pid" <<'PYEOF' || { diag "$work/cputop"; return 1; }
import datetime, json, re, sys
jsonl, cputop, pid = sys.argv[1], open(sys.argv[2]).read(), int(sys.argv[3])
def ns(text):  # "2026-11-27 18:39:29.175392006" -> ns of the day, all we need for a span
    day, frac = text.split(".")
    t = datetime.datetime.strptime(day, "%Y-%m-%d %H:%M:%S")
    return (t.hour * 3600 + t.minute * 60 + t.second) * 10**9 + int(frac.ljust(9, "0"))
begin, end = map(ns, re.search(r"Timerange: \[(\S+ \S+), (\S+ \S+)\]", cputop).groups())
usage = re.search(r"([\d.]+) %\s+sh \(" + str(pid) + r"\)", cputop)
if not usage:
    sys.exit("# cputop shows no sh (%d)" % pid)
ran, since = 0, {}
for line in open(jsonl):
    e = json.loads(line)
    if e["event"] != "sched:sched_switch":
        continue
    f, cpu = e["fields"], e["cpu"]
    if f["prev_pid"] == pid and cpu in since:
        ran += e["ts"] - since.pop(cpu)
    if f["next_pid"] == pid:
        since[cpu] = e["ts"]
last = max(json.loads(line)["ts"] for line in open(jsonl))
ran += sum(last - t for t in since.values())
ours = 100.0 * ran / (end - begin)
theirs = float(usage.group(1))
print("# sh (%d): lttng-cputop %.2f %%, its sched_switch records %.2f %%" % (pid, theirs, ours))
if ours <= 0 or abs(theirs - ours) > 0.02 * ours:
    sys.exit("# it never ran, or they differ by more than 2%")
PYEOF
}
check "lttng-cputop: the spinning task's CPU usage within 2% of what its sched_switch records say" cputop_agrees

analysis_runs() { # analysis_runs COMMAND: it exits 0 and says no error
	timeout 600 nice -n 10 "$1" "$work/l" >"$work/$1" 2>&1 && ! grep -qi "error" "$work/$1" ||
		{ diag "$work/$1"; return 1; }
}
# lttng-irqstats: the hard IRQs (the workload's direct writes make some)
# that tracer report --stats counts, each pair of entry and exit once;
# tracer analyze irq pairs them the same way.
irqstats_counts() {
	analysis_runs lttng-irqstats &&
		"$TRACER" report --stats "$work/t" >"$work/t.stats" &&
		"$TRACER" analyze irq --output json "$work/t" >"$work/irq.json" || return 1
	python3 - "$work/lttng-irqstats" "$work/t.stats" "$work/irq.json" <<'PYEOF'
import json, re, sys
theirs = sum(int(n) for n in re.findall(r"^\d+: <.*?>\s+(\d+)\s", open(sys.argv[1]).read(), re.M))
stats = dict((name, int(n)) for n, name in re.findall(r"^\s+(\d+)\s+irq:(irq_handler_\w+)$", open(sys.argv[2]).read(), re.M))
ours = sum(h["count"] for h in json.load(open(sys.argv[3]))["hard"])
entries, exits = stats.get("irq_handler_entry", 0), stats.get("irq_handler_exit", 0)
print("# lttng-irqstats %d hard IRQs; report --stats %d entries, %d exits; analyze irq %d" % (theirs, entries, exits, ours))
# (an IRQ cut by the trace's start or end has one record of the two)
sys.exit(0 if theirs and theirs == ours and min(entries, exits) <= theirs <= max(entries, exits) else 1)
PYEOF
}
check "lttng-irqstats: as many hard IRQs as report --stats's entry and exit records pair" irqstats_counts

# lttng-schedtop: its longest wake-up latencies, each one tracer analyze
# sched gives that task, the first the longest of all.
schedtop_latencies() {
	analysis_runs lttng-schedtop &&
		"$TRACER" analyze sched --output json "$work/t" >"$work/sched.json" || return 1
	python3 - "$work/lttng-schedtop" "$work/sched.json" <<'PYEOF'
import json, re, sys
rows = [(float(lat), int(tid)) for lat, tid in
        re.findall(r"^\[\S+, \S+\]\s+([\d.]+)\s+-?\d+\s+\d+\s+.*? \((\d+)\)", open(sys.argv[1]).read(), re.M)]
ours = {t["tid"]: t["wakeup_latency"].get("max_ns", 0) / 1e3 for t in json.load(open(sys.argv[2]))["tasks"]}
bad = [(lat, tid) for lat, tid in rows if tid not in ours or ours[tid] + 0.001 < lat]
top = rows and abs(rows[0][0] - max(ours.values())) <= 0.001
print("# %d schedtop rows, top %s us; analyze sched's longest %.3f us; %d rows beyond it"
      % (len(rows), rows[0][0] if rows else None, max(ours.values() or [0]), len(bad)))
sys.exit(0 if rows and top and not bad else 1)
PYEOF
}
check "lttng-schedtop: its longest wake-up latencies as analyze sched gives them" schedtop_latencies

# lttng-memtop, on kmem:mm_page_alloc and mm_page_free exported as
# lttng-modules' kmem_mm_page_alloc and kmem_mm_page_free: a process
# that fills 50 MiB allocates, by lttng's count, the pages our records
# say it did (lttng gives a page to the CPU's task by the switches, our
# records name their thread).  Its frees it counts only while its own
# count of pages is above 0: no more than ours.
memtop_pages() {
	"$TRACER" record -a -o "$work/km" -e sched:sched_switch -e kmem:mm_page_alloc -e kmem:mm_page_free -- \
		sh -c "echo \$\$ >$work/km.pid; exec python3 -c 'x = bytearray(50 << 20)'" >/dev/null 2>"$work/km.log" &&
		"$TRACER" export --format lttng -o "$work/km.l" "$work/km" &&
		"$TRACER" export --format jsonl -o "$work/km.jsonl" "$work/km" &&
		timeout 600 nice -n 10 lttng-memtop "$work/km.l" >"$work/memtop" 2>&1 || { diag "$work/km.log" "$work/memtop"; return 1; }
	python3 - "$work/memtop" "$work/km.jsonl" "$(cat "$work/km.pid")" <<'PYEOF'
import collections, json, re, sys
text, pid = open(sys.argv[1]).read(), int(sys.argv[3])
allocs, frees = (text.split("Per-TID Memory Deallocations") + [""])[:2]
theirs_alloc = {int(t): int(n) for n, t in re.findall(r"(\d+) pages .*? \((\d+)\)", allocs)}
theirs_free = {int(t): int(n) for n, t in re.findall(r"(\d+) pages .*? \((\d+)\)", frees)}
ours = collections.Counter()
for line in open(sys.argv[2]):
    e = json.loads(line)
    if e["event"] in ("kmem:mm_page_alloc", "kmem:mm_page_free"):
        ours[(e["tid"], e["event"])] += 1
alloc, free = ours[(pid, "kmem:mm_page_alloc")], ours[(pid, "kmem:mm_page_free")]
print("# %d: lttng-memtop %s pages allocated, %s freed; its records %d and %d"
      % (pid, theirs_alloc.get(pid), theirs_free.get(pid), alloc, free))
sys.exit(0 if alloc >= 12800 and theirs_alloc.get(pid) == alloc and theirs_free.get(pid, 0) <= free else 1)
PYEOF
}
check "lttng-memtop: a process's 50 MiB, the pages its kmem_mm_page_alloc records say" memtop_pages

# lttng-iolatencystats, on block:block_rq_issue and block_rq_complete
# exported as lttng-modules' (rwbs as its flags, the writer's tid): dd
# writing 64 pages with O_DIRECT.  lttng-iolatencystats-mi's disk
# requests are those our records pair as it pairs them (an issue and the
# next complete of the same device and sector, of as many sectors, not
# 0), with the same count, shortest and longest latency to the ns; dd's
# issued requests are writes by LTTng's rule (rwbs odd) and name dd's tid.
iolatency_agrees() {
	"$TRACER" record -a -o "$work/io" -e block:block_rq_issue -e block:block_rq_complete -- \
		sh -c "echo \$\$ >$work/io.pid; exec dd if=/dev/zero of=$work/io.x bs=4k count=64 oflag=direct" \
		>/dev/null 2>"$work/io.log" && rm -f "$work/io.x" &&
		"$TRACER" export --format lttng -o "$work/io.l" "$work/io" &&
		"$TRACER" export --format jsonl -o "$work/io.jsonl" "$work/io" &&
		babeltrace2 "$work/io.l" >"$work/io.bt" &&
		timeout 600 nice -n 10 lttng-iolatencystats-mi "$work/io.l" >"$work/io.mi" 2>/dev/null ||
		{ diag "$work/io.log"; return 1; }
	python3 - "$work/io.mi" "$work/io.jsonl" "$work/io.bt" "$(cat "$work/io.pid")" <<'PYEOF'
import json, re, sys
mi, jsonl, bt, pid = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
theirs = [0, None, None]
for result in json.load(open(mi))["results"]:
    c = result["class"]
    if (c.get("inherit") if isinstance(c, dict) else c) == "disk-latency-stats":
        for row in result["data"]:
            n, lo, hi = row[1]["value"], row[2]["value"], row[4]["value"]
            theirs = [theirs[0] + n, lo if theirs[1] is None else min(theirs[1], lo),
                      hi if theirs[2] is None else max(theirs[2], hi)]
pending, latencies = {}, []
for line in open(jsonl):
    e = json.loads(line)
    f = e.get("fields", {})
    if e["event"] == "block:block_rq_issue" and f["nr_sector"]:
        pending.setdefault(f["dev"], {})[f["sector"]] = (e["ts"], f["nr_sector"])
    elif e["event"] == "block:block_rq_complete" and f["nr_sector"]:
        issued = pending.get(f["dev"], {}).get(f["sector"])
        if issued and issued[1] == f["nr_sector"]:
            latencies.append(e["ts"] - issued[0])
            del pending[f["dev"]][f["sector"]]
ours = [len(latencies), min(latencies, default=None), max(latencies, default=None)]
issues = re.findall(r" block_rq_issue: .*?nr_sector = (\d+), bytes = \d+, tid = (\d+), rwbs = (\d+), comm = \"(\w+)\"",
                    open(bt).read())
dd = [(int(n), int(rwbs)) for n, tid, rwbs, comm in issues if comm == "dd"]
bad_dd = [d for d in dd if d[0] and d[1] % 2 == 0] + [t for n, t, r, c in issues if c == "dd" and int(t) != pid]
print("# lttng-iolatencystats: %s requests, min %s, max %s ns; our records pair %s; dd issued %d, %d not writes of its tid"
      % (theirs[0], theirs[1], theirs[2], ours, len(dd), len(bad_dd)))
sys.exit(0 if theirs == ours and ours[0] >= 64 and len(dd) >= 64 and not bad_dd else 1)
PYEOF
}
check "lttng-iolatencystats: dd's O_DIRECT writes, the disk requests our block records pair, to the ns" iolatency_agrees

# The net, power, workqueue, napi and signal events under lttng-modules'
# names, and of those it records with the kernel's own fields, the x86
# local timer vectors and ext4's (page_fault_user, whose error_code
# lttng-modules writes in 8 bits, keeps its own name: exceptions:...):
# babeltrace2 reads them without a word, as many of each as our
# records (a CPU busy all along, beside a CPU hog, has no cpu_idle: the
# signals and packets are sure to come, the others as they do);
# lttng-iousagetop gives lo the bytes sent that our
# net_dev_xmit records say (10 UDP datagrams of 1000 bytes to
# 127.0.0.1).  lttng-analyses 0.6 reads received packets as
# netif_receive_skb, lttng-modules 2.13's name is net_if_receive_skb:
# it counts none received, as on a trace of lttng-modules 2.13.
other_events_agree() {
	"$TRACER" record -a -o "$work/net" -e net:net_dev_xmit -e net:net_dev_queue -e net:netif_rx \
		-e net:netif_receive_skb -e 'power:*' -e 'workqueue:*' -e napi:napi_poll -e 'signal:*' \
		-e irq_vectors:local_timer_entry -e irq_vectors:local_timer_exit -e ext4:ext4_da_write_begin \
		-e ext4:ext4_da_write_end -e exceptions:page_fault_user -- \
		sh -c 'dd if=/dev/zero of="$0" bs=4k count=16 2>/dev/null; rm -f "$0"; python3 -c "
import socket
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.bind((\"127.0.0.1\", 0))
for i in range(10):
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"x\" * 1000, r.getsockname())
"; sleep 1 & kill -USR1 $!; wait; sleep 0.1' "$work/net.x" >/dev/null 2>"$work/net.log" &&
		"$TRACER" export --format lttng -o "$work/net.l" "$work/net" &&
		"$TRACER" export --format jsonl -o "$work/net.jsonl" "$work/net" &&
		babeltrace2 "$work/net.l" >"$work/net.bt" 2>"$work/net.bt.err" && [ ! -s "$work/net.bt.err" ] &&
		timeout 600 nice -n 10 lttng-iousagetop-mi "$work/net.l" >"$work/net.mi" 2>/dev/null ||
		{ diag "$work/net.log" "$work/net.bt.err"; return 1; }
	python3 - "$work/net.jsonl" "$work/net.bt" "$work/net.mi" <<'PYEOF'
import collections, json, re, sys
names = {"net:net_dev_xmit": "net_dev_xmit", "net:net_dev_queue": "net_dev_queue", "net:netif_rx": "net_if_rx",
         "net:netif_receive_skb": "net_if_receive_skb", "power:cpu_idle": "power_cpu_idle",
         "power:cpu_frequency": "power_cpu_frequency", "napi:napi_poll": "napi_poll",
         "signal:signal_generate": "signal_generate", "signal:signal_deliver": "signal_deliver",
         "irq_vectors:local_timer_entry": "x86_irq_vectors_local_timer_entry",
         "irq_vectors:local_timer_exit": "x86_irq_vectors_local_timer_exit",
         "ext4:ext4_da_write_begin": "ext4_da_write_begin", "ext4:ext4_da_write_end": "ext4_da_write_end",
         "exceptions:page_fault_user": "exceptions:page_fault_user"}
ours, sent = collections.Counter(), collections.Counter()
for line in open(sys.argv[1]):
    e = json.loads(line)
    name = names.get(e["event"], e["event"].split(":")[1] if e["event"].startswith("workqueue:") else None)
    if name:
        ours[name] += 1
    if e["event"] == "net:net_dev_xmit":
        sent[e["fields"]["name"]] += e["fields"]["len"]
theirs = collections.Counter(re.findall(r"^\[\S+\] \(\S+\) \S+ ([\w:]+): ", open(sys.argv[2]).read(), re.M))
differ = {n: (c, theirs.get(n)) for n, c in ours.items() if theirs.get(n) != c}
usage = {}
for result in json.load(open(sys.argv[3]))["results"]:
    c = result["class"]
    if isinstance(c, dict) and c.get("inherit") == "per-netif-top" and c["title"].endswith("[sent]"):
        usage = {row[0]["name"]: row[1]["value"] for row in result["data"]}
print("# %d kinds of event, %d records; %d kinds differ %s; lo sent: lttng-iousagetop %s, our records %d"
      % (len(ours), sum(ours.values()), len(differ), differ, usage.get("lo"), sent["lo"]))
sys.exit(0 if not differ and ours["signal_generate"] and ours["signal_deliver"] and ours["net_dev_xmit"] >= 10 and
         ours["ext4_da_write_begin"] >= 16 and ours["exceptions:page_fault_user"] and
         sent["lo"] >= 10000 and usage.get("lo") == sent["lo"] else 1)
PYEOF
}
check "net, power, workqueue, napi, signal, x86 vector and ext4 events under LTTng's names; lttng-iousagetop's bytes sent on lo" \
	other_events_agree

# Trace Compass picks its LTTng 2.9+ kernel layout by the env, then reads
# these events' fields (issue 35).
trace_compass_layout() {
	python3 - "$work/l/kernel/metadata" <<'PYEOF'
import re, sys
meta = open(sys.argv[1]).read()
env = dict(re.findall(r'^\t(\w+) = "?([^";]*)"?;$', re.search(r"env \{(.*?)\n\};", meta, re.S).group(1), re.M))
want_env = {"domain": "kernel", "tracer_name": "lttng-modules", "tracer_major": "2", "tracer_minor": "13"}
bad = {k: env.get(k) for k, v in want_env.items() if env.get(k) != v}
for key in ("sysname", "kernel_release", "hostname"):
    if not env.get(key):
        bad[key] = None
events = {m.group(1): set(re.findall(r"\s_(\w+)(?:\[\d+\])?;", m.group(2)))
          for m in re.finditer(r'event \{\n\tname = "(\w+)";.*?fields := struct \{(.*?)\n\t\};', meta, re.S)}
# Those this workload has records of, then those the machine may not have had.
want = {
    "sched_switch": "prev_comm prev_tid prev_state prev_prio next_comm next_tid next_prio",
    "sched_process_fork": "parent_tid child_comm child_tid child_pid",
    "lttng_statedump_process_state": "tid pid ppid status name",
    "sched_waking": "comm tid prio target_cpu",
    "sched_process_exit": "tid",
}
if_recorded = {
    "irq_handler_entry": "irq name", "irq_handler_exit": "irq ret",
    "irq_softirq_entry": "vec", "irq_softirq_exit": "vec", "irq_softirq_raise": "vec",
}
for name, fields in list(want.items()) + [i for i in if_recorded.items() if i[0] in events]:
    missing = set(fields.split()) - events.get(name, set())
    if missing:
        bad[name] = sorted(missing)
if not re.search(r"packet\.context := struct \{[^}]*uint32_t cpu_id;", meta):
    bad["packet.context"] = "no cpu_id"
if bad:
    sys.exit("# %s" % bad)
PYEOF
}
check "the metadata selects Trace Compass's LTTng 2.9+ layout and has the fields it reads" trace_compass_layout

# A trace whose stream is cut mid-packet: one line, exit 1, no directory.
damaged_trace() {
	cp -r "$work/t" "$work/damaged" || return 1
	local stream
	stream=$(ls "$work/damaged"/channel0_* | head -1)
	truncate -s 100 "$stream"
	"$TRACER" export --format lttng -o "$work/damaged.l" "$work/damaged" 2>"$work/damaged.err"
	local got=$?
	[ "$got" = 1 ] && [ "$(wc -l <"$work/damaged.err")" = 1 ] && [ ! -e "$work/damaged.l" ] &&
		grep -q "^tracer export: channel0_0: .*truncated" "$work/damaged.err" ||
		{ echo "# exit $got"; diag "$work/damaged.err"; return 1; }
}
check "a damaged trace: the export says so in one line, exits 1 and leaves no directory" damaged_trace

# A signal that ends export ends this export too, which is then removed:
# the file size limit's SIGXFSZ, at the first write past 512 KiB.
signalled() {
	"$TRACER" record -e syscalls:sys_enter_getppid -e syscalls:sys_exit_getppid -o "$work/big" \
		-- "$GETPPID" 100000 >/dev/null 2>&1 || { echo "# no trace"; return 1; }
	export_signalled lttng "$work/big" 512
}
check "export --format lttng ended by a signal (SIGXFSZ): the directory removed, export dies of it" signalled

echo "1..$n"

#!/usr/bin/env bash
# tracer export: the events report shows, into a file, as text, JSON
# lines, the Trace Event Format, Perfetto's protobuf trace or a CTF copy;
# and report --stats, the same events counted.  The oracles: babeltrace2 reads the
# same trace (every event's fields and context, as JSON says them),
# python3's json module reads every line, protoc decodes Perfetto's format
# by its published field numbers, and report itself for the text and the
# filters.  A full disk is a tmpfs of this test's, a full device /dev/full.
set -u
TEST_NAME=export
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
use_tracefs

"$TRACER" record -o "$work/t" --context uid,nice -e sched:sched_switch -e sched:sched_process_exec \
	-e syscalls:sys_enter_getppid -- "$GETPPID" 200 >/dev/null 2>"$work/record.log"
recorded=$?

exported() { # exported FORMAT FILE ARGS...: export of $work/t
	local format=$1 file=$2
	shift 2
	"$TRACER" export --format "$format" -o "$file" "$@" "$work/t" 2>"$file.err" &&
		[ ! -s "$file.err" ] || { diag "$work/record.log" "$file.err"; return 1; }
}

text_is_report() {
	[ "$recorded" = 0 ] && exported text "$work/t.txt" && "$TRACER" report "$work/t" >"$work/t.report" &&
		[ "$(grep -c ' syscalls:sys_enter_getppid: ' "$work/t.report")" = 200 ] &&
		cmp "$work/t.report" "$work/t.txt"
}
check "export --format text is report's output, byte for byte" text_is_report

# Every JSON line against report's line of the same event (time, CPU,
# task, event), in the same order.
jsonl_as_report() {
	exported jsonl "$work/t.jsonl" || return 1
	python3 - "$work/t.jsonl" "$work/t.report" <<'EOF'
import json, re, sys
events = [json.loads(line) for line in open(sys.argv[1])]
line_re = re.compile(r"^ *(.*?) +(\d+)(?:/(\d+))? +\[(\d+)\] +(\d+)\.(\d{9}): (\S+): ")
report = [m for m in map(line_re.match, open(sys.argv[2])) if m]
if len(events) != len(report) or not events:
    sys.exit("# %d JSON lines, %d report lines" % (len(events), len(report)))
for e, m in zip(events, report):
    comm, pid, tid, cpu, s, ns, name = m.groups()
    want = (comm, int(pid), int(tid or pid), int(cpu), int(s) * 10**9 + int(ns), name + ":")
    got = (e["comm"], e["pid"], e["tid"], e["cpu"], e["ts"], e["event"] + ":")
    if got != want:
        sys.exit("# JSON %s, report %s" % (got, want))
EOF
}
check "export --format jsonl: every line is JSON, and its time, CPU, task and event are report's" jsonl_as_report

# The fields (and context) of each event as babeltrace2 prints them from
# the CTF metadata, as a multiset: events of equal times may come in
# another order there.
jsonl_as_babeltrace2() {
	babeltrace2 "$work/t" >"$work/t.bt" 2>"$work/t.bt.err" || { diag "$work/t.bt.err"; return 1; }
	python3 - "$work/t.jsonl" "$work/t.bt" <<'EOF'
import collections, json, re, sys
ours = collections.Counter()
for line in open(sys.argv[1]):
    e = json.loads(line)
    fields = dict(e["fields"], pid_tid=(e["pid"], e["tid"]))
    fields.update(("context_" + k, v) for k, v in e.get("context", {}).items())
    ours[(e["event"], tuple(sorted(fields.items())))] += 1
theirs = collections.Counter()
event_re = re.compile(r"\) \S+ (\w+:\w+): \{[^}]*\}, \{ tracer_payload_size = \d+, pid = (\d+), tid = (\d+) \}, \{ (.*) \}$")
pair_re = re.compile(r'(\w+) = ("(?:[^"\\]|\\.)*"|0x[0-9A-F]+|-?\d+)')
names = {name for name, _ in ours}
for line in open(sys.argv[2]):
    m = event_re.search(line)
    if not m or m.group(1) not in names:
        continue
    fields = {"pid_tid": (int(m.group(2)), int(m.group(3)))}
    for k, v in pair_re.findall(m.group(4)):
        if k.startswith("common_") or k.endswith(("_offset", "_length")):
            continue
        fields[k] = json.loads(v) if v.startswith('"') else int(v, 0)
    theirs[(m.group(1), tuple(sorted(fields.items())))] += 1
if ours != theirs or not ours:
    for k in list((ours - theirs).keys())[:3]:
        print("# ours only:", k)
    for k in list((theirs - ours).keys())[:3]:
        print("# babeltrace2's only:", k)
    sys.exit(1)
EOF
}
check "every exported event's fields and context are babeltrace2's reading of the trace" jsonl_as_babeltrace2

# --start/--end: the 50th to the 150th getppid call, in absolute times
# and after the trace's first record (the state dump's, which report
# shows only when asked), select exactly the events between them; report
# agrees.
time_window() {
	local start end first rel_start rel_end
	exported jsonl "$work/all.jsonl" --event '*' || return 1
	read -r first start end < <(python3 - "$work/all.jsonl" <<'EOF'
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
calls = [e["ts"] for e in events if e["event"] == "syscalls:sys_enter_getppid"]
print(events[0]["ts"], calls[49], calls[149])
EOF
)
	secs() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }
	rel_start=+$(secs $((start - first)))
	rel_end=+$(secs $((end - first)))
	exported jsonl "$work/w.jsonl" --start "$(secs "$start")" --end "$(secs "$end")" &&
		exported jsonl "$work/r.jsonl" --start "$rel_start" --end "$rel_end" || return 1
	local want
	want=$(python3 -c "
import json, sys
print(sum($start <= json.loads(l)['ts'] <= $end for l in open('$work/t.jsonl')))")
	[ "$(wc -l <"$work/w.jsonl")" = "$want" ] && cmp -s "$work/w.jsonl" "$work/r.jsonl" &&
		[ "$(grep -c '"syscalls:sys_enter_getppid"' "$work/w.jsonl")" = 101 ] &&
		[ "$("$TRACER" report --start "$rel_start" --end "$rel_end" "$work/t" | wc -l)" = "$want" ] ||
		{ echo "# want $want events from $start to $end ($rel_start to $rel_end)"; wc -l "$work/w.jsonl" "$work/r.jsonl" | diag; return 1; }
}
check "--start and --end, absolute or after the first record: exactly the events between" time_window

filters_as_report() {
	local pid
	pid=$(python3 -c "
import json
print(next(json.loads(l)['pid'] for l in open('$work/t.jsonl') if 'getppid' in l))")
	exported jsonl "$work/p.jsonl" --pid "$pid" --event 'syscalls:*' --cpu 0-1 &&
		[ "$(wc -l <"$work/p.jsonl")" = 200 ] &&
		[ "$("$TRACER" report --pid "$pid" --event 'syscalls:*' --cpu 0-1 "$work/t" | wc -l)" = 200 ]
}
check "--pid, --event and --cpu select as report's do" filters_as_report

# chrome-json from a system-wide recording of switches while two copies
# of the workload run, one per CPU: python3 reads the document; its slices
# are the switches (lane, start and task, as the JSON lines export says),
# never overlap on a CPU, never put a thread on two CPUs at once, and its
# instant events are report's records.
# The workload runs under a name of this test's own (WORKER), so that a
# getppid_n another test runs beside it on the machine is no worker here.
WORKER=gpx$$
chrome_json() {
	cp "$GETPPID" "$work/$WORKER" &&
	"$TRACER" record -a -o "$work/s" -e sched:sched_switch -e syscalls:sys_enter_getppid -- \
		sh -c "taskset -c 0 $work/$WORKER 300 & taskset -c 1 $work/$WORKER 300; wait" >/dev/null 2>"$work/s.log" &&
		"$TRACER" export --format jsonl -o "$work/s.jsonl" "$work/s" &&
		"$TRACER" export --format chrome-json -o "$work/s.json" "$work/s" 2>"$work/s.err" &&
		[ ! -s "$work/s.err" ] || { diag "$work/s.log" "$work/s.err"; return 1; }
	python3 - "$work/s.json" "$work/s.jsonl" "$WORKER" <<'EOF'
import collections, decimal, json, sys
worker = sys.argv[3]
doc = json.load(open(sys.argv[1]), parse_float=decimal.Decimal)
events = [json.loads(line) for line in open(sys.argv[2])]
ns = lambda us: int(us * 1000)
cpus_pid = 4194305
slices = [e for e in doc["traceEvents"] if e["ph"] == "X"]
instants = [e for e in doc["traceEvents"] if e["ph"] == "i" and e["s"] == "t"]
names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M"}
problems = []
switches = [e for e in events if e["event"] == "sched:sched_switch"]
want = collections.Counter((e["cpu"], e["ts"], e["fields"]["next_pid"], e["fields"]["next_comm"])
                           for e in switches if e["fields"]["next_pid"])
got = collections.Counter((s["tid"], ns(s["ts"]), s["args"]["tid"], s["name"]) for s in slices)
if not switches or got != want or any(s["pid"] != cpus_pid or s["dur"] < 0 for s in slices):
    problems.append("%d slices, %d switches to a task" % (len(slices), sum(want.values())))
def overlaps(spans):
    spans.sort()
    return any(a[1] > b[0] for a, b in zip(spans, spans[1:]))
by_cpu, by_tid = collections.defaultdict(list), collections.defaultdict(list)
for s in slices:
    span = (ns(s["ts"]), ns(s["ts"]) + ns(s["dur"]))
    by_cpu[s["tid"]].append(span)
    by_tid[s["args"]["tid"]].append(span)
if any(overlaps(v) for v in by_cpu.values()):
    problems.append("slices overlap on a CPU")
if any(overlaps(v) for v in by_tid.values()):
    problems.append("a thread on two CPUs at once")
if [(ns(i["ts"]), i["tid"], i["name"]) for i in instants] != [(e["ts"], e["tid"], e["event"]) for e in events]:
    problems.append("%d instant events, %d records" % (len(instants), len(events)))
workers = {e["tid"] for e in events if e["comm"] == worker}
if len(workers) != 2 or any(names.get((e["pid"], e["tid"])) != worker for e in events if e["tid"] in workers):
    problems.append("the workers %s are not named %s" % (workers, worker))
if names.get((cpus_pid, None)) != "CPUs" or names.get((cpus_pid, 0)) != "CPU 0":
    problems.append("no CPU tracks")
for p in problems:
    print("# " + p)
sys.exit(1 if problems else 0)
EOF
}
check "export --format chrome-json: slices as the switches say, never overlapping; records as instants" chrome_json

# perfetto: protoc decodes the file by the field numbers Perfetto publishes
# (tests/perfetto/trace_subset.proto); the switches are ftrace events in
# their CPU's bundles with the fields and times the JSON lines export has,
# the other records instant track events on their threads' described
# tracks, and the workers are named in the process tree.
perfetto() {
	if ! command -v protoc >/dev/null; then
		echo "# protoc is not installed (./setup installs protobuf-compiler)"
		return 1
	fi
	"$TRACER" export --format perfetto -o "$work/s.pftrace" "$work/s" 2>"$work/s.pf.err" &&
		[ ! -s "$work/s.pf.err" ] &&
		protoc --proto_path="$(dirname "$0")/perfetto" --decode=perfetto.protos.Trace trace_subset.proto \
			<"$work/s.pftrace" >"$work/s.pf.txt" 2>"$work/s.protoc.err" &&
		[ ! -s "$work/s.protoc.err" ] || { diag "$work/s.pf.err" "$work/s.protoc.err"; return 1; }
	python3 - "$work/s.pf.txt" "$work/s.jsonl" "$WORKER" <<'EOF'
import collections, json, re, sys
worker = sys.argv[3]

def parse(lines):
    node = collections.defaultdict(list)
    for line in lines:
        line = line.strip()
        if line == "}":
            return node
        if line.endswith(" {"):
            node[line[:-2]].append(parse(lines))
        else:
            key, value = line.split(": ", 1)
            node[key].append(json.loads(value) if value.startswith('"') else
                             int(value) if re.match(r"^-?\d+$", value) else value)
    return node

trace = parse(iter(open(sys.argv[1])))
packets = trace["packet"]
events = [json.loads(line) for line in open(sys.argv[2])]
problems = []
first = packets[0]
if first["sequence_flags"] != [1] or first["trusted_packet_sequence_id"] != [1] or \
        first["clock_snapshot"][0]["primary_trace_clock"] != [6]:
    problems.append("no clock snapshot first")
ours = collections.Counter()
for p in packets:
    for bundle in p["ftrace_events"]:
        for e in bundle["event"]:
            for s in e["sched_switch"]:
                ours[(bundle["cpu"][0], e["timestamp"][0], e["pid"][0], s["prev_pid"][0],
                      s["next_pid"][0], s["next_comm"][0], s["prev_state"][0])] += 1
want = collections.Counter((e["cpu"], e["ts"], e["tid"], e["fields"]["prev_pid"], e["fields"]["next_pid"],
                            e["fields"]["next_comm"], e["fields"]["prev_state"])
                           for e in events if e["event"] == "sched:sched_switch")
if not want or ours != want:
    problems.append("%d switches in bundles, %d recorded" % (sum(ours.values()), sum(want.values())))
tracks = {d["uuid"][0]: d["thread"][0] for p in packets for d in p["track_descriptor"]}
instants = [(p["timestamp"][0], p["track_event"][0]) for p in packets if p["track_event"]]
others = [e for e in events if e["event"] != "sched:sched_switch"]
if [(ts, t["name"][0]) for ts, t in instants] != [(e["ts"], e["event"]) for e in others] or \
        any(t["type"] != ["TYPE_INSTANT"] or tracks.get(t["track_uuid"][0], {}).get("tid") != [e["tid"]]
            for (ts, t), e in zip(instants, others)):
    problems.append("%d track events, %d other records" % (len(instants), len(others)))
if any(t["debug_annotations"][0]["name"] != ["__syscall_nr"] for ts, t in instants):
    problems.append("getppid's field is not annotated")
threads = {t["tid"][0]: (t["name"][0], t["tgid"][0]) for p in packets for tree in p["process_tree"]
           for t in tree["threads"]}
workers = {(e["tid"], e["pid"]) for e in events if e["comm"] == worker}
if len(workers) != 2 or any(threads.get(tid) != (worker, pid) for tid, pid in workers):
    problems.append("the workers %s are not in the process tree" % workers)
for p in problems:
    print("# " + p)
sys.exit(1 if problems else 0)
EOF
}
check "export --format perfetto: protoc reads it by Perfetto's field numbers; switches, instants, names" perfetto

# report --stats against babeltrace2's event counts and report's own lines.
stats_as_counted() {
	"$TRACER" report --stats "$work/t" >"$work/t.stats" || return 1
	python3 - "$work/t.stats" "$work/t.report" "$work/t.bt" "$work/all.jsonl" <<'EOF'
import collections, re, sys
stats = open(sys.argv[1]).read().split("\n\n")
head = re.match(r"(\d+) events from (\d+\.\d{9}) to (\d+\.\d{9}) \(\d+\.\d{9} s\), 0 lost, 0 sub-buffers overwritten$", stats[0])
def table(text):
    return {tuple(line.split()[1:]): int(line.split()[0]) for line in text.splitlines()[1:]}
events, tasks, cpus = table(stats[1]), table(stats[2]), table(stats[3])
line_re = re.compile(r"^ *(.*?) +(\d+(?:/\d+)?) +\[(\d+)\] +(\d+\.\d{9}): (\S+):")
lines = [m.groups() for m in map(line_re.match, open(sys.argv[2])) if m]
bt = collections.Counter(m.group(1) for m in map(re.compile(r"\) \S+ (\w+:\w+): ").search, open(sys.argv[3])) if m)
want_events = collections.Counter(l[4] for l in lines)
problems = []
if not head or int(head.group(1)) != len(lines):
    problems.append("head: " + stats[0])
elif (head.group(2), head.group(3)) != (lines[0][3], lines[-1][3]):
    problems.append("span %s to %s, report's %s to %s" % (head.group(2), head.group(3), lines[0][3], lines[-1][3]))
if {k[0]: v for k, v in events.items()} != want_events:
    problems.append("events %s, report's %s" % (events, dict(want_events)))
if any(bt[name] != n for name, n in want_events.items()):
    problems.append("babeltrace2 counts %s" % dict(bt))
# A task under its last name; report's lines name it as it was named then.
if {k[-1]: v for k, v in tasks.items()} != collections.Counter(l[1] for l in lines):
    problems.append("tasks %s" % tasks)
if {int(k[2]): v for k, v in cpus.items()} != collections.Counter(int(l[2]) for l in lines):
    problems.append("cpus %s" % cpus)
for p in problems:
    print("# " + p)
sys.exit(1 if problems else 0)
EOF
}
check "report --stats: the span, and events by type (as babeltrace2 counts them), task and CPU" stats_as_counted

# A flight recorder's 8 KiB buffers overwritten many times over by 20000
# calls: --stats counts the sub-buffers report's LOST lines say are gone.
stats_of_losses() {
	"$TRACER" record --flight-recorder -o "$work/fr" --buffer-size 8K --subbuf-size 4K \
		-e syscalls:sys_enter_getppid -- "$GETPPID" 20000 >/dev/null 2>"$work/fr.log" &&
		mv "$work/fr/snapshot-1" "$work/lossy" &&
		"$TRACER" report "$work/lossy" >"$work/lossy.report" &&
		"$TRACER" report --stats "$work/lossy" >"$work/lossy.stats" || { diag "$work/fr.log"; return 1; }
	local gone events
	gone=$(awk '/: LOST [0-9]+ sub-buffers overwritten/ { for (i = 1; i <= NF; i++) if ($i == "LOST") n += $(i + 1) }
		END { print n + 0 }' "$work/lossy.report")
	events=$(grep -c ' syscalls:sys_enter_getppid: ' "$work/lossy.report")
	[ "$gone" -gt 0 ] &&
		head -n 1 "$work/lossy.stats" | grep -q "^$events events from .*, 0 lost, $gone sub-buffers overwritten$" &&
		[ "$(awk '$NF ~ /^[0-9]+$/ && NF == 4 { n += $3 } END { print n + 0 }' "$work/lossy.stats")" = "$gone" ] ||
		{ echo "# $events events, $gone sub-buffers overwritten in report"; diag "$work/lossy.stats"; return 1; }
}
check "report --stats: the losses report shows, in total and by CPU" stats_of_losses

# ctf: a copy of the trace, whole, cut to a time window, and of a trace
# with losses; report prints each as it prints the original with the same
# selection, and babeltrace2 reads them.
same_report() { # same_report COPY ORIGINAL [REPORT-ARGS...]: report of the copy is the original's
	local copy=$1 original=$2
	shift 2
	"$TRACER" report "$copy" >"$copy.report" 2>"$copy.report.err" &&
		"$TRACER" report "$@" "$original" >"$copy.want" 2>&1 &&
		[ ! -s "$copy.report.err" ] && [ -s "$copy.want" ] && cmp -s "$copy.report" "$copy.want" &&
		babeltrace2 "$copy" >"$copy.bt" 2>"$copy.bt.err" ||
		{ echo "# $copy"; diff "$copy.want" "$copy.report" | head -n 5 | diag; diag "$copy.report.err" "$copy.bt.err"; return 1; }
}

ctf_copies() {
	local start end
	read -r start end < <(awk '/ syscalls:sys_enter_getppid: / { n++; sub(":", "", $4)
		if (n == 50) s = $4; if (n == 150) { print s, $4; exit } }' "$work/t.report")
	"$TRACER" export --format ctf -o "$work/whole" "$work/t" &&
		"$TRACER" export --format ctf -o "$work/window" --start "$start" --end "$end" "$work/t" &&
		"$TRACER" export --format ctf -o "$work/lossy.copy" "$work/lossy" || return 1
	same_report "$work/whole" "$work/t" && same_report "$work/window" "$work/t" --start "$start" --end "$end" &&
		same_report "$work/lossy.copy" "$work/lossy" &&
		[ "$(grep -c ' syscalls:sys_enter_getppid: ' "$work/window.report")" = 101 ] &&
		grep -q ': LOST [0-9]* sub-buffers overwritten' "$work/lossy.copy.report" ||
		{ echo "# no 101 calls in the window, or no losses in the copy"; return 1; }
}
check "export --format ctf: whole, a time window, with losses; report and babeltrace2 read each copy" ctf_copies

# The copy's bytes are the trace's and zeros: glibc fills what malloc hands
# out with a different byte each time (MALLOC_PERTURB_), so padding copied
# from the heap would make two copies differ.
ctf_copy_no_heap() {
	MALLOC_PERTURB_=85 "$TRACER" export --format ctf -o "$work/perturb1" "$work/t" &&
		MALLOC_PERTURB_=170 "$TRACER" export --format ctf -o "$work/perturb2" "$work/t" || return 1
	diff -r "$work/perturb1" "$work/perturb2" | head -n 3 | diag
	diff -r -q "$work/perturb1" "$work/perturb2" >/dev/null
}
check "export --format ctf: no byte of the copy comes from the heap (two copies, heaps filled unlike)" ctf_copy_no_heap

check "export --format ctf into a directory that exists is refused" \
	refused 2 "^tracer export: .*$(literally "$work/whole").*" export --format ctf -o "$work/whole" "$work/t"

# A damaged trace is copied whole or not at all: the problem said, exit 1,
# no directory (a copy cut short is no copy).
ctf_copy_damaged() {
	local got
	cp -r "$work/t" "$work/damaged" && truncate -s 100 "$work/damaged/channel0_0" || return 1
	"$TRACER" export --format ctf -o "$work/damaged.ctf" "$work/damaged" 2>"$work/damaged.err"
	got=$?
	[ "$got" = 1 ] && [ "$(wc -l <"$work/damaged.err")" = 1 ] && [ ! -e "$work/damaged.ctf" ] &&
		grep -q "^tracer export: channel0_0: .*truncated" "$work/damaged.err" ||
		{ echo "# exit $got"; diag "$work/damaged.err"; ls -la "$work/damaged.ctf" 2>&1 | diag; return 1; }
}
check "export --format ctf of a damaged trace: said in one line, exit 1, no directory" ctf_copy_damaged

# A signal that ends export ends a CTF copy too, which is then removed:
# the file size limit's SIGXFSZ is such a signal, and it comes at a known
# point, the first write past the limit: here 1 MiB into a 4 MiB copy.
ctf_copy_signalled() {
	"$TRACER" record -e syscalls:sys_enter_getppid -o "$work/big" -- "$GETPPID" 100000 2>/dev/null &&
		[ "$(du -sk "$work/big" | cut -f1)" -ge 3072 ] || { echo "# no 3 MiB trace"; return 1; }
	export_signalled ctf "$work/big" 1024
}
check "export --format ctf ended by a signal (SIGXFSZ): the copy removed, export dies of it" ctf_copy_signalled

# On a terminal (script gives it one) export says what it did; on a pipe
# nothing (exported() checks every other export's stderr is empty).
progress_on_terminal() {
	script -qec "$TRACER export --format text -o $work/tty.txt $work/t" /dev/null >"$work/tty.out" &&
		grep -q "tracer export: [0-9]* records in [0-9.]* s" "$work/tty.out" && cmp -s "$work/tty.txt" "$work/t.txt" ||
		{ diag "$work/tty.out"; return 1; }
}
check "export on a terminal says how many records it wrote and how fast" progress_on_terminal

# A disk that fills: the export says so, exits 1, and leaves no file cut short.
full_disk() {
	mkdir "$work/small" && mount -t tmpfs -o size=16k tracer-export-test "$work/small" || return 1
	at_exit "umount $work/small"
	"$TRACER" export --format jsonl -o "$work/small/t.jsonl" "$work/t" 2>"$work/small.err"
	local got=$?
	[ "$got" = 1 ] && [ ! -e "$work/small/t.jsonl" ] &&
		grep -qx "tracer export: writing $work/small/t.jsonl failed: No space left on device" "$work/small.err" ||
		{ echo "# exit $got"; diag "$work/small.err"; ls -la "$work/small" | diag; return 1; }
}
check "a full disk: export says so in one line, exits 1, and removes what it wrote" full_disk

check "-o /dev/full: the device is left alone, the failure said" \
	refused 1 "^tracer export: writing /dev/full failed: No space left on device$" \
	export --format text -o /dev/full "$work/t"
check "--format is one export knows" \
	refused 2 "^tracer export: --format 'xml': must be text, jsonl, chrome-json, perfetto, ctf, lttng or trace-cmd$" export --format xml -o "$out" "$work/t"
check "export without -o is refused, saying what it needs" \
	refused 2 "^tracer export: export needs --format \(text, jsonl, chrome-json, perfetto, ctf, lttng or trace-cmd\) and -o FILE \(- for standard output\)$" \
	export --format jsonl "$work/t"
check "a bad --start is refused" \
	refused 2 "^tracer export: --start '1.2.3': not a time" export --format jsonl --start 1.2.3 -o "$out" "$work/t"

# A link planted where the file goes is not followed.
no_link_followed() {
	echo keep >"$work/target"
	ln -s "$work/target" "$work/link"
	! "$TRACER" export --format text -o "$work/link" "$work/t" 2>"$work/link.err" &&
		[ "$(cat "$work/target")" = keep ] && grep -q "cannot write $work/link" "$work/link.err"
}
check "-o onto a symbolic link: not followed, refused" no_link_followed

echo "1..$n"

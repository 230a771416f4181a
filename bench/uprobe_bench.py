# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Workload 8: what a uprobe costs per call.  build/bench/uprobe_target
calls bench_probed(a, b) --uprobe-calls times and times its own loop:
untraced, while `tracer record -e uprobe:TARGET:bench_probed` records
every call with its arguments, while bpftrace prints them
(`uprobe:TARGET:bench_probed { printf("%d %d\\n", arg0, arg1) }`), and while
`perf record` records the `perf probe -x TARGET bench_probed a b` event,
each starting the target itself once its probe is in place; interleaved
over rounds (bench/README.md).  ns per call; each recorder's events are
counted from its own output, so a recorder that loses events shows it."""

import os
import re
import shutil
import subprocess
import tempfile

from benchlib import Child, interleaved, row

FUNCTION = "bench_probed"
PERF_GROUP = "probe_uprobe_target"


def configs(opts, target, tmp):
    loop = os.path.join(tmp, "loop")
    run = [target, str(opts.uprobe_calls), loop]
    trace = os.path.join(tmp, "tracer.data")
    return {
        "none": ("no tracing", run),
        "tracer": ("**tracer record** (uprobe, a and b)",
                   [opts.tracer, "record", "--force", "-o", trace, "-e",
                    "uprobe:%s:%s" % (target, FUNCTION), "--"] + run),
        "bpftrace": ("bpftrace printf of arg0, arg1",
                     ["bpftrace", "-o", os.path.join(tmp, "bpftrace.out"), "-e",
                      'uprobe:%s:%s { printf("%%d %%d\\n", arg0, arg1); }' % (target, FUNCTION),
                      "-c", " ".join(run)]),
        "perf": ("perf record of a perf probe -x event (a, b)",
                 ["perf", "record", "-q", "-o", os.path.join(tmp, "perf.data"), "-e",
                  "%s:%s" % (PERF_GROUP, FUNCTION), "--"] + run),
    }


def recorded(key, tmp, log):
    """Events the recorder kept, from its own output."""
    if key == "tracer":
        m = re.search(r"^\s*(\d+)\s+uprobe:%s$" % FUNCTION, log, re.M)
        return int(m.group(1)) if m else 0
    if key == "bpftrace":
        with open(os.path.join(tmp, "bpftrace.out")) as f:
            return sum(1 for line in f if re.match(r"^-?\d+ -?\d+$", line))
    if key == "perf":
        out = subprocess.run(["perf", "script", "-i", os.path.join(tmp, "perf.data"), "-F",
                              "event"], capture_output=True, text=True).stdout
        return sum(1 for line in out.splitlines() if FUNCTION in line)
    return None


def run_once(key, argv, tmp, meter):
    """ns per call of one run, and the events its recorder kept."""
    loop = os.path.join(tmp, "loop")
    if os.path.exists(loop):
        os.unlink(loop)
    log = os.path.join(tmp, key + ".log")
    meter.start()
    child = Child(argv, log)
    status = child.reap()
    meter.stop([(child.p.pid, child.rusage)])
    text = child.log_text()
    if status or not os.path.exists(loop):
        raise RuntimeError("%s exited with status %s: %s" % (key, status, text[-400:]))
    with open(loop) as f:
        ns = int(f.read().split()[0])
    return ns, recorded(key, tmp, text)


def perf_probe(target, add):
    """Add (or delete) perf's uprobe event on the target: top-level tracefs state."""
    if add:
        subprocess.run(["perf", "probe", "-q", "-x", target, "%s a b" % FUNCTION], check=True,
                       capture_output=True)
    else:
        subprocess.run(["perf", "probe", "-q", "-d", "%s:*" % PERF_GROUP], capture_output=True)


def run(opts):
    target = os.path.abspath(os.path.join(opts.build, "bench", "uprobe_target"))
    tmp = tempfile.mkdtemp(prefix="tracer-bench-uprobe-")
    calls = opts.uprobe_calls
    try:
        perf_probe(target, True)
        progs = configs(opts, target, tmp)
        order = list(progs)
        results, disturbed = interleaved(opts, "uprobe", order,
                                         lambda key, m: run_once(key, progs[key][1], tmp, m),
                                         lambda r: "%.0f ns" % (r[0] / calls))
    finally:
        perf_probe(target, False)
        shutil.rmtree(tmp, ignore_errors=True)
    rows = []
    for key in order:
        ns = [loop_ns / calls for loop_ns, _ in results[key]]
        kept = [events for _, events in results[key]]
        lost = [calls - k for k in kept if k is not None]
        note = ("events kept of %d per run: %s" % (calls, ", ".join(map(str, kept)))
                if lost and max(lost) else "")
        rows.append(row("uprobe", key, progs[key][0], "ns/call", ns,
                        param="%d calls" % calls, disturbed=disturbed[key],
                        baseline=int(key == "none"), note=note,
                        recorded=min(kept) if lost else "",
                        ratio_to="perf" if key == "tracer" else ""))
    return rows

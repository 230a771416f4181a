# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Workload 7: the recorder's own wake-ups.  `tracer record -a -e 'sched:*'`
and `perf record -a -e 'sched:*'` on the machine as it is (no load of ours),
interleaved over rounds; each recorder's voluntary context switches (all its
threads, /proc/PID/task/*/status) over a window of --wakeup-secs seconds
once it records, per second; and from each trace, the recorder's own share
of the events and its sched_wakeup events per second (bench/README.md)."""

import os
import re
import shutil
import subprocess
import tempfile
import time

from benchlib import Child, bpf_links, read, row, run_quiet, wait_for

EVENTS = "sched:*"
SETTLE = 1.0		# s between recording and the window: attaching is not idle
AFTER = 1		# s the recorder runs after the window

LINE = re.compile(r"^(.*?)\s+(\d+)\s+\[\d+\]\s+([\d.]+):\s+(\S+?):\s(.*)$")


def voluntary_switches(pid):
    """Voluntary context switches of every thread of the process."""
    total = 0
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return None
    for tid in tids:
        m = re.search(r"^voluntary_ctxt_switches:\s+(\d+)",
                      read("/proc/%d/task/%s/status" % (pid, tid)), re.M)
        total += int(m.group(1)) if m else 0
    return total


def own_events(text, pid):
    """(events, the recorder's own events, its own sched_wakeup events, seconds
    from the first event to the last) of a trace printed as text: own = the
    recorder is the event's task, or its pid, prev_pid or next_pid."""
    mine = re.compile(r"(?<![\w])(?:pid|prev_pid|next_pid)=%d\b" % pid)
    woken = re.compile(r"(?<![\w])pid=%d\b" % pid)
    events = own = wakeups = 0
    first = last = None
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        events += 1
        ts = float(m.group(3))
        first = ts if first is None else first
        last = ts
        if int(m.group(2)) == pid or mine.search(m.group(5)):
            own += 1
            wakeups += m.group(4).endswith(":sched_wakeup") and bool(woken.search(m.group(5)))
    return events, own, wakeups, (last - first) if events > 1 else 0.0


def flush_ms(tracer):
    """tracer record's --flush-ms default, from its --help."""
    usage = subprocess.run([tracer, "record", "--help"], capture_output=True, text=True)
    m = re.search(r"--flush-ms\b.*\(default (\d+)\)", usage.stdout + usage.stderr)
    return int(m.group(1)) if m else None


class Tracer:
    def __init__(self, tracer, secs):
        self.tracer, self.secs = tracer, secs

    def start(self, tmp):
        self.out = os.path.join(tmp, "tracer.data")
        argv = [self.tracer, "record", "-a", "-e", EVENTS, "-d", "%g" % self.secs, "-o",
                self.out, "--force"]
        self.child = Child(argv, os.path.join(tmp, "tracer.log"))
        wait_for(lambda: bpf_links(self.child.p.pid) > 0, self.child, 60, "tracer record")

    def trace_text(self):
        done = subprocess.run([self.tracer, "report", self.out], capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError("tracer report %s failed: %s" % (self.out, done.stderr[-400:]))
        return done.stdout


class Perf:
    """perf record runs sleep as its workload; it execs it once recording."""

    def __init__(self, secs):
        self.secs = secs

    def start(self, tmp):
        self.out = os.path.join(tmp, "perf.data")
        argv = ["perf", "record", "-a", "-e", EVENTS, "-o", self.out, "--", "sleep",
                "%g" % self.secs]
        self.child = Child(argv, os.path.join(tmp, "perf.log"))
        wait_for(lambda: self.sleeping(), self.child, 60, "perf record")

    def sleeping(self):
        for pid in os.listdir("/proc"):
            stat = read("/proc/%s/stat" % pid) if pid.isdigit() else ""
            close = stat.rfind(")")
            if close > 0 and stat[stat.find("(") + 1:close] == "sleep" and \
                    int(stat[close + 2:].split()[1]) == self.child.p.pid:
                return True
        return False

    def trace_text(self):
        done = subprocess.run(["perf", "script", "-i", self.out], capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError("perf script -i %s failed: %s" % (self.out, done.stderr[-400:]))
        return done.stdout


RECORDERS = {
    "tracer": ("**tracer record -a -e 'sched:*'**", lambda o, s: Tracer(o.tracer, s)),
    "perf": ("perf record -a -e 'sched:*' -- sleep", lambda o, s: Perf(s)),
}

# One recording: wake-ups/s over the window, then the trace's figures.
FIGURES = ["wake-ups/s", "own wake-ups/s in its trace", "own events % of its trace"]


def record_once(key, opts, window, meter):
    """One recording: wake-ups per second of the recorder over the window, its trace's figures."""
    tmp = tempfile.mkdtemp(prefix="tracer-bench-wakeups-")
    try:
        recorder = RECORDERS[key][1](opts, SETTLE + window + AFTER)
        recorder.start(tmp)
        pid = recorder.child.p.pid
        time.sleep(SETTLE)
        meter.start()
        t0, before = time.monotonic(), voluntary_switches(pid)
        time.sleep(window)
        after, secs = voluntary_switches(pid), time.monotonic() - t0
        meter.stop()
        if not recorder.child.alive() or before is None or after is None:
            raise RuntimeError("%s ended before its %g s window did: %s" % (
                key, window, recorder.child.log_text()[-400:]))
        deadline = time.monotonic() + AFTER + 60	# it stops by itself (-d, sleep)
        while recorder.child.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        status = recorder.child.stop()
        if status:
            raise RuntimeError("%s exited with status %s: %s" % (
                key, status, recorder.child.log_text()[-400:]))
        events, own, wakeups, span = own_events(recorder.trace_text(), pid)
        return [(after - before) / secs, wakeups / span if span else 0.0,
                100.0 * own / events if events else 0.0]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(opts):
    """Rows for the suite's CSV: per recorder, FIGURES over rounds."""
    window = opts.wakeup_secs
    order = list(RECORDERS)
    values = {k: [[] for _ in FIGURES] for k in order}
    disturbed = dict.fromkeys(order, 0)
    flush = flush_ms(opts.tracer)
    for rnd in range(opts.rounds):
        opts.progress("wakeups, round %d/%d:" % (rnd + 1, opts.rounds))
        for i in range(len(order)):
            key = order[(i + rnd) % len(order)]
            figures, meter, _ = run_quiet(lambda m: record_once(key, opts, window, m), key,
                                          opts.progress)
            for v, f in zip(values[key], figures):
                v.append(f)
            disturbed[key] += meter.disturbed()
            opts.progress(" %s %.1f/s" % (key, figures[0]))
        opts.progress("\n")
    param = "%g s window; tracer's flush_ms %s" % (
        window, flush if flush is not None else "unknown (not in tracer record --help)")
    rows = []
    for key in order:
        label = RECORDERS[key][0]
        if key == "tracer":
            label += " (flush_ms %s)" % (flush if flush is not None else "unknown")
        for figure, v in zip(FIGURES, values[key]):
            fields = dict(param=param, disturbed=disturbed[key] if figure == FIGURES[0] else 0)
            if figure == FIGURES[0] and key != "perf":
                fields["ratio_to"] = "perf"
            rows.append(row("wakeups", key, label, figure, v, **fields))
    return rows

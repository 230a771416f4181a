#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""make bench: every benchmark, tracer beside its peers in the same run,
into one results folder (bench/README.md, "The suite"):

  1 per-event cost on getppid, 1 and 2 threads  } build/bench/tracepoint_bench
  2 the buffer path alone (BPF_PROG_TEST_RUN)    }   (parts 1-4)
  4 saturation: where loss begins                }
  2b the user-space ring buffer                    build/bench/ringbuf_bench
  3 a real build traced                            bench/build_bench.py
  5 tracer report against babeltrace2              bench/report_bench.py
  6 lttng-ust: not measured until tracer has a user-space library
  7 the recorder's own wake-ups, idle              bench/wakeups_bench.py
  8 a uprobe's cost per call                        bench/uprobe_bench.py

Every configuration is paired with its own round's baseline or peer
(bench/paired.py).  Writes results.md, results.csv and results.png, or,
when the rounds leave a headline comparison undecided, REFUSED.md and exit
status 3; raw/ holds each benchmark's own report and CSV either way."""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import benchlib  # noqa: E402
import build_bench  # noqa: E402
import paired  # noqa: E402
import report_bench  # noqa: E402
import stats  # noqa: E402
import relay_bench  # noqa: E402
import top_bench  # noqa: E402
import ust_bench  # noqa: E402
import uprobe_bench  # noqa: E402
import wakeups_bench  # noqa: E402
from benchlib import Child, read_csv, row  # noqa: E402
import render  # noqa: E402
from render import render_markdown, render_plot  # noqa: E402

TRACEFS = "/sys/kernel/tracing"
WORKLOADS = ["ringbuf", "events", "build", "report", "ust", "wakeups", "uprobe", "top", "relay"]
NOT_RUN_HERE = [
    "LTTng kernel tracing: not measured: it needs its kernel modules (lttng-modules) and this "
    "kernel has no loadable module support (CONFIG_MODULES off).",
]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default="build", help="the build directory (default build)")
    p.add_argument("--out", help="results parent folder (default BUILD/bench-results)")
    p.add_argument("--quick", action="store_true", help="smoke run, numbers not meaningful")
    p.add_argument("--rounds", type=int, default=8, help="repetitions of everything (default 8)")
    p.add_argument("--tie", type=float, default=100 * stats.TIE,
                   help="%% of 1.0 within which a headline comparison's median paired ratio "
                   "claims no winner (default %(default)g; bench/README.md)")
    p.add_argument("--only", default=",".join(WORKLOADS),
                   help="workloads to run (default %s)" % ",".join(WORKLOADS))
    p.add_argument("--calls", type=int, default=500000,
                   help="getppid() calls per thread per run in workload 1 (default 500000)")
    p.add_argument("--build-targets", default="kernel/time/ kernel/irq/",
                   help="what make -j2 builds in the kernel tree (default 'kernel/time/ kernel/irq/')")
    p.add_argument("--build-configs", default="untraced,tracer-flight,tracer-discard,perf",
                   help="recorders of workload 3 (also: bpftrace)")
    p.add_argument("--uprobe-calls", type=int, default=100000,
                   help="calls of the probed function per run in workload 8 (default 100000)")
    p.add_argument("--top-secs", type=float, default=4.0,
                   help="seconds of load beside each consumer in workload 9 (default 4)")
    p.add_argument("--relay-secs", type=int, default=4,
                   help="seconds of calls per run in workload 10 (default 4)")
    p.add_argument("--ust-events", type=int, default=5000000,
                   help="events per thread per run in workload 6 (default 5000000)")
    p.add_argument("--wakeup-secs", type=float, default=5.0,
                   help="seconds each recorder's wake-ups are counted in workload 7 (default 5)")
    o = p.parse_args()
    o.out = o.out or os.path.join(o.build, "bench-results")
    o.only = o.only.split(",")
    o.build_targets = o.build_targets.split()
    o.build_configs = o.build_configs.split(",")
    unknown = [w for w in o.only if w not in WORKLOADS] + [
        c for c in o.build_configs if c not in build_bench.CONFIGS]
    if unknown:
        p.error("unknown workload or build configuration: %s (workloads: %s; build: %s)" % (
            ", ".join(unknown), ", ".join(WORKLOADS), ", ".join(build_bench.CONFIGS)))
    o.tracer = os.path.abspath(os.path.join(o.build, "tracer"))
    o.work = os.path.abspath(os.path.join(o.build, "bench-work"))
    if (o.rounds < 1 or o.tie < 0 or o.wakeup_secs <= 0 or o.uprobe_calls < 1 or o.top_secs <= 0
            or o.ust_events < 1 or o.relay_secs <= 0):
        p.error("--rounds, --tie, --wakeup-secs, --uprobe-calls, --top-secs, --ust-events and "
                "--relay-secs must be positive")
    if o.quick:
        o.rounds = min(o.rounds, 2)
        o.calls = 100000
        o.wakeup_secs = min(o.wakeup_secs, 2.0)
        o.uprobe_calls = 20000
        o.top_secs = min(o.top_secs, 2.0)
        o.relay_secs = min(o.relay_secs, 2)
    return o


class Interrupted(Exception):
    pass


def on_signal(sig, frame):
    raise Interrupted("signal %d" % sig)


def tracefs_mounted():
    return any(line.split()[1] == TRACEFS for line in benchlib.read("/proc/mounts").splitlines()
               if len(line.split()) > 1)


class Suite:
    def __init__(self, o):
        self.o = o
        self.dir = os.path.join(o.out, time.strftime("%Y%m%d-%H%M%S"))
        self.raw = os.path.join(self.dir, "raw")
        os.makedirs(self.raw)
        self.log = open(os.path.join(self.raw, "suite.log"), "w")
        self.rows, self.notes, self.failures = [], list(NOT_RUN_HERE), []
        self.durations = {}
        o.progress = self.progress

    def progress(self, text):
        sys.stderr.write(text)
        sys.stderr.flush()
        self.log.write(text)
        self.log.flush()

    def bench(self, name, argv):
        """A C benchmark: its report to raw/NAME.md, its CSV rows into the results."""
        csv = os.path.join(self.raw, name + ".csv")
        self.progress("== %s\n" % " ".join(argv + ["--csv", csv]))
        child = Child(argv + ["--csv", csv], os.path.join(self.raw, name + ".md"), stderr=None)
        try:
            status = child.reap()
        finally:
            child.stop()
        if os.path.exists(csv):
            self.rows += read_csv(csv)
        # tracepoint_bench exits 3 when a target fails: a result, not a failure of the run.
        if status not in (0, 3) or not os.path.exists(csv):
            self.failures.append("%s exited with status %s (raw/%s.md)" % (name, status, name))

    def run_ringbuf(self):
        # 1 M events per thread (the benchmark's default is 3 M): 17 s instead of 50.
        reps = ["--quick"] if self.o.quick else ["--events", "1000000"]
        self.bench("ringbuf_bench", [os.path.join(self.o.build, "bench", "ringbuf_bench"),
                                     "--reps", str(self.o.rounds)] + reps)

    def run_events(self):
        o = self.o
        args = ["--rounds", str(o.rounds), "--calls", str(o.calls), "--tracer", o.tracer]
        if o.quick:
            args = ["--quick"] + args
        self.bench("tracepoint_bench", [os.path.join(o.build, "bench", "tracepoint_bench")] + args)
        md = benchlib.read(os.path.join(self.raw, "tracepoint_bench.md"))
        self.notes += [line[2:] for line in md.splitlines() if "stands in for trace-cmd" in line]

    def run_build_and_report(self):
        """Workload 3, then 5 on the trace 3 recorded in discard mode."""
        tmp = tempfile.mkdtemp(prefix="tracer-bench-trace-")
        trace = os.path.join(tmp, "build.trace")
        try:
            if "build" in self.o.only:
                self.add_rows("build_bench", build_bench.run(self.o, keep_trace=trace))
            if "report" not in self.o.only:
                return
            if not os.path.exists(trace):
                self.record_trace(trace)
            events = self.trace_events(trace)
            self.add_rows("report_bench", report_bench.run(self.o, trace, events))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def run_ust(self):
        self.add_rows("ust_bench", ust_bench.run(self.o))

    def run_wakeups(self):
        self.add_rows("wakeups_bench", wakeups_bench.run(self.o))

    def run_uprobe(self):
        self.add_rows("uprobe_bench", uprobe_bench.run(self.o))

    def run_top(self):
        self.add_rows("top_bench", top_bench.run(self.o))

    def run_relay(self):
        self.add_rows("relay_bench", relay_bench.run(self.o))

    def add_rows(self, name, rows):
        """A Python workload's rows, kept in raw/NAME.csv like the C benchmarks' CSV."""
        benchlib.write_csv(os.path.join(self.raw, name + ".csv"), rows)
        self.rows += rows

    def record_trace(self, trace):
        """Without workload 3: the same events of a walk through /usr (about 1M)."""
        self.progress("report: recording a trace to read (the events of find /usr)...\n")
        subprocess.run([self.o.tracer, "record", "-e", "sched:*", "-e", "raw_syscalls:*",
                        "-o", trace, "--force", "--", "sh", "-c",
                        "find /usr >/dev/null; find /usr -name '*.h' | xargs -n 200 wc -c >/dev/null"],
                       check=True, stderr=subprocess.DEVNULL)

    def trace_events(self, trace):
        """Events in the trace: babeltrace2's counter sink (lost events are not in it)."""
        out = subprocess.run(["babeltrace2", trace, "-c", "sink.utils.counter", "-p", "step=+0"],
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            if "Event messages" in line:
                return int(line.split()[0].replace(",", ""))
        raise RuntimeError("babeltrace2 could not count the events of %s" % trace)

    def workload(self, name, step):
        """Run one workload; its failure is reported, the others still run."""
        t0 = time.monotonic()
        try:
            step()
        except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
            Child.stop_all()
            self.failures.append("%s: %s" % (name, " ".join(str(e).split())))
            self.progress("\nbench: %s failed: %s\n" % (name, e))
        self.durations[name] = time.monotonic() - t0

    def drift(self):
        """(label, median, min, max, max deviation %) of every no-tracing baseline."""
        out = []
        for r in self.rows:
            if r.get("baseline") and r["values"]:
                m = stats.median(r["values"])
                dev = max(abs(v - m) for v in r["values"]) / m * 100
                label = "%s: %s%s (%s)" % (r["workload"], r["label"],
                                          ", %d thread%s" % (r["threads"], "s" * (r["threads"] > 1))
                                          if r.get("threads") else "", r["unit"])
                out.append((label, m, min(r["values"]), max(r["values"]), dev))
        return out

    def run(self):
        o = self.o
        t0 = time.monotonic()
        self.progress("bench: results in %s\n" % self.dir)
        self.state_start = benchlib.machine_state()
        for name, wanted, step in (("ringbuf", "ringbuf" in o.only, self.run_ringbuf),
                                   ("events", "events" in o.only, self.run_events),
                                   ("build/report", "build" in o.only or "report" in o.only,
                                    self.run_build_and_report),
                                   ("ust", "ust" in o.only, self.run_ust),
                                   ("wakeups", "wakeups" in o.only, self.run_wakeups),
                                   ("uprobe", "uprobe" in o.only, self.run_uprobe),
                                   ("top", "top" in o.only, self.run_top),
                                   ("relay", "relay" in o.only, self.run_relay)):
            if wanted:
                self.workload(name, step)
        self.state_end = benchlib.machine_state()
        self.seconds = time.monotonic() - t0
        return self.report()

    def report(self):
        self.notes += paired.add_paired(self.rows)
        self.headlines = paired.headlines(self.rows, self.o.tie / 100)
        self.rows += paired.headline_rows(self.headlines)
        drift = self.drift()
        undecided = [h for h in self.headlines if h.cmp.verdict == "undecided"]
        refused = undecided if not self.o.quick else []
        for h in undecided:
            self.progress("bench: undecided: %s\n" % render.undecided_text(h))
        md = render_markdown(self, drift, refused)
        if refused:
            path = os.path.join(self.dir, "REFUSED.md")
            with open(path, "w") as f:
                f.write(md)
            self.progress("bench: REFUSED: the rounds leave %d headline comparison%s undecided "
                          "(above); rerun with more --rounds or on a quieter machine. Details: "
                          "%s\n" % (len(refused), "s" * (len(refused) > 1), path))
            return 3
        plot_problem = render_plot(self, os.path.join(self.dir, "results.png"))
        if plot_problem:
            self.failures.append(plot_problem)
            md = render_markdown(self, drift, refused)
        benchlib.write_csv(os.path.join(self.dir, "results.csv"), self.rows)
        with open(os.path.join(self.dir, "results.md"), "w") as f:
            f.write(md)
        sys.stdout.write(md)
        self.progress("bench: %s/results.{md,csv,png} (%.0f s)\n" % (self.dir, self.seconds))
        return 1 if self.failures else 0


def main():
    o = parse_args()
    if os.geteuid():
        sys.exit("bench: needs root (BPF, tracefs, perf -a)")
    mounted_before = tracefs_mounted()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    suite = Suite(o)
    status = 1
    try:
        status = suite.run()
    except Interrupted as e:
        suite.progress("\nbench: interrupted (%s): stopping what runs\n" % e)
        status = 130
    except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
        suite.progress("\nbench: failed: %s\n" % e)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        Child.stop_all()
        if not mounted_before and tracefs_mounted():
            subprocess.run(["umount", TRACEFS])
    sys.exit(status)


if __name__ == "__main__":
    main()

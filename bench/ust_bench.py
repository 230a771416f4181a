# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Workload 6: what a user-space event costs, tracer's library against
lttng-ust.  The same loop (bench/ust_loop.h: ev2, a long and a pointer-sized
integer; ev2str, the same and a 32-character string) with 1 thread and with
2 (pinned to CPUs 0 and 1), each --ust-events events per thread per run.
Flight recorder: build/bench/ust_bench records into libtracer-ust's
overwrite-mode channel (4 x 512 KiB per thread), build/bench/ust_lttng into
an lttng snapshot session (lttng's default 4 x 512 KiB per CPU), created
with its events enabled before the program starts.  To disk:
build/bench/ust_bench_disk (the same channel in discard mode) under `tracer
record -e 'ust:bench:*'`, which reads its buffers as each sub-buffer ends,
against ust_lttng in an lttng session writing to disk (discard mode, the
same default buffers); each run's loss, as the recorder counts it (tracer's
summary, lttng's "Discarded events"), is a row of its own.  Interleaved
over rounds; ns per event per thread (loop wall time / events), the slower
thread's with 2.  Goal: tracer at most 0.5x lttng-ust.  tracer is also run
with the clock_gettime() clock instead of the TSC line
(TRACER_UST_CLOCK=monotonic, user/ust/ust_clock.c), to show what the clock
is of the cost."""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from benchlib import Child, interleaved, read, row

RUNDIR = "/var/run/lttng"
MODES = ("ev2", "ev2str")
WARM_EVENTS = 1000		# ust_loop.h's, per thread, before the timed loop


class Sessiond:
    """A private lttng-sessiond for the workload; refused if one runs already."""

    def __init__(self, tmp):
        pidfile = os.path.join(RUNDIR, "lttng-sessiond.pid")
        pid = read(pidfile).strip()
        if pid and os.path.exists("/proc/%s" % pid):
            raise RuntimeError("an lttng-sessiond (pid %s) runs already: lttng-ust is measured "
                               "with a session daemon of its own" % pid)
        self.made_rundir = not os.path.exists(RUNDIR)
        self.child = Child(["lttng-sessiond", "--no-kernel"], os.path.join(tmp, "sessiond.log"))
        end = time.monotonic() + 30
        while subprocess.run(["lttng", "list"], capture_output=True).returncode:
            if time.monotonic() > end or not self.child.alive():
                self.stop()
                raise RuntimeError("lttng-sessiond did not start: %s" % self.child.log_text()[-400:])
            time.sleep(0.1)

    def stop(self):
        self.child.stop(signal.SIGTERM, timeout=30)
        if self.made_rundir:
            shutil.rmtree(RUNDIR, ignore_errors=True)


def lttng(*args):
    subprocess.run(["lttng"] + list(args), check=True, capture_output=True, text=True)


def discarded(name):
    """lttng's count of the events a session's channels discarded."""
    out = subprocess.run(["lttng", "list", name], check=True, capture_output=True,
                         text=True).stdout
    return sum(int(n) for n in re.findall(r"Discarded events: (\d+)", out))


def run_lttng(tmp, argv, n, to_disk):
    """The program's output, and what lttng discarded (None for a snapshot session)."""
    name = "tracer-bench-%d-%d" % (os.getpid(), n)
    lttng("create", name, "--output=" + os.path.join(tmp, name), *(() if to_disk else ("--snapshot",)))
    try:
        lttng("enable-event", "-u", "bench:*", "-s", name)
        lttng("start", name)
        out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
        lttng("stop", name)		# waits until the consumer has written everything
        return out, discarded(name) if to_disk else None
    finally:
        subprocess.run(["lttng", "destroy", name], capture_output=True)
        shutil.rmtree(os.path.join(tmp, name), ignore_errors=True)


def run_tracer_record(tracer, tmp, argv, n):
    """The program's output under tracer record, and what the recorder counts lost."""
    trace = os.path.join(tmp, "tracer-%d" % n)
    try:
        p = subprocess.run([tracer, "record", "-e", "ust:bench:*", "-o", trace, "--"] + argv,
                           check=True, capture_output=True, text=True)
    finally:
        shutil.rmtree(trace, ignore_errors=True)
    found = re.search(r"user space: \d+ events .*; lost (\d+),", p.stderr)
    if not found:
        raise RuntimeError("tracer record said no user-space summary: %s" % p.stderr[-400:])
    return p.stdout, int(found.group(1))


PEERS = ("tracer", "tracer-clock_gettime", "lttng-ust", "tracer-disk", "lttng-ust-disk")
RATIO_TO = {"tracer": "lttng-ust", "tracer-clock_gettime": "lttng-ust",
            "tracer-disk": "lttng-ust-disk"}
PROGRAMS = {"tracer": "ust_bench", "tracer-clock_gettime": "ust_bench", "lttng-ust": "ust_lttng",
            "tracer-disk": "ust_bench_disk", "lttng-ust-disk": "ust_lttng"}
LABELS = {"tracer": "**tracer (libtracer-ust)**",
          "tracer-clock_gettime": "tracer, TRACER_UST_CLOCK=monotonic (clock_gettime)",
          "lttng-ust": "lttng-ust 2.13",
          "tracer-disk": "**tracer record -e ust:... (to disk)**",
          "lttng-ust-disk": "lttng-ust 2.13, to disk"}


def run(opts):
    build = opts.build
    tracer = os.path.join(build, "tracer")
    n_events = 1000000 if opts.quick else opts.ust_events
    lttng_bin = os.path.join(build, "bench", PROGRAMS["lttng-ust"])
    if not os.path.exists(lttng_bin) or not shutil.which("lttng-sessiond"):
        raise RuntimeError("lttng-ust not measured: %s or lttng-sessiond missing (setup installs "
                           "liblttng-ust-dev and lttng-tools)" % lttng_bin)
    tmp = tempfile.mkdtemp(prefix="tracer-bench-ust-")
    sessiond = Sessiond(tmp)
    runs = [0]

    def measure(key, meter):
        """(ns per event of the slower thread, % of the events lost or None)."""
        peer, mode, threads = key
        argv = [os.path.join(build, "bench", PROGRAMS[peer]), mode, str(threads), str(n_events)]
        env = dict(os.environ, TRACER_UST_CLOCK="monotonic") if peer == "tracer-clock_gettime" \
            else None
        attempted = threads * (n_events + WARM_EVENTS)
        meter.start()
        runs[0] += 1
        lost = None
        if peer.startswith("lttng-ust"):
            out, lost = run_lttng(tmp, argv, runs[0], peer.endswith("-disk"))
        elif peer == "tracer-disk":
            out, lost = run_tracer_record(tracer, tmp, argv, runs[0])
        else:
            out = subprocess.run(argv, check=True, capture_output=True, text=True, env=env).stdout
        meter.stop()
        return float(out.split()[1]), None if lost is None else 100.0 * lost / attempted

    order = [(peer, mode, threads) for threads in (1, 2) for mode in MODES for peer in PEERS]
    try:
        results, disturbed = interleaved(
            opts, "ust", order, measure,
            lambda r: "%.1f ns%s" % (r[0], "" if r[1] is None else ", %.2f%% lost" % r[1]))
    finally:
        sessiond.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    rows = []
    for key in order:
        peer, mode, threads = key
        to_disk = peer.endswith("-disk")
        note = "%d events per thread per run, %s" % (
            n_events, "to disk" if to_disk else "flight recorder")
        rows.append(row("ust", peer, LABELS[peer], "ns/event", [r[0] for r in results[key]],
                        threads=threads, param=mode, disturbed=disturbed[key],
                        ratio_to=RATIO_TO.get(peer, ""), note=note))
        if to_disk:
            rows.append(row("ust", peer, LABELS[peer], "% lost", [r[1] for r in results[key]],
                            threads=threads, param=mode, note=note))
            # What reached the disk per second of the loop, all threads together.
            rows.append(row("ust", peer, LABELS[peer], "M events/s kept",
                            [threads * (100 - lost) / 100 * 1000 / ns for ns, lost in results[key]],
                            threads=threads, param=mode, note=note))
    return rows

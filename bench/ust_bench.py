# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Workload 6: what a user-space event costs, tracer's library against
lttng-ust.  The same loop (bench/ust_loop.h: ev2, a long and a pointer-sized
integer; ev2str, the same and a 32-character string) with 1 thread and with
2 (pinned to CPUs 0 and 1), each --ust-events events per thread per run:
build/bench/ust_bench records into libtracer-ust's flight recorder (4 x 512
KiB per thread), build/bench/ust_lttng into an lttng snapshot session
(flight recorder, lttng's default 4 x 512 KiB per CPU), created with its
events enabled before the program starts.  Interleaved over rounds; ns per
event per thread (loop wall time / events), the slower thread's with 2.
Goal: tracer at most 0.5x lttng-ust.  tracer is also run with the
clock_gettime() clock instead of the TSC line (TRACER_UST_CLOCK=monotonic,
user/ust/ust_clock.c), to show what the clock is of the cost.  Both to-disk is not measured: the
library does not stream to a recorder yet (issue 15)."""

import os
import shutil
import signal
import subprocess
import tempfile
import time

from benchlib import Child, interleaved, read, row

RUNDIR = "/var/run/lttng"
MODES = ("ev2", "ev2str")


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


def run_lttng(opts, tmp, argv, n):
    name = "tracer-bench-%d-%d" % (os.getpid(), n)
    lttng("create", name, "--snapshot", "--output=" + os.path.join(tmp, name))
    try:
        lttng("enable-event", "-u", "bench:*", "-s", name)
        lttng("start", name)
        return subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    finally:
        subprocess.run(["lttng", "destroy", name], capture_output=True)
        shutil.rmtree(os.path.join(tmp, name), ignore_errors=True)


def run(opts):
    build = opts.build
    tracer_bin = os.path.join(build, "bench", "ust_bench")
    lttng_bin = os.path.join(build, "bench", "ust_lttng")
    events = str(1000000 if opts.quick else opts.ust_events)
    if not os.path.exists(lttng_bin) or not shutil.which("lttng-sessiond"):
        raise RuntimeError("lttng-ust not measured: %s or lttng-sessiond missing (setup installs "
                           "liblttng-ust-dev and lttng-tools)" % lttng_bin)
    tmp = tempfile.mkdtemp(prefix="tracer-bench-ust-")
    sessiond = Sessiond(tmp)
    runs = [0]

    def measure(key, meter):
        peer, mode, threads = key
        argv = [lttng_bin if peer == "lttng-ust" else tracer_bin, mode, str(threads), events]
        env = dict(os.environ, TRACER_UST_CLOCK="monotonic") if peer == "tracer-clock_gettime" \
            else None
        meter.start()
        runs[0] += 1
        out = (run_lttng(opts, tmp, argv, runs[0]) if peer == "lttng-ust" else
               subprocess.run(argv, check=True, capture_output=True, text=True, env=env).stdout)
        meter.stop()
        return float(out.split()[1])		# the slowest thread's

    order = [(peer, mode, threads) for threads in (1, 2) for mode in MODES
             for peer in ("tracer", "tracer-clock_gettime", "lttng-ust")]
    try:
        results, disturbed = interleaved(opts, "ust", order, measure, lambda r: "%.1f ns" % r)
    finally:
        sessiond.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    labels = {"tracer": "**tracer (libtracer-ust)**",
              "tracer-clock_gettime": "tracer, TRACER_UST_CLOCK=monotonic (clock_gettime)",
              "lttng-ust": "lttng-ust 2.13"}
    rows = []
    for key in order:
        peer, mode, threads = key
        rows.append(row("ust", peer, labels[peer], "ns/event", results[key], threads=threads,
                        param=mode, disturbed=disturbed[key],
                        ratio_to="lttng-ust" if peer != "lttng-ust" else "",
                        note="%s events per thread per run, flight recorder" % events))
    return rows

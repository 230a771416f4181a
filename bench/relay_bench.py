# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Workload 10: streaming to lttng-relayd over loopback, beside writing to
the local disk.  tests/helpers/topcheck makes getppid() calls at offered
rates (spread over each second) for --relay-secs seconds (or longer, when
the calls cannot keep up with the rate: the rate met is what counts), as
the command of
`tracer record -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit` (2 events
a call), which writes -o into a directory on the disk (build/bench-work),
or streams --relay to an lttng-relayd of the workload's own on 127.0.0.1
whose output is on the same disk; interleaved over rounds.  Per rate and
recorder: the events lost by the recorder's own account, as a share of
the events the calls made, the rate the calls met, and the highest rate met
in the round with nothing lost."""

import os
import re
import shutil
import socket
import tempfile

from benchlib import Child, interleaved, record_lost, row, wait_for

EVENTS = ["-e", "raw_syscalls:sys_enter", "-e", "raw_syscalls:sys_exit"]
RATES = (500000, 1000000, 2000000)	# getppid() a second, 2 events each
LABELS = {"tracer-disk": "tracer record -o DIR (local disk)",
          "tracer-relay": "**tracer record --relay** (lttng-relayd on 127.0.0.1)"}


def free_ports(n):
    """n TCP ports free on 127.0.0.1 just now."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


RUNDIR = "/var/run/lttng"


class Relayd:
    """lttng-relayd on loopback ports, its output under out; its health
    socket under RUNDIR removed after it, and RUNDIR if it made it."""

    def __init__(self, out, log):
        self.made = [d for d in (RUNDIR, os.path.join(RUNDIR, "relayd")) if not os.path.isdir(d)]
        self.out = out
        self.control, self.data, live = free_ports(3)
        self.child = Child(["lttng-relayd", "-o", out,
                            "-C", "tcp://127.0.0.1:%d" % self.control,
                            "-D", "tcp://127.0.0.1:%d" % self.data,
                            "-L", "tcp://127.0.0.1:%d" % live], log)
        wait_for(lambda: self.listening(), self.child, 30, "lttng-relayd")

    def listening(self):
        try:
            socket.create_connection(("127.0.0.1", self.control), 1).close()
            return True
        except OSError:
            return False

    def url(self):
        return "net://127.0.0.1:%d:%d" % (self.control, self.data)

    def stop(self):
        self.child.stop()
        try:
            os.unlink(os.path.join(RUNDIR, "relayd", "health-%d" % self.child.p.pid))
        except OSError:
            pass
        for d in reversed(self.made):
            try:
                os.rmdir(d)
            except OSError:
                pass


def run_once(opts, relayd, tmp, key, rate, meter):
    """(% of the calls' events lost, by the recorder's count; M events/s the calls met)."""
    out = os.path.join(tmp, "trace")
    shutil.rmtree(out, ignore_errors=True)
    for host in os.listdir(relayd.out) if os.path.isdir(relayd.out) else []:
        shutil.rmtree(os.path.join(relayd.out, host), ignore_errors=True)
    where = ["-o", out] if key == "tracer-disk" else ["--relay", relayd.url()]
    log = os.path.join(tmp, key + ".log")
    meter.start()
    calls = "t0=$(date +%%s%%N); %s rate %d %d; echo calls_ns=$(($(date +%%s%%N) - t0)) >&2" % (
        opts.topcheck, rate, opts.relay_secs)
    rec = Child([opts.tracer, "record"] + EVENTS + where + ["--", "sh", "-c", calls], log)
    status = rec.reap()
    meter.stop()
    text = rec.log_text()
    if status:
        raise RuntimeError("%s at %d calls/s exited with status %s: %s" % (
            key, rate, status, text[-400:]))
    took = re.search(r"calls_ns=(\d+)", text)
    if not took:
        raise RuntimeError("%s at %d calls/s: the calls' time is missing: %s" % (
            key, rate, text[-400:]))
    events = 2 * rate * opts.relay_secs
    return 100.0 * record_lost(text) / events, events / (int(took.group(1)) / 1e9) / 1e6


def run(opts):
    if not shutil.which("lttng-relayd"):
        raise RuntimeError("not measured: lttng-relayd is missing (setup installs lttng-tools)")
    opts.topcheck = os.path.abspath(os.path.join(opts.build, "tests", "helpers", "topcheck"))
    os.makedirs(opts.work, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="relay-", dir=opts.work)
    relayd = Relayd(os.path.join(tmp, "relay-out"), os.path.join(tmp, "relayd.log"))
    order = [(key, rate) for rate in RATES for key in LABELS]
    try:
        results, disturbed = interleaved(
            opts, "relay", order, lambda k, m: run_once(opts, relayd, tmp, k[0], k[1], m),
            lambda r: "%.3f%% lost at %.2f M events/s" % r)
    finally:
        relayd.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    rows = []
    for key, rate in order:
        param = "%.1f M events/s offered" % (2 * rate / 1e6)
        rows.append(row("relay", key, LABELS[key], "% lost", [r[0] for r in results[(key, rate)]],
                        param=param, disturbed=disturbed[(key, rate)],
                        note="%d s of calls per run" % opts.relay_secs))
        rows.append(row("relay", key, LABELS[key], "M events/s met",
                        [r[1] for r in results[(key, rate)]], param=param))
    for key in LABELS:
        best = [max([results[(key, rate)][i][1] for rate in RATES
                     if results[(key, rate)][i][0] == 0] or [0]) for i in range(opts.rounds)]
        rows.append(row("relay", key, LABELS[key], "M events/s with nothing lost", best,
                        param="the highest of %s" % ", ".join("%g" % (2 * r / 1e6) for r in RATES)))
    return rows

# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Workload 9: what tracer top costs.  A load of about 1 M events/s
(tests/helpers/topcheck rate: 500000 getppid() calls a second, spread over
each second, with raw_syscalls:sys_enter and sys_exit recorded: 2 events a
call) runs for --top-secs seconds beside each consumer in turn: `tracer
record -a` into a directory on tmpfs (so that no disk is in the way),
`tracer top --batch --output json` (every event decoded and counted) and
`tracer top --batch --sample 10`; interleaved over rounds.  The consumer's
CPU time (all its threads, /proc/PID/task/*/schedstat) over the load, per
second of load, and what it lost by its own account (bench/README.md)."""

import json
import os
import shutil
import tempfile
import time

from benchlib import Child, bpf_links, interleaved, read, record_lost, row, wait_for

EVENTS = ["-e", "raw_syscalls:sys_enter", "-e", "raw_syscalls:sys_exit"]
CALLS_PER_S = 500000		# two events each
SETTLE = 1.0			# s after attaching: the state dump, the first flushes


def configs(opts, tmp):
    top = [opts.tracer, "top", "--batch", "--output", "json"] + EVENTS
    return {
        "tracer-record": ("tracer record -a into tmpfs",
                          [opts.tracer, "record", "-a", "--force", "-o",
                           os.path.join(tmp, "trace")] + EVENTS),
        "tracer-top": ("**tracer top --batch** (every event)", top),
        "tracer-top-sample10": ("tracer top --batch --sample 10", top + ["--sample", "10"]),
    }


def cpu_ns(pid):
    """CPU time of all the process's threads, ns."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        text = read("/proc/%d/task/%s/schedstat" % (pid, tid))
        total += int(text.split()[0]) if text else 0
    return total


def lost(key, log):
    """Events the consumer says it lost, every cause."""
    if key == "tracer-record":
        return record_lost(log)
    last = [line for line in log.splitlines() if line.startswith("{")][-1:]
    if not last:
        raise RuntimeError("%s printed no snapshot: %s" % (key, log[-400:]))
    counts = json.loads(last[0])["lost"]
    return sum(counts[k] for k in ("full", "wrap", "big", "busy", "misses"))


def run_once(key, argv, opts, tmp, meter):
    """(CPU ms per second of load, events lost, M events/s offered and met) of one run."""
    log = os.path.join(tmp, key + ".log")
    consumer = Child(argv, log)
    wait_for(lambda: bpf_links(consumer.p.pid) > 0, consumer, 60, key)
    time.sleep(SETTLE)
    meter.start()
    before, t0 = cpu_ns(consumer.p.pid), time.monotonic()
    load = Child([opts.topcheck, "rate", str(CALLS_PER_S), str(opts.top_secs)],
                 os.path.join(tmp, "load.log"))
    status = load.reap()
    secs = time.monotonic() - t0
    used = cpu_ns(consumer.p.pid) - before
    meter.stop([(load.p.pid, load.rusage)])
    if status:
        raise RuntimeError("topcheck exited with status %s" % status)
    time.sleep(0.5)		# what the load left in the buffers reaches the consumer
    status = consumer.stop()
    text = consumer.log_text()
    if status:
        raise RuntimeError("%s exited with status %s: %s" % (key, status, text[-400:]))
    rate = 2 * CALLS_PER_S * opts.top_secs / secs
    return used / 1e6 / secs, lost(key, text), rate / 1e6


def run(opts):
    opts.topcheck = os.path.abspath(os.path.join(opts.build, "tests", "helpers", "topcheck"))
    tmp = tempfile.mkdtemp(prefix="tracer-bench-top-", dir="/dev/shm")
    try:
        progs = configs(opts, tmp)
        order = list(progs)
        results, disturbed = interleaved(
            opts, "top", order, lambda key, m: run_once(key, progs[key][1], opts, tmp, m),
            lambda r: "%.0f ms/s, %d lost" % (r[0], r[1]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    param = "%d getppid()/s, 2 events each, %g s" % (CALLS_PER_S, opts.top_secs)
    rows = []
    for key in order:
        cpu = [r[0] for r in results[key]]
        rows.append(row("top", key, progs[key][0], "consumer CPU ms/s", cpu, param=param,
                        disturbed=disturbed[key],
                        ratio_to="" if key == "tracer-record" else "tracer-record"))
        rows.append(row("top", key, progs[key][0], "lost", [r[1] for r in results[key]],
                        param=param))
        rows.append(row("top", key, progs[key][0], "M events/s", [r[2] for r in results[key]],
                        param=param))
    return rows

# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Workload 5: reading a trace.  `tracer report`, `tracer export --format
jsonl` and babeltrace2 on the same trace (the one the build workload
recorded in discard mode), all writing to /dev/null, interleaved over rounds; babeltrace2 with its
dummy sink shows what decoding alone costs (bench/README.md).  `tracer
analyze sched` and `syscalls` read it too, paired with `tracer report`
(issue 36: an analysis at least at report's event rate)."""

import os
import time

from benchlib import Child, interleaved, row


def readers(tracer, trace):
    return {
        "tracer-report": ("**tracer report** (text, by print format)", [tracer, "report", trace]),
        "tracer-report-raw": ("**tracer report --raw** (text, fields)",
                              [tracer, "report", "--raw", trace]),
        "tracer-jsonl": ("**tracer export --format jsonl**",
                         [tracer, "export", trace, "--format", "jsonl", "-o", os.devnull]),
        "babeltrace2": ("babeltrace2 (text)", ["babeltrace2", trace]),
        "babeltrace2-dummy": ("babeltrace2 -o dummy (decode only, no text)",
                              ["babeltrace2", "-o", "dummy", trace]),
        "tracer-analyze-sched": ("**tracer analyze sched**", [tracer, "analyze", "sched", trace]),
        "tracer-analyze-syscalls": ("**tracer analyze syscalls**", [tracer, "analyze", "syscalls", trace]),
    }


def peer_of(key):
    """Whom a reader's time is a ratio to: the analyses report's, the others babeltrace2's."""
    if key == "babeltrace2":
        return ""
    return "tracer-report" if key.startswith("tracer-analyze") else "babeltrace2"


def read_once(argv, meter):
    """Wall seconds of one reading, output to /dev/null."""
    meter.start()
    t0 = time.monotonic()
    child = Child(argv, os.devnull)
    status = child.reap()
    secs = time.monotonic() - t0
    meter.stop([(child.p.pid, child.rusage)])
    if status:
        raise RuntimeError("%s exited with status %s" % (" ".join(argv), status))
    return secs


def run(opts, trace, events):
    """Rows for the suite's CSV: seconds and events/s per reader, each paired with
    babeltrace2's text of the same round (bench/paired.py)."""
    progs = readers(opts.tracer, trace)
    order = list(progs)
    secs, disturbed = interleaved(opts, "report", order,
                                  lambda key, m: read_once(progs[key][1], m),
                                  lambda s: "%.2f s" % s)
    rows = []
    for key in order:
        fields = dict(param="%d events" % events, disturbed=disturbed[key], recorded=events,
                      ratio_to=peer_of(key))
        rows.append(row("report", key, progs[key][0], "s", secs[key], **fields))
        rows.append(row("report", key, progs[key][0], "events/s", [events / s for s in secs[key]],
                        param="%d events" % events))
    return rows


# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Paired figures (bench/README.md, "Paired figures and refusal"): every
configuration against its own round's baseline or peer, from the rows'
values in round order, and the headline comparisons that decide whether
the suite may publish its tables."""

from collections import namedtuple

import stats
from benchlib import one, pick, row

# The headline comparisons, tracer against a peer, lower is better:
# (workload, match of the rows, tracer's config, peer's config, baseline's
# config or None, what is compared).  Peers that record every event:
# bpftrace's row counts in a map and streams nothing, so it is shown for
# scale, not compared.  A build is compared on its time: the time tracer
# and perf add to it is within the rounds' noise (a few %), so a ratio of
# added times has no scale.
EVENT_PEERS = ["ringbuf", "perfbuf", "perf", "trace-cmd", "ftrace"]
HEADLINES = (
    [("events", dict(threads=float(t)), "tracer", peer, "none", "ns added to a getppid() call")
     for t in (1, 2) for peer in EVENT_PEERS] +
    [("loop", dict(param="16", threads=float(t)), "tracer", "ringbuf", None,
      "ns per 16-byte record in the kernel loop") for t in (1, 2)] +
    [("build", dict(unit="s"), tracer, "perf", None, "build time")
     for tracer in ("tracer-flight", "tracer-discard")] +
    [("report", dict(unit="s"), "tracer-report", "babeltrace2", None, "seconds to print a trace"),
     ("report", dict(unit="s"), "tracer-report-raw", "babeltrace2", None,
      "seconds to print a trace's fields (--raw)"),
     ("report", dict(unit="s"), "tracer-jsonl", "babeltrace2", None,
      "seconds to export a trace as JSON lines"),
     ("wakeups", dict(unit="wake-ups/s"), "tracer", "perf", None,
      "recorder wake-ups per second, idle")] +
    [("uprobe", dict(unit="ns/call"), "tracer", peer, "none", "ns a uprobe adds to a call")
     for peer in ("bpftrace", "perf")] +
    [("ust", dict(param=mode, threads=float(t), unit="ns/event"), tracer, peer, None,
      "ns per user-space event, %s%s (goal: 0.5x lttng-ust)" % (mode, where))
     for tracer, peer, where in (("tracer", "lttng-ust", ""),
                                 ("tracer-disk", "lttng-ust-disk", ", to disk"))
     for mode in ("ev2", "ev2str") for t in (1, 2)] +
    [("top", dict(unit="consumer CPU ms/s"), top, "tracer-record", None,
      "consumer CPU at 1 M events/s (goal: 1.2x record's)")
     for top in ("tracer-top", "tracer-top-sample10")]
)

Headline = namedtuple("Headline", "workload match tracer peer base what cmp")


def spread(r, key, values):
    """r[key], r[key_min], r[key_max]: median, min and max of the paired values."""
    if values:
        r[key], r[key + "_min"], r[key + "_max"] = stats.median(values), min(values), max(values)


def ratio(r, peer, base=None):
    """r's paired ratios to peer (stats.scaled) into r["ratio"]; why not, or None."""
    ratios = stats.scaled(r["values"], peer["values"], base["values"] if base else None)
    if not ratios:
        return "%s%s: no ratio to %s: its median cost%s is not above 0" % (
            r["workload"], ", %d threads" % r["threads"] if r["threads"] else "", r["ratio_to"],
            " over %s" % base["config"] if base else "")
    spread(r, "ratio", ratios)
    return None


def usable(*rows):
    return all(r is not None for r in rows) and stats.aligned(*(r["values"] for r in rows))


def unpaired(r):
    return "%s: %s (%s%s): not paired: a round is missing (a run failed)" % (
        r["workload"], r["config"], r["unit"], ", %d threads" % r["threads"] if r["threads"] else "")


def pair_events(rows):
    for t in (1.0, 2.0):
        none = one(rows, "events", config="none", threads=t)
        empty = one(rows, "events", config="empty", threads=t)
        ringbuf = one(rows, "events", config="ringbuf", threads=t)
        for r in pick(rows, "events", threads=t):
            if r is none or none is None or empty is None:
                continue
            if not usable(r, none, empty):
                yield unpaired(r)
                continue
            spread(r, "vs_baseline", stats.differences(r["values"], none["values"]))
            if r is not empty:
                spread(r, "vs_empty", stats.differences(r["values"], empty["values"]))
            if r["ratio_to"] and usable(r, ringbuf):
                yield ratio(r, ringbuf, empty)


def pair_to_named_peer(rows, workload):
    """Rows whose ratio_to names the config of a peer row with the same param and threads."""
    for r in pick(rows, workload):
        peer = one(rows, workload, config=r["ratio_to"], param=r["param"], threads=r["threads"],
                   unit=r["unit"]) if r["ratio_to"] and r["values"] else None
        if peer:
            yield ratio(r, peer) if usable(r, peer) else unpaired(r)


def pair_build(rows):
    untraced = one(rows, "build", config="untraced", unit="s")
    perf = one(rows, "build", config="perf", unit="s")
    for r in pick(rows, "build", unit="s"):
        if r is untraced or untraced is None:
            continue
        if not usable(r, untraced):
            yield unpaired(r)
            continue
        spread(r, "vs_baseline", stats.overheads(r["values"], untraced["values"]))
        if r is not perf and usable(r, perf):
            r["ratio_to"] = "perf record (build time)"
            yield ratio(r, perf)


def pair_uprobe(rows):
    """Each recorder against the untraced loop of its round; tracer's ratio to perf."""
    none = one(rows, "uprobe", config="none")
    for r in pick(rows, "uprobe"):
        if r is none or none is None:
            continue
        if not usable(r, none):
            yield unpaired(r)
            continue
        spread(r, "vs_baseline", stats.differences(r["values"], none["values"]))
        peer = one(rows, "uprobe", config=r["ratio_to"]) if r["ratio_to"] else None
        if peer:
            yield ratio(r, peer, none) if usable(r, peer) else unpaired(r)


def add_paired(rows):
    """Fill the rows' paired figures; why some could not be, as notes."""
    notes = list(pair_events(rows)) + list(pair_build(rows)) + list(pair_uprobe(rows))
    for workload in ("loop", "ringbuf", "report", "ust", "wakeups", "top"):
        notes += pair_to_named_peer(rows, workload)
    return [n for n in dict.fromkeys(notes) if n]	# each once, in order


def headlines(rows, tie=stats.TIE):
    """The headline comparisons whose rows were measured, each with its verdict."""
    out = []
    for workload, match, tracer, peer, base, what in HEADLINES:
        t = one(rows, workload, config=tracer, **match)
        p = one(rows, workload, config=peer, **match)
        b = one(rows, workload, config=base, **match) if base else None
        if not usable(*([t, p] + ([b] if base else []))):
            continue
        cmp = stats.compare(t["values"], p["values"], b["values"] if b else None, tie)
        out.append(Headline(workload, match, tracer, peer, base, what, cmp))
    return out


def headline_name(h):
    threads = h.match.get("threads")
    where = ""
    if threads:
        where = ", %d %s%s" % (threads, "CPU" if h.workload == "loop" else "thread",
                               "s" * (threads > 1))
    return "%s%s: %s vs %s" % (h.workload, where, h.tracer, h.peer)


def headline_rows(found):
    """CSV rows of the headline comparisons: the paired ratios per round."""
    out = []
    for h in found:
        c = h.cmp
        fields = dict(threads=h.match.get("threads"), param=h.what, ratio_to=h.peer,
                      verdict=h.cmp.verdict, lo=c.lo, hi=c.hi,
                      note="paired difference %.4g [%.4g, %.4g], interval coverage %.0f%%" % (
                          c.diff, c.dlo, c.dhi, 100 * c.coverage))
        out.append(row("headline", "%s:%s-vs-%s" % (h.workload, h.tracer, h.peer),
                       headline_name(h), "x peer", c.ratios, **fields))
    return out

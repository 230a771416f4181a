# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The suite's results.md and results.png, from its CSV rows (bench/bench_csv.h)
and their paired figures (bench/paired.py)."""

import os
import subprocess

from benchlib import one, pick
from paired import headline_name
from stats import VERDICTS

TITLES = {
    "events": "1. Per-event cost: getppid() with its tracepoint recorded (build/bench/tracepoint_bench)",
    "loop": "2. The buffer path alone: BPF_PROG_TEST_RUN loop, 16-byte payload (tracepoint_bench)",
    "ringbuf": "2b. The user-space ring buffer, 16-byte payload (build/bench/ringbuf_bench)",
    "build": "3. A real build traced (bench/build_bench.py)",
    "saturation": "4. Saturation: where tracer record starts losing events (tracepoint_bench)",
    "report": "5. Reading a trace: tracer report against babeltrace2 (bench/report_bench.py)",
    "ust": "6. User-space tracing against lttng-ust",
    "wakeups": "7. The recorder's own wake-ups, idle (bench/wakeups_bench.py)",
    "uprobe": "8. A uprobe's cost per call (bench/uprobe_bench.py)",
    "top": "9. tracer top's own cost at 1 M events/s (bench/top_bench.py)",
    "relay": "10. Streaming to lttng-relayd beside writing to disk (bench/relay_bench.py)",
}


def fmt(v, f="%.0f"):
    return "" if v is None or v == "" else f % v


def spread(r, key, f="%.0f"):
    """A paired figure: its median over rounds [min, max]."""
    if not r or r.get(key) is None:
        return ""
    return "%s [%s, %s]" % (f % r[key], f % r[key + "_min"], f % r[key + "_max"])


def ranged(r, f="%.0f"):
    """A row's own figure: its median over rounds [min, max]."""
    return "%s [%s, %s]" % (fmt(r["median"], f), fmt(r["min"], f), fmt(r["max"], f))


def table(head, lines):
    out = "| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n"
    return out + "".join("| " + " | ".join(str(c) for c in line) + " |\n" for line in lines) + "\n"


def counted(r):
    if r.get("expected") is None:
        return "-"
    if r["recorded"] == r["expected"]:
        return "all %d" % r["expected"]
    return "%d / %d" % (r["recorded"], r["expected"])


PAIRED_NOTE = ("Paired figures: per round, against the run of the same round; median over "
               "rounds [min, max].")


def section_events(rows):
    lines = [(r["label"], int(r["threads"]), fmt(r["median"]), spread(r, "vs_baseline", "%+.0f"),
              spread(r, "vs_empty", "%+.0f"), spread(r, "ratio", "%.2f"), counted(r),
              fmt(r["lost"]))
             for r in pick(rows, "events")]
    return (PAIRED_NOTE + " x ringbuf, per round: 1 + (this - ringbuf) / ringbuf's median "
            "added cost over the empty program.\n\n" + table(
                ["configuration", "threads", "median ns/call", "added over no tracing",
                 "added over empty program", "x ringbuf", "recorded (ours, all rounds)", "lost"],
                lines))


def section_loop(rows):
    lines = [(r["label"], int(r["threads"]), fmt(r["median"], "%.1f"), spread(r, "ratio", "%.2f"))
             for r in pick(rows, "loop") if r["param"] in ("16", "")]
    return (PAIRED_NOTE + " x ringbuf, per round: 1 + (this - ringbuf) / ringbuf's median.\n\n" +
            table(["loop", "CPUs", "median ns/record", "x ringbuf"], lines))


def section_ringbuf(rows):
    lines = [(r["label"], int(r["threads"]), fmt(r["median"], "%.1f"), spread(r, "ratio", "%.2f"),
              r["note"])
             for r in pick(rows, "ringbuf") if r["param"] in ("16", "")]
    return (PAIRED_NOTE + " x tracer, per round: 1 + (this - tracer) / tracer's median (per-CPU "
            "tracer for 2 threads).\n\n" +
            table(["buffer", "threads", "median ns/event", "x tracer", "note"], lines))


def companion(rows, r, unit):
    """The median of the row of the same build configuration in another unit."""
    other = pick(rows, r["workload"], config=r["config"], unit=unit)
    return other[0]["median"] if other else None


def section_build(rows):
    times = pick(rows, "build", unit="s")
    if not times:
        return "not run\n\n"
    lines = [(r["label"], fmt(r["median"], "%.2f"), spread(r, "vs_baseline", "%+.1f%%"),
              spread(r, "ratio", "%.2f"), fmt(companion(rows, r, "events/s"), "%.0f"),
              fmt(companion(rows, r, "lost"), "%.0f"), fmt(companion(rows, r, "MiB"), "%.0f"),
              int(r["disturbed"] or 0))
             for r in times]
    return ("`%s` in Linux 6.1 (Debian's linux-source-6.1, tinyconfig, x86_64), "
            "objects removed before each build, sources in the page cache; recorders record "
            "`sched:*` and `raw_syscalls:*` system-wide (-a) from before the build to after it; "
            "only the build is timed. %s Overhead, per round: build time / the untraced build "
            "time - 1; x perf, per round: 1 + (this - perf's build time) / perf's median build "
            "time.\n\n" % (times[0]["param"], PAIRED_NOTE) + table(
                ["configuration", "median s", "overhead vs untraced", "x perf",
                 "events/s recorded (median)", "lost per build (median)", "MiB per build (median)",
                 "runs kept disturbed"], lines))


def section_saturation(rows):
    out = ""
    for r in pick(rows, "saturation", config="full-speed"):
        out += ("- 1 event per call, %d threads as fast as they can: **%.2f M events/s**, %s recorded, "
                "%s lost\n" % (r["threads"], r["median"] / 1e6, counted(r), fmt(r["lost"])))
    achieved = {r["param"]: r for r in pick(rows, "saturation", config="ladder-achieved")}
    lines = []
    for r in pick(rows, "saturation", config="ladder-lost"):
        a = achieved.get(r["param"])
        offered = "%.2f M" % (float(r["param"]) / 1e6) if float(r["param"]) else "as fast as possible"
        lines.append((offered, "%.2f (%.2f-%.2f)" % (a["median"] / 1e6, a["min"] / 1e6, a["max"] / 1e6),
                      "%.3f (%.3f-%.3f)" % (r["median"], r["min"], r["max"]), counted(r),
                      fmt(r["lost"])))
    if lines:
        out += ("\n4 events per call (raw_syscalls:sys_enter/sys_exit and the call's own enter/exit), "
                "2 threads at offered rates, tracer record -a to disk sharing the CPUs:\n\n")
        out += table(["offered events/s", "achieved M events/s (min-max)",
                      "our events lost % (min-max)", "recorded (all rounds)",
                      "tracer's lost count"], lines)
    for r in pick(rows, "saturation", config="loss-onset"):
        if r["median"] == float("inf"):
            out += "- **no loss began** in most rounds, up to the fastest step\n"
        else:
            out += "- **loss begins at %.2f M events/s** (median over rounds; min %.2f)\n" % (
                r["median"] / 1e6, r["min"] / 1e6)
    for r in pick(rows, "saturation", config="lost-at-2x-onset"):
        out += "- at %.2f M events/s offered: %.3f%% of our events lost (median; %.3f-%.3f)\n" % (
            float(r["param"]) / 1e6, r["median"], r["min"], r["max"])
    return (out or "not run\n") + "\n"


def section_report(rows):
    times = pick(rows, "report", unit="s")
    if not times:
        return "not run\n\n"
    lines = [(r["label"], fmt(r["median"], "%.2f"),
              fmt(companion(rows, r, "events/s") / 1e6, "%.2f"), spread(r, "ratio", "%.2f"))
             for r in times]
    return ("The trace of one discard-mode build, or without workload 3 of a find through /usr "
            "(%s), read from the page cache, output to /dev/null. %s Time x babeltrace2, per round: 1 + (this - babeltrace2's time) / "
            "babeltrace2's median time.\n\n" % (times[0]["param"], PAIRED_NOTE) + table(
                ["reader", "median s", "M events/s (median)", "time x babeltrace2 (text)"],
                lines))


def ranged_unit(rows, r, unit, f):
    """The figure in unit of r's run (workload, config, param, threads), or "-"."""
    found = one(rows, r["workload"], config=r["config"], param=r["param"],
                threads=r["threads"], unit=unit)
    return ranged(found, f) if found else "-"


def section_ust(rows):
    lines = [(r["label"], r["param"], int(r["threads"]), ranged(r, "%.1f"),
              spread(r, "ratio", "%.2f") or "-", ranged_unit(rows, r, "% lost", "%.2f"),
              ranged_unit(rows, r, "M events/s kept", "%.1f"), int(r["disturbed"] or 0))
             for r in pick(rows, "ust", unit="ns/event")]
    if not lines:
        return "not run\n\n"
    return ("The same loop (bench/ust_loop.h) through each library, %s per thread per run; "
            "ns per event per thread (the slower thread's with 2). ev2: a long and a "
            "pointer-sized integer; ev2str: and a 32-character string. Flight recorder: "
            "overwrite-mode buffers, nothing written; to disk: the recorder (tracer record, "
            "lttng's consumer daemon) writes the buffers to files as they fill, and what it "
            "could not keep up with is lost (its own count); events on disk per second of the "
            "loop = threads x (1 - lost) / ns per event. Goal: tracer at most 0.5x "
            "lttng-ust. %s\n\n" % (pick(rows, "ust")[0]["note"].split(" per thread")[0],
                                     PAIRED_NOTE) + table(
                ["library", "event", "threads", "ns/event (median [min, max])", "x lttng-ust",
                 "% lost (median [min, max])", "M events/s on disk, all threads",
                 "runs kept disturbed"], lines))


def summary_ust(rows):
    found = [r for r in pick(rows, "ust", unit="ns/event") if r.get("ratio") is not None]
    if not found:
        return ""
    return "- user-space events: tracer %s x lttng-ust (goal 0.5x)\n" % ", ".join(
        "%.2f (%s, %d thread%s%s)" % (r["ratio"], r["param"], r["threads"], "s" * (r["threads"] > 1),
                                    ", to disk" if r["config"] == "tracer-disk" else "")
        for r in found if r["config"] in ("tracer", "tracer-disk"))


def section_wakeups(rows):
    lines = []
    for r in pick(rows, "wakeups", unit="wake-ups/s"):
        own = one(rows, "wakeups", config=r["config"], unit="own wake-ups/s in its trace")
        share = one(rows, "wakeups", config=r["config"], unit="own events % of its trace")
        lines.append((r["label"], ranged(r, "%.1f"),
                      spread(r, "ratio", "%.2f"), fmt(own and own["median"], "%.1f"),
                      fmt(share and share["median"], "%.0f%%"), int(r["disturbed"] or 0)))
    if not lines:
        return "not run\n\n"
    return ("Each recorder records `sched:*` system-wide (-a) on the machine as it is; after "
            "it has recorded for 1 s, its voluntary context switches (all its threads, "
            "/proc/PID/task/*/status) are counted over a window: %s. Own wake-ups in its "
            "trace: the trace's sched_wakeup events of the recorder per second of trace; own "
            "events: those whose task, pid, prev_pid or next_pid is the recorder. %s x perf, "
            "per round: 1 + (tracer - perf) / perf's median.\n\n" % (
                pick(rows, "wakeups")[0]["param"], PAIRED_NOTE) + table(
                ["recorder", "wake-ups/s (median [min, max])", "x perf record",
                 "own wake-ups/s in its trace (median)", "own events of its trace (median)",
                 "runs kept disturbed"], lines))


def section_uprobe(rows):
    lines = [(r["label"], ranged(r), spread(r, "vs_baseline"), spread(r, "ratio", "%.2f"),
              r["note"] or "all",
              int(r["disturbed"] or 0))
             for r in pick(rows, "uprobe", unit="ns/call")]
    if not lines:
        return "not run\n\n"
    return ("build/bench/uprobe_target calls bench_probed(a, b) (%s per run) and times its own "
            "loop; each recorder starts it once its probe is in place and records every call "
            "with both arguments. Events kept: counted in each recorder's own output. %s x "
            "perf, per round: 1 + (tracer - perf) / perf's median cost over no tracing.\n\n" % (
                pick(rows, "uprobe")[0]["param"], PAIRED_NOTE) + table(
                ["recorder", "ns/call (median [min, max])", "ns added (paired)", "x perf record",
                 "events kept", "runs kept disturbed"], lines))


def section_top(rows):
    lines = []
    for r in pick(rows, "top", unit="consumer CPU ms/s"):
        lost = one(rows, "top", config=r["config"], unit="lost")
        rate = one(rows, "top", config=r["config"], unit="M events/s")
        lines.append((r["label"], ranged(r), spread(r, "ratio", "%.2f") or "-",
                      fmt(rate and rate["median"], "%.2f"),
                      "%s (max %s)" % (fmt(lost and lost["median"]), fmt(lost and lost["max"])),
                      int(r["disturbed"] or 0)))
    if not lines:
        return "not run\n\n"
    return ("tests/helpers/topcheck makes %s while each consumer runs; its CPU time over the "
            "load (all threads, schedstat) per second of load; lost: by the consumer's own "
            "account (record's summary, top's last snapshot). Goal: top at most 1.2x record's "
            "consumer CPU, and losing nothing record does not. %s\n\n" % (
                pick(rows, "top")[0]["param"], PAIRED_NOTE) + table(
                ["consumer", "CPU ms per s (median [min, max])", "x record's", "M events/s",
                 "lost (median, max)", "runs kept disturbed"], lines))


def section_relay(rows):
    lines = [(r["label"], r["param"], ranged_unit(rows, r, "M events/s met", "%.2f"),
              ranged(r, "%.3f"), int(r["disturbed"] or 0))
             for r in pick(rows, "relay", unit="% lost")]
    lines += [(r["label"], "the highest rate met with nothing lost", ranged(r, "%.2f"), "", "")
              for r in pick(rows, "relay", unit="M events/s with nothing lost")]
    if not lines:
        return "not run\n\n"
    return ("tests/helpers/topcheck's getppid() calls at each offered rate (2 events each, "
            "raw_syscalls:sys_enter and sys_exit), %s, recorded into a directory on the disk or "
            "streamed to an lttng-relayd on 127.0.0.1 writing to the same disk; lost: by the "
            "recorder's own count, as a share of the calls' events.\n\n" % (
                pick(rows, "relay")[0]["note"]) + table(
                ["recorder", "load", "M events/s met (median [min, max])",
                 "% lost (median [min, max])", "runs kept disturbed"], lines))


def summary_top(rows):
    cpu = {r["config"]: r for r in pick(rows, "top", unit="consumer CPU ms/s")}
    if not {"tracer-record", "tracer-top"} <= set(cpu):
        return ""
    out = ("- tracer top at 1 M events/s: %s ms of CPU a second, %sx record's consumer "
           "(goal 1.2x)" % (fmt(cpu["tracer-top"]["median"]), fmt(cpu["tracer-top"].get("ratio"),
                                                                   "%.2f")))
    if "tracer-top-sample10" in cpu:
        out += "; with --sample 10, %sx" % fmt(cpu["tracer-top-sample10"].get("ratio"), "%.2f")
    return out + "\n"


def summary_uprobe(rows):
    cost = {r["config"]: r for r in pick(rows, "uprobe", unit="ns/call")}
    if not {"tracer", "perf", "bpftrace"} <= set(cost):
        return ""
    return ("- a uprobe recorded with its arguments adds %s ns to a call with tracer, %s with "
            "perf record, %s with bpftrace (the kernel's uprobe trap is most of it)\n" % tuple(
                fmt(cost[k].get("vs_baseline")) for k in ("tracer", "perf", "bpftrace")))


def section_headlines(suite):
    """The comparisons that decide whether the suite publishes."""
    if not suite.headlines:
        return "none measured\n\n"
    lines = []
    for h in suite.headlines:
        c = h.cmp
        verdict = VERDICTS[c.verdict]
        lines.append((headline_name(h), h.what, paired_ratio(c),
                      "%.0f%%" % (100 * c.coverage),
                      "**%s**" % verdict if c.verdict == "undecided" else verdict))
    return ("Each comparison pairs the tracer with the peer round by round: d = tracer - peer "
            "in the same round, as a ratio 1 + d / (the peer's median cost over the round's "
            "baseline). The interval is the distribution-free interval of the median over the "
            "rounds (min-max up to 7 rounds, then the 2nd smallest to the 2nd largest up to "
            "10). A comparison whose interval straddles 1.0 is a tie when its median is within "
            "%g%% of 1.0 (--tie); else \"cheaper or a tie\" for the side the median favours "
            "when the interval stays within the tie on the other side; else undecided, and an "
            "undecided comparison refuses the run (bench/README.md)."
            " When the peer's median cost is not above 0 there is no ratio: the paired "
            "difference d is shown, and any d other than 0 claims a winner."
            "\n\n" % suite.o.tie + table(
                ["comparison", "what", "paired ratio, median [interval]", "interval coverage",
                 "verdict"], lines))


def paired_ratio(c):
    if c.median is None:
        return "no ratio; d %.4g [%.4g, %.4g]" % (c.diff, c.dlo, c.dhi)
    return "%.2f [%.2f, %.2f]" % (c.median, c.lo, c.hi)


def undecided_text(h):
    """One line naming an undecided comparison and its figures."""
    return "%s (%s): paired ratio %s straddles %s" % (
        headline_name(h), h.what, paired_ratio(h.cmp), "0" if h.cmp.median is None else "1.0")


def summary_events(rows):
    out = []
    for t in (1, 2):
        added = {r["config"]: r for r in pick(rows, "events", threads=float(t))}
        tracer = added.get("tracer")
        if not tracer or tracer["vs_baseline"] is None:
            continue
        peers = ", ".join("%s %s" % (k, fmt(added[k]["vs_baseline"], "%+.0f")) for k in
                          ("ringbuf", "perfbuf", "perf", "trace-cmd", "ftrace", "bpftrace")
                          if k in added)
        over_empty = "; over the empty program, %sx BPF ringbuf's cost" % spread(
            tracer, "ratio", "%.2f") if tracer["ratio"] is not None else ""
        out.append("- per event, %d thread%s: tracer record -a adds %s ns to a getppid() call "
                   "(%s)%s\n" % (t, "s" * (t > 1), spread(tracer, "vs_baseline", "%+.0f"), peers,
                                 over_empty))
    return "".join(out)


def summary_loop(rows):
    tracer, ringbuf = {}, {}
    for t in (1, 2):
        tracer[t] = one(rows, "loop", config="tracer", param="16", threads=float(t))
        ringbuf[t] = one(rows, "loop", config="ringbuf", param="16", threads=float(t))
    if not all(tracer.values()) or not all(ringbuf.values()):
        return ""
    return ("- buffer path alone (in-kernel loop, 16-byte records): tracer %.1f ns, BPF ringbuf "
            "%.1f ns on 1 CPU; %.1f and %.1f ns per CPU with 2 CPUs writing\n" % (
                tracer[1]["median"], ringbuf[1]["median"], tracer[2]["median"],
                ringbuf[2]["median"]))


def summary_build(rows):
    over = ["%s %s" % (r["config"], spread(r, "vs_baseline", "%+.1f%%"))
            for r in pick(rows, "build", unit="s") if r["vs_baseline"] is not None]
    if not over:
        return ""
    return "- build (`%s`): overhead %s\n" % (pick(rows, "build", unit="s")[0]["param"],
                                             ", ".join(over))


def summary_saturation(rows):
    out = ""
    full = one(rows, "saturation", config="full-speed")
    if full:
        out += "- saturation: %.2f M events/s sustained with %s lost (1 event per call, full speed)" % (
            full["median"] / 1e6, fmt(full["lost"]))
    onset = one(rows, "saturation", config="loss-onset")
    if onset and onset["median"] == float("inf"):
        fastest = max(r["median"] for r in pick(rows, "saturation", config="ladder-achieved"))
        out += "; with 4 events per call, no loss began up to %.2f M events/s (the generator's " \
               "fastest)" % (fastest / 1e6)
    elif onset:
        out += "; with 4 events per call, loss begins at %.2f M events/s" % (onset["median"] / 1e6)
        double = one(rows, "saturation", config="lost-at-2x-onset")
        if double:
            out += ", %.3f%% lost at %.2f M events/s" % (double["median"],
                                                         float(double["param"]) / 1e6)
    return out + "\n" if out else ""


def summary_report(rows):
    speed = {r["config"]: r["median"] for r in pick(rows, "report", unit="events/s")}
    if "tracer-report" not in speed or "babeltrace2" not in speed:
        return ""
    out = ("- reading a trace as text: tracer report %.2f M events/s, babeltrace2 %.2f M events/s "
           "(%.1fx; target 10x)\n" % (speed["tracer-report"] / 1e6, speed["babeltrace2"] / 1e6,
                                      speed["tracer-report"] / speed["babeltrace2"]))
    if "tracer-report-raw" in speed:
        out += ("- its fields (report --raw): %.2f M events/s (%.1fx babeltrace2's text)\n"
                % (speed["tracer-report-raw"] / 1e6,
                   speed["tracer-report-raw"] / speed["babeltrace2"]))
    if "tracer-jsonl" in speed:
        out += ("- exporting it as JSON lines: %.2f M events/s (%.1fx babeltrace2's text; "
                "target 5x)\n" % (speed["tracer-jsonl"] / 1e6,
                                   speed["tracer-jsonl"] / speed["babeltrace2"]))
    return out


def summary_wakeups(rows):
    rate = {r["config"]: r for r in pick(rows, "wakeups", unit="wake-ups/s")}
    if "tracer" not in rate or "perf" not in rate:
        return ""
    return ("- recorder wake-ups while recording `sched:*` -a, idle: tracer %s/s, perf record "
            "%s/s (%s)\n" % (fmt(rate["tracer"]["median"], "%.1f"),
                               fmt(rate["perf"]["median"], "%.1f"), rate["tracer"]["param"]))


def summary_relay(rows):
    best = {r["config"]: r for r in pick(rows, "relay", unit="M events/s with nothing lost")}
    if not {"tracer-disk", "tracer-relay"} <= set(best):
        return ""
    return ("- streaming to lttng-relayd on loopback: nothing lost up to %s M events/s "
            "(median over rounds; to the local disk: %s)\n" % (
                fmt(best["tracer-relay"]["median"], "%.2f"),
                fmt(best["tracer-disk"]["median"], "%.2f")))


def section_summary(rows):
    return "".join(f(rows) for f in (summary_events, summary_loop, summary_build,
                                      summary_saturation, summary_report,
                                      summary_wakeups, summary_uprobe, summary_top,
                                      summary_ust, summary_relay)) + "\n"


def section_machine(suite, drift):
    disturbed = {}
    for r in suite.rows:
        if r.get("disturbed"):
            disturbed[r["workload"]] = disturbed.get(r["workload"], 0) + int(r["disturbed"])
    out = "At the start:\n\n" + "\n".join(suite.state_start) + "\n\nAt the end:\n\n"
    out += "\n".join(suite.state_end) + "\n\n"
    out += "- runs kept although other processes used more than 5%% of a CPU during them (after a " \
           "repeat): %s\n\n" % (", ".join("%s %d" % kv for kv in sorted(disturbed.items())) or "none")
    if not drift:
        return out
    lines = [(label, "%.4g" % m, "%.4g" % lo, "%.4g" % hi, "%.1f%%" % dev)
             for label, m, lo, hi, dev in drift]
    out += ("No-tracing baselines across rounds, for information: every figure is paired with "
            "its own round, so drift between rounds does not refuse a run.\n\n")
    return out + table(["baseline", "median", "min", "max", "largest deviation from median"],
                       lines)


def render_markdown(suite, drift, refused):
    rows = suite.rows
    head = "# tracer benchmarks, %s\n\n" % os.path.basename(suite.dir)
    if refused:
        head += ("**REFUSED: the rounds leave %s headline comparison%s undecided: the interval "
                 "straddles 1.0 while the median claims a winner. These numbers are not a "
                 "measurement; rerun with more --rounds or on a quieter machine.**\n\n%s\n" % (
                     len(refused), "s" * (len(refused) > 1),
                     "".join("- %s\n" % undecided_text(h) for h in refused)))
    head += ("`make bench` (bench/suite.py%s), %d rounds, %.0f s (%s). Configurations "
             "interleaved; every figure compared is paired with its own round's baseline or "
             "peer, shown as the median over rounds [min, max].\n\n" % (
                 " --quick: a smoke run, numbers not meaningful, nothing refused" if suite.o.quick
                 else "", suite.o.rounds, suite.seconds,
                 ", ".join("%s %.0f s" % kv for kv in suite.durations.items())))
    body = [("events", section_events), ("loop", section_loop), ("ringbuf", section_ringbuf),
            ("build", section_build), ("saturation", section_saturation),
            ("report", section_report), ("ust", section_ust), ("wakeups", section_wakeups),
            ("uprobe", section_uprobe), ("top", section_top), ("relay", section_relay)]
    out = head + "## Summary\n\n" + section_summary(rows)
    out += "## Headline comparisons\n\n" + section_headlines(suite)
    for workload, section in body:
        if pick(rows, workload):
            out += "## %s\n\n%s" % (TITLES[workload], section(rows))
    out += "## Not run here, and problems\n\n"
    out += "".join("- %s\n" % n for n in suite.notes + suite.failures) + "\n"
    out += "## The machine\n\n" + section_machine(suite, drift)
    out += "Each benchmark's own report and CSV: raw/.\n"
    return out


# --- The plot -----------------------------------------------------------------------

PLOT = """set terminal pngcairo size 1400,1000 font ",10"
set output '%(png)s'
set multiplot layout 2,2 title "tracer and its peers, %(name)s (median, min-max bars)"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set boxwidth 0.9
set grid ytics
set xtics rotate by -30 left noenhanced
set key top left noenhanced
set title "1. ns added to a getppid() call by recording its tracepoint (paired with the round's no-tracing run)"
set yrange [*<0:0<*]
plot '%(dir)s/events.dat' using 2:3:4:xtic(1) title '1 thread', '' using 5:6:7 title '2 threads'
set title "3. build time overhead vs untraced (%%)"
set yrange [*<0:0<*]
plot '%(dir)s/build.dat' using 2:3:4:xtic(1) title 'make -j2'
set title "4. our events lost vs achieved rate (4 events per call)"
set style data yerrorlines
set xtics norotate
set xlabel "M events/s"
set ylabel "lost %%"
plot '%(dir)s/ladder.dat' using 1:2:3:4 title 'tracer record -a'
set xlabel ""
set ylabel ""
set title "5. reading the build's trace, M events/s"
set style data histogram
set xtics rotate by -30 left
set yrange [0:*]
plot '%(dir)s/report.dat' using 2:3:4:xtic(1) title 'text (dummy: decode only) to /dev/null'
unset multiplot
"""


def write_dat(path, lines, nothing):
    """The panel's data; nothing (a line of zeros) keeps an empty panel drawable."""
    with open(path, "w") as f:
        for line in lines or [nothing]:
            f.write(" ".join('"%s"' % c if isinstance(c, str) else "%.6g" % c for c in line) + "\n")


def paired_bar(r, key):
    return r[key], r[key + "_min"], r[key + "_max"]


def plot_data(rows, d):
    events = {}
    for r in pick(rows, "events"):
        if r["vs_baseline"] is not None:
            events.setdefault(r["config"], {})[int(r["threads"])] = r
    write_dat(os.path.join(d, "events.dat"),
              [(k,) + tuple(v for t in (1, 2) for v in (
                  paired_bar(by[t], "vs_baseline") if t in by else (0, 0, 0)))
               for k, by in events.items()], ("not run", 0, 0, 0, 0, 0, 0))
    write_dat(os.path.join(d, "build.dat"),
              [(r["config"],) + paired_bar(r, "vs_baseline")
               for r in pick(rows, "build", unit="s") if r["vs_baseline"] is not None],
              ("not run", 0, 0, 0))
    achieved = {r["param"]: r for r in pick(rows, "saturation", config="ladder-achieved")}
    write_dat(os.path.join(d, "ladder.dat"), sorted(
        (achieved[r["param"]]["median"] / 1e6, r["median"], r["min"], r["max"])
        for r in pick(rows, "saturation", config="ladder-lost") if r["param"] in achieved),
        (0, 0, 0, 0))
    write_dat(os.path.join(d, "report.dat"),
              [(r["config"], r["median"] / 1e6, r["min"] / 1e6, r["max"] / 1e6)
               for r in pick(rows, "report", unit="events/s")], ("not run", 0, 0, 0))


def render_plot(suite, png):
    """results.png through gnuplot; a problem's description, or None."""
    d = os.path.join(suite.raw, "plot")
    os.makedirs(d, exist_ok=True)
    plot_data(suite.rows, d)
    script = os.path.join(d, "plot.gp")
    with open(script, "w") as f:
        f.write(PLOT % {"png": png, "dir": d, "name": os.path.basename(suite.dir)})
    try:
        done = subprocess.run(["gnuplot", script], capture_output=True, text=True)
    except FileNotFoundError:
        return "no plot: gnuplot is not installed (apt-get install gnuplot-nox)"
    if done.returncode:
        return "no plot: gnuplot failed: %s" % done.stderr[-400:]
    return None

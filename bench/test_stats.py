#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The suite's statistics (bench/stats.py, bench/paired.py) and the wake-ups
trace parser (bench/wakeups_bench.py) on made-up rounds: no root, no
measurement, deterministic.  Prints TAP; tests/run-bench-stats.t runs it."""

import math
import os
import sys

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import paired  # noqa: E402
import render  # noqa: E402
import stats  # noqa: E402
from benchlib import row  # noqa: E402
from wakeups_bench import own_events  # noqa: E402


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def test_median():
    assert stats.median([3, 1, 2]) == 2
    assert stats.median([4, 1, 3, 2]) == 2.5
    assert math.isnan(stats.median([]))


def test_interval_is_min_max_up_to_7_rounds():
    lo, hi, coverage = stats.interval([5, 1, 4, 2, 3])
    assert (lo, hi) == (1, 5)
    assert close(coverage, 1 - 2 / 32)		# 93.75%
    assert stats.interval([3, 1, 2])[:2] == (1, 3)
    assert close(stats.interval([3, 1, 2])[2], 0.75)
    assert stats.interval(list(range(7)))[:2] == (0, 6)	# 2nd-6th would cover 87.5% only


def test_interval_narrows_with_more_rounds():
    lo, hi, coverage = stats.interval(list(range(1, 9)))
    assert (lo, hi) == (2, 7)
    assert close(coverage, 1 - 2 * 9 / 256)
    lo, hi, coverage = stats.interval(list(range(1, 11)))
    assert (lo, hi) == (2, 9)			# the 3rd-8th cover 89% only
    assert close(coverage, 1 - 2 * 11 / 1024)


def test_aligned_needs_one_value_per_round():
    assert stats.aligned([1, 2], [3, 4])
    assert not stats.aligned([1, 2], [3])
    assert not stats.aligned([1, 2], None)
    assert not stats.aligned([1, float("nan")], [3, 4])
    assert not stats.aligned([], [])


def test_paired_figures():
    assert stats.differences([5, 7], [1, 2]) == [4, 5]
    assert all(close(a, b) for a, b in zip(stats.overheads([110, 105], [100, 100]), [10, 5]))
    # The peer adds 100 and 200 over its base: median 150.
    ratios = stats.scaled([1150, 1300], [1100, 1200], [1000, 1000])
    assert close(ratios[0], 1 + 50 / 150) and close(ratios[1], 1 + 100 / 150)
    assert stats.scaled([1, 2], [1, 2], [1, 2]) == []	# the peer adds nothing


def test_drifting_baseline_is_no_reason_to_refuse():
    """The issue's case: the baseline moves 21% between rounds, every pair holds."""
    base = [1000, 1210, 1000, 1150, 1080]
    tracer = [b + 390 + e for b, e in zip(base, [5, -8, 3, 0, -4])]
    peer = [b + 500 + e for b, e in zip(base, [-6, 9, 0, 4, -3])]
    c = stats.compare(tracer, peer, base)
    assert c.verdict == "tracer"
    assert 0.7 < c.lo <= c.median <= c.hi < 1
    assert close(c.median, 1 + stats.median(stats.differences(tracer, peer)) / 500)


def test_peer_cheaper():
    c = stats.compare([12, 13, 12, 14, 12], [10, 11, 10, 11, 10])
    assert c.verdict == "peer" and c.lo > 1


def test_straddling_close_ratio_is_a_tie():
    # Median difference 2 on a peer cost of 100: 1.02, within 10%.
    c = stats.compare([102, 95, 104, 103, 101], [100, 100, 100, 100, 100])
    assert c.lo < 1 < c.hi
    assert c.verdict == "tie"


def test_straddling_claimed_winner_is_undecided():
    # Median 0.8 claims the tracer wins, one round has the peer 15% ahead.
    c = stats.compare([80, 75, 115, 80, 85], [100, 100, 100, 100, 100])
    assert c.lo < 1 < c.hi and close(c.median, 0.8)
    assert c.verdict == "undecided"
    assert stats.compare([80, 75, 115, 80, 85], [100] * 5, tie=0.25).verdict == "tie"


def test_straddling_within_the_tie_on_the_losing_side():
    """The quiet run's tracer vs perf: 0.87 [0.78, 1.03]: no winner shown,
    but perf is not ahead by more than the tie."""
    c = stats.compare([87, 78, 103, 85, 90], [100] * 5)
    assert c.lo < 1 < c.hi and close(c.median, 0.87)
    assert c.verdict == "tracer-or-tie"
    assert stats.compare([113, 122, 97, 115, 110], [100] * 5).verdict == "peer-or-tie"
    assert stats.compare([87, 78, 111, 85, 90], [100] * 5).verdict == "undecided"


def test_peer_adding_nothing():
    c = stats.compare([5, 5, 5], [5, 5, 5], [5, 5, 5])
    assert c.verdict == "tie" and c.median is None and c.ratios == []
    assert stats.compare([5, 3, 7], [5, 5, 5], [5, 5, 5]).verdict == "tie"	# median 0
    c = stats.compare([6, 7, 4], [5, 5, 5], [5, 5, 5])
    assert c.diff == 1 and c.verdict == "undecided"	# any claim is one: no scale


def events_rows(tracer, ringbuf, none, empty, perf):
    out = []
    for config, values in (("none", none), ("empty", empty), ("tracer", tracer),
                           ("ringbuf", ringbuf), ("perf", perf)):
        ratio_to = "ringbuf" if config not in ("none", "empty") else ""
        out.append(row("events", config, config, "ns/call", values, threads=1.0,
                       ratio_to=ratio_to, baseline=int(config == "none")))
    return out


def test_rows_are_paired_with_their_round():
    rows = events_rows(tracer=[1400, 1600, 1410], ringbuf=[1380, 1620, 1400],
                       none=[1000, 1200, 1000], empty=[1100, 1300, 1100],
                       perf=[1500, 1700, 1520])
    assert paired.add_paired(rows) == []
    tracer = rows[2]
    assert (tracer["vs_baseline"], tracer["vs_baseline_min"], tracer["vs_baseline_max"]) == \
        (400, 400, 410)
    assert (tracer["vs_empty"], tracer["vs_empty_min"], tracer["vs_empty_max"]) == (300, 300, 310)
    # ringbuf over empty: 280, 320, 300: median 300; tracer - ringbuf: 20, -20, 10.
    assert close(tracer["ratio"], 1 + 10 / 300)
    assert close(tracer["ratio_min"], 1 - 20 / 300) and close(tracer["ratio_max"], 1 + 20 / 300)
    found = {h.peer: h for h in paired.headlines(rows)}
    assert set(found) == {"ringbuf", "perf"}
    assert found["ringbuf"].cmp.verdict == "tie"
    assert found["perf"].cmp.verdict == "tracer"
    csv = paired.headline_rows(found.values())
    assert [r["verdict"] for r in csv] == ["tie", "tracer"]
    assert csv[1]["values"] == found["perf"].cmp.ratios


def test_build_is_compared_on_its_time():
    """The quiet run that refused: build times of 12.6-14.2 s, perf adding
    +1.7% and tracer +6.2% in the median, rounds 1 s apart.  The added
    times' ratio had no scale; the build times compare within 10%."""
    times = dict(untraced=[14.0, 12.9, 12.6, 13.1, 12.8],
                 perf=[13.8, 13.3, 12.8, 13.2, 13.0],
                 **{"tracer-flight": [12.9, 14.1, 13.6, 13.5, 13.4]})
    rows = [row("build", c, c, "s", v) for c, v in times.items()]
    assert paired.add_paired(rows) == []
    found = [h for h in paired.headlines(rows) if h.workload == "build"]
    assert [(h.tracer, h.base) for h in found] == [("tracer-flight", None)]
    c = found[0].cmp
    assert c.verdict == "tie" and c.lo < 1 < c.hi
    assert close(c.median, 1 + 0.4 / 13.2)


def test_a_missing_round_is_not_paired():
    rows = events_rows(tracer=[1400, 1410], ringbuf=[1380, 1620, 1400],
                       none=[1000, 1200, 1000], empty=[1100, 1300, 1100],
                       perf=[1500, 1700, 1520])
    notes = paired.add_paired(rows)
    assert rows[2]["vs_baseline"] is None and rows[2]["ratio"] is None
    assert notes and "tracer" in notes[0]
    assert paired.headlines(rows) == []


def test_undecided_comparison_is_named():
    rows = events_rows(tracer=[1300, 1250, 1520, 1310, 1320], ringbuf=[1400] * 5,
                       none=[1000] * 5, empty=[1100] * 5, perf=[1500] * 5)
    paired.add_paired(rows)
    found = {h.peer: h for h in paired.headlines(rows)}
    assert found["ringbuf"].cmp.verdict == "undecided"
    text = render.undecided_text(found["ringbuf"])
    # tracer - ringbuf: -100 -150 120 -90 -80 on ringbuf's 400: median 1 - 90/400.
    assert close(found["ringbuf"].cmp.median, 1 - 90 / 400)
    assert "events, 1 thread: tracer vs ringbuf" in text and "straddles 1.0" in text, text


TRACE = """\
 tracer   700 [000]   10.000000000: sched:sched_switch:  prev_comm=tracer prev_pid=700 prev_prio=120 prev_state=1 next_comm=swapper/0 next_pid=0 next_prio=120
 swapper/0       0 [000]   10.002000000: sched:sched_wakeup:  comm=tracer pid=700 prio=120 target_cpu=000
 kworker/0:1 H    33 [001]   10.500000000: sched:sched_wakeup:  comm=bash pid=7001 prio=120 target_cpu=001
            perf 25356 [000]   11.000000:                     sched:sched_waking: comm=tracer pid=700 prio=0 target_cpu=000
 other 12 [001] 12.000000000: sched:sched_switch:  prev_comm=other prev_pid=12 prev_prio=120 prev_state=1 next_comm=x next_pid=7000 next_prio=120
[ a line that is not an event ]
"""


def test_own_events_of_the_recorder():
    events, own, wakeups, span = own_events(TRACE, 700)
    assert events == 5
    assert own == 3		# its switch, its wakeup, its waking; not pid 7001 or 7000
    assert wakeups == 1		# sched_wakeup only
    assert close(span, 2.0)


TESTS = [v for k, v in sorted(globals().items()) if k.startswith("test_")]


def main():
    print("1..%d" % len(TESTS))
    failed = 0
    for i, test in enumerate(TESTS, 1):
        try:
            test()
            print("ok %d - %s" % (i, test.__name__))
        except AssertionError as e:
            failed += 1
            print("not ok %d - %s: %s" % (i, test.__name__, e))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

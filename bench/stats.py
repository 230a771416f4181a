# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The suite's statistics over rounds (bench/README.md, "Paired figures and
refusal"): medians, the interval of a median, and paired comparisons, a
configuration against another measured in the same round.  Pure functions
of lists of numbers, one number per round in round order; bench/test_stats.py
checks them."""

import math
from collections import namedtuple

# The interval of a median covers it with at least this probability.
CONFIDENCE = 0.90
# A comparison whose median paired ratio is within this of 1.0 claims no winner.
TIE = 0.10


def median(values):
    s = sorted(values)
    n = len(s)
    if not n:
        return float("nan")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def interval(values, confidence=CONFIDENCE):
    """(lo, hi, coverage): the distribution-free interval of the median, the
    j-th smallest and j-th largest value with the largest j whose coverage,
    1 - 2 P(Binomial(n, 1/2) < j), is at least confidence.  It is min-max
    up to 7 values (coverage 94% at 5, 75% at 3: fewer values cannot reach
    90%) and narrows with more."""
    s = sorted(values)
    n = len(s)
    if not n:
        return float("nan"), float("nan"), 0.0
    j, coverage = 1, cover(n, 1)
    while j + 1 <= n // 2 and cover(n, j + 1) >= confidence:
        j += 1
        coverage = cover(n, j)
    return s[j - 1], s[n - j], coverage


def cover(n, j):
    """P(s[j-1] <= median <= s[n-j]) for n independent values."""
    below = sum(math.comb(n, i) for i in range(j)) / 2 ** n
    return 1 - 2 * below


def aligned(*series):
    """True when every series has one value per round of the same rounds."""
    return bool(series[0]) and all(s is not None and len(s) == len(series[0]) and
                                   not any(math.isnan(v) for v in s) for s in series)


def differences(a, b):
    """Per round: a - b (same round)."""
    return [x - y for x, y in zip(a, b)]


def overheads(a, base):
    """Per round: 100 * (a / base - 1), the % a adds to its round's baseline."""
    return [100 * (x / y - 1) for x, y in zip(a, base)]


def scaled(a, peer, base=None):
    """Per round: 1 + (a - peer) / A, A = the peer's median cost over base
    (over 0 without a base): a's cost over the peer's, paired by round.
    Both costs are over the same round's base, so the base cancels out of
    the difference; A only sets the scale.  [] when A is not positive."""
    cost = differences(peer, base) if base is not None else peer
    scale = median(cost)
    if not scale > 0:
        return []
    return [1 + d / scale for d in differences(a, peer)]


Comparison = namedtuple("Comparison", "ratios median lo hi coverage diff dlo dhi scale verdict")

VERDICTS = {
    "tracer": "tracer cheaper",
    "peer": "peer cheaper",
    "tie": "tie",
    "tracer-or-tie": "tracer cheaper or a tie",
    "peer-or-tie": "peer cheaper or a tie",
    "undecided": "UNDECIDED",
}


def compare(tracer, peer, base=None, tie=TIE, confidence=CONFIDENCE):
    """Lower is better.  The verdict, from the per-round differences d_k =
    tracer_k - peer_k and their interval [lo, hi]:
      hi < 0: "tracer"; lo > 0: "peer";
      otherwise "tie" when |median d| <= tie * A (A: the peer's median cost
      over base, scaled()), so the median ratio is within 1 +- tie;
      otherwise, when the interval stays within the tie band on the side
      the median does not favour, "tracer-or-tie" (median d < 0, hi <=
      tie * A) or "peer-or-tie" (median d > 0, lo >= -tie * A): the rounds
      do not show a winner, but they rule out the other side winning by
      more than the tie;
      else "undecided" (the medians claim a winner the rounds do not show,
      and the loser may be ahead by more than the tie).
    diff, dlo, dhi: the median difference and its interval; ratios, median,
    lo and hi: the same as paired ratios (scaled()), None when A <= 0."""
    diff = differences(tracer, peer)
    cost = differences(peer, base) if base is not None else peer
    scale = median(cost)
    mid = median(diff)
    lo, hi, coverage = interval(diff, confidence)
    if hi < 0:
        verdict = "tracer"
    elif lo > 0:
        verdict = "peer"
    elif abs(mid) <= tie * max(scale, 0.0):
        verdict = "tie"
    elif scale > 0 and mid < 0 and hi <= tie * scale:
        verdict = "tracer-or-tie"
    elif scale > 0 and mid > 0 and lo >= -tie * scale:
        verdict = "peer-or-tie"
    else:
        verdict = "undecided"
    if scale > 0:
        ratios = scaled(tracer, peer, base)
        return Comparison(ratios, 1 + mid / scale, 1 + lo / scale, 1 + hi / scale, coverage,
                          mid, lo, hi, scale, verdict)
    return Comparison([], None, None, None, coverage, mid, lo, hi, scale, verdict)

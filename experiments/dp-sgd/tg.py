#!/usr/bin/env python3
"""Truncated-Gaussian helpers for the DP-SGD experiment (subsampled mixture pair, q = 0.1, C = 1, epsilon = 0.3).
Every delta comes from `noiselearn evaluate --json` (the certified accountant); nothing is computed here but
bisections over those certified numbers.

  tg.py eval      SIGMA N          -> "l1 delta_upper delta_lower delta_upper_AB delta_upper_BA"
  tg.py for-delta TARGET N         -> "sigma l1 delta_upper delta_lower": the least sigma whose certified upper
                                       delta is <= TARGET (bisection on log sigma, relative width 1e-2; delta is
                                       decreasing in sigma on this grid in the range used: no truncation branch)
  tg.py tangent   SIGMA N          -> "l1 delta_upper weight": weight = -d(delta_AB + delta_BA)/dL1 at SIGMA by a
                                       central difference at sigma (1 +- 2%) (the soft PLD loss sums the directions)
Grid: [-RANGE, RANGE] step STEP (environment NL_RANGE, NL_STEP; default 100, 0.1).
"""
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("NL_BIN", os.path.join(HERE, "../../build/src/cli/noiselearn"))
RANGE = os.environ.get("NL_RANGE", "100")
STEP = os.environ.get("NL_STEP", "0.1")
PAIR = ["--sensitivity", "1", "--pair", "subsampled", "--sampling-rate", "0.1"]
EPSILON = "0.3"


def run(args):
    return subprocess.run([BIN, "--quiet", "--threads", os.environ.get("NL_THREADS", "1")] + args, check=True,
                          capture_output=True, text=True).stdout


def evaluate_sigma(sigma, n):
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "tg.csv")
        run(["baseline", "truncated-gaussian", "--sigma", repr(sigma), "--grid-step", STEP, "--range", RANGE, "--out", t])
        l1 = json.load(open(t[:-4] + ".json"))["utility"]["l1"]
        c = json.loads(run(["evaluate", t] + PAIR + ["-n", str(n), "--epsilon", EPSILON, "--json"]))
        d = c["delta_at_epsilon"][0]
        by = d["delta_upper_by_direction"]
        return l1, d["delta_upper"], d["delta_lower"], by.get("A||B", 0.0), by.get("B||A", 0.0)


def for_delta(target, n):
    lo, hi = 0.5, 2.0
    while evaluate_sigma(hi, n)[1] > target:
        lo, hi = hi, hi * 2
        if hi > float(RANGE) / 3:  # beyond this the truncation's distinguishing events raise delta again
            sys.exit("tg.py: no truncated Gaussian with sigma <= RANGE/3 reaches delta %g at n = %d" % (target, n))
    while evaluate_sigma(lo, n)[1] <= target:
        lo /= 2
    while hi / lo - 1 > 1e-2:
        mid = math.sqrt(lo * hi)
        if evaluate_sigma(mid, n)[1] <= target:
            hi = mid
        else:
            lo = mid
    return (hi,) + evaluate_sigma(hi, n)[:3]


def main():
    what, x, n = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    if what == "eval":
        print("%.17g %.17g %.17g %.17g %.17g" % evaluate_sigma(x, n))
    elif what == "for-delta":
        print("%.17g %.17g %.17g %.17g" % for_delta(x, n))
    elif what == "tangent":
        u0, d0 = evaluate_sigma(x, n)[:2]
        m = evaluate_sigma(x * 0.98, n)
        p = evaluate_sigma(x * 1.02, n)
        print("%.17g %.17g %.17g" % (u0, d0, max((m[3] + m[4] - p[3] - p[4]) / (p[0] - m[0]), 0.0)))
    else:
        sys.exit("usage: tg.py eval|for-delta|tangent X N")


if __name__ == "__main__":
    main()

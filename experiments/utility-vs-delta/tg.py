#!/usr/bin/env python3
"""Truncated-Gaussian helpers for the utility-vs-delta experiment (certified numbers only: every delta comes
from `noiselearn evaluate --json`).

  tg.py eval     SIGMA N UTILITY      -> "utility delta_upper delta_lower"  of the truncated Gaussian with sigma
  tg.py at       U N UTILITY          -> "sigma delta_upper delta_lower"    of the truncated Gaussian with utility U
  tg.py tangent  SIGMA N UTILITY      -> "utility delta_upper weight"       weight = -d(2 delta)/dU at sigma
                                         (central difference at sigma (1 +- 2%); 2 delta because the training
                                         surrogate sums the two directions A||B and B||A of a symmetric table)
Grid: [-RANGE, RANGE] with POINTS points (environment NL_RANGE, NL_POINTS; default 500, 6001); sensitivity 1,
epsilon 0.3.
"""
import json
import os
import subprocess
import sys
import tempfile

BIN = os.environ.get("NL_BIN", os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../build/src/cli/noiselearn"))
RANGE = float(os.environ.get("NL_RANGE", "500"))
POINTS = int(os.environ.get("NL_POINTS", "6001"))
STEP = repr(2 * RANGE / (POINTS - 1))
EPSILON = "0.3"


def run(args):
    out = subprocess.run([BIN, "--quiet", "--threads", os.environ.get("NL_THREADS", "2")] + args, check=True, capture_output=True, text=True)
    return out.stdout


def certify(table, n):
    c = json.loads(run(["evaluate", table, "--sensitivity", "1", "-n", str(n), "--epsilon", EPSILON, "--json"]))
    d = c["delta_at_epsilon"][0]
    return d["delta_upper"], d["delta_lower"]


def table_json(table):
    with open(table[:-4] + ".json") as f:
        return json.load(f)


def evaluate_sigma(sigma, n, utility):
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "tg.csv")
        run(["baseline", "truncated-gaussian", "--sigma", repr(sigma), "--grid-step", STEP, "--range", repr(RANGE), "--out", t])
        u = table_json(t)["utility"][utility]
        return (u,) + certify(t, n)


def at_utility(u, n, utility):
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "tg.csv")
        run(["baseline", "truncated-gaussian", "--target-utility", f"{utility}={u!r}", "--grid-step", STEP,
             "--range", repr(RANGE), "--out", t])
        sigma = table_json(t)["calibration"]["value"]
        return (sigma,) + certify(t, n)


def main():
    what, x, n, utility = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    if what == "eval":
        print("%.17g %.17g %.17g" % evaluate_sigma(x, n, utility))
    elif what == "at":
        print("%.17g %.17g %.17g" % at_utility(x, n, utility))
    elif what == "tangent":
        u0, d0, _ = evaluate_sigma(x, n, utility)
        um, dm, _ = evaluate_sigma(x * 0.98, n, utility)
        up, dp, _ = evaluate_sigma(x * 1.02, n, utility)
        print("%.17g %.17g %.17g" % (u0, d0, max(2.0 * (dm - dp) / (up - um), 0.0)))
    else:
        sys.exit("usage: tg.py eval|at|tangent X N UTILITY")


if __name__ == "__main__":
    main()

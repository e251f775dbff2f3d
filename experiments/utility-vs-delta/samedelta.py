#!/usr/bin/env python3
"""The paper's "horizontal line" check (section 4.3): a truncated Gaussian wider than its delta-minimising one has
both more utility loss and more delta, so Fig. 3 replaces that branch by the minimum. A learned table that beats
the truncated Gaussian of the SAME UTILITY on that branch may still be beaten by a narrower Gaussian. For such rows
(ratio_to_tg < 1 and utility beyond 0.7 x the utility of the least-delta point of the Gaussian curve) this script
finds the LEAST utility of a truncated Gaussian whose certified delta is <= the learned one:
  1. the delta-minimising sigma of the truncated Gaussian, by golden-section search on log sigma (certified deltas,
     tg.py), bracketed by the curve points around the curve's minimum;
  2. if the learned delta is below that minimum, no truncated Gaussian on the grid reaches it; otherwise bisection
     on the left branch (delta decreasing in sigma) for the least sigma with delta <= the learned delta.
(Written when noiselearn's `baseline --target-delta` used a 25-point scan only, which could step over the dip of the
U-shaped delta(sigma) and call a reachable target unreachable; it now refines the dip by golden-section search too.)

  samedelta.py RESULTS UTILITY  ->  RESULTS/same-delta-UTILITY.csv
"""
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tg  # noqa: E402

res, utility = sys.argv[1], sys.argv[2]
curve = [r for r in csv.DictReader(open(os.path.join(res, f"gaussian-curve-{utility}.csv")))]
rows = list(csv.DictReader(open(os.path.join(res, f"utility-vs-delta-{utility}.csv"))))
cache = {}


def delta(sigma, n):
    key = (round(sigma, 12), n)
    if key not in cache:
        cache[key] = tg.evaluate_sigma(sigma, n, utility)
    return cache[key]


def minimum(n):
    pts = sorted((float(r["sigma"]), float(r["delta_upper"])) for r in curve if int(r["n"]) == n)
    i = min(range(len(pts)), key=lambda k: pts[k][1])
    a, b = math.log(pts[max(i - 1, 0)][0]), math.log(pts[min(i + 1, len(pts) - 1)][0])
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    for _ in range(30):
        if delta(math.exp(c), n)[1] < delta(math.exp(d), n)[1]:
            b, d = d, c
            c = b - g * (b - a)
        else:
            a, c = c, d
            d = a + g * (b - a)
    s = math.exp((a + b) / 2)
    return s, delta(s, n)


minima = {}
out = open(os.path.join(res, f"same-delta-{utility}.csv"), "w")
out.write("n,loss,model,utility_weight,utility,delta_upper,tg_min_delta_sigma,tg_min_delta_utility,tg_min_delta,"
          "tg_same_delta_sigma,tg_same_delta_utility,verdict\n")
for r in rows:
    n, u, d = int(r["n"]), float(r["utility"]), float(r["delta_upper"])
    pts = [(float(c["utility"]), float(c["delta_upper"])) for c in curve if int(c["n"]) == n]
    u_argmin = min(pts, key=lambda p: p[1])[0]
    if not (float(r["ratio_to_tg"]) < 1.0 and u > 0.7 * u_argmin):
        continue
    if n not in minima:
        minima[n] = minimum(n)
    s_min, (u_min, d_min, _) = minima[n]
    head = f"{n},{r['loss']},{r['model']},{r['utility_weight']},{u:.8g},{d:.8g},{s_min:.8g},{u_min:.8g},{d_min:.8g}"
    if d < d_min:
        out.write(f"{head},,,learned better: below the least delta of every truncated Gaussian on the grid\n")
        continue
    lo, hi = 1e-3 * s_min, s_min  # delta(lo) > d (a very narrow Gaussian), delta(hi) <= d
    while delta(lo, n)[1] <= d:
        lo /= 2
    for _ in range(40):
        mid = math.sqrt(lo * hi)
        if delta(mid, n)[1] <= d:
            hi = mid
        else:
            lo = mid
        if hi / lo - 1 < 1e-6:
            break
    tu = delta(hi, n)[0]
    verdict = "learned better (less utility at the same delta)" if u <= tu else "truncated Gaussian better (less utility at the same delta)"
    out.write(f"{head},{hi:.8g},{tu:.8g},{verdict}\n")
    out.flush()

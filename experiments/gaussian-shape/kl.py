#!/usr/bin/env python3
"""KL divergence between two noise tables on the same grid (no numpy):
  kl.py LEARNED.csv BASELINE.csv  ->  KL(learned || baseline) and KL(baseline || learned) in nats, and the total
variation distance. Both files are noiselearn tables (header x,p); the grids must agree point by point."""
import math
import sys


def read(path):
    xs, ps = [], []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("x"):
            continue
        x, p = line.split(",")[:2]
        xs.append(float(x)); ps.append(float(p))
    return xs, ps


def kl(p, q):
    total = 0.0
    for a, b in zip(p, q):
        if a > 0.0:
            if b <= 0.0:
                return math.inf
            total += a * math.log(a / b)
    return total


xs, p = read(sys.argv[1])
ys, q = read(sys.argv[2])
assert len(xs) == len(ys) and all(abs(a - b) <= 1e-9 * max(1.0, abs(a)) for a, b in zip(xs, ys)), "different grids"
tv = 0.5 * sum(abs(a - b) for a, b in zip(p, q))
print("%.6e,%.6e,%.6e" % (kl(p, q), kl(q, p), tv))

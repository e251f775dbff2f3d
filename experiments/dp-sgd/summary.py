#!/usr/bin/env python3
"""Markdown table of RESULTS/dp-sgd.csv (the README's "Measured" table). Every delta is a certified bound
(upper; lower in brackets where the comparison depends on it)."""
import csv
import os
import sys

res = sys.argv[1] if len(sys.argv) > 1 else "results"
rows = list(csv.DictReader(open(os.path.join(res, "dp-sgd.csv"))))
g = lambda x, d=4: ("%%.%dg" % d) % float(x) if x else "-"
print("| n | start: TG sigma, L1, delta <= | learned L1 | learned delta in [lower, upper] (every shift: upper) | TG same L1: delta in [lower, upper] | delta ratio | TG same delta: L1 | L1 ratio | verdict | train s |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print("| %s | %s, %s, %s | %s | [%s, %s] (%s) | [%s, %s] | %s | %s | %s | %s | %s |" % (
        r["n"], g(r["start_sigma"]), g(r["start_l1"]), g(r["start_delta_upper"]), g(r["l1"], 5),
        g(r["delta_lower"], 6), g(r["delta_upper"], 6), g(r.get("delta_upper_every_shift", ""), 6),
        g(r["same_l1_tg_delta_lower"], 6), g(r["same_l1_tg_delta_upper"], 6), g(r["delta_ratio"], 3),
        g(r["same_delta_tg_l1"], 5), g(r["l1_ratio"], 4), r["verdict"], r["train_seconds"]))

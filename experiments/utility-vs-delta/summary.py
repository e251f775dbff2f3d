#!/usr/bin/env python3
"""Per-n summary of utility-vs-delta-UTILITY.csv as a Markdown table (certified numbers only).

  summary.py RESULTS UTILITY  ->  stdout (run.sh writes RESULTS/summary-UTILITY.md)

For every n and method: the least ratio delta_learned / delta_truncated-Gaussian-of-the-same-utility over the
utility weights of the sweep (< 1: the learned table is better). A ratio whose point lies beyond the truncated
Gaussian's least-delta utility and which same-delta-UTILITY.csv shows to be beaten by a NARROWER truncated Gaussian
(less utility at the same delta: the paper's "horizontal line" convention) does not count as better; such points
are left out of the minimum and counted in the last column. A ratio marked ≈ is below 1 by less than the
accountant's bracket: the learned table's upper bound is not below the truncated Gaussian's lower bound.
"""
import csv
import os
import sys

res, utility = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(os.path.join(res, f"utility-vs-delta-{utility}.csv"))))
beaten = set()
same_delta = os.path.join(res, f"same-delta-{utility}.csv")
if os.path.exists(same_delta):
    for r in csv.DictReader(open(same_delta)):
        if r["verdict"].startswith("truncated Gaussian better"):
            beaten.add((r["n"], r["loss"], r["model"], r["utility_weight"]))
def ratio(point):  # near 1, show how far below 1
    x, overlap = point
    return (f"1−{1 - x:.0e}" if 0.999 < x < 1 else f"{x:.3g}") + (" ≈" if overlap else "")


methods = [("soft-pld", "monotone-logits", "soft-PLD, monotone logits from TG"),
           ("moments-accountant", "sigmoid-stack", "MA, sigmoid stack"),
           ("privacy-buckets-adp", "sigmoid-stack", "PB-ADP, sigmoid stack"),
           ("soft-pld", "sigmoid-stack", "soft-PLD, sigmoid stack")]
print(f"| n | " + " | ".join(m[2] for m in methods) + " | beaten at same δ |")
print("|---" * (len(methods) + 2) + "|")
for n in sorted({int(r["n"]) for r in rows}):
    cells, excluded = [], 0
    for loss, model, _ in methods:
        ratios = []
        for r in rows:
            if int(r["n"]) != n or r["loss"] != loss or r["model"] != model:
                continue
            if (r["n"], loss, model, r["utility_weight"]) in beaten:
                excluded += 1
                continue
            overlap = float(r["delta_upper"]) >= float(r["tg_delta_lower"]) and float(r["ratio_to_tg"]) <= 1
            ratios.append((float(r["ratio_to_tg"]), overlap))
        if model == "monotone-logits":  # every weight: the goal is <= 1 at each of them
            cells.append(" / ".join(ratio(x) for x in ratios))
        else:
            cells.append(ratio(min(ratios)) if ratios else "-")  # tuples: least ratio first
    print(f"| {n} | " + " | ".join(cells) + f" | {excluded} |")

#!/usr/bin/env python3
"""The rows of utility-vs-delta-UTILITY.csv from the sweeps' collected.csv (certified numbers only).

  rows.py RESULTS UTILITY  ->  stdout: loss,model,n,utility_kind,utility_weight,final_utility_weight,utility,
                               delta_upper,delta_lower,tg_sigma,tg_delta_upper,tg_delta_lower,ratio_to_tg,note,
                               train_seconds   (one row per done point, sorted by n, loss, model, utility)
delta_* are collect's copies of each run's noise.json certificate (epsilon 0.3, n compositions); tg_* the truncated
Gaussian with the same utility on the same grid (tg.py at; cached in RESULTS/tg-at-UTILITY.csv, as certifying it
is most of this script's time); ratio = delta_upper / tg_delta_upper (< 1: the learned table is better).
"""
import csv
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
res, utility = sys.argv[1], sys.argv[2]
cache_path = os.path.join(res, f"tg-at-{utility}.csv")
cache = {}
if os.path.exists(cache_path):
    for r in csv.reader(open(cache_path)):
        cache[(r[0], r[1])] = r[2:5]


def tg_at(u, n):
    if (u, n) not in cache:
        cache[(u, n)] = subprocess.run([sys.executable, os.path.join(here, "tg.py"), "at", u, n, utility], check=True,
                                       capture_output=True, text=True).stdout.split()
        with open(cache_path, "a") as f:
            f.write(",".join([u, n] + cache[(u, n)]) + "\n")
    return [float(x) for x in cache[(u, n)]]


rows = []
for sweep in ("sweep", "sweep-monotone"):
    path = os.path.join(res, sweep, "collected.csv")
    if not os.path.exists(path):
        continue
    for r in csv.DictReader(open(path)):
        if r["status"] != "done" or r["utility_kind"] != utility:
            continue
        config = open(os.path.join(res, sweep, "points", r["point"], "config.yaml")).read()
        value = lambda key: re.search(rf"\n  {key}: (\S+)", config).group(1)  # noqa: E731
        weight = float(value("utility_weight_start"))
        final_weight = weight
        if value("utility_weight_decay") == "true":  # w_end of eq. (3): max(w_start 2^(-(epochs-1)/halving), w_min)
            final_weight = max(weight * 2.0 ** (-(int(value("epochs")) - 1) / float(value("utility_weight_halving_epochs"))),
                               float(value("utility_weight_min")))
        u, n = r["utility"], r["compositions"]
        sigma, tg_up, tg_low = tg_at(u, n)
        up = float(r["delta_upper"])
        note = "collapsed (delta > 0.5)" if up > 0.5 else ""
        rows.append([re.search(r"\nloss:\n  kind: (\S+)", config).group(1),
                     re.search(r"\nmodel:\n  kind: (\S+)", config).group(1), n, utility, "%.6g" % weight,
                     "%.6g" % final_weight, "%.10g" % float(u), "%.10g" % up, "%.10g" % float(r["delta_lower"]),
                     "%.8g" % sigma, "%.10g" % tg_up, "%.10g" % tg_low, "%.6g" % (up / tg_up if tg_up > 0 else float("inf")),
                     note, "%.1f" % float(r["train_seconds"])])
rows.sort(key=lambda x: (int(x[2]), x[0], x[1], float(x[6])))
print("loss,model,n,utility_kind,utility_weight,final_utility_weight,utility,delta_upper,delta_lower,tg_sigma,"
      "tg_delta_upper,tg_delta_lower,ratio_to_tg,note,train_seconds")
for row in rows:
    print(",".join(row))

#!/usr/bin/env python3
"""One CSV row for a finished DP-SGD training run (certified numbers only: every delta is the certified accountant's,
read from RUN_DIR/noise.json and RUN_DIR/comparison.csv, which `train` writes with certification.compare_gaussian).

  row.py RUN_DIR N START_DELTA SIGMA0 START_L1 START_DELTA_UPPER WEIGHT SECONDS
prints the columns of HEADER. comparison.csv holds the truncated Gaussian on the same grid with the same L1
(and its certified delta) and the one with the same certified delta (the least sigma whose upper delta is <= the
learned upper delta, and its L1).
"""
import csv
import json
import os
import sys

HEADER = ("n,start_target_delta,start_sigma,start_l1,start_delta_upper,utility_weight,l1,delta_upper,delta_lower,"
          "eps_at_1e-6_upper,eps_at_1e-6_lower,same_l1_tg_sigma,same_l1_tg_delta_upper,same_l1_tg_delta_lower,"
          "delta_ratio,same_delta_tg_sigma,same_delta_tg_l1,same_delta_tg_delta_upper,l1_ratio,verdict,train_seconds")

if sys.argv[1] == "--header":
    print(HEADER)
    sys.exit(0)
run_dir, n, start_target, sigma0, start_l1, start_d, weight, seconds = sys.argv[1:9]
meta = json.load(open(os.path.join(run_dir, "noise.json")))
cert = meta["certificate"]
assert cert["compositions"] == int(n), "certificate is for another n"
d = cert["delta_at_epsilon"][0]
assert abs(d["epsilon"] - 0.3) < 1e-12
e6 = [e for e in cert["epsilon_at_delta"] if abs(e["delta"] - 1e-6) < 1e-18][0]
rows = {r["table"]: r for r in csv.DictReader(open(os.path.join(run_dir, "comparison.csv")))}
learned = rows["learned"]
su = rows.get("truncated-gaussian-same-utility")
sd = rows.get("truncated-gaussian-same-delta")
l1 = float(learned["l1"])
up, low = d["delta_upper"], d["delta_lower"]
f = lambda x: "%.10g" % x
out = [n, start_target, f(float(sigma0)), f(float(start_l1)), f(float(start_d)), "%.6g" % float(weight), f(l1), f(up),
       f(low), f(e6["epsilon_upper"]), f(e6["epsilon_lower"])]
verdict = []
if su:
    su_up, su_low = float(su["delta_upper"]), float(su["delta_lower"])
    out += [f(float(su["sigma"])), f(su_up), f(su_low), "%.6g" % (up / su_up)]
    # better at equal L1, certified: learned upper < Gaussian lower; within the bracket: "equal"
    verdict.append("same L1: " + ("learned better" if up < su_low else "learned worse" if low > su_up else "equal within bracket"))
else:
    out += ["", "", "", ""]
if sd:
    sd_l1 = float(sd["l1"])
    out += [f(float(sd["sigma"])), f(sd_l1), f(float(sd["delta_upper"])), "%.6g" % (l1 / sd_l1)]
    verdict.append("same delta: " + ("learned better" if l1 < sd_l1 else "learned worse" if l1 > sd_l1 else "equal"))
else:
    out += ["", "", "", ""]
    verdict.append("same delta: no truncated Gaussian on the grid reaches the learned delta")
out += ["; ".join(verdict), "%.1f" % float(seconds)]
print(",".join(out))

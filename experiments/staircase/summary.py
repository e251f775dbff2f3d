#!/usr/bin/env python3
"""summary.csv of the staircase experiment from results/compare.csv (noiselearn compare: certified bounds at
epsilon = 0.3, n = 1) and the tables' JSON (infinity mass = distinguishing events of one release)."""
import csv
import json
import os
import sys

res = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(res, "compare.csv"))))
stair = next(r for r in rows if r["table"].endswith("staircase.csv"))
d0, u0 = float(stair["delta_upper"]), float(stair["l1"])
print("table,l1,delta_upper,delta_lower,infinity_mass,delta_rel_diff_to_staircase,l1_rel_diff_to_staircase,"
      "tg_same_l1_delta_upper")
for r in rows:
    path = r["table"]
    name = "staircase-analytic-truncated" if path.endswith("staircase.csv") else os.path.basename(os.path.dirname(path))
    meta = json.load(open(path[:-4] + ".json"))
    omega = meta["certificate"]["infinity_mass"]["single_release"]
    du, dl, u = float(r["delta_upper"]), float(r["delta_lower"]), float(r["l1"])
    print(f"{name},{u:.8g},{du:.8g},{dl:.8g},{omega:.8g},{(du - d0) / d0:+.3e},{(u - u0) / u0:+.3e},"
          f"{float(r['gaussian_same_l1_delta_upper']):.6g}")

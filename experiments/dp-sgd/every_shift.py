#!/usr/bin/env python3
"""Adds delta_upper_every_shift / delta_lower_every_shift to RESULTS/dp-sgd.csv: the learned table certified with
`--shifts all`, the envelope over every shift 1..10 cells in both signs. The default certificate of a symmetric,
monotone table checks the largest shift only, which for the subsampled pair rests on Sommer et al.'s Thm 15 carried
to the mixture pair (proved in src/accounting/README.md, "Why one shift suffices"); the envelope needs no such step.

  every_shift.py RESULTS
"""
import csv
import json
import os
import subprocess
import sys

res = sys.argv[1]
BIN = os.environ["NL_BIN"]
path = os.path.join(res, "dp-sgd.csv")
rows = list(csv.DictReader(open(path)))
fields = [f for f in rows[0].keys() if not f.endswith("_every_shift")] + ["delta_upper_every_shift", "delta_lower_every_shift"]
for r in rows:
    table = os.path.join(res, "runs", "n%s-start%s" % (r["n"], r["start_target_delta"]), "noise.csv")
    c = json.loads(subprocess.run([BIN, "--quiet", "--threads", os.environ.get("NL_THREADS", "1"), "evaluate", table,
                                   "--sensitivity", "1", "--pair", "subsampled", "--sampling-rate", "0.1", "-n", r["n"],
                                   "--epsilon", "0.3", "--shifts", "all", "--json"],
                                  check=True, capture_output=True, text=True).stdout)
    assert "every shift" in c["pairs_checked"], c["pairs_checked"]
    d = c["delta_at_epsilon"][0]
    r["delta_upper_every_shift"] = "%.10g" % d["delta_upper"]
    r["delta_lower_every_shift"] = "%.10g" % d["delta_lower"]
with open(path + ".tmp", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: r.get(k, "") for k in fields})
os.replace(path + ".tmp", path)

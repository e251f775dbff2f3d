#!/usr/bin/env python3
"""kl.csv: per run, the learned table's L2, its certified delta (noise.json certificate), the utility-matched
truncated Gaussian's sigma and certified delta (comparison.csv), and KL(learned || baseline), KL(baseline ||
learned) and the total variation from kl.py on noise.csv and baseline.csv. The Laplace start is scored too."""
import csv
import json
import os
import subprocess
import sys

res = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
seconds = dict(line.strip().split(",") for line in open(os.path.join(res, "seconds.csv")) if line.strip())
print("run,loss,model,start,l2,delta_upper,delta_lower,tg_sigma,tg_delta_upper,kl_learned_baseline,kl_baseline_learned,"
      "total_variation,seconds")
for name in sorted(seconds):
    d = os.path.join(res, "runs", name)
    meta = json.load(open(os.path.join(d, "noise.json")))
    cert = meta["certificate"]["delta_at_epsilon"][0]
    comp = {r["table"]: r for r in csv.DictReader(open(os.path.join(d, "comparison.csv")))}
    tg = comp["truncated-gaussian-same-utility"]
    kl = subprocess.run([sys.executable, os.path.join(here, "kl.py"), os.path.join(d, "noise.csv"),
                         os.path.join(d, "baseline.csv")], check=True, capture_output=True, text=True).stdout.strip()
    config = open(os.path.join(d, "config.yaml")).read()
    start = "paper" if "sigmoid" in name else ("truncated Laplace" if "laplace" in name else "truncated Gaussian")
    print(f"{name},{meta['loss']['kind']},{meta['model']},{start},{meta['utility']['l2']:.8g},{cert['delta_upper']:.8g},"
          f"{cert['delta_lower']:.8g},{float(tg['sigma']):.8g},{float(tg['delta_upper']):.8g},{kl},{seconds[name]}")

# For scale: the (untrained) truncated Laplace start against the truncated Gaussian with its L2.
binary = os.path.join(here, "../../build/src/cli/noiselearn")
threads = os.environ.get("THREADS", "2")
start = os.path.join(res, "laplace-start.csv")
l2 = json.load(open(start[:-4] + ".json"))["utility"]["l2"]
gauss = os.path.join(res, "laplace-start-gaussian.csv")
subprocess.run([binary, "--quiet", "--threads", threads, "baseline", "truncated-gaussian", "--target-utility", f"l2={l2!r}",
                "--grid-step", "0.16666666666666667", "--range", "500", "--out", gauss, "--force"], check=True,
               capture_output=True)


def certified(table):
    out = subprocess.run([binary, "--quiet", "--threads", threads, "evaluate", table, "--sensitivity", "1", "-n", "128",
                          "--epsilon", "0.3", "--json"], check=True, capture_output=True, text=True).stdout
    d = json.loads(out)["delta_at_epsilon"][0]
    return d["delta_upper"], d["delta_lower"]


du, dl = certified(start)
gu, _ = certified(gauss)
sigma = json.load(open(gauss[:-4] + ".json"))["calibration"]["value"]
kl = subprocess.run([sys.executable, os.path.join(here, "kl.py"), start, gauss], check=True, capture_output=True,
                    text=True).stdout.strip()
print(f"laplace-start (untrained),,,truncated Laplace,{l2:.8g},{du:.8g},{dl:.8g},{sigma:.8g},{gu:.8g},{kl},0")

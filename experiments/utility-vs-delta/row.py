#!/usr/bin/env python3
"""One CSV row for a finished training run (certified numbers only).

  row.py RUN_DIR LOSS MODEL N UTILITY WEIGHT SECONDS
prints: loss,model,n,utility_kind,utility_weight,final_utility_weight,utility,delta_upper,delta_lower,
        tg_sigma,tg_delta_upper,tg_delta_lower,ratio,note,train_seconds
delta_* come from the certificate in RUN_DIR/noise.json (the certified accountant at epsilon 0.3, n
compositions); tg_* from the truncated Gaussian with the same utility on the same grid (tg.py at).
ratio = delta_upper / tg_delta_upper (< 1: the learned table is better).
"""
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
run_dir, loss, model, n, utility, weight, seconds = sys.argv[1:8]
meta = json.load(open(os.path.join(run_dir, "noise.json")))
cert = meta["certificate"]["delta_at_epsilon"][0]
assert abs(cert["epsilon"] - 0.3) < 1e-12 and meta["certificate"]["compositions"] == int(n)
u = meta["utility"][utility]
config = open(os.path.join(run_dir, "config.yaml")).read()
final_weight = float(weight)
if "utility_weight_decay: true" in config:
    # w_end of eq. (3): max(w_start 2^(-(epochs-1)/halving), w_min), read from the resolved config
    import re
    epochs = int(re.search(r"\n  epochs: (\S+)", config).group(1))
    halving = float(re.search(r"utility_weight_halving_epochs: (\S+)", config).group(1))
    w_min = float(re.search(r"utility_weight_min: (\S+)", config).group(1))
    final_weight = max(float(weight) * 2.0 ** (-(epochs - 1) / halving), w_min)
tg = subprocess.run([sys.executable, os.path.join(here, "tg.py"), "at", repr(u), n, utility], check=True,
                    capture_output=True, text=True).stdout.split()
sigma, tg_up, tg_low = (float(x) for x in tg)
stopped = "stopped early (NaN guard)" if meta.get("training", {}).get("stopped_early") else ""
if cert["delta_upper"] > 0.5:
    stopped = (stopped + " " if stopped else "") + "collapsed (delta > 0.5)"
print(",".join([loss, model, n, utility, "%.6g" % float(weight), "%.6g" % final_weight, "%.10g" % u,
                "%.10g" % cert["delta_upper"], "%.10g" % cert["delta_lower"], "%.8g" % sigma, "%.10g" % tg_up,
                "%.10g" % tg_low, "%.6g" % (cert["delta_upper"] / tg_up if tg_up > 0 else float("inf")), stopped,
                "%.1f" % float(seconds)]))

#!/usr/bin/env python3
"""results/learned.csv from every results/runs/*/point.json (pb_learned.py), copied to results/points/. Epsilons are certified bounds of
noiselearn's accountant at the point's delta after T releases, except gaussian_analytic_eps (the continuous
Gaussian, analytic). pb_exact_best_eps is left empty: the exact epsilon of the best PB kernel comes from the
privacy-boosting accountant (issue 11, section 1), not from this script."""
import glob
import json
import os
import sys

res = sys.argv[1] if len(sys.argv) > 1 else "results"
cols = ["tau", "sensitivity", "rho", "delta", "T", "grid_range", "grid_step",
        "gaussian_sigma", "gaussian_analytic_eps",
        "gaussian_same_sigma_tail", "gaussian_same_sigma_eps_upper", "gaussian_same_sigma_eps_lower",
        "gaussian_grid_sigma", "gaussian_grid_tail", "gaussian_grid_eps_upper", "gaussian_grid_eps_lower",
        "laplace_grid_scale", "laplace_grid_tail", "laplace_grid_eps_upper", "laplace_grid_eps_lower",
        "pb_exact_best_eps",
        "learned_start", "learned_tail", "learned_eps_upper", "learned_eps_lower", "learned_from",
        "learned_over_gaussian_grid", "learned_over_best_baseline", "search_bracket", "seconds"]
rows = []
os.makedirs(os.path.join(res, "points"), exist_ok=True)
for path in glob.glob(os.path.join(res, "runs", "*", "point.json")):
    p = json.load(open(path))
    # keep every number of the point (baselines, every trial of the search) in git: runs/ is ignored
    name = os.path.basename(os.path.dirname(path))
    with open(os.path.join(res, "points", name + ".json"), "w") as f:
        json.dump(p, f, indent=1)
    g, gs, gg, lg, le = p["gaussian_continuous"], p["gaussian_same_sigma"], p["gaussian_grid"], p["laplace_grid"], p["learned"]
    best = min(gg["epsilon_upper"], lg["epsilon_upper"])
    if not p["learned_search"]["trials"]:
        le = dict(le, **{"from": "start: no training run"})
    if le["from"].startswith("trial"):  # a trial that kept its starting table is that table, not a learned one
        t = p["learned_search"]["trials"][int(le["from"][5:].split()[0])]
        if "met by the starting table" in str(t["target"]):
            le = dict(le, **{"from": "start kept (no trial improved on it)"})
    r = [p["tau"], p["sensitivity"], p["rho"], p["delta"], p["T"], p["grid_range"], p["grid_step"],
         "%.7f" % g["sigma"], "%.6f" % g["epsilon_analytic"],
         "%.6f" % gs["tail"], "%.6f" % gs["epsilon_upper"], "%.6f" % gs["epsilon_lower"],
         "%.7f" % gg["scale"], "%.10f" % gg["tail"], "%.6f" % gg["epsilon_upper"], "%.6f" % gg["epsilon_lower"],
         "%.7f" % lg["scale"], "%.10f" % lg["tail"], "%.6f" % lg["epsilon_upper"], "%.6f" % lg["epsilon_lower"],
         "",
         p["learned_start"].replace("_grid", ""), "%.10f" % le["tail"], "%.6f" % le["epsilon_upper"],
         "%.6f" % le["epsilon_lower"], le["from"].replace(",", ";"),
         "%.5f" % (le["epsilon_upper"] / gg["epsilon_upper"]), "%.5f" % (le["epsilon_upper"] / best),
         "%.6f-%.6f" % tuple(p["learned_search"]["bracket"]), p["seconds"]]
    rows.append([str(x) for x in r])
rows.sort(key=lambda r: (float(r[4]), float(r[1]), float(r[0])))
with open(os.path.join(res, "learned.csv"), "w") as f:
    f.write(",".join(cols) + "\n")
    for r in rows:
        f.write(",".join(r) + "\n")
print(open(os.path.join(res, "learned.csv")).read())

# The README's table: results/summary.md (epsilon brackets [lower, upper] from the certificate).
with open(os.path.join(res, "summary.md"), "w") as f:
    f.write("| tau | Delta | rho | T | Gaussian sigma, analytic eps (continuous) | same sigma on the grid: tail, eps | Gaussian calibrated on the grid: sigma, eps | Laplace calibrated on the grid: b, eps | exact best PB | learned: tail, eps | learned / Gaussian (grid) | learned / best baseline |\n")
    f.write("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    for r in rows:
        d = dict(zip(cols, r))
        f.write("| %s | %s | %s | %s | %s, %s | %s, [%s, %s] | %s, [%s, %s] | %s, [%s, %s] | %s | %s, [%s, %s]%s | %s | %s |\n" % (
            d["tau"], d["sensitivity"], d["rho"], d["T"], d["gaussian_sigma"], d["gaussian_analytic_eps"],
            d["gaussian_same_sigma_tail"], d["gaussian_same_sigma_eps_lower"], d["gaussian_same_sigma_eps_upper"],
            d["gaussian_grid_sigma"], d["gaussian_grid_eps_lower"], d["gaussian_grid_eps_upper"],
            d["laplace_grid_scale"], d["laplace_grid_eps_lower"], d["laplace_grid_eps_upper"],
            d["pb_exact_best_eps"] or "(to come)", "%.6f" % float(d["learned_tail"]), d["learned_eps_lower"],
            d["learned_eps_upper"], (" (no training run)" if "no training" in d["learned_from"] else " (start kept)")
            if d["learned_from"].startswith("start") else "",
            d["learned_over_gaussian_grid"], d["learned_over_best_baseline"]))
print(open(os.path.join(res, "summary.md")).read())

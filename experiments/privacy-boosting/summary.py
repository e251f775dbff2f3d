#!/usr/bin/env python3
"""Collects the JSON reports of one part into results/pb-<part>.csv and plots it with gnuplot (if installed)."""
import csv, glob, json, os, shutil, subprocess, sys

part, res = sys.argv[1], sys.argv[2]
rows = []
for path in sorted(glob.glob(os.path.join(res, "reports", part + "-*.json"))):
    r = json.load(open(path))
    m, nb = r["mechanism"], r["neighbours"]
    c = r["certificate"]["at_delta"][0]
    rows.append({
        "name": os.path.basename(path)[:-5], "region": m["region"], "width": m["smallest_region_width"],
        "sensitivity": nb["sensitivity"], "rho": m["rho"], "compositions": r["compositions"], "delta": c["delta"],
        "scale": m["scale"], "q": m["q"], "pb_epsilon_lower": c["epsilon_lower"], "pb_epsilon_upper": c["epsilon_upper"],
        "gaussian_sigma": c.get("gaussian_sigma", ""), "gaussian_epsilon": c.get("gaussian_epsilon", ""),
        "paper_heuristic_at_this_scale": c.get("paper_heuristic_epsilon", ""),
        "ratio_pb_to_gaussian": c["epsilon_upper"] / c["gaussian_epsilon"] if c.get("gaussian_epsilon") else "",
    })
rows.sort(key=lambda r: (r["region"], r["sensitivity"], r["delta"], r["compositions"], r["width"], r["rho"]))
out = os.path.join(res, "pb-%s.csv" % part)
with open(out + ".tmp", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["name"])
    w.writeheader()
    w.writerows(rows)
os.replace(out + ".tmp", out)
print("wrote %s (%d rows)" % (out, len(rows)), file=sys.stderr)
if not shutil.which("gnuplot") or not rows:
    sys.exit(0)
x = {"fig2": (3, "width of the smallest preferred region |S|"), "fig3": (5, "rho"), "fig6": (6, "compositions T")}[part]
groups = sorted({(r["region"], r["sensitivity"], r["delta"]) for r in rows})
plot = []
for g in groups:
    sel = "strcol(2) eq '%s' && $4 == %s && $7 == %s" % g
    plot.append("'%s' every ::1 using ($%d):((%s) ? $11 : 1/0) with linespoints title 'PB %s, Delta %g, delta %g (certified)'" % (out, x[0], sel, *g))
    if g[0] == "interval":
        plot.append("'%s' every ::1 using ($%d):((%s) ? $13 : 1/0) with lines dt 2 title 'Gaussian, Delta %g, delta %g'" % (out, x[0], sel, g[1], g[2]))
script = ("set terminal pngcairo size 1000,650 noenhanced font ',11'\nset datafile separator ','\nset grid\nset key top right\n"
          "set output '%s'\nset xlabel '%s'\nset ylabel 'epsilon'\n%s\nplot %s\n" %
          (os.path.join(res, "pb-%s.png" % part), x[1], "set logscale x\nset logscale y" if part == "fig6" else "set logscale y", ", \\\n  ".join(plot)))
subprocess.run(["gnuplot"], input=script.encode(), check=True)

#!/usr/bin/env bash
# Xiao et al. (CCS 2025), section 5: the Maximal Leakage optimum (Thm 4, Alg. 2).
#   Fig. 3: 7 states, uniform prior, c_ij = j (1-indexed), v = 1 .. 7 (and 3.5);
#   the issue's Fig. 4 stand-in: 100 states, uniform prior, c_ij = j - i, v = 1 .. 40, against its closed form;
#   the authors' default instance (prior (2,1,0,1,2,0,1)/7, c_ij = j^2, v = 3).
# Writes results/fig3.csv, results/fig4.csv, results/fig4.png and results/runs/ (git-ignored). A few seconds.
set -euo pipefail
cd "$(dirname "$0")"
BIN=${BIN:-../../build/src/cli/noiselearn}
mkdir -p results/runs
"$BIN" maxl ../../configs/maximal-leakage-fig3.yaml --out results/runs/fig3 --force --set curve.budget_step=0.5 > results/runs/fig3.txt
"$BIN" maxl ../../configs/maximal-leakage-default.yaml --out results/runs/default --force > results/runs/default.txt
"$BIN" maxl --out results/runs/fig4 --force --set problem.states=100 --set problem.first_state=0 --set 'problem.cost=j - i' \
  --set leakage.budget=40 --set curve.budget_max=40 --set curve.budget_step=1 > results/runs/fig4.txt
# Fig. 3: the paper's values (sevenths) next to ours.
python3 - <<'PY'
import csv
paper = {1: 49, 2: 37, 3: 33, 3.5: 32, 4: 31, 5: 30, 6: 29, 7: 28}  # section 5.1 / Fig. 3 (only these are printed)
rows = list(csv.DictReader(open("results/runs/fig3/cost_curve.csv")))
with open("results/fig3.csv", "w") as out:
    out.write("v,cost,cost_times_7,paper_times_7\n")
    for r in rows:
        v = float(r["v"]); c = float(r["cost"])
        out.write(f"{v:g},{c:.15g},{7*c:.12g},{paper.get(v, '')}\n")
# Fig. 4 stand-in: with uniform prior and c_ij = j - i the optimum cuts 0 .. 99 into v blocks as equal as possible;
# a block of L states costs L (L - 1) / 2 / 100.
rows = list(csv.DictReader(open("results/runs/fig4/cost_curve.csv")))
with open("results/fig4.csv", "w") as out:
    out.write("v,cost,closed_form\n")
    for r in rows:
        v = int(float(r["v"])); q, extra = divmod(100, v)
        closed = (extra * (q + 1) * q / 2 + (v - extra) * q * (q - 1) / 2) / 100
        out.write(f"{v},{float(r['cost']):.15g},{closed:.15g}\n")
PY
if command -v gnuplot > /dev/null; then
  gnuplot <<'GP'
set terminal pngcairo size 1000,650 noenhanced font ',11'
set output 'results/fig4.png'
set datafile separator ','
set grid
set xlabel 'leakage budget v (leakage <= ln v nats)'
set ylabel 'optimal expected cost (additional states)'
set title 'Maximal Leakage optimum, 100 states, uniform prior, c_ij = j - i'
plot 'results/fig4.csv' every ::1 using 1:2 with linespoints pt 7 title 'noiselearn maxl (Alg. 2)', \
     'results/fig4.csv' every ::1 using 1:3 with lines dt 2 lw 2 title 'closed form: equal blocks'
GP
fi
cat results/fig3.csv
head -12 results/fig4.csv
grep -h "states\|cost" results/runs/default.txt

#!/usr/bin/env bash
# Xiao et al. (CCS 2025), section 6, Fig. 4(b): the PAC-privacy mutual-information bound of the optimal one-sided
# noise (truncated Gaussian on [0, R], Thm 5 / Alg. 3 corrected) against the second-moment budget B, for R = 5, 10,
# 20, sigma_Y^2 = 20.6 (the AES cache-miss variance), with the zero-mean unbounded Gaussian 1/2 ln(1 + sigma_Y^2/B).
# Writes results/mi_curves.csv, results/mi_curves.png, results/points.csv and results/runs/ (git-ignored). Seconds.
set -euo pipefail
cd "$(dirname "$0")"
BIN=${BIN:-../../build/src/cli/noiselearn}
mkdir -p results/runs
for R in 5 10 20; do
  "$BIN" pac ../../configs/pac-privacy.yaml --out results/runs/R$R --force --set pac.range=$R --set curve.budget_max=150 \
    --set curve.points=150 --set output.plots=false --json > results/runs/R$R.json
done
# The issue's reference points.
{
  echo "R,B,mu,sigma,mutual_information_nats,reference_mu,reference_sigma,reference_mi"
  for case in "20 100 7.9401 6.2751 0.38952" "10 10 0.8488 2.8118 1.13421" "5 8.2576 2.5 - 1.36948" "5 100 2.5 - 1.36948"; do
    set -- $case
    "$BIN" pac --out results/runs/point-$1-$2 --force --set pac.range=$1 --set pac.budget=$2 --set curve.points=0 \
      --set output.plots=false --set table.step=0.5 --json > results/runs/point.json
    python3 -c "import json,sys; s=json.load(open('results/runs/point.json')); print(f\"$1,$2,{s['mu']:.6f},{s['sigma']:.6f},{s['mutual_information_nats']:.6f},$3,$4,$5\")"
  done
} > results/points.csv
python3 - <<'PY'
import csv
curves = {R: list(csv.DictReader(open(f"results/runs/R{R}/mi_curve.csv"))) for R in (5, 10, 20)}
with open("results/mi_curves.csv", "w") as out:
    out.write("budget,mi_R5,mi_R10,mi_R20,gaussian_reference\n")
    for k in range(len(curves[5])):
        b = curves[5][k]["budget"]
        out.write(f"{float(b):g}," + ",".join(f"{float(curves[R][k]['mutual_information_nats']):.8g}" for R in (5, 10, 20))
                  + f",{float(curves[5][k]['gaussian_reference_nats']):.8g}\n")
PY
if command -v gnuplot > /dev/null; then
  gnuplot <<'GP'
set terminal pngcairo size 1000,650 noenhanced font ',11'
set output 'results/mi_curves.png'
set datafile separator ','
set grid
set xlabel 'second-moment budget B'
set ylabel 'mutual information bound (nats)'
set title 'PAC privacy, sigma_Y^2 = 20.6: optimal one-sided noise on [0, R] (Xiao et al. Fig. 4(b))'
set yrange [0:2.5]
plot 'results/mi_curves.csv' every ::1 using 1:2 with lines lw 2 title 'R = 5', \
     '' every ::1 using 1:3 with lines lw 2 title 'R = 10', \
     '' every ::1 using 1:4 with lines lw 2 title 'R = 20', \
     '' every ::1 using 1:5 with lines dt 2 lw 2 title 'zero-mean unbounded Gaussian'
GP
fi
cat results/points.csv

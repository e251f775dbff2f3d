#!/usr/bin/env bash
# Xiao et al., Fig. 2: the least E[e^2] of one-sided noise for T releases to be (eps, delta)-DP, T = 500, delta = 1e-5
# and T = 1000, delta = 1e-8, eps 2 .. 10. Columns: discrete TBL + advanced composition and discrete TBL + HRDP on the
# authors' grid (R step 10, sigma step 0.5, integer alpha 2 .. 25), and the exact HRDP optimum (the convex program,
# alpha searched, R0 the best of 100 .. 1600). Then the HRDP optima at eps = 4 are solved again through
# `noiselearn train` and certified by the exact PLD accountant (both bounds). Writes results/fig2.txt and
# results/certified.txt; run directories under results/runs/ (git-ignored). About 25 minutes (the TBL grid scans).
set -euo pipefail
cd "$(dirname "$0")"
BUILD="${BUILD:-../../build}"
mkdir -p results/runs
"$BUILD/tests/benchmarks/bench_one_sided" --fig2 | tee results/fig2.txt
: > results/certified.txt
for spec in "500 1e-5 400" "1000 1e-8 600"; do
  set -- $spec
  "$BUILD/src/cli/noiselearn" --quiet train ../../configs/onesided-hrdp.yaml --out "results/runs/T$1" --force \
    --set loss.compositions="$1" --set loss.delta="$2" --set grid.range="$3" --set "certification.deltas=[$2]" \
    --set output.plots=false | tail -1 | tee -a results/certified.txt
done

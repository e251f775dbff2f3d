#!/usr/bin/env bash
# Xiao et al., section 6 (Vuvuzela dummies): T = 250,000 rounds, eps = ln 2, delta = 1e-4, sensitivity 1, at most
# 30,000 dummies per round. The least-E[e^2] one-sided noise under the HRDP budget (the convex program, alpha searched)
# through `noiselearn train`, certified by the exact PLD accountant of the 250,000-fold composition. Writes
# results/summary.txt; the run directory goes to results/runs/vuvuzela (git-ignored). About 70 s.
set -euo pipefail
cd "$(dirname "$0")"
BUILD="${BUILD:-../../build}"
mkdir -p results
"$BUILD/src/cli/noiselearn" train ../../configs/onesided-hrdp.yaml --out results/runs/vuvuzela --force \
  --set grid.range=30000 --set loss.compositions=250000 --set loss.epsilon=0.6931471805599453 --set loss.delta=1e-4 \
  --set "certification.deltas=[1e-4]" --set certification.loss_step=1e-4 --set output.plots=false | tail -1 | tee results/summary.txt

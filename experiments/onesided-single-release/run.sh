#!/usr/bin/env bash
# Xiao et al., Tables 1-2: the second moment E[e^2] of one-sided noise for one release at (epsilon, delta), delta =
# 1e-4 and 1e-6, epsilon = 0.5 .. 8: TBL (exact moments at the exact minimal shift), discrete TBL (least range),
# Thm 1's optimum (omega rounded up, as corrected), next to the paper's printed rows. Every table is written by
# `noiselearn baseline` and certified by the accountant at delta (1 + 1e-3) (at delta itself the distinguishing
# mass alone is delta, and the rigorous rounding makes the upper epsilon infinite). Writes results/table1.csv,
# results/table2.csv and results/runs/ (git-ignored). About 1 min.
set -euo pipefail
cd "$(dirname "$0")"
python3 run.py "${BIN:-../../build/src/cli/noiselearn}"

#!/usr/bin/env bash
# Learned noise under a utility constraint (issue 11, section 2): for each point "tau Delta rho delta T", the least
# certified epsilon at delta with Pr[|e| > tau] <= 1 - rho: continuous Gaussian (analytic), discretised Gaussian and
# Laplace on the grid (calibrated to the constraint, certified), and the learned table (pb_learned.py).
# Usage: ./run.sh                                  (all points below; finished points are skipped)
#        POINTS="10,1,0.9,1e-5,1" ./run.sh          (a subset)
# Env: NL_BIN (default ../../../build/src/cli/noiselearn), NL_THREADS (1), NL_RANGE / NL_STEP (grid, default 100 / 0.25),
#      NL_BISECTION_STEPS (6), NL_FLOOR (0.9), NL_TRIALS (target.trials, 10), NL_LOSS_STEP (loss.soft_pld_loss_step, 2e-4). point.json is written after every trial.
set -euo pipefail
cd "$(dirname "$0")"
export NL_BIN=${NL_BIN:-$(pwd)/../../../build/src/cli/noiselearn}
export NL_THREADS=${NL_THREADS:-1}
[ -x "$NL_BIN" ] || { echo "build noiselearn first (see ../../../README.md) or set NL_BIN" >&2; exit 1; }
# tau,Delta,rho,delta,T: the issue's reference point; Delta = 4 at rho = 0.8; Jiang et al.'s Fig. 6 setting
# (|S| = 10, i.e. tau = 5; Delta = 3, rho = 0.9, delta = 1e-5) at T = 1, 10, 100.
POINTS=${POINTS:-"10,1,0.9,1e-5,1 10,4,0.8,1e-5,1 5,3,0.9,1e-5,1 5,3,0.9,1e-5,10 5,3,0.9,1e-5,100"}
RES=results
mkdir -p "$RES/runs"
{ echo "binary: $(md5sum "$NL_BIN")"; echo "commit: $(git rev-parse HEAD 2>/dev/null)"; echo "started: $(date -u)"; } >> "$RES/provenance.txt"
for pt in $POINTS; do
  IFS=, read -r tau sens rho delta T <<< "$pt"
  dir="$RES/runs/tau${tau}-D${sens}-rho${rho}-delta${delta}-T${T}"
  [ -f "$dir/point.json" ] && [ "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['learned_search']['trials']))" "$dir/point.json")" -ge "${NL_BISECTION_STEPS:-6}" ] && continue
  echo "[$(date +%H:%M:%S)] point tau $tau, Delta $sens, rho $rho, delta $delta, T $T" >&2
  python3 pb_learned.py "$tau" "$sens" "$rho" "$delta" "$T" "$dir" > /dev/null 2> "$dir.log" || { echo "failed: see $dir.log" >&2; tail -3 "$dir.log" >&2; continue; }
  tail -1 "$dir.log" >&2
done
python3 summarise.py "$RES"
echo "finished: $(date -u)" >> "$RES/provenance.txt"

#!/usr/bin/env bash
# Renyi-DP optimal noise in the setting of Gilani et al., Figs 1 and 4: s = 1, variance 25 (sigma = 5), n = 10,
# delta = 1e-6, continuous geometric-tail family (Delta = 0.05, N = 2000, r = 0.9999). Trains with the paper's
# objective (gamma of eq. 25) by the preconditioned gradient, Newton (ours), steepest (Alg. 3, corrected) and L-BFGS, certifies
# every table with the accountant and compares with the Gaussian and Laplace mechanisms of the same variance.
# Writes results/runs/<run>/ (git-ignored), results/epsilons.csv, results/shape.png, results/alpha.png.
# About 15 min on 2 cores with one thread (RUNS='name ...' runs only those).
set -euo pipefail
cd "$(dirname "$0")"
BIN=../../build/src/cli/noiselearn
THREADS=${THREADS:-1}
RES=results
mkdir -p "$RES/runs"
{ echo "binary: $(md5sum "$BIN")"; echo "commit: $(git rev-parse HEAD 2>/dev/null)"; echo "threads: $THREADS"; echo "started: $(date -u)"; } > "$RES/provenance.txt"

run() {  # run NAME --set ...   (only the runs named in $RUNS, if set)
  local name=$1; shift
  if [ -n "${RUNS:-}" ] && [[ " $RUNS " != *" $name "* ]]; then return; fi
  local t0; t0=$(date +%s)
  local config=../../configs/renyi-variance.yaml
  if [ "${1:-}" = "--config" ]; then config=$2; shift 2; fi
  "$BIN" --threads "$THREADS" --quiet train "$config" --out "$RES/runs/$name" --force \
    --set output.log_every=0 --set output.plots=false "$@" > "$RES/runs/$name.log" 2>&1 \
    || echo "  $name: exit $? (see $RES/runs/$name.log)" >&2
  echo "$name,$(($(date +%s) - t0))" >> "$RES/seconds.csv"
}

[ -n "${RUNS:-}" ] && [ -f "$RES/seconds.csv" ] || echo "run,seconds" > "$RES/seconds.csv"
ALG3="--set optimiser.direction=steepest --set optimiser.alpha_update=newton --set optimiser.alpha_update_every=10"
run newton-30 --set optimiser.iterations=30                    # the config's Newton (SQP), stopped after 30 iterations
run newton-200                                                 # the config as shipped (200 iterations)
run newton --set optimiser.iterations=3000                     # the same until the relative progress stops
run steepest-3000 $ALG3                                        # Alg. 3 as the paper runs it (corrected), 3000 iterations
run steepest-12000 $ALG3 --set optimiser.iterations=12000      # the same, longer
run lbfgs-3000 $ALG3 --set optimiser.direction=lbfgs           # ours: L-BFGS in log p
run newton-balle --set loss.rdp_conversion=balle               # the tighter RDP conversion as the objective
# Ours: the soft-PLD epsilon of the composed envelope (the certified quantity), L-BFGS after a Renyi warm start.
run soft-pld-lbfgs-300 --config ../../configs/soft-pld-variance.yaml

# One row per run: the learned table's certified epsilon at 1e-6 (lower, upper), gamma and alpha at the end, and the
# references of the same variance (certified, from the same run's comparison.csv).
python3 - "$RES" <<'PY'
import csv, json, sys, os
res = sys.argv[1]
seconds = {r['run']: r['seconds'] for r in csv.DictReader(open(f'{res}/seconds.csv'))}
rows = []
for run in ['newton-30', 'newton-200', 'newton', 'steepest-3000', 'steepest-12000', 'lbfgs-3000', 'newton-balle', 'soft-pld-lbfgs-300']:
    d = f'{res}/runs/{run}'
    if not os.path.exists(f'{d}/noise.json'):
        continue
    meta = json.load(open(f'{d}/noise.json'))
    comp = {r['noise']: r for r in csv.DictReader(open(f'{d}/comparison.csv'))}
    e = meta['certificate']['epsilon_at_delta'][0]
    loss = meta['loss']
    rows.append([run, meta['training']['iterations'], seconds.get(run, ''),
                 f"{loss['gamma']:.6f}" if 'gamma' in loss else '', f"{loss['alpha']:.4f}" if 'alpha' in loss else '', f"{e['epsilon_lower']:.6f}", f"{e['epsilon_upper']:.6f}",
                 f"{float(comp['gaussian']['epsilon_upper']):.6f}", f"{float(comp['laplace']['epsilon_upper']):.6f}",
                 f"{float(comp['family-gaussian-start']['epsilon_upper']):.6f}"])
with open(f'{res}/epsilons.csv', 'w') as f:
    w = csv.writer(f)
    w.writerow(['run', 'iterations', 'seconds', 'gamma', 'alpha', 'epsilon_lower', 'epsilon_upper',
                'gaussian_epsilon_upper', 'laplace_epsilon_upper', 'family_gaussian_start_epsilon_upper'])
    w.writerows(rows)
PY
cat "$RES/epsilons.csv"
if command -v gnuplot > /dev/null; then gnuplot -e "results='$RES'" plot.gp; fi
echo "finished: $(date -u)" >> "$RES/provenance.txt"

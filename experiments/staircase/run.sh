#!/usr/bin/env bash
# Staircase reproduction (Sommer et al., section 4.2, Figs 1a, 2, 5). ~10 min on 2 cores.
# Writes results/staircase.{csv,json} (the truncated, renormalised analytic staircase), results/runs/<run>/
# (git-ignored), results/summary.csv, results/curves/*.csv and the plots results/tables.png, results/curves.png.
set -euo pipefail
cd "$(dirname "$0")"
BIN=../../build/src/cli/noiselearn
# LibTorch threads (2 = both cores; use THREADS=1 when another job holds a core: 2 threads then run ~10x slower).
THREADS=${THREADS:-2}
[ -x "$BIN" ] || { echo "build noiselearn first (see ../../README.md)" >&2; exit 1; }
RES=results
mkdir -p "$RES/runs" "$RES/curves"
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
t_all=$(date +%s)
{ echo "binary: $(md5sum "$BIN")"; echo "commit: $(git rev-parse HEAD 2>/dev/null)"; echo "threads: $THREADS"; echo "started: $(date -u)"; } >> "$RES/provenance.txt"

# 1. The analytic staircase (L1-optimal gamma = 1/(1 + e^(eps/2))), truncated to [-5, 5] and renormalised, on
#    the same grid, certified (its delta is its distinguishing-event mass at the outermost stair).
"$BIN" --threads "$THREADS" baseline staircase --epsilon 0.3 --sensitivity 1 --truncation 5 --grid-step 0.01 --range 5 \
  --compositions 1 --out "$RES/staircase.csv" --force > "$RES/staircase.txt"
STAIR_L1=$(python3 -c "import json; print(repr(json.load(open('$RES/staircase.json'))['utility']['l1']))")
log "staircase: L1 $STAIR_L1"

# 2. Learned tables, the paper's schedule (utility weight 0.5 halving every 500 epochs), one per loss.
for loss in privacy-buckets-adp privacy-buckets-pdp moments-accountant soft-pld; do
  log "train $loss (utility-weight decay)"
  t0=$(date +%s)
  "$BIN" --threads "$THREADS" --quiet train staircase.yaml --out "$RES/runs/$loss" --force --set loss.kind=$loss \
    > "$RES/runs/$loss.log" 2>&1
  log "  $(($(date +%s) - t0)) s: $(grep -o 'certified delta at epsilon = 0.3 is in \[[^]]*\]' "$RES/runs/$loss/summary.txt")"
done

# 3. Equal utility: least certified delta with L1 <= the staircase's L1 (target mode: fixed utility weights,
#    6 trials of 2000 epochs, each warm-started from the previous one, judged by the certified accountant).
for loss in soft-pld privacy-buckets-adp; do
  log "train $loss, target L1 <= $STAIR_L1"
  t0=$(date +%s)
  "$BIN" --threads "$THREADS" --quiet train staircase.yaml --out "$RES/runs/$loss-equal-l1" --force --set loss.kind=$loss \
    --set target.mode=utility --set target.utility="$STAIR_L1" --set target.trials=6 --set target.trial_epochs=2000 \
    --set schedule.utility_weight_start=0.12 > "$RES/runs/$loss-equal-l1.log" 2>&1
  log "  $(($(date +%s) - t0)) s: $(grep -o 'target utility.*trials' "$RES/runs/$loss-equal-l1/summary.txt")"
done

# 4. Certified comparison of all tables at epsilon = 0.3 (and each with its utility-matched truncated Gaussian),
#    the delta(epsilon) curves (Fig. 2) and the summary CSV.
tables=("$RES/staircase.csv")
for r in privacy-buckets-adp privacy-buckets-pdp moments-accountant soft-pld soft-pld-equal-l1 privacy-buckets-adp-equal-l1; do
  tables+=("$RES/runs/$r/noise.csv")
done
"$BIN" --threads "$THREADS" --quiet compare "${tables[@]}" --sensitivity 1 --epsilon 0.3 --utility l1 \
  --out "$RES/compare.csv" --force | tee "$RES/compare.txt"
for t in "${tables[@]}"; do
  name=$(basename "$(dirname "$t")"); [ "$t" = "$RES/staircase.csv" ] && name=staircase
  "$BIN" --threads "$THREADS" --quiet evaluate "$t" --sensitivity 1 --curve "$RES/curves/$name.csv" --curve-epsilon-max 1.5 \
    --curve-points 151 --force > /dev/null
done
python3 summary.py "$RES" > "$RES/summary.csv"
column -s, -t < "$RES/summary.csv"
gnuplot -e "results='$RES'" plot.gp
echo "finished: $(date -u); binary: $(md5sum "$BIN")" >> "$RES/provenance.txt"
log "done in $(( ($(date +%s) - t_all) / 60 )) min $(( ($(date +%s) - t_all) % 60 )) s"

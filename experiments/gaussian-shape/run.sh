#!/usr/bin/env bash
# Gaussian shape of the learned L2 noise at n = 128 (Sommer et al., section 4.3, Figs 3c and 12). ~5 min on 2 cores.
# For each run: train (which writes noise.csv and baseline.csv = the truncated Gaussian with the same L2), then
# KL(learned || baseline) with kl.py. Writes results/runs/<run>/ (git-ignored), results/kl.csv, results/shape.png.
set -euo pipefail
cd "$(dirname "$0")"
BIN=../../build/src/cli/noiselearn
# LibTorch threads (2 = both cores; use THREADS=1 when another job holds a core: 2 threads then run ~10x slower).
THREADS=${THREADS:-2}
RES=results
mkdir -p "$RES/runs"
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
t_all=$(date +%s)
{ echo "binary: $(md5sum "$BIN")"; echo "commit: $(git rev-parse HEAD 2>/dev/null)"; echo "threads: $THREADS"; echo "started: $(date -u)"; } >> "$RES/provenance.txt"

# Truncated Gaussian of the middle privacy level of utility-vs-delta (mu = 0.2: sigma = sqrt(128) / 0.2) and the
# truncated Laplace with the same L2 (a deliberately non-Gaussian start for the logit model).
SIGMA=56.568542494923804
"$BIN" --threads "$THREADS" --quiet baseline truncated-laplace --target-utility l2=$SIGMA --grid-step 0.16666666666666667 \
  --range 500 --out "$RES/laplace-start.csv" --force > /dev/null
# The truncated Gaussian's own trade-off slope there, w = -d(2 delta)/dU (see ../utility-vs-delta/tg.py).
read -r _ _ W < <(NL_THREADS=$THREADS python3 ../utility-vs-delta/tg.py tangent $SIGMA 128 l2)
log "tangent weight at sigma $SIGMA: $W"

run() {  # run NAME --set ...
  local name=$1; shift
  local t0; t0=$(date +%s)
  "$BIN" --threads "$THREADS" --quiet train gaussian-shape.yaml --out "$RES/runs/$name" --force "$@" > "$RES/runs/$name.log" 2>&1 \
    || log "  $name: exit $? (see $RES/runs/$name.log)"
  echo "$name,$(($(date +%s) - t0))" >> "$RES/seconds.csv"
  log "$name: $(($(date +%s) - t0)) s"
}
: > "$RES/seconds.csv"
# The paper's setting (sigmoid stack, paper initialisation, utility-weight decay), three losses.
run adp-sigmoid --set loss.kind=privacy-buckets-adp
run ma-sigmoid --set loss.kind=moments-accountant
run soft-pld-sigmoid --set loss.kind=soft-pld
# soft-pld on monotone logits at the Gaussian's tangent weight (fixed), from a truncated Laplace with the same
# L2 (non-Gaussian start) and, as a control, from the truncated Gaussian itself.
run soft-pld-monotone-from-laplace --set loss.kind=soft-pld --set model.kind=monotone-logits --set model.init=table \
  --set model.init_table="$RES/laplace-start.csv" --set schedule.utility_weight_decay=false \
  --set schedule.utility_weight_start="$W" --set optimiser.learning_rate=0.003 --set optimiser.learning_rate_decay=0.9995
run soft-pld-monotone-from-gaussian --set loss.kind=soft-pld --set model.kind=monotone-logits --set model.init=truncated-gaussian \
  --set model.init_sigma=$SIGMA --set schedule.utility_weight_decay=false \
  --set schedule.utility_weight_start="$W" --set optimiser.learning_rate=0.003 --set optimiser.learning_rate_decay=0.9995

THREADS=$THREADS python3 summary.py "$RES" > "$RES/kl.csv"
column -s, -t < "$RES/kl.csv"
gnuplot -e "results='$RES'" plot.gp
echo "finished: $(date -u); binary: $(md5sum "$BIN")" >> "$RES/provenance.txt"
log "done in $(( ($(date +%s) - t_all) / 60 )) min $(( ($(date +%s) - t_all) % 60 )) s"

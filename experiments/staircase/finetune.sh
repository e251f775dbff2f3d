#!/usr/bin/env bash
# Why the learned tables stop about 1e-4 above the LP optimum (issue 21): four trainings of the staircase setting, each
# measured against the symmetric monotone LP optimum at its own L1. Run after run.sh (it starts from the soft-PLD run).
# Writes results/finetune.csv (about 1 min with one thread).
#   sigmoid-slope-5000      the sigmoid stack with risers 10x sharper than the paper's C = 500 (C h = 50: a riser fits
#                           between two grid points, so the family contains staircases)
#   logits-from-learned     monotone logits (any symmetric non-increasing table) started at the learned soft-PLD table,
#                           slow Adam (3e-4, decaying to 2e-6)
#   logits-from-gaussian    monotone logits from their default Gaussian-shaped profile (every step a strict decrease)
#   logits-from-lp          monotone logits started at the LP optimum itself
set -euo pipefail
cd "$(dirname "$0")"
BIN=${NL_BIN:-../../build/src/cli/noiselearn}
THREADS=${THREADS:-1}
[ -x "$BIN" ] || { echo "build noiselearn first (see ../../README.md)" >&2; exit 1; }
RES=results
LEARNED=$RES/runs/soft-pld/noise.csv
[ -f "$LEARNED" ] || { echo "run run.sh first: $LEARNED is missing" >&2; exit 1; }
mkdir -p "$RES/finetune"
l1_of() { python3 -c "import json; print(repr(json.load(open('$1'))['utility']['l1']))"; }
delta_of() { python3 -c "import json; print(repr(json.load(open('$1'))['certificate']['delta_at_epsilon'][0]['delta_upper']))"; }
lp_at() {  # L1 -> certified delta of the symmetric monotone LP optimum with L1 <= it (table in $2)
  "$BIN" --quiet lp-optimum --grid-step 0.01 --range 5 --epsilon 0.3 --cost-budget "$1" --shape symmetric --shape monotone \
    --out "$2" --force > /dev/null
  delta_of "${2%.csv}.json"
}
train() {  # name, --set options
  "$BIN" --threads "$THREADS" --quiet train staircase.yaml --out "$RES/finetune/$1" --force --set loss.kind=soft-pld "${@:2}" \
    > "$RES/finetune/$1.log" 2>&1
}
LP_AT_LEARNED=$RES/finetune/lp-at-learned.csv
lp_at "$(l1_of "${LEARNED%.csv}.json")" "$LP_AT_LEARNED" > /dev/null
train sigmoid-slope-5000 --set model.slope=5000
train logits-from-learned --set model.kind=monotone-logits --set model.init=table --set "model.init_table=$PWD/$LEARNED" \
  --set optimiser.learning_rate=3e-4 --set optimiser.epochs=10000 --set schedule.utility_weight_start=0.001
train logits-from-gaussian --set model.kind=monotone-logits --set optimiser.epochs=10000
train logits-from-lp --set model.kind=monotone-logits --set model.init=table --set "model.init_table=$PWD/$LP_AT_LEARNED" \
  --set optimiser.learning_rate=1e-3 --set optimiser.epochs=3000 --set schedule.utility_weight_start=0.001
echo "run,l1,certified_delta,lp_shaped_delta_at_same_l1,rel_above_lp" > "$RES/finetune.csv.tmp"
for run in sigmoid-slope-5000 logits-from-learned logits-from-gaussian logits-from-lp; do
  json=$RES/finetune/$run/noise.json
  l1=$(l1_of "$json"); d=$(delta_of "$json"); lp=$(lp_at "$l1" "$RES/finetune/lp.csv")
  python3 -c "print('$run,%r,%r,%r,%.3e' % ($l1, $d, $lp, $d / $lp - 1))" >> "$RES/finetune.csv.tmp"
done
rm -f "$RES"/finetune/lp.{csv,json}
mv "$RES/finetune.csv.tmp" "$RES/finetune.csv"
column -s, -t < "$RES/finetune.csv"

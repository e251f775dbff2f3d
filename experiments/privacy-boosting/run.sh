#!/usr/bin/env bash
# Privacy boosting (Jiang et al., paper 004) certified exactly: Figs 2-3 (the PB mechanism with a Gaussian kernel
# against the Gaussian mechanism meeting the same utility constraint) and Fig. 6 (composition), reduced.
# Every PB number is the certified upper bound of noiselearn's accountant with the kernel scale calibrated to it
# (noiselearn boost --scale 0); the Gaussian is Balle-Wang's exact epsilon; the paper's heuristic is printed beside.
# Usage: ./run.sh            (all, ~15 min on one core)
#        PARTS="fig2" ./run.sh   (fig2, fig3, fig6)
# Writes results/pb-<part>.csv and results/pb-<part>.png; the JSON reports in results/reports/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
BIN=../../build/src/cli/noiselearn
[ -x "$BIN" ] || { echo "build noiselearn first (see ../../README.md)" >&2; exit 1; }
PARTS=${PARTS:-"fig2 fig3 fig6"}
RES=results
mkdir -p "$RES/reports"
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

boost() {  # boost NAME ARGS...: one report, skipped when it exists
  local name=$1; shift
  local report="$RES/reports/$name.json"
  if [ ! -f "$report" ]; then
    local t0; t0=$(date +%s.%N)
    "$BIN" --threads 1 --quiet boost "$@" --out "$report.tmp" --force > /dev/null
    mv "$report.tmp" "$report"
    log "  $name: $(python3 -c "import json,sys; r=json.load(open('$report')); c=r['certificate']['at_delta'][0]; print('eps in [%.6f, %.6f], Gaussian %.6f' % (c['epsilon_lower'], c['epsilon_upper'], c.get('gaussian_epsilon', float('nan'))))") ($(echo "$(date +%s.%N) - $t0" | bc | cut -c1-6) s)"
  fi
}

for part in $PARTS; do
  case $part in
    fig2)  # Fig. 2(a)/(b): rho fixed, the smallest region's width varied; interval (|S| = 2 tau), relative
           # (theta 0.1, |S| at Q = 0 is 2 tau) and fixed ([-tau, tau], answers clamped into it) regions;
           # Delta 1 / rho 0.9 and Delta 4 / rho 0.8; delta 1e-5, 1e-7 (relative and fixed: Delta 1, delta 1e-5).
      for setting in "1 0.9" "4 0.8"; do
        read -r sens rho <<< "$setting"
        for delta in 1e-5 1e-7; do
          for width in 4 8 12 20 30 40; do
            tau=$(python3 -c "print($width / 2)")
            boost "fig2-interval-s$sens-d$delta-w$width" --region interval --tau "$tau" --rho "$rho" --sensitivity "$sens" --delta "$delta"
            if [ "$width" -ge 8 ] && [ "$delta" = 1e-5 ] && [ "$sens" = 1 ]; then
              boost "fig2-relative-s$sens-d$delta-w$width" --region relative --theta 0.1 --tau "$tau" --rho "$rho" --sensitivity "$sens" --delta "$delta" --loss-step 1e-3
              boost "fig2-fixed-s$sens-d$delta-w$width" --region fixed --lower "-$tau" --upper "$tau" --rho "$rho" --sensitivity "$sens" --delta "$delta" --loss-step 1e-3
            fi
          done
        done
      done ;;
    fig3)  # Fig. 3: the region fixed at S = [-10, 10] (interval, tau = 10), rho varied; Delta 2 and 4; delta 1e-5.
      for sens in 2 4; do
        for rho in 0.6 0.7 0.8 0.9 0.95 0.99; do
          boost "fig3-interval-s$sens-r$rho" --region interval --tau 10 --rho "$rho" --sensitivity "$sens" --delta 1e-5
        done
      done ;;
    fig6)  # Fig. 6(a): T-fold composition, rho 0.9, |S| = 10 (tau 5), Delta 3, delta 1e-5; calibrated per T.
      for n in 1 10 100 1000; do
        boost "fig6-interval-n$n" --region interval --tau 5 --rho 0.9 --sensitivity 3 -n "$n" --delta 1e-5 --loss-step 1e-3
      done ;;
    *) echo "unknown part $part (fig2, fig3, fig6)" >&2; exit 2 ;;
  esac
  python3 summary.py "$part" "$RES"
done

# gnuplot -e "results='results'" plot.gp
# DP-SGD (subsampled mixture, q = 0.1, C = 1): L1 against certified delta at epsilon = 0.3 (upper bounds).
# Lines: truncated Gaussians on the same grid (sigma sweep), one colour per n; open circles: the starting truncated
# Gaussians; filled circles: the learned tables (soft PLD, monotone logits).
set terminal pngcairo size 1100,750 font ",10"
set output sprintf("%s/dp-sgd.png", results)
set datafile separator ","
set logscale xy
set format y "10^{%L}"
set xlabel "L1 utility loss (mean |x|)"
set ylabel "certified delta at epsilon = 0.3 (upper bound)"
set title "DP-SGD pair (q = 0.1, C = 1), n compositions: learned (filled) vs truncated Gaussian (lines; open = start)"
set key outside right top
set xrange [1.5:20]
set grid
set yrange [1e-10:1]
ns = "8 16 32 64 128"
colours = "#1f77b4 #ff7f0e #2ca02c #9467bd #d62728"
curve = sprintf("%s/tg-curve.csv", results)
points = sprintf("%s/dp-sgd.csv", results)
plot \
  for [i=1:5] curve using 3:($1 == word(ns, i) + 0 ? $4 : 1/0) skip 1 with lines lw 2 lc rgb word(colours, i) title sprintf("n = %s", word(ns, i)), \
  for [i=1:5] points using 4:($1 == word(ns, i) + 0 ? $5 : 1/0) skip 1 with points pt 6 ps 1.5 lc rgb word(colours, i) notitle, \
  for [i=1:5] points using 7:($1 == word(ns, i) + 0 ? $8 : 1/0) skip 1 with points pt 7 ps 1.2 lc rgb word(colours, i) notitle, \
  keyentry with points pt 6 lc rgb "black" title "start: truncated Gaussian", \
  keyentry with points pt 7 lc rgb "black" title "learned (soft PLD, monotone logits)"

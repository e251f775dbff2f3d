# gnuplot -e "utility='l1'; results='results'" plot.gp
# Utility vs certified delta at epsilon = 0.3: lines = truncated Gaussians (sigma sweep), one colour per n;
# points = learned tables (certified upper delta), point type by method.
set terminal pngcairo size 1100,750 font ",10"
set output sprintf("%s/utility-vs-delta-%s.png", results, utility)
set datafile separator ","
set logscale xy
set format y "10^{%L}"
set xlabel sprintf("utility %s (%s)", utility, utility eq "l1" ? "mean |x|" : "RMS")
set ylabel "certified delta at epsilon = 0.3 (upper bound)"
set title sprintf("Utility vs certified delta, %s, n compositions (lines: truncated Gaussian on the same grid; points: learned)", utility)
set key outside right top
set grid
set yrange [1e-12:1]
ns = "1 2 4 8 16 32 64 128"
colours = "#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #17becf"
curve = sprintf("%s/gaussian-curve-%s.csv", results, utility)
points = sprintf("%s/utility-vs-delta-%s.csv", results, utility)
method(l, m) = (strcol(1) eq l && strcol(2) eq m)
plot \
  for [i=1:8] curve using 3:($1 == word(ns, i) + 0 ? $4 : 1/0) skip 1 with lines lw 2 lc rgb word(colours, i) title sprintf("n = %s", word(ns, i)), \
  for [i=1:8] points using 7:($3 == word(ns, i) + 0 && method("moments-accountant", "sigmoid-stack") ? $8 : 1/0) skip 1 with points pt 4 ps 1.2 lc rgb word(colours, i) notitle, \
  for [i=1:8] points using 7:($3 == word(ns, i) + 0 && method("privacy-buckets-adp", "sigmoid-stack") ? $8 : 1/0) skip 1 with points pt 8 ps 1.2 lc rgb word(colours, i) notitle, \
  for [i=1:8] points using 7:($3 == word(ns, i) + 0 && method("soft-pld", "sigmoid-stack") ? $8 : 1/0) skip 1 with points pt 6 ps 1.2 lc rgb word(colours, i) notitle, \
  for [i=1:8] points using 7:($3 == word(ns, i) + 0 && method("soft-pld", "monotone-logits") ? $8 : 1/0) skip 1 with points pt 7 ps 1.0 lc rgb word(colours, i) notitle, \
  keyentry with points pt 4 lc rgb "black" title "MA, sigmoid stack", \
  keyentry with points pt 8 lc rgb "black" title "PB-ADP, sigmoid stack", \
  keyentry with points pt 6 lc rgb "black" title "soft-pld, sigmoid stack", \
  keyentry with points pt 7 lc rgb "black" title "soft-pld, monotone logits from TG"

# gnuplot -e "results='results'" plot.gp : tables.png (Fig. 1a) and curves.png (Fig. 2)
set terminal pngcairo size 1000,650 font ",10"
set datafile separator ","
set output results."/tables.png"
set logscale y
set xlabel "x"
set ylabel "p(x) (grid cell mass, step 0.01)"
set title "Learned noise vs the truncated analytic staircase (epsilon = 0.3, s = 1, n = 1, L1)"
set key bottom center
set grid
set xrange [-5:5]
plot results."/staircase.csv" skip 1 using 1:2 with lines lw 5 lc rgb "#bbbbbb" title "staircase (Geng et al.), truncated + renormalised", \
     results."/runs/privacy-buckets-adp/noise.csv" skip 1 using 1:2 with lines lw 1.5 lc rgb "#d62728" title "learned, PrivacyBuckets-ADP", \
     results."/runs/soft-pld/noise.csv" skip 1 using 1:2 with lines lw 1.5 lc rgb "#1f77b4" title "learned, soft-pld", \
     results."/runs/moments-accountant/noise.csv" skip 1 using 1:2 with lines lw 1 dt 2 lc rgb "#2ca02c" title "learned, moments accountant", \
     results."/runs/privacy-buckets-pdp/noise.csv" skip 1 using 1:2 with lines lw 1 dt 3 lc rgb "#9467bd" title "learned, PrivacyBuckets-PDP", \
     results."/runs/soft-pld-equal-l1/noise.csv" skip 1 using 1:2 with lines lw 1 dt 4 lc rgb "#17becf" title "learned, soft-pld, L1 <= staircase's"
set output results."/curves.png"
unset xrange
set xrange [0:1.5]
set xlabel "epsilon"
set ylabel "certified delta(epsilon) (upper bound), n = 1"
set title "delta(epsilon) of the truncated staircase and the learned tables (Fig. 2)"
set key top right
plot results."/curves/staircase.csv" skip 1 using 1:2 with lines lw 5 lc rgb "#bbbbbb" title "staircase, truncated", \
     results."/curves/privacy-buckets-adp.csv" skip 1 using 1:2 with lines lw 1.5 lc rgb "#d62728" title "PrivacyBuckets-ADP", \
     results."/curves/soft-pld.csv" skip 1 using 1:2 with lines lw 1.5 lc rgb "#1f77b4" title "soft-pld", \
     results."/curves/moments-accountant.csv" skip 1 using 1:2 with lines lw 1 dt 2 lc rgb "#2ca02c" title "moments accountant", \
     results."/curves/privacy-buckets-pdp.csv" skip 1 using 1:2 with lines lw 1 dt 3 lc rgb "#9467bd" title "PrivacyBuckets-PDP", \
     results."/curves/soft-pld-equal-l1.csv" skip 1 using 1:2 with lines lw 1 dt 4 lc rgb "#17becf" title "soft-pld, L1 <= staircase's"

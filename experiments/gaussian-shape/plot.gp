# gnuplot -e "results='results'" plot.gp : shape.png (Fig. 12 style): learned tables and their utility-matched
# truncated Gaussians, log scale.
set terminal pngcairo size 1000,650 font ",10"
set datafile separator ","
set output results."/shape.png"
set logscale y
set yrange [1e-12:*]
set xlabel "x"
set ylabel "p(x) (grid cell mass, step 1/6)"
set title "n = 128, L2, epsilon = 0.3: learned tables vs the truncated Gaussian with the same L2"
set key bottom center
set grid
plot results."/runs/adp-sigmoid/noise.csv" skip 1 using 1:2 with lines lw 2 lc rgb "#d62728" title "PrivacyBuckets-ADP, sigmoid stack", \
     results."/runs/adp-sigmoid/baseline.csv" skip 1 using 1:2 with lines lw 1 dt 2 lc rgb "#d62728" title "  its truncated Gaussian", \
     results."/runs/soft-pld-sigmoid/noise.csv" skip 1 using 1:2 with lines lw 2 lc rgb "#1f77b4" title "soft-pld, sigmoid stack", \
     results."/runs/soft-pld-sigmoid/baseline.csv" skip 1 using 1:2 with lines lw 1 dt 2 lc rgb "#1f77b4" title "  its truncated Gaussian", \
     results."/runs/soft-pld-monotone-from-laplace/noise.csv" skip 1 using 1:2 with lines lw 2 lc rgb "#2ca02c" title "soft-pld, monotone logits from a Laplace", \
     results."/laplace-start.csv" skip 1 using 1:2 with lines lw 1 dt 3 lc rgb "#2ca02c" title "  its Laplace start", \
     results."/runs/soft-pld-monotone-from-laplace/baseline.csv" skip 1 using 1:2 with lines lw 1 dt 2 lc rgb "#2ca02c" title "  its truncated Gaussian"

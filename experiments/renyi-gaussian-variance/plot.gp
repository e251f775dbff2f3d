# gnuplot -e "results='results'" plot.gp : shape.png (Fig. 4 style: the optimised density next to the Gaussian of the
# same variance) and alpha.png (alpha and gamma along the iterations).
set terminal pngcairo size 1000,650 font ",10"
set datafile separator ","
set output results."/shape.png"
set xlabel "x"
set ylabel "density (bin mass / 0.05)"
set title "sigma = 5, n = 10, delta = 1e-6: optimised noise (continuous geometric-tail family, Delta = 0.05)"
set xrange [-25:25]
set grid
gauss(x) = exp(-x*x / 50.0) / sqrt(2 * pi * 25.0)
plot results."/runs/newton/noise.csv" skip 1 using 1:($2 / 0.05) with lines lw 2 lc rgb "#ff7f0e" title "Newton (ours), converged", \
     results."/runs/steepest-12000/noise.csv" skip 1 using 1:($2 / 0.05) with lines lw 1.5 lc rgb "#1f77b4" title "steepest (Alg. 3), 12000 iterations", \
     results."/runs/lbfgs-3000/noise.csv" skip 1 using 1:($2 / 0.05) with lines lw 1.5 lc rgb "#2ca02c" title "L-BFGS, 3000 iterations", \
     results."/runs/soft-pld-lbfgs-300/noise.csv" skip 1 using 1:($2 / 0.05) with lines lw 1.5 lc rgb "#9467bd" title "soft PLD (ours), L-BFGS after Renyi", \
     gauss(x) with lines lw 1 dt 2 lc rgb "#d62728" title "Gaussian, sigma = 5"
set output results."/alpha.png"
set xrange [*:*]
set xlabel "iteration + 1"
set ylabel "alpha"
set y2label "gamma (eq. 25)"
set y2tics
set ytics nomirror
set title "alpha and gamma along the iterations (Newton: alpha step every iteration; steepest and L-BFGS: every 10)"
set logscale x
plot results."/runs/newton/history.csv" skip 1 using ($1+1):2 with lines lw 2 lc rgb "#ff7f0e" title "alpha, Newton", \
     results."/runs/newton/history.csv" skip 1 using ($1+1):4 axes x1y2 with lines lw 1 dt 2 lc rgb "#ff7f0e" title "gamma, Newton", \
     results."/runs/steepest-12000/history.csv" skip 1 using ($1+1):2 with lines lw 2 lc rgb "#1f77b4" title "alpha, steepest", \
     results."/runs/lbfgs-3000/history.csv" skip 1 using ($1+1):2 with lines lw 2 lc rgb "#2ca02c" title "alpha, L-BFGS", \
     results."/runs/steepest-12000/history.csv" skip 1 using ($1+1):4 axes x1y2 with lines lw 1 dt 2 lc rgb "#1f77b4" title "gamma, steepest", \
     results."/runs/lbfgs-3000/history.csv" skip 1 using ($1+1):4 axes x1y2 with lines lw 1 dt 2 lc rgb "#2ca02c" title "gamma, L-BFGS"

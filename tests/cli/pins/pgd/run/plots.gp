# Plots of this run directory, written by noiselearn. Run it here: cd <run directory> && gnuplot plots.gp
set terminal pngcairo size 1200,750 noenhanced font ',11'
reset
set datafile separator ','
set key autotitle columnhead
set grid lc rgb '#d0d0d0'
set border lc rgb '#404040'
set output 'table.png'
set title "Noise table p(x): learned\ngrid: 801 points, step 0.05, [-20, 20], symmetric"
set xlabel 'noise x'
set ylabel 'probability p(x) (log scale)'
set logscale y
set format y '1e%L'
set key top right box opaque
plot 'noise.csv' using 1:($2 > 0 ? $2 : 1/0) with lines lw 2.5 lc rgb '#1f5fa8' title "learned (l1 1.541)"
reset
set datafile separator ','
set key autotitle columnhead
set grid lc rgb '#d0d0d0'
set border lc rgb '#404040'
set output 'certificate.png'
set title "Certified privacy curve delta(epsilon) of the learned table after n = 4 compositions (sensitivity 1)"
set xlabel 'epsilon'
set ylabel 'delta (log scale)'
set logscale y
set format y '1e%L'
set key top right box opaque samplen 3
set label "no distinguishing events: delta tends to 0 as epsilon grows" at graph 0.01, graph 0.03 left tc rgb '#b00000'
$certified_epsilon << EOD
epsilon_upper,delta
4.300299781074429,9.9999999999999995e-07
2.831150458384224,0.001
EOD
set label "epsilon(1e-06) <= 4.301" at first 4.300299781074429, first 9.9999999999999995e-07 offset -1.2,-0.9 right front
set label "epsilon(0.001) <= 2.832" at first 2.831150458384224, first 0.001 offset -1.2,-0.9 right front
plot 'certificate.csv' using 1:($2 > 0 ? $2 : 1/0) with lines lw 2.5 lc rgb '#1f5fa8' title "learned: upper bound (certified)", 'certificate.csv' using 1:($3 > 0 ? $3 : 1/0) with lines lw 1.5 dt 2 lc rgb '#1f5fa8' title "learned: lower bound", $certified_epsilon using 1:2 with points pt 5 ps 1.6 lc rgb '#000000' title "certified epsilon(1e-06) <= 4.301, epsilon(0.001) <= 2.832"
reset
set datafile separator ','
set key autotitle columnhead
set grid lc rgb '#d0d0d0'
set border lc rgb '#404040'
set output 'history.png'
set multiplot layout 2,2 title "Preconditioned gradient: 21 logged iterations" font ',13'
unset key
set title "gamma: Renyi bound on epsilon at delta (eq. 25; objective, not a certificate)"
set xlabel 'iteration'
set ylabel "gamma"
unset logscale y
set format y '%g'
plot 'history.csv' using 1:4 with linespoints pt 7 ps 1.2 lw 2 lc rgb '#1f5fa8'
set title "Renyi order alpha (Newton steps)"
set xlabel 'iteration'
set ylabel "alpha"
unset logscale y
set format y '%g'
plot 'history.csv' using 1:2 with linespoints pt 7 ps 1.2 lw 2 lc rgb '#1f5fa8'
set title "Accepted step mu (0: none)"
set xlabel 'iteration'
set ylabel "mu (log scale)"
set logscale y
set format y '1e%L'
plot 'history.csv' using 1:($6 > 0 ? $6 : 1/0) with linespoints pt 7 ps 1.2 lw 2 lc rgb '#1f5fa8'
set title "Constraint residual |A p - b| / |b| (normalisation, cost)"
set xlabel 'iteration'
set ylabel "relative residual (log scale)"
set logscale y
set format y '1e%L'
plot 'history.csv' using 1:($8 > 0 ? $8 : 1/0) with linespoints pt 7 ps 1.2 lw 2 lc rgb '#1f5fa8'
unset multiplot

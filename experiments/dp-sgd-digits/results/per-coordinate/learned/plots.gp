# Plots of this run directory, written by noiselearn. Run it here: cd <run directory> && gnuplot plots.gp
set terminal pngcairo size 1200,750 noenhanced font ',11'
reset
set datafile separator ','
set key autotitle columnhead
set grid lc rgb '#d0d0d0'
set border lc rgb '#404040'
set output 'table.png'
set title "Noise table p(x): learned vs truncated Gaussian of the same second-moment\ngrid: 4801 points, step 1, [-2400, 2400], symmetric"
set xlabel 'noise x'
set ylabel 'probability p(x) (log scale)'
set logscale y
set format y '1e%L'
set key top right box opaque
plot 'noise.csv' using 1:($2 > 0 ? $2 : 1/0) with lines lw 2.5 lc rgb '#1f5fa8' title "learned (second-moment 4.01e+04)", 'baseline.csv' using 1:($2 > 0 ? $2 : 1/0) with lines lw 2 dt 2 lc rgb '#d9730d' title "truncated Gaussian sigma 200.2, same second-moment"
reset
set datafile separator ','
set key autotitle columnhead
set grid lc rgb '#d0d0d0'
set border lc rgb '#404040'
set output 'certificate.png'
set title "Certified privacy curve delta(epsilon) of the learned table after n = 4810 compositions (sensitivity 1)\ncertified: delta <= 0.01472 at epsilon = 0.5 (lower bound 0.0147): the mechanism is (0.5, 0.01472)-DP"
set xlabel 'epsilon'
set ylabel 'delta (log scale)'
set logscale y
set format y '1e%L'
set key top right box opaque samplen 3
set label "distinguishing events after n = 4810 compositions: probability 2.891e-32 (below the plot)" at graph 0.01, graph 0.03 left tc rgb '#b00000'
$certified_delta << EOD
epsilon,delta_upper
0.5,0.014714453268173245
EOD
$certified_epsilon << EOD
epsilon_upper,delta
0.87358397374092123,0.001
1.51133893867802,9.9999999999999995e-07
1.971039837275818,1.0000000000000001e-09
EOD
set label "delta(0.5) <= 0.01472" at first 0.5, first 0.014714453268173245 offset 1.2,0.9 left front
set label "epsilon(0.001) <= 0.8736" at first 0.87358397374092123, first 0.001 offset -1.2,-0.9 right front
set label "epsilon(1e-06) <= 1.512" at first 1.51133893867802, first 9.9999999999999995e-07 offset -1.2,-0.9 right front
set label "epsilon(1e-09) <= 1.972" at first 1.971039837275818, first 1.0000000000000001e-09 offset -1.2,-0.9 right front
plot 'comparison_curves.csv' using 1:($2 > 0 ? $2 : 1/0) with lines lw 2.5 lc rgb '#1f5fa8' title "learned: upper bound (certified)", 'comparison_curves.csv' using 1:($3 > 0 ? $3 : 1/0) with lines lw 1.5 dt 2 lc rgb '#1f5fa8' title "learned: lower bound", 'comparison_curves.csv' using 1:($4 > 0 ? $4 : 1/0) with lines lw 2.5 lc rgb '#d9730d' title "truncated Gaussian sigma 200.2, same second-moment: upper bound (certified)", 'comparison_curves.csv' using 1:($5 > 0 ? $5 : 1/0) with lines lw 1.5 dt 2 lc rgb '#d9730d' title "truncated Gaussian sigma 200.2, same second-moment: lower bound", $certified_delta using 1:2 with points pt 7 ps 2 lc rgb '#000000' title "certified delta(0.5) <= 0.01472", $certified_epsilon using 1:2 with points pt 5 ps 1.6 lc rgb '#000000' title "certified epsilon(0.001) <= 0.8736, epsilon(1e-06) <= 1.512, epsilon(1e-09) <= 1.972"
reset
set datafile separator ','
set key autotitle columnhead
set grid lc rgb '#d0d0d0'
set border lc rgb '#404040'
set output 'history.png'
set multiplot layout 2,2 title "Training history of monotone-logits: 246 logged epochs" font ',13'
unset key
set title "Privacy: training surrogate of delta at epsilon = 0.5, n = 4810 (soft-pld; not a certificate)"
set xlabel 'epoch'
set ylabel "delta surrogate (log scale)"
set logscale y
set format y '1e%L'
plot 'history.csv' using 1:($3 > 0 ? $3 : 1/0) with lines lw 2 lc rgb '#1f5fa8'
set title "Utility: second-moment of the table (lower is better)"
set xlabel 'epoch'
set ylabel "second-moment"
unset logscale y
set format y '%g'
plot 'history.csv' using 1:4 with lines lw 2 lc rgb '#1f5fa8'
set title "Utility weight w (objective = delta surrogate + w x utility)"
set xlabel 'epoch'
set ylabel "weight w (log scale)"
set logscale y
set format y '1e%L'
plot 'history.csv' using 1:($5 > 0 ? $5 : 1/0) with lines lw 2 lc rgb '#1f5fa8'
set title "Learning rate"
set xlabel 'epoch'
set ylabel "learning rate (log scale)"
set logscale y
set format y '1e%L'
plot 'history.csv' using 1:($6 > 0 ? $6 : 1/0) with lines lw 2 lc rgb '#1f5fa8'
unset multiplot

# Plots of this run directory, written by noiselearn. Run it here: cd <run directory> && gnuplot plots.gp
set terminal pngcairo size 1200,750 noenhanced font ',11'
reset
set datafile separator ','
set key autotitle columnhead
set grid lc rgb '#d0d0d0'
set border lc rgb '#404040'
set output 'table.png'
set title "Noise table p(x): learned vs truncated Gaussian of the same l1\ngrid: 81 points, step 0.1, [-4, 4], symmetric"
set xlabel 'noise x'
set ylabel 'probability p(x) (log scale)'
set logscale y
set format y '1e%L'
set key top right box opaque
plot 'noise.csv' using 1:($2 > 0 ? $2 : 1/0) with lines lw 2.5 lc rgb '#1f5fa8' title "learned (l1 1.691)", 'baseline.csv' using 1:($2 > 0 ? $2 : 1/0) with lines lw 2 dt 2 lc rgb '#d9730d' title "truncated Gaussian sigma 2.755, same l1"
reset
set datafile separator ','
set key autotitle columnhead
set grid lc rgb '#d0d0d0'
set border lc rgb '#404040'
set output 'certificate.png'
set title "Certified privacy curve delta(epsilon) of the learned table after n = 2 compositions (sensitivity 0.3)\ncertified: delta <= 0.04274 at epsilon = 1 (lower bound 0.04273): the mechanism is (1, 0.04274)-DP"
set xlabel 'epsilon'
set ylabel 'delta (log scale)'
set logscale y
set format y '1e%L'
set key top right box opaque samplen 3
set format y '%g'
set ytics add ('0.02' 0.02, '0.05' 0.05, '0.2' 0.2, '0.5' 0.5)
set xrange [0:1.05]
set label "floor 0.04273" at graph 0.01, first 0.042730242246925662 offset 0,-0.9 left tc rgb '#b00000'
$certified_delta << EOD
epsilon,delta_upper
1,0.042730242246949955
EOD
$certified_epsilon << EOD
epsilon_upper,delta
0,0.10000000000000001
0,0.20000000000000001
EOD
set label "delta(1) <= 0.04274" at first 1, first 0.042730242246949955 offset -1.2,0.9 right front
set label "epsilon(0.1) <= 0" at first 0, first 0.10000000000000001 offset -1.2,-0.9 right front
set label "epsilon(0.2) <= 0" at first 0, first 0.20000000000000001 offset -1.2,-0.9 right front
plot 'comparison_curves.csv' using 1:($2 > 0 ? $2 : 1/0) with lines lw 2.5 lc rgb '#1f5fa8' title "learned: upper and lower bound coincide (differ by <= 0.00091 %)", 'comparison_curves.csv' using 1:($4 > 0 ? $4 : 1/0) with lines lw 2.5 lc rgb '#d9730d' title "truncated Gaussian sigma 2.755, same l1: upper and lower bound coincide (differ by <= 0.0021 %)", 0.042730242246925662 with lines lw 2 dt 2 lc rgb '#b00000' title "floor: distinguishing events after n = 2 compositions have probability 0.04273 (no smaller delta)", $certified_delta using 1:2 with points pt 7 ps 2 lc rgb '#000000' title "certified delta(1) <= 0.04274", $certified_epsilon using 1:2 with points pt 5 ps 1.6 lc rgb '#000000' title "certified epsilon(0.1) <= 0, epsilon(0.2) <= 0"
reset
set datafile separator ','
set key autotitle columnhead
set grid lc rgb '#d0d0d0'
set border lc rgb '#404040'
set output 'history.png'
set multiplot layout 2,2 title "Training history of sigmoid-stack: 16 logged epochs" font ',13'
unset key
set title "Privacy: training surrogate of delta at epsilon = 1, n = 2 (soft-pld; not a certificate)"
set xlabel 'epoch'
set ylabel "delta surrogate (log scale)"
set logscale y
set format y '1e%L'
plot 'history.csv' using 1:($3 > 0 ? $3 : 1/0) with linespoints pt 7 ps 1.2 lw 2 lc rgb '#1f5fa8'
set title "Utility: l1 of the table (lower is better)"
set xlabel 'epoch'
set ylabel "l1"
unset logscale y
set format y '%g'
plot 'history.csv' using 1:4 with linespoints pt 7 ps 1.2 lw 2 lc rgb '#1f5fa8'
set title "Utility weight w (objective = delta surrogate + w x utility)"
set xlabel 'epoch'
set ylabel "weight w (log scale)"
set logscale y
set format y '1e%L'
plot 'history.csv' using 1:($5 > 0 ? $5 : 1/0) with linespoints pt 7 ps 1.2 lw 2 lc rgb '#1f5fa8'
set title "Learning rate"
set xlabel 'epoch'
set ylabel "learning rate (log scale)"
set logscale y
set format y '1e%L'
plot 'history.csv' using 1:($6 > 0 ? $6 : 1/0) with linespoints pt 7 ps 1.2 lw 2 lc rgb '#1f5fa8'
unset multiplot

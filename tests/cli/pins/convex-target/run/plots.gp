# Plots of this run directory, written by noiselearn. Run it here: cd <run directory> && gnuplot plots.gp
set terminal pngcairo size 1200,750 noenhanced font ',11'
reset
set datafile separator ','
set key autotitle columnhead
set grid lc rgb '#d0d0d0'
set border lc rgb '#404040'
set output 'table.png'
set title "Noise table p(x): learned\ngrid: 101 points, step 1, [0, 100], one-sided"
set xlabel 'noise x'
set ylabel 'probability p(x) (log scale)'
set logscale y
set format y '1e%L'
set key top right box opaque
plot 'noise.csv' using 1:($2 > 0 ? $2 : 1/0) with lines lw 2.5 lc rgb '#1f5fa8' title "learned (second-moment 274.3)"
reset
set datafile separator ','
set key autotitle columnhead
set grid lc rgb '#d0d0d0'
set border lc rgb '#404040'
set output 'certificate.png'
set title "Certified privacy curve delta(epsilon) of the learned table after n = 10 compositions (sensitivity 1)\ncertified: delta <= 1e-05 at epsilon = 4 (lower bound 9.976e-06): the mechanism is (4, 1e-05)-DP"
set xlabel 'epsilon'
set ylabel 'delta (log scale)'
set logscale y
set format y '1e%L'
set key top right box opaque samplen 3
set label "floor 2.246e-06" at graph 0.01, first 2.2461159564398907e-06 offset 0,-0.9 left tc rgb '#b00000'
$certified_delta << EOD
epsilon,delta_upper
4,9.9999851747033793e-06
EOD
$certified_epsilon << EOD
epsilon_upper,delta
3.9999994969423422,1.0000000000000001e-05
3.3261894055624865,0.0001
EOD
set label "delta(4) <= 1e-05" at first 4, first 9.9999851747033793e-06 offset 1.2,0.9 left front
set label "epsilon(1e-05) <= 4" at first 3.9999994969423422, first 1.0000000000000001e-05 offset -1.2,-0.9 right front
set label "epsilon(0.0001) <= 3.327" at first 3.3261894055624865, first 0.0001 offset -1.2,-0.9 right front
plot 'certificate.csv' using 1:($2 > 0 ? $2 : 1/0) with lines lw 2.5 lc rgb '#1f5fa8' title "learned: upper and lower bound coincide (differ by <= 0.4 %)", 2.2461159564398907e-06 with lines lw 2 dt 2 lc rgb '#b00000' title "floor: distinguishing events after n = 10 compositions have probability 2.246e-06 (no smaller delta)", $certified_delta using 1:2 with points pt 7 ps 2 lc rgb '#000000' title "certified delta(4) <= 1e-05", $certified_epsilon using 1:2 with points pt 5 ps 1.6 lc rgb '#000000' title "certified epsilon(1e-05) <= 4, epsilon(0.0001) <= 3.327"

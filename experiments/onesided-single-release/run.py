"""Driver of experiments/onesided-single-release (see run.sh and README.md)."""
import csv, json, math, os, subprocess, sys

BIN = sys.argv[1]
RES = 'results'
os.makedirs(f'{RES}/runs', exist_ok=True)
EPSILONS = [0.5, 1.0, 2.0, 4.0, 8.0]
# The paper's printed rows (Tables 1 and 2).
PRINTED = {1e-4: {'tbl': [265.5, 83.0, 27.1, 9.8, 4.3], 'thm1': [244.5, 68.9, 17.0, 4.1, 1.0]},
           1e-6: {'tbl': [648.1, 187.7, 56.3, 18.3, 6.9], 'thm1': [608.1, 171.5, 37.7, 9.1, 1.1]}}


def baseline(name, args, query_delta):
    """Runs noiselearn baseline, certifies one release at query_delta; returns (E[e^2], epsilon lower, upper)."""
    out = f'{RES}/runs/{name}'
    subprocess.run([BIN, '--quiet', 'baseline', *args, '--out', out, '--force', '-n', '1', '--delta', repr(query_delta)],
                   check=True, capture_output=True)
    meta = json.load(open(f'{out}/noise.json'))
    e = meta['certificate']['epsilon_at_delta'][0]
    return meta['utility']['second_moment'], e['epsilon_lower'], e['epsilon_upper']


def discrete_tbl_range(eps, delta):
    """Least R with p_0 <= delta for p_j ~ exp(-eps |j - R/2|) on 0..R (the library's calibrated_discrete_tbl)."""
    q = -math.expm1(-eps)
    for r in range(1, 10 ** 7):
        m = r // 2
        z = 1 + 2 * math.exp(-eps) * -math.expm1(-eps * m) / q if r % 2 == 0 else \
            2 * math.exp(-eps / 2) * -math.expm1(-eps * (m + 1)) / q
        if math.exp(-eps * r / 2) / z <= delta:
            return r
    raise SystemExit('no range')


def thm1(eps, delta, omega):
    """Thm 1's construction at a turning point omega (appendix B): (E[e^2], c)."""
    num = math.expm1(eps) - math.expm1(eps * omega) * delta
    c = num / (math.expm1(eps * (omega + 1)) * delta)
    top = 2 * omega
    if c < math.exp(-2 * eps):
        top, c = 2 * omega - 1, num / (math.exp(eps) * math.expm1(eps * omega) * delta)
    p = [delta * math.exp(eps * i) if i < omega else delta * c * math.exp(eps * (2 * omega - i)) for i in range(top + 1)]
    return sum(i * i * x for i, x in enumerate(p)), c


for number, delta in [(1, 1e-4), (2, 1e-6)]:
    query = delta * 1.001
    rows = []
    for k, eps in enumerate(EPSILONS):
        # TBL at the exact minimal shift, binned at step 0.01 on [0, R], R = 2 mu* rounded up to the grid.
        mu = math.log1p(math.expm1(eps) / (2 * delta)) / eps
        lam = 1 / eps
        step = 0.01
        r_tbl = math.ceil(2 * mu / step) * step
        tbl_table_e2, tbl_lo, tbl_hi = baseline(f'tbl-{delta:g}-{eps:g}',
                                                ['tbl', '--scale', repr(lam), '--shift', repr(mu), '--grid-step', repr(step),
                                                 '--range', f'{r_tbl:.2f}'], query)
        # The law's exact E[e^2] on [0, 2 mu] (the library's TruncatedBiasedLaplace::second_moment).
        x = mu / lam
        var = 2 * lam ** 2 * (1 - math.exp(-x) * (1 + x + x * x / 2)) / (1 - math.exp(-x))
        tbl_exact = mu * mu + var
        r = discrete_tbl_range(eps, delta)
        d_e2, d_lo, d_hi = baseline(f'discrete-tbl-{delta:g}-{eps:g}',
                                    ['discrete-tbl', '--scale', repr(1 / eps), '--grid-step', '1', '--range', str(r)], query)
        omega_real = (math.log(2 * delta + math.expm1(eps)) - math.log(delta) - math.log1p(math.exp(eps))) / eps
        omega = math.ceil(omega_real)
        o_e2, o_lo, o_hi = baseline(f'optimum-{delta:g}-{eps:g}',
                                    ['one-sided-optimum', '--epsilon', repr(eps), '--optimum-delta', repr(delta),
                                     '--grid-step', '1', '--range', str(2 * omega)], query)
        floor_e2, floor_c = thm1(eps, delta, math.floor(omega_real))
        rows.append([eps, f'{tbl_exact:.6g}', f'{mu * mu + lam * lam:.6g}', PRINTED[delta]['tbl'][k], f'{tbl_table_e2:.6g}',
                     f'{tbl_hi:.6f}', r, f'{d_e2:.6g}', f'{d_hi:.6f}', f'{o_e2:.6g}', f'{o_hi:.6f}', PRINTED[delta]['thm1'][k],
                     f'{floor_e2:.6g}', f'{floor_c:.4f}'])
    with open(f'{RES}/table{number}.csv', 'w') as f:
        w = csv.writer(f)
        w.writerow(['epsilon', 'tbl_exact_e2', 'tbl_mu2_plus_lambda2', 'tbl_printed', 'tbl_binned_table_e2',
                    'tbl_certified_epsilon_upper', 'discrete_tbl_range', 'discrete_tbl_e2', 'discrete_tbl_certified_epsilon_upper',
                    'thm1_e2', 'thm1_certified_epsilon_upper', 'thm1_printed', 'thm1_floor_omega_e2', 'thm1_floor_omega_c'])
        w.writerows(rows)
    print(f'wrote {RES}/table{number}.csv (delta = {delta:g}, certified at {query:g})')

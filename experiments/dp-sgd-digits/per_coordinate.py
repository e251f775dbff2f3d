#!/usr/bin/env python3
"""Noise on each coordinate in DP-SGD on digits: a learned noise table, the Laplace and the Gaussian drawn per
coordinate of the clipped gradient sum (per-coordinate, L-infinity, clipping), at equal certified epsilon, against
Gaussian DP-SGD with L2 clipping (dp_sgd_digits.py's setting).

    PYTHONPATH=build/python /usr/bin/python3 experiments/dp-sgd-digits/per_coordinate.py            # full run
    PYTHONPATH=build/python /usr/bin/python3 experiments/dp-sgd-digits/per_coordinate.py --quick    # 1 epoch, 1 seed

Outputs (--out, default results/per-coordinate/ beside this file): results.csv, clip_tuning.csv, summary.md,
per-coordinate.png, and learned/ (the learned table: noise.csv, noise.json, the run that trained it).

Privacy. Each example's gradient (d = 4810 coordinates for the 64-64-10 MLP) is clipped to [-c, c] in every
coordinate, so neighbouring data sets' clipped sums differ by at most c in each: the release is the mechanism on each
of d coordinates, Poisson-sampled at rate q, T times. noiselearn accounts it exactly as that (an event with
`coordinates: d`: the d-fold product pair, sampled; src/accounting/README.md, "Coordinates"):
- Gaussian per coordinate (std M c): the Gaussian of multiplier M / sqrt(d), in closed form;
- Laplace per coordinate (scale M c): the product computed on a grid, certified both ways;
- the learned table per coordinate: each clipped coordinate is rounded at random to the grid of step c (to -c, 0 or
  c, unbiased; an example's contribution is then a random shift of at most one cell, a post-processing of the shift
  by one cell since the table is symmetric and monotone), the sum plus c times a draw of the table in grid units;
  accounted as `mechanism: table` on d coordinates, sensitivity one grid step.
The learned table is trained by noiselearn (learned_table.yaml): the least second moment whose d-fold product, on its
own, has certified delta at epsilon 0.5 at most that of the per-coordinate Gaussian calibrated for (2, 1e-5) after the
T sampled steps. The comparison is then made at the learned table's own certified epsilon after the T steps: the
Gaussian (L2 clipping, and per coordinate) and the Laplace are calibrated by noiselearn to that epsilon.
"""
import argparse
import math
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import dp_sgd_digits as base  # noqa: E402

DELTA = base.DELTA
SEEDS = list(range(10))
TABLE_CONFIG = os.path.join(HERE, "learned_table.yaml")
CLIP_FACTORS = [0.5, 1.0, 2.0, 4.0, 8.0]  # c = factor / sqrt(d): the corner of [-c, c]^d is at L2 norm `factor`
METHODS = ["gaussian-l2", "gaussian-coordinate", "laplace-coordinate", "learned-coordinate"]


def parameter_count(hidden):
    return hidden * 64 + hidden + 10 * hidden + 10


def per_example_gradients(model, x, y):
    """Each example's cross-entropy gradient, per parameter tensor: (B, hidden, 64), (B, hidden), (B, 10, hidden),
    (B, 10) (the same backprop as MLP.gradient_sum, without summing)."""
    import torch
    w1, b1, w2, b2 = model.params
    h = (x @ w1.T + b1).tanh()
    g_out = torch.softmax(h @ w2.T + b2, dim=1)
    g_out[torch.arange(len(y)), y] -= 1.0
    g_hid = (g_out @ w2) * (1.0 - h * h)
    return [g_hid[:, :, None] * x[:, None, :], g_hid, g_out[:, :, None] * h[:, None, :], g_out]


class Table:
    """A noise table in grid units (its x / step), with its inverse CDF for drawing."""

    def __init__(self, csv_path):
        data = np.loadtxt(csv_path, delimiter=",", skiprows=1)
        x, p = data[:, 0], data[:, 1]
        step = float(np.median(np.diff(x)))
        self.cells = np.rint(x / step).astype(np.int64)
        self.p = p / p.sum()
        self.cdf = np.cumsum(self.p)
        self.std = float(math.sqrt(np.sum(self.p * self.cells.astype(float) ** 2)))

    def draw(self, shape, generator):
        import torch
        u = torch.rand(shape, generator=generator, dtype=torch.float64).numpy()
        i = np.minimum(np.searchsorted(self.cdf, u, side="right"), len(self.cdf) - 1)
        return torch.from_numpy(self.cells[i].astype(np.float32))


def train(data, method, noise, clip, q, steps, lr, seed, hidden, table=None, expected_batch=base.EXPECTED_BATCH):
    """DP-SGD for `steps` steps. gaussian-l2: dp_sgd_digits.train (L2 clipping at `clip`, std noise * clip). The
    per-coordinate methods clip every coordinate to [-clip, clip] and add per coordinate: N(0, (noise clip)^2),
    Laplace(noise clip), or (learned) the coordinates rounded at random to the grid of step clip plus clip times a draw
    of the table. Returns accuracy, the noise std per coordinate used and measured, seconds."""
    if method == "gaussian-l2":
        return base.train(data, noise, q, steps, lr=lr, clip=clip, seed=seed, hidden=hidden)
    import torch
    x_tr, y_tr, x_te, y_te = data
    n = len(y_tr)
    g_init, g_batch, g_noise = (torch.Generator().manual_seed(1000 * seed + k) for k in (1, 2, 3))
    g_round = torch.Generator().manual_seed(1000 * seed + 4)
    model = base.MLP(hidden, g_init)
    noise_ss, noise_count = 0.0, 0
    start = time.perf_counter()
    for _ in range(steps):
        idx = (torch.rand(n, generator=g_batch) < q).nonzero().squeeze(1)
        grads = []
        if len(idx):
            for g in per_example_gradients(model, x_tr[idx], y_tr[idx]):
                g = g.clamp(-clip, clip)
                if method == "learned-coordinate":  # unbiased rounding to {-clip, 0, clip}
                    v = g / clip
                    low = v.floor()
                    g = (low + (torch.rand(v.shape, generator=g_round) < (v - low)).float()) * clip
                grads.append(g.sum(0))
        else:
            grads = [torch.zeros_like(p) for p in model.params]
        for p, g in zip(model.params, grads):
            if method == "gaussian-coordinate":
                z = noise * clip * torch.randn(p.shape, generator=g_noise)
            elif method == "laplace-coordinate":
                u = torch.rand(p.shape, generator=g_noise) - 0.5
                z = -noise * clip * u.sign() * torch.log1p(-2.0 * u.abs())
            else:
                z = clip * table.draw(p.shape, g_noise)
            noise_ss += float((z.double() ** 2).sum())
            noise_count += z.numel()
            p -= (lr / expected_batch) * (g + z)
    return dict(accuracy=model.accuracy(x_te, y_te), noise_std_empirical=math.sqrt(noise_ss / noise_count),
                seconds=time.perf_counter() - start)


def learned_table(out, retrain, quick_sigma=None):
    """The learned table's noise.csv: trained by `noiselearn train learned_table.yaml` into out/learned when absent
    (or --retrain). With quick_sigma (--quick): a discrete Gaussian of that sigma on the same grid stands in, written as
    a bare x,p CSV (no training). Returns its path and the training seconds (0 when it was there)."""
    run_dir = os.path.join(out, "learned" if quick_sigma is None else "stand-in")
    csv_path = os.path.join(run_dir, "noise.csv")
    if quick_sigma is not None:
        os.makedirs(run_dir, exist_ok=True)
        x = np.arange(-2400, 2401)
        p = np.exp(-0.5 * (x / quick_sigma) ** 2)
        p /= p.sum()
        with open(csv_path, "w") as f:
            f.write("x,p\n" + "".join(f"{int(v)},{w!r}\n" for v, w in zip(x, p)))
        return csv_path, 0.0
    if os.path.exists(csv_path) and not retrain:
        return csv_path, 0.0
    binary = os.path.abspath(os.environ.get("NOISELEARN", os.path.join(REPO, "build", "src", "cli", "noiselearn")))
    t = time.perf_counter()
    # From this folder with relative paths, so that the table's provenance names no machine's paths.
    subprocess.run([binary, "train", os.path.basename(TABLE_CONFIG), "--out", os.path.relpath(run_dir, HERE), "--force"],
                   check=True, cwd=HERE)
    return csv_path, time.perf_counter() - t


def event(mechanism, d, q, steps, **parameters):
    return dict(mechanism=mechanism, coordinates=d, sampling_rate=q, count=steps, **parameters)


def calibrations(nl, table_path, d, q, steps):
    """The learned table's certified (upper) epsilon after the T steps, and every other method calibrated to it by
    noiselearn: {method: dict(noise, eps_lo, eps_hi, std (per coordinate, in units of the clip))}."""
    t = Table(table_path)
    lo, hi = nl.account_events([event("table", d, q, steps, table=table_path, sensitivity=_table_step(table_path))]).epsilon(DELTA)
    eps = hi
    out = {"learned-coordinate": dict(noise=t.std, eps_lo=lo, eps_hi=hi, std=t.std)}
    m, (l2lo, l2hi) = nl.calibrate_noise_multiplier(eps, DELTA, q, steps)
    out["gaussian-l2"] = dict(noise=m, eps_lo=l2lo, eps_hi=l2hi, std=m)
    # The searches start near the answer: the Gaussian's product is the L2 Gaussian at m sqrt(d); the Laplace's scale
    # for the same Fisher information is the Gaussian's std (its std sqrt(2) times that).
    guess = m * math.sqrt(d)
    mg, (glo, ghi) = nl.calibrate_event(event("gaussian", d, q, steps, noise_multiplier=guess), "noise_multiplier", eps,
                                        DELTA, minimum=1.0, maximum=1e5)
    out["gaussian-coordinate"] = dict(noise=mg, eps_lo=glo, eps_hi=ghi, std=mg)
    ml, (llo, lhi) = nl.calibrate_event(event("laplace", d, q, steps, noise_multiplier=guess), "noise_multiplier", eps,
                                        DELTA, minimum=1.0, maximum=1e5)
    out["laplace-coordinate"] = dict(noise=ml, eps_lo=llo, eps_hi=lhi, std=math.sqrt(2.0) * ml)
    return eps, out


def _table_step(csv_path):
    x = np.loadtxt(csv_path, delimiter=",", skiprows=1, usecols=0, max_rows=3)
    return float(x[1] - x[0])


def tune_clip(data, cal, q, steps, args):
    """The clipping: c = factor / sqrt(d), the factor chosen once on a validation split (20 % of the training set,
    stratified, seed 1), 3 seeds, for the per-coordinate Gaussian; the same c for every per-coordinate method. The L2
    baseline keeps dp_sgd_digits' C = 1 (its tuned setting)."""
    import torch
    from sklearn.model_selection import train_test_split
    x_tr, y_tr, _, _ = data
    a, b, ya, yb = train_test_split(x_tr.numpy(), y_tr.numpy(), test_size=0.2, stratify=y_tr.numpy(), random_state=1)
    val = (torch.from_numpy(a), torch.from_numpy(ya), torch.from_numpy(b), torch.from_numpy(yb))
    d = parameter_count(args.hidden)
    rows = []
    for factor in CLIP_FACTORS:
        accs = [train(val, "gaussian-coordinate", cal["gaussian-coordinate"]["noise"], factor / math.sqrt(d), q, steps,
                      args.lr, 100 + s, args.hidden)["accuracy"] for s in range(3)]
        rows.append(dict(clip_factor=factor, clip=factor / math.sqrt(d), val_accuracy_mean=float(np.mean(accs)),
                         val_accuracy_std=float(np.std(accs, ddof=1))))
        print(f"  clip factor {factor:g}: validation accuracy {rows[-1]['val_accuracy_mean']:.4f}", flush=True)
    best = max(rows, key=lambda r: r["val_accuracy_mean"])
    return best["clip_factor"], rows


def run(args):
    import torch
    torch.set_num_threads(args.threads)
    nl, standin = base.import_noiselearn()
    if standin or not hasattr(nl, "calibrate_event"):
        raise SystemExit("per_coordinate.py needs noiselearn's own accountant with calibrate_event: rebuild noiselearn")
    if hasattr(nl, "set_threads"):
        nl.set_threads(args.threads)
    data = base.load_data()
    n = len(data[1])
    q, steps, _ = base.plan(n, args.epochs)
    d = parameter_count(args.hidden)
    os.makedirs(args.out, exist_ok=True)
    t0 = time.perf_counter()
    quick_sigma = None
    if args.quick:  # the per-coordinate Gaussian's std at epsilon 2 after these steps, for the stand-in table
        quick_sigma = nl.calibrate_noise_multiplier(2.0, DELTA, q, steps)[0] * math.sqrt(d)
    table_path, table_seconds = learned_table(args.out, args.retrain, quick_sigma)
    t = time.perf_counter()
    eps, cal = calibrations(nl, table_path, d, q, steps)
    accounting_seconds = time.perf_counter() - t
    print(f"d = {d}, q = {q:.5f}, T = {steps}; the learned table's certified epsilon: "
          f"[{cal['learned-coordinate']['eps_lo']:.5f}, {cal['learned-coordinate']['eps_hi']:.5f}]", flush=True)
    for m in METHODS:
        print(f"  {m:20s} noise {cal[m]['noise']:.4f}, std per coordinate {cal[m]['std']:.2f} clips, certified "
              f"[{cal[m]['eps_lo']:.5f}, {cal[m]['eps_hi']:.5f}]", flush=True)
    if args.quick:
        factor, tuning = 1.0, []
    else:
        factor, tuning = tune_clip(data, cal, q, steps, args)
    clip = factor / math.sqrt(d)
    rows = []
    for seed in args.seeds:
        for m in METHODS:
            c = base.CLIP if m == "gaussian-l2" else clip
            r = train(data, m, cal[m]["noise"], c, q, steps, args.lr, seed, args.hidden,
                      table=Table(table_path) if m == "learned-coordinate" else None)
            rows.append(dict(method=m, seed=seed, clip=c, noise=cal[m]["noise"], std_per_coordinate=cal[m]["std"] * c,
                             noise_std_empirical=r["noise_std_empirical"], eps_certified_lo=cal[m]["eps_lo"],
                             eps_certified_hi=cal[m]["eps_hi"], delta=DELTA, q=q, steps=steps, lr=args.lr,
                             test_accuracy=r["accuracy"], seconds=r["seconds"]))
            print(f"  seed {seed} {m:20s} acc {r['accuracy']:.4f} ({r['seconds']:.1f} s)", flush=True)
    total = time.perf_counter() - t0
    base.write_csv(os.path.join(args.out, "results.csv"), rows)
    if tuning:
        base.write_csv(os.path.join(args.out, "clip_tuning.csv"), tuning)
    summary(args, rows, cal, eps, d, q, steps, factor, total, table_seconds, accounting_seconds, torch.__version__)
    plot(args, rows, cal, table_path, clip)
    return rows, cal


def summary(args, rows, cal, eps, d, q, steps, factor, total, table_seconds, accounting_seconds, torch_version):
    acc = {m: np.array([r["test_accuracy"] for r in rows if r["method"] == m]) for m in METHODS}
    lines = [f"Per-coordinate noise in DP-SGD on digits: MLP 64-{args.hidden}-10 (d = {d} coordinates), q = {q:.5f}, "
             f"T = {steps} steps, delta = {DELTA:g}, lr {args.lr}, seeds {args.seeds[0]}..{args.seeds[-1]} (paired: the "
             f"same weights and batches), torch {torch_version}{' (QUICK: a discrete Gaussian stands in for the learned table)' if args.quick else ''}. Every method at the learned table's certified epsilon "
             f"{eps:.5f}; per-coordinate clipping c = {factor:g} / sqrt(d) = {factor / math.sqrt(d):.5f} (validation), L2 "
             f"clipping C = {base.CLIP}.", "",
             "| method | clipping | noise per coordinate (std) | certified epsilon | test accuracy | vs Gaussian L2 (paired, pp) |",
             "|---|---|---|---|---|---|"]
    names = {"gaussian-l2": "Gaussian, L2 clipping (DP-SGD)", "gaussian-coordinate": "Gaussian per coordinate",
             "laplace-coordinate": "Laplace per coordinate", "learned-coordinate": "learned table per coordinate"}
    for m in METHODS:
        r0 = next(r for r in rows if r["method"] == m)
        mean, std = base.mean_std(acc[m])
        diff = 100.0 * (acc[m] - acc["gaussian-l2"])
        dm, ds = base.mean_std(diff)
        clipping = f"L2, C = {r0['clip']:g}" if m == "gaussian-l2" else f"L-inf, c = {r0['clip']:.5f}"
        lines.append(f"| {names[m]} | {clipping} | {r0['std_per_coordinate']:.4f} ({cal[m]['std']:.2f} c) | "
                     f"[{cal[m]['eps_lo']:.5f}, {cal[m]['eps_hi']:.5f}] | {100 * mean:.2f} ± {100 * std:.2f} % | "
                     + ("-" if m == "gaussian-l2" else f"{dm:+.2f} ± {ds:.2f} (SE {ds / math.sqrt(len(diff)):.2f})") + " |")
    lg = 100.0 * (acc["learned-coordinate"] - acc["gaussian-coordinate"])
    lm, ls = base.mean_std(lg)
    lines += ["", f"Learned minus Gaussian per coordinate (paired seeds: the same weights and batches, not the same "
              f"noise draws): {lm:+.2f} ± {ls:.2f} pp (SE {ls / math.sqrt(len(lg)):.2f}). Seeds whose accuracy is at "
              f"most 20 % (training diverged): " + ", ".join(f"{names[m]} {int(np.sum(acc[m] <= 0.2))}" for m in METHODS) + "."]
    g, l, t = cal["gaussian-coordinate"]["std"], cal["laplace-coordinate"]["std"], cal["learned-coordinate"]["std"]
    lines += ["", f"Noise std per coordinate at equal certified epsilon, in clips: learned {t:.2f}, Gaussian {g:.2f} "
              f"(learned / Gaussian = {t / g:.4f}), Laplace {l:.2f} (Laplace / Gaussian = {l / g:.4f}).", "",
              f"Runtime: {total:.0f} s on {args.threads} thread(s) (training the learned table {table_seconds:.0f} s, "
              f"accounting and calibrations {accounting_seconds:.0f} s).", ""]
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


def plot(args, rows, cal, table_path, clip):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    t = Table(table_path)
    ax1.semilogy(t.cells, t.p, color="C2", label=f"learned table (std {t.std:.1f} c)")
    xs = t.cells.astype(float)
    g = cal["gaussian-coordinate"]["noise"]
    ax1.semilogy(xs, np.exp(-xs ** 2 / (2 * g * g)) / (g * math.sqrt(2 * math.pi)), "--", color="C0",
                 label=f"Gaussian (std {g:.1f} c)")
    b = cal["laplace-coordinate"]["noise"]
    ax1.semilogy(xs, np.exp(-np.abs(xs) / b) / (2 * b), ":", color="C3", label=f"Laplace (std {math.sqrt(2) * b:.1f} c)")
    ax1.set_ylim(1e-12, None)
    ax1.set_xlabel("noise per coordinate (clips c)")
    ax1.set_ylabel("density")
    ax1.set_title("per-coordinate noise at equal certified epsilon", fontsize=10)
    ax1.legend(fontsize=8)
    labels = ["Gaussian\nL2", "Gaussian\nper coord.", "Laplace\nper coord.", "learned\nper coord."]
    means, stds = zip(*(base.mean_std([r["test_accuracy"] for r in rows if r["method"] == m]) for m in METHODS))
    ax2.bar(range(4), [100 * m for m in means], yerr=[100 * s for s in stds], capsize=4, color=["C1", "C0", "C3", "C2"])
    ax2.set_xticks(range(4))
    ax2.set_xticklabels(labels)
    ax2.set_ylim(min(100 * m for m in means) - 10, 100)
    ax2.set_ylabel("test accuracy (%)")
    ax2.set_title("DP-SGD on digits at equal certified epsilon", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "per-coordinate.png"), dpi=120)
    plt.close(fig)


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="one epoch, one seed, c = 1 / sqrt(d), a discrete Gaussian "
                                                        "standing in for the learned table (no training)")
    p.add_argument("--retrain", action="store_true", help="train the learned table again (learned_table.yaml)")
    p.add_argument("--out", default=os.path.join(HERE, "results", "per-coordinate"))
    p.add_argument("--epochs", type=int, default=base.EPOCHS)
    p.add_argument("--seeds", type=int, nargs="+", default=SEEDS)
    p.add_argument("--lr", type=float, default=base.LEARNING_RATE)
    p.add_argument("--hidden", type=int, default=base.HIDDEN)
    p.add_argument("--threads", type=int, default=int(os.environ.get("THREADS", "1")))
    args = p.parse_args(argv)
    if args.quick:
        args.epochs, args.seeds = 1, [0]
    return args


if __name__ == "__main__":
    run(parse())

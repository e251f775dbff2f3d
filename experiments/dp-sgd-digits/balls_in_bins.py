#!/usr/bin/env python3
"""DP-SGD on digits with balls-in-bins batches (each example in exactly one random step of each epoch, as shuffled
data is used, though the batch sizes are binomial, not fixed), accounted as such by noiselearn (random allocation),
beside Poisson sampling at the same expected batch, both calibrated to the same certified epsilon.

    PYTHONPATH=build/python /usr/bin/python3 experiments/dp-sgd-digits/balls_in_bins.py            # full run
    PYTHONPATH=build/python /usr/bin/python3 experiments/dp-sgd-digits/balls_in_bins.py --quick    # 1 epoch, 1 seed

The setting is dp_sgd_digits.py's (data, model, clipping, learning rate, 40 epochs, delta 1e-5) with k = 22 steps
per epoch (expected batch N / k = 65.4; 880 steps). Three rows per target epsilon and seed:
  poisson:           Poisson sampling at rate q = 1 / k, sigma = nl.calibrate_noise_multiplier (certified);
  balls_in_bins:     each epoch, every example draws its step uniformly from the k; sigma = nl.calibrate_event of the
                     random-allocation event (steps_per_epoch k), certified for these batches;
  bins_poisson_sigma: balls-in-bins batches with the Poisson sigma (what accounting shuffled batches as Poisson does);
                     its certified random-allocation epsilon is reported.
Seeds are paired as in dp_sgd_digits.py: the same initial weights and the same standard-normal noise (scaled by each
row's sigma); the batches differ between Poisson and balls in bins (their sampling differs), and are the same for the
two balls-in-bins rows.
Outputs (--out, default results/balls-in-bins/ beside this file): results.csv, summary.md.
"""
import argparse
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dp_sgd_digits as base  # noqa: E402

STEPS_PER_EPOCH = 22


def calibrate(nl, target, k, steps, delta=base.DELTA):
    """sigma and certified bracket of each row's accounting: Poisson at 1/k, random allocation of k per epoch."""
    sigma_p, (lo_p, hi_p) = nl.calibrate_noise_multiplier(target_epsilon=target, delta=delta, sampling_rate=1.0 / k,
                                                          steps=steps)
    event = {"mechanism": "gaussian", "noise_multiplier": float(sigma_p), "steps_per_epoch": k, "count": steps}
    sigma_b, (lo_b, hi_b) = nl.calibrate_event(event, "noise_multiplier", target, delta)
    lo_pb, hi_pb = nl.account_events([event]).epsilon(delta)
    return {
        "poisson": dict(sigma=float(sigma_p), eps_lo=float(lo_p), eps_hi=float(hi_p)),
        "balls_in_bins": dict(sigma=float(sigma_b), eps_lo=float(lo_b), eps_hi=float(hi_b)),
        "bins_poisson_sigma": dict(sigma=float(sigma_p), eps_lo=float(lo_pb), eps_hi=float(hi_pb)),
    }


def train(data, sigma, k, epochs, balls_in_bins, lr=base.LEARNING_RATE, clip=base.CLIP, seed=0, hidden=base.HIDDEN):
    """DP-SGD for k steps per epoch: Poisson batches at rate 1 / k, or balls-in-bins batches (each example in one
    uniformly drawn step of each epoch). The gradient sum is divided by the expected batch N / k either way."""
    import torch
    x_tr, y_tr, x_te, y_te = data
    n = len(y_tr)
    expected_batch = n / k
    g_init, g_batch, g_noise = (torch.Generator().manual_seed(1000 * seed + j) for j in (1, 2, 3))
    model = base.MLP(hidden, g_init)
    batch_sizes = []
    start = time.perf_counter()
    for _ in range(epochs):
        bins = torch.randint(0, k, (n,), generator=g_batch) if balls_in_bins else None
        for step in range(k):
            if balls_in_bins:
                idx = (bins == step).nonzero().squeeze(1)
            else:
                idx = (torch.rand(n, generator=g_batch) < 1.0 / k).nonzero().squeeze(1)
            batch_sizes.append(len(idx))
            if len(idx):
                grads, _ = model.gradient_sum(x_tr[idx], y_tr[idx], clip)
            else:
                grads = [torch.zeros_like(p) for p in model.params]
            for p, g in zip(model.params, grads):
                z = torch.randn(p.shape, generator=g_noise)
                p -= (lr / expected_batch) * (g + sigma * clip * z)
    return dict(accuracy=model.accuracy(x_te, y_te), steps_taken=len(batch_sizes),
                mean_batch=float(np.mean(batch_sizes)), batch_std=float(np.std(batch_sizes)),
                seconds=time.perf_counter() - start)


def run(args):
    import torch
    torch.set_num_threads(args.threads)
    nl, standin = base.import_noiselearn()
    if standin:
        raise SystemExit("balls_in_bins.py needs noiselearn itself (random allocation), not a stand-in")
    data = base.load_data()
    n = len(data[1])
    k, steps = STEPS_PER_EPOCH, STEPS_PER_EPOCH * args.epochs
    os.makedirs(args.out, exist_ok=True)
    t0 = time.perf_counter()
    print(f"N = {n}, k = {k} steps per epoch (expected batch {n / k:.2f}), T = {steps}", flush=True)
    rows, calibrations, accounting_seconds = [], {}, 0.0
    for target in args.targets:
        t = time.perf_counter()
        cal = calibrate(nl, target, k, steps)
        accounting_seconds += time.perf_counter() - t
        calibrations[target] = cal
        print("target {}: ".format(target) + ", ".join(
            f"{name} sigma {c['sigma']:.4f} [{c['eps_lo']:.5f}, {c['eps_hi']:.5f}]" for name, c in cal.items()),
            flush=True)
        for seed in args.seeds:
            for name, c in cal.items():
                r = train(data, c["sigma"], k, args.epochs, name != "poisson", lr=args.lr, seed=seed,
                          hidden=args.hidden)
                rows.append(dict(target_epsilon=target, batches="poisson" if name == "poisson" else "balls_in_bins",
                                 calibration=name, seed=seed, sigma=c["sigma"], eps_certified_lo=c["eps_lo"],
                                 eps_certified_hi=c["eps_hi"], delta=base.DELTA, steps_per_epoch=k,
                                 steps_taken=r["steps_taken"], epochs=args.epochs, mean_batch=r["mean_batch"],
                                 batch_std=r["batch_std"], test_accuracy=r["accuracy"], seconds=r["seconds"]))
        means = {name: np.mean([r["test_accuracy"] for r in rows
                                if r["target_epsilon"] == target and r["calibration"] == name]) for name in cal}
        print("  " + ", ".join(f"{name} {m:.4f}" for name, m in means.items()), flush=True)
    base.write_csv(os.path.join(args.out, "results.csv"), rows)
    write_summary(args, rows, calibrations, n, k, steps, time.perf_counter() - t0, accounting_seconds)
    return rows, calibrations


def write_summary(args, rows, calibrations, n, k, steps, total, accounting_seconds):
    lines = [f"# Balls-in-bins batches against Poisson sampling (N = {n}, k = {k} steps per epoch, T = {steps}, "
             f"delta = {base.DELTA:g}, seeds {args.seeds[0]} ... {args.seeds[-1]})", "",
             "| target ε | σ Poisson (certified ε) | σ balls in bins (certified ε) | ε of the Poisson σ on balls in bins | "
             "accuracy Poisson | accuracy balls in bins | accuracy balls in bins, Poisson σ | gain (pp, paired) |",
             "|---|---|---|---|---|---|---|---|"]
    for target, cal in calibrations.items():
        acc = {name: [r["test_accuracy"] for r in rows if r["target_epsilon"] == target and r["calibration"] == name]
               for name in cal}
        gain = np.asarray(acc["balls_in_bins"]) - np.asarray(acc["bins_poisson_sigma"])
        cells = [f"{target:g}"]
        for name in ("poisson", "balls_in_bins", "bins_poisson_sigma"):
            c = cal[name]
            cells.append(f"{c['sigma']:.4f} ([{c['eps_lo']:.5f}, {c['eps_hi']:.5f}])" if name != "bins_poisson_sigma"
                         else f"[{c['eps_lo']:.5f}, {c['eps_hi']:.5f}]")
        for name in ("poisson", "balls_in_bins", "bins_poisson_sigma"):
            m, s = base.mean_std(acc[name])
            cells.append(f"{100 * m:.2f} ± {100 * s:.2f} %")
        m, s = base.mean_std(gain)
        cells.append(f"{100 * m:+.2f} ± {100 * s:.2f} (SE {100 * s / math.sqrt(len(gain)):.2f})")
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"The gain is balls in bins at its own certified σ minus balls in bins at the Poisson σ, per seed (the "
              f"same batches and noise draws). Total {total:.0f} s, accounting {accounting_seconds:.0f} s."]
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="one epoch, one seed, one target (2.0)")
    p.add_argument("--out", default=os.path.join(HERE, "results", "balls-in-bins"))
    p.add_argument("--epochs", type=int, default=base.EPOCHS)
    p.add_argument("--seeds", type=int, nargs="+", default=base.SEEDS)
    p.add_argument("--targets", type=float, nargs="+", default=base.TARGETS)
    p.add_argument("--lr", type=float, default=base.LEARNING_RATE)
    p.add_argument("--hidden", type=int, default=base.HIDDEN)
    p.add_argument("--threads", type=int, default=int(os.environ.get("THREADS", "1")))
    args = p.parse_args(argv)
    if args.quick:
        args.epochs, args.seeds, args.targets = 1, [0], [2.0]
    return args


if __name__ == "__main__":
    run(parse())

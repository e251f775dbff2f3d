#!/usr/bin/env python3
"""DP-SGD (Abadi et al. 2016) on scikit-learn's digits, its noise calibrated two ways at equal (epsilon, delta):
by noiselearn's certified accountant (the least sigma whose certified upper epsilon is <= the target) and by the
classic Renyi-DP accountant (rdp.py, integer orders 2..256, the classic conversion; what Opacus and TF-Privacy do).
The claim under test: a tighter certified accountant needs less noise, which buys test accuracy at equal epsilon.

    PYTHONPATH=build/python /usr/bin/python3 experiments/dp-sgd-digits/dp_sgd_digits.py            # full run
    PYTHONPATH=build/python /usr/bin/python3 experiments/dp-sgd-digits/dp_sgd_digits.py --quick    # 1 epoch, 1 seed, 1 target

Outputs (--out, default results/ beside this file): results.csv, epsilon_per_epoch.csv, summary.md, dp-sgd-digits.png.

The setting: digits (1797 8x8 images), a stratified split 1438 / 359 (seed 0), pixels / 16 in [0, 1]; an MLP
64 -> HIDDEN (tanh) -> 10, cross-entropy; Poisson sampling of every example with rate q = B / N per step (B = 64,
the expected batch); per-example gradients clipped to L2 norm C = 1 (computed by hand: explicit backprop through
the two layers, the norm of each example's outer-product gradient from the norms of its factors, no per-example
tensor materialised); the clipped sum plus N(0, (sigma C)^2) noise per coordinate, divided by B; plain SGD;
T = round(E N / B) steps for E epochs. Width, epochs and learning rate were chosen once by --tune (a validation split
of the training set, at the RDP-calibrated sigma for epsilon = 1) and are fixed for every target and both
calibrations: HIDDEN = 64, E = 40 (T = 899), lr = 0.125 (the non-private reference: lr 0.25).
Seeds are paired: for a given seed both calibrations start from the same weights, draw the same batches and the
same standard-normal noise (scaled by their own sigma C), so the accuracy difference is the noise level's alone.
"""
import argparse
import csv
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import rdp  # noqa: E402

DELTA = 1e-5
EXPECTED_BATCH = 64
CLIP = 1.0
HIDDEN = 64
EPOCHS = 40  # epochs, hidden width and learning rates chosen once by --tune (results/lr_tuning.csv), see the README
LEARNING_RATE = 0.125
NONPRIVATE_LEARNING_RATE = 0.25
SEEDS = list(range(20))
TARGETS = [0.5, 1.0, 2.0, 4.0]
TEST_SIZE = 359
SPLIT_SEED = 0


def import_noiselearn():
    """The real module first (PYTHONPATH, else <repo>/build/python). If it lacks the DP-SGD API and NOISELEARN_STANDIN
    names a folder holding a stand-in noiselearn.py, that stand-in is used and every output is marked a placeholder."""
    try:
        import noiselearn as nl
    except ImportError:
        sys.path.append(os.path.join(REPO, "build", "python"))
        import noiselearn as nl
    needed = ("calibrate_noise_multiplier", "dp_sgd_epsilons", "dp_sgd_epsilon")
    if all(hasattr(nl, f) for f in needed):
        return nl, False
    standin = os.environ.get("NOISELEARN_STANDIN")
    if not standin:
        raise ImportError(f"{nl.__file__} has no {', '.join(f for f in needed if not hasattr(nl, f))}: "
                          "rebuild noiselearn, or set NOISELEARN_STANDIN for a stand-in (placeholder numbers)")
    import importlib.util
    spec = importlib.util.spec_from_file_location("noiselearn_standin", os.path.join(standin, "noiselearn.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    print(f"WARNING: the stand-in accountant {standin}/noiselearn.py, not noiselearn: placeholder numbers",
          file=sys.stderr)
    return module, True


def load_data():
    """(x_train, y_train, x_test, y_test) as torch tensors: digits, stratified split 1438 / 359, pixels / 16."""
    import torch
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    x = digits.data.astype(np.float32) / 16.0
    x_tr, x_te, y_tr, y_te = train_test_split(x, digits.target, test_size=TEST_SIZE, stratify=digits.target,
                                              random_state=SPLIT_SEED)
    return (torch.from_numpy(x_tr), torch.from_numpy(y_tr).long(), torch.from_numpy(x_te), torch.from_numpy(y_te).long())


def plan(n, epochs, expected_batch=EXPECTED_BATCH):
    """(q, T, the step count at the end of each epoch): q = B / N, T = round(E N / B)."""
    q = expected_batch / n
    ends = [int(round(e * n / expected_batch)) for e in range(1, epochs + 1)]
    return q, ends[-1], ends


def calibrate(nl, target, q, steps, delta=DELTA):
    """Both calibrations for one target: a dict with sigma and the certified bracket of each, and the RDP epsilons."""
    sigma_nl, (lo_nl, hi_nl) = nl.calibrate_noise_multiplier(target_epsilon=target, delta=delta, sampling_rate=q,
                                                              steps=steps)
    sigma_rdp, eps_rdp = rdp.calibrate(target, q, steps, delta)
    lo_rdp, hi_rdp = nl.dp_sgd_epsilon(noise_multiplier=sigma_rdp, sampling_rate=q, steps=steps, delta=delta)
    return {
        "noiselearn": dict(sigma=float(sigma_nl), eps_lo=float(lo_nl), eps_hi=float(hi_nl),
                           eps_rdp=rdp.epsilon(q, sigma_nl, steps, delta)),
        "rdp": dict(sigma=float(sigma_rdp), eps_lo=float(lo_rdp), eps_hi=float(hi_rdp), eps_rdp=eps_rdp),
    }


class MLP:
    """64 -> hidden (tanh) -> 10 with hand-written per-example gradients."""

    def __init__(self, hidden, generator):
        import torch

        def uniform(shape, fan_in):  # torch.nn.Linear's default initialisation
            bound = 1.0 / math.sqrt(fan_in)
            return (torch.rand(shape, generator=generator) * 2.0 - 1.0) * bound

        self.params = [uniform((hidden, 64), 64), uniform((hidden,), 64), uniform((10, hidden), hidden),
                       uniform((10,), hidden)]

    def logits(self, x):
        w1, b1, w2, b2 = self.params
        return (x @ w1.T + b1).tanh() @ w2.T + b2

    def gradient_sum(self, x, y, clip):
        """Sum over the examples of each example's cross-entropy gradient, clipped to L2 norm `clip` (None: not
        clipped). Also returns the per-example norms before clipping."""
        import torch
        w1, b1, w2, b2 = self.params
        h = (x @ w1.T + b1).tanh()
        g_out = torch.softmax(h @ w2.T + b2, dim=1)
        g_out[torch.arange(len(y)), y] -= 1.0                     # d loss_i / d logits_i
        g_hid = (g_out @ w2) * (1.0 - h * h)                      # d loss_i / d pre-activation_i
        # Example i's gradient: (g_out_i h_i^T, g_out_i, g_hid_i x_i^T, g_hid_i); |u v^T|_F = |u| |v|.
        norms = ((g_out * g_out).sum(1) * ((h * h).sum(1) + 1.0) + (g_hid * g_hid).sum(1) * ((x * x).sum(1) + 1.0)).sqrt()
        if clip is not None:
            scale = torch.clamp(clip / norms.clamp_min(1e-12), max=1.0)[:, None]
            g_out, g_hid = g_out * scale, g_hid * scale
        return [g_hid.T @ x, g_hid.sum(0), g_out.T @ h, g_out.sum(0)], norms

    def accuracy(self, x, y):
        return float((self.logits(x).argmax(1) == y).float().mean())


def train(data, sigma, q, steps, lr=LEARNING_RATE, clip=CLIP, seed=0, hidden=HIDDEN, expected_batch=EXPECTED_BATCH,
          private=True):
    """DP-SGD for `steps` steps (private=False: no clipping, no noise, the same batches). Returns a dict: accuracy,
    steps_taken, noise_std (the std given to the noise), noise_std_empirical (of every noise coordinate drawn), mean
    batch size, seconds."""
    import torch
    x_tr, y_tr, x_te, y_te = data
    n = len(y_tr)
    g_init, g_batch, g_noise = (torch.Generator().manual_seed(1000 * seed + k) for k in (1, 2, 3))
    model = MLP(hidden, g_init)
    noise_std = sigma * clip if private else 0.0
    noise_ss, noise_count, batch_total, steps_taken = 0.0, 0, 0, 0
    start = time.perf_counter()
    for _ in range(steps):
        mask = torch.rand(n, generator=g_batch) < q             # Poisson sampling: each example with probability q
        idx = mask.nonzero().squeeze(1)
        batch_total += len(idx)
        if len(idx):
            grads, _ = model.gradient_sum(x_tr[idx], y_tr[idx], clip if private else None)
        else:
            grads = [torch.zeros_like(p) for p in model.params]
        for p, g in zip(model.params, grads):
            if private:
                z = torch.randn(p.shape, generator=g_noise)
                noise_ss += float((z * z).sum()) * noise_std * noise_std
                noise_count += z.numel()
                g = g + noise_std * z
            p -= (lr / expected_batch) * g
        steps_taken += 1
    seconds = time.perf_counter() - start
    return dict(accuracy=model.accuracy(x_te, y_te), steps_taken=steps_taken, noise_std=noise_std,
                noise_std_empirical=math.sqrt(noise_ss / noise_count) if noise_count else 0.0,
                mean_batch=batch_total / steps, seconds=seconds)


def tune(args):
    """Choose the epochs and learning rate once: a validation split of the training set (stratified, 20 %, seed 1),
    epsilon 1 at the RDP-calibrated sigma (the baseline's: any bias of this choice favours the baseline), 3 seeds
    (100..102). The non-private reference gets its own learning rate the same way (unclipped gradients are larger)."""
    import torch
    from sklearn.model_selection import train_test_split
    x_tr, y_tr, _, _ = load_data()
    a, b, ya, yb = train_test_split(x_tr.numpy(), y_tr.numpy(), test_size=0.2, stratify=y_tr.numpy(), random_state=1)
    data = (torch.from_numpy(a), torch.from_numpy(ya), torch.from_numpy(b), torch.from_numpy(yb))
    rows = []
    for private in (True, False):
        for hidden in (32, 64):
            for epochs in (10, 20, 40):
                q, steps, _ = plan(len(ya), epochs)
                sigma = rdp.calibrate(1.0, q, steps, DELTA)[0] if private else 0.0
                for lr in ((0.03125, 0.0625, 0.125, 0.25, 0.5) if private else (0.125, 0.25, 0.5, 1.0)):
                    accs = [train(data, sigma, q, steps, lr=lr, seed=100 + s, hidden=hidden, private=private)["accuracy"]
                            for s in range(3)]
                    rows.append(dict(private=private, hidden=hidden, epochs=epochs, lr=lr, sigma=sigma,
                                     val_accuracy_mean=float(np.mean(accs)), val_accuracy_std=float(np.std(accs, ddof=1))))
                    print(rows[-1], flush=True)
    os.makedirs(args.out, exist_ok=True)
    write_csv(os.path.join(args.out, "lr_tuning.csv"), rows)


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.10g}" if isinstance(v, float) else v) for k, v in r.items()})


def mean_std(values):
    values = np.asarray(values, dtype=float)
    return float(values.mean()), float(values.std(ddof=1)) if len(values) > 1 else 0.0


def run(args):
    import torch
    torch.set_num_threads(args.threads)
    nl, standin = import_noiselearn()
    if hasattr(nl, "set_threads"):
        nl.set_threads(args.threads)
    accountant = "STAND-IN (placeholder)" if standin else "noiselearn"
    data = load_data()
    n = len(data[1])
    q, steps, ends = plan(n, args.epochs)
    os.makedirs(args.out, exist_ok=True)
    t0 = time.perf_counter()
    print(f"N = {n}, q = {q:.6f}, T = {steps} ({args.epochs} epochs), torch {torch.__version__}, accountant: {accountant}",
          flush=True)

    rows, curves, calibrations, calibration_seconds = [], [], {}, 0.0
    for target in args.targets:
        t = time.perf_counter()
        cal = calibrate(nl, target, q, steps)
        calibration_seconds += time.perf_counter() - t
        calibrations[target] = cal
        for name, c in cal.items():
            t = time.perf_counter()
            arr = np.asarray(nl.dp_sgd_epsilons(noise_multiplier=c["sigma"], sampling_rate=q, steps=ends, delta=DELTA))
            calibration_seconds += time.perf_counter() - t
            classic = rdp.epsilons(q, c["sigma"], ends, DELTA)
            for e, (s, (lo, hi), r) in enumerate(zip(ends, arr, classic), start=1):
                curves.append(dict(target_epsilon=target, calibration=name, sigma=c["sigma"], epoch=e, steps=s,
                                   eps_certified_lo=float(lo), eps_certified_hi=float(hi), eps_rdp=float(r)))
        print(f"target {target}: sigma noiselearn {cal['noiselearn']['sigma']:.4f} (certified "
              f"[{cal['noiselearn']['eps_lo']:.4f}, {cal['noiselearn']['eps_hi']:.4f}]), sigma RDP "
              f"{cal['rdp']['sigma']:.4f} (certified [{cal['rdp']['eps_lo']:.4f}, {cal['rdp']['eps_hi']:.4f}])", flush=True)
        for seed in args.seeds:
            for name, c in cal.items():
                r = train(data, c["sigma"], q, steps, lr=args.lr, seed=seed, hidden=args.hidden)
                rows.append(dict(target_epsilon=target, calibration=name, seed=seed, sigma=c["sigma"],
                                 eps_certified_lo=c["eps_lo"], eps_certified_hi=c["eps_hi"], eps_rdp=c["eps_rdp"],
                                 delta=DELTA, q=q, planned_steps=steps, steps_taken=r["steps_taken"],
                                 epochs=args.epochs, clip=CLIP, noise_std=r["noise_std"],
                                 noise_std_empirical=r["noise_std_empirical"], lr=args.lr, hidden=args.hidden,
                                 mean_batch=r["mean_batch"], test_accuracy=r["accuracy"], seconds=r["seconds"],
                                 accountant=accountant))
                print(f"  seed {seed} {name:10s} acc {r['accuracy']:.4f} ({r['seconds']:.1f} s)", flush=True)
    for seed in args.seeds:
        r = train(data, 0.0, q, steps, lr=args.nonprivate_lr, seed=seed, hidden=args.hidden, private=False)
        rows.append(dict(target_epsilon="inf", calibration="non-private", seed=seed, sigma=0.0, eps_certified_lo="",
                         eps_certified_hi="", eps_rdp="", delta="", q=q, planned_steps=steps,
                         steps_taken=r["steps_taken"], epochs=args.epochs, clip="", noise_std=0.0,
                         noise_std_empirical=0.0, lr=args.nonprivate_lr, hidden=args.hidden, mean_batch=r["mean_batch"],
                         test_accuracy=r["accuracy"], seconds=r["seconds"], accountant=accountant))
        print(f"  seed {seed} non-private acc {r['accuracy']:.4f}", flush=True)
    total = time.perf_counter() - t0

    write_csv(os.path.join(args.out, "results.csv"), rows)
    write_csv(os.path.join(args.out, "epsilon_per_epoch.csv"), curves)
    write_summary(args, rows, calibrations, q, steps, n, accountant, total, calibration_seconds, torch.__version__)
    plot(args, rows, curves, accountant)
    print(f"total {total:.1f} s (accounting {calibration_seconds:.1f} s)", flush=True)
    return rows, calibrations


def write_summary(args, rows, calibrations, q, steps, n, accountant, total, calibration_seconds, torch_version):
    lines = []
    if accountant != "noiselearn":
        lines += ["**PLACEHOLDER: these numbers come from a stand-in accountant, not noiselearn; rerun.**", ""]
    lines += [f"DP-SGD on digits (N = {n}, test 359), MLP 64-{args.hidden}-10 tanh, expected batch {EXPECTED_BATCH} "
              f"(q = {q:.5f}), C = {CLIP}, lr = {args.lr}, {args.epochs} epochs = T = {steps} steps, delta = {DELTA:g}, "
              f"seeds {args.seeds[0]}..{args.seeds[-1]} (paired), accountant: {accountant}, torch {torch_version}.", "",
              "| target eps | sigma noiselearn | its certified eps | sigma RDP | RDP sigma's certified eps | "
              "accuracy noiselearn | accuracy RDP | gain (paired, pp) |",
              "|---|---|---|---|---|---|---|---|"]
    for target, cal in calibrations.items():
        acc = {name: [r["test_accuracy"] for r in rows if r["target_epsilon"] == target and r["calibration"] == name]
               for name in cal}
        gains = 100.0 * (np.array(acc["noiselearn"]) - np.array(acc["rdp"]))
        m_nl, s_nl = mean_std(acc["noiselearn"])
        m_r, s_r = mean_std(acc["rdp"])
        m_g, s_g = mean_std(gains)
        c_nl, c_r = cal["noiselearn"], cal["rdp"]
        lines.append(f"| {target:g} | {c_nl['sigma']:.4f} | [{c_nl['eps_lo']:.5f}, {c_nl['eps_hi']:.5f}] | "
                     f"{c_r['sigma']:.4f} ({100 * (c_r['sigma'] / c_nl['sigma'] - 1):+.1f} %) | "
                     f"[{c_r['eps_lo']:.5f}, {c_r['eps_hi']:.5f}] | {100 * m_nl:.2f} ± {100 * s_nl:.2f} % | "
                     f"{100 * m_r:.2f} ± {100 * s_r:.2f} % | {m_g:+.2f} ± {s_g:.2f} (SE {s_g / math.sqrt(len(gains)):.2f}) |")
    base = [r["test_accuracy"] for r in rows if r["calibration"] == "non-private"]
    m_b, s_b = mean_std(base)
    lines += ["", f"Non-private (no clipping, no noise, the same batches; lr {args.nonprivate_lr}): {100 * m_b:.2f} ± {100 * s_b:.2f} %.",
              "", "Accuracy: mean ± sample std over the seeds; gain: noiselearn minus RDP per seed (same weights, "
              "batches and noise draws), mean ± std (SE: std / sqrt(seeds)). The certified epsilon of each sigma is noiselearn's bracket "
              "[lower, upper] after T steps at delta; the RDP sigma's classic RDP epsilon is the target (bisection to 1e-4 in sigma).", "",
              f"Runtime: {total:.0f} s on {args.threads} thread(s) (accounting {calibration_seconds:.0f} s).", ""]
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


def plot(args, rows, curves, accountant):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    colours = {"noiselearn": "C0", "rdp": "C3"}
    labels = {"noiselearn": "sigma from noiselearn (certified)", "rdp": "sigma from RDP (classic)"}
    for name in ("noiselearn", "rdp"):
        ms, ss = [], []
        for t in args.targets:
            m, s = mean_std([r["test_accuracy"] for r in rows if r["target_epsilon"] == t and r["calibration"] == name])
            ms.append(100 * m)
            ss.append(100 * s)
        ax1.errorbar(args.targets, ms, yerr=ss, marker="o", capsize=3, color=colours[name], label=labels[name])
    base, _ = mean_std([r["test_accuracy"] for r in rows if r["calibration"] == "non-private"])
    ax1.axhline(100 * base, color="grey", ls=":", label="non-private")
    ax1.set_xscale("log")
    ax1.minorticks_off()
    ax1.set_xticks(args.targets)
    ax1.set_xticklabels([f"{t:g}" for t in args.targets])
    ax1.set_xlabel(f"target epsilon (delta = {DELTA:g})")
    ax1.set_ylabel("test accuracy (%)")
    ax1.set_title("DP-SGD on digits: accuracy at equal epsilon")
    ax1.legend(fontsize=8)
    for i, t in enumerate(args.targets):
        for name, ls in (("noiselearn", "-"), ("rdp", "--")):
            c = [r for r in curves if r["target_epsilon"] == t and r["calibration"] == name]
            ax2.plot([r["epoch"] for r in c], [r["eps_certified_hi"] for r in c], ls=ls, color=f"C{i}",
                     label=f"eps {t:g}, {name} sigma")
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("certified epsilon (noiselearn, upper)")
    ax2.set_title("certified epsilon per epoch (solid: noiselearn sigma, dashed: RDP sigma)", fontsize=9)
    ax2.legend(fontsize=7, ncol=2)
    if accountant != "noiselearn":
        fig.suptitle("PLACEHOLDER: stand-in accountant", color="red")
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "dp-sgd-digits.png"), dpi=120)
    plt.close(fig)


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="one epoch, one seed, one target (2.0)")
    p.add_argument("--tune", action="store_true", help="choose the learning rate (validation split), then stop")
    p.add_argument("--out", default=os.path.join(HERE, "results"))
    p.add_argument("--epochs", type=int, default=EPOCHS)
    p.add_argument("--seeds", type=int, nargs="+", default=SEEDS)
    p.add_argument("--targets", type=float, nargs="+", default=TARGETS)
    p.add_argument("--lr", type=float, default=LEARNING_RATE)
    p.add_argument("--nonprivate-lr", type=float, default=NONPRIVATE_LEARNING_RATE)
    p.add_argument("--hidden", type=int, default=HIDDEN)
    p.add_argument("--threads", type=int, default=int(os.environ.get("THREADS", "1")))
    args = p.parse_args(argv)
    if args.quick:
        args.epochs, args.seeds, args.targets = 1, [0], [2.0]
    return args


def main(argv=None):
    args = parse(argv)
    if args.tune:
        import torch
        torch.set_num_threads(args.threads)
        return tune(args)
    return run(args)


if __name__ == "__main__":
    main()

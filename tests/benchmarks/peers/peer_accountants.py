#!/usr/bin/env python3
"""Side-by-side DP-SGD epsilon: Microsoft's prv_accountant, Google's dp_accounting, noiselearn.

The peers are read from their public sources (see README.md beside this file); nothing of theirs is
vendored here. A peer whose path is not given is skipped.

    peer_accountants.py [--prv-accountant PATH] [--dp-accounting PATH] [--noiselearn] [--json OUT]
                        [--threads 1,2] [--settings a,b,c] [--tight] [--repeats 3]

Every setting: add-or-remove-one neighbours, Poisson sampling with rate q, Gaussian noise of standard
deviation sigma times the clipping norm (sensitivity 1), epsilon at delta.

  a  Abadi et al. MNIST: sigma 1.1, q = 256/60000, 14063 steps, delta 1e-5.
  b  the per-epoch curve of a: epochs 1..60, steps = floor(epochs * 60000/256 + 0.5) (half up, so
     epoch 60 is the 14063 steps of a), delta 1e-5; the time is for the whole curve.
  c  10^6 steps at q = 1e-3, sigma 1.0 (epsilon about 6), delta 1e-5.

Timings: wall clock, best of --repeats runs in this one process (a configuration whose first run takes
longer than --max-repeat-seconds is not repeated; the run count is printed). The thread count is the
environment's OMP_NUM_THREADS / OPENBLAS_NUM_THREADS, read at start (they must be set before numpy is
imported); --threads 1,2 re-runs this script in one child process per count with those set.
"""

import argparse
import glob
import json
import math
import os
import subprocess
import sys
import tempfile
import time

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

SETTINGS = {
    "a": dict(title="a: MNIST (Abadi et al.) sigma 1.1, q 256/60000, 14063 steps, delta 1e-5",
              sigma=1.1, q=256 / 60000, steps=[14063], delta=1e-5, curve=False),
    "b": dict(title="b: per-epoch curve, epochs 1..60 (60 points), sigma 1.1, q 256/60000, delta 1e-5",
              sigma=1.1, q=256 / 60000,
              steps=[int(math.floor(e * 60000 / 256 + 0.5)) for e in range(1, 61)],
              delta=1e-5, curve=True),
    "c": dict(title="c: sigma 1.0, q 1e-3, 10^6 steps, delta 1e-5",
              sigma=1.0, q=1e-3, steps=[10 ** 6], delta=1e-5, curve=False),
}

# Accuracy settings per setting. prv_accountant: eps_error (its README and its compute-dp-epsilon CLI use
# 0.1, with delta_error = delta/1000, which is used throughout). dp_accounting PLDAccountant:
# value_discretization_interval (default 1e-4) with its default pessimistic_estimate.
# The "tight" ones run only with --tight (minutes each on a 2-core machine).
PRV_EPS_ERRORS = {"a": [0.1, 0.01, 1e-3], "b": [0.1, 0.01], "c": [0.1, 0.01]}
PRV_EPS_ERRORS_TIGHT = {"a": [1e-4], "b": [1e-3], "c": [1e-3]}
PLD_INTERVALS = {"a": [1e-4, 1e-5], "b": [1e-4], "c": [1e-4, 1e-5]}
PLD_INTERVALS_TIGHT = {"a": [], "b": [1e-5], "c": []}


def thread_env():
    return {v: os.environ.get(v, "unset") for v in THREAD_VARS}


def best_of(fn, repeats, max_repeat_seconds):
    """Runs fn up to `repeats` times; returns (last result, best seconds, runs done)."""
    best = math.inf
    result = None
    runs = 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        dt = time.perf_counter() - t0
        runs += 1
        best = min(best, dt)
        if dt > max_repeat_seconds:
            break
    return result, best, runs


def dp_accounting_root(path):
    """Accepts the repository root, its python/ folder or python/dp_accounting itself."""
    for cand in (path, os.path.join(path, "dp_accounting"), os.path.join(path, "python", "dp_accounting")):
        if os.path.isfile(os.path.join(cand, "dp_accounting", "__init__.py")):
            return cand
    raise SystemExit(f"--dp-accounting {path}: no dp_accounting/__init__.py found below it")


def prv_root(path):
    if os.path.isfile(os.path.join(path, "prv_accountant", "__init__.py")):
        return path
    raise SystemExit(f"--prv-accountant {path}: no prv_accountant/__init__.py found below it")


def git_commit(path):
    try:
        out = subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10)
        return out.stdout.strip() or None
    except Exception:
        return None


def run_prv(setting, eps_errors, repeats, max_rep):
    from prv_accountant import PRVAccountant, PoissonSubsampledGaussianMechanism
    rows = []
    for ee in eps_errors:
        steps, delta = setting["steps"], setting["delta"]

        def once():
            acc = PRVAccountant(
                prvs=[PoissonSubsampledGaussianMechanism(noise_multiplier=setting["sigma"],
                                                         sampling_probability=setting["q"])],
                max_self_compositions=[max(steps)], eps_error=ee, delta_error=delta / 1000)
            return [tuple(acc.compute_epsilon(delta=delta, num_self_compositions=[n])) for n in steps]

        vals, sec, runs = best_of(once, repeats, max_rep)
        rows.append(dict(accountant="prv_accountant", config=f"eps_error={ee:g}, delta_error=delta/1000",
                         lower=[v[0] for v in vals], estimate=[v[1] for v in vals],
                         upper=[v[2] for v in vals], seconds=sec, runs=runs))
    return rows


def run_dp_accounting(setting, intervals, repeats, max_rep):
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant
    event = dp_accounting.PoissonSampledDpEvent(setting["q"], dp_accounting.GaussianDpEvent(setting["sigma"]))
    steps, delta = setting["steps"], setting["delta"]
    rows = []

    def curve(make):
        # Incremental composition, as during training: compose the new steps, read epsilon.
        acc = make()
        done = 0
        out = []
        for n in steps:
            acc.compose(event, n - done)
            done = n
            out.append(float(acc.get_epsilon(delta)))
        return out

    for vdi in intervals:
        def make(vdi=vdi):
            return pld_privacy_accountant.PLDAccountant(
                neighboring_relation=dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
                value_discretization_interval=vdi)
        vals, sec, runs = best_of(lambda: curve(make), repeats, max_rep)
        rows.append(dict(accountant="dp_accounting PLD",
                         config=f"value_discretization_interval={vdi:g}, pessimistic",
                         lower=None, estimate=None, upper=vals, seconds=sec, runs=runs))

    vals, sec, runs = best_of(lambda: curve(rdp_privacy_accountant.RdpAccountant), repeats, max_rep)
    rows.append(dict(accountant="dp_accounting RDP", config="default orders (reference only)",
                     lower=None, estimate=None, upper=vals, seconds=sec, runs=runs))
    return rows


def find_noiselearn():
    try:
        import noiselearn  # noqa: F401  (PYTHONPATH given by the caller)
        return noiselearn
    except ImportError:
        pass
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    # The package folder noiselearn/ (its core noiselearn/_noiselearn*.so) under build/.
    cands = sorted(glob.glob(os.path.join(repo, "build", "python", "noiselearn", "_noiselearn*.so")))
    cands += sorted(glob.glob(os.path.join(repo, "build", "**", "noiselearn", "_noiselearn*.so"), recursive=True))
    for so in cands:
        sys.path.insert(0, os.path.dirname(os.path.dirname(so)))
        try:
            import noiselearn  # noqa: F401
            return noiselearn
        except ImportError:
            sys.path.pop(0)
    raise ImportError("noiselearn not found on PYTHONPATH nor under build/")


def run_noiselearn(setting, repeats, max_rep):
    nl = find_noiselearn()
    kw = dict(noise_multiplier=setting["sigma"], sampling_rate=setting["q"], delta=setting["delta"])
    if setting["curve"]:
        def once():
            arr = nl.dp_sgd_epsilons(steps=list(setting["steps"]), **kw)
            return [(float(r[0]), float(r[1])) for r in arr]
    else:
        def once():
            lo, hi = nl.dp_sgd_epsilon(steps=setting["steps"][0], **kw)
            return [(float(lo), float(hi))]
    vals, sec, runs = best_of(once, repeats, max_rep)
    mod = getattr(nl, "__file__", None)
    mtime = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.path.getmtime(mod))) if mod else None
    return [dict(accountant="noiselearn", config="defaults", module=mod, module_mtime=mtime,
                 lower=[v[0] for v in vals], estimate=None, upper=[v[1] for v in vals],
                 seconds=sec, runs=runs)]


def dp_events_side_by_side(nl, repeats, max_rep):
    """dp_accounting's own DpEvent objects composed by its PLDAccountant and by noiselearn.PrivacyAccountant (which
    reads them by their public fields): Abadi et al.'s setting, and a two-phase schedule (sigma 1.0 for 1,000 steps at
    q 0.01, then sigma 1.5 for 2,000 steps at q 0.02), epsilon at delta 1e-5. Returns (lines, violations): a violation
    is a peer value outside our certified bracket by more than the peer's own precision (value_discretization_interval
    1e-4 of the default, relative)."""
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant
    cases = [
        ("Abadi et al. MNIST", dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(256 / 60000, dp_accounting.GaussianDpEvent(1.1)), 14063)),
        ("two phases", dp_accounting.ComposedDpEvent([
            dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.0)), 1000),
            dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(0.02, dp_accounting.GaussianDpEvent(1.5)), 2000)])),
    ]
    lines, violations = [], 0
    for name, event in cases:
        def theirs():
            acc = pld_privacy_accountant.PLDAccountant()
            acc.compose(event)
            return float(acc.get_epsilon(1e-5))

        def ours():
            return nl.PrivacyAccountant().compose(event).get_epsilon_bracket(1e-5)

        value, t_theirs, _ = best_of(theirs, repeats, max_rep)
        (lo, hi), t_ours, _ = best_of(ours, repeats, max_rep)
        inside = lo <= value * (1 + 1e-4) and value <= hi * (1 + 1e-4)
        violations += not inside
        lines.append(f"  {name}: dp_accounting PLDAccountant {value:.9f} in {t_theirs:.3f} s; "
                     f"noiselearn.PrivacyAccountant [{lo:.9f}, {hi:.9f}] in {t_ours:.3f} s; upper "
                     f"{'at or below' if hi <= value else 'above'} theirs by {abs(hi - value) / value:.1e} relative; "
                     f"{'theirs inside our bracket' if inside else 'VIOLATION: theirs outside our bracket'}")
    return lines, violations


def fmt(x):
    return "-" if x is None else f"{x:.6f}"


def agreement(ours, rows, steps):
    """Our upper inside prv's [lower, upper] or our bracket overlapping it; our upper <= PLD pessimistic."""
    lines = []
    for r in rows:
        if r["accountant"] == "prv_accountant":
            bad = [i for i in range(len(steps))
                   if not (r["lower"][i] <= ours["upper"][i] <= r["upper"][i]
                           or (ours["lower"][i] <= r["upper"][i] and r["lower"][i] <= ours["upper"][i]))]
            rule = "noiselearn upper in prv [lower, upper] or brackets overlap"
        elif r["accountant"] == "dp_accounting PLD":
            bad = [i for i in range(len(steps)) if not ours["upper"][i] <= r["upper"][i]]
            rule = "noiselearn upper <= PLD pessimistic"
        else:
            continue
        status = "OK" if not bad else "VIOLATED"
        detail = ""
        if bad:
            i = bad[0]
            detail = (f" ({len(bad)}/{len(steps)} points; first at steps={steps[i]}: ours "
                      f"[{ours['lower'][i]:.9f}, {ours['upper'][i]:.9f}] vs "
                      f"{'%.9f .. ' % r['lower'][i] if r['lower'] else ''}{r['upper'][i]:.9f})")
        lines.append(dict(rule=rule, against=f"{r['accountant']} {r['config']}", status=status,
                          violations=len(bad), text=f"  {status:8s} {rule} [{r['config']}]{detail}"))
    return lines


def print_table(name, setting, rows):
    print(f"\n== {setting['title']}")
    head = f"  {'accountant':<20s} {'config':<48s} {'lower':>10s} {'estimate':>10s} {'upper':>10s} {'seconds':>9s} runs"
    print(head)
    last = len(setting["steps"]) - 1
    for r in rows:
        pick = (lambda k: None if r.get(k) is None else r[k][last])
        print(f"  {r['accountant']:<20s} {r['config']:<48s} {fmt(pick('lower')):>10s} "
              f"{fmt(pick('estimate')):>10s} {fmt(pick('upper')):>10s} {r['seconds']:9.3f} {r['runs']}")
    if setting["curve"]:
        idx = [i for i in (0, 9, 29, 59) if i <= last]
        print("  curve points (epoch: upper, or estimate where the accountant gives one):")
        for r in rows:
            col = r["estimate"] if r.get("estimate") is not None else r["upper"]
            kind = "estimate" if r.get("estimate") is not None else "upper"
            pts = "  ".join(f"{i + 1}: {col[i]:.6f}" for i in idx)
            print(f"    {r['accountant']:<20s} {r['config'].split(',')[0]:<36s} {kind:<8s} {pts}")
        print(f"  (curve: epsilon shown at the last point, steps={setting['steps'][-1]}; "
              f"first point steps={setting['steps'][0]}; seconds for all {len(setting['steps'])} points)")


def run_children(args):
    counts = [c.strip() for c in args.threads.split(",") if c.strip()]
    results = []
    for c in counts:
        env = dict(os.environ)
        for v in THREAD_VARS:
            env[v] = c
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tf:
            out = tf.name
        cmd = [sys.executable, os.path.abspath(__file__)] + [a for a in child_argv(args)] + ["--json", out]
        print(f"\n######## {', '.join(f'{v}={c}' for v in THREAD_VARS)}: {' '.join(cmd)}", flush=True)
        rc = subprocess.run(cmd, env=env).returncode
        with open(out) as f:
            results.append(json.load(f))
        os.unlink(out)
        if rc != 0:
            print(f"child for {c} thread(s) exited {rc}")
    print("\n######## summary (seconds by thread count)")
    print(f"  {'setting':<7s} {'accountant':<20s} {'config':<48s} " + " ".join(f"{c + ' thr':>9s}" for c in counts))
    keys = []
    for res in results:
        for s in res["settings"]:
            for r in s["rows"]:
                k = (s["name"], r["accountant"], r["config"])
                if k not in keys:
                    keys.append(k)
    for k in keys:
        secs = []
        for res in results:
            v = [r["seconds"] for s in res["settings"] if s["name"] == k[0]
                 for r in s["rows"] if (r["accountant"], r["config"]) == k[1:]]
            secs.append(f"{v[0]:9.3f}" if v else f"{'-':>9s}")
        print(f"  {k[0]:<7s} {k[1]:<20s} {k[2]:<48s} " + " ".join(secs))
    bad = sum(a["violations"] > 0 for res in results for s in res["settings"] for a in s.get("agreement", []))
    if bad:
        print(f"  agreement: {bad} VIOLATED check(s) (see above)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(by_threads=dict(zip(counts, results))), f, indent=1)


def child_argv(args):
    a = []
    if args.prv_accountant:
        a += ["--prv-accountant", args.prv_accountant]
    if args.dp_accounting:
        a += ["--dp-accounting", args.dp_accounting]
    if args.noiselearn:
        a += ["--noiselearn"]
    if args.tight:
        a += ["--tight"]
    a += ["--settings", args.settings, "--repeats", str(args.repeats),
          "--max-repeat-seconds", str(args.max_repeat_seconds)]
    return a


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--prv-accountant", metavar="PATH", help="checkout of microsoft/prv_accountant")
    p.add_argument("--dp-accounting", metavar="PATH",
                   help="checkout of google/differential-privacy (or its python/dp_accounting)")
    p.add_argument("--noiselearn", action="store_true", help="also run noiselearn.dp_sgd_epsilon(s)")
    p.add_argument("--json", metavar="OUT", help="write all figures as JSON")
    p.add_argument("--threads", metavar="N[,M]",
                   help="re-run in one child process per count with OMP/OPENBLAS/MKL_NUM_THREADS set")
    p.add_argument("--settings", default="a,b,c", help="comma-separated among " + ", ".join(SETTINGS))
    p.add_argument("--tight", action="store_true",
                   help="add the expensive accuracies (prv eps_error 1e-4 on a, 1e-3 on b, c; PLD 1e-5 on b)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--max-repeat-seconds", type=float, default=30.0,
                   help="a configuration whose run takes longer is not repeated")
    args = p.parse_args()
    unknown = [s.strip() for s in args.settings.split(",") if s.strip() and s.strip() not in SETTINGS]
    if unknown:
        p.exit(2, f"{p.prog}: error: unknown setting {unknown[0]!r} in --settings: use some of "
                  f"{', '.join(SETTINGS)}\n")

    if args.threads:
        run_children(args)
        return 0

    print("threads:", ", ".join(f"{k}={v}" for k, v in thread_env().items()))
    print(f"python: {sys.executable} {sys.version.split()[0]}")
    info = dict(threads=thread_env(), python=sys.version, peers={}, settings=[])
    if args.prv_accountant:
        root = prv_root(args.prv_accountant)
        sys.path.insert(0, root)
        import prv_accountant
        info["peers"]["prv_accountant"] = dict(path=root, commit=git_commit(root),
                                               file=prv_accountant.__file__)
        print(f"prv_accountant: {prv_accountant.__file__} (commit {git_commit(root) or 'unknown'})")
    else:
        print("prv_accountant: skipped (no --prv-accountant PATH)")
    if args.dp_accounting:
        root = dp_accounting_root(args.dp_accounting)
        sys.path.insert(0, root)
        import dp_accounting
        ver = "?"
        if os.path.exists(os.path.join(root, "VERSION")):
            ver = [ln.strip() for ln in open(os.path.join(root, "VERSION")) if ln.strip()][-1]
        info["peers"]["dp_accounting"] = dict(path=root, commit=git_commit(root), version=ver,
                                              file=dp_accounting.__file__)
        print(f"dp_accounting: {dp_accounting.__file__} (version {ver}, commit {git_commit(root) or 'unknown'})")
    else:
        print("dp_accounting: skipped (no --dp-accounting PATH)")
    import numpy
    import scipy
    print(f"numpy {numpy.__version__}, scipy {scipy.__version__}")

    violations = 0
    checked = 0
    for name in [s.strip() for s in args.settings.split(",") if s.strip()]:
        setting = SETTINGS[name]
        rows = []
        if args.prv_accountant:
            ee = PRV_EPS_ERRORS[name] + (PRV_EPS_ERRORS_TIGHT[name] if args.tight else [])
            rows += run_prv(setting, ee, args.repeats, args.max_repeat_seconds)
        if args.dp_accounting:
            iv = PLD_INTERVALS[name] + (PLD_INTERVALS_TIGHT[name] if args.tight else [])
            rows += run_dp_accounting(setting, iv, args.repeats, args.max_repeat_seconds)
        ours = None
        if args.noiselearn:
            try:
                ours = run_noiselearn(setting, args.repeats, args.max_repeat_seconds)[0]
                rows.append(ours)
                print(f"noiselearn: {ours['module']} (modified {ours['module_mtime']})")
            except (ImportError, AttributeError) as e:
                print(f"noiselearn: API not available ({type(e).__name__}: {e})")
        print_table(name, setting, rows)
        agree = []
        if ours is not None:
            agree = agreement(ours, rows, setting["steps"])
            if not agree:
                print("  agreement: no peer run to compare with")
            checked += len(agree)
            for a in agree:
                print(a["text"])
                violations += a["violations"] > 0
        info["settings"].append(dict(name=name, title=setting["title"], sigma=setting["sigma"],
                                     q=setting["q"], delta=setting["delta"], steps=setting["steps"],
                                     rows=rows, agreement=agree))
        sys.stdout.flush()
    if args.noiselearn and args.dp_accounting:
        try:
            nl = find_noiselearn()
            lines, bad = dp_events_side_by_side(nl, args.repeats, args.max_repeat_seconds)
            print("\ndp_accounting's DpEvent objects in noiselearn.PrivacyAccountant (epsilon at delta 1e-5):")
            print("\n".join(lines))
            violations += bad
            checked += len(lines)
            info["dp_events"] = lines
        except (ImportError, AttributeError) as e:
            print(f"noiselearn.PrivacyAccountant: not available ({type(e).__name__}: {e})")
    if args.noiselearn:
        if checked == 0:
            print("\nagreement: not checked (no noiselearn figures, or no peer run)")
        else:
            print(f"\nagreement: {'OK' if violations == 0 else f'{violations} VIOLATED'} ({checked} checks)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(info, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

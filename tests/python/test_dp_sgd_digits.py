"""experiments/dp-sgd-digits: its privacy accounting, not its accuracy. The classic RDP accountant written there
(rdp.py) against the definition of A_alpha integrated numerically, and the quick (one-epoch) DP-SGD run: the steps
it takes, the noise it draws, and noiselearn's certified calibration against the RDP one."""
import csv
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import noiselearn  # noqa: F401  (the module under test: CTest's PYTHONPATH)

EXPERIMENT = Path(__file__).resolve().parents[2] / "experiments" / "dp-sgd-digits"
sys.path.insert(0, str(EXPERIMENT))
import rdp  # noqa: E402


@pytest.mark.parametrize("alpha", [2, 3])
@pytest.mark.parametrize("sigma, q", [(1.1, 256 / 60000), (0.8, 0.05), (2.0, 0.3)])
def test_rdp_matches_numerical_integration_of_its_definition(alpha, sigma, q):
    exact = rdp.a_by_integration(alpha, q, sigma)
    assert math.exp(rdp.log_a(alpha, q, sigma)) == pytest.approx(exact, rel=1e-9)
    if alpha == 2:  # closed form: E[(1 - q + q L)^2] = 1 + q^2 (e^(1/sigma^2) - 1)
        assert math.exp(rdp.log_a(2, q, sigma)) == pytest.approx(1 + q * q * math.expm1(1 / sigma**2), rel=1e-12)


def test_rdp_reproduces_the_classic_mnist_setting():
    # Abadi et al.'s MNIST setting as in TF-Privacy's tutorial: sigma 1.1, q = 256/60000, 60 epochs (14063 steps),
    # delta 1e-5: eps 3.01 with the classic conversion (here the optimum is at the integer order 9).
    eps, order = rdp.epsilon(256 / 60000, 1.1, 14063, 1e-5, return_order=True)
    assert eps == pytest.approx(3.01, abs=0.01)
    assert order == 9


def test_rdp_calibration_is_the_least_sigma_meeting_the_target():
    q, steps = 64 / 1438, 899
    sigma, eps = rdp.calibrate(1.0, q, steps, 1e-5)
    assert eps <= 1.0
    assert rdp.epsilon(q, sigma * (1 - 1e-3), steps, 1e-5) > 1.0
    curve = rdp.epsilons(q, sigma, [100, 450, 899], 1e-5)
    assert np.all(np.diff(curve) > 0) and curve[-1] == pytest.approx(eps)


@pytest.fixture(scope="module")
def experiment():
    pytest.importorskip("torch")
    pytest.importorskip("sklearn")
    import torch
    torch.set_num_threads(1)
    import dp_sgd_digits
    return dp_sgd_digits


def test_per_example_clipping_matches_autograd(experiment):
    import torch
    x, y, _, _ = experiment.load_data()
    x, y = x[:16], y[:16]
    model = experiment.MLP(32, torch.Generator().manual_seed(0))
    clip = 0.5
    total = [torch.zeros_like(p) for p in model.params]
    norms = []
    for i in range(len(y)):
        params = [p.clone().requires_grad_() for p in model.params]
        w1, b1, w2, b2 = params
        loss = torch.nn.functional.cross_entropy((x[i:i + 1] @ w1.T + b1).tanh() @ w2.T + b2, y[i:i + 1])
        grads = torch.autograd.grad(loss, params)
        norms.append(math.sqrt(sum(float((g * g).sum()) for g in grads)))
        for t, g in zip(total, grads):
            t += min(1.0, clip / norms[-1]) * g
    sums, got_norms = model.gradient_sum(x, y, clip)
    assert got_norms.tolist() == pytest.approx(norms, rel=1e-5)
    for a, b in zip(sums, total):
        assert torch.allclose(a, b, atol=1e-6)


def test_one_epoch_takes_the_planned_steps_with_the_calibrated_noise(experiment):
    nl_module, _ = experiment.import_noiselearn()  # noiselearn (a stand-in only where NOISELEARN_STANDIN says)
    data = experiment.load_data()
    q, steps, ends = experiment.plan(len(data[1]), 1)
    assert steps == ends[-1] == round(len(data[1]) / experiment.EXPECTED_BATCH)
    target = 2.0
    cal = experiment.calibrate(nl_module, target, q, steps)
    sigma = cal["noiselearn"]["sigma"]
    result = experiment.train(data, sigma, q, steps, seed=0, hidden=32)
    assert result["steps_taken"] == steps
    assert result["noise_std"] == sigma * experiment.CLIP
    assert result["noise_std_empirical"] == pytest.approx(sigma * experiment.CLIP, rel=0.02)


def test_quick_run_accounting(experiment, tmp_path):
    pytest.importorskip("matplotlib")
    nl_module, _ = experiment.import_noiselearn()
    experiment.main(["--quick", "--out", str(tmp_path), "--threads", "1"])
    with open(tmp_path / "results.csv") as f:
        rows = list(csv.DictReader(f))
    private = {r["calibration"]: r for r in rows if r["calibration"] != "non-private"}
    assert set(private) == {"noiselearn", "rdp"}
    q = 64 / 1438
    for r in rows:
        assert int(r["steps_taken"]) == int(r["planned_steps"]) == round(1438 / 64)
        assert float(r["q"]) == pytest.approx(q)
    target = 2.0
    steps = int(private["noiselearn"]["planned_steps"])
    for r in private.values():
        assert float(r["target_epsilon"]) == target
        assert float(r["noise_std"]) == pytest.approx(float(r["sigma"]) * float(r["clip"]))
        assert float(r["noise_std_empirical"]) == pytest.approx(float(r["noise_std"]), rel=0.02)
    sigma_nl, sigma_rdp = float(private["noiselearn"]["sigma"]), float(private["rdp"]["sigma"])
    # The certified calibration meets the target and is never noisier than RDP's.
    lo, hi = nl_module.dp_sgd_epsilon(noise_multiplier=sigma_nl, sampling_rate=q, steps=steps, delta=1e-5)
    assert lo <= hi <= target
    assert sigma_rdp >= sigma_nl
    # RDP bounds the true epsilon from above, so noiselearn's certified lower bound cannot exceed it.
    assert lo <= rdp.epsilon(q, sigma_nl, steps, 1e-5) + 1e-9
    lo_r, hi_r = nl_module.dp_sgd_epsilon(noise_multiplier=sigma_rdp, sampling_rate=q, steps=steps, delta=1e-5)
    assert lo_r <= target and lo_r <= hi_r <= hi + 1e-9
    with open(tmp_path / "epsilon_per_epoch.csv") as f:
        curve = [r for r in csv.DictReader(f) if r["calibration"] == "noiselearn"]
    assert len(curve) == 1 and int(curve[0]["steps"]) == steps
    assert float(curve[0]["eps_certified_hi"]) == pytest.approx(hi, rel=1e-3)  # the curve is untilted: a little wider
    for name in ("summary.md", "dp-sgd-digits.png"):
        assert (tmp_path / name).stat().st_size > 0


@pytest.fixture(scope="module")
def per_coordinate(experiment):
    import per_coordinate
    return per_coordinate


def test_per_example_gradients_sum_to_the_unclipped_gradient_sum(experiment, per_coordinate):
    import torch
    x, y, _, _ = experiment.load_data()
    x, y = x[:16], y[:16]
    model = experiment.MLP(8, torch.Generator().manual_seed(0))
    per_example = per_coordinate.per_example_gradients(model, x, y)
    sums, _ = model.gradient_sum(x, y, None)
    assert sum(g[0].numel() for g in per_example) == per_coordinate.parameter_count(8)
    for g, s in zip(per_example, sums):
        assert torch.allclose(g.sum(0), s, atol=1e-6)


def test_per_coordinate_quick_run_accounting(per_coordinate, tmp_path):
    """The per-coordinate comparison, one epoch, hidden width 8 (d = 610), a discrete Gaussian standing in for the
    learned table: every method is certified at the table's epsilon, and the calibrations agree with what the
    mathematics says of them."""
    pytest.importorskip("matplotlib")
    import noiselearn as nl
    hidden = 8
    d = per_coordinate.parameter_count(hidden)
    per_coordinate.run(per_coordinate.parse(["--quick", "--hidden", str(hidden), "--out", str(tmp_path)]))
    with open(tmp_path / "results.csv") as f:
        rows = {r["method"]: r for r in csv.DictReader(f)}
    assert set(rows) == set(per_coordinate.METHODS)
    q, steps = 64 / 1438, round(1438 / 64)
    table = str(tmp_path / "stand-in" / "noise.csv")
    lo, hi = nl.account_events([dict(mechanism="table", table=table, sensitivity=1, coordinates=d, sampling_rate=q,
                                     count=steps)]).epsilon(1e-5)
    assert float(rows["learned-coordinate"]["eps_certified_hi"]) == pytest.approx(hi, rel=1e-9)  # 10 digits in the CSV
    for r in rows.values():
        assert int(r["steps"]) == steps
        assert float(r["eps_certified_lo"]) <= float(r["eps_certified_hi"]) <= hi * (1 + 1e-9)  # at the table's epsilon
    noise = {m: float(r["noise"]) for m, r in rows.items()}
    # The Gaussian on d coordinates is the L2 Gaussian at multiplier m sqrt(d) (both calibrated to 1e-3).
    assert noise["gaussian-coordinate"] == pytest.approx(noise["gaussian-l2"] * math.sqrt(d), rel=3e-3)
    # The stand-in is a discrete Gaussian of the per-coordinate Gaussian's std at epsilon 2: the same noise.
    assert float(rows["learned-coordinate"]["std_per_coordinate"]) == pytest.approx(
        float(rows["gaussian-coordinate"]["std_per_coordinate"]), rel=1e-2)
    # Many small privacy losses: the Laplace needs the Gaussian's Fisher information (scale b = std), so its std is
    # about sqrt(2) times the Gaussian's (a little less: the composition is not yet quite Gaussian).
    ratio = float(rows["laplace-coordinate"]["std_per_coordinate"]) / float(rows["gaussian-coordinate"]["std_per_coordinate"])
    assert 1.3 < ratio < math.sqrt(2.0) * 1.01
    for r in rows.values():  # the noise drawn has the std calibrated
        assert float(r["noise_std_empirical"]) == pytest.approx(float(r["std_per_coordinate"]), rel=0.02)
    for name in ("summary.md", "per-coordinate.png"):
        assert (tmp_path / name).stat().st_size > 0


def test_balls_in_bins_uses_every_example_once_per_epoch_and_is_calibrated_as_such():
    # balls_in_bins.py: each epoch every example is in exactly one of the k steps, so the batch sizes of an epoch sum
    # to N (mean N / k exactly), which Poisson batches do not; the sigma calibrated for random allocation certifies the
    # target under it, and the Poisson sigma certifies a smaller epsilon there (balls in bins is the more private).
    pytest.importorskip("torch")
    pytest.importorskip("sklearn")
    import balls_in_bins as bib
    data = bib.base.load_data()
    n, k = len(data[1]), bib.STEPS_PER_EPOCH
    bins = bib.train(data, 1.0, k, 2, True, seed=3)
    assert bins["steps_taken"] == 2 * k and bins["mean_batch"] == pytest.approx(n / k, rel=1e-12)
    poisson = bib.train(data, 1.0, k, 2, False, seed=3)
    assert poisson["mean_batch"] != pytest.approx(n / k, rel=1e-12)
    cal = bib.calibrate(noiselearn, 2.0, k, k)
    assert cal["balls_in_bins"]["eps_hi"] <= 2.0 and cal["poisson"]["eps_hi"] <= 2.0
    assert cal["bins_poisson_sigma"]["eps_hi"] < 2.0 and cal["balls_in_bins"]["sigma"] < cal["poisson"]["sigma"]

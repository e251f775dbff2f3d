"""Mechanisms without a grid and DP-SGD's questions from Python (noiselearn.account_events, dp_sgd_epsilon,
dp_sgd_epsilons, calibrate_noise_multiplier, max_steps), checked against what they mean: the Gaussian's closed form,
enumeration of a sampled discrete mechanism, calibration against a scan, and one ValueError per bad input."""
import math

import numpy as np
import pytest

import noiselearn as nl


def gaussian_delta(mu, eps):
    """Balle and Wang's delta(eps) of a Gaussian mechanism with mu = sensitivity / sigma (n releases: sqrt(n) / m)."""
    phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2.0))
    return phi(-eps / mu + mu / 2.0) - math.exp(eps) * phi(-eps / mu - mu / 2.0)


def test_events_bracket_the_gaussian_closed_form_in_phases():
    # 3 releases at m = 1 and 8 at m = 2: one Gaussian with 1/m^2 = 3 + 8/4.
    bounds = nl.account_events([{"mechanism": "gaussian", "noise_multiplier": 1.0, "count": 3},
                                {"mechanism": "gaussian", "noise_multiplier": 2, "count": "8"}])
    for eps in (0.5, 1.0, 2.0):
        lower, upper = bounds.delta(eps)
        exact = gaussian_delta(math.sqrt(5.0), eps)
        assert lower <= exact * (1 + 1e-12) and exact <= upper * (1 + 1e-12)
        assert upper - lower <= 1e-5 * exact


def test_events_are_composed_for_each_query_as_the_cli_composes_them():
    # A query of account_events' bounds gets the certificate `noiselearn account` makes for it (the loss step chosen
    # for that query, the bucketed lower bound where the bracket stays wide): for DP-SGD, dp_sgd_epsilon's bracket.
    event = {"mechanism": "gaussian", "noise_multiplier": 1.0, "sampling_rate": 0.01, "count": 500}
    bounds = nl.account_events([event])
    assert bounds.epsilon(1e-5) == nl.dp_sgd_epsilon(1.0, 0.01, 500, 1e-5)
    assert bounds.epsilon(1e-5) == bounds.epsilon(1e-5)  # asked again: the same answer
    # Poisson-sampled Laplace (atoms of loss beside a continuous part): the bucketed lower bound closes the bracket
    # to 1e-4 relative; composed once without the query, it was 3.8 % wide ([0.5905, 0.6139]).
    lower, upper = nl.account_events([{"mechanism": "laplace", "noise_multiplier": 2.0, "sampling_rate": 0.01,
                                       "count": 1000}]).epsilon(1e-6)
    assert 0.0 < upper - lower <= 1e-4 * upper
    assert bounds.compositions == 500


def test_sampled_discrete_laplace_brackets_enumeration():
    scale, q, n = 1.0, 0.25, 2
    x = np.arange(-50, 52)
    base = (1 - math.exp(-1 / scale)) / (1 + math.exp(-1 / scale))
    qpmf = base * np.exp(-np.abs(x) / scale)
    ppmf = base * np.exp(-np.abs(x - 1) / scale)
    a = (1 - q) * qpmf + q * ppmf
    a2, q2 = np.outer(a, a).ravel(), np.outer(qpmf, qpmf).ravel()
    bounds = nl.account_events([{"mechanism": "discrete_laplace", "scale": scale, "sampling_rate": q, "count": n}])
    for eps in (0.0, 0.2, 0.5):
        exact = max(np.maximum(a2 - math.exp(eps) * q2, 0).sum(), np.maximum(q2 - math.exp(eps) * a2, 0).sum())
        lower, upper = bounds.delta(eps)
        assert lower <= exact * (1 + 1e-12) + 1e-15 and exact <= upper * (1 + 1e-12) + 1e-15


def test_dp_sgd_curve_and_single_call_agree():
    q = 0.01
    steps = [100, 200, 300]
    curve = nl.dp_sgd_epsilons(1.0, q, steps, 1e-5)
    assert curve.shape == (3, 2)
    assert np.all(curve[:, 0] <= curve[:, 1])
    assert np.all(np.diff(curve[:, 1]) > 0)  # more steps, more epsilon
    for (lower, upper), t in zip(curve, steps):
        single = nl.dp_sgd_epsilon(1.0, q, t, 1e-5)
        # Two rigorous brackets of the same value overlap.
        assert lower <= single[1] and single[0] <= upper


def test_dp_sgd_curve_is_as_tight_as_the_tolerance_at_every_checkpoint():
    # Abadi's MNIST at epochs 20, 40, 60: the curve is composed tilted for the budget's epsilon, so every checkpoint's
    # bracket is within the default's 1e-4 relative tolerance (untilted, epoch 40's was 9.5e-5 wide, this 3.0e-5),
    # and each holds the single call's bracket's neighbourhood (two rigorous brackets of one value overlap).
    steps = [4688, 9375, 14063]
    curve = nl.dp_sgd_epsilons(1.1, 256 / 60000, steps, 1e-5)
    widths = (curve[:, 1] - curve[:, 0]) / curve[:, 1]
    assert np.all(widths <= 4e-5), widths
    for (lower, upper), t in zip(curve, steps):
        single = nl.dp_sgd_epsilon(1.1, 256 / 60000, t, 1e-5)
        assert lower <= single[1] and single[0] <= upper


def test_calibration_returns_the_least_noise_multiplier_on_a_fine_scan():
    q, steps, delta, target = 0.02, 300, 1e-5, 1.5
    sigma, (lower, upper) = nl.calibrate_noise_multiplier(target, delta, q, steps, relative_tolerance=1e-3)
    assert upper <= target and lower <= upper
    assert nl.dp_sgd_epsilon(sigma, q, steps, delta)[1] <= target
    # A scan below: every multiplier at least 0.1 % smaller fails the target (certified upper epsilon above it).
    for factor in (0.999, 0.995, 0.98, 0.9):
        assert nl.dp_sgd_epsilon(sigma * factor, q, steps, delta)[1] > target
    # max_steps is the inverse question: the most steps the budget allows at this sigma include `steps`.
    most, (lo, hi) = nl.max_steps(sigma, q, target, delta)
    assert most >= steps and hi <= target
    assert nl.dp_sgd_epsilon(sigma, q, most + 1, delta)[1] > target


def test_mechanisms_lists_the_registry():
    kinds = {k["name"]: k for k in nl.mechanisms()}
    assert set(kinds) == {"gaussian", "laplace", "discrete_gaussian", "discrete_laplace", "table"}
    assert [p["key"] for p in kinds["table"]["parameters"] if p["table"]] == ["table"]
    keys = {p["key"]: p for p in kinds["discrete_gaussian"]["parameters"]}
    assert keys["sensitivity"]["default"] == 1.0 and keys["sigma"]["default"] is None


@pytest.mark.parametrize("call, message", [
    (lambda: nl.dp_sgd_epsilon(0.0, 0.01, 10, 1e-5), "noise_multiplier 0 must be positive"),
    (lambda: nl.dp_sgd_epsilon(1.0, 1.5, 10, 1e-5), "sampling_rate 1.5 must be in (0, 1]"),
    (lambda: nl.dp_sgd_epsilon(1.0, 0.01, 2.5, 1e-5), "steps must be a whole number"),
    (lambda: nl.dp_sgd_epsilon(1.0, 0.01, -3, 1e-5), "steps -3 must be at least 1"),
    (lambda: nl.dp_sgd_epsilon(1.0, 0.01, 10, 1.0), "delta 1 must be in (0, 1)"),
    (lambda: nl.dp_sgd_epsilons(1.0, 0.01, [20, 10], 1e-5), "increasing order"),
    (lambda: nl.calibrate_noise_multiplier(1e-6, 1e-5, 0.5, 100), "no noise multiplier up to 1000 reaches"),
    (lambda: nl.account_events([{"mechanism": "gausian", "noise_multiplier": 1}]), "did you mean 'gaussian'"),
    (lambda: nl.account_events([{"mechanism": "gaussian", "noise_multiplier": 1, "batch_size": 70,
                                 "dataset_size": 60}], relation="replace_one"), "batch_size 70 must be between 1 and dataset_size 60"),
    (lambda: nl.account_events([{"mechanism": "gaussian", "noise_multiplier": 1, "sampling_rate": 0.1}],
                               relation="replace_one"), "Poisson sampling is accounted under relation add_remove"),
    (lambda: nl.account_events([{"mechanism": "gaussian", "noise_multiplier": True}]), "must be a number or a string"),
    (lambda: nl.account_events({"mechanism": "gaussian"}), "wrap it in [ ]"),
    (lambda: nl.account_events([{"mechanism": "gaussian", "noise_multiplier": 1}], relation="replace"), "unknown relation"),
])
def test_bad_input_is_one_value_error_naming_the_culprit(call, message):
    with pytest.raises(ValueError, match=None) as error:
        call()
    assert message in str(error.value)


def test_table_event_on_coordinates_is_the_mechanism_it_tabulates(tmp_path):
    # The discrete Laplace of scale 2 on [-80, 80] as a bare x,p CSV (what is left out: 1e-18), per coordinate of 5.
    x = np.arange(-80, 81)
    p = np.exp(-np.abs(x) / 2.0)
    p /= p.sum()
    path = tmp_path / "laplace.csv"
    path.write_text("x,p\n" + "".join(f"{int(v)},{w!r}\n" for v, w in zip(x, p)))
    common = {"coordinates": 5, "sampling_rate": 0.1, "count": 50}
    table = nl.account_events([{"mechanism": "table", "table": str(path), "sensitivity": 1, **common}])
    mechanism = nl.account_events([{"mechanism": "discrete_laplace", "scale": 2.0, **common}])
    for delta in (1e-3, 1e-6):
        t, m = table.epsilon(delta), mechanism.epsilon(delta)
        assert t[0] <= m[1] and m[0] <= t[1]
    with pytest.raises(ValueError, match="cannot|missing|no such|not"):
        nl.account_events([{"mechanism": "table", "table": str(tmp_path / "absent.csv"), "sensitivity": 1}])


def test_calibrate_event_returns_the_least_noise_on_a_fine_scan():
    # Laplace noise on each of 100 coordinates (L-infinity clipping), Poisson sampling, 200 steps.
    event = {"mechanism": "laplace", "noise_multiplier": 1.0, "coordinates": 100, "sampling_rate": 0.02, "count": 200}
    target, delta = 2.0, 1e-5
    value, (lower, upper) = nl.calibrate_event(event, "noise_multiplier", target, delta, minimum=4.0)
    assert lower <= upper <= target
    for factor in (0.999, 0.99, 0.9):
        smaller = dict(event, noise_multiplier=value * factor)
        assert nl.account_events([smaller]).epsilon(delta)[1] > target
    with pytest.raises(ValueError, match="not a noise parameter"):
        nl.calibrate_event({"mechanism": "discrete_laplace", "scale": 1.0}, "sensitivity", target, delta)
    with pytest.raises(ValueError, match="no parameter 'sigma'|no number parameter 'sigma'"):
        nl.calibrate_event(event, "sigma", target, delta)


def test_gaussian_mechanism_and_one_laplace_release_are_answered_by_their_closed_forms():
    # n releases of N(0, sigma^2) at sensitivity s: the Gaussian mechanism of mu = s sqrt(n) / sigma, to its rounding.
    bounds = nl.gaussian_mechanism(2.0, sensitivity=1.5, compositions=7)
    for eps in (0.0, 0.5, 2.0):
        lower, upper = bounds.delta(eps)
        exact = gaussian_delta(1.5 * math.sqrt(7.0) / 2.0, eps)
        assert lower <= exact * (1 + 1e-13) and exact <= upper * (1 + 1e-13)
        assert upper - lower <= 1e-11 * exact
    # One Laplace release of scale b: delta(eps) = 1 - exp((eps - s/b) / 2) below s/b.
    laplace = nl.laplace_mechanism(4.0, sensitivity=2.0)
    for eps in (0.0, 0.2, 0.45):
        lower, upper = laplace.delta(eps)
        exact = -math.expm1((eps - 0.5) / 2.0)
        assert lower <= exact * (1 + 1e-14) and exact <= upper * (1 + 1e-14)
        assert upper - lower <= 1e-13 * exact
    # Ten million unsampled DP-SGD-style releases as events: no grid, the closed form, at once.
    million = nl.account_events([{"mechanism": "gaussian", "noise_multiplier": 5, "count": 10_000_000}])
    lower, upper = million.epsilon(1e-10)
    assert math.isfinite(upper) and upper - lower <= 1e-9 * upper


def test_dp_sgd_curve_asked_one_count_at_a_time_overlaps_the_single_calls():
    # DpSgdCurve: each count composed from the previous one and the steps since (an accountant asked after every
    # epoch). Every answer is rigorous, so it overlaps dp_sgd_epsilon's bracket at the same count; asking the same count
    # again gives the same bracket; a smaller count is refused.
    q, delta = 0.01, 1e-5
    curve = nl.DpSgdCurve(1.0, q, delta)
    assert curve.steps == 0
    previous = 0.0
    for t in (100, 200, 350):
        lower, upper = curve.epsilon_after(t)
        single = nl.dp_sgd_epsilon(1.0, q, t, delta)
        assert lower <= single[1] and single[0] <= upper
        assert upper - lower <= 1e-4 * upper and upper > previous
        previous = upper
    assert curve.steps == 350 and curve.epsilon_after(350) == (lower, upper)
    with pytest.raises(ValueError, match="at least the last asked"):
        curve.epsilon_after(300)
    with pytest.raises(ValueError, match="delta"):
        nl.DpSgdCurve(1.0, q, 1.5)

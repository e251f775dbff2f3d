"""The accountant objects (noiselearn.PrivacyAccountant in dp_accounting's shape, noiselearn.CertifiedAccountant in
Opacus') against the free functions they wrap: the same brackets, their history and ledger, a checkpoint's round
trip, the DpEvent reader on stand-ins with dp_accounting's class names and public fields (the real package is read in
tests/benchmarks/peers/peer_accountants.py), and one ValueError per bad input with nothing half-composed."""
import math
import time

import pytest

import noiselearn as nl

MNIST_Q = 256 / 60000


# Stand-ins for dp_accounting's events: the reader goes by class name and public fields only.
class GaussianDpEvent:
    def __init__(self, noise_multiplier):
        self.noise_multiplier = noise_multiplier


class LaplaceDpEvent:
    def __init__(self, noise_multiplier):
        self.noise_multiplier = noise_multiplier


class DiscreteLaplaceDpEvent:
    def __init__(self, noise_parameter, sensitivity):
        self.noise_parameter, self.sensitivity = noise_parameter, sensitivity


class DiscreteGaussianDpEvent:
    def __init__(self, sigma, sensitivity=1.0, dimension=None):
        self.sigma, self.sensitivity, self.dimension = sigma, sensitivity, dimension


class PoissonSampledDpEvent:
    def __init__(self, sampling_probability, event):
        self.sampling_probability, self.event = sampling_probability, event


class SampledWithoutReplacementDpEvent:
    def __init__(self, source_dataset_size, sample_size, event):
        self.source_dataset_size, self.sample_size, self.event = source_dataset_size, sample_size, event


class RandomAllocationDpEvent:
    def __init__(self, event, num_selected, num_steps):
        self.event, self.num_selected, self.num_steps = event, num_selected, num_steps


class SelfComposedDpEvent:
    def __init__(self, event, count):
        self.event, self.count = event, count


class ComposedDpEvent:
    def __init__(self, events):
        self.events = events


class NoOpDpEvent:
    pass


class ZCDpEvent:
    def __init__(self, rho):
        self.rho = rho


class NeighboringRelation:
    def __init__(self, name):
        self.name = name


def test_opacus_shape_steps_in_runs_and_answers_as_dp_sgd_epsilon():
    acc = nl.CertifiedAccountant()
    assert acc.get_epsilon(1e-5) == 0.0 and len(acc) == 0
    assert nl.CertifiedAccountant.mechanism() == "noiselearn"
    start = time.perf_counter()
    for _ in range(14063):
        acc.step(noise_multiplier=1.1, sample_rate=MNIST_Q)
    epsilon = acc.get_epsilon(1e-5)
    elapsed = time.perf_counter() - start
    assert acc.history == [(1.1, MNIST_Q, 14063)] and len(acc) == 14063
    assert acc.get_epsilon_bracket(1e-5) == nl.dp_sgd_epsilon(1.1, MNIST_Q, 14063, 1e-5)
    assert epsilon == acc.get_epsilon_bracket(1e-5)[1]
    print(f"14,063 steps and one get_epsilon: {elapsed:.2f} s")
    # A second phase: two runs, answered as account_events answers the two events.
    for _ in range(100):
        acc.step(noise_multiplier=2.0, sample_rate=0.01)
    assert acc.history == [(1.1, MNIST_Q, 14063), (2.0, 0.01, 100)] and len(acc) == 14163
    events = [{"mechanism": "gaussian", "noise_multiplier": 1.1, "sampling_rate": MNIST_Q, "count": 14063},
              {"mechanism": "gaussian", "noise_multiplier": 2.0, "sampling_rate": 0.01, "count": 100}]
    assert acc.get_epsilon_bracket(1e-5) == nl.account_events(events).epsilon(1e-5)
    assert acc.get_epsilon(1e-5) > epsilon  # more steps, more epsilon


def test_opacus_shape_checkpoint_round_trip_and_refusals():
    acc = nl.CertifiedAccountant()
    for _ in range(30):
        acc.step(noise_multiplier=1.0, sample_rate=0.02)
    for _ in range(20):
        acc.step(noise_multiplier=1.3, sample_rate=0.02)
    state = acc.state_dict()
    assert state == {"history": [(1.0, 0.02, 30), (1.3, 0.02, 20)], "mechanism": "noiselearn"}
    restored = nl.CertifiedAccountant()
    restored.load_state_dict(state)
    assert restored.history == acc.history and restored.get_epsilon(1e-6) == acc.get_epsilon(1e-6)
    # Bad steps and bad checkpoints: one ValueError each, the accountant as it was.
    for kwargs, message in [({"noise_multiplier": 1.0, "sample_rate": 0.0}, "sample_rate 0.0 must be in"),
                            ({"noise_multiplier": 1.0, "sample_rate": 1.5}, "sample_rate 1.5 must be in"),
                            ({"noise_multiplier": 1.0, "sample_rate": math.nan}, "sample_rate nan must be in"),
                            ({"noise_multiplier": -1.0, "sample_rate": 0.1}, "noise_multiplier -1.0 must be")]:
        with pytest.raises(ValueError, match=message):
            restored.step(**kwargs)
    for bad, message in [({}, "empty"), ({"history": []}, "no key 'mechanism'"),
                         ({"history": [], "mechanism": "rdp"}, "mechanism 'rdp' cannot be loaded"),
                         ({"history": [(1.0, 0.02)], "mechanism": "noiselearn"}, "entry 0"),
                         ({"history": [(1.0, 2.0, 3)], "mechanism": "noiselearn"}, "entry 0: sample_rate 2.0"),
                         ({"history": [(1.0, 0.1, -3)], "mechanism": "noiselearn"}, "steps must be a whole")]:
        with pytest.raises(ValueError, match=message):
            restored.load_state_dict(bad)
    assert restored.history == acc.history
    # Opacus' optimizer hook: one step at the optimizer's multiplier, sample_rate times its accumulated iterations.
    class Optimizer:
        noise_multiplier, accumulated_iterations = 0.9, 2
    hook = restored.get_optimizer_hook_fn(sample_rate=0.01)
    hook(Optimizer())
    assert restored.history[-1] == (0.9, 0.02, 1)


def test_dp_accounting_shape_composes_dicts_and_dp_events_alike():
    ours = nl.PrivacyAccountant()
    ours.compose({"mechanism": "gaussian", "noise_multiplier": 1.0, "sampling_rate": 0.01}, 1000)
    ours.compose({"mechanism": "gaussian", "noise_multiplier": 1.5, "sampling_rate": 0.02, "count": 1000}, 2)
    assert ours.ledger == [{"mechanism": "gaussian", "noise_multiplier": 1.0, "sampling_rate": 0.01, "count": 1000},
                           {"mechanism": "gaussian", "noise_multiplier": 1.5, "sampling_rate": 0.02, "count": 2000}]
    schedule = ComposedDpEvent([
        SelfComposedDpEvent(PoissonSampledDpEvent(0.01, GaussianDpEvent(1.0)), 1000),
        NoOpDpEvent(),
        SelfComposedDpEvent(PoissonSampledDpEvent(0.02, GaussianDpEvent(1.5)), 2000)])
    theirs = nl.PrivacyAccountant()
    assert theirs.supports(schedule)
    assert theirs.compose(schedule) is theirs and theirs.ledger == ours.ledger
    assert theirs.get_epsilon_bracket(1e-5) == ours.get_epsilon_bracket(1e-5) == \
        nl.account_events(ours.ledger).epsilon(1e-5)
    lower, upper = theirs.get_delta_bracket(3.0)
    assert 0.0 < lower <= upper == theirs.get_delta(3.0)
    # A delta found is consistent with the epsilon found: delta(eps_upper(1e-5)) <= 1e-5.
    assert theirs.get_delta(theirs.get_epsilon(1e-5)) <= 1e-5 * (1 + 1e-9)


def test_dp_event_reader_maps_parameters_to_our_mechanisms():
    # dp_accounting's discrete Laplace is exp(-a |x|): our scale is 1 / a. One release of sensitivity 1 has privacy
    # loss a on x <= 0 (probability 1 / (1 + e^-a)) and -a elsewhere, so delta(eps) = (1 - e^(eps - a)) / (1 + e^-a)
    # below a: eps(delta) = a + log(1 - delta (1 + e^-a)).
    a, delta = 0.5, 1e-4
    acc = nl.PrivacyAccountant().compose(DiscreteLaplaceDpEvent(a, 1))
    assert acc.ledger == [{"mechanism": "discrete_laplace", "scale": 2.0, "sensitivity": 1.0, "count": 1}]
    exact = a + math.log1p(-delta * (1 + math.exp(-a)))
    lower, upper = acc.get_epsilon_bracket(delta)
    assert lower <= exact <= upper and upper - lower <= 1e-4 * exact
    assert nl.PrivacyAccountant().compose(LaplaceDpEvent(2.0)).ledger[0]["mechanism"] == "laplace"
    assert nl.PrivacyAccountant().compose(DiscreteGaussianDpEvent(3.0, 1, 1)).ledger[0]["sigma"] == 3.0
    swor = SampledWithoutReplacementDpEvent(1438, 64, GaussianDpEvent(2.0))
    replace_one = nl.PrivacyAccountant(NeighboringRelation("REPLACE_ONE"))
    assert replace_one.neighboring_relation == "replace_one"
    replace_one.compose(swor, 900)
    assert replace_one.ledger == [{"mechanism": "gaussian", "noise_multiplier": 2.0, "batch_size": 64,
                                   "dataset_size": 1438, "count": 900}]
    assert replace_one.get_epsilon_bracket(1e-5) == \
        nl.account_events(replace_one.ledger, relation="replace_one").epsilon(1e-5)


def test_unsupported_events_are_refused_by_name_and_nothing_is_half_composed():
    acc = nl.PrivacyAccountant()
    acc.compose(PoissonSampledDpEvent(0.01, GaussianDpEvent(1.0)), 10)
    before = acc.ledger
    for event, message in [(ZCDpEvent(0.1), "ZCDpEvent is not supported"),
                           (DiscreteGaussianDpEvent(3.0), "dimension None"),
                           (PoissonSampledDpEvent(1.5, GaussianDpEvent(1.0)), "1.5"),
                           (GaussianDpEvent(0.0), "noise_multiplier"),
                           (ComposedDpEvent([GaussianDpEvent(1.0), ZCDpEvent(0.1)]), "ZCDpEvent"),
                           ({"mechanism": "gausian", "noise_multiplier": 1.0}, "did you mean 'gaussian'")]:
        assert not acc.supports(event)
        with pytest.raises(ValueError, match=message):
            acc.compose(event)
        assert acc.ledger == before
    with pytest.raises(ValueError, match="count must be a whole number"):
        acc.compose(GaussianDpEvent(1.0), count=-1)
    # Each compose is checked with the whole ledger: the total count beyond the accountant's limit is refused there,
    # not at the next question.
    acc.compose(GaussianDpEvent(1.0), 6 * 10**8)
    with pytest.raises(ValueError, match="total count exceeds"):
        acc.compose(GaussianDpEvent(1.0), 6 * 10**8)
    assert acc.ledger[-1] == {"mechanism": "gaussian", "noise_multiplier": 1.0, "count": 6 * 10**8}
    with pytest.raises(ValueError, match="unknown neighboring relation"):
        nl.PrivacyAccountant("swap")
    with pytest.raises(ValueError, match="REPLACE_SPECIAL"):
        nl.PrivacyAccountant(NeighboringRelation("REPLACE_SPECIAL"))
    assert nl.PrivacyAccountant().get_epsilon(1e-5) == 0.0


def test_random_allocation_events_read_as_epochs_of_our_steps_per_epoch():
    # dp_accounting's RandomAllocationDpEvent is one epoch: each record in num_selected of num_steps steps. Ten of
    # them are ten epochs of our random allocation (steps_per_epoch = num_steps, count = 10 num_steps).
    epochs = SelfComposedDpEvent(RandomAllocationDpEvent(GaussianDpEvent(1.0), 1, 1000), 10)
    acc = nl.PrivacyAccountant().compose(epochs)
    assert acc.ledger == [{"mechanism": "gaussian", "noise_multiplier": 1.0, "steps_per_epoch": 1000,
                           "count": 10000}]
    lower, upper = acc.get_epsilon_bracket(1e-5)
    assert (lower, upper) == nl.account_events(acc.ledger).epsilon(1e-5)
    assert 0.0 < lower <= upper <= lower * (1 + 1e-3)
    # Below Poisson sampling at the same expected batch (rate 1 / 1000): balls in bins is the more private here.
    poisson = nl.account_events([{"mechanism": "gaussian", "noise_multiplier": 1.0, "sampling_rate": 1e-3,
                                  "count": 10000}]).epsilon(1e-5)
    assert upper < poisson[0]
    before = acc.ledger
    for event, message in [(RandomAllocationDpEvent(GaussianDpEvent(1.0), 2, 1000), "num_selected 2"),
                           (RandomAllocationDpEvent(ZCDpEvent(0.1), 1, 10), "ZCDpEvent is not supported"),
                           ({"mechanism": "gaussian", "noise_multiplier": 1.0, "steps_per_epoch": 100, "count": 150},
                            "whole number of epochs")]:
        assert not acc.supports(event)
        with pytest.raises(ValueError, match=message):
            acc.compose(event)
        assert acc.ledger == before
    # Any mechanism inside: the Laplace's atoms too.
    assert acc.supports(RandomAllocationDpEvent(LaplaceDpEvent(1.0), 1, 10))


def test_opacus_shape_asked_after_every_epoch_advances_its_curve():
    # The first question of a run is dp_sgd_epsilon's certificate; later ones advance a DpSgdCurve created at the
    # second question (one convolution per question), so they equal that curve's answers and overlap the single calls'.
    q, delta = 0.01, 1e-5
    acc = nl.CertifiedAccountant()
    curve = None
    for epoch, end in enumerate((100, 200, 300, 400)):
        while len(acc) < end:
            acc.step(noise_multiplier=1.0, sample_rate=q)
        answer = acc.get_epsilon_bracket(delta)
        single = nl.dp_sgd_epsilon(1.0, q, end, delta)
        if epoch == 0:
            assert answer == single
        else:
            if curve is None:
                curve = nl.DpSgdCurve(1.0, q, delta)
            assert answer == curve.epsilon_after(end)
            assert answer[0] <= single[1] and single[0] <= answer[1]
    # A checkpoint restored to fewer steps asks afresh.
    state = acc.state_dict()
    state["history"] = [(1.0, q, 150)]
    acc.load_state_dict(state)
    assert acc.get_epsilon_bracket(delta) == nl.dp_sgd_epsilon(1.0, q, 150, delta)

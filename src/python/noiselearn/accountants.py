"""Accountant objects in the two shapes training code already talks to, answered by noiselearn's certified accountant.

- ``PrivacyAccountant``: dp_accounting's shape. ``compose(event, count=1)`` takes our event dicts (the keys of
  ``account_events``) or dp_accounting's ``DpEvent`` objects, read by their public fields (dp_accounting is not
  imported: any object whose class name and fields are dp_accounting's is read the same way). ``get_epsilon`` and
  ``get_delta`` return the certified upper bound; ``get_epsilon_bracket`` and ``get_delta_bracket`` the pair.
- ``CertifiedAccountant``: Opacus' shape (``opacus.accountants.IAccountant``). ``step(noise_multiplier=,
  sample_rate=)`` every optimizer step (constant time: the history is kept as runs of equal settings, as Opacus keeps
  it), ``get_epsilon(delta)`` the certified upper bound, ``history``, ``len()``, ``mechanism()``, ``state_dict()`` and
  ``load_state_dict()``, and ``get_optimizer_hook_fn`` for Opacus' ``PrivacyEngine``.

Both compose only when asked and remember the last answer: asking again after nothing changed costs nothing, and a
loop that steps 14,063 times and asks once composes once.
"""

import math
import numbers

from . import _noiselearn as _core

__all__ = ["PrivacyAccountant", "CertifiedAccountant", "events_of"]

def _relation_name(relation):
    """Our relation name from ours or from dp_accounting's NeighboringRelation (read by its name)."""
    name = getattr(relation, "name", relation)
    key = name.lower() if isinstance(name, str) else None
    if key in ("add_or_remove_one", "add_remove", "add_or_remove"):
        return "add_remove"
    if key == "replace_one":
        return "replace_one"
    if key == "replace_special":
        raise ValueError("neighboring relation REPLACE_SPECIAL is not supported (add_remove or replace_one)")
    raise ValueError(f"unknown neighboring relation {relation!r} (add_remove or replace_one)")


def _positive_whole(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{what} must be a whole number >= 0 (got {value!r})")
    return int(value)


def _leaf(event):
    """One unsampled mechanism as our event dict (without count)."""
    kind = type(event).__name__
    if kind == "GaussianDpEvent":
        return {"mechanism": "gaussian", "noise_multiplier": float(event.noise_multiplier)}
    if kind == "LaplaceDpEvent":
        return {"mechanism": "laplace", "noise_multiplier": float(event.noise_multiplier)}
    if kind == "DiscreteLaplaceDpEvent":
        # dp_accounting's pmf is proportional to exp(-a |x|): our scale t (exp(-|x| / t)) is 1 / a.
        a = float(event.noise_parameter)
        if not a > 0.0 or not math.isfinite(a):
            raise ValueError(f"DiscreteLaplaceDpEvent with noise_parameter {a!r}: it must be positive and finite")
        return {"mechanism": "discrete_laplace", "scale": 1.0 / a, "sensitivity": float(event.sensitivity)}
    if kind == "DiscreteGaussianDpEvent":
        dimension = getattr(event, "dimension", None)
        if dimension != 1:
            raise ValueError(
                f"DiscreteGaussianDpEvent with dimension {dimension!r}: only the univariate discrete Gaussian "
                "(dimension=1) is accounted (the multivariate one is not equivalent, and None means unknown)")
        return {"mechanism": "discrete_gaussian", "sigma": float(event.sigma), "sensitivity": float(event.sensitivity)}
    raise ValueError(f"{kind} is not supported (supported: GaussianDpEvent, LaplaceDpEvent, DiscreteLaplaceDpEvent, "
                       "DiscreteGaussianDpEvent(dimension=1), each alone or in PoissonSampledDpEvent or "
                       "SampledWithoutReplacementDpEvent, GaussianDpEvent in RandomAllocationDpEvent(num_selected=1), "
                       "and SelfComposedDpEvent, ComposedDpEvent, NoOpDpEvent)")


def _sampled(event):
    """A leaf, possibly sampled: our event dict (count 1)."""
    kind = type(event).__name__
    if kind == "PoissonSampledDpEvent":
        inner = _leaf(event.event)
        inner["sampling_rate"] = float(event.sampling_probability)
        return inner
    if kind == "SampledWithoutReplacementDpEvent":
        inner = _leaf(event.event)
        inner["batch_size"] = _positive_whole(event.sample_size, "SampledWithoutReplacementDpEvent.sample_size")
        inner["dataset_size"] = _positive_whole(event.source_dataset_size,
                                                "SampledWithoutReplacementDpEvent.source_dataset_size")
        return inner
    if kind == "SampledWithReplacementDpEvent":
        raise ValueError("SampledWithReplacementDpEvent is not supported (Poisson or without replacement)")
    return _leaf(event)


def _append(runs, event, count):
    """Adds count copies of the dict `event`, merged into the last run when it is the same event."""
    if count == 0:
        return
    if runs and runs[-1][0] == event:
        runs[-1] = (event, runs[-1][1] + count)
    else:
        runs.append((event, count))


def _flatten(event, count, runs):
    if isinstance(event, dict):
        ours = dict(event)
        inner_count = _positive_whole(ours.pop("count", 1), "an event's count")
        _append(runs, ours, inner_count * count)
        return
    kind = type(event).__name__
    if kind == "NoOpDpEvent":
        return
    if kind == "SelfComposedDpEvent":
        _flatten(event.event, count * _positive_whole(event.count, "SelfComposedDpEvent.count"), runs)
        return
    if kind == "ComposedDpEvent":
        for e in event.events:
            _flatten(e, count, runs)
        return
    if kind == "NonPrivateDpEvent":
        raise ValueError("NonPrivateDpEvent has no finite guarantee")
    if kind == "RandomAllocationDpEvent":
        # One epoch of num_steps steps, each record in num_selected of them: our random allocation (one of them).
        selected = _positive_whole(event.num_selected, "RandomAllocationDpEvent.num_selected")
        steps = _positive_whole(event.num_steps, "RandomAllocationDpEvent.num_steps")
        if selected != 1:
            raise ValueError(f"RandomAllocationDpEvent with num_selected {selected}: only one step per record and "
                             "epoch (num_selected=1) is accounted")
        inner = _leaf(event.event)
        inner["steps_per_epoch"] = steps
        _append(runs, inner, count * steps)
        return
    _append(runs, _sampled(event), count)


def events_of(event, count=1):
    """Our event dicts (each with its count) for one of our dicts, a list of them, or a dp_accounting DpEvent tree.

    Raises ValueError naming an event that is not supported."""
    runs = []
    count = _positive_whole(count, "count")
    if isinstance(event, (list, tuple)):
        for e in event:
            _flatten(e, count, runs)
    else:
        _flatten(event, count, runs)
    return [dict(e, count=c) for e, c in runs]


class PrivacyAccountant:
    """dp_accounting's ``PrivacyAccountant`` shape, answered by the certified accountant.

    ``neighboring_relation``: ``"add_remove"`` (default) or ``"replace_one"``, or dp_accounting's
    ``NeighboringRelation.ADD_OR_REMOVE_ONE`` / ``REPLACE_ONE``. ``loss_step``: the accountant's (``account_events``).
    """

    def __init__(self, neighboring_relation="add_remove", *, loss_step=None):
        self._relation = _relation_name(neighboring_relation)
        self._loss_step = loss_step
        self._runs = []  # (event dict without count, count)
        self._bounds = None  # the composed bounds of _runs, made on the first question after a change

    @property
    def neighboring_relation(self):
        return self._relation

    def supports(self, event):
        """Whether compose() takes the event (the same reading, without composing)."""
        try:
            events = events_of(event)
        except ValueError:
            return False
        try:
            if events:
                # The accountant's own parser checks the parameters (nothing is composed: count 1 of each, no query).
                _core.validate_events(events, relation=self._relation)
        except ValueError:
            return False
        return True

    def compose(self, event, count=1):
        """Adds `count` copies of `event`; returns self. A ValueError names an unsupported event, or a ledger the
        accountant would refuse (its total count beyond the limit); nothing is added then."""
        events = events_of(event, count)
        if not events:
            return self
        runs = list(self._runs)
        for e in events:
            c = e.pop("count")
            _append(runs, e, c)
        # The whole ledger as it would be: the accountant's own checks (parameters, the total count's limit).
        _core.validate_events([dict(e, count=c) for e, c in runs], relation=self._relation)
        self._runs = runs
        self._bounds = None
        return self

    @property
    def ledger(self):
        """The events composed so far, as our event dicts with their counts (runs of equal events merged)."""
        return [dict(e, count=c) for e, c in self._runs]

    def _composed(self):
        if self._bounds is None:
            kwargs = {} if self._loss_step is None else {"loss_step": self._loss_step}
            self._bounds = _core.account_events(self.ledger, relation=self._relation, **kwargs)
        return self._bounds

    def get_epsilon_bracket(self, target_delta):
        """The certified (lower, upper) epsilon at target_delta of everything composed (0, 0 before anything)."""
        if not self._runs:
            _check_probability(target_delta, "target_delta")
            return (0.0, 0.0)
        return tuple(self._composed().epsilon(target_delta))

    def get_delta_bracket(self, target_epsilon):
        """The certified (lower, upper) delta at target_epsilon of everything composed."""
        if not self._runs:
            _check_epsilon(target_epsilon)
            return (0.0, 0.0)
        return tuple(self._composed().delta(target_epsilon))

    def get_epsilon(self, target_delta):
        """The certified upper epsilon at target_delta (dp_accounting returns its estimate; this is a guarantee)."""
        return self.get_epsilon_bracket(target_delta)[1]

    def get_delta(self, target_epsilon):
        """The certified upper delta at target_epsilon."""
        return self.get_delta_bracket(target_epsilon)[1]


def _check_probability(value, what):
    if not (isinstance(value, numbers.Real) and 0.0 < value < 1.0):
        raise ValueError(f"{what} {value!r} must be in (0, 1)")


def _check_epsilon(value):
    if not (isinstance(value, numbers.Real) and value >= 0.0 and math.isfinite(value)):
        raise ValueError(f"target_epsilon {value!r} must be finite and >= 0")


def _checked_step(noise_multiplier, sample_rate):
    """A step's settings as floats; a ValueError names the one out of range (a bool is not a number here)."""
    if isinstance(noise_multiplier, bool) or not isinstance(noise_multiplier, numbers.Real) or not (
            noise_multiplier > 0.0 and math.isfinite(noise_multiplier)):
        raise ValueError(f"noise_multiplier {noise_multiplier!r} must be positive and finite")
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, numbers.Real) or not (0.0 < sample_rate <= 1.0):
        raise ValueError(f"sample_rate {sample_rate!r} must be in (0, 1]")
    return float(noise_multiplier), float(sample_rate)


class CertifiedAccountant:
    """Opacus' accountant shape (``IAccountant``), answered by the certified accountant: DP-SGD's Gaussian with Poisson
    sampling, add or remove one, as Opacus' ``RDPAccountant`` and ``PRVAccountant`` take it.

    ``history``: ``[(noise_multiplier, sample_rate, steps), ...]``, consecutive steps with equal settings in one entry.
    """

    def __init__(self, *, loss_step=None):
        self.history = []
        self._loss_step = loss_step
        self._cache = {}  # delta -> (history key, bracket)
        # delta -> ((noise_multiplier, sample_rate), the run's DpSgdCurve or None before its second question, steps)
        self._curves = {}

    @classmethod
    def mechanism(cls):
        return "noiselearn"

    def step(self, *, noise_multiplier, sample_rate):
        """One optimizer step at (noise_multiplier, sample_rate): constant time, nothing composed."""
        noise_multiplier, sample_rate = _checked_step(noise_multiplier, sample_rate)
        if self.history and self.history[-1][0] == noise_multiplier and self.history[-1][1] == sample_rate:
            m, q, steps = self.history[-1]
            self.history[-1] = (m, q, steps + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self):
        return sum(steps for _, _, steps in self.history)

    def _events(self):
        return [{"mechanism": "gaussian", "noise_multiplier": m, "sampling_rate": q, "count": steps}
                for m, q, steps in self.history]

    def get_epsilon_bracket(self, delta):
        """The certified (lower, upper) epsilon at delta after the steps taken (0, 0 before any)."""
        _check_probability(delta, "delta")
        key = tuple(self.history)
        cached = self._cache.get(delta)
        if cached is not None and cached[0] == key:
            return cached[1]
        kwargs = {} if self._loss_step is None else {"loss_step": self._loss_step}
        if not self.history:
            bracket = (0.0, 0.0)
        elif len(self.history) == 1:
            m, q, steps = self.history[0]
            # Asked again after more steps at the same settings (after every epoch): from the second question on,
            # the last count's composition advanced by the steps since (DpSgdCurve), not a composition afresh. The
            # first question of a run is the full certificate's answer.
            curve = self._curves.get(delta)
            if curve is not None and curve[0] == (m, q) and curve[1] is None and steps > curve[2]:
                curve = ((m, q), _core.DpSgdCurve(m, q, delta, **kwargs), steps)
                self._curves[delta] = curve
            if curve is not None and curve[0] == (m, q) and curve[1] is not None and curve[1].steps <= steps:
                bracket = tuple(curve[1].epsilon_after(steps))
            else:
                bracket = tuple(_core.dp_sgd_epsilon(m, q, steps, delta, **kwargs))
                self._curves[delta] = ((m, q), None, steps)
        else:
            bracket = tuple(_core.account_events(self._events(), **kwargs).epsilon(delta))
        self._cache[delta] = (key, bracket)
        return bracket

    def get_epsilon(self, delta, *args, **kwargs):
        """The certified upper epsilon at delta after the steps taken (Opacus returns its estimate)."""
        return self.get_epsilon_bracket(delta)[1]

    def get_optimizer_hook_fn(self, sample_rate):
        """A hook for Opacus' DPOptimizer (``optimizer.attach_step_hook``): one step at the optimizer's noise
        multiplier and ``sample_rate`` times its accumulated iterations, as Opacus' own accountants count it."""

        def hook_fn(optim):
            self.step(noise_multiplier=optim.noise_multiplier,
                      sample_rate=sample_rate * getattr(optim, "accumulated_iterations", 1))

        return hook_fn

    def state_dict(self, destination=None):
        """``{"history": [...], "mechanism": "noiselearn"}`` (into `destination` when given), as Opacus saves it."""
        if destination is None:
            destination = {}
        destination["history"] = [tuple(h) for h in self.history]
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict):
        """Restores a state_dict; a ValueError names what is wrong, and the accountant is left as it was."""
        if not state_dict:
            raise ValueError("state_dict is empty or None: nothing to load")
        for key in ("history", "mechanism"):
            if key not in state_dict:
                raise ValueError(f"state_dict has no key '{key}'")
        if state_dict["mechanism"] != self.mechanism():
            raise ValueError(f"state_dict of mechanism {state_dict['mechanism']!r} cannot be loaded into an "
                             f"accountant of mechanism {self.mechanism()!r}")
        history = []
        for i, entry in enumerate(state_dict["history"]):
            try:
                m, q, steps = entry
            except (TypeError, ValueError):
                raise ValueError(f"state_dict history entry {i}: {entry!r} is not (noise_multiplier, sample_rate, "
                                 "steps)") from None
            try:
                m, q = _checked_step(m, q)
            except ValueError as e:
                raise ValueError(f"state_dict history entry {i}: {e}") from None
            history.append((m, q, _positive_whole(steps, f"state_dict history entry {i}'s steps")))
        self.history = history
        self._curves = {}
        self._cache = {}

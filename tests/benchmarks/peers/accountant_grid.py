#!/usr/bin/env python3
"""The issue-52 query grid: noiselearn beside dp_accounting and prv_accountant on the same queries.

    accountant_grid.py [--noiselearn DIR] [--dp-accounting PATH] [--prv-accountant PATH]
                       [--only ID,ID] [--quick] [--peer-ids quick|all|ID,ID] [--timeout 60]
                       [--repeats 1] [--json OUT] [--workdir DIR] [--mem-limit-gb 8]

A designed, deterministic grid of queries (listed below in GRID, each with a short id) across the
mechanisms (Gaussian, Laplace, discrete Gaussian, discrete Laplace, a noise table), the samplings (none,
Poisson, without replacement), the relations (add/remove, replace-one), q from 1e-7 to 1, 1 to 10^8
releases, epsilon(delta) queries with delta from 1e-18 to 1e-2 and delta(epsilon) queries with epsilon from
1e-3 to 10^3. Every query of every accountant runs in its own child process (so that its wall time, its
peak memory and the timeout are its own), on one thread (OMP/OPENBLAS/MKL_NUM_THREADS=1, and
noiselearn.set_threads(1)); the time is the wall time of the accounting calls inside the child (the
interpreter start and the imports excluded), best of --repeats.

What each accountant is asked, and the goal it is checked against (issue 52):

  a bracket [lower, upper] of the answer that is finite wherever the truth is, not negative, consistent with
  every independent reference available (closed forms and exact enumerations computed here in
  high-precision or bounded floating point, the issue's stated truths, and the other accountants' claimed
  rigorous sides), at most 1e-4 relative wide (upper - lower <= 1e-4 * upper; a delta(epsilon) query whose
  lower end is below 1e-12 may instead be at most 1e-12 absolute wide), at most 1 s wall time on one
  thread and at most 2 GB peak resident memory.

The peers run from their public sources given by path (see README.md beside this file); a peer whose
path is not given is skipped with a line. Their settings and the rule that decides whether a peer "meets"
the goal are printed at the start of a run (see PEER_RULES).

noiselearn is imported from --noiselearn DIR (a directory holding the package noiselearn/, or an older build's noiselearn*.so; default build/python
under the repository root).
"""

import argparse
import json
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS")
REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))

# The goal (issue 52).
REL_WIDTH = 1e-4
ABS_WIDTH_SMALL_DELTA = 1e-12
MAX_SECONDS = 1.0
MAX_BYTES = 2 * 1024 ** 3
# Comparisons with a reference allow this much (relative to the larger magnitude), for the printing of
# doubles; the references carry their own error bounds in their brackets.
REL_TOL = 1e-12

# Peers' settings.
PRV_EPS_ERROR = 0.1           # prv_accountant README and its compute-dp-epsilon CLI
PRV_DELTA_ERROR_FIRST = 1e-10  # prv_accountant README example, for delta(eps) queries' first pass
PLD_INTERVAL = 1e-4           # dp_accounting PLDAccountant default value_discretization_interval

PEER_RULES = """\
Peers' settings and the rule for their "meets":
  dp_accounting: its PLD module (privacy_loss_distribution.from_*_mechanism, the functions its PLDAccountant
    calls, with the accountant's arguments: an unsampled Gaussian's releases folded into one of std m/sqrt(n),
    REPLACE_ONE for the Gaussian under replace-one with its noise multiplier doubled as its accountant takes it;
    others self_compose(n)) at the default value_discretization_interval 1e-4, run twice: pessimistic_estimate
    =True (its upper estimate) and =False (its optimistic estimate, privacy buckets). Beyond its accountant's
    events, its PLD module is also used for the discrete Gaussian (from_discrete_gaussian_mechanism), the
    discrete Laplace sampled, and tables (from_two_probability_mass_functions, both directions when sampled);
    unsampled Laplace and tables under replace-one are given the same pair (for an unsampled mechanism the
    relation only sets the sensitivity, relative to which the noise is stated). n/a: sampling without
    replacement. Its "bracket" is [optimistic, pessimistic]; its time is both runs together. Its pessimistic
    value is checked as an upper bound (a reference above it counts as inconsistent). Its optimistic value is
    NOT a rigorous lower bound in general (its rounding and truncation are not accounted both ways): a
    reference below it is counted apart ("optimistic above the truth") and also denies "meets", since the
    bracket then misses the truth.
  prv_accountant: PRVAccountant(eps_error=0.1 (its README's and CLI's value), max_self_compositions = the
    counts) with GaussianMechanism (unsampled Gaussian, either relation: its pair N(0, m^2) vs N(1, m^2)),
    PoissonSubsampledGaussianMechanism (Poisson, add/remove; the one pair its README states, N(0, m^2)
    against (1-q) N(0, m^2) + q N(1, m^2): the add direction only, so not a bound on the add/remove truth
    where removal is the worse) and LaplaceMechanism(mu = 1/m) (unsampled Laplace); everything else n/a. epsilon(delta): delta_error = delta/1000 (its README: "typically around
    1e-3 x delta"); delta(epsilon): a first pass at delta_error 1e-10 (its README's example), then, when that
    estimate is positive, a second at estimate/1000 (both passes timed). Its bracket is (lower, upper) of its
    (lower, estimate, upper), checked like ours on both sides.
  noiselearn: account_events(events, relation=...) with its defaults; its (lower, upper), both claimed rigorous.
  Every accountant is checked against the independent references and against the others' claimed rigorous
  sides (dp_accounting's pessimistic value as an upper bound, prv's and ours as brackets)."""


# --------------------------------------------------------------------------------------------------------
# The grid
# --------------------------------------------------------------------------------------------------------

def _sampling(ev, q=None, b=None, N=None):
    if q is not None:
        ev["sampling_rate"] = q
    if b is not None:
        ev["batch_size"] = int(b)
        ev["dataset_size"] = int(N)
    return ev


def G(m, n=1, q=None, b=None, N=None):
    return _sampling({"mechanism": "gaussian", "noise_multiplier": m, "count": int(n)}, q, b, N)


def L(m, n=1, q=None, b=None, N=None):
    return _sampling({"mechanism": "laplace", "noise_multiplier": m, "count": int(n)}, q, b, N)


def DG(sigma, n=1, s=1, q=None, b=None, N=None):
    return _sampling({"mechanism": "discrete_gaussian", "sigma": sigma, "sensitivity": s, "count": int(n)},
                     q, b, N)


def DL(scale, n=1, s=1, q=None, b=None, N=None):
    return _sampling({"mechanism": "discrete_laplace", "scale": scale, "sensitivity": s, "count": int(n)},
                     q, b, N)


def T(name, n=1, q=None, b=None, N=None):
    """A table event: `name` is one of TABLES; sensitivity 1 (in x units)."""
    return _sampling({"mechanism": "table", "table": "@" + name, "sensitivity": 1.0, "count": int(n)}, q, b, N)


# The tables, written at the start of a run into --workdir by scipy's normal CDF differences over cells
# [x - h/2, x + h/2) and divided by their sum, as a user would write one:
#  - "careful": the cells of x <= 0 from the lower tail (norm.cdf differences, accurate there), mirrored, so
#    the table is exactly symmetric;
#  - "naive": norm.cdf differences over the whole grid as they come (the upper tail, differences of
#    numbers near 1, is off by up to 6e-4 relative: a table symmetric only up to that).
TABLES = {
    "T1": dict(sigma=1.0, step=0.01, half_range=10.0, how="careful"),  # distinguishing mass ~2e-19 a release
    "T2": dict(sigma=1.0, step=0.01, half_range=7.0, how="careful"),   # distinguishing mass ~1e-9 a release
    "T3": dict(sigma=1.0, step=0.01, half_range=7.0, how="naive"),
    "T4": dict(sigma=5.0, step=0.05, half_range=50.0, how="careful"),
}

ABADI_Q = 256 / 60000


def Q(qid, events, kind, value, relation="add_remove", quick=False, note=None, issue_truth=None):
    """kind 'eps': epsilon(delta = value); kind 'delta': delta(epsilon = value)."""
    if not isinstance(events, list):
        events = [events]
    return dict(id=qid, events=events, kind=kind, value=float(value), relation=relation, quick=quick,
                note=note, issue_truth=issue_truth)


AR, RO = "add_remove", "replace_one"
E, D = "eps", "delta"

GRID = [
    # ---- Gaussian, no sampling, add/remove (closed form reference) ----
    Q("G-N-01", G(1), E, 1e-5, quick=True),
    Q("G-N-02", G(1), D, 1.0),
    Q("G-N-03", G(0.5), E, 1e-18),
    Q("G-N-04", G(5, 10**6), E, 1e-10, quick=True, note="issue 52: closed form 21271.28376"),
    Q("G-N-05", G(10, 10**8), E, 1e-5),
    Q("G-N-06", G(1000), D, 1e-3),
    Q("G-N-07", G(1000, 100), E, 1e-2),
    Q("G-N-08", G(2, 100), D, 10.0),
    Q("G-N-09", G(50, 10**4), D, 1000.0),
    Q("G-N-10", G(0.05, 10**6), D, 1000.0),
    Q("G-N-11", G(3, 1000), E, 1e-2),
    Q("G-N-12", G(1.1, 10**7), E, 1e-15),
    Q("G-N-13", G(20, 10), D, 1e-3),
    Q("G-N-14", G(0.8, 3), E, 1e-9),
    Q("G-N-15", G(1, 10**8), E, 1e-18),
    # ---- Gaussian, no sampling, replace-one ----
    Q("G-R-01", G(1), E, 1e-5, RO, quick=True),
    Q("G-R-02", G(2, 10**4), E, 1e-12, RO),
    Q("G-R-03", G(4, 100), D, 0.5, RO),
    Q("G-R-04", G(0.7, 10**8), E, 1e-6, RO),
    Q("G-R-05", G(100), D, 1e-3, RO),
    Q("G-R-06", G(10, 1000), E, 1e-2, RO),
    Q("G-R-07", G(1, 10**8), D, 1000.0, RO),
    # ---- Gaussian, Poisson sampling (add/remove) ----
    Q("G-P-01", G(1.1, 14063, q=ABADI_Q), E, 1e-5, quick=True, note="Abadi et al. MNIST"),
    Q("G-P-02", G(1.1, 14063, q=ABADI_Q), E, 1e-18, quick=True, note="issue 52: Abadi's MNIST at 1e-18"),
    Q("G-P-03", G(10, 10**6, q=1e-4), E, 1e-5, quick=True, note="issue 52: truth about 0.02729"),
    Q("G-P-04", G(1, 10**7, q=1e-6), E, 1e-5, quick=True, note="issue 52"),
    Q("G-P-05", G(0.5, 10**4, q=0.01), E, 1e-5, quick=True, note="issue 52: eps about 43"),
    Q("G-P-06", G(1, 50, q=0.5), E, 1e-10, quick=True,
      note="issue 52 (q 0.5, 50 steps, delta 1e-10; sigma 1 assumed, the issue names none)"),
    Q("G-P-07", G(1, 10**8, q=1e-7), E, 1e-5, quick=True),
    Q("G-P-08", G(1, 10**6, q=1e-3), E, 1e-5),
    Q("G-P-09", G(0.8, 1, q=0.01), E, 1e-5),
    Q("G-P-10", G(2, 1, q=0.1), D, 0.1),
    Q("G-P-11", G(1, 100, q=1.0), E, 1e-6),
    Q("G-P-12", G(5, 1, q=0.5), E, 1e-18),
    Q("G-P-13", G(1, 1000, q=0.01), D, 1.0),
    Q("G-P-14", G(2, 10**5, q=1e-3), D, 0.5),
    Q("G-P-15", G(1, 10**8, q=1e-5), D, 0.1),
    Q("G-P-16", G(0.7, 1000, q=0.05), E, 1e-9),
    Q("G-P-17", G(3, 10**4, q=0.2), E, 1e-2),
    Q("G-P-18", G(1.5, 10**5, q=0.02), E, 1e-12),
    Q("G-P-19", G(1, 10**4, q=1e-4), D, 1e-3),
    Q("G-P-20", G(0.6, 3, q=0.1), D, 5.0),
    Q("G-P-21", G(1, 10**4, q=0.004), D, 100.0),
    Q("G-P-22", G(0.3, 100, q=0.5), D, 1000.0),
    Q("G-P-23", G(1, 1000, q=1e-3), E, 1e-15),
    Q("G-P-24", G(4, 10**7, q=0.01), E, 1e-6),
    Q("G-P-25", G(1, 1, q=1.0), E, 1e-2),
    Q("G-P-26", G(0.9, 10**6, q=0.5), E, 1e-2),
    # ---- Gaussian, sampling without replacement (replace-one) ----
    Q("G-W-01", G(2, 900, b=64, N=1438), E, 1e-5, RO, quick=True, note="issue 52"),
    Q("G-W-02", G(1, 10**8, b=1, N=10**7), E, 1e-5, RO),
    Q("G-W-03", G(1, 14063, b=256, N=60000), E, 1e-5, RO),
    Q("G-W-04", G(1.5, 100, b=100, N=100), E, 1e-6, RO),
    Q("G-W-05", G(0.8, 1, b=1, N=100), D, 1.0, RO),
    Q("G-W-06", G(5, 1000, b=500, N=1000), E, 1e-12, RO),
    Q("G-W-07", G(2, 10**6, b=10, N=10**6), E, 1e-9, RO),
    Q("G-W-08", G(1, 10**4, b=32, N=10000), D, 2.0, RO),
    Q("G-W-09", G(10, 10, b=1, N=10**4), D, 1e-3, RO),
    Q("G-W-10", G(1, 1000, b=1000, N=10000), E, 1e-18, RO),
    Q("G-W-11", G(3, 10**5, b=50, N=5000), E, 1e-2, RO),
    Q("G-W-12", G(0.9, 10**7, b=1, N=10**6), D, 0.5, RO),
    # ---- Laplace, no sampling, add/remove ----
    Q("L-N-01", L(1), E, 1e-5, quick=True),
    Q("L-N-02", L(1), D, 0.5),
    Q("L-N-03", L(0.01), D, 10.0),
    Q("L-N-04", L(1 / 1500), D, 1000.0),
    Q("L-N-05", L(10), E, 1e-18),
    Q("L-N-06", L(2), D, 1e-3),
    Q("L-N-07", L(1, 10), E, 1e-5),
    Q("L-N-08", L(10, 10**4), E, 1e-10),
    Q("L-N-09", L(100, 10**6), E, 1e-6),
    Q("L-N-10", L(1, 10**8), E, 1e-5),
    Q("L-N-11", L(5, 100), D, 1.0),
    Q("L-N-12", L(0.5, 3), D, 0.01),
    Q("L-N-13", L(50, 10**5), D, 0.1),
    Q("L-N-14", L(1000, 10**7), E, 1e-9),
    # ---- Laplace, no sampling, replace-one ----
    Q("L-R-01", L(1), E, 1e-6, RO),
    Q("L-R-02", L(3, 1000), E, 1e-5, RO),
    Q("L-R-03", L(0.5), D, 0.2, RO),
    Q("L-R-04", L(20, 10**5), E, 1e-12, RO),
    Q("L-R-05", L(2, 10), D, 2.0, RO),
    # ---- Laplace, Poisson sampling ----
    Q("L-P-01", L(2, 1000, q=0.01), E, 1e-6, quick=True, note="issue 52",
      issue_truth=(0.6138530, 0.6138534)),
    Q("L-P-02", L(1, 1, q=0.1), E, 1e-5),
    Q("L-P-03", L(0.5, 1, q=0.5), D, 0.5),
    Q("L-P-04", L(1, 10**8, q=1e-7), E, 1e-5),
    Q("L-P-05", L(2, 10**5, q=1e-3), E, 1e-9),
    Q("L-P-06", L(1, 10**4, q=0.01), D, 1.0),
    Q("L-P-07", L(5, 1000, q=0.2), E, 1e-12),
    Q("L-P-08", L(1, 10, q=1.0), E, 1e-5),
    Q("L-P-09", L(0.2, 10**6, q=1e-4), E, 1e-6),
    Q("L-P-10", L(3, 1, q=0.05), E, 1e-18),
    Q("L-P-11", L(1, 10**7, q=1e-5), D, 0.1),
    Q("L-P-12", L(0.1, 100, q=0.01), D, 10.0),
    Q("L-P-13", L(10, 10**4, q=0.5), E, 1e-3),
    Q("L-P-14", L(1, 2, q=0.3), D, 1e-3),
    Q("L-P-15", L(1, 10**8, q=1e-3), E, 1e-3),
    # ---- Laplace, sampling without replacement ----
    Q("L-W-01", L(1, 900, b=64, N=1438), E, 1e-5, RO, quick=True),
    Q("L-W-02", L(2, 10**8, b=1, N=10**7), E, 1e-5, RO),
    Q("L-W-03", L(1, 1, b=10, N=10), E, 1e-6, RO),
    Q("L-W-04", L(0.5, 10**4, b=100, N=10000), D, 1.0, RO),
    Q("L-W-05", L(5, 1000, b=1, N=1000), E, 1e-12, RO),
    Q("L-W-06", L(1, 10, b=500, N=1000), D, 0.1, RO),
    Q("L-W-07", L(3, 10**5, b=1000, N=10**5), E, 1e-9, RO),
    Q("L-W-08", L(1, 1, b=1, N=100), D, 1e-2, RO),
    # ---- discrete Gaussian, no sampling, add/remove ----
    Q("DG-N-01", DG(1), E, 1e-5, quick=True),
    Q("DG-N-02", DG(3, 3), E, 1e-5),
    Q("DG-N-03", DG(10, 2), D, 0.1),
    Q("DG-N-04", DG(0.5), D, 1.0),
    Q("DG-N-05", DG(2, 3, s=2), E, 1e-12),
    Q("DG-N-06", DG(5, 10**4), E, 1e-6),
    Q("DG-N-07", DG(100, 10**8), E, 1e-5),
    Q("DG-N-08", DG(20, 10**6, s=3), E, 1e-9),
    Q("DG-N-09", DG(1, 100), D, 10.0),
    Q("DG-N-10", DG(3), E, 1e-18),
    Q("DG-N-11", DG(50, 10**5), D, 1e-3),
    Q("DG-N-12", DG(0.3, 10), D, 1000.0),
    # ---- discrete Gaussian, no sampling, replace-one ----
    Q("DG-R-01", DG(2, 1, s=2), E, 1e-6, RO),
    Q("DG-R-02", DG(10, 1000), E, 1e-5, RO),
    Q("DG-R-03", DG(1, 2, s=2), D, 0.5, RO),
    Q("DG-R-04", DG(30, 10**7, s=2), E, 1e-10, RO),
    # ---- discrete Gaussian, Poisson sampling ----
    Q("DG-P-01", DG(1, 1, q=0.1), E, 1e-5, quick=True),
    Q("DG-P-02", DG(2, 3, q=0.01), E, 1e-9),
    Q("DG-P-03", DG(3, 10**5, q=0.01), E, 1e-5),
    Q("DG-P-04", DG(1, 2, q=0.5), D, 0.5),
    Q("DG-P-05", DG(10, 10**6, q=1e-3), E, 1e-6),
    Q("DG-P-06", DG(1, 10**8, q=1e-7), E, 1e-5),
    Q("DG-P-07", DG(5, 10**4, q=1e-4), D, 0.01),
    Q("DG-P-08", DG(0.8, 3, q=0.3), D, 1.0),
    Q("DG-P-09", DG(2, 2, q=1.0), E, 1e-12),
    Q("DG-P-10", DG(20, 1000, s=5, q=0.05), E, 1e-3),
    Q("DG-P-11", DG(1, 10**4, q=0.02), E, 1e-18),
    Q("DG-P-12", DG(4, 1, q=0.2), D, 1e-3),
    Q("DG-P-13", DG(1, 3, q=0.05), E, 1e-6),
    # ---- discrete Gaussian, sampling without replacement ----
    Q("DG-W-01", DG(2, 900, s=2, b=64, N=1438), E, 1e-5, RO, quick=True),
    Q("DG-W-02", DG(5, 10**6, b=1, N=10**6), E, 1e-9, RO),
    Q("DG-W-03", DG(1, 2, s=2, b=10, N=10), D, 0.5, RO),
    Q("DG-W-04", DG(10, 10**4, b=100, N=10000), E, 1e-2, RO),
    Q("DG-W-05", DG(1, 1, b=1, N=100), D, 1e-2, RO),
    Q("DG-W-06", DG(3, 10**8, b=1, N=10**7), E, 1e-6, RO),
    # ---- discrete Laplace, no sampling, add/remove ----
    Q("DL-N-01", DL(1), E, 1e-5, quick=True),
    Q("DL-N-02", DL(10, 100), E, 1e-5),
    Q("DL-N-03", DL(100, 10**6), E, 1e-6),
    Q("DL-N-04", DL(1000, 10**8), E, 1e-5),
    Q("DL-N-05", DL(3, 5, s=2), D, 0.5),
    Q("DL-N-06", DL(0.5), D, 1.0),
    Q("DL-N-07", DL(2, 10), E, 1e-18),
    Q("DL-N-08", DL(20, 10**4), D, 0.1),
    Q("DL-N-09", DL(0.0005), D, 1000.0),
    Q("DL-N-10", DL(5, 1000), E, 1e-12),
    Q("DL-N-11", DL(50, 10**5, s=3), E, 1e-9),
    Q("DL-N-12", DL(1, 3), D, 1e-3),
    # ---- discrete Laplace, no sampling, replace-one ----
    Q("DL-R-01", DL(2, 1, s=2), E, 1e-6, RO),
    Q("DL-R-02", DL(10, 1000), E, 1e-5, RO),
    Q("DL-R-03", DL(1, 2), D, 0.5, RO),
    Q("DL-R-04", DL(30, 10**7, s=2), E, 1e-10, RO),
    # ---- discrete Laplace, Poisson sampling ----
    Q("DL-P-01", DL(1, 1, q=0.1), E, 1e-5, quick=True),
    Q("DL-P-02", DL(2, 1000, q=0.01), E, 1e-6),
    Q("DL-P-03", DL(10, 10**6, q=1e-3), E, 1e-5),
    Q("DL-P-04", DL(1, 10**8, q=1e-7), E, 1e-5),
    Q("DL-P-05", DL(0.5, 3, q=0.5), D, 1.0),
    Q("DL-P-06", DL(5, 10**4, q=1e-4), D, 1e-3),
    Q("DL-P-07", DL(1, 100, q=1.0), E, 1e-12),
    Q("DL-P-08", DL(3, 2, s=2, q=0.05), E, 1e-9),
    Q("DL-P-09", DL(1, 10**4, q=0.02), E, 1e-18),
    Q("DL-P-10", DL(100, 10**5, q=0.2), D, 0.01),
    Q("DL-P-11", DL(0.2, 100, q=0.01), D, 10.0),
    Q("DL-P-12", DL(2, 10**7, q=1e-5), E, 1e-9),
    Q("DL-P-13", DL(1, 10**8, q=1e-3), D, 0.01),
    # ---- discrete Laplace, sampling without replacement ----
    Q("DL-W-01", DL(1, 900, b=64, N=1438), E, 1e-5, RO, quick=True),
    Q("DL-W-02", DL(5, 10**6, b=1, N=10**6), E, 1e-9, RO),
    Q("DL-W-03", DL(1, 3, b=10, N=10), D, 0.5, RO),
    Q("DL-W-04", DL(10, 10**4, b=100, N=10000), E, 1e-2, RO),
    Q("DL-W-05", DL(2, 1, b=1, N=100), D, 1e-2, RO),
    Q("DL-W-06", DL(3, 10**8, b=1, N=10**7), E, 1e-6, RO),
    # ---- tables, no sampling, add/remove ----
    Q("T-N-01", T("T1"), E, 1e-5, quick=True),
    Q("T-N-02", T("T1", 2), D, 1.0),
    Q("T-N-03", T("T1", 1000), E, 1e-6),
    Q("T-N-04", T("T1", 10**6), E, 1e-10),
    Q("T-N-05", T("T2"), E, 1e-15, quick=True, note="truth infinite: distinguishing mass ~1e-9"),
    Q("T-N-06", T("T2"), E, 1e-6),
    Q("T-N-07", T("T2", 1000), E, 1e-5, note="distinguishing mass ~1e-6 < delta: truth finite"),
    Q("T-N-08", T("T3"), E, 1e-15, note="truth infinite"),
    Q("T-N-09", T("T3"), E, 1e-6, quick=True),
    Q("T-N-10", T("T3", 1000), E, 1e-5),
    Q("T-N-11", T("T4", 10), D, 0.1),
    Q("T-N-12", T("T1", 10**8), E, 1e-5),
    Q("T-N-13", T("T4"), E, 1e-18),
    # ---- tables, no sampling, replace-one ----
    Q("T-R-01", T("T1"), E, 1e-9, RO),
    Q("T-R-02", T("T4", 100), E, 1e-5, RO),
    Q("T-R-03", T("T1", 2), D, 0.5, RO),
    # ---- tables, Poisson sampling ----
    Q("T-P-01", T("T1", 1, q=0.01), E, 1e-5, quick=True),
    Q("T-P-02", T("T1", 14063, q=ABADI_Q), E, 1e-5),
    Q("T-P-03", T("T1", 10**8, q=1e-7), E, 1e-5),
    Q("T-P-04", T("T2", 1000, q=0.01), E, 1e-15, note="truth infinite: distinguishing mass ~1e-8"),
    Q("T-P-05", T("T1", 1, q=0.5), D, 0.5),
    Q("T-P-06", T("T4", 10**5, q=1e-3), E, 1e-9),
    Q("T-P-07", T("T1", 100, q=0.1), D, 2.0),
    Q("T-P-08", T("T3", 1000, q=0.01), E, 1e-5),
    # ---- tables, sampling without replacement ----
    Q("T-W-01", T("T1", 900, b=64, N=1438), E, 1e-5, RO),
    Q("T-W-02", T("T1", 10**6, b=1, N=10**6), E, 1e-9, RO),
    Q("T-W-03", T("T1", 1, b=10, N=10), E, 1e-6, RO),
    Q("T-W-04", T("T4", 10**4, b=100, N=10000), D, 0.5, RO),
    Q("T-W-05", T("T2", 10, b=1, N=100), E, 1e-15, RO, note="truth infinite: distinguishing mass ~1e-10"),
    # ---- several events ----
    Q("MIX-01", [G(1.1, 7000, q=0.0042666667), G(2.0, 1000, q=0.01)], E, 1e-5, quick=True,
      note="the events-file example of src/cli/README.md"),
    Q("MIX-02", [G(2, 100), G(5, 10**4)], E, 1e-9),
    Q("MIX-03", [L(1, 10), DL(2, 10)], E, 1e-6),
]


def sampling_of(ev):
    if "batch_size" in ev:
        return "wor"
    if "sampling_rate" in ev:
        return "poisson"
    return "none"


def q_of(ev):
    s = sampling_of(ev)
    if s == "poisson":
        return ev["sampling_rate"]
    if s == "wor":
        return ev["batch_size"] / ev["dataset_size"]
    return 1.0


def describe_event(ev):
    m = ev["mechanism"]
    if m in ("gaussian", "laplace"):
        head = f"{m} m={ev['noise_multiplier']:.6g}"
    elif m == "discrete_gaussian":
        head = f"discrete_gaussian sigma={ev['sigma']:g} s={ev['sensitivity']}"
    elif m == "discrete_laplace":
        head = f"discrete_laplace scale={ev['scale']:g} s={ev['sensitivity']}"
    else:
        head = f"table {ev['table'].lstrip('@')} s={ev['sensitivity']:g}"
    s = sampling_of(ev)
    if s == "poisson":
        head += f", Poisson q={ev['sampling_rate']:.6g}"
    elif s == "wor":
        head += f", w/o repl. {ev['batch_size']}/{ev['dataset_size']}"
    return head + f", {ev['count']:g}x"


def describe(query):
    ev = "; ".join(describe_event(e) for e in query["events"])
    ask = (f"eps(delta={query['value']:g})" if query["kind"] == E else f"delta(eps={query['value']:g})")
    return f"{ev}; {query['relation']}; {ask}"


# --------------------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------------------

def make_table_arrays(spec):
    import numpy as np
    from scipy.stats import norm
    h, R, sigma = spec["step"], spec["half_range"], spec["sigma"]
    k = int(round(R / h))
    idx = np.arange(-k, k + 1)
    x = idx * h
    if spec["how"] == "naive":
        edges = np.arange(-k, k + 2) * h - h / 2
        p = np.diff(norm.cdf(edges / sigma))
    else:
        # the lower half's cells from the lower tail, mirrored
        lo_edges = (np.arange(-k, 1) * h - h / 2) / sigma
        hi_edges = (np.arange(-k, 1) * h + h / 2) / sigma
        half = norm.cdf(hi_edges) - norm.cdf(lo_edges)      # cells -k .. 0
        p = np.concatenate([half, half[-2::-1]])
    p = p / p.sum()
    return idx, x, p


def write_tables(workdir, nl):
    """Writes each table as workdir/NAME.csv (+ .json) with noiselearn, returns {name: path}."""
    paths = {}
    for name, spec in TABLES.items():
        idx, x, p = make_table_arrays(spec)
        path = os.path.join(workdir, f"{name}.csv")
        if nl is not None:
            nl.write_table(nl.NoiseTable(x=x, p=p), path, overwrite=True)
        else:  # a bare x,p CSV when noiselearn is not there
            with open(path, "w") as f:
                f.write("x,p\n")
                for xi, pi in zip(x, p):
                    f.write(f"{xi!r},{pi!r}\n")
        paths[name] = path
    return paths


def read_table_csv(path):
    import numpy as np
    arr = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return arr[:, 0], arr[:, 1]


# --------------------------------------------------------------------------------------------------------
# Independent references
# --------------------------------------------------------------------------------------------------------
# Each reference returns dict(lo=, hi=, source=) bracketing the truth (lo = hi = inf for an infinite
# truth), or None. Closed forms are evaluated with mpmath at 40 and 60 digits (bracket: 10 x their
# difference + 1e-35 relative); enumerations sum positive terms in mpmath (30 digits, binomial) or in
# float64 with a stated error bound (convolutions, tuple enumerations).

REF_MAX_TERMS_DELTA = 400000   # binomial terms one delta(eps) evaluation may sum
REF_MAX_TERMS_EPS = 20000      # per evaluation inside an epsilon bisection
REF_MAX_TUPLES = 10 ** 7       # outcomes of an n-fold tuple enumeration


class RefTooCostly(Exception):
    pass


def _mp():
    import mpmath
    return mpmath


def mp_two_precisions(f):
    """f() evaluated at 40 and 60 digits; returns (value, error bound) as mpf at 60 digits."""
    mp = _mp()
    with mp.workdps(40):
        a = f()
    with mp.workdps(60):
        b = f()
        err = 10 * abs(b - mp.mpf(a)) + abs(b) * mp.mpf("1e-35")
        return b, err


def invert_delta(fdelta, target, rel=1e-13):
    """epsilon(target) = inf{eps >= 0 : delta(eps) <= target} from fdelta(eps) -> (value, error bound).
    Returns (lo, hi) bracketing it, each end certified by the error bound; (inf, inf) when delta stays
    above the target up to eps = 1e15 (an infinite truth: the distinguishing mass exceeds the target)."""
    v, e = fdelta(0.0)
    if v + e <= target:
        return 0.0, 0.0
    lo, hi = 0.0, 1.0
    while True:
        v, e = fdelta(hi)
        if v + e < target:
            break
        if v - e > target:
            lo = hi
        if hi > 1e15:
            return (math.inf, math.inf) if v - e > target else (lo, math.inf)
        hi *= 2.0
    for _ in range(200):
        if hi - lo <= rel * hi:
            break
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        v, e = fdelta(mid)
        if v - e > target:
            lo = mid
        elif v + e < target:
            hi = mid
        else:
            break
    return lo, hi


# -- Gaussian (Balle and Wang 2018) --

def gauss_delta_mp(mu, eps):
    mp = _mp()

    def f():
        m = mp.mpf(mu) if not isinstance(mu, tuple) else mp.sqrt(sum(mp.mpf(c) / mp.mpf(z) ** 2 for c, z in mu))
        e = mp.mpf(eps)
        return mp.ncdf(-e / m + m / 2) - mp.exp(e) * mp.ncdf(-e / m - m / 2)
    return mp_two_precisions(f)


def ref_gaussian_unsampled(query):
    """n releases of multipliers m_i compose to one Gaussian, mu^2 = sum n_i / m_i^2 (either relation: the
    noise multiplier is relative to the relation's sensitivity)."""
    parts = tuple((ev["count"], ev["noise_multiplier"]) for ev in query["events"])
    src = "closed form (Balle and Wang 2018), mpmath"
    if query["kind"] == D:
        v, e = gauss_delta_mp(parts, query["value"])
        return dict(lo=float(v - e), hi=float(v + e), source=src)

    def fd(eps):
        v, e = gauss_delta_mp(parts, eps)
        return float(v), float(e) + 1e-300
    lo, hi = invert_delta(fd, query["value"])
    return dict(lo=lo, hi=hi, source=src + ", bisection")


def gauss_poisson1_delta(sigma, q, eps):
    """One Poisson-sampled Gaussian release, add/remove: max of remove ((1-q)N(0)+qN(1) || N(0)) and add
    (N(0) || (1-q)N(0)+qN(1)); each a half-line event since the loss is monotone in x."""
    mp = _mp()

    def f():
        s, qq, e = mp.mpf(sigma), mp.mpf(q), mp.mpf(eps)
        ee = mp.exp(e)
        # remove: loss ln(1 - q + q e^{(2x-1)/(2 s^2)}) > eps  <=>  x > x1
        R = (ee - 1 + qq) / qq
        x1 = s ** 2 * mp.log(R) + mp.mpf(1) / 2
        rem = (1 - qq) * mp.ncdf(-x1 / s) + qq * mp.ncdf(-(x1 - 1) / s) - ee * mp.ncdf(-x1 / s)
        # add: -ln(1 - q + q e^{...}) > eps  <=>  e^{...} < R2
        R2 = (mp.exp(-e) - 1 + qq) / qq
        if R2 <= 0:
            add = mp.mpf(0)
        else:
            x2 = s ** 2 * mp.log(R2) + mp.mpf(1) / 2
            add = mp.ncdf(x2 / s) - ee * ((1 - qq) * mp.ncdf(x2 / s) + qq * mp.ncdf((x2 - 1) / s))
        return max(rem, add, mp.mpf(0))
    return mp_two_precisions(f)


def laplace_poisson1_delta(b, q, eps):
    """One release of Laplace noise of scale b (sensitivity 1), Poisson-sampled at q (q = 1: unsampled)."""
    mp = _mp()

    def cdf(x, c, bb):
        return mp.exp((x - c) / bb) / 2 if x < c else 1 - mp.exp(-(x - c) / bb) / 2

    def sf(x, c, bb):
        return 1 - mp.exp((x - c) / bb) / 2 if x < c else mp.exp(-(x - c) / bb) / 2

    def f():
        bb, qq, e = mp.mpf(b), mp.mpf(q), mp.mpf(eps)
        a = 1 / bb
        ee = mp.exp(e)
        # ratio r(x) = P/Q = e^{(2x-1)/b} on [0,1], e^{-a} below, e^{a} above; remove loss ln(1-q+q r)
        R = (ee - 1 + qq) / qq
        if R >= mp.exp(a):
            rem = mp.mpf(0)
        else:
            x1 = (bb * mp.log(R) + 1) / 2 if R > mp.exp(-a) else mp.mpf(-mp.inf)
            if x1 == -mp.inf:
                rem = 1 - ee
            else:
                rem = (1 - qq) * sf(x1, 0, bb) + qq * sf(x1, 1, bb) - ee * sf(x1, 0, bb)
        R2 = (mp.exp(-e) - 1 + qq) / qq
        if R2 <= mp.exp(-a):
            add = mp.mpf(0)
        else:
            x2 = (bb * mp.log(R2) + 1) / 2 if R2 < mp.exp(a) else mp.mpf(mp.inf)
            if x2 == mp.inf:
                add = 1 - ee
            else:
                add = cdf(x2, 0, bb) - ee * ((1 - qq) * cdf(x2, 0, bb) + qq * cdf(x2, 1, bb))
        return max(rem, add, mp.mpf(0))
    return mp_two_precisions(f)


def laplace1_closed(b, eps):
    """One unsampled Laplace release, sensitivity 1, scale b: delta(eps) = max(0, 1 - e^{(eps - 1/b)/2})."""
    mp = _mp()

    def f():
        a = 1 / mp.mpf(b)
        e = mp.mpf(eps)
        return max(mp.mpf(0), 1 - mp.exp((e - a) / 2))
    return mp_two_precisions(f)


def ref_continuous_one(query):
    ev = query["events"][0]
    m = ev["mechanism"]
    q = q_of(ev)
    if m == "gaussian":
        fdm = (lambda eps: gauss_poisson1_delta(ev["noise_multiplier"], q, eps))
        src = "closed form, one Poisson-sampled Gaussian release (half-line events), mpmath"
    elif q == 1.0:
        fdm = (lambda eps: laplace1_closed(ev["noise_multiplier"], eps))
        src = "closed form 1 - e^{(eps - 1/b)/2}, one Laplace release, mpmath"
    else:
        fdm = (lambda eps: laplace_poisson1_delta(ev["noise_multiplier"], q, eps))
        src = "closed form, one Poisson-sampled Laplace release (half-line events), mpmath"
    if query["kind"] == D:
        v, e = fdm(query["value"])
        return dict(lo=max(0.0, float(v - e)), hi=float(v + e), source=src)

    def fd(eps):
        v, e = fdm(eps)
        return float(v), float(e) + 1e-300
    lo, hi = invert_delta(fd, query["value"])
    return dict(lo=lo, hi=hi, source=src + ", bisection")


# -- two-atom privacy loss: binomial composition (discrete Laplace, sensitivity 1) --

def binomial_delta(n, u1, u2, l1, l2, eps, max_terms):
    """delta(eps) of n releases whose loss is l1 with probability u1 and l2 < l1 with probability u2 = 1 - u1
    (under the first measure; both given, as either may be below 1e-30): sum_k C(n,k) u1^k u2^(n-k)
    (1 - e^{eps - k l1 - (n-k) l2})_+, in mpmath (30 digits), all terms positive; the neglected terms
    bounded geometrically. Returns (value, err) as mpf."""
    mp = _mp()
    with mp.workdps(30):
        n = int(n)
        u1, u2, l1, l2, e = mp.mpf(u1), mp.mpf(u2), mp.mpf(l1), mp.mpf(l2), mp.mpf(eps)
        kc = (e - n * l2) / (l1 - l2)
        k0 = max(0, int(mp.floor(kc)) + 1)
        if k0 > n:
            return mp.mpf(0), mp.mpf(0)
        mode = min(n, max(0, int(mp.floor((n + 1) * u1))))
        ks = max(k0, mode)
        sd = math.sqrt(n * float(u1) * float(u2)) + 1
        est = 30 * sd + (ks - k0)
        if est > max_terms:
            raise RefTooCostly(f"enumeration too long: about {est:.0f} binomial terms")
        odds = u1 / u2
        logpmf = (mp.loggamma(n + 1) - mp.loggamma(ks + 1) - mp.loggamma(n - ks + 1)
                  + ks * mp.log(u1) + (n - ks) * mp.log(u2))
        pmf_s = mp.exp(logpmf)
        total = mp.mpf(0)
        tail = mp.mpf(0)
        tiny = mp.mpf("1e-40")

        def fac(k):
            return -mp.expm1(e - (k * l1 + (n - k) * l2))
        # upwards from ks
        k, pmf = ks, pmf_s
        while True:
            total += pmf * fac(k)
            if k == n:
                break
            r = (n - k) * odds / (k + 1)
            pmf = pmf * r
            k += 1
            if k > mode and r < 1:
                bound = pmf / (1 - r)  # all remaining terms (pmf decreasing geometrically, factor <= 1)
                if bound <= tiny * total or pmf == 0:
                    tail += bound
                    break
        # downwards from ks - 1 to k0
        k, pmf = ks, pmf_s
        while k > k0:
            r = k / ((n - k + 1) * odds)  # pmf_{k-1} / pmf_k
            pmf = pmf * r
            k -= 1
            total += pmf * fac(k)
            if r < 1:
                bound = pmf * r / (1 - r)
                if bound <= tiny * total or pmf == 0:
                    tail += bound
                    break
        return total, tail + total * mp.mpf("1e-25")


def dl_atoms(ev):
    """The two-atom directions of a sensitivity-1 discrete Laplace release: list of (u1, u2, l1, l2)."""
    mp = _mp()
    with mp.workdps(40):
        a = 1 / mp.mpf(ev["scale"])
        r = mp.exp(-a)
        q = mp.mpf(q_of(ev))
        if q == 1:
            return [(1 / (1 + r), r / (1 + r), a, -a)]
        hi = mp.log1p(q * mp.expm1(a))       # ln(1 - q + q e^a)
        lo = mp.log1p(q * mp.expm1(-a))      # ln(1 - q + q e^-a)
        # remove: A(x >= 1) = ((1 - q) r + q) / (1 + r); add: Q(x <= 0) = 1 / (1 + r)
        return [(((1 - q) * r + q) / (1 + r), (1 - q + q * r) / (1 + r), hi, lo),
                (1 / (1 + r), r / (1 + r), -lo, -hi)]


def ref_dl_binomial(query):
    ev = query["events"][0]
    dirs = dl_atoms(ev)
    n = ev["count"]
    src = "exact binomial enumeration of the two-atom loss, mpmath"

    def fd_mp(eps, max_terms):
        vals = [binomial_delta(n, u1, u2, l1, l2, eps, max_terms) for (u1, u2, l1, l2) in dirs]
        v = max(x[0] for x in vals)
        e = max(x[1] for x in vals)
        return v, e
    if query["kind"] == D:
        v, e = fd_mp(query["value"], REF_MAX_TERMS_DELTA)
        return dict(lo=max(0.0, float(v - e)), hi=float(v + e), source=src)

    def fd(eps):
        v, e = fd_mp(eps, REF_MAX_TERMS_EPS)
        return float(v), float(e) + 1e-300
    lo, hi = invert_delta(fd, query["value"])
    return dict(lo=lo, hi=hi, source=src + ", bisection")


# -- float64 enumerations (discrete Gaussian, discrete Laplace of sensitivity > 1, tables) --

U64 = 2.0 ** -53


def hockey_logs(lU, lV, eps, ops):
    """sum over outcomes of U (1 - e^{eps - (lU - lV)})_+ from the logs of U and V (lV may be -inf), and an
    error bound: each log carries up to `ops` roundings of relative size u (and so does each U)."""
    import numpy as np
    with np.errstate(invalid="ignore", over="ignore"):
        x = eps + lV - lU
        dx = (ops + 4) * U64 * (1.0 + abs(eps) + np.abs(lU) + np.where(np.isfinite(lV), np.abs(lV), 0.0))
        inc = x < 0
        U = np.exp(lU)
        fac = -np.expm1(x[inc])
        val = float(np.sum(U[inc] * fac))
        near = x < dx
        err = float(np.sum(U[near] * np.minimum(1.0, dx[near]))) + val * (ops + 4) * U64
    return val, err + 1e-300


def dg_pmf(sigma, K):
    """The discrete Gaussian's pmf on -K..K (mpmath-normalised; the mass beyond is below 1e-300)."""
    import numpy as np
    mp = _mp()
    with mp.workdps(30):
        s2 = 2 * mp.mpf(sigma) ** 2
        w = [mp.exp(-mp.mpf(x) ** 2 / s2) for x in range(-K, K + 1)]
        Z = mp.fsum(w)
        return np.array([float(v / Z) for v in w])


def dl_masses(scale, s):
    """Exact outcome classes of a discrete Laplace release against its shift by s: x <= 0, x = 1..s-1,
    x >= s (the likelihood ratio is constant on the two tails). Returns (V, P) masses (float64)."""
    import numpy as np
    mp = _mp()
    with mp.workdps(40):
        r = mp.exp(-1 / mp.mpf(scale))
        c = (1 - r) / (1 + r)
        V = [1 / (1 + r)] + [c * r ** x for x in range(1, s)] + [r ** s / (1 + r)]
        P = [r ** s / (1 + r)] + [c * r ** (s - x) for x in range(1, s)] + [1 / (1 + r)]
        return np.array([float(v) for v in V]), np.array([float(v) for v in P])


def single_release_pairs(ev, tables_arrays):
    """The single release's worst pairs as (U, V) arrays on one outcome axis, per direction, and whether the
    loss is affine in the outcome (then n-fold sums suffice). For symmetric, log-concave noise (all of these)
    the shift by the sensitivity is the worst difference, and dominates every adaptive sequence of them."""
    import numpy as np
    m = ev["mechanism"]
    q = q_of(ev)
    if m == "discrete_laplace":
        V, P = dl_masses(ev["scale"], int(ev["sensitivity"]))
        affine = False
    else:
        if m == "discrete_gaussian":
            s = int(ev["sensitivity"])
            K = int(math.ceil(40 * ev["sigma"])) + 2 * s + 5
            base = dg_pmf(ev["sigma"], K)
            shift = s
            affine = q == 1.0
        else:  # table
            name = ev["table"].lstrip("@")
            idx, x, p = tables_arrays[name]
            h = TABLES[name]["step"]
            shift = int(round(ev["sensitivity"] / h))
            base = p
            affine = False
        V = np.concatenate([np.zeros(shift), base, np.zeros(shift)])
        P = np.concatenate([np.zeros(2 * shift), base])  # shifted up by `shift`
    if q == 1.0:
        return [(P, V)], affine
    A = (1 - q) * V + q * P
    return [(A, V), (V, A)], affine


def table_all_shift_pairs(name, tables_arrays, q):
    """One release of a table, every difference d in [-s, s] (grid steps) and both directions."""
    import numpy as np
    idx, x, p = tables_arrays[name]
    h = TABLES[name]["step"]
    s = int(round(1.0 / h))
    pairs = []
    for d in range(-s, s + 1):
        if d == 0:
            continue
        V = np.concatenate([np.zeros(s), p, np.zeros(s)])
        P = np.concatenate([np.zeros(s + d), p, np.zeros(s - d)])
        A = (1 - q) * V + q * P
        pairs.append((A, V))
        pairs.append((V, A))
    return pairs


def enum_delta_fn(pairs, n, affine):
    """Returns delta(eps) -> (value, err) of n non-adaptive releases of the worst of `pairs`."""
    import numpy as np
    comps = []
    for U, V in pairs:
        keep = (U > 0) | (V > 0)
        U, V = U[keep], V[keep]
        m = len(U)
        if affine:
            if (m * n) ** 2 > 2e9:
                raise RefTooCostly(f"enumeration too long: {n}-fold convolution of {m} outcomes")
            Un, Vn = U, V
            for _ in range(n - 1):
                Un, Vn = np.convolve(Un, U), np.convolve(Vn, V)
            pos = Un > 0
            with np.errstate(divide="ignore"):
                lU, lV = np.log(Un[pos]), np.log(Vn[pos])
            ops = n * m + 4
        else:
            if n * math.log(max(m, 1)) > math.log(REF_MAX_TUPLES):
                raise RefTooCostly(f"enumeration too long: {m}^{n} outcomes")
            pos = U > 0
            with np.errstate(divide="ignore"):
                lU1, lV1 = np.log(U[pos]), np.log(V[pos])
            lU, lV = lU1, lV1
            for _ in range(n - 1):
                lU = (lU[:, None] + lU1[None, :]).ravel()
                lV = (lV[:, None] + lV1[None, :]).ravel()
            ops = 2 * n + 4
        comps.append((lU, lV, ops))

    inf_mass = 0.0
    for lU, lV, ops in comps:
        inf_mass = max(inf_mass, float(np.sum(np.exp(lU[np.isneginf(lV)]))) * (1 - (ops + 4) * U64))

    def fd(eps):
        best_v, best_e = 0.0, 0.0
        for lU, lV, ops in comps:
            v, e = hockey_logs(lU, lV, eps, ops)
            if v > best_v:
                best_v, best_e = v, max(best_e, e)
            else:
                best_e = max(best_e, e)
        return best_v, best_e
    fd.inf_mass = inf_mass  # a lower bound on the distinguishing events' mass after n releases
    return fd


def ref_enumeration(query, tables_arrays):
    ev = query["events"][0]
    n = ev["count"]
    if ev["mechanism"] == "table" and TABLES[ev["table"].lstrip("@")]["how"] == "naive":
        if n != 1:
            raise RefTooCostly("a table symmetric only up to rounding, several releases: its adaptive worst "
                               "case is not one pair")
        fd = enum_delta_fn(table_all_shift_pairs(ev["table"].lstrip("@"), tables_arrays, q_of(ev)), 1, False)
        src = "exact enumeration, one release, every difference in [-s, s] and both directions (float64, bounded)"
    else:
        pairs, affine = single_release_pairs(ev, tables_arrays)
        fd = enum_delta_fn(pairs, n, affine)
        src = ("exact enumeration of the n-fold " + ("sum (convolution)" if affine else "outcome tuples")
               + " of the worst pair (float64, bounded)")
    if query["kind"] == D:
        v, e = fd(query["value"])
        return dict(lo=max(0.0, v - e), hi=v + e, source=src)
    if fd.inf_mass > query["value"]:
        return dict(lo=math.inf, hi=math.inf,
                    source=src + f"; distinguishing mass >= {fd.inf_mass:.3g} > delta: infinite")
    lo, hi = invert_delta(fd, query["value"], rel=1e-12)
    return dict(lo=lo, hi=hi, source=src + ", bisection")


def distinguishing_mass(query, tables_arrays):
    """Bounds (lower, upper) on the probability of the distinguishing events (outcomes only one neighbour can
    produce) after the releases: positive only for tables, whose support is finite. One release of a table
    shifted by s (s/h grid steps) puts the mass of its top s/h cells beyond the other's support (its bottom
    ones for -s), times q when the record is in the batch with probability q (Poisson, or b/N without
    replacement: the replaced record contributes its value or the other's). Lower: every release shifted by
    +s (1 - (1 - q m_top)^n); upper: a union bound over any adaptive sequence (n q max(m_top, m_bottom)).
    For an epsilon(delta) query the truth is infinite when the lower exceeds delta, finite when the upper is
    below it (the finite losses are bounded)."""
    lo_p, hi = 0.0, 0.0
    for ev in query["events"]:
        if ev["mechanism"] != "table":
            continue
        name = ev["table"].lstrip("@")
        _, _, p = tables_arrays[name]
        k = int(round(ev["sensitivity"] / TABLES[name]["step"]))
        m_top, m_bottom = float(p[-k:].sum()), float(p[:k].sum())
        q, n = q_of(ev), ev["count"]
        lo_p += n * math.log1p(-q * m_top)
        hi += n * q * max(m_top, m_bottom)
    return -math.expm1(lo_p) * (1 - 1e-12), min(1.0, hi * (1 + 1e-12))


def compute_reference(query, tables_arrays):
    """The independent reference of a query, or None (with the reason) where none applies."""
    ref, why = _compute_reference(query, tables_arrays)
    if query["kind"] == E and any(e["mechanism"] == "table" for e in query["events"]):
        dlo, dhi = distinguishing_mass(query, tables_arrays)
        if dlo > query["value"]:
            if ref is not None and math.isfinite(ref["lo"]):
                raise AssertionError(f"{query['id']}: a finite reference where the truth is infinite")
            if ref is None:
                ref = dict(lo=math.inf, hi=math.inf,
                           source=f"distinguishing events: their probability >= {dlo:.3g} > delta: infinite")
        elif ref is None and dhi < query["value"]:
            why += f"; truth finite: distinguishing events' probability <= {dhi:.3g} < delta"
    return ref, why


def _compute_reference(query, tables_arrays):
    evs = query["events"]
    if query["issue_truth"] is not None:
        lo, hi = query["issue_truth"]
        return dict(lo=lo, hi=hi, source="issue 52's stated truth"), None
    if any(sampling_of(e) == "wor" and q_of(e) < 1.0 for e in evs):
        return None, "no reference (sampling without replacement)"
    if all(e["mechanism"] == "gaussian" and q_of(e) == 1.0 for e in evs):
        return ref_gaussian_unsampled(query), None
    if len(evs) != 1:
        return None, "no reference (several events)"
    ev = evs[0]
    m, n = ev["mechanism"], ev["count"]
    try:
        if m in ("gaussian", "laplace"):
            if n == 1:
                return ref_continuous_one(query), None
            return None, "no reference (continuous, several sampled releases)"
        if m == "discrete_laplace" and int(ev["sensitivity"]) == 1:
            return ref_dl_binomial(query), None
        if m in ("discrete_gaussian", "discrete_laplace", "table"):
            return ref_enumeration(query, tables_arrays), None
    except RefTooCostly as e:
        return None, f"no reference ({e})"
    return None, "no reference"


# --------------------------------------------------------------------------------------------------------
# Children: one accounting run each
# --------------------------------------------------------------------------------------------------------

def child_main():
    job = json.loads(sys.stdin.read())
    out = dict(ok=False)
    try:
        if job["accountant"] == "noiselearn":
            fn = child_noiselearn(job)
        elif job["accountant"] == "dp_accounting":
            fn = child_dp_accounting(job)
        else:
            fn = child_prv(job)
        best = math.inf
        best_cpu = math.inf
        res = None
        for _ in range(max(1, job["repeats"])):
            t0, c0 = time.perf_counter(), time.process_time()
            res = fn()
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            if dt < best:
                best, best_cpu = dt, dc
        out.update(res)
        out.update(ok=True, seconds=best, cpu_seconds=best_cpu)
    except BaseException as e:  # noqa: BLE001  (the exception is the result)
        out.update(ok=False, error=f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300])
    sys.stdout.write("\n@@RESULT " + json.dumps(out) + "\n")
    sys.stdout.flush()


def resolve_events(events, table_paths):
    out = []
    for ev in events:
        ev = dict(ev)
        if ev["mechanism"] == "table":
            ev["table"] = table_paths[ev["table"].lstrip("@")]
        out.append(ev)
    return out


def child_noiselearn(job):
    sys.path.insert(0, job["noiselearn"])
    import noiselearn as nl
    nl.set_threads(1)
    events = resolve_events(job["query"]["events"], job["tables"])
    rel, kind, val = job["query"]["relation"], job["query"]["kind"], job["query"]["value"]

    def run():
        b = nl.account_events(events, relation=rel)
        lo, hi = b.epsilon(val) if kind == E else b.delta(val)
        return dict(lo=float(lo), hi=float(hi))
    return run


def child_dp_accounting(job):
    sys.path.insert(0, job["path"])
    from dp_accounting import privacy_accountant
    from dp_accounting.pld import privacy_loss_distribution as PLD
    NR = privacy_accountant.NeighboringRelation
    rel, kind, val = job["query"]["relation"], job["query"]["kind"], job["query"]["value"]
    events = job["query"]["events"]
    tables = {}
    for ev in events:
        if ev["mechanism"] == "table":
            name = ev["table"].lstrip("@")
            tables[name] = read_table_csv(job["tables"][name])

    def one(ev, pess):
        kw = dict(pessimistic_estimate=pess, value_discretization_interval=PLD_INTERVAL)
        m, n, q = ev["mechanism"], int(ev["count"]), q_of(ev)
        if m in ("gaussian", "laplace") and not pess:
            kw["use_connect_dots"] = False  # connect-the-dots is pessimistic only (it falls back anyway)
        if m == "gaussian":
            z = ev["noise_multiplier"]
            if q == 1.0 and "sampling_rate" not in ev:
                if rel == RO:
                    return PLD.from_gaussian_mechanism(standard_deviation=2 * z / math.sqrt(n),
                                                       neighboring_relation=NR.REPLACE_ONE, **kw)
                return PLD.from_gaussian_mechanism(standard_deviation=z / math.sqrt(n), **kw)
            return PLD.from_gaussian_mechanism(standard_deviation=z, sampling_prob=q, **kw).self_compose(n)
        if m == "laplace":
            return PLD.from_laplace_mechanism(ev["noise_multiplier"], sampling_prob=q, **kw).self_compose(n)
        if m == "discrete_laplace":
            return PLD.from_discrete_laplace_mechanism(1.0 / ev["scale"], sensitivity=int(ev["sensitivity"]),
                                                       sampling_prob=q, **kw).self_compose(n)
        if m == "discrete_gaussian":
            return PLD.from_discrete_gaussian_mechanism(ev["sigma"], sensitivity=int(ev["sensitivity"]),
                                                        sampling_prob=q, **kw).self_compose(n)
        if m == "table":
            name = ev["table"].lstrip("@")
            x, p = tables[name]
            h = TABLES[name]["step"]
            s = int(round(ev["sensitivity"] / h))
            without = {i: float(pi) for i, pi in enumerate(p) if pi > 0}   # outcome index -> mass
            shifted = {i + s: float(pi) for i, pi in enumerate(p) if pi > 0}
            if q == 1.0:
                with_ = shifted
            else:
                with_ = {j: (1 - q) * without.get(j, 0.0) + q * shifted.get(j, 0.0)
                         for j in set(without) | set(shifted)}
            lower = {k: math.log(v) for k, v in without.items()}
            upper = {k: math.log(v) for k, v in with_.items() if v > 0}
            # remove: with || without; symmetric=False adds the other direction (add, or the shift by -s)
            symmetric = q == 1.0 and TABLES[name]["how"] != "naive"
            return PLD.from_two_probability_mass_functions(lower, upper, symmetric=symmetric,
                                                           **kw).self_compose(n)
        raise ValueError(f"unsupported mechanism {m}")

    def build(pess):
        pld = None
        for ev in events:
            p = one(ev, pess)
            pld = p if pld is None else pld.compose(p)
        return pld

    def ask(pld):
        return float(pld.get_epsilon_for_delta(val)) if kind == E else float(pld.get_delta_for_epsilon(val))

    def run():
        t0 = time.perf_counter()
        hi = ask(build(True))
        t1 = time.perf_counter()
        lo = ask(build(False))
        return dict(lo=lo, hi=hi, pessimistic_seconds=t1 - t0)
    return run


def child_prv(job):
    sys.path.insert(0, job["path"])
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import (GaussianMechanism, LaplaceMechanism,
                                                         PoissonSubsampledGaussianMechanism)
    kind, val = job["query"]["kind"], job["query"]["value"]
    events = job["query"]["events"]
    prvs, counts = [], []
    for ev in events:
        m, q = ev["mechanism"], q_of(ev)
        if m == "gaussian" and "sampling_rate" in ev:
            prvs.append(PoissonSubsampledGaussianMechanism(noise_multiplier=ev["noise_multiplier"],
                                                           sampling_probability=q))
        elif m == "gaussian":
            prvs.append(GaussianMechanism(noise_multiplier=ev["noise_multiplier"]))
        elif m == "laplace":
            prvs.append(LaplaceMechanism(mu=1.0 / ev["noise_multiplier"]))
        else:
            raise ValueError(f"unsupported mechanism {m}")
        counts.append(int(ev["count"]))

    def run():
        if kind == E:
            acc = PRVAccountant(prvs=prvs, max_self_compositions=counts, eps_error=PRV_EPS_ERROR,
                                delta_error=val / 1000)
            lo, est, hi = acc.compute_epsilon(delta=val, num_self_compositions=counts)
            return dict(lo=float(lo), hi=float(hi), estimate=float(est), delta_error=val / 1000)
        acc = PRVAccountant(prvs=prvs, max_self_compositions=counts, eps_error=PRV_EPS_ERROR,
                            delta_error=PRV_DELTA_ERROR_FIRST)
        lo, est, hi = acc.compute_delta(epsilon=val, num_self_compositions=counts)
        derr = PRV_DELTA_ERROR_FIRST
        if est > 0 and math.isfinite(est):
            derr = est / 1000
            acc = PRVAccountant(prvs=prvs, max_self_compositions=counts, eps_error=PRV_EPS_ERROR,
                                delta_error=derr)
            lo, est, hi = acc.compute_delta(epsilon=val, num_self_compositions=counts)
        return dict(lo=float(lo), hi=float(hi), estimate=float(est), delta_error=derr)
    return run


def run_child(job, timeout, mem_limit_bytes):
    """Runs one job in a child process; returns its result dict with wall/cpu seconds, peak RSS, status."""
    env = dict(os.environ)
    for v in THREAD_VARS:
        env[v] = "1"

    def limits():
        os.setsid()
        if mem_limit_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (mem_limit_bytes, mem_limit_bytes))

    with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr:
        fin.write(json.dumps(job).encode())
        fin.seek(0)
        t0 = time.perf_counter()
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child"], stdin=fin, stdout=fout,
                             stderr=ferr, env=env, preexec_fn=limits)
        timed_out = False
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid != 0:
                break
            if time.perf_counter() - t0 > timeout:
                timed_out = True
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.01)
        p.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.perf_counter() - t0
        fout.seek(0)
        text = fout.read().decode(errors="replace")
        ferr.seek(0)
        errtext = ferr.read().decode(errors="replace")
    res = None
    for line in text.splitlines():
        if line.startswith("@@RESULT "):
            res = json.loads(line[len("@@RESULT "):])
    peak = ru.ru_maxrss * 1024
    if timed_out:
        return dict(status="timeout", error=f"more than {timeout:g} s (killed)", peak_bytes=peak,
                    process_seconds=elapsed)
    if res is None:
        code = p.returncode
        why = f"killed by signal {-code} ({signal.Signals(-code).name})" if code < 0 else f"exit {code}"
        tail = errtext.strip().splitlines()[-1:] if errtext.strip() else []
        return dict(status="exception", error=f"crash: {why}" + (f": {tail[0][:200]}" if tail else ""),
                    peak_bytes=peak, process_seconds=elapsed)
    res["peak_bytes"] = peak
    res["process_seconds"] = elapsed
    if not res.get("ok"):
        res["status"] = "exception"
    return res


# --------------------------------------------------------------------------------------------------------
# Which accountant supports which query
# --------------------------------------------------------------------------------------------------------

def dp_supports(query):
    for ev in query["events"]:
        s = sampling_of(ev)
        if s == "wor":
            return False, "sampling without replacement"
        if s == "poisson" and query["relation"] != AR:
            return False, "Poisson sampling under replace-one"
    return True, None


def prv_supports(query):
    for ev in query["events"]:
        s, m = sampling_of(ev), ev["mechanism"]
        if s == "wor":
            return False, "sampling without replacement"
        if m == "gaussian" and s in ("none", "poisson"):
            continue
        if m == "laplace" and s == "none":
            continue
        return False, f"{m}" + (" Poisson-sampled" if s == "poisson" else "")
    return True, None


# --------------------------------------------------------------------------------------------------------
# Judging
# --------------------------------------------------------------------------------------------------------

CATEGORIES = ["met", "inf", "negative", "exception", "timeout", "inconsistent", "peer_conflict",
              "optimistic_above_truth", "too_wide", "too_slow", "too_much_memory", "n/a"]
CATEGORY_TITLES = {
    "met": "met", "inf": "inf", "negative": "negative", "exception": "exception", "timeout": ">timeout",
    "inconsistent": "inconsistent (ref)", "peer_conflict": "conflict (others)",
    "optimistic_above_truth": "optimistic>truth", "too_wide": "too wide", "too_slow": "too slow (>1 s)",
    "too_much_memory": ">2 GB", "n/a": "n/a",
}


def tol(a, b):
    m = max(abs(a), abs(b)) if math.isfinite(a) and math.isfinite(b) else 0.0
    return REL_TOL * m + 1e-300


def le(a, b):
    """a <= b up to the comparison tolerance (inf-aware)."""
    if a == b:
        return True
    if math.isinf(b) and b > 0:
        return True
    if math.isinf(a) and a > 0:
        return False
    return a <= b + tol(a, b)


def width_ok(kind, lo, hi):
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return lo == hi  # both infinite: an exact answer (the truth infinite)
    w = hi - lo
    if w <= REL_WIDTH * abs(hi):
        return True
    return kind == D and lo < ABS_WIDTH_SMALL_DELTA and w <= ABS_WIDTH_SMALL_DELTA


def judge(query, name, res, ref, others):
    """Sets res['fails'] (list of categories) and res['met']. `others`: list of (name, lo, hi) claimed
    rigorous brackets of the other accountants (lo may be None for an upper-only side)."""
    fails = []
    notes = []
    if res["status"] == "n/a":
        res["fails"], res["met"] = ["n/a"], False
        return
    if res["status"] == "timeout":
        fails.append("timeout")
    elif res["status"] == "exception":
        fails.append("exception")
    else:
        lo, hi = res["lo"], res["hi"]
        if math.isnan(lo) or math.isnan(hi):
            fails.append("exception")
            notes.append("NaN in the result")
        else:
            truth_inf = ref is not None and math.isinf(ref["lo"])
            if (math.isinf(hi) or math.isinf(lo)) and not truth_inf:
                fails.append("inf")
            if lo < 0 or hi < 0:
                fails.append("negative")
            if ref is not None:
                rigorous_lo = name != "dp_accounting"
                if not le(ref["lo"], hi):
                    fails.append("inconsistent")
                    notes.append(f"upper {hi:.17g} below the reference's lower {ref['lo']:.17g}")
                if not le(lo, ref["hi"]):
                    if rigorous_lo:
                        fails.append("inconsistent")
                        notes.append(f"lower {lo:.17g} above the reference's upper {ref['hi']:.17g}")
                    else:
                        fails.append("optimistic_above_truth")
                        notes.append(f"optimistic {lo:.17g} above the reference's upper {ref['hi']:.17g}")
            for oname, olo, ohi in others:
                if olo is not None and not le(olo, hi):
                    fails.append("peer_conflict")
                    notes.append(f"upper {hi:.17g} below {oname}'s claimed lower {olo:.17g}")
                if ohi is not None and not le(lo, ohi):
                    if name != "dp_accounting":
                        fails.append("peer_conflict")
                        notes.append(f"lower {lo:.17g} above {oname}'s claimed upper {ohi:.17g}")
                    else:
                        fails.append("optimistic_above_truth")
                        notes.append(f"optimistic {lo:.17g} above {oname}'s claimed upper {ohi:.17g}")
            if "inf" not in fails and not width_ok(query["kind"], lo, hi):
                fails.append("too_wide")
        if res.get("seconds", math.inf) > MAX_SECONDS:
            fails.append("too_slow")
    if res.get("peak_bytes", 0) > MAX_BYTES:
        fails.append("too_much_memory")
    res["fails"] = sorted(set(fails), key=CATEGORIES.index)
    res["notes"] = notes
    res["met"] = not fails


def claimed_sides(name, res):
    """The sides an accountant claims rigorous, for checking the others: (lo or None, hi or None)."""
    if res.get("status") != "ok" or not res.get("ok"):
        return None
    lo, hi = res["lo"], res["hi"]
    if math.isnan(lo) or math.isnan(hi):
        return None
    if name == "dp_accounting":
        return (None, hi)
    return (lo, hi)


# --------------------------------------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------------------------------------

def fnum(x):
    if x is None:
        return "-"
    if isinstance(x, float) and (math.isinf(x) or math.isnan(x)):
        return str(x)
    return f"{x:.10g}"


def rel_width(lo, hi):
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return math.inf if lo != hi else 0.0
    if hi == 0:
        return 0.0 if lo == 0 else math.inf
    return (hi - lo) / abs(hi)


def result_line(name, res):
    if res["status"] == "n/a":
        return f"  {name:<14s} n/a ({res.get('why', '')})"
    mem = f"{res.get('peak_bytes', 0) / 2 ** 20:.0f} MB"
    if res["status"] in ("timeout", "exception"):
        return (f"  {name:<14s} {res['status'].upper()}: {res.get('error', '')}  "
                f"[{res.get('process_seconds', 0):.1f} s in the child, {mem}]")
    lo, hi = res["lo"], res["hi"]
    rw = rel_width(lo, hi)
    extra = ""
    if name == "prv_accountant":
        extra = f" est {fnum(res.get('estimate'))}, delta_error {res.get('delta_error', 0):.3g};"
    if name == "dp_accounting":
        extra = f" (pessimistic alone {res.get('pessimistic_seconds', 0):.3f} s);"
    verdict = "MET" if res["met"] else "fails: " + ", ".join(CATEGORY_TITLES[f] for f in res["fails"])
    s = (f"  {name:<14s} [{fnum(lo)}, {fnum(hi)}]  width {hi - lo if math.isfinite(hi - lo) else math.inf:.3g}"
         f" (rel {rw:.2g}),{extra} {res['seconds']:.3f} s (cpu {res['cpu_seconds']:.3f}), {mem}  {verdict}")
    for n in res.get("notes", []):
        s += f"\n  {'':<14s}   ! {n}"
    return s


def print_summary(records, names, header=""):
    print(f"\n==== summary{header}: queries per accountant (a failing query counts in each of its categories)")
    cols = CATEGORIES
    print(f"  {'accountant':<16s}" + "".join(f"{CATEGORY_TITLES[c]:>20s}" for c in cols) + f"{'queries':>10s}")
    summary = {}
    for name in names:
        counts = {c: 0 for c in cols}
        total = 0
        for r in records:
            res = r["results"].get(name)
            if res is None:
                continue
            total += 1
            if res["met"]:
                counts["met"] += 1
            for f in res.get("fails", []):
                counts[f] += 1
        summary[name] = dict(counts, queries=total)
        print(f"  {name:<16s}" + "".join(f"{counts[c]:>20d}" for c in cols) + f"{total:>10d}")
    return summary


def uptime_line():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=5).stdout.strip()
    except Exception:  # noqa: BLE001
        la = os.getloadavg()
        return f"load average: {la[0]:.2f}, {la[1]:.2f}, {la[2]:.2f}"


# The peers' checkouts are located and described as peer_accountants.py (beside this file) does.
from peer_accountants import dp_accounting_root, git_commit, prv_root  # noqa: E402


# --------------------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------------------

def select(args):
    ids = [q["id"] for q in GRID]
    assert len(ids) == len(set(ids)), "duplicate ids in GRID"
    if args.only:
        want = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = [w for w in want if w not in ids]
        if unknown:
            raise SystemExit(f"--only: unknown id {unknown[0]!r}")
        return [q for q in GRID if q["id"] in want]
    if args.quick:
        return [q for q in GRID if q["quick"]]
    return list(GRID)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child_main()
        return 0
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--noiselearn", metavar="DIR", default=os.path.join(REPO, "build", "python"),
                   help="directory holding the package noiselearn/ (default: build/python under the repository)")
    p.add_argument("--dp-accounting", metavar="PATH",
                   help="checkout of google/differential-privacy (or its python/dp_accounting)")
    p.add_argument("--prv-accountant", metavar="PATH", help="checkout of microsoft/prv_accountant")
    p.add_argument("--only", metavar="ID,ID", help="run these queries only")
    p.add_argument("--quick", action="store_true", help="the smoke subset (the queries marked quick)")
    p.add_argument("--peer-ids", metavar="quick|all|ID,ID", default="all",
                   help="run the peers on these queries only (ours runs on every selected query)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per child (default 60)")
    p.add_argument("--repeats", type=int, default=1, help="best of N runs inside each child (default 1)")
    p.add_argument("--mem-limit-gb", type=float, default=8.0,
                   help="address-space limit of each child, to protect the machine (default 8; 0: none)")
    p.add_argument("--json", metavar="OUT", help="write every figure as JSON")
    p.add_argument("--workdir", metavar="DIR", help="where the tables are written (default: a temp dir)")
    p.add_argument("--list", action="store_true", help="list the grid and exit")
    args = p.parse_args()

    queries = select(args)
    if args.list:
        for q in queries:
            print(f"{q['id']:<8s} {describe(q)}" + (f"   [{q['note']}]" if q["note"] else ""))
        print(f"{len(queries)} queries")
        return 0

    print(f"accountant_grid.py: {len(queries)} queries; started {time.strftime('%Y-%m-%d %H:%M:%S')}")
    print(f"load at start: {uptime_line()}  ({os.cpu_count()} cores)")
    print(f"python: {sys.executable} {sys.version.split()[0]}; children: "
          + ", ".join(f"{v}=1" for v in THREAD_VARS) + f"; timeout {args.timeout:g} s; repeats {args.repeats};"
          f" address-space limit {args.mem_limit_gb:g} GB")
    import numpy
    import scipy
    import mpmath
    print(f"numpy {numpy.__version__}, scipy {scipy.__version__}, mpmath {mpmath.__version__}")

    names = []
    nl = None
    nl_dir = os.path.abspath(args.noiselearn)
    sys.path.insert(0, nl_dir)
    try:
        import noiselearn as nl  # noqa: F811
        mod = nl.__file__
        print(f"noiselearn: {mod} (modified "
              f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(os.path.getmtime(mod)))})")
        names.append("noiselearn")
    except ImportError as e:
        print(f"noiselearn: skipped (not importable from {nl_dir}: {e})")
        sys.path.pop(0)
    peers = {}
    if args.dp_accounting:
        root = dp_accounting_root(args.dp_accounting)
        peers["dp_accounting"] = root
        ver = "?"
        if os.path.exists(os.path.join(root, "VERSION")):
            ver = [ln.strip() for ln in open(os.path.join(root, "VERSION")) if ln.strip()][-1]
        print(f"dp_accounting: {root} (version {ver}, commit {git_commit(root) or 'unknown'})")
        names.append("dp_accounting")
    else:
        print("dp_accounting: skipped (no --dp-accounting PATH)")
    if args.prv_accountant:
        root = prv_root(args.prv_accountant)
        peers["prv_accountant"] = root
        print(f"prv_accountant: {root} (commit {git_commit(root) or 'unknown'})")
        names.append("prv_accountant")
    else:
        print("prv_accountant: skipped (no --prv-accountant PATH)")
    print(PEER_RULES)
    print(f"The goal: a finite bracket wherever the truth is finite, not negative, consistent with the references "
          f"(within {REL_TOL:g} relative), upper - lower <= {REL_WIDTH:g} x upper (a delta(eps) query whose "
          f"lower is below {ABS_WIDTH_SMALL_DELTA:g}: or <= {ABS_WIDTH_SMALL_DELTA:g} absolute), "
          f"<= {MAX_SECONDS:g} s wall on one thread, <= {MAX_BYTES / 2 ** 30:g} GB peak resident memory.")

    if args.peer_ids == "all":
        peer_ids = None
    elif args.peer_ids == "quick":
        peer_ids = {q["id"] for q in GRID if q["quick"]}
    else:
        peer_ids = {s.strip() for s in args.peer_ids.split(",") if s.strip()}

    workdir = args.workdir or tempfile.mkdtemp(prefix="accountant-grid-")
    os.makedirs(workdir, exist_ok=True)
    table_paths = write_tables(workdir, nl)
    tables_arrays = {name: make_table_arrays(spec) for name, spec in TABLES.items()}
    print(f"tables in {workdir}: " + ", ".join(
        f"{k} (sigma {v['sigma']:g}, step {v['step']:g}, [-{v['half_range']:g}, {v['half_range']:g}], {v['how']})"
        for k, v in TABLES.items()))

    mem_limit = int(args.mem_limit_gb * 2 ** 30) if args.mem_limit_gb > 0 else 0
    records = []
    t_start = time.time()
    for qi, query in enumerate(queries):
        print(f"\n[{qi + 1}/{len(queries)}] {query['id']}: {describe(query)}"
              + (f"   [{query['note']}]" if query["note"] else "")
              + f"   (load {os.getloadavg()[0]:.2f}, {time.strftime('%H:%M:%S')})", flush=True)
        t0 = time.perf_counter()
        try:
            ref, why = compute_reference(query, tables_arrays)
        except Exception as e:  # noqa: BLE001
            ref, why = None, f"no reference (its computation failed: {type(e).__name__}: {e})"
        ref_seconds = time.perf_counter() - t0
        if ref is not None:
            ref["seconds"] = ref_seconds
            print(f"  {'reference':<14s} [{fnum(ref['lo'])}, {fnum(ref['hi'])}]  {ref['source']} "
                  f"({ref_seconds:.2f} s)")
        else:
            print(f"  {'reference':<14s} {why}")
        results = {}
        for name in names:
            if name != "noiselearn" and peer_ids is not None and query["id"] not in peer_ids:
                continue
            if name == "dp_accounting":
                ok, why_na = dp_supports(query)
            elif name == "prv_accountant":
                ok, why_na = prv_supports(query)
            else:
                ok, why_na = True, None
            if not ok:
                results[name] = dict(status="n/a", why=why_na)
                continue
            job = dict(accountant=name, query=query, tables=table_paths, repeats=args.repeats,
                       noiselearn=nl_dir, path=peers.get(name))
            res = run_child(job, args.timeout, mem_limit)
            res.setdefault("status", "ok")
            res["load1"] = os.getloadavg()[0]
            results[name] = res
        for name, res in results.items():
            others = []
            for oname, ores in results.items():
                if oname == name:
                    continue
                sides = claimed_sides(oname, ores)
                if sides is not None:
                    others.append((oname, sides[0], sides[1]))
            judge(query, name, res, ref, others)
        for name in names:
            if name in results:
                print(result_line(name, results[name]), flush=True)
        records.append(dict(id=query["id"], description=describe(query), note=query["note"],
                            query=query, reference=ref, reference_note=why, results=results))

    print(f"\nfinished {time.strftime('%Y-%m-%d %H:%M:%S')} ({(time.time() - t_start) / 60:.1f} min); "
          f"load at end: {uptime_line()}")
    summary = print_summary(records, names)
    with_ref = sum(1 for r in records if r["reference"] is not None)
    print(f"  ({len(records)} queries, {with_ref} with an independent reference; "
          f"n/a: not supported by that accountant, not counted against it)")

    for name in names:
        bad = [r for r in records if name in r["results"] and not r["results"][name]["met"]
               and r["results"][name]["status"] != "n/a"]
        if not bad:
            continue
        print(f"\n---- {name}: queries not met ({len(bad)})")
        for cat in CATEGORIES[1:-1]:
            ids = [r["id"] for r in bad if cat in r["results"][name].get("fails", [])]
            if ids:
                print(f"  {CATEGORY_TITLES[cat]:<20s} {len(ids):>4d}: {', '.join(ids)}")

    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(started=t_start, load_end=uptime_line(), names=names, summary=summary,
                           peers=peers, tables=TABLES, records=records), f, indent=1, default=str)
        print(f"\nJSON: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The classic Renyi-DP accountant of DP-SGD (what Opacus and TF-Privacy use), written here from the formulas.

Mironov, Talwar and Zhang 2019, "Renyi Differential Privacy of the Sampled Gaussian Mechanism", section 3.3: for the
Poisson-subsampled Gaussian with sampling rate q and noise multiplier sigma (sensitivity 1), at an integer order
alpha >= 2 the Renyi divergence of order alpha is at most log(A_alpha) / (alpha - 1), with

    A_alpha = sum_{k=0}^{alpha} C(alpha, k) (1 - q)^(alpha - k) q^k exp((k^2 - k) / (2 sigma^2)),

which is E_{z ~ N(0, sigma^2)}[((1 - q) + q mu1(z) / mu0(z))^alpha] expanded with the binomial theorem. T steps
compose additively in RDP, and the classic conversion (Mironov 2017, Prop. 3) gives

    epsilon(delta) = min_alpha  T * RDP(alpha) + log(1 / delta) / (alpha - 1).

Everything is computed in log space (a log-sum-exp over k), so large orders and small sigmas do not overflow.
"""
import math

import numpy as np

ORDERS = np.arange(2, 257)  # the integer orders 2 .. 256


def log_a(alpha, q, sigma):
    """log A_alpha for one integer order alpha >= 2, 0 < q <= 1, sigma > 0."""
    alpha = int(alpha)
    if alpha < 2:
        raise ValueError("integer orders >= 2 only")
    if not 0.0 < q <= 1.0 or sigma <= 0.0:
        raise ValueError("need 0 < q <= 1 and sigma > 0")
    k = np.arange(alpha + 1, dtype=np.float64)
    log_binom = np.array([math.lgamma(alpha + 1) - math.lgamma(j + 1) - math.lgamma(alpha - j + 1) for j in range(alpha + 1)])
    log_1mq = math.log1p(-q) if q < 1.0 else -math.inf
    with np.errstate(invalid="ignore"):
        # (alpha - k) log(1 - q): 0 at k = alpha even when q = 1.
        powers_1mq = np.where(k < alpha, (alpha - k) * log_1mq, 0.0)
    terms = log_binom + powers_1mq + k * math.log(q) + (k * k - k) / (2.0 * sigma * sigma)
    top = terms.max()
    return float(top + math.log(np.exp(terms - top).sum()))


def rdp(q, sigma, orders=ORDERS):
    """The RDP of one step of the sampled Gaussian mechanism at each order (numpy array)."""
    return np.array([log_a(a, q, sigma) / (a - 1) for a in orders])


def epsilon(q, sigma, steps, delta, orders=ORDERS, return_order=False):
    """Classic conversion: min over orders of steps * RDP(alpha) + log(1/delta) / (alpha - 1)."""
    orders = np.asarray(orders)
    eps = steps * rdp(q, sigma, orders) + math.log(1.0 / delta) / (orders - 1)
    i = int(np.argmin(eps))
    return (float(eps[i]), int(orders[i])) if return_order else float(eps[i])


def epsilons(q, sigma, steps_list, delta, orders=ORDERS):
    """epsilon after each step count of steps_list (one RDP evaluation shared)."""
    orders = np.asarray(orders)
    r = rdp(q, sigma, orders)
    bonus = math.log(1.0 / delta) / (orders - 1)
    return np.array([float(np.min(t * r + bonus)) for t in steps_list])


def calibrate(target_epsilon, q, steps, delta, lo=0.05, hi=100.0, rel_tol=1e-4):
    """The least sigma (to rel_tol) whose classic RDP epsilon is <= target_epsilon, by bisection (epsilon decreases
    in sigma). Returns (sigma, its RDP epsilon)."""
    if epsilon(q, hi, steps, delta) > target_epsilon:
        raise ValueError(f"target epsilon {target_epsilon} unreachable with sigma <= {hi}")
    while epsilon(q, lo, steps, delta) <= target_epsilon:
        lo /= 2.0
    while hi - lo > rel_tol * hi:
        mid = 0.5 * (lo + hi)
        if epsilon(q, mid, steps, delta) <= target_epsilon:
            hi = mid
        else:
            lo = mid
    return hi, epsilon(q, hi, steps, delta)


def a_by_integration(alpha, q, sigma, points=400_001, width=40.0):
    """A_alpha from its definition, E_{z ~ mu0}[(mu(z) / mu0(z))^alpha] with mu0 = N(0, sigma^2) and
    mu = (1 - q) N(0, sigma^2) + q N(1, sigma^2), by the trapezoid rule on a wide grid: an independent check of
    log_a (no binomial expansion)."""
    z = np.linspace(-width * sigma, width * sigma + 1.0, points)
    mu0 = np.exp(-z * z / (2 * sigma * sigma)) / (sigma * math.sqrt(2 * math.pi))
    ratio = (1.0 - q) + q * np.exp((2.0 * z - 1.0) / (2.0 * sigma * sigma))
    return float(np.trapz(mu0 * ratio**alpha, z))

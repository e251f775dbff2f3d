#!/usr/bin/env python3
"""Second opinions for the grid's conflicts between accountants (accountant_grid.py), where the grid has no
rigorous reference: accurate estimates, independent of every accountant compared, NOT bounds.

    conflict_checks.py spg SIGMA Q STEPS DELTA EPS_GUESS [H ...]
        epsilon(delta) of STEPS Poisson-sampled Gaussian releases (add/remove), each direction on its own:
        remove ((1-q) N(0, s^2) + q N(1, s^2) against N(0, s^2)) and add (the reverse). The loss of one
        release, monotone in x, is cut into sub-cells (16 per loss-grid cell of step H, and dyadic ones down
        to 2^-45 H above the lower end ln(1 - q), where the loss piles up as x -> -inf); each sub-cell's exact
        mass (normal CDF differences) is split linearly between the two grid points around its centre
        (mean-preserving), composed by an FFT power exponentially tilted to the guess (a cyclic window of
        +-60 tilted standard deviations), untilted near the guess. Second order in H: run several H.
    conflict_checks.py dl SCALE SENSITIVITY COUNT DELTA EPS_GUESS
        epsilon(delta) of COUNT unsampled discrete Laplace releases (P(x) ~ e^{-|x|/scale}) against the shift by
        the sensitivity s: the loss is (2K - s)/scale with K in 0..s (x <= 0, 1..s-1, >= s), so the n-fold loss
        is (2 sum K - n s)/scale: the law of sum K by a tilted FFT power, no discretisation (float64 only).

Both search epsilon within +-2 of the guess (the tilt makes the composition accurate there only).
"""

import math
import sys

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtr


def spg(sigma, q, steps, delta, guess, hs):
    def a_sf(x):
        return (1 - q) * ndtr(-x / sigma) + q * ndtr(-(x - 1) / sigma)

    def q_sf(x):
        return ndtr(-x / sigma)

    def remove_pld(h, k=16):
        lmin = math.log1p(-q)
        xmax = 1 + 40 * sigma
        lmax = math.log(1 - q + q * math.exp(min(700.0, (2 * xmax - 1) / (2 * sigma ** 2))))
        j0 = int(math.floor(lmin / h))
        reg = np.arange(j0 * k, int(math.ceil(lmax / h)) * k + 1) * (h / k)
        reg = reg[reg > lmin + h]
        dyadic = lmin + h * 2.0 ** -np.arange(45, -1, -1)
        b = np.concatenate([[lmin], dyadic, reg])
        with np.errstate(divide="ignore", invalid="ignore"):
            # x(l) = s^2 ln((e^l - (1 - q)) / q) + 1/2, with e^l - (1 - q) = (1 - q) expm1(l - lmin)
            xb = sigma ** 2 * np.log((1 - q) * np.expm1(b - lmin) / q) + 0.5
        xb[0] = -np.inf
        mass = np.maximum(a_sf(xb[:-1]) - a_sf(xb[1:]), 0)
        return spread(0.5 * (b[:-1] + b[1:]) / h, mass)

    def add_pld(h, k=16):
        lmax = -math.log1p(-q)
        xmax = 40 * sigma
        lmin = -math.log(1 - q + q * math.exp(min(700.0, (2 * xmax - 1) / (2 * sigma ** 2))))
        j1 = int(math.ceil(lmax / h))
        reg = np.arange(int(math.floor(lmin / h)) * k, j1 * k + 1) * (h / k)
        reg = reg[reg < lmax - h]
        dyadic = lmax - h * 2.0 ** -np.arange(0, 46)
        b = np.concatenate([reg, dyadic, [lmax]])
        with np.errstate(divide="ignore", invalid="ignore"):
            # loss -ln(1 - q + q r(x)), decreasing in x: x(l) = s^2 ln((e^-l - (1 - q)) / q) + 1/2
            xb = sigma ** 2 * np.log((1 - q) * np.expm1(lmax - b) / q) + 0.5
        xb[-1] = -np.inf
        mass = np.maximum(q_sf(xb[1:]) - q_sf(xb[:-1]), 0)
        return spread(0.5 * (b[:-1] + b[1:]) / h, mass)

    for h in hs:
        out = []
        for name, fn in (("remove", remove_pld), ("add", add_pld)):
            j, a = fn(h)
            out.append(f"{name} {tilted_eps(j * h, a, h, steps, delta, guess)}")
        print(f"h={h:g}: " + "; ".join(out), flush=True)


def spread(c, mass):
    """Each mass at grid position c (in steps) split linearly between floor(c) and floor(c) + 1."""
    f = np.floor(c)
    w = c - f
    jlo = int(f.min())
    out = np.zeros(int(f.max()) - jlo + 2)
    np.add.at(out, (f - jlo).astype(np.int64), mass * (1 - w))
    np.add.at(out, (f - jlo).astype(np.int64) + 1, mass * w)
    return np.arange(jlo, jlo + len(out)), out


def tilted_eps(loss, a, h, n, delta, guess):
    keep = a > 0
    loss, a = loss[keep], a[keep]
    j = np.round(loss / h).astype(np.int64)
    la = np.log(a)

    def weights(th):
        lw = la + th * loss
        mx = lw.max()
        return np.exp(lw - mx), mx

    def tilted_mean(th):
        w, _ = weights(th)
        return n * np.sum(w * loss) / np.sum(w)
    if tilted_mean(60.0) < guess:
        return "below the guess at any tilt (eps under the guess - 2)"
    th = brentq(lambda t: tilted_mean(t) - guess, 1e-9, 60.0)
    w, mx = weights(th)
    log_m = math.log(np.sum(w)) + mx
    at = w / np.sum(w)
    mean = np.sum(at * loss)
    sd = math.sqrt(n * np.sum(at * (loss - mean) ** 2))
    size = max(1 << 16, 1 << int(math.ceil(math.log2(120 * sd / h + 1))))
    x = np.zeros(size)
    np.add.at(x, j % size, at)
    c = np.fft.irfft(np.fft.rfft(x) ** n, size)
    k = np.arange(int(round(n * mean / h)) - size // 2, int(round(n * mean / h)) + size // 2)
    c = c[k % size]
    s = k * h

    def d(eps):
        m = s > eps
        return float(np.sum(c[m] * np.exp(n * log_m - th * s[m]) * -np.expm1(eps - s[m])))
    lo, hi = max(s[0], guess - 2.0), min(s[-1], guess + 2.0)
    if d(lo) < delta:
        return f"below {lo:.6g}"
    if d(hi) > delta:
        return f"above {hi:.6g}"
    return f"{brentq(lambda e: d(e) - delta, lo, hi, xtol=1e-13):.9f}"


def dl(scale, s, n, delta, guess):
    r = math.exp(-1 / scale)
    c = (1 - r) / (1 + r)
    # masses under P (the shifted side) of K = 0 (x <= 0), K = j (x = j), K = s (x >= s)
    p = np.array([r ** s / (1 + r)] + [c * r ** (s - j) for j in range(1, s)] + [1 / (1 + r)])
    k = np.arange(s + 1)
    k_target = (guess * scale + n * s) / 2 / n
    th = brentq(lambda t: np.sum(k * p * np.exp(t * k)) / np.sum(p * np.exp(t * k)) - k_target, -50, 50)
    log_m = math.log(np.sum(p * np.exp(th * k)))
    pt = p * np.exp(th * k - log_m)
    size = 1 << int(math.ceil(math.log2(n * s + 1)))
    ct = np.fft.irfft(np.fft.rfft(pt, size) ** n, size)[:n * s + 1]
    tot = np.arange(n * s + 1)
    loss = (2 * tot - n * s) / scale

    def d(eps):
        m = loss > eps
        return float(np.sum(ct[m] * np.exp(n * log_m - th * tot[m]) * -np.expm1(eps - loss[m])))
    e = brentq(lambda x: d(x) - delta, guess - 2, guess + 2, xtol=1e-13)
    print(f"discrete Laplace scale {scale:g}, sensitivity {s}, {n} releases: eps({delta:g}) ~ {e:.10f}")


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("spg", "dl"):
        print(__doc__)
        return 2
    a = sys.argv[2:]
    if sys.argv[1] == "spg":
        spg(float(a[0]), float(a[1]), int(float(a[2])), float(a[3]), float(a[4]),
            [float(h) for h in a[5:]] or [2e-4, 1e-4])
    else:
        dl(float(a[0]), int(a[1]), int(float(a[2])), float(a[3]), float(a[4]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

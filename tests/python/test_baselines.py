"""The baselines are the textbook laws on the grid: checked against their formulas computed here."""
import math

import numpy as np
import pytest

import noiselearn as nl


def test_the_discrete_gaussian_is_proportional_to_its_density():
    grid = nl.Grid.symmetric(12, 1)
    t = nl.baselines.discrete_gaussian(grid, 2.5)
    w = np.exp(-grid.x**2 / (2 * 2.5**2))
    np.testing.assert_allclose(t.p, w / w.sum(), rtol=1e-13)


def test_the_truncated_gaussian_holds_the_cell_masses_renormalised():
    grid = nl.Grid.symmetric(5, 0.5)
    sigma, h = 1.7, 0.5
    t = nl.baselines.truncated_gaussian(grid, sigma, 3.0)
    phi = lambda z: 0.5 * math.erfc(-z / math.sqrt(2))
    mass = np.array([phi((x + h / 2) / sigma) - phi((x - h / 2) / sigma) if abs(x) <= 3.0 + 1e-9 else 0.0 for x in grid.x])
    np.testing.assert_allclose(t.p, mass / mass.sum(), rtol=1e-10, atol=1e-300)


def test_the_staircase_has_ratio_e_to_minus_epsilon_one_sensitivity_apart():
    grid = nl.Grid.symmetric(6, 0.25)
    eps = 0.7
    gamma = nl.baselines.staircase_optimal_gamma_l1(eps)
    assert gamma == pytest.approx(1 / (1 + math.exp(eps / 2)), rel=1e-15)
    t = nl.baselines.staircase(grid, eps, 1.0, gamma, 6)
    p = t.p
    centre = len(p) // 2
    for i in range(centre, len(p) - 4):  # positive side, both cells inside the truncation
        assert p[i + 4] / p[i] == pytest.approx(math.exp(-eps), rel=1e-12)


def test_the_uniform_table_is_flat_on_its_range():
    t = nl.baselines.uniform(nl.Grid.symmetric(4, 1), 2)
    np.testing.assert_allclose(t.p, [0, 0, 0.2, 0.2, 0.2, 0.2, 0.2, 0, 0], rtol=1e-15, atol=0)

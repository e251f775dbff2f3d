"""The secure sampler from Python: draws follow the quantised table, releases stay on the lattice."""
import numpy as np
import pytest

import noiselearn as nl


def test_draws_follow_the_quantised_table(rng):
    table = nl.NoiseTable(x=np.arange(-3.0, 4.0), p=[0.02, 0.08, 0.2, 0.4, 0.2, 0.08, 0.02])
    sampler = nl.SecureSampler(table, seed=7)
    assert not sampler.is_cryptographic
    q = sampler.quantised
    assert q.sum() == 1.0
    assert np.max(np.abs(q - table.p)) <= 2.0**-52
    draws = sampler.draw(200_000)
    counts = np.array([(draws == x).sum() for x in table.x])
    assert counts.sum() == draws.size  # nothing off the grid
    expected = q * draws.size
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 22.46  # the 0.999 quantile of chi-square with 6 degrees of freedom


def test_a_zero_probability_point_is_never_drawn():
    table = nl.NoiseTable(x=np.arange(0.0, 4.0), p=[0.5, 0.0, 0.25, 0.25])
    draws = nl.SecureSampler(table, seed=3).draw(50_000)
    assert not np.any(draws == 1.0)


def test_add_noise_keeps_the_shape_and_the_lattice():
    table = nl.NoiseTable(nl.Grid.symmetric(2.0, 0.5), [0.05, 0.05, 0.1, 0.2, 0.2, 0.2, 0.1, 0.05, 0.05])
    sampler = nl.SecureSampler(table)  # the OS CSPRNG
    assert sampler.is_cryptographic
    answers = np.array([[1.0, 2.25], [3.5, -4.0]])
    released = sampler.add_noise(answers)
    assert released.shape == answers.shape
    np.testing.assert_allclose(released / 0.5, np.round(released / 0.5), atol=1e-9)
    assert np.all(np.abs(released - answers) <= 2.0 + 0.25 + 1e-9)


def test_a_written_table_is_sampled_from_its_file(tmp_path):
    table = nl.NoiseTable(x=np.arange(0.0, 3.0), p=[0.5, 0.25, 0.25])
    nl.write_table(table, tmp_path / "noise.csv")
    sampler = nl.SecureSampler.from_file(tmp_path / "noise.csv", seed=1)
    np.testing.assert_array_equal(sampler.quantised, table.p)
    (tmp_path / "noise.csv").write_text("x,p\n0,0.5\n1,0.25\n2,0.5\n")
    with pytest.raises(ValueError):
        nl.SecureSampler.from_file(tmp_path / "noise.csv")

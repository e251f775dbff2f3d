"""Tables from numpy and back: the same validation as every table noiselearn reads, and files that round-trip."""
import numpy as np
import pytest

import noiselearn as nl


def test_a_table_keeps_its_grid_and_probabilities_exactly(rng):
    p = rng.random(41)
    p /= p.sum()
    p[-1] = 1.0 - p[:-1].sum()  # so that the sum is 1 to the last bit
    t = nl.NoiseTable(nl.Grid.symmetric(2.0, 0.1), p)
    assert len(t) == 41
    assert t.grid.step == pytest.approx(0.1, rel=1e-15)
    np.testing.assert_array_equal(t.p, p)
    np.testing.assert_allclose(t.x, np.linspace(-2.0, 2.0, 41), rtol=0, atol=1e-12)
    assert t.support == "general"


def test_utilities_are_the_moments_of_the_table():
    t = nl.NoiseTable(x=np.array([-1.0, 0.0, 1.0, 2.0]), p=[0.25, 0.5, 0.0, 0.25])
    assert t.l1() == pytest.approx(0.25 * 1 + 0.25 * 2, rel=1e-15)
    assert t.second_moment() == pytest.approx(0.25 * 1 + 0.25 * 4, rel=1e-15)
    assert t.tail_probability(1.5) == pytest.approx(0.25, rel=1e-15)
    assert t.max_abs_error() == 2.0


def test_a_symmetric_table_is_recognised():
    t = nl.NoiseTable(x=np.arange(-2.0, 3.0), p=[0.1, 0.2, 0.4, 0.2, 0.1])
    assert t.support == "symmetric"
    one_sided = nl.NoiseTable(x=np.arange(0.0, 3.0), p=[0.5, 0.3, 0.2])
    assert one_sided.support == "one-sided"


@pytest.mark.parametrize(
    "x, p, words",
    [
        (np.arange(3.0), [0.5, 0.3, 0.3], "sum to"),  # not a probability vector
        (np.arange(3.0), [0.5, 0.6, -0.1], "negative"),
        (np.arange(3.0), [0.5, np.nan, 0.5], "finite"),
        (np.array([0.0, 1.0, 3.0]), [0.2, 0.3, 0.5], "uniform"),
        (np.arange(3.0), [0.5, 0.5], "x has 3 points but p has 2"),
    ],
)
def test_bad_tables_raise_value_error_naming_the_problem(x, p, words):
    with pytest.raises(ValueError, match=words):
        nl.NoiseTable(x=x, p=p)


def test_files_round_trip_and_are_never_overwritten_unasked(tmp_path, rng):
    p = rng.random(11)
    p /= p.sum()
    p[0] = 1.0 - p[1:].sum()
    t = nl.NoiseTable(nl.Grid(origin=-5.0, step=1.0, size=11), p)
    path = tmp_path / "noise.csv"
    nl.write_table(t, path)
    back = nl.read_table(path)
    np.testing.assert_array_equal(back.p, t.p)
    np.testing.assert_array_equal(back.x, t.x)
    with pytest.raises(ValueError, match="overwrite=True"):
        nl.write_table(t, path)
    nl.write_table(t, path, overwrite=True)


def test_a_rounded_table_is_read_only_when_asked_to_renormalise(tmp_path):
    path = tmp_path / "rounded.csv"
    path.write_text("x,p\n0,0.333333333\n1,0.333333333\n2,0.333333333\n")
    with pytest.raises(ValueError, match="sum"):
        nl.read_table(path)
    t = nl.read_table(path, renormalise=True)
    assert t.p.sum() == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize(
    "p, words",
    [
        (["0.5", "0.5"], "dtype <U3: convert the values to float first"),
        ([True, False], "dtype bool"),
        ([None, 0.5], "dtype object"),
    ],
)
def test_probabilities_that_are_not_numbers_are_refused_not_converted(p, words):
    # numpy would read ["0.5", "0.5"] as floats and [True, False] as 1, 0: a table must be numbers already.
    with pytest.raises(ValueError, match=words):
        nl.NoiseTable(x=np.array([0.0, 1.0]), p=p)
    with pytest.raises(ValueError, match="x must be an array of numbers"):
        nl.NoiseTable(x=["0", "1"], p=[0.5, 0.5])
    # Integers are numbers: a table of 0s and 1s is read as such.
    assert list(nl.NoiseTable(x=np.array([0, 1]), p=np.array([1, 0])).p) == [1.0, 0.0]

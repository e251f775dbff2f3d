# The module under test is the one built beside these tests: CTest sets PYTHONPATH to <build>/python.
import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(20261125)

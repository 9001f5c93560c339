"""Engine tests. This folder is on ``sys.path`` for the tests below it (pytest puts a conftest's folder
there), so every game's tests share :mod:`goldens`, the one golden recorder and check; and ``cores``, on
which a test plays its independent seeds side by side."""

import pytest

from tests.cores import Cores


@pytest.fixture(scope="module")
def cores():
    """Processes forked once for the test module: a test plays its independent seeds side by side on them."""
    with Cores() as pool:
        yield pool

"""``tests/factories.py`` stands alone: it imports nothing of the test suite's conftest, so a helper, a
benchmark or a test module may import it without pulling in the fixtures (or importing the conftest a
second time under another name)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_factories_import_no_conftest():
    code = ("import sys, django; django.setup(); import tests.factories; "
            "print(sorted(name for name in sys.modules if 'conftest' in name))")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "ladder.settings_test"}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"

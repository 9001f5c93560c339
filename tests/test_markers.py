"""The ``sandbox`` marker that ``tests/conftest.py`` sets at collection lands on the tests that start real
sandboxes and on no others (docs/operations.md, "On one machine")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _collected(*arguments: str) -> set[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           *arguments], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 5), done.stdout[-2000:] + done.stderr[-2000:]
    return {line.split("[")[0] for line in done.stdout.splitlines() if "::" in line}


def test_the_sandbox_marker_finds_fixtures_helpers_and_commands_and_spares_pure_tests():
    marked = _collected("-m", "sandbox", "tests/bots/test_bundle_replay.py",
                        "tests/ladder/test_play_from_bundle.py", "tests/workers/test_execution.py",
                        "tests/bots/sandbox/test_hostile.py",
                        "tests/engines/dice_king/test_dice_king_bots.py", "tests/bots/test_archive_paths.py")
    files = {test.split("::")[0] for test in marked}
    # The referee's sandboxed play_match through a helper, manage.py play through a helper, match_execute,
    # and the module-scoped sandbox fixture.
    assert {"tests/bots/test_bundle_replay.py", "tests/ladder/test_play_from_bundle.py",
            "tests/workers/test_execution.py", "tests/bots/sandbox/test_hostile.py"} <= files
    # An in-process helper that happens to be called play_match, and archive checks, start no sandbox.
    assert not files & {"tests/engines/dice_king/test_dice_king_bots.py", "tests/bots/test_archive_paths.py"}

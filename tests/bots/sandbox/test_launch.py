"""``bots.sandbox.launch``: the parts of a shell's life that need no namespace, run in the test process.

Re-pointing relocated modules, ``_verify`` refusing to go on in a process that is not confined, and the
small helpers. The bot's files are ``test_root_filesystem.py``'s; starting real sandboxes is left to the
sandbox tests that play benign bots.
"""

from __future__ import annotations

import os
import sys
import types

import pytest

from bots.sandbox import launch
from bots.sandbox.launch import relocate_modules
from bots.sandbox.policy import default_policy


def test_relocated_modules_point_at_their_folder_inside():
    module = types.ModuleType("botladder_relocation_probe")
    module.__file__ = "/host/venv/site-packages/probe/__init__.py"
    module.__path__ = ["/host/venv/site-packages/probe", "/elsewhere/probe"]
    sys.modules[module.__name__] = module
    try:
        relocate_modules([("/host/venv/site-packages", "/opt/packages")])
    finally:
        del sys.modules[module.__name__]
    assert module.__file__ == "/opt/packages/probe/__init__.py"
    assert module.__path__ == ["/opt/packages/probe", "/elsewhere/probe"]


def test_the_checks_refuse_an_unconfined_process():
    with pytest.raises(PermissionError):
        launch._verify(default_policy(), "/host/bot", os.getuid())


def test_small_helpers(tmp_path):
    assert launch._vm_size_bytes() > 0
    launch._write(str(tmp_path / "x"), "0")
    assert (tmp_path / "x").read_text() == "0"
    bootstrap = launch._FRESH_BOOTSTRAP.format(paths=["/sdk"], bot="/bot")
    assert bootstrap == "import sys; sys.path[:0] = ['/sdk']; from bots.sdk import main; main(['/bot'])"
    assert "libseccomp" in launch.NO_SECCOMP and launch.STATUS_FD == 3 and launch.CODE_FD == 4

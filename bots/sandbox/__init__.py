"""Sandbox for untrusted bots (theory of operation is written below as the design settles)."""

from __future__ import annotations

import threading
from pathlib import Path

from bots.sandbox.errors import SandboxFault, SandboxUnavailable
from bots.sandbox.policy import Limits

__all__ = ["Limits", "SandboxFault", "SandboxUnavailable", "get_sandbox"]

_lock = threading.Lock()
_shared: dict[tuple, object] = {}


def get_sandbox(*, allow_unsafe: bool = False, cache_dir: str | Path | None = None):
    """This process's shared sandbox (one per worker slot), started on first use."""
    from bots.sandbox.unsafe import UnsafeSandbox

    with _lock:
        key = ("unsafe", str(cache_dir))
        if key not in _shared:
            if not allow_unsafe:
                raise SandboxUnavailable("isolation is not available yet")
            _shared[key] = UnsafeSandbox(cache_dir)
        return _shared[key]

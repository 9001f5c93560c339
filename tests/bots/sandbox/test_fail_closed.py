"""Fail closed: where isolation cannot be set up, uploaded bots are refused unless unsafe mode is chosen.

A machine without namespaces cannot be produced here, so the zygote's start is made to fail the way it
does on one (with the name of the missing capability); everything after that is the real code path.
"""

from __future__ import annotations

import logging

import pytest
from sandbox_helpers import FIRST_BOT

from bots.referee import BotSpec, SandboxUnavailable, play_match
from bots.sandbox import get_sandbox
from bots.sandbox.unsafe import UnsafeSandbox
from bots.sandbox.zygote import ZygoteSandbox

MISSING = ("isolation cannot be set up on this machine: sandbox setup failed at 'create namespaces "
           "(user namespaces must be enabled)': [Errno 1] Operation not permitted")


@pytest.fixture
def no_namespaces(monkeypatch):
    def refuse(self):
        raise SandboxUnavailable(MISSING)

    monkeypatch.setattr(ZygoteSandbox, "start", refuse)


def test_refused_without_the_opt_in(no_namespaces, race, tmp_path):
    with pytest.raises(SandboxUnavailable) as caught:
        get_sandbox(cache_dir=tmp_path)
    assert str(caught.value) == (f"{MISSING} (refusing to run uploaded bots without isolation; set "
                                 "BOTS_ALLOW_UNSAFE=1 only for local work)")


def test_unsafe_mode_only_when_asked_and_loudly(no_namespaces, race, tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="bots.sandbox"):
        sandbox = get_sandbox(allow_unsafe=True, cache_dir=tmp_path)
    assert isinstance(sandbox, UnsafeSandbox)
    assert any("UNSAFE MODE" in record.getMessage() and "user namespaces must be enabled" in record.getMessage()
               for record in caplog.records)
    result = play_match(race, [BotSpec("a", FIRST_BOT), BotSpec("b", FIRST_BOT)], seed=1, sandbox=sandbox)
    assert result.unsafe
    assert [seat.outcome for seat in result.seats] == ["ok", "ok"]

"""A tiny game registered for the sandbox tests, so they never depend on another engine's progress.

``race``: two or more seats take turns saying a number from 1 to 3; the running total starts at 0 and the
game ends when it reaches ``target`` (default 12). Each seat scores the sum of the numbers it said.
"""

from __future__ import annotations

import pytest

import engines
from engines.base import GameEngine, IllegalAction, State, competition_ranking


class RaceState(State):
    def __init__(self, players: int, target: int) -> None:
        self.players = players
        self.target = target
        self.total = 0
        self.turn = 0
        self.said = [0] * players

    def current_player(self):
        return None if self.is_terminal() else self.turn % self.players

    def legal_actions(self):
        if self.is_terminal():
            return []
        return [n for n in (1, 2, 3) if self.total + n <= self.target]

    def apply(self, action):
        if isinstance(action, bool) or action not in self.legal_actions():
            raise IllegalAction(f"illegal action {action!r}")
        self.said[self.turn % self.players] += action
        self.total += action
        self.turn += 1

    def observation(self, player):
        return {"total": self.total, "target": self.target, "seat": player, "said": list(self.said)}

    def view(self):
        return {"total": self.total, "said": list(self.said)}

    def is_terminal(self):
        return self.total >= self.target

    def scores(self):
        return list(self.said)

    def ranking(self):
        return competition_ranking(self.said)


class RaceGame(GameEngine):
    name = "race"
    title = "Race"
    min_players = 2
    max_players = 4

    def default_options(self):
        return {"target": 12}

    def new_state(self, players, seed, options=None):
        self.check_players(players)
        return RaceState(players, self.resolve_options(options)["target"])


@pytest.fixture
def race():
    """Registers the ``race`` game for one test and removes it afterwards."""
    game = engines.register(RaceGame())
    yield game.name
    engines._registry.pop(game.name, None)




@pytest.fixture(scope="module")
def isolated():
    """The process's shared sandbox (``bots.sandbox.get_sandbox``) is available: skipped, or failed in CI,
    where the machine cannot isolate bots."""
    from sandbox_helpers import skip_without_isolation

    from bots.sandbox import SandboxUnavailable, get_sandbox

    try:
        get_sandbox()
    except SandboxUnavailable as exc:
        skip_without_isolation(exc)


def _started_sandbox(tmp_path_factory):
    """A real zygote sandbox with a code cache of its own (skipped, or failed in CI, where the machine cannot
    isolate bots)."""
    from sandbox_helpers import skip_without_isolation

    from bots.sandbox import SandboxUnavailable
    from bots.sandbox.zygote import ZygoteSandbox

    try:
        return ZygoteSandbox(tmp_path_factory.mktemp("code-cache")).start()
    except SandboxUnavailable as exc:
        skip_without_isolation(exc)


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory):
    """One real zygote sandbox for every module whose tests only play bots through it (each test checks
    that its bots left nothing behind)."""
    box = _started_sandbox(tmp_path_factory)
    yield box
    box.close()


@pytest.fixture(scope="module")
def own_sandbox(tmp_path_factory):
    """A real zygote sandbox of the module's own, for tests that look at its cells, cgroups or uids."""
    box = _started_sandbox(tmp_path_factory)
    yield box
    box.close()

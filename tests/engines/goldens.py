"""One recorder and one check for the golden playthroughs of every game (``tests/engines/<game>/golden/``).

A golden file pins a whole match: the configuration, every action, the SHA-256 of every ``view()`` (as
canonical JSON, the initial view first), the full view at a few checkpoints so that a failure shows what
changed, the final scores and ranking, and the ``rules_version`` it was recorded under. Checking only
replays the stored actions, so later changes to a chooser or a bot do not matter.

Each game lists its playthroughs as ``PLAYTHROUGHS`` (file stem -> :class:`Playthrough`) in its
``test_<game>_golden.py``. Regenerate a game's files only after a deliberate change, and bump its
``rules_version`` if recorded matches would replay differently::

    .venv/bin/python tests/engines/goldens.py GAME [GAME ...]
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ENGINE_TESTS = Path(__file__).resolve().parent
ROOT = ENGINE_TESTS.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import engines  # noqa: E402  (after the path set-up above, for running as a script)

#: A chooser of actions: called with the state to move, returns one of its legal actions.
Choose = Callable[[engines.State], object]


def random_choice(seed: int) -> Callable[[], Choose]:
    """Uniformly random legal actions from ``random.Random(seed)``."""
    def start() -> Choose:
        chooser = random.Random(seed)
        return lambda state: chooser.choice(state.legal_actions())
    return start


@dataclass(frozen=True)
class Playthrough:
    """One recorded match: its configuration and how its actions were chosen (``chooser()`` starts one)."""

    players: int
    seed: int
    options: dict
    chooser: Callable[[], Choose]
    #: Facts about how the match was chosen, stored alongside (the bots that played it, say).
    notes: dict = field(default_factory=dict)


def digest(view: dict) -> str:
    return hashlib.sha256(json.dumps(view, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def golden_dir(game: str) -> Path:
    return ENGINE_TESTS / game / "golden"


def load(game: str, name: str) -> dict:
    return json.loads((golden_dir(game) / f"{name}.json").read_text())


def record(game: str, playthrough: Playthrough) -> dict:
    """Play the match with its chooser and return its golden record."""
    rules = engines.get(game)
    state = rules.new_state(playthrough.players, playthrough.seed, playthrough.options)
    choose = playthrough.chooser()
    actions = []
    while not state.is_terminal():
        action = choose(state)
        state.apply(action)
        actions.append(action)
    views = engines.replay(game, playthrough.players, playthrough.seed, playthrough.options, actions)
    checkpoints = sorted({0, 1, len(actions) // 3, len(actions) // 2, len(actions)})
    return {
        "game": game,
        "rules_version": rules.rules_version,
        "players": playthrough.players,
        "seed": playthrough.seed,
        "options": playthrough.options,
        **playthrough.notes,
        "actions": actions,
        "view_digests": [digest(view) for view in views],
        "checkpoints": {str(step): views[step] for step in checkpoints},
        "scores": state.scores(),
        "ranking": state.ranking(),
    }


def check(game: str, name: str) -> None:
    """Replay the golden file ``name`` of ``game`` and assert that every view and the result are the same."""
    golden = load(game, name)
    rules = engines.get(game)
    assert golden["game"] == game
    assert golden["rules_version"] == rules.rules_version, "recorded under another rules_version"
    views = engines.replay(game, golden["players"], golden["seed"], golden["options"], golden["actions"])
    for step, view in golden["checkpoints"].items():
        assert views[int(step)] == view, f"view after {step} actions differs"
    for step, (view, expected) in enumerate(zip(views, golden["view_digests"], strict=True)):
        assert digest(view) == expected, f"view after {step} actions differs"
    state = rules.new_state(golden["players"], golden["seed"], golden["options"])
    for action in golden["actions"]:
        state.apply(action)
    assert state.is_terminal()
    assert (state.scores(), state.ranking()) == (golden["scores"], golden["ranking"])


def playthroughs_of(game: str) -> dict[str, Playthrough]:
    """The ``PLAYTHROUGHS`` table of ``tests/engines/<game>/test_<game>_golden.py``."""
    path = ENGINE_TESTS / game / f"test_{game}_golden.py"
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"test_{game}_golden", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PLAYTHROUGHS


def main(games: list[str]) -> None:
    for game in games:
        golden_dir(game).mkdir(exist_ok=True)
        for name, playthrough in playthroughs_of(game).items():
            path = golden_dir(game) / f"{name}.json"
            path.write_text(json.dumps(record(game, playthrough), indent=1, sort_keys=True) + "\n")
            print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:] or engines.names())

"""Record and check golden Kingdomino playthroughs (tests/engines/kingdomino/golden/*.json).

A golden file pins a whole match: the configuration, the actions (chosen by ``random.Random(seed)`` over
the legal actions), the SHA-256 of every ``view()`` (as canonical JSON) and the full view at a few steps.
If the deal, a rule or an encoding changes, the check fails and shows where.

Regenerate, only after a deliberate change (and bump ``Kingdomino.rules_version`` if recorded matches
would replay differently)::

    .venv/bin/python tests/engines/kingdomino/golden_kingdomino.py
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
ROOT = Path(__file__).resolve().parents[3]

# name -> (players, seed, options)
PLAYTHROUGHS = {
    "two_players": (2, 2026, {}),
    "four_players_bonuses": (4, 7, {"middle_kingdom": True, "harmony": True}),
    "mighty_duel_snake": (2, 31, {"mighty_duel": True, "initial_pick": "snake"}),
}


def digest(view: dict) -> str:
    return hashlib.sha256(json.dumps(view, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def record(players: int, seed: int, options: dict) -> dict:
    """Play the match and return its golden record."""
    import engines

    game = engines.get("kingdomino")
    state = game.new_state(players, seed, options)
    chooser = random.Random(seed)
    actions = []
    while not state.is_terminal():
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        actions.append(action)
    views = engines.replay("kingdomino", players, seed, options, actions)
    checkpoints = sorted({0, len(actions) // 3, len(actions) // 2, len(actions)})
    return {
        "game": "kingdomino",
        "rules_version": game.rules_version,
        "players": players,
        "seed": seed,
        "options": options,
        "actions": actions,
        "view_digests": [digest(view) for view in views],
        "checkpoints": {str(step): views[step] for step in checkpoints},
        "scores": state.scores(),
        "ranking": state.ranking(),
    }


def main() -> None:
    sys.path.insert(0, str(ROOT))
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name, (players, seed, options) in PLAYTHROUGHS.items():
        path = GOLDEN_DIR / f"{name}.json"
        path.write_text(json.dumps(record(players, seed, options), indent=1, sort_keys=True) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

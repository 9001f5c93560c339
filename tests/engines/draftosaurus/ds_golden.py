"""Record and check golden Draftosaurus playthroughs (tests/engines/draftosaurus/golden/*.json).

A golden file pins a whole recorded game: the configuration, the seed, every action, the SHA-256 of the
canonical JSON of every ``view()`` along the game (the initial one first), and a few views in full so a
failure shows what changed. The actions are chosen by a seeded random chooser when recording; checking
only replays them. Regenerate (only when a rules change is intended, with ``rules_version`` bumped):

    .venv/bin/python tests/engines/draftosaurus/ds_golden.py
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import engines  # noqa: E402  (after the path set-up above, for running as a script)

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"

# name: (players, seed, options, chooser seed)
PLAYTHROUGHS = {
    "summer_4p": (4, 20260601, {"board": "summer", "mode": "single"}, 1),
    "winter_3p": (3, 77, {"board": "winter", "mode": "single"}, 2),
    "winter_2p": (2, 4242, {"board": "winter", "mode": "single"}, 3),
    "summer_winter_5p": (5, 9, {"board": "summer", "mode": "summer_winter"}, 4),
}


def digest(view: dict) -> str:
    return hashlib.sha256(json.dumps(view, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def record(players: int, seed: int, options: dict, chooser_seed: int) -> dict:
    game = engines.get("draftosaurus")
    state = game.new_state(players, seed, options)
    chooser = random.Random(chooser_seed)
    actions = []
    while not state.is_terminal():
        legal = state.legal_actions()
        # Lean towards pens (the River is last) so the golden games exercise the pen rules.
        action = legal[0] if chooser.random() < 0.3 else chooser.choice(legal)
        state.apply(action)
        actions.append(action)
    views = engines.replay("draftosaurus", players, seed, options, actions)
    checkpoints = sorted({0, players, len(actions) // 2, len(actions)})
    return {
        "game": "draftosaurus",
        "rules_version": game.rules_version,
        "players": players,
        "seed": seed,
        "options": options,
        "actions": actions,
        "view_digests": [digest(view) for view in views],
        "views": {str(index): views[index] for index in checkpoints},
        "scores": state.scores(),
        "ranking": state.ranking(),
    }


def main() -> None:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name, (players, seed, options, chooser_seed) in PLAYTHROUGHS.items():
        path = GOLDEN_DIR / f"{name}.json"
        path.write_text(json.dumps(record(players, seed, options, chooser_seed), indent=1) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

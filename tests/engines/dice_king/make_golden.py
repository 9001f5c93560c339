"""Record the Dice King golden playthroughs under ``golden/``.

A playthrough is a seeded game whose actions are picked by ``random.Random(seed)`` from the legal
actions, stored with the SHA-256 of every ``view()`` (canonical JSON) and a readable summary of selected
steps. ``test_dk_golden.py`` replays the stored actions and compares. Regenerate only after a deliberate
rules change (and bump ``DiceKing.rules_version``)::

    .venv/bin/python tests/engines/dice_king/make_golden.py
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "golden"
PLAYTHROUGHS = ((2, 7), (3, 11), (4, 23))
SUMMARY_EVERY = 25


def digest(view: dict) -> str:
    return hashlib.sha256(json.dumps(view, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def summary(view: dict) -> dict:
    """The readable part of a view kept verbatim in the golden file."""
    return {
        "phase": view["phase"],
        "to_act": view["to_act"],
        "display": [entry["card"] for entry in view["display"]],
        "supply": view["supply"],
        "owners": [field["owner"] for field in view["map"]],
        "scores": [seat["score_now"] for seat in view["seats"]],
    }


def record(players: int, seed: int) -> dict:
    import engines

    state = engines.get("dice_king").new_state(players, seed)
    chooser = random.Random(seed)
    actions, digests, summaries = [], [digest(state.view())], {"0": summary(state.view())}
    while not state.is_terminal():
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        actions.append(action)
        view = state.view()
        digests.append(digest(view))
        if len(actions) % SUMMARY_EVERY == 0:
            summaries[str(len(actions))] = summary(view)
    summaries[str(len(actions))] = summary(state.view())
    return {"game": "dice_king", "rules_version": engines.get("dice_king").rules_version, "players": players,
            "seed": seed, "actions": actions, "view_sha256": digests, "summaries": summaries,
            "scores": state.scores(), "ranking": state.ranking()}


def path_for(players: int, seed: int) -> Path:
    return GOLDEN / f"dice_king_{players}p_seed{seed}.json"


def main() -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    GOLDEN.mkdir(exist_ok=True)
    for players, seed in PLAYTHROUGHS:
        path_for(players, seed).write_text(json.dumps(record(players, seed), indent=1) + "\n")
        print("wrote", path_for(players, seed))


if __name__ == "__main__":
    main()

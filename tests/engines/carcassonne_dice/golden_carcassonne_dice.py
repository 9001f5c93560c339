"""Record and check golden Carcassonne dice-game playthroughs (tests/engines/carcassonne_dice/golden/).

A golden file pins a whole match: the configuration, the actions, the SHA-256 of every ``view()`` (as
canonical JSON) and the full view at a few steps. The actions were chosen by the example bots (greedy
against greedy or random), so the recorded games close cities, score and end on 42 points rather than at
the round cap; the check only replays the stored actions, so later changes to the bots do not matter.
If the dice, a rule or an encoding changes, the check fails and shows at which step.

Regenerate, only after a deliberate change (and bump ``CarcassonneDice.rules_version`` if recorded
matches would replay differently)::

    .venv/bin/python tests/engines/carcassonne_dice/golden_carcassonne_dice.py
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "bots" / "examples" / "carcassonne_dice"

# name -> (players, seed, options, bot file per seat)
PLAYTHROUGHS = {
    "two_players_greedy": (2, 2026, {"equal_turns": False}, ["greedy_bot.py", "greedy_bot.py"]),
    "three_players_equal_turns": (3, 77, {"equal_turns": True}, ["greedy_bot.py", "random_bot.py", "greedy_bot.py"]),
}


def digest(view: dict) -> str:
    return hashlib.sha256(json.dumps(view, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def record(players: int, seed: int, options: dict, bot_files: list[str]) -> dict:
    """Play the match with the example bots and return its golden record."""
    import engines
    from bots.loader import load_bot

    game = engines.get("carcassonne_dice")
    bots = [load_bot(EXAMPLES / name, game=game.name, seat=seat, players=players, options=options,
                     module_name=f"golden_{seat}") for seat, name in enumerate(bot_files)]
    state = game.new_state(players, seed, options)
    actions = []
    while not state.is_terminal():
        seat = state.current_player()
        action = bots[seat](state.observation(seat), state.legal_actions())
        state.apply(action)
        actions.append(action)
    views = engines.replay(game.name, players, seed, options, actions)
    checkpoints = sorted({0, 1, len(actions) // 3, len(actions) // 2, len(actions)})
    return {
        "game": game.name,
        "rules_version": game.rules_version,
        "players": players,
        "seed": seed,
        "options": options,
        "bots": bot_files,
        "actions": actions,
        "view_digests": [digest(view) for view in views],
        "checkpoints": {str(step): views[step] for step in checkpoints},
        "scores": state.scores(),
        "ranking": state.ranking(),
    }


def main() -> None:
    sys.path.insert(0, str(ROOT))
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name, (players, seed, options, bot_files) in PLAYTHROUGHS.items():
        path = GOLDEN_DIR / f"{name}.json"
        path.write_text(json.dumps(record(players, seed, options, bot_files), indent=1, sort_keys=True) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

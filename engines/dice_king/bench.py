"""Random-playout speed of the Dice King engine: games per second and decisions per game.

    .venv/bin/python -m engines.dice_king.bench [games per player count] [--profile]

Each game plays uniformly random legal actions (chosen by ``random.Random(seed)``) from ``new_state`` to
the end, so the figure is engine time only: no observations are built.
"""

from __future__ import annotations

import cProfile
import pstats
import random
import sys
import time

import engines


def playout(players: int, seed: int) -> int:
    """Play one random game; return the number of decisions."""
    state = engines.get("dice_king").new_state(players, seed)
    chooser = random.Random(seed)
    decisions = 0
    while not state.is_terminal():
        state.apply(chooser.choice(state.legal_actions()))
        decisions += 1
    return decisions


def measure(players: int, games: int) -> dict:
    start = time.perf_counter()
    decisions = [playout(players, seed) for seed in range(games)]
    elapsed = time.perf_counter() - start
    return {"players": players, "games": games, "games_per_s": games / elapsed,
            "ms_per_game": 1000 * elapsed / games, "decisions_per_game": sum(decisions) / games}


def main(argv: list[str]) -> None:
    games = int(next((arg for arg in argv if arg.isdigit()), "300"))
    for players in (2, 3, 4):
        row = measure(players, games)
        print(f"{players} players: {row['games_per_s']:.0f} games/s ({row['ms_per_game']:.2f} ms/game), "
              f"{row['decisions_per_game']:.1f} decisions/game over {games} games")
    if "--profile" in argv:
        profiler = cProfile.Profile()
        profiler.runcall(lambda: [playout(3, seed) for seed in range(100)])
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main(sys.argv[1:])

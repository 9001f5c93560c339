"""Random-playout speed of the Draftosaurus engine: games per second and decisions per game.

    .venv/bin/python tests/engines/draftosaurus/bench_draftosaurus.py [--games N] [--profile]

Each game is dealt from its own seed and played with uniformly random legal actions (legal_actions and
apply only, as a referee's fallback would). ``--profile`` runs cProfile over the 4-player summer games.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import engines


def playouts(players: int, options: dict, games: int) -> tuple[float, float]:
    """(games per second, decisions per game) over ``games`` random playouts."""
    game = engines.get("draftosaurus")
    chooser = random.Random(0)
    decisions = 0
    start = time.perf_counter()
    for seed in range(games):
        state = game.new_state(players, seed, options)
        while not state.is_terminal():
            state.apply(chooser.choice(state.legal_actions()))
            decisions += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, decisions / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    for options in ({"board": "summer", "mode": "single"}, {"board": "winter", "mode": "single"},
                    {"board": "summer", "mode": "summer_winter"}):
        for players in (2, 3, 4, 5):
            rate, decisions = playouts(players, options, args.games)
            print(f"{options['board']:6} {options['mode']:13} {players}p: {rate:7.0f} games/s "
                  f"({1000 / rate:.2f} ms/game), {decisions:.1f} decisions/game")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(playouts, 4, {"board": "summer", "mode": "single"}, args.games)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()

"""Random-playout speed of the Kingdomino engine: ``.venv/bin/python -m engines.kingdomino.bench``.

Prints games per second and decisions per game for each player count (and the Mighty Duel), playing
uniformly random legal actions the way the conformance suite does. ``--profile`` adds a cProfile of the
2-player playouts sorted by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

from engines.kingdomino import Kingdomino

CONFIGURATIONS = (("2 players", 2, {}), ("3 players", 3, {}), ("4 players", 4, {}),
                  ("Mighty Duel", 2, {"mighty_duel": True}))


def playouts(players: int, options: dict, games: int) -> int:
    """Play ``games`` random games; return the number of decisions taken."""
    game = Kingdomino()
    decisions = 0
    for seed in range(games):
        state = game.new_state(players, seed, options)
        chooser = random.Random(seed)
        while not state.is_terminal():
            state.apply(chooser.choice(state.legal_actions()))
            decisions += 1
    return decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    for label, players, options in CONFIGURATIONS:
        start = time.perf_counter()
        decisions = playouts(players, options, args.games)
        elapsed = time.perf_counter() - start
        print(f"{label:12} {args.games / elapsed:8.0f} games/s  {1000 * elapsed / args.games:6.2f} ms/game  "
              f"{decisions / args.games:6.1f} decisions/game")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(playouts, 2, {}, args.games)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()

"""Random-playout speed of the engine: ``.venv/bin/python -m engines.carcassonne_dice.bench [--profile]``.

Plays uniformly random legal actions (as the conformance suite does) and prints games per second and the
average number of decisions per game for 2 and 5 players. ``--profile`` runs cProfile over the 2-player
games and prints where the time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

import engines


def random_playout(players: int, seed: int) -> int:
    """Play one random game; return its number of decisions."""
    state = engines.get("carcassonne_dice").new_state(players, seed)
    chooser = random.Random(seed)
    decisions = 0
    while not state.is_terminal():
        state.apply(chooser.choice(state.legal_actions()))
        decisions += 1
    return decisions


def measure(players: int, games: int) -> tuple[float, float, float]:
    """(games per wall-clock second, games per CPU second, decisions per game) over seeded playouts.

    CPU time is reported too because the machine may be shared: it is what the engine itself costs.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    decisions = sum(random_playout(players, seed) for seed in range(games))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return games / wall, games / cpu, decisions / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    for players in (2, 5):
        rate, cpu_rate, decisions = measure(players, args.games)
        print(f"{players} players: {rate:7.1f} games/s wall, {cpu_rate:7.1f} games/s CPU, "
              f"{decisions:7.1f} decisions/game, {1e6 / (cpu_rate * decisions):5.1f} us CPU/decision")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        measure(2, args.games)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()

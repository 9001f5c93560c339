"""Random-playout speed of an engine, the one harness behind every ``engines/<game>/bench.py``.

    .venv/bin/python -m engines.<game>.bench [--games N] [--observe] [--profile]

Each game is dealt from its own seed and played with uniformly random legal actions (chosen by
``random.Random(seed)``) from ``new_state`` to the end: ``legal_actions`` and ``apply`` per decision, as a
referee's fallback would, and with ``--observe`` also the mover's ``observation``, as a referee asks
for every decision. Figures are per configuration: games per second (wall clock and CPU, since the
machine may be shared: CPU time is what the engine itself costs), decisions per game and CPU
microseconds per decision. ``--profile`` adds a cProfile of the first configuration sorted by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

import engines


def random_playout(game: str, players: int, seed: int, options: dict | None = None, *,
                   observe: bool = False) -> int:
    """Play one random game; return its number of decisions."""
    state = engines.get(game).new_state(players, seed, options)
    chooser = random.Random(seed)
    decisions = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        if observe:
            state.observation(state.current_player())
        state.apply(chooser.choice(legal))
        decisions += 1
    return decisions


def measure(game: str, players: int, options: dict | None, games: int, *, observe: bool = False) -> dict:
    """Games per wall-clock and per CPU second, decisions per game and CPU microseconds per decision."""
    wall, cpu = time.perf_counter(), time.process_time()
    decisions = sum(random_playout(game, players, seed, options, observe=observe) for seed in range(games))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"games_per_s": games / wall, "games_per_cpu_s": games / cpu, "decisions_per_game": decisions / games,
            "cpu_us_per_decision": 1e6 * cpu / decisions}


def main(game: str, configurations: list[tuple[str, int, dict | None]], default_games: int = 200) -> None:
    """The command line of ``engines.<game>.bench``: ``configurations`` are ``(label, players, options)``."""
    parser = argparse.ArgumentParser(description=f"Random-playout speed of the {game} engine.")
    parser.add_argument("--games", type=int, default=default_games, help="games per configuration")
    parser.add_argument("--observe", action="store_true", help="also build the mover's observation")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    for label, players, options in configurations:
        row = measure(game, players, options, args.games, observe=args.observe)
        print(f"{label:22} {row['games_per_s']:8.1f} games/s wall {row['games_per_cpu_s']:8.1f} games/s CPU "
              f"{row['decisions_per_game']:7.1f} decisions/game {row['cpu_us_per_decision']:6.1f} us CPU/decision")
    if args.profile:
        _, players, options = configurations[0]
        profiler = cProfile.Profile()
        profiler.runcall(measure, game, players, options, args.games, observe=args.observe)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)

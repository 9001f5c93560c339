"""Pure scheduling rules (no database): round-robin pairings with balanced seats, duplicate round robins
(every deal in every seat rotation), derived seeds. The ladder's pairing is ``ladder.ratings.pairing``.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence

# Seeds are stored as signed 64-bit integers; keep them non-negative and below 2**63.
_SEED_MASK = (1 << 63) - 1


def derive_seed(base_seed: int, index: int) -> int:
    """The seed of match number ``index`` of a schedule whose seed is ``base_seed``.

    A hash, not ``base_seed + index``, so that two tournaments with nearby seeds share no games. Stable
    across machines and Python versions.
    """
    digest = hashlib.sha256(f"{base_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & _SEED_MASK


def derive_deal_seed(base_seed: int, deal: int) -> int:
    """The seed of deal number ``deal`` of a duplicate schedule whose seed is ``base_seed``: shared by all
    the rotations of that deal, and distinct from :func:`derive_seed`'s match seeds of the same base."""
    digest = hashlib.sha256(f"{base_seed}:deal:{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & _SEED_MASK


def round_robin_count(bots: int, players: int, games_per_pairing: int) -> int:
    """How many matches :func:`round_robin` schedules."""
    if players > bots:
        return 0
    return _combinations(bots, players) * games_per_pairing


def _combinations(n: int, k: int) -> int:
    from math import comb

    return comb(n, k)


def round_robin(bot_ids: Sequence[int], players: int, games_per_pairing: int) -> list[tuple[int, ...]]:
    """Every combination of ``players`` bots, each ``games_per_pairing`` times, as seat orders.

    Game ``g`` of a pairing seats the combination rotated by ``g`` places, so over ``players`` games every
    bot of the pairing sits in every seat once; when ``games_per_pairing`` is a multiple of ``players``
    every bot sits in every seat equally often, otherwise the counts differ by at most one.
    For two players and two games per pairing that is both seat orders.
    """
    if players < 1 or games_per_pairing < 1:
        raise ValueError("players and games_per_pairing must be at least 1")
    schedule = []
    for combo in itertools.combinations(sorted(bot_ids), players):
        for game in range(games_per_pairing):
            shift = game % players
            schedule.append(tuple(combo[shift:] + combo[:shift]))
    return schedule


def duplicate_round_robin_count(bots: int, players: int, deals_per_pairing: int) -> int:
    """How many matches :func:`duplicate_round_robin` schedules: every rotation of every deal."""
    return round_robin_count(bots, players, deals_per_pairing) * players


def duplicate_round_robin(
    bot_ids: Sequence[int], players: int, deals_per_pairing: int
) -> list[tuple[int, tuple[int, ...]]]:
    """Every combination of ``players`` bots, each with ``deals_per_pairing`` deals, every deal played
    once in each of the ``players`` cyclic seat rotations of its combination, as ``(deal, seat order)``.

    Deals are numbered 0, 1, ... across the whole schedule, so a deal number names one combination's
    deal; its rotations come one after the other. Over a deal each bot sits in every seat once: for two
    players that is both seat orders.
    """
    if players < 1 or deals_per_pairing < 1:
        raise ValueError("players and deals_per_pairing must be at least 1")
    schedule = []
    deal = 0
    for combo in itertools.combinations(sorted(bot_ids), players):
        for _ in range(deals_per_pairing):
            for shift in range(players):
                schedule.append((deal, tuple(combo[shift:] + combo[:shift])))
            deal += 1
    return schedule

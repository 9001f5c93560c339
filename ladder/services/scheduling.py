"""Pure scheduling rules (no database): round-robin pairings with balanced seats, duplicate round robins
(every deal in every seat rotation), derived seeds, ladder pairing by rating.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Callable, Sequence

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


def ladder_pairings(
    candidates: Sequence[tuple[int, float, int]],
    *,
    players: int,
    matches: int,
    rng: random.Random,
    may_seat: Callable[[Sequence[int]], bool] | None = None,
) -> list[tuple[int, ...]]:
    """Up to ``matches`` groups of ``players`` distinct bots for the ladder.

    ``candidates`` are ``(bot_id, elo, games)``. Each group starts from the bot with the fewest games (ties
    broken at random) and adds the bots closest to it in rating, so new bots get games quickly and games
    are between bots of similar strength. A bot is used at most once per call.

    ``may_seat`` (bot ids -> whether one match may seat them together; for rated play
    ``rated_play.seating_owners_distinct``) is asked before each bot joins a group: one that may not is
    passed over for the next closest, and an anchor for whom no full group can be formed sits this call
    out (the bots it passed over stay in the pool for the next groups).
    """
    pool = list(candidates)
    rng.shuffle(pool)
    groups: list[tuple[int, ...]] = []
    while len(groups) < matches and len(pool) >= players:
        pool.sort(key=lambda c: c[2])
        anchor = pool.pop(0)
        pool.sort(key=lambda c: abs(c[1] - anchor[1]))
        group, taken = [anchor[0]], set()
        for position, (bot_id, _, _) in enumerate(pool):
            if len(group) == players:
                break
            if may_seat is None or may_seat([*group, bot_id]):
                group.append(bot_id)
                taken.add(position)
        if len(group) < players:
            continue
        pool = [candidate for position, candidate in enumerate(pool) if position not in taken]
        rng.shuffle(group)
        groups.append(tuple(group))
    return groups

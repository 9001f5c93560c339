"""Kingdomino: build a 5x5 kingdom of dominoes; the pick order of the next line is the whole game.

Rules: ``docs/rules/kingdomino.md`` (ids ``KD-*`` and ``ED-*`` in the code and tests). 2 to 4 players;
options ``middle_kingdom``, ``harmony``, ``mighty_duel`` (2 players, 7x7, all 48 dominoes), ``dynasty``
(three games, total score) and ``initial_pick`` (``"random_kings"``, or the seed's 2-player ``"snake"``).
Sequential decisions, chance only at setup, hidden information: the draw pile's order and the set-aside
dominoes.

Observation (``observation(seat)``), a JSON object::

    game, options, players
    you                 your seat (0-based)
    grid_size           K: 5 (7 in the Mighty Duel); a kingdom must fit in K x K
    frame_size          2K-1: each grid is frame_size x frame_size, castle at the centre
    castle              [K-1, K-1], the castle's cell in every grid
    game_index          0 (Dynasty: 0, 1, 2)
    phase               "initial_pick" | "place" | "pick" | "game_over"
    round, rounds_total round counts from 1 (0 during the initial pick)
    to_act              {"seat", "king", "line_position"} of the acting king (line_position is null in
                        the initial pick), or null when the game is over
    current_line        [{"position", "domino", "king", "done"}], position 0 acts first; domino is
                        {"n": 17, "a": ["forest", 0], "b": ["lake", 0]}; king is {"seat", "king"} or null;
                        done is true once that domino was placed or discarded
    next_line           [{"position", "domino", "king"}] being claimed this round, or null (last round
                        and initial pick)
    kingdoms            per seat {"seat", "grid", "placed", "discarded", "base_score",
                        "largest_property", "crowns"}; grid[r][c] is "" (empty), "C" (castle) or a
                        terrain letter W F L G S M followed by crowns ("M2"); placed lists [n, r, c, o]
    draw_pile_count     dominoes still to be drawn (their order is secret)
    unseen_dominoes     numbers never shown in a line (ascending): the pile and the set-aside ones
    history             [{"seat", "king", "action", "domino"}] every decision of this game so far
    match_scores        totals of the earlier Dynasty games (zeros otherwise)

``view()`` has the same fields without ``you``, plus ``draw_pile`` (in draw order) and ``set_aside``.

Actions (exactly one element of ``legal_actions()``):

* ``{"pick": p}`` in ``initial_pick`` (a position of ``current_line``) and in ``pick`` (a position of
  ``next_line``); the engine asks even when only one position is left.
* ``{"place": [r, c, o]}`` in ``place``: square A of your domino goes on grid cell (r, c), square B on its
  neighbour in direction o (0 east, 1 south, 2 west, 3 north). It must not overlap, must keep the
  kingdom within K x K, and one square must touch the castle or the same terrain.
* ``{"discard": true}`` in ``place``, the only action when no placement is legal.

Legal actions are sorted: placements by r, then c, then o; picks by position. A king turn is two
decisions by the same seat: place (or discard), then pick (none in the last round).

Scores: ``scores()`` is the running base score (sum of squares x crowns over properties), plus bonuses
once the game is over, plus earlier Dynasty games. Ties break on largest property, then total crowns.
"""

from __future__ import annotations

import engines
from engines.base import GameEngine, GameFacts, Information
from engines.kingdomino.state import DYNASTY_GAMES, KingdominoState

FACTS = GameFacts(
    name="kingdomino",
    title="Kingdomino",
    min_players=2,
    max_players=4,
    chance=True,  # the shuffled pile and the initial pick order (KD-2), again for each Dynasty game;
    # streams ("pile", game) and ("pick_order", game), see engines.kingdomino.state
    simultaneous=False,
    information=Information.IMPERFECT,  # the draw order and the set-aside dominoes are secret (ED-6)
    # A game asks at most 4 initial picks and a place and a pick per domino (48 at most); Dynasty plays 3.
    max_game_length=DYNASTY_GAMES * (4 + 2 * 48),
    rules_version=2,  # 2: the deals come from named chance streams (ChanceStreams)
)


class Kingdomino(GameEngine):
    """The Kingdomino game (Blue Orange, 2016) with its rulebook variants."""

    facts = FACTS

    def default_options(self) -> dict:
        return {"middle_kingdom": False, "harmony": False, "mighty_duel": False, "dynasty": False,
                "initial_pick": "random_kings"}

    def option_choices(self) -> dict[str, list]:
        flags = [False, True]
        return {"middle_kingdom": flags, "harmony": flags, "mighty_duel": flags, "dynasty": flags,
                "initial_pick": ["random_kings", "snake"]}

    def variants(self) -> list[tuple[int, dict]]:
        """Each player count with the defaults and with each bonus rule and Dynasty; the 2-player-only
        Mighty Duel and snake pick; and one combination of everything that can be combined."""
        def with_(players: int, **changes) -> tuple[int, dict]:
            return players, {**self.default_options(), **changes}

        configurations = []
        for players in range(self.min_players, self.max_players + 1):
            configurations += [with_(players), with_(players, middle_kingdom=True),
                               with_(players, harmony=True), with_(players, dynasty=True)]
        configurations += [
            with_(2, mighty_duel=True),
            with_(2, initial_pick="snake"),
            with_(2, mighty_duel=True, middle_kingdom=True, harmony=True, dynasty=True, initial_pick="snake"),
        ]
        return configurations

    def _new_state(self, players: int, seed: int, options: dict) -> KingdominoState:
        """A new match; ``ValueError`` for a 2-player option with more players (KD-9)."""
        if players != 2:
            for option, value in (("mighty_duel", True), ("initial_pick", "snake")):
                if options[option] == value:
                    raise ValueError(f"option {option}={value!r} of kingdomino is for 2 players only, "
                                     f"not {players}")
        return KingdominoState(players, seed, options)


engines.register(Kingdomino())

"""Carcassonne: The Dice Game - push-your-luck dice, knights, catapults and closed cities on a grid.

The rules are docs/rules/carcassonne_dice.md (rule ids ``CD-...``, engine decisions ``ED-...``).
What this engine demonstrates: decisions that come in long chains inside one turn (collect, build, build,
roll, ...), with the legal placements kept incremental per plane. All information is public.

A turn in short: the active seat rolls every die in its pool (up to 3 rolls). Catapults are handed to the
left neighbour at once. After each roll the player may collect rolled knights and build rolled city faces
into its city area, then roll the rest again or stop. Only the largest *closed* city scores:
3..9 dice give 1, 3, 6, 10, 15, 21, 28 points. With 3+ collected knights the player may instead keep one
knight, score nothing, and have the next turn doubled. 42 points (or 9 catapults in one turn) win at once.

Dice faces (CD-1.3; edge codes list N, E, S, W; ``C`` city, ``F`` field; rotation r turns the face r
quarter turns clockwise, so direction d shows the rotation-0 edge of direction (d - r) mod 4):

    CAP CFFF    CORNER CCFF    BAND CFCF    TRIPLE CCCF    KNIGHT    CATAPULT

Geometry: each turn's built dice lie in planes 0, 1, 2, ... (in the order started). A plane's first die
is at (0, 0) with rotation 0; x grows East, y grows North. A die built into an existing plane goes on an
empty cell next to that plane, rotated so that every touching edge matches (city to city, field to field).
A city is a group of dice joined through city edges; it is closed when no city edge faces an empty cell.

Observation (``observation(seat)``; ``view()`` is the same without ``you``)::

    {
      "game": "carcassonne_dice", "options": {"equal_turns": false},
      "players": 4, "you": 2,
      "phase": "resolve" | "knight_choice" | "game_over",
      "to_act": 2,                    # seat to decide, null once the game is over
      "active": 2,                    # seat whose turn it is (the last one, once the game is over)
      "round": 3, "turn_index": 10,   # turn_index counts turns from 0; round = turn_index // players + 1
      "scores": [12, 30, 0, 7],
      "reserved_knight": [false, true, false, false],   # knights kept in front of seats right now
      "turn": {
        "doubled": false,             # the active seat returned its own knight: points count double
        "rolls_made": 2, "rolls_left": 1,
        "pool": [{"die": 0, "face": "CAP"}, {"die": 4, "face": "KNIGHT"}],   # latest roll, unresolved
        "collected_knights": 1, "collected_dice": [3],
        "catapults": 2, "catapulted_dice": [1, 6],        # handed to the left neighbour this turn
        "planes": [{"plane": 0, "dice": [
            {"die": 2, "face": "BAND", "x": 0, "y": 0, "r": 0, "edges": "CFCF"}]}],   # edges rotated
        "cities": [{"plane": 0, "dice": [2], "size": 1, "closed": false, "open_edges": 2}],
        "score_if_stop": 0            # what scoring now would bring, doubling included
      },
      "history": [...],               # public log of the previous turn and the current one
      "winner": null,                 # then the list of seats placed first
      "end_reason": null              # then "42_points", "nine_catapults", "equal_turns" or "round_cap"
    }

History covers two turns so that views stay small (a replay frame per decision); everything that
matters for play is in the other fields, and a bot that wants the whole log can keep it (a ``Bot``
instance lives for the whole match). Entries: ``{"seat", "action"}`` for every decision, and events ``{"seat", "event": "turn_start",
"dice", "doubled"}``, ``{"seat", "event": "roll", "roll", "faces"}`` (faces of the pool dice in ascending
die id, catapults included), ``{"seat", "event": "catapults", "count", "turn_total", "to"}``,
``{"seat", "event": "auto_stop"}``, ``{"seat", "event": "score", "city_size", "points", "doubled",
"total"}``, ``{"seat", "event": "keep_knight", "die"}``, ``{"seat", "event": "pass", "to"}`` and
``{"event": "game_over", "reason", "winner"}``.

Actions (each is exactly one element of ``legal_actions()``, listed in this order):

    {"collect": "KNIGHT"}                 resolve: set aside one rolled knight
    {"build": ["CORNER", "new"]}          resolve: start a new plane with a rolled CORNER at (0, 0), r = 0
    {"build": ["CORNER", 0, 1, 0, 3]}     resolve: build a rolled CORNER in plane 0 at x=1, y=0, r=3
    {"roll": true}                        resolve: re-roll every pool die (rolls_made < 3, pool not empty)
    {"stop": true}                        resolve: end the rolling; scoring or the knight choice follows
    {"score": true}                       knight_choice: score normally
    {"keep_knight": true}                 knight_choice: score 0, keep one knight, next turn doubled

Builds are sorted by (face id, plane, x, y, r), "new" first; the dice are identical, so an action names a
face and the engine uses the lowest-id pool die showing it. ``BAND`` lists only rotations 0 and 1.

Option: ``equal_turns`` (bool, default false): on reaching 42 the round is finished so every seat has had
as many turns, then the highest total wins (CD-9.4).
"""

from __future__ import annotations

import engines
from engines.base import GameEngine, GameFacts, Information
from engines.carcassonne_dice.state import DICE, MAX_ROLLS, ROUND_CAP, CarcassonneDiceState

FACTS = GameFacts(
    name="carcassonne_dice",
    title="Carcassonne: The Dice Game",
    min_players=2,
    max_players=5,
    chance=True,  # every roll (CD-4), from stream ("dice", round) (engines.carcassonne_dice.state)
    simultaneous=False,
    information=Information.PERFECT,  # everything on the table is public (rules 12)
    # At most ROUND_CAP rounds of 5 turns (CD-9.3); a turn resolves each die at most once, re-rolls at
    # most twice, stops once and may make the knight choice.
    max_game_length=ROUND_CAP * 5 * (DICE + (MAX_ROLLS - 1) + 2),
    rules_version=2,  # 2: the dice come from named chance streams, a face per die, roll and turn
)


class CarcassonneDice(GameEngine):
    """Carcassonne: The Dice Game for 2 to 5 players."""

    facts = FACTS

    def default_options(self) -> dict:
        """``equal_turns`` off: the official immediate win at 42 (CD-9.1)."""
        return {"equal_turns": False}

    def option_choices(self) -> dict:
        """``equal_turns`` is a boolean."""
        return {"equal_turns": [False, True]}

    def variants(self) -> list[tuple[int, dict]]:
        """Every player count with the official rule, and again with ``equal_turns`` (CD-9.4)."""
        counts = range(self.min_players, self.max_players + 1)
        return [(players, {"equal_turns": False}) for players in counts] + [
            (players, {"equal_turns": True}) for players in counts
        ]

    def _new_state(self, players: int, seed: int, options: dict) -> CarcassonneDiceState:
        """A match with seat 0 to start (ED-8); its first roll is already made (CD-4.1)."""
        return CarcassonneDiceState(players, seed, options)


engines.register(CarcassonneDice())

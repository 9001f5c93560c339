"""Draftosaurus: drafting dinosaurs into a zoo, with simultaneous hidden choices and hand passing.

This engine demonstrates the hardest information model of the ladder: every seat chooses at the same
time from a hidden hand, hands travel round the table, and a seat may know only its own hand, the hands it
held earlier in the round, and never what another seat chose in the same step. The rules are
``docs/rules/draftosaurus.md`` (rule ids ``DS-x.y``, engine decisions ``ED-n``).

Options (ED-19): ``{"board": "summer" | "winter", "mode": "single" | "summer_winter"}``, defaults
``{"board": "summer", "mode": "single"}``. ``summer_winter`` plays a summer game, then a winter game, and
ranks on the sum (DS-10.3); ``board`` is then ignored. 2 to 5 players; with 2 players each turn has a
place step and a discard step and the hands are swapped (DS-4).

Species (canonical order): ``t_rex``, ``triceratops``, ``stegosaurus``, ``spinosaurus``,
``parasaurolophus``, ``brachiosaurus``. Die faces: ``woodlands``, ``grasslands``, ``restrooms`` (right
of the River), ``food_court`` (left), ``empty_pen``, ``no_t_rex``.

Decisions
---------
Simultaneous steps are asked one seat at a time in ascending seat order; ``current_player()`` is the
lowest seat that has not chosen yet. Your choice stays secret (and in your hand) until all have chosen.

* ``place`` phase: ``{"dino": "triceratops", "to": "forest_of_sameness"}``, or for the Pyramid
  ``{"dino": "t_rex", "to": "pyramid", "cell": "B2"}``; ``"to": "river"`` is always legal.
* ``discard`` phase (2 players): ``{"discard": "stegosaurus"}``.
* ``quarantine`` phase (end of a winter game, only seats with an occupied Quarantine Zone):
  ``{"to": "lookout"}``, ``{"to": "pyramid", "cell": "B3"}`` or ``{"to": "river"}``.

``legal_actions()`` lists exactly the legal actions: by species (canonical order), then destination in
board order (summer: forest_of_sameness, meadow_of_differences, prairie_of_love, woody_trio,
king_of_the_jungle, solitary_island, river; winter: well_ordered_wood, lovers_bridge_left,
lovers_bridge_right, pyramid cells B1 B2 B3 M1 M2 T, lookout, quarantine_zone, river). The die is
already applied: if ``die_applies_to_you`` is true, only pens allowed by the face appear.

Observation (``observation(seat)``)
-----------------------------------
::

    game, options, board ("summer"/"winter": the side in play), game_index (0, or 1 in game 2 of
    summer_winter), players, you (your seat),
    phase: "place" | "discard" | "quarantine" | "game_over",
    round, rounds_total, turn (from 1, restarts each round), turns_per_round,
    roller (seat that rolled, null outside place/discard), die (face or null),
    die_applies_to_you (true only in the place phase when you are not the roller),
    hand: your dinosaurs, canonical order,
    hand_sizes: per seat,
    known_hands: [{"holder": seat, "dinos": [...]}] every hand you held earlier this round, by holder,
    zoos: per seat {"seat", "pens": {pen: [dinos]} (the pyramid is {"B1": dino|null, ...}),
                    "river": [...], "t_rex_count", "score" (this game, provisional until the end)},
    chosen: seats that already decided in this step (not what they chose),
    discards: [{"seat", "dino"}] revealed 2-player discards of this game,
    bag: {"initial": {species: count}, "remaining": n},
    unseen: {species: count} dinosaurs you have not seen (in the bag or in hands you do not know),
    history: this game's turns [{"round", "turn", "roller", "die", "placements": [{"seat", "dino",
             "to", ("cell")}], "discards": [...]}] and possibly a last {"quarantine": [...]},
    match_scores, match_t_rex: game 1's totals during game 2 of summer_winter, else zeros.

``view()`` has the same fields except ``you``, ``hand``, ``die_applies_to_you``, ``known_hands`` and
``unseen``, plus ``hands`` (every hand), ``pending`` (each seat's hidden choice or null) and
``bag_order`` (next drawn first).

Scores and ranking: ``scores()`` is the match score so far (provisional during play); ``ranking()``
orders by score, then fewest T-Rexes in the zoo (River included), then a shared place.
"""

from __future__ import annotations

import engines
from engines.base import GameEngine, GameFacts, Information
from engines.draftosaurus.board import SETUPS
from engines.draftosaurus.state import DraftosaurusState

__all__ = ["FACTS", "Draftosaurus", "DraftosaurusState"]

FACTS = GameFacts(
    name="draftosaurus",
    title="Draftosaurus",
    min_players=min(SETUPS),
    max_players=max(SETUPS),
    chance=True,  # the bag's order and the placement die (ED-1): streams ("bag", game) and ("die", game)
    simultaneous=True,  # every step is chosen by all asked seats at once, asked one at a time (ED-5)
    information=Information.IMPERFECT,  # hands, the bag's order and pending choices are secret
    # Every seat decides once per step (twice per turn with 2 players), plus one Quarantine step at the
    # end of a winter game; summer_winter plays two games.
    max_game_length=2 * max(setup.rounds * setup.turns_per_round * players * (2 if players == 2 else 1)
                            + players for players, setup in SETUPS.items()),
    rules_version=2,  # 2: the bag and the dice come from named chance streams (ChanceStreams)
)


class Draftosaurus(GameEngine):
    """Draftosaurus for 2 to 5 players on the summer or winter zoo, or both in a row."""

    facts = FACTS

    def default_options(self) -> dict:
        return {"board": "summer", "mode": "single"}

    def option_choices(self) -> dict:
        return {"board": ["summer", "winter"], "mode": ["single", "summer_winter"]}

    def variants(self) -> list[tuple[int, dict]]:
        """Each player count on the summer side, on the winter side, and in summer-then-winter mode."""
        configurations = []
        for options in (
            {"board": "summer", "mode": "single"},
            {"board": "winter", "mode": "single"},
            {"board": "summer", "mode": "summer_winter"},
        ):
            for players in range(self.min_players, self.max_players + 1):
                configurations.append((players, dict(options)))
        return configurations

    def _new_state(self, players: int, seed: int, options: dict) -> DraftosaurusState:
        """A new match: the bag shuffled and the first hands drawn from ``seed`` (ED-1)."""
        return DraftosaurusState(players, seed, options)


engines.register(Draftosaurus())

"""King of the Dice: The Board Game (HABA 2021, *Dobbelkoning*), rules of ``docs/rules/dice_king.md``.

What the game demonstrates: push-your-luck dice with free re-rolls, conditions that are data (a small
grammar, :mod:`.conditions`), joker dice made from pairs of cards, and area control on a map. Chance
(stack shuffles, removed tiles, start roll-off, dice, tile draws) comes from streams of
:class:`engines.chance.ChanceStreams` named by purpose and position (``("dice", round)`` with a block per
turn, ``("tile", round)`` with a block per draw, ...; :mod:`.state` lists them), so a re-roll or a longer
effect changes no later draw. Hidden information is the two removed tiles, the supply's content and the order of the stacks below
their display cards. The substitute components live in one module each:
:mod:`.board` (map, Appendix A), :mod:`.cards` (60 cards, Appendix B), :mod:`.dice` (Appendix C).

Players: 2 to 4. Options: none (``{}``; any key is refused).

Observation (``observation(seat)``, rules section 12.1; ``view()`` is the same without ``you``, plus
``removed_tiles``, ``supply`` and ``stack_order``)::

    game "dice_king", players, you (your seat), to_act (seat or null), phase (one of roll, claim, place,
        steal, tame, brawl, alarm_field, fire_source, game_over)
    turn: active, rolls_made (0-3), dice [{die 0-5, value 1-6, colour R/G/B}] (all 6, or [] before a roll),
        virtual_dice [{colour, value}] (added by jokers this turn), natural_claimable [stacks meeting the
        natural result: the claim duty applies when non-empty], claimable_now [stacks claimable now],
        pending (null, or during an effect/alarm {effect (DWARF, THIEF_CARD, THIEF_GEM, TAMER, BRAWLER,
        LANDOWNER or ALARM), card, tiers (dwarf), drawn [tile ids to pick from], to_place, field (alarm)})
    display: per stack 1-5 {stack, card, effect, condition (canonical string), joker [colour, value]}
        or {stack, card: null} when the stack is empty
    stack_remaining: {"1".."5": card ids below the display card, ascending id (not stack order)}
    map: 30 fields {field, landscape, tile ("T07" or null), owner (seat or null), fire (bool),
        gem ("gold", "white" or null), neighbours [field ids]}
    seats: [{seat, markers_left, gems {gold, white}, fires, front_cards [{card, joker}],
        superjokers [card ids], score_now}]
    general_supply {gold, white, fires}
    tiles {supply_count, removed_count, unplaced_by_landscape {landscape: n} (supply + removed),
        seen_returned_by_landscape {landscape: n} (put back and known to be in the supply)}
    dice_table: 6 strings, die id -> colour of values 1..6 (e.g. "RGRBBG")
    history: public log of actions ({seat, action[, auto]}) and events ({seat, event, ...})
    winner: null until the end, then the seats placed first

Actions (one JSON object each; ``legal_actions()`` lists them in the canonical order of section 12.2)::

    {"reroll": [0, 3, 5]}         re-roll these dice (after roll 1 or 2)
    {"stop": true}                keep the dice, go to claiming (after roll 3 the only action)
    {"joker": ["R", 4, "pair"]}   spend two front cards with joker die R4 for a virtual red 4
    {"joker": ["R", 4, "mixed"]}  spend one R4 front card and one superjoker
    {"joker": ["G", 2, "super"]}  spend two superjokers for any die you name
    {"claim": 3}                  claim the display card of stack 3
    {"alarm": 5}                  dragon alarm, taking stack 5's display card as a superjoker (only when
                                  natural_claimable is empty)
    {"place": ["T09", 22]}        put drawn tile T09 with your marker on free field 22
    {"steal_card": [2, "S3-07"]} / {"steal_gem": [0, "gold"]} / {"pass": true}   the thief's steal
    {"tame": 26}                  take the dragon fire on field 26 and put your marker there
    {"brawl": 13}                 replace the nearest opponent marker on field 13 with yours
    {"alarm_field": 18}           put the alarm tile (and a dragon fire) on free field 18
    {"fire_from": 2}              take the alarm's dragon fire from seat 2's zone

Decisions with a single option outside rolling and claiming are taken by the engine (ED-19).
"""

from __future__ import annotations

import engines
from engines.base import GameEngine, GameFacts, Information
from engines.dice_king.board import TILE_COUNT
from engines.dice_king.cards import CARDS
from engines.dice_king.state import MAX_ROLLS, DiceKingState

FACTS = GameFacts(
    name="dice_king",
    title="King of the Dice: The Board Game",
    min_players=2,
    max_players=4,
    chance=True,  # stack shuffles, removed tiles, the start roll-off, dice and tile draws (ED-15), each
    # from its own named stream (engines.dice_king.state)
    simultaneous=False,
    information=Information.IMPERFECT,  # removed tiles, the supply and the stack orders are secret (12.1)
    # Every turn takes a card (a claim or an alarm) or, once they are gone, places a tile, so there are
    # fewer turns than cards and tiles together. A turn asks at most MAX_ROLLS roll decisions, one claim
    # or alarm and three for the effect (two placements and a steal, or a field and a fire's source);
    # each joker spends two cards, so a match has at most half as many jokers as cards.
    max_game_length=(len(CARDS) + TILE_COUNT) * (MAX_ROLLS + 1 + 3) + len(CARDS) // 2,
    rules_version=2,  # 2: named chance streams: each die's own throws, tile tickets per draw
)


class DiceKing(GameEngine):
    """King of the Dice: The Board Game, 2 to 4 players, no options."""

    facts = FACTS

    def default_options(self) -> dict:
        """No options: the game has one rule set."""
        return {}

    def option_choices(self) -> dict:
        return {}

    def _new_state(self, players: int, seed: int, options: dict) -> DiceKingState:
        """A new match for ``players`` seats dealt from ``seed``."""
        return DiceKingState(players, seed)


engines.register(DiceKing())

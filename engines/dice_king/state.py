"""The rules of King of the Dice: The Board Game as a :class:`engines.base.State` (rules DK-2 to DK-10).

The state keeps plain lists indexed by seat and by field, so ``clone`` and playouts stay cheap. Every
decision point lives in ``phase``; :class:`engines.base.State` caches and checks the legal actions.
Decisions the rules let the engine take (ED-19) are applied by :meth:`_settle` and logged with
``"auto": true``. This module holds the turn flow (rolling, jokers, claiming or sounding the alarm) and the
observations; what a claimed card or an alarm then does is :mod:`engines.dice_king.effects`.

Chance (ED-15, as amended for common random numbers): every chance event is drawn from its own stream of
the match's :class:`engines.chance.ChanceStreams`, so no choice (a re-roll, a longer effect, a card taken
instead of another) changes what a later, unrelated event shows. ``turn`` counts the turns of the match
from 0 (the start player's first turn is turn 0, whoever plays it); round ``r = turn // players`` holds
turns ``r * players`` to ``r * players + players - 1``, and ``i = turn % players`` is a turn's place in
its round (the start player's turns have place 0):

* ``("stack", s)`` for stacks 1 to 5: the stack listed in ascending card id, shuffled by Fisher-Yates;
  item 0 is the display card (ED-15 (1));
* ``("supply",)``: the 28 tiles other than the start tiles, in ascending id, shuffled; items 0 and 1 are
  the removed tiles, the others the supply, kept in tile-id order (ED-15 (2));
* ``("roll_off", r, seat)``: round ``r`` (from 0) of the start roll-off, that seat's dice 0 to 5 in die
  order, ``1 + below(6)`` each (ED-15 (3));
* ``("dice", r)``: the dice of round ``r``, 18 numbers per turn (:class:`engines.chance.StreamBlocks`): in
  block ``i``, number ``6 * j + d`` gives the value ``1 + int(u * 6)`` of throw ``j`` (0 for the compulsory
  roll, then 1 and 2) of die ``d``. Each die has its own throws, so re-rolling die 3 shows its next throw
  whichever other dice are re-rolled with it and whichever roll it is (ED-15 (4));
* ``("tile", r)``: the tile draws of round ``r``, 30 numbers per draw: block ``3 * i + k`` holds the
  tickets of the ``k``-th tile drawn in turn ``i`` of the round (from 0, in the order of
  ``pending.drawn``; a turn draws at most 3), one per tile id 0 to 29, and the supply tile with the
  smallest ticket is drawn. That is a uniform draw that depends only on which tiles the supply holds: a
  supply that lacks some tiles (drawn earlier in one play and not in another) draws the same tile as a
  fuller one whenever it holds the tile the fuller one draws (ED-15 (4)).

Tiles put back are re-inserted in tile-id order, which uses no chance.
"""

from __future__ import annotations

from bisect import insort
from typing import Any

from engines.base import State, competition_ranking
from engines.chance import ChanceStreams, StreamBlocks
from engines.dice_king import board
from engines.dice_king.board import (
    FIELD_COUNT,
    FIELD_LANDSCAPE,
    LANDSCAPES,
    NEIGHBOURS,
    START_FIRES,
    START_GEMS,
    TILE_COUNT,
    TILE_LANDSCAPE,
    tile_name,
)
from engines.dice_king.cards import CARDS, DWARF, STACK_CARDS, STACKS
from engines.dice_king.conditions import ResultStats
from engines.dice_king.dice import COLOURS, DICE_COUNT, FACES
from engines.dice_king.effects import (
    ALARM,
    ALARM_FIELD,
    BRAWL,
    EFFECT_PHASES,
    FIRE_SOURCE,
    PLACE,
    STEAL,
    TAME,
    CardEffects,
)
from engines.dice_king.scoring import seat_scores

MARKERS_PER_SEAT = 16
GOLD_GEMS = 6
WHITE_GEMS = 18
DRAGON_FIRES = 15
MAX_ROLLS = 3
REMOVED_TILES = 2

ROLL, CLAIM, GAME_OVER = "roll", "claim", "game_over"
#: Phases whose single legal action the engine applies itself (ED-19); phases 1 and 2 are always asked.
FORCED_PHASES = EFFECT_PHASES
JOKER_KINDS = ("pair", "mixed", "super")

_ROLL_ACTIONS = [{"reroll": [die for die in range(DICE_COUNT) if mask >> die & 1]} for mask in range(1, 64)]
_ROLL_ACTIONS.append({"stop": True})
_STOP_ACTIONS = [{"stop": True}]


_CONTAINERS = (dict, list)


def _json_copy(value: Any) -> Any:
    """A copy of a JSON dict or list that shares no dict or list with it (log entries nest lists).

    Observations and views hand out copies of the log, because only ``apply`` may change a state; scalars
    are shared as they are, which keeps the copy cheap (an observation per decision copies the whole log).
    """
    if type(value) is dict:
        return {key: _json_copy(item) if type(item) in _CONTAINERS else item for key, item in value.items()}
    return [_json_copy(item) if type(item) in _CONTAINERS else item for item in value]


class DiceKingState(CardEffects, State):
    """One position of a match; see the package docstring for observations and actions. What a claimed
    card or an alarm does, from its first decision to the end of the turn, is :class:`CardEffects`."""

    def __init__(self, players: int, seed: int) -> None:
        self.players = players
        self.streams = ChanceStreams(seed)
        self.history: list[dict] = []

        # Map (DK-2.2 to DK-2.4): per field the tile (-1 none), owner (-1 nobody), fire and gem.
        self.tile_at = [-1] * FIELD_COUNT
        self.owner = [-1] * FIELD_COUNT
        self.fire = [False] * FIELD_COUNT
        self.gem: list[str | None] = [None] * FIELD_COUNT
        for field, tile in START_FIRES.items():
            self.tile_at[field] = tile
            self.fire[field] = True
        for field, kind in START_GEMS.items():
            self.gem[field] = kind

        # Seats (DK-2.1) and the general supply (DK-2.6).
        self.markers = [MARKERS_PER_SEAT] * players
        self.gold = [0] * players
        self.white = [1] * players
        self.fires = [0] * players
        self.front: list[list[str]] = [[] for _ in range(players)]
        self.supers: list[list[str]] = [[] for _ in range(players)]
        gold_on_map = sum(1 for kind in START_GEMS.values() if kind == "gold")
        self.supply_gold = GOLD_GEMS - gold_on_map
        self.supply_white = WHITE_GEMS - (len(START_GEMS) - gold_on_map) - players
        self.supply_fires = DRAGON_FIRES - len(START_FIRES)

        # ED-15 (1): each stack in ascending card id, shuffled; index 0 is on display.
        self.stacks: dict[int, list[str]] = {}
        for stack in STACKS:
            self.stacks[stack] = self.streams.stream("stack", stack).shuffled(STACK_CARDS[stack])
        # ED-15 (2): the 28 other tiles, shuffled; items 0 and 1 are removed, the rest is the supply.
        loose = self.streams.stream("supply").shuffled(t for t in range(TILE_COUNT) if t not in START_FIRES.values())
        self.removed = sorted(loose[:REMOVED_TILES])
        self.supply = sorted(loose[REMOVED_TILES:])
        #: Tiles revealed and put back (DK-6.1) and not drawn since: public knowledge of the supply.
        self.seen_returned: list[int] = []

        # The turn: its number, the values its dice will show (see the module docstring), the throws each
        # die has made and the tiles drawn so far in it; and the round's dice and tile streams, as blocks.
        self.turn = -1
        self.round_dice: StreamBlocks | None = None
        self.round_tiles: StreamBlocks | None = None
        self.throws: tuple[int, ...] = ()
        self.throws_made = [0] * DICE_COUNT
        self.turn_draws = 0
        self.active = self._roll_off()
        self.start_player = self.active
        self.phase = ROLL
        self.rolls_made = 0
        self.dice = [0] * DICE_COUNT
        self.virtual: list[tuple[str, int]] = []
        self.natural_claimable: list[int] = []
        self.claimable_now: list[int] = []
        self.pending: dict | None = None
        self.winner_by_markers: int | None = None
        self._start_turn()
        self._settle()

    # --- the State contract ------------------------------------------------------------------------

    def current_player(self) -> int | None:
        """The seat to decide, ``None`` once the game is over."""
        return None if self.phase == GAME_OVER else self.active

    def _apply(self, action: dict) -> None:
        """Play one legal action, then every decision the rules take for the player (ED-19)."""
        self._dispatch(action, auto=False)
        self._settle()

    def _observation(self, player: int) -> dict:
        """What ``player`` may know (rules section 12.1): everything but the removed tiles, the supply's
        content and the order of the stacks below their display cards."""
        obs = self._public()
        obs["you"] = player
        return obs

    def view(self) -> dict:
        """The whole position, for spectators and replays: the public part plus the hidden parts."""
        view = self._public()
        view["removed_tiles"] = [tile_name(tile) for tile in self.removed]
        view["supply"] = [tile_name(tile) for tile in self.supply]
        view["stack_order"] = {str(stack): list(self.stacks[stack][1:]) for stack in STACKS}
        return view

    def is_terminal(self) -> bool:
        return self.phase == GAME_OVER

    def scores(self) -> list[int]:
        """Every seat's DK-9.2 score now (the final score once the game is over)."""
        return seat_scores(self.owner, self.fires, self.gold, self.white)

    def ranking(self) -> list[int]:
        """Places by score then dragon fires (DK-9.3); a 17th-marker winner is first alone (ED-20)."""
        totals = self.scores()
        keys = [
            (1 if seat == self.winner_by_markers else 0, totals[seat], self.fires[seat])
            for seat in range(self.players)
        ]
        return competition_ranking(keys)

    def _copy_parts(self, twin: DiceKingState) -> None:
        for name in ("tile_at", "owner", "fire", "gem", "markers", "gold", "white", "fires", "removed",
                     "supply", "seen_returned", "dice", "throws_made", "virtual", "natural_claimable",
                     "claimable_now", "history"):
            setattr(twin, name, list(getattr(self, name)))
        twin.front = [list(cards) for cards in self.front]
        twin.supers = [list(cards) for cards in self.supers]
        twin.stacks = {stack: list(cards) for stack, cards in self.stacks.items()}
        twin.pending = None if self.pending is None else {**self.pending, "drawn": list(self.pending["drawn"])}

    def resample_hidden(self, player: int, seed: int) -> DiceKingState:
        """A copy with the removed tiles, the unseen supply and the stack orders redrawn from ``seed``.

        Public knowledge is kept: the set of unplaced tiles (all tiles minus those on the map or drawn),
        the tiles known to be in the supply because they were put back, and each display card. The copy's
        streams become ``ChanceStreams(seed)`` (the re-deal is its stream ``("redeal",)``), so its future
        chance, the coming throws of this turn's dice included, is redrawn too and the copy does not know
        the real future rolls.
        """
        twin = self.clone()
        twin.streams = ChanceStreams(seed)
        chance = twin.streams.stream("redeal")
        known = set(self.seen_returned)
        unknown = sorted(tile for tile in self.removed + self.supply if tile not in known)
        chance.shuffle(unknown)
        twin.removed = sorted(unknown[:REMOVED_TILES])
        twin.supply = sorted(unknown[REMOVED_TILES:] + self.seen_returned)
        for stack in STACKS:
            cards = twin.stacks[stack]
            twin.stacks[stack] = cards[:1] + chance.shuffled(sorted(cards[1:]))
        twin._deal_round()
        if twin.throws:
            twin.throws = twin._deal_dice()
        return twin

    # --- turn flow ---------------------------------------------------------------------------------

    def _roll_off(self) -> int:
        """DK-2.8 and ED-5: most sixes starts; tied leaders roll again, in seat order (ED-15 (3))."""
        contenders = list(range(self.players))
        rounds = []
        while True:
            sixes = {}
            rolls = []
            for seat in contenders:
                values = self.streams.stream("roll_off", len(rounds), seat).dice(DICE_COUNT)
                sixes[seat] = values.count(6)
                rolls.append({"seat": seat, "values": values})
            rounds.append(rolls)
            best = max(sixes.values())
            contenders = [seat for seat in contenders if sixes[seat] == best]
            if len(contenders) == 1:
                break
        self.history.append({"event": "start_roll_off", "rounds": rounds, "start_player": contenders[0]})
        return contenders[0]

    def _start_turn(self) -> None:
        self.turn += 1
        if self.turn % self.players == 0:
            self._deal_round()
        self.turn_draws = 0
        self.throws = ()
        self.throws_made = [0] * DICE_COUNT
        self.rolls_made = 0
        self.dice = [0] * DICE_COUNT
        self.virtual = []
        self.natural_claimable = []
        self.claimable_now = []
        self.pending = None
        self.history.append({"seat": self.active, "event": "start_turn"})
        if not any(self.stacks[stack] for stack in STACKS):
            # ED-12 / DK-10.9: no cards left, so no rolling; the turn is an alarm without a superjoker.
            self.pending = {"effect": ALARM, "card": None, "drawn": [], "to_place": 1}
            self._draw(1)
            self._set_phase(ALARM_FIELD)
            return
        self.throws = self._deal_dice()
        self._roll(range(DICE_COUNT))
        self._set_phase(ROLL)

    def _deal_round(self) -> None:
        """The streams of this turn's round (see the module docstring), read as blocks when needed."""
        round_ = self.turn // self.players
        self.round_dice = StreamBlocks(self.streams.stream("dice", round_), MAX_ROLLS * DICE_COUNT)
        self.round_tiles = StreamBlocks(self.streams.stream("tile", round_), TILE_COUNT)

    def _deal_dice(self) -> tuple[int, ...]:
        """The values of this turn's throws, block ``turn % players`` of ``("dice", round)``: throw j of
        die d at 6j + d."""
        return tuple(1 + int(number * 6) for number in self.round_dice.block(self.turn % self.players))

    def _roll(self, dice) -> None:
        """Throw these dice: each shows the value of its own next throw (ED-15 (4))."""
        rolled = list(dice)
        throws, made = self.throws, self.throws_made
        for die in rolled:
            self.dice[die] = throws[made[die] * DICE_COUNT + die]
            made[die] += 1
        self.rolls_made += 1
        self.history.append({"seat": self.active, "event": "roll", "roll": self.rolls_made, "dice": rolled,
                             "values": list(self.dice)})

    def _set_phase(self, phase: str) -> None:
        self.phase = phase

    def _end_turn(self) -> None:
        self.pending = None
        self.history.append({"seat": self.active, "event": "end_turn"})
        if not self.supply:
            self._game_over("supply_empty")
            return
        self.active = (self.active + 1) % self.players
        self._start_turn()

    def _game_over(self, reason: str) -> None:
        self._set_phase(GAME_OVER)
        self.history.append({"event": "game_over", "reason": reason, "scores": self.scores(),
                             "ranking": self.ranking()})

    def _settle(self) -> None:
        """Apply every forced decision (exactly one legal option outside phases 1 and 2, ED-19)."""
        while self.phase in FORCED_PHASES:
            legal = self._legal_actions()
            if len(legal) != 1:
                return
            self._dispatch(legal[0], auto=True)

    # --- results and claimability (DK-3.4 to DK-3.7) -----------------------------------------------

    def _natural_dice(self) -> list[tuple[str, int]]:
        return [(FACES[die][value - 1], value) for die, value in enumerate(self.dice)]

    def _virtual_subsets(self):
        natural = self._natural_dice()
        count = len(self.virtual)
        for mask in range(1 << count):
            yield natural + [self.virtual[index] for index in range(count) if mask >> index & 1]

    def _final_stats(self) -> ResultStats:
        return ResultStats(self._natural_dice() + self.virtual)

    def _claimable_stacks(self, with_virtual: bool) -> list[int]:
        """Display stacks whose condition holds for the natural result plus some subset of the virtual
        dice (DK-3.7, ED-21), or for the natural result alone."""
        natural = ResultStats(self._natural_dice())
        final = self._final_stats() if with_virtual and self.virtual else natural
        subsets = None
        found = []
        for stack in STACKS:
            cards = self.stacks[stack]
            if not cards:
                continue
            condition = CARDS[cards[0]].condition
            if condition.holds(final) or condition.holds(natural):
                found.append(stack)
            elif with_virtual and condition.has_order and len(self.virtual) > 1:
                if subsets is None:
                    subsets = [ResultStats(dice) for dice in self._virtual_subsets()]
                if any(condition.holds(result) for result in subsets):
                    found.append(stack)
        return found

    def _tiers(self, card_id: str) -> int:
        """Tiers met by the best subset of virtual dice (DK-6.4)."""
        condition = CARDS[card_id].condition
        if not condition.has_order:
            return condition.tiers_met(self._final_stats())
        return max(condition.tiers_met(ResultStats(dice)) for dice in self._virtual_subsets())

    # --- legal actions -----------------------------------------------------------------------------

    def _legal_actions(self) -> list:
        """The current decision's actions in the canonical order of rules section 12.2."""
        if self.phase == ROLL:
            # The most frequent decision always offers the same actions; the base never changes them.
            return _ROLL_ACTIONS if self.rolls_made < MAX_ROLLS else _STOP_ACTIONS
        builder = {
            CLAIM: self._legal_claim, PLACE: self._legal_place,
            STEAL: self._legal_steal, TAME: self._legal_tame, BRAWL: self._legal_brawl,
            ALARM_FIELD: self._legal_alarm_field, FIRE_SOURCE: self._legal_fire_source,
        }.get(self.phase)
        return builder() if builder else []

    def _legal_claim(self) -> list:
        seat = self.active
        jokers: dict[tuple[str, int], int] = {}
        for card_id in self.front[seat]:
            joker = CARDS[card_id].joker
            jokers[joker] = jokers.get(joker, 0) + 1
        supers = len(self.supers[seat])
        legal = []
        for colour in COLOURS:
            for value in range(1, 7):
                fronts = jokers.get((colour, value), 0)
                if fronts >= 2:
                    legal.append({"joker": [colour, value, "pair"]})
                if fronts >= 1 and supers >= 1:
                    legal.append({"joker": [colour, value, "mixed"]})
                if supers >= 2:
                    legal.append({"joker": [colour, value, "super"]})
        legal.extend({"claim": stack} for stack in self.claimable_now)
        if not self.natural_claimable:
            legal.extend({"alarm": stack} for stack in STACKS if self.stacks[stack])
        return legal

    # --- applying actions --------------------------------------------------------------------------

    def _dispatch(self, action: dict, *, auto: bool) -> None:
        (kind, argument), = action.items()
        # The logged action is a private copy, so nothing shared with callers can change the log.
        entry = {"seat": self.active, "action": {kind: list(argument) if type(argument) is list else argument}}
        if auto:
            entry["auto"] = True
        self.history.append(entry)
        if kind == "reroll":
            self._roll(argument)
        elif kind == "stop":
            self.natural_claimable = self._claimable_stacks(with_virtual=False)
            self.claimable_now = list(self.natural_claimable)
            self._set_phase(CLAIM)
        elif kind == "joker":
            self._spend_joker(*argument)
        elif kind == "claim":
            self._claim(argument)
        elif kind == "alarm":
            self._alarm(argument)
        elif kind == "place":
            self._place(board.tile_number(argument[0]), argument[1])
        elif kind == "steal_card":
            self._steal_card(*argument)
        elif kind == "steal_gem":
            self._steal_gem(*argument)
        elif kind == "pass":
            self._finish_card()
        elif kind == "tame":
            self._tame(argument)
        elif kind == "brawl":
            self._brawl(argument)
        elif kind == "alarm_field":
            self._alarm_field(argument)
        elif kind == "fire_from":
            self._move_fire_from(argument)
        else:  # pragma: no cover - every legal kind is handled above
            raise AssertionError(kind)

    def _spend_joker(self, colour: str, value: int, kind: str) -> None:
        """DK-5.2 with the card choice of ED-17; spent cards leave the game (ED-8)."""
        seat = self.active
        matching = [card_id for card_id in self.front[seat] if CARDS[card_id].joker == (colour, value)]
        if kind == "pair":
            spent = matching[:2]
            for card_id in spent:
                self.front[seat].remove(card_id)
        elif kind == "mixed":
            spent = [matching[0], self.supers[seat][0]]
            self.front[seat].remove(spent[0])
            self.supers[seat].pop(0)
        else:
            spent = self.supers[seat][:2]
            del self.supers[seat][:2]
        self.virtual.append((colour, value))
        self.history.append({"seat": seat, "event": "joker", "spent": spent, "die": [colour, value]})
        self.claimable_now = self._claimable_stacks(with_virtual=True)
        self._set_phase(CLAIM)

    def _claim(self, stack: int) -> None:
        seat = self.active
        card_id = self.stacks[stack].pop(0)
        card = CARDS[card_id]
        insort(self.front[seat], card_id)
        self.pending = {"effect": card.effect, "card": card_id, "drawn": [], "to_place": 0}
        if card.effect == DWARF:
            self.pending["tiers"] = self._tiers(card_id)
        self.history.append({"seat": seat, "event": "claimed", "card": card_id, "effect": card.effect,
                             **({"tiers": self.pending["tiers"]} if card.effect == DWARF else {})})
        self._start_effect(card.effect)

    # --- observation -------------------------------------------------------------------------------

    def _public(self) -> dict:
        scores = self.scores()
        over = self.phase == GAME_OVER
        pending = None
        if self.pending is not None:
            pending = {"effect": self.pending["effect"], "card": self.pending["card"],
                       "drawn": [tile_name(tile) for tile in self.pending["drawn"]],
                       "to_place": self.pending["to_place"]}
            if "tiers" in self.pending:
                pending["tiers"] = self.pending["tiers"]
            if "field" in self.pending:
                pending["field"] = self.pending["field"]
        display = []
        for stack in STACKS:
            cards = self.stacks[stack]
            if cards:
                card = CARDS[cards[0]]
                display.append({"stack": stack, "card": card.id, "effect": card.effect,
                                "condition": card.condition.text, "joker": list(card.joker)})
            else:
                display.append({"stack": stack, "card": None})
        unplaced = [0] * len(LANDSCAPES)
        for tile in self.supply:
            unplaced[TILE_LANDSCAPE[tile]] += 1
        for tile in self.removed:
            unplaced[TILE_LANDSCAPE[tile]] += 1
        returned = [0] * len(LANDSCAPES)
        for tile in self.seen_returned:
            returned[TILE_LANDSCAPE[tile]] += 1
        return {
            "game": "dice_king",
            "players": self.players,
            "to_act": self.current_player(),
            "phase": self.phase,
            "turn": {
                "active": self.active,
                "rolls_made": self.rolls_made,
                "dice": [
                    {"die": die, "value": value, "colour": FACES[die][value - 1]}
                    for die, value in enumerate(self.dice)
                ] if self.rolls_made else [],
                "virtual_dice": [{"colour": colour, "value": value} for colour, value in self.virtual],
                "natural_claimable": list(self.natural_claimable),
                "claimable_now": list(self.claimable_now),
                "pending": pending,
            },
            "display": display,
            "stack_remaining": {str(stack): sorted(self.stacks[stack][1:]) for stack in STACKS},
            "map": [
                {"field": field, "landscape": FIELD_LANDSCAPE[field],
                 "tile": tile_name(self.tile_at[field]) if self.tile_at[field] >= 0 else None,
                 "owner": self.owner[field] if self.owner[field] >= 0 else None,
                 "fire": self.fire[field], "gem": self.gem[field], "neighbours": list(NEIGHBOURS[field])}
                for field in range(FIELD_COUNT)
            ],
            "seats": [
                {"seat": seat, "markers_left": self.markers[seat],
                 "gems": {"gold": self.gold[seat], "white": self.white[seat]}, "fires": self.fires[seat],
                 "front_cards": [{"card": card_id, "joker": list(CARDS[card_id].joker)}
                                 for card_id in self.front[seat]],
                 "superjokers": list(self.supers[seat]), "score_now": scores[seat]}
                for seat in range(self.players)
            ],
            "general_supply": {"gold": self.supply_gold, "white": self.supply_white, "fires": self.supply_fires},
            "tiles": {
                "supply_count": len(self.supply),
                "removed_count": len(self.removed),
                "unplaced_by_landscape": dict(zip(LANDSCAPES, unplaced)),
                "seen_returned_by_landscape": dict(zip(LANDSCAPES, returned)),
            },
            "dice_table": list(FACES),
            "history": [_json_copy(entry) for entry in self.history],
            "winner": [seat for seat, place in enumerate(self.ranking()) if place == 1] if over else None,
        }

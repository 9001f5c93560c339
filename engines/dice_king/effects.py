"""What the cards do once claimed (rules DK-6 and DK-8) and what an alarm does (DK-7): the decisions an
effect asks for, their legal actions, and applying them up to the end of the turn.

:class:`CardEffects` is mixed into :class:`engines.dice_king.state.DiceKingState` and works on its plain
fields (``pending``, the map lists, the seats' markers, gems and fires; see that module), so a clone
copies nothing more. The turn flow it calls back into (``_set_phase``, ``_end_turn``, ``_game_over``,
``_final_stats``) stays with the state; the chance it draws from is the round's tile stream
(``round_tiles``, ED-15 (4)).
"""

from __future__ import annotations

from bisect import insort
from typing import Any

from engines.dice_king.board import DISTANCE, FIELD_COUNT, LANDSCAPE_FIELDS, TILE_LANDSCAPE, tile_name
from engines.dice_king.cards import BRAWLER, CARDS, DWARF, LANDOWNER, TAMER, THIEF_CARD, THIEF_GEM
from engines.dice_king.conditions import ALL_SIX_MASK

#: The most tiles one turn draws (a dwarf meeting all three tiers); a round's tile stream has room for it.
MAX_DRAWS_PER_TURN = 3

PLACE, STEAL, TAME, BRAWL = "place", "steal", "tame", "brawl"
ALARM_FIELD, FIRE_SOURCE = "alarm_field", "fire_source"
ALARM = "ALARM"
#: The decisions an effect asks for: each is applied by the engine when it has a single legal action (ED-19).
EFFECT_PHASES = frozenset({PLACE, STEAL, TAME, BRAWL, ALARM_FIELD, FIRE_SOURCE})
#: Effects that place a marker, so they trigger the 17th-marker check (DK-6.2, ED-22).
MARKER_EFFECTS = frozenset({DWARF, THIEF_CARD, THIEF_GEM, LANDOWNER})


class CardEffects:
    """The effects of claimed cards and of alarms, as methods of the state they are mixed into."""

    # --- legal actions of an effect's decisions -----------------------------------------------------

    def _free_fields(self, tile: int) -> list[int]:
        return [field for field in LANDSCAPE_FIELDS[TILE_LANDSCAPE[tile]] if self.tile_at[field] < 0]

    def _legal_place(self) -> list:
        return [
            {"place": [tile_name(tile), field]}
            for tile in sorted(self.pending["drawn"])
            for field in self._free_fields(tile)
        ]

    def _legal_steal(self) -> list:
        legal = []
        effect = self.pending["effect"]
        for seat in range(self.players):
            if seat == self.active:
                continue
            if effect == THIEF_CARD:
                legal.extend({"steal_card": [seat, card_id]} for card_id in self.front[seat])
        if effect == THIEF_GEM:
            for seat in range(self.players):
                if seat == self.active:
                    continue
                if self.gold[seat]:
                    legal.append({"steal_gem": [seat, "gold"]})
                if self.white[seat]:
                    legal.append({"steal_gem": [seat, "white"]})
        legal.append({"pass": True})
        return legal

    def _legal_tame(self) -> list:
        return [{"tame": field} for field in range(FIELD_COUNT) if self.fire[field]]

    def _legal_brawl(self) -> list:
        return [{"brawl": field} for field in self._nearest_opponent_fields()]

    def _legal_alarm_field(self) -> list:
        return [{"alarm_field": field} for field in self._free_fields(self.pending["drawn"][0])]

    def _legal_fire_source(self) -> list:
        return [{"fire_from": seat} for seat in range(self.players) if seat != self.active and self.fires[seat]]

    def _nearest_opponent_fields(self) -> list[int]:
        """Opponent marker fields at the smallest distance to an own field (DK-8.3); all of them if the
        player has no field."""
        seat = self.active
        own = [field for field in range(FIELD_COUNT) if self.owner[field] == seat]
        theirs = [field for field in range(FIELD_COUNT) if self.owner[field] >= 0 and self.owner[field] != seat]
        if not own or not theirs:
            return theirs
        distance = {field: min(DISTANCE[field][mine] for mine in own) for field in theirs}
        nearest = min(distance.values())
        return [field for field in theirs if distance[field] == nearest]

    # --- applying an effect --------------------------------------------------------------------------

    def _start_effect(self, effect: str) -> None:
        """DK-6 and DK-8: the effect of the card just claimed (``pending`` holds it), up to its first
        decision or the end of the turn."""
        seat = self.active
        if effect in MARKER_EFFECTS and self._wins_by_markers():
            return
        if effect == DWARF:
            self._draw_and_place(self.pending["tiers"], 1)
        elif effect == THIEF_CARD:
            self._draw_and_place(2, 1)
        elif effect == THIEF_GEM:
            self._draw_and_place(1, 1)
        elif effect == LANDOWNER:
            self._draw_and_place(2, 2)
        elif effect == TAMER:
            if not any(self.fire):
                self.history.append({"seat": seat, "event": "no_effect", "why": "no dragon fire on the map"})
                self._finish_card()
            elif not self._wins_by_markers():
                self._set_phase(TAME)
        elif effect == BRAWLER:
            if not any(holder >= 0 and holder != seat for holder in self.owner):
                self.history.append({"seat": seat, "event": "no_effect", "why": "no opponent marker"})
                self._finish_card()
            elif not self._wins_by_markers():
                self._set_phase(BRAWL)

    def _wins_by_markers(self) -> bool:
        """DK-6.2: a seat that must place a marker and has none left wins at once."""
        if self.markers[self.active]:
            return False
        self.winner_by_markers = self.active
        self.history.append({"seat": self.active, "event": "wins_17th_marker"})
        self._game_over("17th_marker")
        return True

    def _draw(self, count: int) -> None:
        """ED-15 (4): each tile is the supply tile with the smallest ticket of its draw's stream."""
        drawn = []
        for _ in range(min(count, len(self.supply))):
            tile = self._drawn_tile()
            self.supply.remove(tile)
            if tile in self.seen_returned:
                self.seen_returned.remove(tile)
            drawn.append(tile)
        self.pending["drawn"].extend(drawn)
        self.history.append({"seat": self.active, "event": "draw", "tiles": [tile_name(t) for t in drawn]})

    def _drawn_tile(self) -> int:
        """The tile of the turn's next draw: the supply tile with the smallest ticket of its block of
        ``("tile", round)``."""
        draw = self.turn_draws
        if draw >= MAX_DRAWS_PER_TURN:  # pragma: no cover - no effect draws more (DK-6)
            raise AssertionError("a turn drew more tiles than its stream has room for")
        self.turn_draws += 1
        tickets = self.round_tiles.block((self.turn % self.players) * MAX_DRAWS_PER_TURN + draw)
        return min(self.supply, key=tickets.__getitem__)

    def _draw_and_place(self, draw: int, place: int) -> None:
        """DK-6.1: draw ``draw`` tiles, then ask for ``place`` placements (fewer if fewer were drawn)."""
        self._draw(draw)
        self.pending["to_place"] = min(place, len(self.pending["drawn"]))
        self._set_phase(PLACE)

    def _put_marker(self, field: int) -> None:
        """Put one of the active seat's markers on ``field`` and take the gem lying there."""
        seat = self.active
        self.owner[field] = seat
        self.markers[seat] -= 1
        gem = self.gem[field]
        if gem is not None:
            self.gem[field] = None
            if gem == "gold":
                self.gold[seat] += 1
            else:
                self.white[seat] += 1
            self.history.append({"seat": seat, "event": "gem_from_field", "field": field, "gem": gem})

    def _place(self, tile: int, field: int) -> None:
        pending = self.pending
        pending["drawn"].remove(tile)
        pending["to_place"] -= 1
        self.tile_at[field] = tile
        self._put_marker(field)
        if pending["to_place"] > 0 and pending["drawn"]:
            # ED-22: the landowner's second marker is checked before it is asked for.
            if not self._wins_by_markers():
                self._set_phase(PLACE)
            return
        if pending["drawn"]:
            for back in pending["drawn"]:
                insort(self.supply, back)
                insort(self.seen_returned, back)
            self.history.append({"seat": self.active, "event": "tiles_returned",
                                 "tiles": [tile_name(t) for t in sorted(pending["drawn"])]})
            pending["drawn"] = []
        effect = pending["effect"]
        if effect in (THIEF_CARD, THIEF_GEM):
            self._set_phase(STEAL)
            return
        if effect == DWARF and pending["tiers"] == 3:
            self._gem_reward("complete_condition")
        self._finish_card()

    def _gem_reward(self, reason: str) -> None:
        """DK-6.3 / ED-9: gold while any is in the general supply, then white, else nothing."""
        seat = self.active
        if self.supply_gold:
            self.supply_gold -= 1
            self.gold[seat] += 1
            gem = "gold"
        elif self.supply_white:
            self.supply_white -= 1
            self.white[seat] += 1
            gem = "white"
        else:
            gem = None
        self.history.append({"seat": seat, "event": "gem_reward", "reason": reason, "gem": gem})

    def _finish_card(self) -> None:
        """After the effect: the 6-straight bonus (DK-3.10), then the end of the turn."""
        card = CARDS[self.pending["card"]]
        if card.condition.has_straight and self._final_stats().present & ALL_SIX_MASK == ALL_SIX_MASK:
            self._gem_reward("six_straight")
        self._end_turn()

    def _steal_card(self, victim: int, card_id: str) -> None:
        self.front[victim].remove(card_id)
        insort(self.front[self.active], card_id)
        self._finish_card()

    def _steal_gem(self, victim: int, kind_of_gem: str) -> None:
        if kind_of_gem == "gold":
            self.gold[victim] -= 1
            self.gold[self.active] += 1
        else:
            self.white[victim] -= 1
            self.white[self.active] += 1
        self._finish_card()

    def _tame(self, field: int) -> None:
        seat = self.active
        self.fire[field] = False
        self.fires[seat] += 1
        self._put_marker(field)
        self._finish_card()

    def _brawl(self, field: int) -> None:
        victim = self.owner[field]
        self.markers[victim] += 1
        self.history.append({"seat": self.active, "event": "brawl", "field": field, "victim": victim})
        self._put_marker(field)
        self._finish_card()

    def _alarm(self, stack: int) -> None:
        """DK-7.1: the chosen display card becomes a superjoker, then the alarm tile is drawn."""
        seat = self.active
        card_id = self.stacks[stack].pop(0)
        insort(self.supers[seat], card_id)
        self.pending = {"effect": ALARM, "card": card_id, "drawn": [], "to_place": 1}
        self.history.append({"seat": seat, "event": "superjoker", "card": card_id})
        self._draw(1)
        self._set_phase(ALARM_FIELD)

    def _alarm_field(self, field: int) -> None:
        """DK-7.2 and DK-7.3: the tile goes on the field, nobody owns it, a dragon fire comes from the
        general supply, else the own zone, else an opponent's zone of the player's choice."""
        seat = self.active
        tile = self.pending["drawn"].pop()
        self.pending["to_place"] = 0
        self.tile_at[field] = tile
        self.pending["field"] = field
        if self.supply_fires:
            self.supply_fires -= 1
            self._light(field, "supply")
        elif self.fires[seat]:
            self.fires[seat] -= 1
            self._light(field, seat)
        elif any(self.fires[other] for other in range(self.players) if other != seat):
            self._set_phase(FIRE_SOURCE)
        else:
            self.history.append({"seat": seat, "event": "no_fire", "field": field})
            self._end_turn()

    def _move_fire_from(self, victim: int) -> None:
        self.fires[victim] -= 1
        self._light(self.pending["field"], victim)

    def _light(self, field: int, source: Any) -> None:
        self.fire[field] = True
        self.history.append({"seat": self.active, "event": "fire", "field": field, "from": source})
        self._end_turn()

"""The Draftosaurus position and its turn structure (Sections 2-4, 10, 12 and 13 of the rules).

A game is a sequence of simultaneous steps, each asked one seat at a time in ascending seat order
(ED-5): ``place`` (every seat), ``discard`` (2 players only, every seat) and, at the end of a winter
game, ``quarantine`` (only seats whose Quarantine Zone is occupied). A choice is stored in ``pending``
and stays in its seat's hand until every asked seat has chosen; then the step is applied at once.
Everything else (shuffling, drawing, rolling, passing, moving on, scoring) happens inside ``apply``.

Chance (ED-1, drawn from the match's :class:`engines.chance.ChanceStreams`) is dealt per game ``g`` (0, and
1 for the winter game of ``summer_winter``), before any choice of that game, so no choice changes it:

* ``("bag", g)``: the bag listed in canonical species order, shuffled by Fisher-Yates; round ``r``'s hands
  are the next ``hand_size`` dinosaurs each, seats in ascending order (ED-1);
* ``("die", g)``: the placement die, one number per turn: the ``k``-th number (``k`` counting the game's
  turns from 0, ``k = (round - 1) * turns_per_round + turn - 1``) gives turn ``k``'s face
  ``FACES[below(6)]``. Every game has the same fixed number of turns, so turn ``k`` always reads the same
  number.
"""

from __future__ import annotations

from engines.base import State, competition_ranking
from engines.chance import ChanceStreams
from engines.draftosaurus.board import (
    FACES,
    PENS,
    PYRAMID,
    QUARANTINE,
    RIVER,
    SETUPS,
    SPECIES,
    die_allows,
)
from engines.draftosaurus.scoring import all_scores
from engines.draftosaurus.zoo import Zoo, canonical_hand

PLACE = "place"
DISCARD = "discard"
QUARANTINE_STEP = "quarantine"
GAME_OVER = "game_over"

SUMMER_WINTER = "summer_winter"


def _distinct(hand: list[str]) -> list[str]:
    """The species of a canonical hand, each once, in canonical order."""
    seen: list[str] = []
    for dino in hand:
        if not seen or seen[-1] != dino:
            seen.append(dino)
    return seen


class DraftosaurusState(State):
    """One position of a Draftosaurus match (one game, or both games of ``summer_winter``)."""

    def __init__(self, players: int, seed: int, options: dict) -> None:
        self.players = players
        self.options = dict(options)
        self.setup = SETUPS[players]
        self.streams = ChanceStreams(seed)
        self.match_scores = [0] * players
        self.match_t_rex = [0] * players
        self.game_index = 0
        first_side = "summer" if options["mode"] == SUMMER_WINTER else options["board"]
        self._start_game(first_side)

    # --- the engine's own steps (ED-13) -----------------------------------------------------------

    def _start_game(self, side: str) -> None:
        """Set up one game on ``side``: fresh zoos, a full bag shuffled (ED-1), round 1, seat 0 rolls."""
        n = self.players
        per_species = self.setup.per_species
        self.board = side
        self.zoos = [Zoo(side) for _ in range(n)]
        self.bag_initial = {species: per_species for species in SPECIES}
        self.bag = self.streams.stream("bag", self.game_index).shuffled(
            species for species in SPECIES for _ in range(per_species))
        self.dice_faces = self._roll_dice(self.streams)
        self.history: list[dict] = []
        self.discards: list[dict] = []
        self.round = 1
        self.turn = 1
        self._draw_hands()
        self._start_turn()

    def _roll_dice(self, streams: ChanceStreams) -> tuple[str, ...]:
        """The face of every turn of this game, in turn order, from stream ``("die", game_index)``."""
        rolls = streams.stream("die", self.game_index).dice(self.setup.rounds * self.setup.turns_per_round)
        return tuple(FACES[value - 1] for value in rolls)

    def _draw_hands(self) -> None:
        """Seats in ascending order take the next hand from the front of the bag (ED-1)."""
        size = self.setup.hand_size
        bag = self.bag
        self.hands = [canonical_hand(bag[seat * size:(seat + 1) * size]) for seat in range(self.players)]
        self.bag = bag[self.players * size:]

    def _start_turn(self) -> None:
        """Roll for the turn: the roller is ``t mod N`` over the whole game (DS-3.5, ED-4)."""
        t = (self.round - 1) * self.setup.turns_per_round + (self.turn - 1)
        self.roller: int | None = t % self.players
        self.die: str | None = self.dice_faces[t]
        self._open_step(PLACE, range(self.players))

    def _open_step(self, phase: str, seats) -> None:
        self.phase = phase
        self.asked = tuple(seats)
        self.pending: list[dict | None] = [None] * self.players

    def _pass_hands(self) -> None:
        """Each seat's hand goes to its left neighbour ``(i+1) mod N`` (DS-3.2.4, ED-2; a swap with 2)."""
        self.hands = [self.hands[seat - 1] for seat in range(self.players)]

    def _resolve_place(self) -> None:
        placements = []
        for seat, action in enumerate(self.pending):
            self.hands[seat].remove(action["dino"])
            self.zoos[seat].place(action["dino"], action["to"], action.get("cell"))
            placements.append({"seat": seat, **action})
        self.history.append({
            "round": self.round, "turn": self.turn, "roller": self.roller, "die": self.die,
            "placements": placements, "discards": [],
        })
        if self.players == 2:
            self._open_step(DISCARD, range(self.players))
        else:
            self._pass_hands()
            self._next_turn()

    def _resolve_discard(self) -> None:
        entry = self.history[-1]
        for seat, action in enumerate(self.pending):
            self.hands[seat].remove(action["discard"])
            revealed = {"seat": seat, "dino": action["discard"]}
            self.discards.append(revealed)
            entry["discards"].append(dict(revealed))
        self._pass_hands()
        self._next_turn()

    def _resolve_quarantine(self) -> None:
        moves = []
        for seat in self.asked:
            action = self.pending[seat]
            zoo = self.zoos[seat]
            dino = zoo.pens[QUARANTINE].pop()
            zoo.place(dino, action["to"], action.get("cell"))
            moves.append({"seat": seat, "dino": dino, **action})
        self.history.append({"quarantine": moves})
        self._finish_game()

    def _next_turn(self) -> None:
        if self.turn < self.setup.turns_per_round:
            self.turn += 1
        elif self.round < self.setup.rounds:
            self.round += 1
            self.turn = 1
            self._draw_hands()
        else:
            self._end_of_play()
            return
        self._start_turn()

    def _end_of_play(self) -> None:
        """After the last turn: the Quarantine step if any zone is occupied (DS-9.6), else scoring."""
        self.roller = None
        self.die = None
        quarantined = [seat for seat, zoo in enumerate(self.zoos)
                       if self.board == "winter" and zoo.pens[QUARANTINE]]
        if quarantined:
            self._open_step(QUARANTINE_STEP, quarantined)
        else:
            self._finish_game()

    def _finish_game(self) -> None:
        """Score the game; in ``summer_winter`` bank game 1 and set up the winter game (DS-10.3)."""
        if self.options["mode"] == SUMMER_WINTER and self.game_index == 0:
            self.match_scores = all_scores(self.zoos)
            self.match_t_rex = [zoo.t_rex_count() for zoo in self.zoos]
            self.game_index = 1
            self._start_game("winter")
            return
        self._open_step(GAME_OVER, ())

    # --- legal actions (ED-14) ----------------------------------------------------------------------

    def legal_for(self, seat: int) -> list[dict]:
        """The actions ``seat`` could take in the current step, in canonical order (ED-14)."""
        if self.phase == PLACE:
            return self._place_actions(seat)
        if self.phase == DISCARD:
            return [{"discard": dino} for dino in _distinct(self.hands[seat])]
        if self.phase == QUARANTINE_STEP:
            return self._quarantine_actions(seat)
        return []

    def _place_actions(self, seat: int) -> list[dict]:
        zoo = self.zoos[seat]
        pens = PENS[self.board]
        if seat != self.roller:
            # DS-7.2: the die is judged on the zoo as it stands before this turn's placements.
            face = self.die
            pens = [pen for pen in pens if die_allows(face, pen, zoo)]
        actions = []
        for dino in _distinct(self.hands[seat]):
            for pen in pens:
                to = pen.id
                if to == PYRAMID:
                    for cell in zoo.pyramid_cells_for(dino):
                        actions.append({"dino": dino, "to": PYRAMID, "cell": cell})
                elif zoo.accepts(to, dino):
                    actions.append({"dino": dino, "to": to})
            actions.append({"dino": dino, "to": RIVER})
        return actions

    def _quarantine_actions(self, seat: int) -> list[dict]:
        zoo = self.zoos[seat]
        dino = zoo.pens[QUARANTINE][0]
        actions = []
        for pen in PENS[self.board]:
            if pen.id == QUARANTINE:
                continue
            if pen.id == PYRAMID:
                actions.extend({"to": PYRAMID, "cell": cell} for cell in zoo.pyramid_cells_for(dino))
            elif zoo.accepts(pen.id, dino):
                actions.append({"to": pen.id})
        actions.append({"to": RIVER})
        return actions

    def _legal_actions(self) -> list[dict]:
        """The current seat's actions in ED-14 order; ``[]`` once the game is over."""
        seat = self.current_player()
        return self.legal_for(seat) if seat is not None else []

    # --- the State contract ---------------------------------------------------------------------

    def current_player(self) -> int | None:
        """The lowest asked seat that has not chosen in the current step (ED-5); None at the end."""
        pending = self.pending
        for seat in self.asked:
            if pending[seat] is None:
                return seat
        return None

    def _apply(self, action: dict) -> None:
        """Record the current seat's choice; when every asked seat has chosen, carry out the step."""
        self.pending[self.current_player()] = dict(action)
        if self.current_player() is not None:
            return
        if self.phase == PLACE:
            self._resolve_place()
        elif self.phase == DISCARD:
            self._resolve_discard()
        else:
            self._resolve_quarantine()

    def is_terminal(self) -> bool:
        return self.phase == GAME_OVER

    def game_scores(self) -> list[int]:
        """This game's scores only (provisional during play, DS-10.4)."""
        return all_scores(self.zoos)

    def scores(self) -> list[int]:
        """Match score so far: game 1's totals (``summer_winter``) plus this game's score (ED-15)."""
        return [banked + now for banked, now in zip(self.match_scores, self.game_scores())]

    def t_rex_counts(self) -> list[int]:
        """T-Rexes per zoo over the match so far: the DS-10.2 / ED-16 tie-break count."""
        return [banked + zoo.t_rex_count() for banked, zoo in zip(self.match_t_rex, self.zoos)]

    def ranking(self) -> list[int]:
        """Most points first, then fewest T-Rexes (DS-10.2, ED-16); still tied seats share a place."""
        keys = [(score, -t_rex) for score, t_rex in zip(self.scores(), self.t_rex_counts())]
        return competition_ranking(keys)

    def _copy_parts(self, twin: DraftosaurusState) -> None:
        twin.options = dict(self.options)
        twin.match_scores = list(self.match_scores)
        twin.match_t_rex = list(self.match_t_rex)
        twin.zoos = [zoo.copy() for zoo in self.zoos]
        twin.bag = list(self.bag)
        twin.hands = [list(hand) for hand in self.hands]
        twin.pending = [dict(action) if action is not None else None for action in self.pending]
        twin.history = [_copy_entry(entry) for entry in self.history]
        twin.discards = [dict(entry) for entry in self.discards]

    # --- what a seat knows (ED-8) ---------------------------------------------------------------

    def known_holders(self, player: int) -> list[int]:
        """Seats now holding a hand that ``player`` held earlier in this round, ascending (ED-8).

        After ``k`` passes in a round, the hand ``player`` held ``j`` passes ago is now ``j`` seats to
        their left; once ``k`` reaches ``N - 1`` every hand has been in ``player``'s hands.
        """
        if self.phase not in (PLACE, DISCARD):
            return []
        passes = self.turn - 1
        return sorted({(player + d) % self.players for d in range(1, passes + 1)} - {player})

    def unseen(self, player: int) -> dict[str, int]:
        """Starting bag make-up minus every dinosaur ``player`` can see or deduce (Section 13)."""
        counts = dict(self.bag_initial)
        seen = [dino for zoo in self.zoos for dino in zoo.all_dinos()]
        seen.extend(entry["dino"] for entry in self.discards)
        seen.extend(self.hands[player])
        for holder in self.known_holders(player):
            seen.extend(self.hands[holder])
        for dino in seen:
            counts[dino] -= 1
        return counts

    def resample_hidden(self, player: int, seed: int) -> DraftosaurusState:
        """A copy with the bag order, the hands ``player`` cannot know and the other seats' pending
        choices redrawn from stream ``("redeal",)`` of ``ChanceStreams(seed)``; the copy's streams become
        those, so its future dice (and the winter game's deal) are redrawn too."""
        twin = self.clone()
        twin.streams = ChanceStreams(seed)
        chance = twin.streams.stream("redeal")
        known = set(self.known_holders(player)) | {player}
        hidden_seats = [seat for seat in range(self.players) if seat not in known]
        pool = list(twin.bag)
        for seat in hidden_seats:
            pool.extend(twin.hands[seat])
        chance.shuffle(pool)
        for seat in hidden_seats:
            size = len(twin.hands[seat])
            twin.hands[seat] = canonical_hand(pool[:size])
            pool = pool[size:]
        twin.bag = pool
        for seat in twin.asked:
            if seat != player and twin.pending[seat] is not None:
                twin.pending[seat] = dict(chance.choice(twin.legal_for(seat)))
        twin.dice_faces = twin._roll_dice(twin.streams)
        twin.reset_legal_cache()
        return twin

    # --- JSON (Section 13) ----------------------------------------------------------------------

    def _zoos_json(self) -> list[dict]:
        scores = self.game_scores()
        zoos = []
        for seat, zoo in enumerate(self.zoos):
            encoded = {"seat": seat, **zoo.to_json()}
            encoded["t_rex_count"] = zoo.t_rex_count()
            encoded["score"] = scores[seat]
            zoos.append(encoded)
        return zoos

    def _common(self) -> dict:
        """The fields shared by ``observation`` and ``view``, keyed in Section 13's order."""
        return {
            "game": "draftosaurus",
            "options": dict(self.options),
            "board": self.board,
            "game_index": self.game_index,
            "players": self.players,
            "phase": self.phase,
            "round": self.round,
            "rounds_total": self.setup.rounds,
            "turn": self.turn,
            "turns_per_round": self.setup.turns_per_round,
            "roller": self.roller,
            "die": self.die,
            "hand_sizes": [len(hand) for hand in self.hands],
            "zoos": self._zoos_json(),
            "chosen": [seat for seat in range(self.players) if self.pending[seat] is not None],
            "discards": [dict(entry) for entry in self.discards],
            "bag": {"initial": dict(self.bag_initial), "remaining": len(self.bag)},
            "history": [_copy_entry(entry) for entry in self.history],
            "match_scores": list(self.match_scores),
            "match_t_rex": list(self.match_t_rex),
        }

    def _observation(self, player: int) -> dict:
        """What ``player`` may know: their hand, the known hands, public zoos and history (ED-8)."""
        common = self._common()
        observation = {}
        for key, value in common.items():
            observation[key] = value
            if key == "players":
                observation["you"] = player
            elif key == "die":
                observation["die_applies_to_you"] = self.phase == PLACE and player != self.roller
                observation["hand"] = list(self.hands[player])
            elif key == "hand_sizes":
                observation["known_hands"] = [
                    {"holder": holder, "dinos": list(self.hands[holder])}
                    for holder in self.known_holders(player)
                ]
            elif key == "bag":
                observation["unseen"] = self.unseen(player)
        return observation

    def view(self) -> dict:
        """Everything, for replays: every hand, every pending choice and the bag's order."""
        view = self._common()
        view["hands"] = [list(hand) for hand in self.hands]
        view["pending"] = [dict(action) if action is not None else None for action in self.pending]
        view["bag_order"] = list(self.bag)
        return view


def _copy_entry(entry: dict) -> dict:
    """A history entry copied deep enough that callers cannot change the state through it."""
    return {key: [dict(item) for item in value] if isinstance(value, list) else value
            for key, value in entry.items()}

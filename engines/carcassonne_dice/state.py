"""The position of a Carcassonne dice-game match and the rules that move it on (CD-2 to CD-9).

A state is in one of three phases: ``resolve`` (the active seat collects, builds, rolls or stops),
``knight_choice`` (3 or more knights were collected: score or keep a knight) and ``game_over``. Everything
the rules do by themselves (the first roll, catapults, forced stops, automatic scoring, passing the dice
and starting the next turn) happens inside ``apply`` and ``new_state``, so every decision asked is a real
one (ED-15).

Chance (ED-11, drawn from the match's :class:`engines.chance.ChanceStreams`): the dice of round ``r``
(``turn_index // players``, from 0) come from stream ``("dice", r)`` alone, read as a table of 27
numbers per seat: number ``27 * seat + 9 * (k - 1) + d`` is the face ``1 + below(6)`` die ``d`` shows if
it is thrown in roll ``k`` (1 to 3) of that seat's turn of the round. A roll shows each pool die its own
entry, so which dice a player collects, builds or has catapulted away, and whether they roll again, never
changes what another die or a later turn shows. :class:`RoundDice` holds that table.
"""

from __future__ import annotations

from engines.base import State, competition_ranking
from engines.carcassonne_dice.faces import (
    CATAPULT,
    CITY_FACES,
    FACE_ID,
    FACE_NAME,
    KNIGHT,
    POINTS,
    ROTATED,
    SIDES,
)
from engines.carcassonne_dice.plane import BuiltDie, City, Plane
from engines.chance import Chance, ChanceStreams, StreamBlocks

DICE = 9  # CD-1.1
MAX_ROLLS = 3  # CD-4.2
WINNING_TOTAL = 42  # CD-7.4, CD-9.1
ROUND_CAP = 100  # CD-9.3, ED-9
HISTORY_TURNS = 2  # turns of public log in a view: the previous one and the current one

RESOLVE, KNIGHT_CHOICE, GAME_OVER = "resolve", "knight_choice", "game_over"

_ROLL_KEY, _STOP_KEY = ("roll",), ("stop",)
_SCORE_KEY, _KEEP_KEY = ("score",), ("keep_knight",)
_COLLECT_KEY = ("collect", "KNIGHT")
_FLAG_ACTIONS = {"roll": _ROLL_KEY, "stop": _STOP_KEY, "score": _SCORE_KEY, "keep_knight": _KEEP_KEY}


class RoundDice:
    """The faces one round's rolls can show: ``face(seat, roll, die)`` for roll 1 to 3 and die 0 to 8.

    The table (see the module docstring) is read from the round's stream one roll (a block of 9 numbers)
    at a time, as far as the rolls asked for need; a block always holds the same numbers, so copies of a
    state share the object.
    """

    __slots__ = ("_blocks", "_faces")

    def __init__(self, stream: Chance) -> None:
        self._blocks = StreamBlocks(stream, DICE)
        self._faces: dict[int, list[int]] = {}

    def face(self, seat: int, roll: int, die: int) -> int:
        """The face die ``die`` shows when it is thrown in roll ``roll`` of ``seat``'s turn."""
        block = seat * MAX_ROLLS + roll - 1
        faces = self._faces.get(block)
        if faces is None:
            faces = self._faces[block] = [1 + int(number * SIDES) for number in self._blocks.block(block)]
        return faces[die]


def log_key(action: dict) -> tuple:
    """The compact tuple a legal action is logged as (views spell it out again, see ``_copy_entry``)."""
    ((name, value),) = action.items()
    if name in _FLAG_ACTIONS:
        return _FLAG_ACTIONS[name]
    if name == "collect":
        return _COLLECT_KEY
    return ("build", *value)


class CarcassonneDiceState(State):
    """One position; see the package docstring for the observation and action formats."""

    def __init__(self, players: int, seed: int, options: dict) -> None:
        self.players = players
        self.options = dict(options)
        self.streams = ChanceStreams(seed)
        self.totals = [0] * players
        # CD-3.1: the die id a seat keeps in front of it between its turns, or None (at most one, ED-7).
        self.reserved: list[int | None] = [None] * players
        self.turn_index = 0
        self.phase = RESOLVE
        self.doubled = False
        self.rolls_made = 0
        self.pool: list[list[int]] = []  # [die, face] pairs of the pool, ascending die id
        self.collected: list[int] = []  # knight dice set aside this turn
        self.catapulted: list[int] = []  # dice handed to the left neighbour this turn
        self.planes: list[Plane] = []
        self.winners: list[int] | None = None
        self.end_reason: str | None = None
        self.catapult_winner: int | None = None
        self.final_round = False  # equal_turns: someone reached 42, the round is being finished
        # Public log, one list per turn; only the previous and the current turn are kept (what views show).
        self.turn_logs: list[list[dict]] = []
        self.round_dice: RoundDice | None = None
        self._start_turn()

    # -- the State contract -------------------------------------------------------------------------

    def current_player(self) -> int | None:
        """The active seat, or None once the game is over."""
        return None if self.phase == GAME_OVER else self.active

    @property
    def active(self) -> int:
        return self.turn_index % self.players

    def _apply(self, action: dict) -> None:
        """Play one legal decision of the active seat."""
        key = log_key(action)
        seat = self.active
        # The key stands for the action in the log; views spell it out (see _copy_entry).
        self._log({"seat": seat, "action": key})
        kind = key[0]
        if kind == "collect":
            self.collected.append(self._take_from_pool(KNIGHT))
            self._after_resolution()
        elif kind == "build":
            self._build(key)
            self._after_resolution()
        elif kind == "roll":
            self.rolls_made += 1
            self._roll()
            if self.phase == RESOLVE:
                self._after_resolution()
        elif kind == "stop":
            self._stop()
        else:
            self._end_turn(keep_knight=kind == "keep_knight")

    def _observation(self, player: int) -> dict:
        """All information is public (rules 12): the view plus the asking seat."""
        result = {"you": player}
        result.update(self.view())
        return result

    def view(self) -> dict:
        """The whole position as rules section 12.1 describes it (without ``you``)."""
        planes = []
        for index, plane in enumerate(self.planes):
            dice = [
                {"die": b.die, "face": FACE_NAME[b.face], "x": x, "y": y, "r": b.r, "edges": b.edges}
                for (x, y), b in plane.cells.items()
            ]
            dice.sort(key=lambda d: d["die"])
            planes.append({"plane": index, "dice": dice})
        cities = [
            {"plane": index, "dice": list(city.dice), "size": city.size, "closed": city.closed,
             "open_edges": city.open_edges}
            for index, plane in enumerate(self.planes)
            for city in plane.cities()
        ]
        return {
            "game": "carcassonne_dice",
            "options": dict(self.options),
            "players": self.players,
            "phase": self.phase,
            "to_act": self.current_player(),
            "round": self.turn_index // self.players + 1,
            "turn_index": self.turn_index,
            "active": self.active,
            "scores": list(self.totals),
            "reserved_knight": [die is not None for die in self.reserved],
            "turn": {
                "doubled": self.doubled,
                "rolls_made": self.rolls_made,
                "rolls_left": MAX_ROLLS - self.rolls_made,
                "pool": [{"die": die, "face": FACE_NAME[face]} for die, face in self.pool],
                "collected_knights": len(self.collected),
                "collected_dice": list(self.collected),
                "catapults": len(self.catapulted),
                "catapulted_dice": list(self.catapulted),
                "planes": planes,
                "cities": cities,
                "score_if_stop": self.score_if_stop(),
            },
            "history": [_copy_entry(entry) for log in self.turn_logs for entry in log],
            "winner": list(self.winners) if self.winners is not None else None,
            "end_reason": self.end_reason,
        }

    def is_terminal(self) -> bool:
        """True once someone has won or the round cap is reached."""
        return self.phase == GAME_OVER

    def scores(self) -> list[int]:
        """Running totals per seat (CD-7.4)."""
        return list(self.totals)

    def ranking(self) -> list[int]:
        """By total, equal totals sharing; a nine-catapult winner first alone (CD-9.5, ED-16)."""
        return competition_ranking(
            [(seat == self.catapult_winner, total) for seat, total in enumerate(self.totals)]
        )

    def _copy_parts(self, twin: CarcassonneDiceState) -> None:
        """Planes and logs are copied; log entries are never mutated, so the lists of them are enough."""
        twin.options = dict(self.options)
        twin.totals = list(self.totals)
        twin.reserved = list(self.reserved)
        twin.pool = [list(pair) for pair in self.pool]
        twin.collected = list(self.collected)
        twin.catapulted = list(self.catapulted)
        twin.planes = [plane.copy() for plane in self.planes]
        twin.winners = list(self.winners) if self.winners is not None else None
        twin.turn_logs = [list(log) for log in self.turn_logs]

    def resample_hidden(self, player: int, seed: int) -> CarcassonneDiceState:
        """Nothing on the table is secret; only the dice not yet rolled are unknown, so they are redrawn:
        the copy's streams are ``ChanceStreams(seed)``, this turn's coming rolls included."""
        twin = self.clone()
        twin.streams = ChanceStreams(seed)
        twin.round_dice = twin._deal_dice()
        return twin

    # -- derived facts ------------------------------------------------------------------------------

    def all_cities(self) -> list[tuple[int, City]]:
        """(plane index, city) for every city built this turn."""
        return [(index, city) for index, plane in enumerate(self.planes) for city in plane.cities()]

    def largest_closed_city(self) -> int:
        """Size of the largest closed city of this turn, 0 if none (CD-7.2)."""
        return max((city.size for _, city in self.all_cities() if city.closed), default=0)

    def score_if_stop(self) -> int:
        """The points a normal scoring would bring now, doubling included (CD-7.2, CD-7.3)."""
        return POINTS[self.largest_closed_city()] * (2 if self.doubled else 1)

    # -- legal actions ------------------------------------------------------------------------------

    def _legal_actions(self) -> list:
        """The decisions open now, in the canonical order of rules section 12.2."""
        if self.phase == RESOLVE:
            return self._resolve_actions()
        if self.phase == KNIGHT_CHOICE:
            return [{"score": True}, {"keep_knight": True}]
        return []

    def _resolve_actions(self) -> list:
        faces = {face for _, face in self.pool}
        actions: list = [{"collect": "KNIGHT"}] if KNIGHT in faces else []
        for face in CITY_FACES:
            if face in faces:
                actions.append({"build": [FACE_NAME[face], "new"]})
                for plane in self.planes:
                    actions.extend(plane.build_actions(face))
        if self.rolls_made < MAX_ROLLS and self.pool:
            actions.append({"roll": True})
        actions.append({"stop": True})
        return actions

    # -- the turn -----------------------------------------------------------------------------------

    def _log(self, entry: dict) -> None:
        self.turn_logs[-1].append(entry)

    def _start_turn(self) -> None:
        """CD-3.2 and CD-4.1: gather the dice, return an own reserved knight, make the first roll."""
        seat = self.active
        self.turn_logs.append([])
        del self.turn_logs[:-HISTORY_TURNS]
        self.doubled = self.reserved[seat] is not None
        self.reserved[seat] = None
        held_by_others = {die for die in self.reserved if die is not None}
        self.pool = [[die, 0] for die in range(DICE) if die not in held_by_others]
        self.collected = []
        self.catapulted = []
        self.planes = []
        self.phase = RESOLVE
        self._log({"seat": seat, "event": "turn_start", "dice": len(self.pool), "doubled": self.doubled})
        if seat == 0 or self.round_dice is None:
            self.round_dice = self._deal_dice()
        self.rolls_made = 1
        self._roll()
        if self.phase == RESOLVE:
            self._after_resolution()

    def _deal_dice(self) -> RoundDice:
        """The faces of this round's rolls, from stream ``("dice", round)`` (ED-11)."""
        return RoundDice(self.streams.stream("dice", self.turn_index // self.players))

    def _roll(self) -> None:
        """Roll every pool die (ED-11: each shows its own face of this roll), then hand on catapults
        (CD-4.2 step 1)."""
        seat = self.active
        face, roll = self.round_dice.face, self.rolls_made
        for pair in self.pool:
            pair[1] = face(seat, roll, pair[0])
        self._log({"seat": seat, "event": "roll", "roll": self.rolls_made,
                   "faces": [FACE_NAME[face] for _, face in self.pool]})
        thrown = [die for die, face in self.pool if face == CATAPULT]
        if not thrown:
            return
        self.pool = [pair for pair in self.pool if pair[1] != CATAPULT]
        self.catapulted.extend(thrown)
        self._log({"seat": seat, "event": "catapults", "count": len(thrown),
                   "turn_total": len(self.catapulted), "to": (seat + 1) % self.players})
        if len(self.catapulted) == DICE:  # CD-9.2, ED-6: cumulative over the turn
            self.catapult_winner = seat
            self._finish("nine_catapults", [seat])

    def _take_from_pool(self, face: int) -> int:
        """Remove the lowest-id pool die showing ``face`` (ED-12) and return its id."""
        for index, (die, shown) in enumerate(self.pool):
            if shown == face:
                del self.pool[index]
                return die
        raise AssertionError("a legal action named a face that is not in the pool")

    def _build(self, key: tuple) -> None:
        face = FACE_ID[key[1]]
        die = self._take_from_pool(face)
        if key[2] == "new":
            plane = Plane(len(self.planes))
            self.planes.append(plane)
            x = y = r = 0
        else:
            _, _, index, x, y, r = key
            plane = self.planes[index]
        plane.place(x, y, BuiltDie(die, face, r, ROTATED[face][r]))

    def _after_resolution(self) -> None:
        """ED-15: stop for the player when nothing is left to decide (in practice: an empty pool)."""
        # Catapults leave the pool as soon as they are rolled, so every pool die can be collected or built
        # (a new plane always takes a city face): "nothing left to decide" is exactly an empty pool.
        if not self.pool:
            self._log({"seat": self.active, "event": "auto_stop"})
            self._stop()

    def _stop(self) -> None:
        """CD-4.5 and CD-5.2: the knight option with 3+ collected knights, otherwise automatic scoring."""
        if len(self.collected) >= 3:
            self.phase = KNIGHT_CHOICE
        else:
            self._end_turn(keep_knight=False)

    def _end_turn(self, *, keep_knight: bool) -> None:
        """CD-7: score or reserve a knight, check the end of the game, pass the dice, start the next turn."""
        seat = self.active
        if keep_knight:
            # ED-13: the lowest-id collected knight is the one kept; the turn scores 0 (CD-7.5).
            self.reserved[seat] = min(self.collected)
            self._log({"seat": seat, "event": "keep_knight", "die": self.reserved[seat]})
        else:
            size = self.largest_closed_city()
            points = POINTS[size] * (2 if self.doubled else 1)
            self.totals[seat] += points
            self._log({"seat": seat, "event": "score", "city_size": size, "points": points,
                       "doubled": self.doubled, "total": self.totals[seat]})
        if self.totals[seat] >= WINNING_TOTAL:
            if not self.options["equal_turns"]:
                self._finish("42_points", [seat])  # CD-9.1
                return
            self.final_round = True  # CD-9.4
        last_of_round = seat == self.players - 1
        if self.final_round and last_of_round:
            self._finish("equal_turns", self._leaders())
            return
        if last_of_round and self.turn_index + 1 >= ROUND_CAP * self.players:
            self._finish("round_cap", self._leaders())  # CD-9.3
            return
        self._log({"seat": seat, "event": "pass", "to": (seat + 1) % self.players})
        self.turn_index += 1
        self._start_turn()

    def _leaders(self) -> list[int]:
        best = max(self.totals)
        return [seat for seat, total in enumerate(self.totals) if total == best]

    def _finish(self, reason: str, winners: list[int]) -> None:
        self.phase = GAME_OVER
        self.winners = winners
        self.end_reason = reason
        self._log({"event": "game_over", "reason": reason, "winner": list(winners)})


def _action_from_key(key: tuple):
    if key[0] == "collect":
        return {"collect": "KNIGHT"}
    if key[0] == "build":
        return {"build": list(key[1:3]) if key[2] == "new" else list(key[1:])}
    return {key[0]: True}


def _copy_entry(entry: dict) -> dict:
    """A copy of a log entry deep enough that callers cannot reach the state's own lists and dicts."""
    copied = dict(entry)
    if "faces" in copied:
        copied["faces"] = list(copied["faces"])
    if "winner" in copied:
        copied["winner"] = list(copied["winner"])
    if "action" in copied:
        copied["action"] = _action_from_key(copied["action"])
    return copied

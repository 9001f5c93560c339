"""The position of a Kingdomino match and its transitions (rules KD-2, KD-3, KD-6, KD-8, KD-9.4, ED-*).

Decisions follow ED-2/ED-3: during the initial pick each king in the pick order is asked for a ``pick``;
afterwards each king of the current line is asked to ``place`` (or ``discard``) and then, unless it is
the last round, to ``pick``. Everything else (shuffles, forming lines, moving on to the next king, round
and Dynasty game, bonuses) happens inside :meth:`KingdominoState.apply`.

Chance (ED-1, drawn from the match's :class:`engines.chance.ChanceStreams`): only the deal of each game,
before any decision of it, so no choice can change it. Game ``g`` (0-based; 0, 1, 2 in a Dynasty) uses

* ``("pile", g)``: one Fisher-Yates shuffle of the domino numbers 1 to 48 in ascending order; the first
  ``used`` numbers are the draw pile in draw order, the others are set aside (KD-2.3);
* ``("pick_order", g)``: the initial pick (KD-2.5): a shuffle of the kings ``(seat, king)`` listed by seat
  then king, or for the ``snake`` pick one ``below(2)``, the seat that picks first.
"""

from __future__ import annotations

from dataclasses import dataclass

from engines.base import State, competition_ranking
from engines.chance import ChanceStreams
from engines.kingdomino.dominoes import NUMBERS, domino_json
from engines.kingdomino.kingdom import GridGeometry, Kingdom

INITIAL_PICK, PLACE, PICK, GAME_OVER = "initial_pick", "place", "pick", "game_over"
DYNASTY_GAMES = 3
COLOURS = ("pink", "yellow", "green", "blue")


@dataclass(frozen=True)
class Setup:
    """The fixed facts of a configuration (KD-2.1, KD-9.3)."""

    grid_size: int
    kings_per_seat: int
    dominoes_used: int
    line_size: int

    @property
    def rounds_total(self) -> int:
        return self.dominoes_used // self.line_size

    @classmethod
    def of(cls, players: int, mighty_duel: bool) -> Setup:
        if mighty_duel:
            return cls(grid_size=7, kings_per_seat=2, dominoes_used=48, line_size=4)
        return {2: cls(5, 2, 24, 4), 3: cls(5, 1, 36, 3), 4: cls(5, 1, 48, 4)}[players]


class LineSlot:
    """One position of a line: its domino, the king on it (``(seat, king)`` or ``None``), and ``done``."""

    __slots__ = ("domino", "done", "king")

    def __init__(self, domino: int, king: tuple[int, int] | None = None, done: bool = False) -> None:
        self.domino, self.king, self.done = domino, king, done

    def copy(self) -> LineSlot:
        return LineSlot(self.domino, self.king, self.done)


def _king_json(king: tuple[int, int] | None) -> dict | None:
    return None if king is None else {"seat": king[0], "king": king[1]}


class KingdominoState(State):
    """One position of a Kingdomino match (or Dynasty match of three games)."""

    def __init__(self, players: int, seed: int, options: dict) -> None:
        self.players = players
        self.options = options
        self.setup = Setup.of(players, options["mighty_duel"])
        self.frame = GridGeometry.of(self.setup.grid_size)
        self.streams = ChanceStreams(seed)
        self.game_index = 0
        self.match_scores = [0] * players
        self._start_game()

    # -- setup and transitions ----------------------------------------------------------------------

    def _start_game(self) -> None:
        """KD-2.2 to KD-2.5 with the draws of ED-1, for the game numbered ``game_index``."""
        setup = self.setup
        self.kingdoms = [Kingdom(self.frame) for _ in range(self.players)]
        order = self.streams.stream("pile", self.game_index).shuffled(NUMBERS)
        self.draw_pile = order[:setup.dominoes_used]
        self.set_aside = sorted(order[setup.dominoes_used:])
        pick = self.streams.stream("pick_order", self.game_index)
        if self.options["initial_pick"] == "snake":
            start = pick.below(2)
            self.pick_order = [(start, 0), (1 - start, 0), (1 - start, 1), (start, 1)]
        else:
            kings = [(seat, k) for seat in range(self.players) for k in range(setup.kings_per_seat)]
            self.pick_order = pick.shuffled(kings)
        self.pick_index = 0
        self.revealed = [False] * (len(NUMBERS) + 1)
        self.history: list[tuple] = []
        self.current_line = self._form_line()
        self.next_line: list[LineSlot] | None = None
        self.phase = INITIAL_PICK
        self.round = 0
        self.position = 0

    def _form_line(self) -> list[LineSlot]:
        """KD-2.4: the next ``line size`` dominoes of the pile, sorted by number, revealed."""
        size = self.setup.line_size
        drawn, self.draw_pile = self.draw_pile[:size], self.draw_pile[size:]
        for n in drawn:
            self.revealed[n] = True
        return [LineSlot(n) for n in sorted(drawn)]

    def _begin_round(self) -> None:
        """KD-3.1: a new next line is formed first, if the draw pile still holds dominoes."""
        self.next_line = self._form_line() if self.draw_pile else None
        self.round += 1
        self.position = 0
        self.phase = PLACE

    def _next_king(self) -> None:
        """KD-3.2 / KD-3.3: the next king of the line acts, or the round (or the game) ends."""
        self.position += 1
        if self.position < len(self.current_line):
            self.phase = PLACE
        elif self.next_line is None:
            self._end_game()
        else:
            self.current_line = self.next_line
            self._begin_round()

    def _end_game(self) -> None:
        """KD-6.1, and KD-9.4: in Dynasty the next game starts by itself until three are played."""
        if self.options["dynasty"] and self.game_index < DYNASTY_GAMES - 1:
            final = self._game_scores(finished=True)
            self.match_scores = [total + score for total, score in zip(self.match_scores, final)]
            self.game_index += 1
            self._start_game()
        else:
            self.phase = GAME_OVER

    # -- decisions ------------------------------------------------------------------------------------

    def acting_king(self) -> tuple[int, int] | None:
        """The king whose decision it is (ED-2), or ``None`` once the game is over."""
        if self.phase == INITIAL_PICK:
            return self.pick_order[self.pick_index]
        if self.phase == GAME_OVER:
            return None
        return self.current_line[self.position].king

    def current_player(self) -> int | None:
        """The owner of the acting king; ``None`` once the game is over."""
        king = self.acting_king()
        return None if king is None else king[0]

    def _legal_actions(self) -> list[dict]:
        """Every legal action in the canonical order of ED-9: placements by ascending key (r, then c,
        then o), ``{"discard": true}`` when none fits, or the free positions of the line."""
        if self.phase == PLACE:
            slot = self.current_line[self.position]
            keys = self.kingdoms[slot.king[0]].legal_keys(slot.domino)
            if not keys:
                return [{"discard": True}]
            triples = self.frame.triples
            return [{"place": [*triples[key]]} for key in keys]
        if self.phase == INITIAL_PICK:
            line = self.current_line
        elif self.phase == PICK:
            line = self.next_line
        else:
            return []
        return [{"pick": p} for p, slot in enumerate(line) if slot.king is None]

    def _apply(self, action: dict) -> None:
        """Play a legal ``action`` for the acting king."""
        king = self.acting_king()
        if self.phase == INITIAL_PICK:
            position = action["pick"]
            slot = self.current_line[position]
            slot.king = king
            self.history.append((king, "pick", position, slot.domino))
            self.pick_index += 1
            if self.pick_index == len(self.pick_order):
                self._begin_round()
        elif self.phase == PLACE:
            slot = self.current_line[self.position]
            kingdom = self.kingdoms[king[0]]
            if "discard" in action:
                kingdom.discard(slot.domino)
                self.history.append((king, "discard", True, slot.domino))
            else:
                key = self.frame.key(*action["place"])
                kingdom.place(slot.domino, key)
                self.history.append((king, "place", self.frame.triple(key), slot.domino))
            slot.done = True
            if self.next_line is None:
                self._next_king()
            else:
                self.phase = PICK
        else:
            position = action["pick"]
            slot = self.next_line[position]
            slot.king = king
            self.history.append((king, "pick", position, slot.domino))
            self._next_king()

    # -- results --------------------------------------------------------------------------------------

    def is_terminal(self) -> bool:
        return self.phase == GAME_OVER

    def _game_scores(self, finished: bool) -> list[int]:
        """This game's scores: base (KD-7.3), plus the enabled bonuses once it is over (KD-7.4)."""
        scores = [kingdom.summary()[0] for kingdom in self.kingdoms]
        if finished:
            scores = [score + kingdom.bonus(self.options) for score, kingdom in zip(scores, self.kingdoms)]
        return scores

    def scores(self) -> list[int]:
        """Match score so far (ED-11): earlier Dynasty games plus this game's running or final score."""
        current = self._game_scores(finished=self.phase == GAME_OVER)
        return [total + score for total, score in zip(self.match_scores, current)]

    def ranking(self) -> list[int]:
        """KD-8: score, then largest property, then crowns; Dynasty ranks the total alone (ED-10)."""
        scores = self.scores()
        if self.options["dynasty"]:
            return competition_ranking([(score,) for score in scores])
        return competition_ranking([(score,) + kingdom.summary()[1:]
                                    for score, kingdom in zip(scores, self.kingdoms)])

    # -- JSON -----------------------------------------------------------------------------------------

    def _line_json(self, line: list[LineSlot] | None, with_done: bool) -> list[dict] | None:
        if line is None:
            return None
        entries = []
        for position, slot in enumerate(line):
            entry = {"position": position, "domino": domino_json(slot.domino), "king": _king_json(slot.king)}
            if with_done:
                entry["done"] = slot.done
            entries.append(entry)
        return entries

    def _history_json(self) -> list[dict]:
        entries = []
        for king, kind, value, domino in self.history:
            action = {kind: list(value) if kind == "place" else value}
            entries.append({"seat": king[0], "king": king[1], "action": action, "domino": domino})
        return entries

    def _public(self) -> dict:
        """Everything every seat may know (ED-6), in the field order of section 11.2, without ``you``."""
        king = self.acting_king()
        to_act = None
        if king is not None:
            to_act = {"seat": king[0], "king": king[1],
                      "line_position": None if self.phase == INITIAL_PICK else self.position}
        centre = self.frame.k - 1
        return {
            "game": "kingdomino",
            "options": dict(self.options),
            "players": self.players,
            "grid_size": self.frame.k,
            "frame_size": self.frame.size,
            "castle": [centre, centre],
            "game_index": self.game_index,
            "phase": self.phase,
            "round": self.round,
            "rounds_total": self.setup.rounds_total,
            "to_act": to_act,
            "current_line": self._line_json(self.current_line, with_done=True),
            "next_line": self._line_json(self.next_line, with_done=False),
            "kingdoms": [kingdom.to_json(seat) for seat, kingdom in enumerate(self.kingdoms)],
            "draw_pile_count": len(self.draw_pile),
            "unseen_dominoes": [n for n in NUMBERS if not self.revealed[n]],
            "history": self._history_json(),
            "match_scores": self.match_scores[:],
        }

    def _observation(self, player: int) -> dict:
        """What ``player`` may know (section 11.2): the public position plus ``you``."""
        public = self._public()
        observation = {}
        for field, value in public.items():
            observation[field] = value
            if field == "players":
                observation["you"] = player
        return observation

    def view(self) -> dict:
        """The spectator view: the public position plus ``draw_pile`` (in draw order) and ``set_aside``."""
        view = self._public()
        view["draw_pile"] = self.draw_pile[:]
        view["set_aside"] = self.set_aside[:]
        return view

    # -- copies ---------------------------------------------------------------------------------------

    def _copy_parts(self, twin: KingdominoState) -> None:
        """What ``apply`` changes; the setup, the frame, the options and the streams are never changed."""
        twin.match_scores = self.match_scores[:]
        twin.kingdoms = [kingdom.copy() for kingdom in self.kingdoms]
        twin.draw_pile = self.draw_pile[:]
        twin.set_aside = self.set_aside[:]
        twin.pick_order = self.pick_order[:]
        twin.revealed = self.revealed[:]
        twin.history = self.history[:]
        twin.current_line = [slot.copy() for slot in self.current_line]
        twin.next_line = None if self.next_line is None else [slot.copy() for slot in self.next_line]

    def resample_hidden(self, player: int, seed: int) -> KingdominoState:
        """A copy with the secret parts of ED-6 re-dealt from ``seed``.

        Every seat knows the same things, so ``player`` does not matter: the draw pile and the set-aside
        dominoes are reshuffled together (the pile keeps its size) by stream ``("redeal", game_index)`` of
        ``ChanceStreams(seed)``, and the copy's streams become those, so that later Dynasty games are
        re-dealt too.
        """
        twin = self.clone()
        twin.streams = ChanceStreams(seed)
        pool = twin.streams.stream("redeal", self.game_index).shuffled(self.draw_pile + self.set_aside)
        twin.draw_pile = pool[:len(self.draw_pile)]
        twin.set_aside = sorted(pool[len(self.draw_pile):])
        return twin

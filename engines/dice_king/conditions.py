"""Dice conditions: the grammar of rules section 4 as a parser, an evaluator and a describer.

A condition is data (a string on a card, Appendix B), parsed once into a :class:`Condition`::

    condition := atom | "ALL(" atom {"," atom} ")" | "TIERS(" atom "," atom "," atom ")"
    atom      := COLOR(c,n) | VALUE(v,n) | SETS(k{,k}) | SUM(N) | SUMC(c,N) | ORDER(R>B>G) | STRAIGHT(n)

Spaces are ignored. A result is a list of dice ``(colour, value)``; :func:`stats` condenses it once into
the counts and sums every atom reads, so evaluating many conditions on one result is cheap.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from engines.dice_king.dice import COLOUR_NAMES, COLOURS

ALL_SIX_MASK = 0b1111110  # bit v set for v = 1..6


class ConditionError(ValueError):
    """A condition string that does not follow the grammar of rules section 4."""


class ResultStats:
    """What atoms read from a result: counts per value and colour, pip sums per colour, total, values."""

    __slots__ = ("colour_counts", "colour_sums", "present", "total", "value_counts")

    def __init__(self, dice: Iterable[tuple[str, int]]) -> None:
        value_counts = [0] * 7
        colour_counts = {"R": 0, "G": 0, "B": 0}
        colour_sums = {"R": 0, "G": 0, "B": 0}
        present = 0
        for colour, value in dice:
            value_counts[value] += 1
            colour_counts[colour] += 1
            colour_sums[colour] += value
            present |= 1 << value
        self.value_counts = value_counts
        self.colour_counts = colour_counts
        self.colour_sums = colour_sums
        self.total = colour_sums["R"] + colour_sums["G"] + colour_sums["B"]
        self.present = present


def stats(dice: Iterable[tuple[str, int]]) -> ResultStats:
    """The :class:`ResultStats` of a result (natural and virtual dice alike)."""
    return ResultStats(dice)


@dataclass(frozen=True)
class Atom:
    """One condition atom: ``kind`` (``COLOR`` …), its arguments, and its test on :class:`ResultStats`."""

    kind: str
    args: tuple
    test: Callable[[ResultStats], bool] = field(compare=False, repr=False)

    @property
    def text(self) -> str:
        """The canonical string, e.g. ``SETS(3,2)``."""
        if self.kind == "ORDER":
            return "ORDER(R>B>G)"
        return f"{self.kind}({','.join(str(arg) for arg in self.args)})"

    def holds(self, result: ResultStats) -> bool:
        return self.test(result)


@dataclass(frozen=True)
class Condition:
    """A parsed condition: ``kind`` is ``ATOM``, ``ALL`` or ``TIERS``; ``atoms`` in printed order."""

    kind: str
    atoms: tuple[Atom, ...]

    @property
    def text(self) -> str:
        """The canonical string (no spaces) used in observations."""
        if self.kind == "ATOM":
            return self.atoms[0].text
        return f"{self.kind}({','.join(atom.text for atom in self.atoms)})"

    @property
    def has_order(self) -> bool:
        """Whether an added die can break it (only ``ORDER`` can lose from more dice, ED-21)."""
        return any(atom.kind == "ORDER" for atom in self.atoms)

    @property
    def has_straight(self) -> bool:
        """Whether it contains a ``STRAIGHT`` atom (the 6-straight bonus, DK-3.10)."""
        return any(atom.kind == "STRAIGHT" for atom in self.atoms)

    def tiers_met(self, result: ResultStats) -> int:
        """The number of atoms that hold (DK-4.3); meaningful for ``TIERS`` conditions."""
        return sum(1 for atom in self.atoms if atom.test(result))

    def holds(self, result: ResultStats) -> bool:
        """Whether the card can be claimed with this result: every atom, or one tier for ``TIERS``."""
        if self.kind == "TIERS":
            return any(atom.test(result) for atom in self.atoms)
        return all(atom.test(result) for atom in self.atoms)


# --- atom tests -------------------------------------------------------------------------------------


def _color(colour: str, n: int):
    return lambda r: r.colour_counts[colour] >= n


def _value(value: int, n: int):
    return lambda r: r.value_counts[value] >= n


def _sets(*needs: int):
    # Distinct values x_i with count(x_i) >= k_i exist exactly when the i-th largest count is at least
    # the i-th largest need for every i (a greedy matching of sorted lists).
    wanted = sorted(needs, reverse=True)

    def test(r: ResultStats) -> bool:
        counts = sorted(r.value_counts[1:], reverse=True)
        return all(have >= need for have, need in zip(counts, wanted))

    return test


def _sum(n: int):
    return lambda r: r.total >= n


def _sumc(colour: str, n: int):
    return lambda r: r.colour_sums[colour] >= n


def _order():
    return lambda r: r.colour_sums["R"] > r.colour_sums["B"] > r.colour_sums["G"]


def _straight(n: int):
    windows = [((1 << n) - 1) << start for start in range(1, 8 - n)]

    def test(r: ResultStats) -> bool:
        present = r.present
        return any(present & window == window for window in windows)

    return test


# --- parser -----------------------------------------------------------------------------------------

_ATOM_RE = re.compile(r"([A-Z]+)\(([^()]*)\)")


def _int(text: str, low: int, high: int, where: str) -> int:
    if not text.isdigit():
        raise ConditionError(f"{where}: {text!r} is not a number")
    number = int(text)
    if not low <= number <= high:
        raise ConditionError(f"{where}: {number} is outside {low}..{high}")
    return number


def _colour(text: str, where: str) -> str:
    if text not in COLOURS:
        raise ConditionError(f"{where}: {text!r} is not a colour (R, G or B)")
    return text


def parse_atom(text: str) -> Atom:
    """Parse one atom such as ``COLOR(R,4)``; :class:`ConditionError` if it is not one."""
    match = _ATOM_RE.fullmatch(text)
    if not match:
        raise ConditionError(f"not an atom: {text!r}")
    kind, inner = match.groups()
    args = inner.split(",") if inner else []
    if kind == "COLOR" and len(args) == 2:
        parsed = (_colour(args[0], text), _int(args[1], 1, 9, text))
        return Atom(kind, parsed, _color(*parsed))
    if kind == "VALUE" and len(args) == 2:
        parsed = (_int(args[0], 1, 6, text), _int(args[1], 1, 9, text))
        return Atom(kind, parsed, _value(*parsed))
    if kind == "SETS" and args:
        parsed = tuple(_int(arg, 1, 9, text) for arg in args)
        return Atom(kind, parsed, _sets(*parsed))
    if kind == "SUM" and len(args) == 1:
        parsed = (_int(args[0], 0, 10**6, text),)
        return Atom(kind, parsed, _sum(*parsed))
    if kind == "SUMC" and len(args) == 2:
        parsed = (_colour(args[0], text), _int(args[1], 0, 10**6, text))
        return Atom(kind, parsed, _sumc(*parsed))
    if kind == "ORDER" and args == ["R>B>G"]:
        return Atom(kind, (), _order())
    if kind == "STRAIGHT" and len(args) == 1:
        parsed = (_int(args[0], 1, 6, text),)
        return Atom(kind, parsed, _straight(*parsed))
    raise ConditionError(f"not an atom: {text!r}")


def _split_atoms(inner: str) -> list[str]:
    """Split ``A(..),B(..)`` at the commas that are outside parentheses."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(inner):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise ConditionError(f"unbalanced parentheses in {inner!r}")
        elif char == "," and depth == 0:
            parts.append(inner[start:index])
            start = index + 1
    if depth:
        raise ConditionError(f"unbalanced parentheses in {inner!r}")
    parts.append(inner[start:])
    return parts


def parse(text: str) -> Condition:
    """Parse a condition string (spaces ignored); :class:`ConditionError` if it breaks the grammar."""
    if not isinstance(text, str):
        raise ConditionError(f"a condition is a string, got {text!r}")
    compact = "".join(text.split())
    for kind in ("ALL", "TIERS"):
        if compact.startswith(kind + "(") and compact.endswith(")"):
            atoms = tuple(parse_atom(part) for part in _split_atoms(compact[len(kind) + 1:-1]))
            if kind == "TIERS" and len(atoms) != 3:
                raise ConditionError(f"TIERS needs exactly 3 atoms: {text!r}")
            return Condition(kind, atoms)
    return Condition("ATOM", (parse_atom(compact),))


# --- words ------------------------------------------------------------------------------------------


def describe_atom(atom: Atom) -> str:
    """The atom in plain English, e.g. ``"4+ red dice"``."""
    kind, args = atom.kind, atom.args
    if kind == "COLOR":
        return f"{args[1]}+ {COLOUR_NAMES[args[0]]} dice"
    if kind == "VALUE":
        return f"{args[1]}+ dice showing {args[0]}"
    if kind == "SETS":
        names = {1: "single", 2: "pair", 3: "three of a kind", 4: "four of a kind", 5: "five of a kind"}
        if args == (3, 2):
            return "full house"
        if len(args) == 1:
            return names.get(args[0], f"{args[0]} of a kind")
        if len(set(args)) == 1 and args[0] in names:
            count = {2: "two", 3: "three"}.get(len(args), str(len(args)))
            plural = "pairs" if args[0] == 2 else "times " + names[args[0]]
            return f"{count} {plural}"
        return " + ".join(names.get(arg, f"{arg} alike") for arg in args) + " (different values)"
    if kind == "SUM":
        return f"sum {args[0]}+"
    if kind == "SUMC":
        return f"{COLOUR_NAMES[args[0]]} sum {args[1]}+"
    if kind == "ORDER":
        return "red sum > blue sum > green sum"
    if kind == "STRAIGHT":
        return f"straight of {args[0]}"
    return atom.text


def describe(condition: Condition) -> str:
    """The condition in plain English, e.g. ``"tiers: sum 26+ / sum 28+ / sum 30+"``."""
    words = [describe_atom(atom) for atom in condition.atoms]
    if condition.kind == "TIERS":
        return "tiers: " + " / ".join(words)
    return " and ".join(words)

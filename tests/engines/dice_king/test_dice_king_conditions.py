"""The condition grammar and its evaluator: rules DK-4.1 to DK-4.3, ED-6, ED-7 (checklist item 2), and a
property test against a brute-force evaluator written independently of the engine's counting shortcuts."""

from __future__ import annotations

from itertools import combinations, pairwise, permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.dice_king.cards import CARDS
from engines.dice_king.conditions import ConditionError, describe, parse, stats


def result(*faces: str) -> list[tuple[str, int]]:
    return [(face[0], int(face[1:])) for face in faces]


def holds(condition: str, *faces: str) -> bool:
    return parse(condition).holds(stats(result(*faces)))


def test_dk_4_1_color_counts_dice_of_a_colour_including_virtual_ones():
    assert holds("COLOR(R,4)", "R1", "R3", "R2", "R6", "G2", "B4")
    assert not holds("COLOR(R,4)", "R1", "R3", "R2", "G6", "G2", "B4")
    assert holds("COLOR(R,4)", "R1", "R3", "R2", "G6", "G2", "B4", "R5")  # a virtual red die


def test_dk_4_1_value_counts_dice_showing_a_value():
    assert holds("VALUE(6,3)", "R6", "G6", "B6", "R1", "G2", "B3")
    assert not holds("VALUE(6,3)", "R6", "G6", "B5", "R1", "G2", "B3")


def test_dk_4_1_sets_need_distinct_values():
    assert holds("SETS(2,2)", "R1", "G1", "B2", "R2", "G3", "B4")
    assert not holds("SETS(2,2)", "R1", "G1", "B1", "R1", "G3", "B4")  # four 1s are not two pairs
    assert holds("SETS(3,2)", "R5", "G5", "B5", "R2", "G2", "B4")
    assert not holds("SETS(3,2)", "R5", "G5", "B5", "R2", "G3", "B4")
    assert holds("SETS(4)", "R5", "G5", "B5", "R5", "G3", "B4")
    assert holds("SETS(2,2,2)", "R1", "G1", "B2", "R2", "G3", "B3")
    assert not holds("SETS(3,3)", "R1", "G1", "B1", "R2", "G2", "B3")


def test_dk_4_1_sum_and_sumc():
    assert holds("SUM(27)", "R6", "G6", "B5", "R4", "G3", "B3")
    assert not holds("SUM(28)", "R6", "G6", "B5", "R4", "G3", "B3")
    assert holds("SUMC(R,13)", "R6", "R4", "R3", "G6", "B6", "B5")
    assert not holds("SUMC(R,14)", "R6", "R4", "R3", "G6", "B6", "B5")


def test_dk_4_1_order_is_strict_and_a_missing_colour_totals_zero():
    assert holds("ORDER(R>B>G)", "R1", "R1", "G4", "B3", "R5", "B3")
    assert not holds("ORDER(R>B>G)", "R6", "R6", "G4", "G2", "B3", "B3")  # blue 6 = green 6
    assert holds("ORDER(R>B>G)", "R6", "R6", "R4", "B1", "R1", "R2")  # no green: blue 1 > 0
    assert not holds("ORDER(R>B>G)", "R6", "R6", "R4", "G1", "R1", "R2")  # no blue: 0 > green fails


def test_dk_4_1_straight_needs_consecutive_distinct_values():
    assert holds("STRAIGHT(4)", "R2", "G3", "B4", "R5", "G5", "B5")
    assert not holds("STRAIGHT(4)", "R1", "G2", "B3", "R5", "G6", "B6")
    assert holds("STRAIGHT(6)", "R1", "G2", "B3", "R4", "G5", "B6")
    assert not holds("STRAIGHT(6)", "R1", "G2", "B3", "R4", "G5", "B5")
    assert holds("STRAIGHT(6)", "R1", "G2", "B3", "R4", "G5", "B5", "G6")  # the virtual 6 completes it


def test_dk_4_2_and_ed_6_all_needs_every_atom_and_one_die_may_serve_several():
    # The three blue dice are also part of the straight.
    assert holds("ALL(COLOR(B,3),STRAIGHT(4))", "B1", "B2", "B3", "G4", "R6", "R6")
    assert not holds("ALL(COLOR(B,3),STRAIGHT(5))", "B1", "B2", "B3", "G4", "R6", "R6")


def test_dk_4_3_and_ed_7_tiers_count_the_atoms_met():
    condition = parse("TIERS(COLOR(R,4), COLOR(R,5), COLOR(R,6))")
    assert condition.tiers_met(stats(result("R1", "R3", "R2", "R6", "G2", "B4"))) == 1
    assert condition.tiers_met(stats(result("R1", "R3", "R2", "R6", "R5", "B4"))) == 2
    assert condition.tiers_met(stats(result("R1", "R3", "R2", "R6", "R5", "R4"))) == 3
    none_met = stats(result("R1", "R3", "R2", "G6", "B5", "B4"))
    assert condition.tiers_met(none_met) == 0 and not condition.holds(none_met)


def test_dk_4_grammar_ignores_spaces_and_prints_a_canonical_string():
    condition = parse(" TIERS( SUM(26), SUM(28),SUM(30) ) ")
    assert condition.text == "TIERS(SUM(26),SUM(28),SUM(30))"
    assert parse("ALL(SETS(2,2), COLOR(R,4), SUM(22))").text == "ALL(SETS(2,2),COLOR(R,4),SUM(22))"
    assert describe(parse("SETS(3,2)")) == "full house"
    assert describe(parse("TIERS(SUM(26),SUM(28),SUM(30))")) == "tiers: sum 26+ / sum 28+ / sum 30+"


@pytest.mark.parametrize("text", [
    "COLOR(Y,3)", "VALUE(7,2)", "SUM()", "ORDER(G>B>R)", "TIERS(SUM(1),SUM(2))", "ALL(SUM(3)", "SUM(3))",
    "STRAIGHT(7)", "FOO(1)", "", "COLOR(R,0)",
])
def test_dk_4_grammar_rejects_malformed_conditions(text):
    with pytest.raises(ConditionError):
        parse(text)


# --- brute force --------------------------------------------------------------------------------------


def brute_atom(kind: str, args: tuple, dice: list[tuple[str, int]]) -> bool:
    """Each atom read literally from rules DK-4.1, by enumeration rather than by counting shortcuts."""
    if kind == "COLOR":
        return len([d for d in dice if d[0] == args[0]]) >= args[1]
    if kind == "VALUE":
        return len([d for d in dice if d[1] == args[0]]) >= args[1]
    if kind == "SETS":
        # Try every assignment of pairwise distinct values to the symbols.
        for values in permutations(range(1, 7), len(args)):
            if all(len([d for d in dice if d[1] == x]) >= k for x, k in zip(values, args)):
                return True
        return False
    if kind == "SUM":
        return sum(d[1] for d in dice) >= args[0]
    if kind == "SUMC":
        return sum(d[1] for d in dice if d[0] == args[0]) >= args[1]
    if kind == "ORDER":
        red, blue, green = (sum(d[1] for d in dice if d[0] == c) for c in "RBG")
        return red > blue > green
    if kind == "STRAIGHT":
        # Some choice of n dice shows n consecutive values.
        for chosen in combinations(dice, args[0]):
            values = sorted(d[1] for d in chosen)
            if all(b == a + 1 for a, b in pairwise(values)):
                return True
        return False
    raise AssertionError(kind)


dice_results = st.lists(st.tuples(st.sampled_from("RGB"), st.integers(1, 6)), min_size=6, max_size=9)


@settings(max_examples=300, deadline=None)
@given(dice=dice_results)
def test_dk_4_every_card_condition_agrees_with_brute_force(dice):
    summary = stats(dice)
    for card in CARDS.values():
        condition = card.condition
        expected = [brute_atom(atom.kind, atom.args, dice) for atom in condition.atoms]
        if condition.kind == "TIERS":
            assert condition.tiers_met(summary) == sum(expected), card.id
            assert condition.holds(summary) == any(expected), card.id
        else:
            assert condition.holds(summary) == all(expected), card.id


atoms = st.one_of(
    st.builds(lambda c, n: f"COLOR({c},{n})", st.sampled_from("RGB"), st.integers(1, 9)),
    st.builds(lambda v, n: f"VALUE({v},{n})", st.integers(1, 6), st.integers(1, 9)),
    st.builds(lambda ks: f"SETS({','.join(map(str, ks))})", st.lists(st.integers(1, 6), min_size=1, max_size=4)),
    st.builds(lambda n: f"SUM({n})", st.integers(0, 50)),
    st.builds(lambda c, n: f"SUMC({c},{n})", st.sampled_from("RGB"), st.integers(0, 40)),
    st.just("ORDER(R>B>G)"),
    st.builds(lambda n: f"STRAIGHT({n})", st.integers(1, 6)),
)


@settings(max_examples=300, deadline=None)
@given(text=atoms, dice=dice_results)
def test_dk_4_every_atom_evaluator_agrees_with_brute_force(text, dice):
    atom = parse(text).atoms[0]
    assert atom.holds(stats(dice)) == brute_atom(atom.kind, atom.args, dice)

"""``engines.bench``: the random-playout harness behind every game's bench command.

A playout is a whole legal game whose length depends only on its arguments; ``measure`` reports its four
figures from real playouts; ``main`` parses the command line and prints one row per configuration.
"""

from __future__ import annotations

import random
import sys

import pytest

import engines
from engines.bench import main, measure, random_playout


def replayed_decisions(game: str, players: int, seed: int) -> int:
    """The decisions of the same random game, played here by hand."""
    state = engines.get(game).new_state(players, seed)
    chooser = random.Random(seed)
    count = 0
    while not state.is_terminal():
        state.apply(chooser.choice(state.legal_actions()))
        count += 1
    return count


@pytest.mark.parametrize("game", ["kingdomino", "draftosaurus"])
def test_a_playout_is_a_whole_game_fixed_by_its_seed(game):
    decisions = random_playout(game, 2, 3)
    assert decisions == replayed_decisions(game, 2, 3)
    assert 0 < decisions <= engines.get(game).facts.max_game_length
    assert random_playout(game, 2, 3, observe=True) == decisions


def test_a_playout_takes_options():
    plain = random_playout("kingdomino", 2, 1, {})
    duel = random_playout("kingdomino", 2, 1, {"mighty_duel": True})
    assert duel > plain  # the Mighty Duel is played on a larger kingdom: more dominoes


def test_a_playout_refuses_what_new_state_refuses():
    with pytest.raises(ValueError):
        random_playout("kingdomino", 9, 0)


def test_measure_reports_consistent_figures():
    row = measure("kingdomino", 2, None, 2)
    assert set(row) == {"games_per_s", "games_per_cpu_s", "decisions_per_game", "cpu_us_per_decision"}
    expected = (random_playout("kingdomino", 2, 0) + random_playout("kingdomino", 2, 1)) / 2
    assert row["decisions_per_game"] == expected
    assert all(value > 0 for value in row.values())


def test_main_prints_one_row_per_configuration(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["bench", "--games", "1"])
    main("kingdomino", [("two", 2, {}), ("three", 3, None)])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["two", "three"]
    assert all("games/s wall" in line and "decisions/game" in line for line in lines)


def test_main_profiles_the_first_configuration(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["bench", "--games", "1", "--profile", "--observe"])
    main("kingdomino", [("two", 2, {})])
    out = capsys.readouterr().out
    assert "tottime" in out and "two" in out

"""How sure a leaderboard is (``ladder.ratings.confidence``), checked on synthetic histories of bots
whose true strengths are known: the intervals cover the truth about 95% of the time, ``p_above`` is near 1
for far-apart bots and near 1/2 for equal ones, and rank ranges pin a clearly best bot to first place.

Pure maths: no database. Histories are drawn with numpy from a fixed seed per repetition, so every run
sees the same figures; tolerances are a few standard errors of the repetitions' count.
"""

from __future__ import annotations

import numpy as np
import pytest

from ladder.ratings.confidence import SETTLED_P, PairTotals, board_certainty

LN10_OVER_400 = np.log(10.0) / 400.0


def two_player_history(rng, truths, games_per_pair: int, draw: float = 0.0) -> list[PairTotals]:
    """Every pair of bots plays ``games_per_pair`` games; the expected score is the Elo curve of the true
    gap, a share ``draw`` of the games being draws."""
    pairs = []
    for i in range(len(truths)):
        for j in range(i + 1, len(truths)):
            expected = 1.0 / (1.0 + 10.0 ** ((truths[j] - truths[i]) / 400.0))
            win = (expected - draw / 2.0) / (1.0 - draw)
            drawn = rng.random(games_per_pair) < draw
            won = ~drawn & (rng.random(games_per_pair) < win)
            pairs.append(PairTotals(i, j, float(games_per_pair), float(won.sum() + 0.5 * drawn.sum())))
    return pairs


def multiplayer_history(rng, truths, players: int, matches: int) -> list[PairTotals]:
    """``matches`` games of ``players`` bots drawn at random, each finishing in a Plackett-Luce order of the
    true strengths (the Gumbel trick), read as the recorder reads them: each pair weighs 2/N."""
    count = len(truths)
    strength = np.asarray(truths) * LN10_OVER_400
    tables = np.argsort(rng.random((matches, count)), axis=1)[:, :players]
    finish = strength[tables] + rng.gumbel(size=tables.shape)
    weight, score = np.zeros((count, count)), np.zeros((count, count))
    for x in range(players):
        for y in range(players):
            if x != y:
                np.add.at(weight, (tables[:, x], tables[:, y]), 2.0 / players)
                np.add.at(score, (tables[:, x], tables[:, y]), 2.0 / players * (finish[:, x] > finish[:, y]))
    return [PairTotals(i, j, weight[i, j], score[i, j]) for i in range(count) for j in range(i + 1, count)
            if weight[i, j]]


def coverage(truths, history, repetitions: int, elos=None) -> float:
    """Share of the intervals, over ``repetitions`` seeded histories, that hold the bot's true strength
    relative to the field's average, placed at the average Elo as the intervals are."""
    truths = np.asarray(truths, dtype=float)
    elos = {i: 1500.0 for i in range(len(truths))} if elos is None else elos
    anchor = np.mean(list(elos.values()))
    truth = anchor + truths - truths.mean()
    covered = 0
    for seed in range(repetitions):
        rows = board_certainty(list(range(len(truths))), elos, history(np.random.default_rng(seed)), samples=20)
        covered += sum(row.low <= truth[i] <= row.high for i, row in enumerate(rows))
    return covered / (repetitions * len(truths))


SPREAD = np.linspace(-250.0, 250.0, 8)


def test_intervals_cover_the_true_strengths_about_95_percent_of_the_time():
    # 2,000 intervals: a standard error of 0.5 percentage points around 95%.
    assert 0.935 <= coverage(SPREAD, lambda rng: two_player_history(rng, SPREAD, 20), 250) <= 0.965


def test_draws_leave_the_intervals_at_least_95_percent():
    # A draw is half a win to the fit, which reckons the variance of a win or a loss: with draws the games
    # vary less than it assumes, so the intervals err on the wide side, never on the narrow one.
    assert 0.935 <= coverage(SPREAD, lambda rng: two_player_history(rng, SPREAD, 20, draw=0.1), 250) <= 0.99


@pytest.mark.parametrize("players", [3, 4])
def test_multiplayer_games_read_as_weighted_pairs_keep_the_intervals_honest(players):
    # The pairs of one N-player game are not independent; weighing each 2/N keeps the intervals from
    # being too narrow (counting every pair fully would be).
    history = lambda rng: multiplayer_history(rng, SPREAD, players, 800 // players)  # noqa: E731
    assert 0.935 <= coverage(SPREAD, history, 150) <= 0.99


def test_coverage_holds_for_a_field_whose_online_elo_is_not_centred_on_1500():
    elos = {i: 1400.0 + 60.0 * i for i in range(len(SPREAD))}
    assert 0.935 <= coverage(SPREAD, lambda rng: two_player_history(rng, SPREAD, 20), 150, elos=elos) <= 0.965


def test_p_above_is_near_one_for_far_apart_bots():
    truths = [400.0, 0.0, -400.0]
    rows = board_certainty([0, 1, 2], {0: 1900.0, 1: 1500.0, 2: 1100.0},
                           two_player_history(np.random.default_rng(1), truths, 100))
    assert [row.p_above for row in rows[:2]] == [pytest.approx(1.0, abs=1e-3)] * 2
    assert rows[2].p_above is None


def test_p_above_of_two_bots_with_an_even_record_is_one_half():
    rows = board_certainty(["a", "b"], {"a": 1510.0, "b": 1490.0}, [("a", "b", 40.0, 20.0)])
    assert rows[0].p_above == pytest.approx(0.5, abs=1e-9)
    assert rows[0].estimate == pytest.approx(rows[1].estimate)


def test_p_above_of_equal_bots_is_a_coin_toss_and_rarely_settles():
    # Two equal bots in a fixed order: p_above spreads evenly around 1/2, and a settled mark between them
    # is a false alarm that the 0.95 threshold allows about 5% of the time (1,000 histories: se 0.7 points).
    values = [board_certainty([0, 1], {0: 1500.0, 1: 1500.0},
                              two_player_history(np.random.default_rng(seed), [0.0, 0.0], 50), samples=10)[0].p_above
              for seed in range(1000)]
    assert np.mean(values) == pytest.approx(0.5, abs=0.03)
    assert 0.03 <= np.mean(np.array(values) >= SETTLED_P) <= 0.075


def test_p_above_is_calibrated_where_the_board_follows_a_noisy_elo():
    # Truths drawn at random, the board in the order of an online Elo that wanders 40 points around them:
    # of the adjacent pairs marked settled, at least about 95% are truly in that order.
    settled = right = 0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        truths = rng.normal(0.0, 150.0, 10)
        elo = 1500.0 + truths + rng.normal(0.0, 40.0, 10)
        board = [int(i) for i in np.argsort(-elo)]
        rows = board_certainty(board, {i: elo[i] for i in board}, two_player_history(rng, truths, 8), samples=10)
        for upper, lower, row in zip(board, board[1:], rows, strict=False):
            if row.p_above >= SETTLED_P:
                settled += 1
                right += truths[upper] > truths[lower]
    assert settled > 300
    assert right / settled >= 0.95


def test_rank_range_of_a_clearly_best_bot_is_first_place_only():
    truths = [600.0, 0.0, 0.0, 0.0, 0.0, -50.0]
    rows = board_certainty(list(range(6)), dict.fromkeys(range(6), 1500.0),
                           two_player_history(np.random.default_rng(3), truths, 30))
    assert (rows[0].best, rows[0].worst) == (1, 1)
    # The four equal bots behind it could each be anywhere from second to last.
    assert all(row.best <= 3 and row.worst >= 5 for row in rows[1:5])
    assert rows[5].worst == 6


def test_rank_ranges_hold_the_true_rank_about_95_percent_of_the_time():
    held = 0
    for seed in range(100):
        rows = board_certainty(list(range(8)), dict.fromkeys(range(8), 1500.0),
                               two_player_history(np.random.default_rng(seed), SPREAD, 20), samples=1000)
        true_rank = [8 - i for i in range(8)]  # SPREAD rises: bot 7 is the strongest
        held += sum(row.best <= true_rank[i] <= row.worst for i, row in enumerate(rows))
    assert held / 800 >= 0.94


def test_intervals_are_placed_at_the_average_elo_of_the_reference_group():
    pairs = two_player_history(np.random.default_rng(5), [100.0, 0.0, -100.0], 30)
    elos = {0: 1620.0, 1: 1540.0, 2: 1480.0}
    rows = board_certainty([0, 1, 2], elos, pairs)
    assert np.mean([row.estimate for row in rows]) == pytest.approx(np.mean(list(elos.values())))
    assert all(row.low < row.estimate < row.high for row in rows)
    # A bot of the group left off the board (an inactive one) still anchors the others.
    shown = board_certainty([0, 1], elos, pairs)
    assert [row.estimate for row in shown] == pytest.approx([row.estimate for row in rows[:2]])
    assert max(row.worst for row in shown) == 2  # ranks are among the board's bots


def test_a_bot_without_rated_games_gets_the_prior_width():
    rows = board_certainty(["old", "other", "new"], {"old": 1550.0, "other": 1450.0, "new": 1500.0},
                           [("old", "other", 60.0, 40.0)])
    new = rows[2]
    # The prior's sd of 400 Elo, times sqrt(1 - 1/3): its distance from the average of a group of three
    # whose sum only the prior knows (the games say only how far apart the other two are).
    assert new.high - new.low == pytest.approx(2 * 1.96 * 400.0 * np.sqrt(2 / 3), rel=1e-3)
    assert (new.best, new.worst) == (1, 3)


def test_the_answer_depends_on_the_totals_only():
    pairs = two_player_history(np.random.default_rng(9), SPREAD, 10)
    elos = dict.fromkeys(range(8), 1500.0)
    split = [piece for a, b, weight, score in pairs
             for piece in ((a, b, weight / 2, score / 2), (b, a, weight / 2, weight / 2 - score / 2))]
    assert board_certainty(list(range(8)), elos, pairs) == board_certainty(list(range(8)), elos, pairs)
    together, apart = board_certainty(list(range(8)), elos, pairs), board_certainty(list(range(8)), elos, split)
    assert [row.estimate for row in apart] == pytest.approx([row.estimate for row in together])
    assert [row.p_above for row in apart[:-1]] == pytest.approx([row.p_above for row in together[:-1]])


@pytest.mark.parametrize("board,elos,pairs,message", [
    (["a", "a"], {"a": 1500.0}, [], "twice"),
    (["a", "b"], {"a": 1500.0}, [], "no Elo"),
    (["a", "b"], {"a": 1500.0, "b": 1500.0}, [("a", "b", 2.0, 3.0)], "within"),
])
def test_bad_input_is_refused_with_a_reason(board, elos, pairs, message):
    with pytest.raises(ValueError, match=message):
        board_certainty(board, elos, pairs)


def test_an_empty_board_and_a_single_bot():
    assert board_certainty([], {}, []) == []
    (only,) = board_certainty(["a"], {"a": 1500.0, "b": 1500.0}, [("a", "b", 10.0, 9.0)])
    assert (only.best, only.worst, only.p_above) == (1, 1, None)


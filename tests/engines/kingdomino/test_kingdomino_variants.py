"""KD-9.3 Mighty Duel, KD-9.4 Dynasty, KD-9.5 / ED-4 the seed's snake pick, and option validation."""

import pytest
from kingdomino_helpers import WORKED_EXAMPLE, build_kingdom, game, new, play_out, play_until

from engines.kingdomino.state import GAME_OVER, INITIAL_PICK, PLACE


def at_last_decision_of_game_1(**options):
    """A 2-player Dynasty match at the final placement of its first game, the other seat's kingdom
    replaced by section 7's worked example (50 points, +10 Middle Kingdom, +5 Harmony)."""
    state = new(2, 8, dynasty=True, **options)
    play_until(state, lambda s: s.phase == PLACE and s.round == s.setup.rounds_total
               and s.position == len(s.current_line) - 1)
    other = 1 - state.current_player()
    state.kingdoms[other] = build_kingdom(WORKED_EXAMPLE)
    return state, other


def test_kd_9_3_mighty_duel_is_7_by_7_with_all_48_for_2_players_only():
    state = new(2, 5, mighty_duel=True)
    view = state.view()
    assert (view["grid_size"], view["frame_size"], view["castle"]) == (7, 13, [6, 6])
    assert view["set_aside"] == [] and view["draw_pile_count"] == 44
    play_out(state, 5)
    assert all(len(k.placed) + len(k.discarded) == 24 for k in state.kingdoms)
    assert max(len(k.placed) for k in state.kingdoms) > 12, "kingdoms grow past 5 x 5"
    for players in (3, 4):
        with pytest.raises(ValueError, match="mighty_duel"):
            new(players, 1, mighty_duel=True)


def test_kd_9_4_dynasty_plays_three_games_and_totals_them():
    state = new(2, 8, dynasty=True, middle_kingdom=True)
    games_started = [0]
    while not state.is_terminal():
        # A twin that is not a Dynasty ends where the match moves on: its scores are the totals so far.
        twin = state.clone()
        twin.options = {**state.options, "dynasty": False}
        action = state.legal_actions()[0]
        state.apply(action)
        twin.apply(action)
        if state.game_index != games_started[-1]:
            games_started.append(state.game_index)
            assert twin.is_terminal() and state.match_scores == twin.scores()
            assert state.phase == INITIAL_PICK and state.round == 0 and state.history == []
            assert all(k.placed == [] for k in state.kingdoms)
            assert state.scores() == state.match_scores
        else:
            assert not state.is_terminal() or twin.scores() == state.scores()
    assert games_started == [0, 1, 2]
    assert state.scores() == [total + k.summary()[0] + k.bonus(state.options)
                              for total, k in zip(state.match_scores, state.kingdoms)]
    assert state.ranking() == ([1, 2] if state.scores()[0] > state.scores()[1] else
                               [2, 1] if state.scores()[0] < state.scores()[1] else [1, 1])


def test_kd_9_4_dynasty_game_totals_include_each_game_s_bonuses():
    state, other = at_last_decision_of_game_1(middle_kingdom=True, harmony=True)
    assert state.scores()[other] == 50, "bonuses wait for the end of the game"
    state.apply(state.legal_actions()[0])
    assert state.game_index == 1
    assert state.match_scores[other] == 65
    assert state.scores()[other] == 65


def test_ed_13_observations_carry_the_earlier_dynasty_games_in_match_scores():
    state, other = at_last_decision_of_game_1(middle_kingdom=True)
    assert all(state.observation(seat)["match_scores"] == [0, 0] for seat in range(2))
    state.apply(state.legal_actions()[0])
    for seat in range(2):
        observation = state.observation(seat)
        assert observation["match_scores"] == state.match_scores
        assert observation["match_scores"][other] == 60
    assert state.view()["match_scores"] == state.match_scores


def test_ed_6_unseen_dominoes_start_afresh_with_each_dynasty_game():
    state = new(2, 8, dynasty=True)
    play_until(state, lambda s: s.game_index == 1)
    first_line = [slot.domino for slot in state.current_line]
    expected = [n for n in range(1, 49) if n not in first_line]
    for seat in range(2):
        assert state.observation(seat)["unseen_dominoes"] == expected


def test_kd_9_4_dynasty_deals_continue_the_same_chance_stream():
    state = new(2, 8, dynasty=True)
    first_deal = state.view()["draw_pile"]
    play_until(state, lambda s: s.game_index == 1)
    second_deal = state.view()["draw_pile"]
    assert second_deal != first_deal
    plain = new(2, 8)
    assert plain.view()["draw_pile"] == first_deal


def test_kd_9_5_snake_pick_is_a_2_player_option():
    assert game().default_options()["initial_pick"] == "random_kings"
    state = new(2, 1, initial_pick="snake")
    assert [state.pick_order[i][1] for i in range(4)] == [0, 0, 1, 1]
    for players in (3, 4):
        with pytest.raises(ValueError, match="initial_pick"):
            new(players, 1, initial_pick="snake")


def test_ed_4_default_initial_pick_draws_kings_at_random_not_snake_shaped():
    shapes = set()
    for seed in range(30):
        state = new(2, seed)
        shapes.add(tuple(seat for seat, _ in state.pick_order))
    assert len(shapes) > 2, "random king order gives varied seat sequences"


def test_kd_9_options_validation_messages():
    with pytest.raises(ValueError, match="no_such"):
        new(2, 1, no_such=True)
    with pytest.raises(ValueError, match="harmony"):
        new(2, 1, harmony="yes")
    with pytest.raises(ValueError, match="dynasty"):
        new(2, 1, dynasty=1)
    with pytest.raises(ValueError, match="initial_pick"):
        new(2, 1, initial_pick="draft")
    with pytest.raises(ValueError, match="players"):
        new(5, 1)
    assert new(2, 1, harmony=True).options == {**game().default_options(), "harmony": True}


def test_kd_9_every_named_variant_is_listed_and_plays_to_the_end():
    variants = game().variants()
    listed = {(players, key) for players, options in variants for key, value in options.items()
              if value != game().default_options()[key]}
    for players in (2, 3, 4):
        assert (players, game().default_options()) in variants
        assert {(players, "middle_kingdom"), (players, "harmony"), (players, "dynasty")} <= listed
    assert {(2, "mighty_duel"), (2, "initial_pick")} <= listed
    for players, options in variants:
        state = game().new_state(players, 3, options)
        play_out(state, 3)
        assert state.phase == GAME_OVER

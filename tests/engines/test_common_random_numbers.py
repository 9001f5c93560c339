"""Common random numbers: a seed means the same luck whatever the players choose (engines.ChanceStreams).

Every engine draws each chance event from a stream named by its purpose and position, so two matches
dealt from the same seed show the same outcome at the same position even once their choices differ. Here
two matches per seed are played by different choosers (two random ones, and first-legal against
last-legal), and every chance event is read back from what the engine shows (``view()`` after each
decision), identified by its position:

* kingdomino: the first line, the initial pick order, the line formed in each round and the set-aside
  dominoes of each game;
* draftosaurus: the die of each turn and the hands dealt at the start of each round, per game;
* carcassonne_dice: the face each die shows in each roll of each turn;
* dice_king: the value each die shows at each of its throws in each turn; and each turn's tile draws,
  which also depend on what is left in the supply: a draw takes the supply tile with the smallest
  ticket, so two matches whose supplies both hold the tile each of them drew must have drawn the same one.

Each comparison must be about positions reached after the choices diverged, so it cannot pass vacuously.
Then the one choice that used to shift the single stream of old (a re-roll, in dice_king and
carcassonne_dice) is shown to leave the following turns' dice as they were; and ``resample_hidden`` (what
search bots use) is shown to draw the future, this turn's coming rolls included, from its own seed.
"""

from __future__ import annotations

import functools
import random

import pytest

import engines

#: At most this many decisions per match: enough for many turns of every game, cheap for the long ones.
MAX_DECISIONS = 500
SEEDS = (3, 2026)


def random_chooser(seed: int):
    rng = random.Random(seed)
    return lambda state, legal: rng.choice(legal)


def first_legal(state, legal):
    return legal[0]


def last_legal(state, legal):
    return legal[-1]


CHOOSER_PAIRS = {
    "random_1_vs_random_2": (lambda: random_chooser(1), lambda: random_chooser(2)),
    "first_vs_last_legal": (lambda: first_legal, lambda: last_legal),
}


def play(name: str, players: int, seed: int, options: dict, choose) -> tuple[list, list[dict]]:
    """The actions and the views (the initial one first) of a match, up to ``MAX_DECISIONS`` decisions."""
    state = engines.get(name).new_state(players, seed, options)
    actions, views = [], [state.view()]
    while not state.is_terminal() and len(actions) < MAX_DECISIONS:
        action = choose(state, state.legal_actions())
        state.apply(action)
        actions.append(action)
        views.append(state.view())
    return actions, views


# Each extractor maps (position -> (outcome, step)): step is the number of decisions after which the
# outcome was first shown.


def kingdomino_events(views: list[dict]) -> dict:
    events = {}

    def note(key, value, step):
        events.setdefault(key, (value, step))

    for step, view in enumerate(views):
        game = view["game_index"]
        note(("set_aside", game), view["set_aside"], step)
        if view["round"] == 0:
            note(("first_line", game), [slot["domino"]["n"] for slot in view["current_line"]], step)
            if view["phase"] == "initial_pick":
                note(("pick", game, len([s for s in view["current_line"] if s["king"]])),
                     [view["to_act"]["seat"], view["to_act"]["king"]], step)
        elif view["next_line"] is not None:
            note(("line", game, view["round"]), [slot["domino"]["n"] for slot in view["next_line"]], step)
    return events


def draftosaurus_events(views: list[dict]) -> dict:
    events = {}
    for step, view in enumerate(views):
        if view["phase"] == "game_over" or view["die"] is None:
            continue
        game, round_, turn = view["game_index"], view["round"], view["turn"]
        events.setdefault(("die", game, round_, turn), (view["die"], step))
        if turn == 1:
            events.setdefault(("hands", game, round_), (view["hands"], step))
    return events


def carcassonne_turn_logs(views: list[dict]) -> dict[int, tuple[list[dict], list[int]]]:
    """Turn index -> (its whole log, the step each entry was first shown), merged from the views (each
    shows the previous and the current turn); only turns without a gap before them are kept."""
    turns: dict[int, tuple[list[dict], list[int]]] = {}
    for step, view in enumerate(views):
        history = view["history"]
        starts = [index for index, entry in enumerate(history) if entry.get("event") == "turn_start"]
        first = view["turn_index"] - len(starts) + 1
        for number, start in enumerate(starts):
            end = starts[number + 1] if number + 1 < len(starts) else len(history)
            entries = history[start:end]
            known, seen = turns.get(first + number, ([], []))
            if len(entries) > len(known):
                turns[first + number] = (entries, seen + [step] * (len(entries) - len(known)))
    complete = {}
    for turn in range(len(turns)):
        if turn not in turns:
            break
        complete[turn] = turns[turn]
    return complete


def carcassonne_events(views: list[dict]) -> dict:
    """(turn, roll, die) -> face, following the dice through the log: the pool is every die not held in
    front of another seat, a roll lists its pool dice's faces in die order, catapults leave at once, and
    a collect or build takes the lowest-id pool die showing that face (ED-12)."""
    events = {}
    reserved: dict[int, int] = {}
    for turn, (entries, seen) in carcassonne_turn_logs(views).items():
        seat = entries[0]["seat"]
        reserved.pop(seat, None)
        pool = [die for die in range(9) if die not in reserved.values()]
        showing: dict[int, str] = {}
        for entry, step in zip(entries, seen):
            if entry.get("event") == "roll":
                assert len(entry["faces"]) == len(pool)
                for die, face in zip(pool, entry["faces"]):
                    events[(turn, entry["roll"], die)] = (face, step)
                    showing[die] = face
                pool = [die for die in pool if showing[die] != "CATAPULT"]
            elif entry.get("event") == "keep_knight":
                reserved[seat] = entry["die"]
            elif "action" in entry and ("collect" in entry["action"] or "build" in entry["action"]):
                action = entry["action"]
                face = "KNIGHT" if "collect" in action else action["build"][0]
                pool.remove(min(die for die in pool if showing[die] == face))
    return events


def dice_king_history(views: list[dict]) -> list[tuple[dict, int]]:
    """The whole log (Dice King views keep it all) with the step each entry was first shown."""
    lengths = [len(view["history"]) for view in views]
    step = 0
    result = []
    for index, entry in enumerate(views[-1]["history"]):
        while lengths[step] <= index:
            step += 1
        result.append((entry, step))
    return result


def dice_king_events(views: list[dict]) -> dict:
    """(turn, die, throw) -> value: each roll lists the dice thrown and the values of all six."""
    events = {}
    turn = -1
    throws = [0] * 6
    for entry, step in dice_king_history(views):
        if entry.get("event") == "start_turn":
            turn += 1
            throws = [0] * 6
        elif entry.get("event") == "roll":
            for die in entry["dice"]:
                events[("dice", turn, die, throws[die])] = (entry["values"][die], step)
                throws[die] += 1
    return events


def dice_king_draws(views: list[dict]) -> dict:
    """(turn, k) -> (tile drawn, the supply it was drawn from, step): the supply followed from the
    initial view through every draw and every tile put back."""
    supply = set(views[0]["supply"])
    draws = {}
    turn, k = -1, 0
    for entry, step in dice_king_history(views):
        event = entry.get("event")
        if event == "start_turn":
            turn, k = turn + 1, 0
        elif event == "draw":
            for tile in entry["tiles"]:
                draws[(turn, k)] = (tile, frozenset(supply), step)
                supply.remove(tile)
                k += 1
        elif event == "tiles_returned":
            supply.update(entry["tiles"])
    assert supply == set(views[-1]["supply"]), "the supply was not followed correctly"
    return draws


EXTRACTORS = {
    "kingdomino": kingdomino_events,
    "draftosaurus": draftosaurus_events,
    "carcassonne_dice": carcassonne_events,
    "dice_king": dice_king_events,
}


def _configurations():
    for name in engines.names():
        game = engines.get(name)
        for players, options in game.variants():
            label = "-".join(f"{key}={value}" for key, value in sorted(options.items())) or "default"
            yield pytest.param(name, players, options, id=f"{name}-{players}p-{label}")


def first_difference(a: list, b: list) -> int:
    """The number of decisions the two matches share before their choices differ."""
    for index, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return index
    return min(len(a), len(b))


@pytest.mark.parametrize("pair", sorted(CHOOSER_PAIRS))
@pytest.mark.parametrize(("name", "players", "options"), list(_configurations()))
def test_same_seed_same_chance_at_every_position_whatever_the_choices(name, players, options, pair, cores):
    cores.map(functools.partial(same_chance_whatever_the_choices, name, players, options, pair), SEEDS)


def same_chance_whatever_the_choices(name, players, options, pair, seed):
    make_a, make_b = CHOOSER_PAIRS[pair]
    actions_a, views_a = play(name, players, seed, options, make_a())
    actions_b, views_b = play(name, players, seed, options, make_b())
    diverged = first_difference(actions_a, actions_b)
    assert actions_a != actions_b and diverged < min(len(actions_a), len(actions_b)), "the choices never differ"
    assert views_a[0] == views_b[0], "the same seed deals the same start"
    events_a, events_b = EXTRACTORS[name](views_a), EXTRACTORS[name](views_b)
    common = sorted(set(events_a) & set(events_b))
    later = [key for key in common if events_a[key][1] > diverged and events_b[key][1] > diverged]
    assert len(later) >= 3, f"too few chance events after the choices diverged at decision {diverged}"
    differ = [key for key in common if events_a[key][0] != events_b[key][0]]
    assert differ == [], f"seed {seed}: same position, different outcome at {differ[:5]}"


@pytest.mark.parametrize("pair", sorted(CHOOSER_PAIRS))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_dice_king_tile_draws_agree_wherever_both_supplies_hold_both_tiles(players, pair, cores):
    checked = cores.map(functools.partial(tile_draws_agree, players, pair), SEEDS + (7, 11))
    assert sum(checked) >= 3


def tile_draws_agree(players, pair, seed) -> int:
    """Check the draws of ``seed``'s two matches; how many were checked after the choices diverged."""
    make_a, make_b = CHOOSER_PAIRS[pair]
    checked_after_divergence = 0
    actions_a, views_a = play("dice_king", players, seed, {}, make_a())
    actions_b, views_b = play("dice_king", players, seed, {}, make_b())
    diverged = first_difference(actions_a, actions_b)
    draws_a, draws_b = dice_king_draws(views_a), dice_king_draws(views_b)
    for key in sorted(set(draws_a) & set(draws_b)):
        tile_a, supply_a, step_a = draws_a[key]
        tile_b, supply_b, step_b = draws_b[key]
        if tile_a in supply_b and tile_b in supply_a:
            assert tile_a == tile_b, f"seed {seed}, draw {key}: {tile_a} and {tile_b} were both available"
            if step_a > diverged and step_b > diverged:
                checked_after_divergence += 1
    return checked_after_divergence


def play_turn(state, policy, turn_of) -> None:
    """Play decisions with ``policy`` until the next turn starts (``turn_of(state)`` changes) or the end."""
    turn = turn_of(state)
    while not state.is_terminal() and turn_of(state) == turn:
        state.apply(policy(state, state.legal_actions()))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_dice_king_a_reroll_no_longer_changes_the_next_turns_dice(players):
    for seed in range(6):
        game = engines.get("dice_king")
        rerolled, stopped = game.new_state(players, seed), game.new_state(players, seed)
        rerolled.apply({"reroll": [0, 1, 2, 3, 4, 5]})
        rerolled.apply({"reroll": [2, 5]})
        stopped.apply({"stop": True})
        assert rerolled.rolls_made == 3 and stopped.phase == "claim"
        for state in (rerolled, stopped):
            play_turn(state, last_legal, lambda state: state.turn)
        assert rerolled.turn == stopped.turn == 1 and rerolled.active == stopped.active
        assert rerolled.dice == stopped.dice, "the next seat's first roll depends on the re-roll"
        # And so on for that turn's re-rolls: die 3's second throw is the same in both.
        for state in (rerolled, stopped):
            state.apply({"reroll": [3]})
        assert rerolled.dice == stopped.dice


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_carcassonne_a_reroll_no_longer_changes_the_next_turns_dice(players):
    game = engines.get("carcassonne_dice")
    compared = 0
    for seed in range(10):
        rolled, stopped = game.new_state(players, seed), game.new_state(players, seed)
        if {"roll": True} not in rolled.legal_actions():
            continue
        rolled.apply({"roll": True})
        for state in (rolled, stopped):
            play_turn(state, last_legal, lambda state: state.turn_index)  # stop (or score) at once
        if rolled.is_terminal() or stopped.is_terminal() or rolled.reserved != stopped.reserved:
            continue
        assert rolled.turn_index == stopped.turn_index == 1
        assert rolled.pool == stopped.pool and rolled.catapulted == stopped.catapulted, \
            "the next seat's first roll depends on the re-roll"
        compared += 1
    assert compared >= 5


def continuation(state, choose, decisions: int = 150) -> list[dict]:
    """The views of ``state`` (a copy of it) played on by ``choose`` for up to ``decisions`` decisions."""
    state = state.clone()
    views = [state.view()]
    while not state.is_terminal() and len(views) <= decisions:
        state.apply(choose(state, state.legal_actions()))
        views.append(state.view())
    return views


@pytest.mark.parametrize("name", engines.names())
def test_resample_hidden_draws_the_future_from_its_own_seed(name):
    game = engines.get(name)
    players = game.min_players
    state = game.new_state(players, 12)
    chooser = random_chooser(4)
    for _ in range(25):
        state.apply(chooser(state, state.legal_actions()))
    seat = state.current_player()
    real = continuation(state, first_legal)
    again = [continuation(state.resample_hidden(seat, redeal), first_legal) for redeal in (5, 5)]
    assert again[0] == again[1], "the same re-deal seed gives a different future"
    others = [continuation(state.resample_hidden(seat, redeal), first_legal) for redeal in range(6)]
    assert any(views != real for views in others), "re-dealt copies foresee the real future"
    assert state.view() == real[0], "resample_hidden changed the state"


@pytest.mark.parametrize(("name", "reroll"), [("dice_king", {"reroll": [0, 1, 2, 3, 4, 5]}),
                                              ("carcassonne_dice", {"roll": True})])
def test_resample_hidden_redraws_the_coming_rolls_of_this_turn(name, reroll):
    state = engines.get(name).new_state(2, 31)
    assert reroll in state.legal_actions()
    seat = state.current_player()
    real = state.clone()
    real.apply(reroll)
    redrawn = []
    for redeal in range(6):
        twin = state.resample_hidden(seat, redeal)
        assert twin.observation(seat) == state.observation(seat)
        twin.apply(reroll)
        redrawn.append(twin.view()["turn"])
    assert any(turn != real.view()["turn"] for turn in redrawn), "the copy re-rolls the real dice"

"""``engines.chance``: :class:`Chance` derived from ``random()`` alone, and the independent chance streams
named by purpose and position (:class:`ChanceStreams`, :class:`StreamBlocks`).

The streams are what makes a seed mean the same luck whatever the players choose, so their numbers are
pinned here: a change to the derivation changes every recorded match and must be deliberate.
"""

from __future__ import annotations

import copy
import hashlib
import random

import pytest

import engines
from engines.chance import Chance, ChanceStreams, StreamBlocks, check_seed, stream_seed


def test_stream_seed_is_blake2b_of_the_canonical_text():
    digest = hashlib.blake2b(b"42:dice:7:2", digest_size=16, person=b"engines.stream.1").digest()
    assert stream_seed(42, "dice", 7, 2) == int.from_bytes(digest, "big")
    assert ChanceStreams(42).stream("dice", 7, 2).random() == random.Random(int.from_bytes(digest, "big")).random()


def test_the_numbers_of_a_stream_are_pinned():
    # Recorded once; the same on every machine and Python version, because only random() is used.
    assert stream_seed(42, "dice", 7, 2) == 174441335937540009758396582396868997184
    assert ChanceStreams(42).stream("dice", 7, 2).random() == 0.7166282173601285
    assert ChanceStreams(42).stream("deck").random() == 0.5294378748380908
    assert ChanceStreams(42).stream("deck", 0).random() == 0.9435259538472888


def test_the_same_name_gives_the_same_stream_every_time():
    first, second = ChanceStreams(7).stream("tile", 3, 1), ChanceStreams(7).stream("tile", 3, 1)
    assert [first.random() for _ in range(50)] == [second.random() for _ in range(50)]


def test_streams_differ_by_seed_purpose_and_each_position():
    names = [(7, "tile", (3, 1)), (8, "tile", (3, 1)), (7, "dice", (3, 1)), (7, "tile", (1, 3)),
             (7, "tile", (3,)), (7, "tile", (3, 1, 0)), (7, "tile", (31,)), (7, "tile", (-3, 1)), (-7, "tile", (3, 1))]
    seeds = {stream_seed(seed, purpose, *position) for seed, purpose, position in names}
    assert len(seeds) == len(names)
    firsts = {ChanceStreams(seed).stream(purpose, *position).random() for seed, purpose, position in names}
    assert len(firsts) == len(names)


def test_drawing_from_one_stream_does_not_move_another():
    streams = ChanceStreams(11)
    untouched = streams.stream("dice", 2).random()
    busy = streams.stream("dice", 1)
    for _ in range(1000):
        busy.random()
    assert streams.stream("dice", 2).random() == untouched


def test_streams_are_roughly_uniform_and_independent_of_their_neighbours():
    streams = ChanceStreams(5)
    firsts = [streams.stream("dice", turn).below(6) for turn in range(6000)]
    assert all(900 < firsts.count(face) < 1100 for face in range(6))
    pairs = sum(1 for a, b in zip(firsts, firsts[1:]) if a == b)
    assert 850 < pairs < 1150  # about one in six neighbouring turns repeat a face, as independent dice do


@pytest.mark.parametrize(("purpose", "position"), [
    ("", ()), ("Dice", ()), ("dice:1", ()), ("2dice", ()), ("dé", ()), (None, ()), (3, ()), (["dice"], ()),
    ("dice", (True,)), ("dice", (1.0,)), ("dice", ("1",)), ("dice", (None,)),
])
def test_bad_names_raise_value_error(purpose, position):
    with pytest.raises(ValueError, match="stream's"):
        ChanceStreams(1).stream(purpose, *position)


@pytest.mark.parametrize("seed", [True, 1.5, "1", None])
def test_bad_seeds_raise_value_error(seed):
    with pytest.raises(ValueError, match="seed must be an integer"):
        ChanceStreams(seed)
    with pytest.raises(ValueError, match="seed must be an integer"):
        check_seed(seed)


def test_streams_object_is_immutable_and_shared_by_copies():
    streams = ChanceStreams(3)
    assert copy.copy(streams) is streams and copy.deepcopy(streams) is streams
    assert streams == ChanceStreams(3) and streams != ChanceStreams(4) and streams.seed == 3
    with pytest.raises(AttributeError):
        streams.seed = 4
    assert isinstance(streams.stream("deck"), Chance)


def test_an_int_subclass_position_is_its_plain_value():
    import enum

    class Round(enum.IntEnum):
        FIRST = 1

    assert stream_seed(9, "dice", Round.FIRST) == stream_seed(9, "dice", 1)


def test_dice_and_randoms_are_the_numbers_of_die_and_random():
    one, two = ChanceStreams(4).stream("dice", 0), ChanceStreams(4).stream("dice", 0)
    assert one.dice(18) == [two.die() for _ in range(18)]
    assert one.dice(5, 3) == [two.die(3) for _ in range(5)]
    assert one.randoms(7) == [two.random() for _ in range(7)]


def test_engines_exports_the_streams():
    assert engines.ChanceStreams is ChanceStreams and engines.stream_seed is stream_seed


def test_blocks_are_consecutive_runs_of_a_stream_whoever_asks_first():
    numbers = ChanceStreams(6).stream("tiles", 2).randoms(40)
    in_order = StreamBlocks(ChanceStreams(6).stream("tiles", 2), 10)
    assert [in_order.block(i) for i in range(4)] == [numbers[0:10], numbers[10:20], numbers[20:30], numbers[30:40]]
    skipping = StreamBlocks(ChanceStreams(6).stream("tiles", 2), 10)
    assert skipping.block(3) == numbers[30:40] and skipping.block(1) == numbers[10:20]
    handed_out = skipping.block(0)
    handed_out[0] = 2.0
    assert skipping.block(0) == numbers[0:10], "a block handed out is the caller's own"


@pytest.mark.parametrize(("size", "index"), [(0, 0), (-1, 0), (5, -1)])
def test_bad_blocks_raise_value_error(size, index):
    with pytest.raises(ValueError):
        StreamBlocks(ChanceStreams(1).stream("deck"), size).block(index)


def test_chance_helpers_are_derived_from_random_alone():
    a, b = Chance(3), Chance(3)
    floats = b.randoms(4)
    assert [a.below(10) for _ in range(4)] == [int(x * 10) for x in floats]
    with pytest.raises(ValueError):
        Chance(3).below(0)
    items = list(range(20))
    shuffled = Chance(8).shuffled(items)
    assert sorted(shuffled) == items and shuffled != items
    twin = copy.deepcopy(a)
    assert twin.random() == a.random()
    assert Chance(1).choice("xyz") in "xyz" and 1 <= Chance(1).die(4) <= 4

"""Which bots are given their decision's allowance: an ``act`` that takes ``time_left_ms``."""

import pytest

from bots.loader import wants_time_left


def plain(observation, legal_actions):
    return legal_actions[0]


def timed(observation, legal_actions, time_left_ms):
    return legal_actions[0]


def timed_with_default(observation, legal_actions, time_left_ms=None):
    return legal_actions[0]


def keywords(observation, legal_actions, **options):
    return legal_actions[0]


def other_name(observation, legal_actions, budget=None):
    return legal_actions[0]


class Bot:
    def act(self, observation, legal_actions, time_left_ms=0):
        return legal_actions[0]


@pytest.mark.parametrize("act,expected", [
    (plain, False), (timed, True), (timed_with_default, True), (keywords, True), (other_name, False),
    (Bot().act, True), (len, False),
])
def test_wants_time_left(act, expected):
    assert wants_time_left(act) is expected


def test_in_process_matches_give_a_timed_act_the_default_allowance(race):
    from bots.bench import play_match_in_process
    from bots.referee import BotSpec, Limits

    code = (b"def act(observation, legal_actions, time_left_ms):\n"
            b"    assert time_left_ms == %d\n"
            b"    return legal_actions[0]\n" % (Limits().move_ms + Limits().bank_ms))
    result = play_match_in_process(race, [BotSpec("timed", code), BotSpec("also", code)], seed=1)
    assert sum(result.actions) == 12


def _by_signature(act) -> bool:
    """The rule as :func:`inspect.signature` states it: the reference the loader's quick reading of a
    function's code must agree with."""
    import inspect

    try:
        parameters = inspect.signature(act).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "time_left_ms" and p.kind is not p.POSITIONAL_ONLY or p.kind is p.VAR_KEYWORD
               for p in parameters)


def _shapes():
    import functools

    def positional_only(observation, legal_actions, time_left_ms, /):
        return legal_actions[0]

    def keyword_only(observation, legal_actions, *, time_left_ms):
        return legal_actions[0]

    def star_named(observation, legal_actions, *time_left_ms):
        return legal_actions[0]

    def star_args(*args):
        return args[1][0]

    @functools.wraps(plain)
    def wrapped(*args, **kwargs):
        return plain(*args, **kwargs)

    def with_signature(*args, **kwargs):
        return args[1][0]

    import inspect
    with_signature.__signature__ = inspect.signature(plain)

    class Methods:
        def act(time_left_ms, observation, legal_actions):  # noqa: N805 - its first parameter is the instance
            return legal_actions[0]

        def only_self(self):
            return None

        def keywords_only(**kwargs):
            return None

        @staticmethod
        def static(observation, legal_actions, time_left_ms=None):
            return legal_actions[0]

        @classmethod
        def klass(cls, observation, legal_actions, time_left_ms=None):
            return legal_actions[0]

        def __call__(self, observation, legal_actions, time_left_ms=None):
            return legal_actions[0]

    instance = Methods()
    return [plain, timed, timed_with_default, keywords, other_name, Bot().act, len, positional_only,
            keyword_only, star_named, star_args, wrapped, with_signature, instance.act, instance.only_self,
            instance.keywords_only, instance.static, instance.klass, Methods.klass, instance,
            functools.partial(timed, {}), functools.partial(plain, {}), lambda observation, legal, time_left_ms=0: legal[0],
            print, object()]


@pytest.mark.parametrize("index", range(len(_shapes())))
def test_wants_time_left_reads_a_function_as_its_signature_does(index):
    act = _shapes()[index]
    assert wants_time_left(act) is _by_signature(act)


def test_wants_time_left_reads_functions_and_methods_without_inspect_signature(monkeypatch):
    """The SDK asks at every bot's start, on the bot's clock, where ``inspect.signature`` costs some
    100 us: the common shapes (a function, a bound method) are read from their code object."""
    import inspect

    def refuse(*args, **kwargs):
        raise AssertionError("inspect.signature was called")

    monkeypatch.setattr(inspect, "signature", refuse)
    assert wants_time_left(timed) and wants_time_left(keywords) and wants_time_left(Bot().act)
    assert not wants_time_left(plain) and not wants_time_left(other_name)


def _module(**names):
    import types

    module = types.ModuleType("bot")
    module.__dict__.update(names)
    return module


def test_a_bot_class_without_the_four_arguments_is_told_what_its_constructor_receives():
    from bots.loader import BotLoadError, bind

    class Bot:
        def act(self, observation, legal_actions):
            return legal_actions[0]

    with pytest.raises(BotLoadError, match=r"Bot\(game, seat, players, options\).*takes no arguments"):
        bind(_module(Bot=Bot), game="kingdomino", seat=0, players=2, options={})


def test_a_type_error_raised_inside_the_bots_constructor_stays_the_bots_own():
    from bots.loader import BotLoadError, bind

    class Bot:
        def __init__(self, game, seat, players, options):
            len(5)  # the bot's own bug

        def act(self, observation, legal_actions):
            return legal_actions[0]

    with pytest.raises(TypeError, match="has no len") as raised:
        bind(_module(Bot=Bot), game="kingdomino", seat=0, players=2, options={})
    assert not isinstance(raised.value, BotLoadError)

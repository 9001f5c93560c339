"""``play --from-bundle``: a recorded match played again in the real sandbox, whole or with one seat handed
to another bot from a step on."""

from __future__ import annotations

import base64
import contextlib
import copy
import dataclasses
import hashlib
import io
import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sandbox_helpers import FIRST_BOT, GREEDY_BOT, bot_source

import engines
from bots.bundle_replay import BUNDLE_MAX_BYTES, asks_for_replay, main
from bots.referee import BotSpec, Limits, play_match
from tests.factories import zip_with_members

# Answers 1 until it has been asked three times, then 3: what it plays depends on what it remembers.
COUNTER_BOT = bot_source("""
    asked = 0

    def act(observation, legal_actions):
        global asked
        asked += 1
        print("asked", asked)
        return 3 if asked >= 3 and 3 in legal_actions else legal_actions[0]
""")


#: What the tests' bundles may ask for: the server's caps stand in, above the default clock.
CAPS = Limits(move_ms=10_000)


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    status = main(argv, limits=Limits(), limit_caps=CAPS, allow_unsafe=False, stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def _code(source: bytes) -> dict:
    return {"kind": "py", "sha256": hashlib.sha256(source).hexdigest(), "base64": base64.b64encode(source).decode()}


def make_bundle(tmp_path, game, codes, *, seed=3, options=None, actions=None, limits=None, **fields):
    """Play a match between ``codes`` in the sandbox and write its bundle, as the ladder's bundle route
    shapes it; a code of None is a seat whose code the bundle leaves out (the bot that played is FIRST_BOT)."""
    limits = limits or Limits(move_ms=2000)
    result = play_match(game, [BotSpec(f"bot{i}", code or FIRST_BOT) for i, code in enumerate(codes)], seed=seed,
                        options=options, limits=limits)
    bundle = {
        "format": "bot-ladder-match", "format_version": 1, "match": 7, "game": game,
        "rules_version": engines.get(game).rules_version, "players": len(codes), "seed": seed,
        "options": result.options, "limits": dataclasses.asdict(limits),
        "actions": result.actions if actions is None else actions,
        "seats": [{"position": i, "bot": f"bot{i}", "bot_id": 10 + i, "version": 1, "outcome": seat.outcome,
                   "score": seat.score, "place": seat.place, "code": None if code is None else _code(code)}
                  for i, (code, seat) in enumerate(zip(codes, result.seats))],
    } | fields
    path = tmp_path / "match-7.json"
    path.write_text(json.dumps(bundle))
    return str(path), bundle


def test_a_replay_with_the_bundled_code_reproduces_the_match(isolated, race, tmp_path):
    path, bundle = make_bundle(tmp_path, race, [GREEDY_BOT, COUNTER_BOT])
    status, out, err = run(["--from-bundle", path, "--json"])
    assert (status, err) == (0, "")
    result = json.loads(out)
    assert list(result) == ["game", "players", "seed", "options", "seats", "actions", "duration_s", "replay"]
    assert result["actions"] == bundle["actions"]
    replay = result["replay"]
    assert (replay["reproduced"], replay["diverged_at"], replay["takeover"]) == (True, None, None)
    assert [s["played_by"] for s in replay["seats"]] == ["code", "code"]
    assert [s["bot"] for s in result["seats"]] == ["bot0 v1", "bot1 v1"]


def test_a_seat_without_code_plays_its_recorded_actions(isolated, race, tmp_path):
    path, bundle = make_bundle(tmp_path, race, [GREEDY_BOT, None])
    status, out, _ = run(["--from-bundle", path])
    assert status == 0
    assert "    seat 0: played by the bundle's code" in out.splitlines()
    assert "    seat 1: played by its recorded actions (no code in the bundle)" in out.splitlines()
    assert f"    reproduces the {len(bundle['actions'])} recorded actions exactly" in out.splitlines()


def test_a_replay_that_differs_from_the_record_says_where(isolated, race, tmp_path):
    """The record says seat 0 played 2 at step 2; its code plays 1 (and so on from there)."""
    actions = [1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1]
    path, _ = make_bundle(tmp_path, race, [FIRST_BOT, FIRST_BOT], actions=actions)
    status, out, _ = run(["--from-bundle", path])
    assert status == 1
    assert "    diverges from the record at step 2 (seat 0 on move): played 1, recorded 2" in out.splitlines()
    status, out, _ = run(["--from-bundle", path, "--json"])
    assert status == 1
    assert json.loads(out)["replay"]["diverged_at"] == {"step": 2, "seat": 0, "recorded": 2, "played": 1}


def test_a_bot_takes_over_a_seat_from_a_step_with_the_memory_of_the_match(isolated, race, tmp_path):
    """The first-legal match is all ones. COUNTER_BOT takes seat 0 over from step 4: it was asked at steps 0
    and 2 (its answers discarded), so at step 4 it has been asked three times and plays 3."""
    path, bundle = make_bundle(tmp_path, race, [FIRST_BOT, FIRST_BOT])
    bot = tmp_path / "counter.py"
    bot.write_bytes(COUNTER_BOT)
    status, out, err = run(["--from-bundle", path, "--seat", "0", str(bot), "--from-step", "4", "--json"])
    assert (status, err) == (0, "")
    result = json.loads(out)
    assert bundle["actions"] == [1] * 12
    assert result["actions"] == [1, 1, 1, 1, 3, 1, 3, 1]
    replay = result["replay"]
    assert replay["takeover"] == {"seat": 0, "bot": "counter", "from_step": 4}
    assert replay["diverged_at"] == {"step": 4, "seat": 0, "recorded": 1, "played": 3}
    assert [s["played_by"] for s in replay["seats"]] == ["takeover", "code"]
    # It answered 1 before step 4, as recorded: nothing of it was discarded against the record.
    assert replay["discarded"] == []
    assert result["seats"][0]["bot"] == "counter"


def test_answers_before_the_step_are_discarded_and_listed(isolated, race, tmp_path):
    path, _ = make_bundle(tmp_path, race, [FIRST_BOT, FIRST_BOT])
    greedy = tmp_path / "greedy.py"
    greedy.write_bytes(GREEDY_BOT)
    status, out, _ = run(["--from-bundle", path, "--seat", "0", str(greedy), "--from-step", "4"])
    assert status == 0
    assert ("    2 answers before step 4 differed from the record, the first at step 0 (seat 0: 3, recorded 1)"
            in out.splitlines())
    assert "    diverges from the record at step 4 (seat 0 on move): played 3, recorded 1" in out.splitlines()


def test_a_seat_without_code_falls_back_to_the_first_legal_action_once_its_record_is_illegal(isolated, race,
                                                                                             tmp_path):
    """Recorded: seat 0 first-legal, seat 1 greedy: 1 3 1 3 1 3 (totals 1 4 5 8 9 12). Greedy takes seat 0
    over at step 4: 3 makes 11, and seat 1's recorded 3 at step 5 no longer fits: it plays 1."""
    path, bundle = make_bundle(tmp_path, race, [FIRST_BOT, GREEDY_BOT])
    assert bundle["actions"] == [1, 3, 1, 3, 1, 3]
    stripped = json.loads((tmp_path / "match-7.json").read_text())
    stripped["seats"][1]["code"] = None
    (tmp_path / "match-7.json").write_text(json.dumps(stripped))
    greedy = tmp_path / "greedy.py"
    greedy.write_bytes(GREEDY_BOT)
    status, out, _ = run(["--from-bundle", path, "--seat", "0", str(greedy), "--from-step", "4", "--json"])
    assert status == 0
    result = json.loads(out)
    assert result["actions"] == [1, 3, 1, 3, 3, 1]
    assert [s["fallback_from_step"] for s in result["replay"]["seats"]] == [None, 5]
    status, out, _ = run(["--from-bundle", path, "--seat", "0", str(greedy), "--from-step", "4"])
    assert ("    seat 1: played by its recorded actions (no code in the bundle); the first legal action from step "
            "5 on (its recorded one was not legal there)") in out.splitlines()


def test_the_bundles_limits_apply(isolated, race, tmp_path):
    slow = bot_source("""
        import time

        def act(observation, legal_actions):
            time.sleep(0.25)
            return legal_actions[0]
    """)
    path, bundle = make_bundle(tmp_path, race, [FIRST_BOT, FIRST_BOT], limits=Limits(move_ms=100, bank_ms=0))
    slow_file = tmp_path / "slow.py"
    slow_file.write_bytes(slow)
    status, out, _ = run(["--from-bundle", path, "--seat", "1", str(slow_file), "--json"])
    assert status == 0
    result = json.loads(out)
    assert result["seats"][1]["outcome"] == "timeout"
    assert result["seats"][1]["reason"] == "no answer within 100 ms plus a bank of 0 ms"


def _write(tmp_path, content) -> str:
    path = tmp_path / "bundle.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


def _valid(race) -> dict:
    return {"format": "bot-ladder-match", "format_version": 1, "match": 1, "game": race, "rules_version": 1,
            "players": 2, "seed": 1, "options": {"target": 12}, "limits": {}, "actions": [1, 1, 1],
            "seats": [{"position": 0, "bot": "a", "code": _code(FIRST_BOT)}, {"position": 1, "bot": "b", "code": None}]}


@pytest.mark.parametrize(("change", "args", "message"), [
    (lambda b: "{not json", [], "is not JSON ("),
    (lambda b: {"game": "race"}, [], "is not a match bundle (no \"format\": \"bot-ladder-match\")"),
    (lambda b: b | {"format_version": 2}, [], "is a bundle of format version 2; this play reads version 1"),
    (lambda b: b | {"game": "chess"}, [], "the bundle's game 'chess' is not installed here; games: "),
    (lambda b: b | {"rules_version": 2}, [], "the bundle was played under version 2 of the race rules, and this "
                                             "engine plays version 1: the rules changed since, so the match "
                                             "cannot be replayed exactly"),
    (lambda b: b | {"players": 3}, [], "the bundle's 'seats' must be 3 objects, one per player"),
    (lambda b: b | {"seed": "x"}, [], "the bundle's 'seed' is missing or not a whole number"),
    (lambda b: b | {"limits": {"move_ms": 0}}, [], "the bundle's limit 'move_ms' is 0, not a whole number >= 1"),
    (lambda b: b | {"limits": {"bank_ms": -1}}, [], "the bundle's limit 'bank_ms' is -1, not a whole number >= 0"),
    (lambda b: b | {"seats": [b["seats"][0] | {"code": _code(FIRST_BOT) | {"sha256": "0" * 64}}, b["seats"][1]]},
     [], "the code of seat 0 does not match its sha256"),
    (lambda b: b, ["--seat", "2", "random"], "--seat 2: the match has seats 0 to 1"),
    (lambda b: b, ["--seat", "one", "random"], "--seat N BOT: N must be a seat number, not 'one'"),
    (lambda b: b, ["--seat", "0", "random", "--from-step", "3"], "--from-step 3: the match has steps 0 to 2 "
                                                                 "(3 actions)"),
    (lambda b: b, ["--seat", "0", "random", "--from-step", "-1"], "--from-step -1: the match has steps 0 to 2"),
    (lambda b: b, ["--from-step", "1"], "--from-step K needs --seat N BOT"),
    (lambda b: b, ["--seat", "0", "no_such_bot"], "no bot at 'no_such_bot'"),
    (lambda b: b, ["extra"], "unrecognized arguments: extra"),
])
def test_bad_bundles_and_arguments_exit_2_with_a_message(race, tmp_path, change, args, message):
    path = _write(tmp_path, change(_valid(race)))
    status, out, err = run(["--from-bundle", path, *args])
    assert (status, out) == (2, "")
    assert err.startswith("play: ") and message in err, err


def test_a_missing_bundle_file_says_so(tmp_path):
    status, _, err = run(["--from-bundle", str(tmp_path / "nothing.json")])
    assert status == 2
    assert err.startswith(f"play: cannot read the bundle {tmp_path / 'nothing.json'}: No such file")


def test_recorded_actions_the_engine_refuses_are_a_clear_error(isolated, race, tmp_path):
    bundle = _valid(race) | {"actions": [1, 7, 1]}
    path = _write(tmp_path, bundle)
    first = tmp_path / "first.py"
    first.write_bytes(FIRST_BOT)
    status, out, err = run(["--from-bundle", path, "--seat", "0", str(first), "--from-step", "2"])
    assert (status, out) == (2, "")
    assert err == ("play: the recorded action of step 1 is not legal in the replayed game: the recording does not "
                   "fit this engine\n")


@pytest.mark.parametrize(("name", "value"), [
    ("memory_mb", 10**6), ("max_processes", 10**6), ("cpu_seconds", 10**9), ("tmp_mb", 10**6),
    ("move_ms", 10**9),
])
def test_a_bundle_cannot_loosen_the_sandbox_beyond_this_machines_caps(race, tmp_path, name, value):
    # A bundle is a file anybody can write and pass around: its limits are hostile input like its code.
    bundle = _valid(race)
    bundle["limits"] = {name: value}
    path = _write(tmp_path, bundle)
    out, err = io.StringIO(), io.StringIO()
    caps = Limits(move_ms=60_000)
    status = main(["--from-bundle", path], limits=Limits(), limit_caps=caps, allow_unsafe=False, stdout=out,
                  stderr=err)
    assert (status, out.getvalue()) == (2, "")
    cap = getattr(caps, name)
    assert (f"the bundle's limit {name!r} is {value}, more than this machine allows ({cap}): a bundle may "
            "tighten the sandbox, never loosen it") in err.getvalue()


def test_without_caps_given_the_local_limits_are_the_caps(race, tmp_path):
    bundle = _valid(race)
    bundle["limits"] = {"memory_mb": Limits().memory_mb + 1}
    out, err = io.StringIO(), io.StringIO()
    status = main(["--from-bundle", _write(tmp_path, bundle)], limits=Limits(), allow_unsafe=False, stdout=out,
                  stderr=err)
    assert status == 2 and f"more than this machine allows ({Limits().memory_mb})" in err.getvalue()


# --- Malformed bundles: one line on stderr, exit status 2, never a traceback -----------------------------



def _zip_code(data: bytes) -> dict:
    return _code(data) | {"kind": "zip"}


def _with_code(bundle: dict, code: dict) -> dict:
    return bundle | {"seats": [bundle["seats"][0] | {"code": code}, bundle["seats"][1]]}


def _deep(levels: int) -> str:
    return "[" * levels + "1" + "]" * levels


def _refusal(status: int, out: str, err: str) -> str:
    """The one line of a refused bundle, after checking that it is one."""
    assert (status, out) == (2, ""), (status, out, err)
    assert err.startswith("play: ") and err.endswith("\n") and err.count("\n") == 1, err
    return err


# Each of these was a traceback (RecursionError, IsADirectoryError, FileExistsError, ValueError of zipfile),
# or, for a bundle that is deep inside, larger than any bundle the ladder gives or not UTF-8, read anyway.
MALFORMED = [
    pytest.param(lambda b: "[" * 50_000, "is nested deeper than 32 levels: not a bundle the ladder gives",
                 id="deep-brackets"),
    pytest.param(lambda b: json.dumps(b)[:-1] + ', "x": ' + _deep(900) + "}",
                 "is nested deeper than 32 levels: not a bundle the ladder gives", id="deep-inside"),
    pytest.param(lambda b: json.dumps(b).replace('"bot": "a"', '"bot": "caf\xe9"').encode("latin-1"),
                 "is not JSON (str is not valid UTF-8", id="not-utf-8"),
    pytest.param(lambda b: json.dumps(b).replace('"bot": "a"', '"bot": "\\ud800"'),
                 "is not JSON (", id="lone-surrogate"),
    pytest.param(lambda b: _with_code(b, _zip_code(zip_with_members(".", bot=FIRST_BOT))),
                 "the code of seat 0 cannot be unpacked: '.': '.' is not allowed in zip paths", id="zip-dot"),
    pytest.param(lambda b: _with_code(b, _zip_code(zip_with_members("x", "x/y.py", bot=FIRST_BOT))),
                 "the code of seat 0 cannot be unpacked: 'x' is a file and also a folder (of 'x/y.py')",
                 id="zip-file-and-folder"),
    pytest.param(lambda b: _with_code(b, _zip_code(b"PK\x03\x04" + b"\0" * 40)),
                 "the code of seat 0 cannot be unpacked: not a readable zip file (", id="zip-damaged"),
    pytest.param(lambda b: b | {"seed": 10**30}, "the bundle's 'seed' is missing or not a whole number",
                 id="seed-beyond-64-bits"),
]


@pytest.mark.parametrize(("change", "message"), MALFORMED)
def test_a_malformed_bundle_is_refused_with_one_line_and_status_2(race, tmp_path, change, message):
    content = change(_valid(race))
    path = tmp_path / "bundle.json"
    path.write_bytes(content if isinstance(content, bytes) else
                     (content if isinstance(content, str) else json.dumps(content)).encode())
    assert message in _refusal(*run(["--from-bundle", str(path)]))


def test_a_bundle_larger_than_any_the_ladder_gives_is_refused_unread(race, tmp_path):
    path = tmp_path / "huge.json"
    with open(path, "wb") as file:  # sparse: costs no disk
        file.truncate(BUNDLE_MAX_BYTES + 1)
    err = _refusal(*run(["--from-bundle", str(path)]))
    assert f"is larger than {BUNDLE_MAX_BYTES} bytes: not a bundle the ladder gives" in err


# Values a hostile or damaged bundle may hold where the valid one holds something else.
_DEEP = "\x00deep\x00"  # replaced in the JSON text by nesting deeper than the encoder would write
_hostile = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
    | st.text(st.sampled_from("a1 \x1b\r\x07\x85\u202e\\\"é"), max_size=8) | st.just(_DEEP),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("abdefiklmnoprstuv_", max_size=9), inner,
                                                               max_size=3),
    max_leaves=8,
)


def _places(value):
    """Every (container, key) of the JSON ``value`` whose item could be replaced or removed."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield value, key
        yield from _places(item)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_mutation_of_a_valid_bundle_is_replayed_or_refused_with_one_line(isolated, race, tmp_path, data):
    bundle = copy.deepcopy(_valid(race) | {"seats": [
        {"position": 0, "bot": "a", "version": 1, "outcome": "ok", "code": _code(GREEDY_BOT)},
        {"position": 1, "bot": "b", "version": 1, "outcome": "ok", "code": _zip_code(zip_with_members("helper.py", bot=FIRST_BOT))}]})
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        container, key = data.draw(st.sampled_from(list(_places(bundle))), label="where")
        if data.draw(st.booleans(), label="remove"):
            del container[key]
        else:
            container[key] = data.draw(_hostile, label="value")
        if data.draw(st.booleans(), label="sign the code again"):
            # So that a mutated code reaches the unpacking and the sandbox instead of its checksum's check.
            for seat in bundle.get("seats", []) if isinstance(bundle.get("seats"), list) else []:
                code = seat.get("code") if isinstance(seat, dict) else None
                if isinstance(code, dict) and isinstance(code.get("base64"), str):
                    with contextlib.suppress(ValueError):
                        code["sha256"] = hashlib.sha256(base64.b64decode(code["base64"])).hexdigest()
    text = json.dumps(bundle).replace(json.dumps(_DEEP), _deep(data.draw(st.sampled_from([40, 2000]), label="deep")))
    raw = text.encode()
    for position, length, replacement in data.draw(st.lists(st.tuples(st.integers(0, len(raw)), st.integers(0, 4),
                                                                      st.binary(max_size=4)), max_size=2),
                                                   label="byte edits"):
        raw = raw[:position] + replacement + raw[position + length:]
    path = tmp_path / "bundle.json"
    path.write_bytes(raw)
    status, out, err = run(["--from-bundle", str(path)])
    event(f"exit status {status}")
    if status == 2:
        _refusal(status, out, err)
    else:
        # Replayed (1: it diverged from the record); what it printed is the report.
        assert status in (0, 1) and "--- replay of " in out, (status, out, err)


# --- What a bot or a bundle writes is shown, never obeyed by the terminal ---------------------------------

#: Clear the screen, set the window's title, ring, return to the line's start, a C1 CSI, a bidi override.
ESCAPES = "\x1b[2J\x1b]0;owned\x07\r\x9b31m\u202e"
ESCAPED = "\\x1b[2J\\x1b]0;owned\\x07\\r\\x9b31m\\u202e"
PRINTS_ESCAPES = bot_source(f"""
    def act(observation, legal_actions):
        print("log" + {ESCAPES!r})
        raise RuntimeError("error" + {ESCAPES!r})
""")


def assert_only_printable(text: str) -> None:
    bad = sorted({char for char in text if char != "\n" and not char.isprintable()})
    assert not bad, f"raw control characters in the report: {bad}"


def test_a_bundles_names_outcomes_and_its_bots_logs_and_errors_are_printed_escaped(isolated, race, tmp_path):
    bundle = _valid(race)
    bundle["seats"] = [{"position": 0, "bot": "name" + ESCAPES, "version": 1, "outcome": "ok",
                        "code": _code(PRINTS_ESCAPES)},
                       {"position": 1, "bot": "other" + ESCAPES, "outcome": "timeout" + ESCAPES, "code": None}]
    status, out, err = run(["--from-bundle", _write(tmp_path, bundle)])
    assert status in (0, 1) and err == ""
    assert_only_printable(out)
    assert f"--- log of seat 0 (name{ESCAPED} v1): last " in out
    assert f"    log{ESCAPED}" in out.splitlines()
    assert f"error{ESCAPED}" in out  # the crash's reason, in the table
    assert f"--- log of seat 1 (other{ESCAPED}): empty" in out.splitlines()
    assert f"recorded timeout{ESCAPED}" in out
    # JSON escapes them by itself.
    status, out, _ = run(["--from-bundle", _write(tmp_path, bundle), "--json"])
    assert out.isascii() and json.loads(out)["seats"][0]["bot"] == "name" + ESCAPES + " v1"


def test_a_refusal_quoting_the_bundle_is_one_escaped_line(race, tmp_path):
    path = tmp_path / f"bundle{ESCAPES}\n.json"
    path.write_text("{not json")
    err = _refusal(*run(["--from-bundle", str(path)]))
    assert_only_printable(err[:-1])
    assert f"bundle{ESCAPED}\\n.json is not JSON (" in err


def test_a_command_line_asks_for_a_replay_by_its_from_bundle_option():
    assert asks_for_replay(["--from-bundle", "match.json"]) and asks_for_replay(["--json", "--from-bundle=m.json"])
    assert not asks_for_replay(["kingdomino", "random", "greedy", "--json"])
    assert not asks_for_replay(["kingdomino", "--from-bundles", "greedy"])

"""The referee's record of each decision (its step, its think time, what the bot printed while deciding),
with bots in the real sandbox."""

from __future__ import annotations

import re
import time

import pytest
from sandbox_helpers import FIRST_BOT, bot_source

from bots.referee import BotSpec, DecisionLog, Limits, play_match

# Prints its decision number each time it is asked, part of it without a newline and part on stderr, so
# that only the SDK's flush before the answer can bring it in with its own decision. The line printed at
# import belongs to no decision.
COUNTING_BOT = bot_source("""
    import sys

    print("loading")
    count = 0

    def act(observation, legal_actions):
        global count
        print("decision", count, "total", observation["total"])
        print("unfinished", end="")
        sys.stderr.write(f" err {count}")
        count += 1
        return legal_actions[0]
""")


def test_each_decision_has_its_step_its_think_time_and_what_it_printed(sandbox, race):
    result = play_match(race, [BotSpec("counting", COUNTING_BOT), BotSpec("first", FIRST_BOT)], seed=1,
                        sandbox=sandbox)
    counting, first = result.seats
    assert result.actions == [1] * 12
    # Seat 0 is on move at the even steps; each record's step is the action its decision produced.
    assert [d["step"] for d in counting.decisions] == [0, 2, 4, 6, 8, 10]
    assert [d["log"] for d in counting.decisions] == [
        f"decision {n} total {2 * n}\nunfinished err {n}" for n in range(6)]
    assert all(isinstance(d["ms"], int) and 0 <= d["ms"] < 1000 for d in counting.decisions)
    assert [list(d) for d in counting.decisions] == [["step", "ms", "log"]] * 6
    # The start's output stays in the seat's whole log only.
    assert counting.log.startswith("loading\ndecision 0 total 0\n")
    assert [(d["step"], d["log"]) for d in first.decisions] == [(step, "") for step in (1, 3, 5, 7, 9, 11)]


def test_play_json_carries_the_decisions_only_when_asked(sandbox, race):
    result = play_match(race, [BotSpec("counting", COUNTING_BOT), BotSpec("first", FIRST_BOT)], seed=1,
                        options={"target": 3}, sandbox=sandbox)
    assert [list(seat) for seat in result.to_json()["seats"]] == [["bot", "score", "place", "outcome", "reason"]] * 2
    seats = result.to_json(decisions=True)["seats"]
    assert [[d["step"] for d in seat["decisions"]] for seat in seats] == [[0, 2], [1]]
    assert seats[0]["decisions"][1]["log"] == "decision 1 total 2\nunfinished err 1"


def test_think_time_is_what_the_clock_charged(sandbox, race):
    slow = bot_source("""
        import time

        def act(observation, legal_actions):
            time.sleep(0.12)
            return legal_actions[0]
    """)
    result = play_match(race, [BotSpec("slow", slow), BotSpec("first", FIRST_BOT)], seed=1, sandbox=sandbox)
    decisions = result.seats[0].decisions
    assert all(120 <= d["ms"] < 600 for d in decisions)
    # The clock charges the same decisions, rounded once for the whole match instead of per decision.
    assert sum(d["ms"] for d in decisions) <= result.seats[0].time_used_ms < sum(d["ms"] for d in decisions) + 7


def test_a_decisions_clock_starts_before_the_bot_can_run(sandbox, race, monkeypatch):
    """The referee is held up right after it let the bot run (as when the woken bot takes its CPU at
    once): the bot's thinking is charged all the same, none of it before the clock started."""
    from bots.sandbox.zygote import ZygoteBot

    resume = ZygoteBot.resume

    def resume_then_held_up(self):
        resume(self)
        time.sleep(0.03)

    monkeypatch.setattr(ZygoteBot, "resume", resume_then_held_up)
    slow = bot_source("""
        import time

        def act(observation, legal_actions):
            time.sleep(0.12)
            return legal_actions[0]
    """)
    result = play_match(race, [BotSpec("slow", slow), BotSpec("first", FIRST_BOT)], seed=1, sandbox=sandbox,
                        options={"target": 3})
    assert [d["ms"] >= 120 for d in result.seats[0].decisions] == [True, True]


def test_a_silent_bot_has_a_record_per_decision_with_an_empty_log(sandbox, race):
    result = play_match(race, [BotSpec("a", FIRST_BOT), BotSpec("b", FIRST_BOT)], seed=1,
                        options={"target": 5}, sandbox=sandbox)
    assert [[(d["step"], d["log"]) for d in seat.decisions] for seat in result.seats] == [
        [(0, ""), (2, ""), (4, "")], [(1, ""), (3, "")]]


def test_the_decisions_logs_share_the_seats_log_cap_and_say_what_was_cut(sandbox, race):
    """200 bytes for the seat: the first decisions' text is kept up to 100 bytes, the last ones' up to 100,
    and the decisions in between say how many of their bytes were dropped."""
    chatty = bot_source("""
        count = 0

        def act(observation, legal_actions):
            global count
            print(f"{count:02d}" + "x" * 37)  # 40 bytes with the newline
            count += 1
            return legal_actions[0]
    """)
    result = play_match(race, [BotSpec("chatty", chatty), BotSpec("first", FIRST_BOT)], seed=1,
                        limits=Limits(log_bytes=200), sandbox=sandbox)
    logs = [d["log"] for d in result.seats[0].decisions]
    line = "{:02d}" + "x" * 37 + "\n"
    assert logs[0] == line.format(0) and logs[1] == line.format(1)
    marker = "[... 20 bytes of log dropped: the seat's log cap of 200 bytes is reached ...]\n"
    assert logs[2] == line.format(2)[:20] + "\n" + marker
    assert logs[3] == marker + line.format(3)[20:]
    assert logs[4:] == [line.format(4), line.format(5)]
    kept = [re.sub(r"\n?\[\.\.\. \d+ bytes of log dropped[^\]]*\]\n", "", log) for log in logs]
    assert sum(map(len, kept)) == 200


def test_a_forfeited_seat_keeps_its_last_decision_and_none_of_the_fallbacks(sandbox, race):
    crasher = bot_source("""
        count = 0

        def act(observation, legal_actions):
            global count
            count += 1
            print("thinking", count)
            if count == 3:
                1 / 0
            return legal_actions[0]
    """)
    result = play_match(race, [BotSpec("crasher", crasher), BotSpec("first", FIRST_BOT)], seed=1, sandbox=sandbox)
    crashed = result.seats[0]
    assert crashed.outcome == "crash"
    # Steps 6, 8 and 10 were the fallback's, not the bot's: no record. Its last decision has the traceback.
    assert [d["step"] for d in crashed.decisions] == [0, 2, 4]
    assert crashed.decisions[2]["log"].startswith("thinking 3\nTraceback (most recent call last):")
    assert "ZeroDivisionError" in crashed.decisions[2]["log"]


def test_decision_log_keeps_head_and_tail_within_its_cap():
    """The bookkeeping alone: every record's kept bytes together never exceed the cap."""
    log = DecisionLog(10)
    records = []
    for step, text in enumerate([b"abc", b"defgh", b"ijklmnop", b"q", b"rstuv"]):
        records.append(log.open(step))
        log.feed(text)
        records[-1].ms = step
    head = [r.head for r in records]
    tail = [r.tail for r in records]
    assert head == [b"abc", b"de", b"", b"", b""]
    assert tail == [b"", b"", b"", b"", b"rstuv"]
    assert [r.dropped for r in records] == [0, 3, 8, 1, 0]
    assert sum(map(len, head + tail)) == 10
    assert log.to_json()[1] == {"step": 1, "ms": 1,
                                "log": "de\n[... 3 bytes of log dropped: the seat's log cap of 10 bytes is "
                                       "reached ...]\n"}


@pytest.mark.parametrize("size", [0, 1])
def test_a_tiny_cap_keeps_every_record(size):
    log = DecisionLog(size)
    for step in range(3):
        log.open(step)
        log.feed(b"hello")
    assert [d["step"] for d in log.to_json()] == [0, 1, 2]
    assert all("bytes of log dropped" in d["log"] for d in log.to_json())


def test_a_bot_whose_stdout_cannot_flush_still_answers(sandbox, race):
    """The SDK's flush before each answer must not turn a bot's odd ``sys.stdout`` into a crash."""
    odd = bot_source("""
        import sys

        class Stubborn:
            def write(self, text):
                sys.__stderr__.write(text)
            def flush(self):
                raise OSError("no flushing here")

        sys.stdout = Stubborn()

        def act(observation, legal_actions):
            print("still here")
            return legal_actions[0]
    """)
    result = play_match(race, [BotSpec("odd", odd), BotSpec("first", FIRST_BOT)], seed=1,
                        options={"target": 3}, sandbox=sandbox)
    assert [seat.outcome for seat in result.seats] == ["ok", "ok"]
    assert [d["step"] for d in result.seats[0].decisions] == [0, 2]

"""The match page's log panel and charts: what a bot printed at each step and how long it thought, for its
owner (and staff) only, and every seat's score after every step, for everyone."""

from __future__ import annotations

import json
import re

import pytest

from ladder.models import Bot
from tests.factories import StaffFactory
from tests.web.conftest import fill_decisions

pytestmark = pytest.mark.django_db

HOSTILE_LOG = "<script>alert('log')</script></textarea></pre><img src=x onerror=alert(2)> & done\n"


def _match(tournament_factory, **kwargs):
    match = tournament_factory(bots=2, names=["north", "south"], **kwargs).matches.get()
    return match, fill_decisions(match), list(match.seats.order_by("position"))


def _blob(html: str) -> dict:
    found = re.search(r'<script id="decisions" type="application/json">(.*?)</script>', html, re.S)
    assert found, "no decisions data in the page"
    return json.loads(found.group(1))


def test_owner_sees_what_their_bot_printed_at_the_step_and_how_long_it_thought(client, tournament_factory):
    match, records, seats = _match(tournament_factory)
    mine = seats[0]
    decision = records[0][3]  # the fourth action seat 0 took
    step = decision["step"] + 1  # the position that action led to
    client.force_login(mine.bot.owner)
    response = client.get(f"/matches/{match.id}/", {"step": step})
    html = response.content.decode()
    panel = re.search(r'<section class="seat-log" data-seat="0".*?</section>', html, re.S).group(0)
    assert f"seat 0 (north) decided step {step} in {decision['ms']} ms" in panel
    assert f"seat 0 weighs action {decision['step']}" in panel
    assert 'class="chart think-chart"' in panel
    assert 'data-seat="1"' not in panel and '<section class="seat-log" data-seat="1"' not in html
    assert "seat 1 weighs" not in html  # the other seat's bot is someone else's
    data = _blob(html)
    assert [seat["position"] for seat in data["seats"]] == [0]
    assert [d["step"] for d in data["seats"][0]["decisions"]] == [r["step"] for r in records[0]]
    assert data["move_ms"] == match.limits["move_ms"] and data["last"] == len(match.actions)


def test_at_another_seats_step_the_panel_shows_the_latest_decision_and_says_so(client, tournament_factory):
    match, records, seats = _match(tournament_factory)
    client.force_login(seats[0].bot.owner)
    theirs = records[1][2]["step"]  # an action of seat 1; seat 0's latest decision came before it
    latest = [r for r in records[0] if r["step"] < theirs][-1]
    html = client.get(f"/matches/{match.id}/", {"step": theirs + 1}).content.decode()
    assert (f"seat 0 (north) decided step {latest['step'] + 1} in {latest['ms']} ms "
            f"(its latest decision before step {theirs + 1})") in html
    start = client.get(f"/matches/{match.id}/", {"step": 0}).content.decode()
    assert "seat 0 (north) has decided nothing before step 0" in start


@pytest.mark.parametrize("viewer", ["anonymous", "other user", "opponent"])
def test_nobody_else_receives_the_logs_think_times_or_their_charts(client, tournament_factory, user_factory, viewer):
    match, records, seats = _match(tournament_factory)
    if viewer == "other user":
        client.force_login(user_factory())
    elif viewer == "opponent":  # owns seat 1: sees seat 1's panel, never seat 0's
        client.force_login(seats[1].bot.owner)
    for step in (0, 5, len(match.actions)):
        html = client.get(f"/matches/{match.id}/", {"step": step}).content.decode()
        assert "seat 0 weighs" not in html
        assert 'class="chart score-chart"' in html  # the scores are public
        frame = client.get(f"/matches/{match.id}/frame/", {"step": step}).content.decode()
        assert "weighs" not in frame and "decisions" not in frame
        if viewer != "opponent":
            assert "seat 1 weighs" not in html and "think-chart" not in html
            assert 'id="decisions"' not in html and "seat-log" not in html
            assert not re.search(r"decided step \d+ in \d+ ms", html)
        else:
            assert [seat["position"] for seat in _blob(html)["seats"]] == [1]


def test_staff_see_every_seats_panel(client, tournament_factory):
    match, _records, _seats = _match(tournament_factory)
    client.force_login(StaffFactory())
    html = client.get(f"/matches/{match.id}/", {"step": 4}).content.decode()
    assert html.count('<section class="seat-log"') == 2
    assert [seat["position"] for seat in _blob(html)["seats"]] == [0, 1]


def test_an_owner_of_several_seats_gets_a_panel_and_a_chart_per_seat(client, tournament_factory):
    match = tournament_factory(bots=3, players=3, names=["a", "b", "c"]).matches.get()
    fill_decisions(match)
    seats = list(match.seats.order_by("position"))
    Bot.objects.filter(pk=seats[2].bot_id).update(owner=seats[0].bot.owner)
    client.force_login(seats[0].bot.owner)
    html = client.get(f"/matches/{match.id}/", {"step": 6}).content.decode()
    assert re.findall(r'<section class="seat-log" data-seat="(\d)"', html) == ["0", "2"]
    assert html.count('class="chart think-chart"') == 2
    assert "seat 1 weighs" not in html


def test_a_seat_without_recorded_decisions_gets_no_panel(client, tournament_factory):
    match, _records, seats = _match(tournament_factory)
    client.force_login(StaffFactory())
    seats[0].decisions = []
    seats[0].save(update_fields=["decisions"])
    html = client.get(f"/matches/{match.id}/").content.decode()
    assert re.findall(r'<section class="seat-log" data-seat="(\d)"', html) == ["1"]
    seats[1].decisions = []
    seats[1].save(update_fields=["decisions"])
    html = client.get(f"/matches/{match.id}/").content.decode()
    assert "seat-log" not in html and 'id="decisions"' not in html
    assert "says &lt;script&gt;" in html  # the seats' whole logs are still there below


def test_what_a_bot_printed_is_inert_text_in_the_page_and_in_its_data(client, tournament_factory):
    match = tournament_factory(bots=2, names=["north", "south"]).matches.get()
    records = fill_decisions(match, log=lambda position, step: HOSTILE_LOG)
    seat = match.seats.get(position=0)
    client.force_login(seat.bot.owner)
    html = client.get(f"/matches/{match.id}/", {"step": records[0][0]["step"] + 1}).content.decode()
    for raw in ("<script>alert", "</textarea>", "</pre><img", "<img src=x"):
        assert raw not in html
    assert "&lt;script&gt;alert(&#x27;log&#x27;)&lt;/script&gt;&lt;/textarea&gt;" in html
    # The data block is JSON with <, > and & escaped, so it cannot close its script element.
    assert _blob(html)["seats"][0]["decisions"][0]["log"] == HOSTILE_LOG


def test_the_charts_follow_the_matchs_stored_limits_and_the_never_played_answer(client, tournament_factory):
    match, records, seats = _match(tournament_factory)
    match.limits = {**match.limits, "move_ms": 200, "bank_ms": 1000}
    match.save(update_fields=["limits"])
    last = len(match.actions)
    seat = seats[0]
    seat.decisions = [*records[0], {"step": last, "ms": 1900, "log": "out of time\n"}]
    seat.save(update_fields=["decisions"])
    client.force_login(seat.bot.owner)
    html = client.get(f"/matches/{match.id}/", {"step": last}).content.decode()
    assert "over the move clock of 200 ms" in html
    assert f"seat 0 (north) decided after step {last} in 1900 ms; that answer was never played" in html
    assert "out of time" in html
    data = _blob(html)
    assert (data["move_ms"], data["bank_ms"]) == (200, 1000)
    assert data["seats"][0]["decisions"][-1]["bank_ms"] == 0


def test_everyone_gets_the_score_chart_with_its_cursor_at_the_step(client, tournament_factory):
    match = tournament_factory(bots=2, names=["north", "south"]).matches.get()
    html = client.get(f"/matches/{match.id}/", {"step": 7}).content.decode()
    chart = re.search(r'<svg class="chart score-chart".*?</svg>', html, re.S).group(0)
    assert chart.count("<polyline") == 2 and 'class="cursor"' in chart
    assert "<title>Scores after every step</title>" in chart
    x0, x1, domain = (float(re.search(rf'data-{k}="([\d.]+)"', chart).group(1)) for k in ("x0", "x1", "domain"))
    cursor = float(re.search(r'<line class="cursor" x1="([\d.]+)"', chart).group(1))
    assert cursor == pytest.approx(x0 + (x1 - x0) * 7 / domain, abs=0.1)

"""The site keeps a rated deal's logs as secret as its seed: while a sibling rotation is still to play,
neither the match page (its logs, its per-decision panels and their data) nor the bot page shows what a
bot printed in a finished rotation, to its owner or to staff; the match page says when they will."""

from __future__ import annotations

import pytest

from ladder.models import Seat, Tournament
from tests.factories import StaffFactory
from tests.web.conftest import fill_decisions, finish_match

pytestmark = pytest.mark.django_db

DEAL_LINE = "dominoes this round: 12 31 7 44"


def _pages(match, seat) -> list[str]:
    return [f"/matches/{match.id}/", f"/bots/{seat.bot_id}/"]


def test_a_finished_rotations_logs_are_on_no_page_until_its_tournament_finished(client, tournament_factory):
    tournament = tournament_factory(bots=2, rated=True, finish=False, duplicate=True)
    first, second = tournament.matches.order_by("index")
    finish_match(first.id)
    for seat in Seat.objects.filter(match=first):
        seat.log = DEAL_LINE + "\n"
        seat.save(update_fields=["log"])
    fill_decisions(first, log=lambda position, step: f"{DEAL_LINE} (step {step})\n")
    seat = first.seats.order_by("position").first()
    readers = {"owner": seat.bot.owner, "staff": StaffFactory()}
    for who, user in readers.items():
        client.force_login(user)
        for address in _pages(first, seat):
            html = client.get(address).content.decode()
            assert DEAL_LINE not in html, (who, address)
        page = client.get(f"/matches/{first.id}/")
        assert page.context["logs_withheld"] and f"until tournament {tournament.id} finished" in page.content.decode()
        assert not page.context["logs"] and not page.context.get("seat_panels")

    finish_match(second.id)
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED
    for who, user in readers.items():
        client.force_login(user)
        for address in _pages(first, seat):
            assert DEAL_LINE in client.get(address).content.decode(), (who, address)


def test_no_notice_for_whom_has_no_logs_to_wait_for(client, tournament_factory, user_factory):
    tournament = tournament_factory(bots=2, rated=True, finish=False, duplicate=True)
    first = tournament.matches.order_by("index").first()
    finish_match(first.id)
    client.force_login(user_factory())
    page = client.get(f"/matches/{first.id}/")
    assert page.status_code == 200 and not page.context["logs_withheld"]

"""A duplicate round robin created through the REST API and played by a real ``celery worker`` process:
every finished deal holds its bots in all seat rotations, under one seed, and the standings give the
pair's points per deal. A rated one, on a worker of two processes, never runs two rotations of a deal at
the same time."""

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from ladder.models import Match
from tests.conftest import wait_until_checked
from tests.e2e.test_round_robin import registered, wait_finished
from tests.factories import FIRST_LEGAL_BOT, LAST_LEGAL_BOT, BotFactory

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_every_finished_deal_holds_its_bots_in_both_seat_orders_under_one_seed(workers):
    ada = registered("ada")
    bot_ids = []
    for name, code in (("first", FIRST_LEGAL_BOT), ("last", LAST_LEGAL_BOT)):
        response = ada.post("/api/bots/", {"game": "kingdomino", "name": name,
                                           "code": SimpleUploadedFile("bot.py", code)}, format="multipart")
        assert response.status_code == 202, response.json()
        bot_ids.append(response.json()["id"])
    wait_until_checked(ada, bot_ids)

    created = ada.post("/api/tournaments/", {"game": "kingdomino", "name": "duplicate", "bots": bot_ids,
                                             "players_per_match": 2, "games_per_pairing": 2, "duplicate": True},
                       format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["duplicate"] is True and created.json()["progress"]["total"] == 4
    body = wait_finished(ada, created.json()["id"], workers)
    assert body["progress"]["finished"] == 4 and body["progress"]["failed"] == 0

    by_deal: dict[int, list[Match]] = {}
    for match in Match.objects.filter(tournament_id=body["id"]).prefetch_related("seats"):
        by_deal.setdefault(match.deal, []).append(match)
    assert sorted(by_deal) == [0, 1]
    for matches in by_deal.values():
        assert all(m.status == "finished" and m.actions for m in matches)
        assert len({m.seed for m in matches}) == 1
        orders = sorted(tuple(s.bot_id for s in sorted(m.seats.all(), key=lambda s: s.position)) for m in matches)
        assert orders == sorted([tuple(bot_ids), tuple(reversed(bot_ids))])
    assert by_deal[0][0].seed != by_deal[1][0].seed

    assert [(row["deal"], row["games"], row["complete"]) for row in body["deals"]] == [(0, 2, True), (1, 2, True)]
    for row in body["deals"]:
        assert [line["bot_id"] for line in row["bots"]] == sorted(bot_ids)
        assert sum(line["points"] for line in row["bots"]) == 2.0


# Each decision takes a while, so that a match lasts about a second and two rotations started together
# would overlap by most of it.
SLOW_BOT = b"import time\n\ndef act(observation, legal_actions):\n    time.sleep(0.03)\n    return legal_actions[0]\n"


def test_the_rotations_of_a_rated_deal_never_overlap_on_two_worker_processes(workers):
    staff = registered("operator")
    get_user_model().objects.filter(username="operator").update(is_staff=True)
    bots = [BotFactory(code=SLOW_BOT), BotFactory(code=SLOW_BOT + b"# the other\n")]
    created = staff.post("/api/tournaments/", {"game": "kingdomino", "name": "rated duplicate", "rated": True,
                                               "bots": [b.id for b in bots], "players_per_match": 2,
                                               "games_per_pairing": 3, "duplicate": True}, format="json")
    assert created.status_code == 201, created.json()
    body = wait_finished(staff, created.json()["id"], workers)
    assert body["progress"]["finished"] == 6 and body["progress"]["failed"] == 0

    by_deal: dict[int, list[Match]] = {}
    for match in Match.objects.filter(tournament_id=body["id"]).order_by("started_at"):
        by_deal.setdefault(match.deal, []).append(match)
    assert sorted(by_deal) == [0, 1, 2]
    for deal, rotations in by_deal.items():
        assert [m.attempts for m in rotations] == [1, 1]
        earlier, later = rotations
        assert later.started_at >= earlier.finished_at, (
            f"deal {deal}: rotation {later.index} started at {later.started_at}, before rotation "
            f"{earlier.index} finished at {earlier.finished_at}")
        assert [m.index for m in rotations] == sorted(m.index for m in rotations)
    # Deals still run side by side: both processes were busy at once.
    spans = sorted((m.started_at, m.finished_at) for rotations in by_deal.values() for m in rotations)
    assert any(later_start < earlier_end for (_, earlier_end), (later_start, _) in zip(spans, spans[1:]))

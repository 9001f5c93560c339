"""A match remembers the rules version it was scheduled under; its replay says so when the rules changed.

A match recorded under an older ``rules_version`` than the installed engine's cannot be replayed by it:
``GET /api/matches/{id}/replay/`` answers 410 and the site's replay step 410, both saying the rules
changed and that the actions and the result can still be read; the match page still shows them. Any
failure of the engine on stored actions is a 409 with a message, never a 500. A current match replays.
Both surfaces read replays through ``selectors.matches`` and give the same status and message for every
reason (``REPLAY_STATUS``).
"""

from __future__ import annotations

import pytest

import engines
from ladder.models import Game, Match
from ladder.selectors.matches import REPLAY_STATUS, ReplayUnavailable, match_timeline
from tests.api.helpers import error_of
from tests.factories import BotFactory, MatchFactory, TournamentFactory, finished_match

pytestmark = pytest.mark.django_db


def _played(**changes) -> Match:
    match = finished_match(bots=BotFactory.create_batch(2))
    Match.objects.filter(pk=match.pk).update(**changes)
    match.refresh_from_db()
    return match


def test_a_scheduled_match_stores_its_games_rules_version(api_client):
    match = finished_match(bots=BotFactory.create_batch(2), tournament=TournamentFactory())
    current = engines.get("kingdomino").rules_version
    assert match.rules_version == current
    assert api_client.get(f"/api/matches/{match.id}/").json()["rules_version"] == current


def test_a_match_of_older_rules_answers_its_replay_with_a_410_that_says_what_is_left(api_client):
    older = engines.get("kingdomino").rules_version - 1
    match = _played(rules_version=older)

    response = api_client.get(f"/api/matches/{match.id}/replay/")

    assert response.status_code == 410
    body = error_of(response)
    assert body["code"] == "gone"
    assert f"version {older} of the kingdomino rules" in body["detail"] and "rules changed" in body["detail"]
    assert "actions and its result" in body["detail"]
    detail = api_client.get(f"/api/matches/{match.id}/")
    assert detail.status_code == 200 and detail.json()["rules_version"] == older


def test_the_page_of_a_match_of_older_rules_shows_its_result_and_actions_and_its_step_is_a_410(client):
    match = _played(rules_version=engines.get("kingdomino").rules_version + 1)

    page = client.get(f"/matches/{match.id}/")
    frame = client.get(f"/matches/{match.id}/frame/", {"step": 1})

    assert page.status_code == 200
    assert "rules changed" in page.context["replay_error"]
    html = page.content.decode()
    assert f"rules v{match.rules_version}" in html
    assert len(page.context["actions_json"]) == len(match.actions)
    assert frame.status_code == 410 and "rules changed" in frame.json()["detail"]


def test_an_engine_failure_on_stored_actions_is_a_409_not_a_500(api_client, client):
    # An action of the wrong type: the engine raises while comparing it, not IllegalAction.
    match = _played(actions=[12345])

    response = api_client.get(f"/api/matches/{match.id}/replay/")

    assert response.status_code == 409
    assert "do not fit" in error_of(response)["detail"]
    assert client.get(f"/matches/{match.id}/").status_code == 200
    assert client.get(f"/matches/{match.id}/frame/", {"step": 1}).status_code == 409


def test_a_match_of_the_current_rules_still_replays(api_client, client):
    match = finished_match(bots=BotFactory.create_batch(2))

    body = api_client.get(f"/api/matches/{match.id}/replay/").json()

    assert len(body["frames"]) == len(match.actions) + 1
    page = client.get(f"/matches/{match.id}/")
    assert page.status_code == 200 and "replay_error" not in page.context
    assert client.get(f"/matches/{match.id}/frame/", {"step": 1}).status_code == 200


def _match_of_a_game_no_longer_installed() -> Match:
    match = _played()
    gone = Game.objects.create(slug="retired_game", title="Retired", min_players=2, max_players=2,
                               available=False)
    Match.objects.filter(pk=match.pk).update(game=gone)
    return match


@pytest.mark.parametrize("reason, make", [
    ("unfinished", lambda: MatchFactory()),
    ("game_missing", _match_of_a_game_no_longer_installed),
    ("rules_changed", lambda: _played(rules_version=engines.get("kingdomino").rules_version - 1)),
    ("does_not_fit", lambda: _played(actions=[{"no": "such action"}])),
])
def test_the_api_and_the_site_give_one_answer_for_each_reason_a_replay_is_unavailable(api_client, client,
                                                                                       reason, make):
    match = make()

    api = api_client.get(f"/api/matches/{match.id}/replay/")
    site = client.get(f"/matches/{match.id}/frame/", {"step": 1})

    assert api.status_code == site.status_code == REPLAY_STATUS[reason]
    assert error_of(api)["detail"] == site.json()["detail"]
    page = client.get(f"/matches/{match.id}/")
    assert page.status_code == 200 and "frame" not in page.context
    # A replay that will come says so on its own; one that will not says why, beside the actions.
    assert (page.context.get("replay_error") == site.json()["detail"]) is (reason != "unfinished")


def test_every_reason_has_one_status_and_the_selector_raises_it():
    match = _played(rules_version=engines.get("kingdomino").rules_version + 1)
    with pytest.raises(ReplayUnavailable) as refused:
        match_timeline(match=Match.objects.select_related("game", "tournament").get(pk=match.pk))
    assert refused.value.reason == "rules_changed" and refused.value.status == 410
    assert set(REPLAY_STATUS.values()) <= {409, 410}

"""The admin pages (``ladder.admin``): every model's list and change pages open for a superuser, the
tournament form's rules for ``rated`` and ``seed``, the fields chosen once and never edited, and a rated
match's seed kept secret until it finished, here too."""

from __future__ import annotations

import pytest
from django.contrib import admin

from ladder import models
from ladder.admin import MatchAdmin, TournamentAdmin, TournamentAdminForm
from ladder.core.rated_play import RATED_SEED_REFUSED, rated_match_seed
from tests.factories import (
    BotFactory,
    MatchFactory,
    RatedTournamentFactory,
    SeatFactory,
    TournamentFactory,
    UserFactory,
    api_token_key,
    finished_match,
)

pytestmark = pytest.mark.django_db

MODELS = [models.Game, models.Bot, models.BotVersion, models.Tournament, models.Match, models.Comparison,
          models.Seat, models.Rating, models.RatingChange, models.ApiToken]


@pytest.fixture
def operator(client):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def url(model, view: str, *args) -> str:
    from django.urls import reverse

    return reverse(f"admin:ladder_{model._meta.model_name}_{view}", args=args)


def test_every_model_is_registered():
    assert all(admin.site.is_registered(model) for model in MODELS)


def test_every_list_page_opens_with_rows(operator):
    a, b = BotFactory(), BotFactory()
    finished_match(bots=[a, b])
    for model in MODELS:
        assert operator.get(url(model, "changelist")).status_code == 200, model


def test_the_change_pages_open_and_show_no_code(operator):
    a, b = BotFactory(), BotFactory()
    match = finished_match(bots=[a, b])
    seat = match.seats.order_by("position").first()
    version = a.versions.get()
    for model, pk in ((models.Bot, a.pk), (models.BotVersion, version.pk), (models.Match, match.pk),
                      (models.Tournament, match.tournament_id), (models.Seat, seat.pk)):
        assert operator.get(url(model, "change", pk)).status_code == 200, model
    page = operator.get(url(models.BotVersion, "change", version.pk)).content.decode()
    assert version.sha256 in page and 'name="code"' not in page


def form(**data) -> TournamentAdminForm:
    bot = BotFactory()
    fields = {"name": "cup", "game": bot.game.pk, "kind": "round_robin", "status": "running", "players_per_match": 2,
              "games_per_pairing": 1, "bots": [bot.pk], "created_by": bot.owner.pk}
    return TournamentAdminForm(data={**fields, **data})


def test_a_rated_tournament_takes_no_seed_and_an_unrated_one_needs_one():
    assert form(rated=True, seed=5).errors["seed"] == [RATED_SEED_REFUSED]
    assert "needs a seed" in form(rated=False, seed="").errors["seed"][0]
    assert "seed" not in form(rated=True, seed="").errors
    assert "seed" not in form(rated=False, seed=5).errors


def test_rated_duplicate_kind_and_seed_are_chosen_once(rf):
    tournament_admin = TournamentAdmin(models.Tournament, admin.site)
    request = rf.get("/")
    assert tournament_admin.get_readonly_fields(request) == ()
    assert set(tournament_admin.get_readonly_fields(request, TournamentFactory())) == {
        "kind", "rated", "duplicate", "seed"}


def test_a_rated_matchs_seed_is_secret_until_it_finished(operator):
    match_admin = MatchAdmin(models.Match, admin.site)
    a, b = BotFactory(), BotFactory()
    # A rated seed as the server draws it: 62 random bits, which no other number on the page repeats by chance
    # (a factory's three-digit seed can stand in an icon's path data).
    waiting = MatchFactory(tournament=RatedTournamentFactory(bots=[a, b]), seed=rated_match_seed())
    SeatFactory(match=waiting, position=0, bot=a)
    assert match_admin.public_seed(waiting) == "secret until the match finished"
    done = finished_match(bots=[a, b])
    assert match_admin.public_seed(done) == str(done.seed)
    unrated = MatchFactory()
    assert match_admin.public_seed(unrated) == str(unrated.seed)
    assert match_admin.public_seed(models.Match()) == "secret until the match finished"
    page = operator.get(url(models.Match, "change", waiting.pk)).content.decode()
    assert "secret until the match finished" in page and str(waiting.seed) not in page
    assert 'name="seed"' not in page


def test_api_tokens_show_no_key_and_cannot_be_made_there(operator):
    user = UserFactory()
    key = api_token_key(user, name="ci")
    token = models.ApiToken.objects.get(user=user)
    page = operator.get(url(models.ApiToken, "change", token.pk)).content.decode()
    assert key[:8] in page and key not in page
    assert operator.get(url(models.ApiToken, "add")).status_code == 403

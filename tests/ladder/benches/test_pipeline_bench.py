"""The pipeline bench's parts that need no worker (``ladder.benches.pipeline``): the database URL its worker
processes are given for the scratch database, the rated round robin it schedules of about the asked number
of matches, its wait for a tournament's matches, which stops the clock when the tournament was marked
finished and gives up after its timeout, and the figures of its rounds. The whole bench
starts real worker processes and sandboxes and is measured by ``manage.py bench``, not here."""

from __future__ import annotations

import time
from datetime import timedelta

import environ
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from ladder.benches import pipeline
from ladder.models import Match, Tournament
from tests.factories import BotFactory


@pytest.mark.parametrize(
    ("conf", "url"),
    [
        ({"ENGINE": "django.db.backends.postgresql", "NAME": "scratch", "USER": "ladder", "PASSWORD": "pw",
          "HOST": "db", "PORT": "6432"}, "postgres://ladder:pw@db:6432/scratch"),
        ({"ENGINE": "django.db.backends.postgresql", "NAME": "scratch", "USER": "postgres", "PASSWORD": "",
          "HOST": "", "PORT": ""}, "postgres://postgres@127.0.0.1/scratch"),
    ],
)
def test_the_workers_database_url_names_the_connections_database(monkeypatch, conf, url):
    for key, value in conf.items():
        monkeypatch.setitem(connection.settings_dict, key, value)
    assert pipeline._database_url() == url


def test_the_url_of_this_connection_reads_back_as_its_settings():
    parsed = environ.Env.db_url_config(pipeline._database_url())
    assert parsed["NAME"] == connection.settings_dict["NAME"]
    assert parsed["USER"] == connection.settings_dict["USER"]
    assert str(parsed["PORT"] or "") == str(connection.settings_dict["PORT"] or "")


@pytest.mark.django_db
def test_the_round_robin_is_rated_and_near_the_asked_size():
    bot_ids = [BotFactory().id for _ in range(3)]
    tournament = pipeline._round_robin(bot_ids, 7, "bench: tiny")
    assert tournament.rated and tournament.name == "bench: tiny" and tournament.created_by is None
    # Three pairs, 7 // 3 = 2 games each.
    assert tournament.games_per_pairing == 2 and tournament.matches.count() == 6
    assert pipeline._round_robin(bot_ids[:2], 0, "bench: least").matches.count() == 1


@pytest.mark.django_db
def test_the_wait_returns_once_nothing_is_left_and_gives_up_after_its_timeout():
    bot_ids = [BotFactory().id for _ in range(2)]
    tournament = pipeline._round_robin(bot_ids, 1, "bench: wait")
    with pytest.raises(RuntimeError, match=f"tournament {tournament.id} did not finish within 0s"):
        pipeline._wait_finished(tournament, timeout=0.2)
    now = timezone.now()
    Match.objects.filter(tournament=tournament).update(status="failed", finished_at=now)
    assert pipeline._wait_finished(tournament, timeout=5) > 0


@pytest.mark.django_db
def test_the_wait_stops_the_clock_when_the_tournament_was_marked_finished_not_when_it_looked():
    # The wait looks every 50 ms; the round robin's time is the tournament's own (its last recording).
    bot_ids = [BotFactory().id for _ in range(2)]
    tournament = pipeline._round_robin(bot_ids, 1, "bench: marked")
    Match.objects.filter(tournament=tournament).update(status="finished", finished_at=timezone.now())
    Tournament.objects.filter(id=tournament.id).update(status="finished",
                                                       finished_at=timezone.now() - timedelta(seconds=2))
    looked = time.monotonic()
    assert looked - 2.5 < pipeline._wait_finished(tournament, timeout=5) < looked - 1.5


def test_a_rounds_ratio_is_its_play_share_times_its_play_speed_and_the_figures_are_medians():
    rounds = [
        # 90 matches in 2 s, 1.8 s of it at play (50 a second), replayed by the referee at 50 a second.
        pipeline.Round(played=90, wall_s=2.0, play_s=1.8, referee_matches_per_s=50.0),
        # The machine slower during the replay: the ratio moves, the share does not.
        pipeline.Round(played=90, wall_s=2.0, play_s=1.8, referee_matches_per_s=40.0),
        # The pipeline slower: both move.
        pipeline.Round(played=90, wall_s=2.25, play_s=1.8, referee_matches_per_s=50.0),
    ]
    for each in rounds:
        assert each.ratio == pytest.approx(each.play_share * each.play_speed)
    figures = pipeline.round_figures(rounds)
    assert figures["pipeline.ratios"] == [0.9, 1.125, 0.8] and figures["pipeline.ratio"] == 0.9
    assert figures["pipeline.play_shares"] == [0.9, 0.9, 0.8] and figures["pipeline.play_share"] == 0.9
    assert figures["pipeline.play_speed"] == 1.0  # 1.0, 1.25, 1.0
    assert figures["pipeline.celery_matches_per_s"] == 45.0 and figures["pipeline.referee_matches_per_s"] == 50.0


@pytest.mark.django_db
def test_the_play_time_is_the_referees_own_for_the_finished_matches():
    bot_ids = [BotFactory().id for _ in range(3)]
    tournament = pipeline._round_robin(bot_ids, 3, "bench: timed")
    first, second, third = tournament.matches.order_by("id")
    now = timezone.now()
    Match.objects.filter(id=first.id).update(status="finished", finished_at=now, duration_s=0.25)
    Match.objects.filter(id=second.id).update(status="finished", finished_at=now, duration_s=0.5)
    Match.objects.filter(id=third.id).update(status="failed", finished_at=now, duration_s=9.0)
    assert pipeline._play_s(tournament) == pytest.approx(0.75)


def test_the_bench_refuses_fewer_than_one_round_before_it_starts_anything():
    with pytest.raises(CommandError, match="--rounds must be at least 1"):
        call_command("bench", "--rounds", "0", "--skip-sandbox")
    with pytest.raises(ValueError, match="rounds must be at least 1"):
        pipeline.bench_pipeline(rounds=0)

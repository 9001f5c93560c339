"""A worker process's time shared between matches and upload checks: every match and check task enters here.

Upload checks may take at most ``VALIDATION_MAX_SHARE`` of it while matches wait.

Workers serve the checks' queue first, so that an upload is decided in seconds. Served that way alone, a
flood of uploads (60 an hour per user, each check a smoke match) would hold every queued match back for as
long as the flood lasts. So each worker process keeps a ledger, :class:`CheckShare`: a check it runs
while matches are queued puts it in debt to them, ``(1 - share) / share`` seconds of match play for every
second the check took; every match it plays pays the debt back. A check the process takes while in debt,
with a match waiting, is not run: the process plays the first waiting match instead (claimed like any
other, its own message later finds it done) and sends the check back to the tail of its queue
(:func:`validation_run`). So while matches wait, checks take at most ``share`` of each process's time,
plus one check (a smoke match is one match of its game, under the game's limits); when none wait,
checks run back to back and owe nothing, and an idle process owes nothing new.

Each process keeps its own ledger: the bound holds per process, hence for every pool and machine, with
no shared state. A check sent back keeps its place among the other checks (the tail of their queue); a
task plays one match at most, so it fits in the same time limits as ``run_match``.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings

logger = logging.getLogger(__name__)

#: Queued matches tried, in order, when one must be played instead of a check: the first ones may be
#: claimed by other workers at the same moment.
CLAIM_TRIES = 5


class CheckShare:
    """The match time one worker process owes to waiting matches for the checks it ran while they waited."""

    def __init__(self, share: float) -> None:
        if not 0 < share <= 1:
            raise ValueError(f"a share is above 0 and at most 1, not {share}")
        self.share = share
        self.owed_s = 0.0

    def check_ran(self, seconds: float, *, matches_waited: bool) -> None:
        """A check took ``seconds``; it delayed matches only if ``matches_waited``."""
        if matches_waited:
            self.owed_s += seconds * (1 - self.share) / self.share

    def match_ran(self, seconds: float) -> None:
        """A match took ``seconds`` of this process. Play never banks credit: only debt is paid back."""
        self.owed_s = max(0.0, self.owed_s - seconds)

    @property
    def owes(self) -> bool:
        return self.owed_s > 0


_ledger: CheckShare | None = None


def check_share() -> CheckShare:
    """This process's ledger (made on first use, after the pool forked the process)."""
    global _ledger
    if _ledger is None:
        _ledger = CheckShare(settings.VALIDATION_MAX_SHARE)
    return _ledger


def match_timed(*, match_id: int, worker: str) -> str:
    """Play match ``match_id`` (``workers.execution.match_execute``) and enter the time it took in this
    process's ledger, unless it was not this process's to play ("skipped")."""
    from workers.execution import match_execute

    started = time.monotonic()
    outcome = match_execute(match_id=match_id, worker=worker)
    if outcome != "skipped":
        check_share().match_ran(time.monotonic() - started)
    return outcome


def matches_timed(*, match_ids: list[int], worker: str) -> dict[int, str]:
    """Play the matches of one message (``workers.execution.matches_execute``), entering the time each
    played one took in this process's ledger; their outcomes by match id."""
    from workers.execution import matches_execute

    ledger = check_share()
    return matches_execute(match_ids=match_ids, worker=worker, played=lambda _match_id, seconds: ledger.match_ran(seconds))


def _play_a_waiting_match(*, worker: str) -> str | None:
    """Play the first queued match this process can claim; its outcome, or None if none could be."""
    from ladder.services.play.matches import matches_waiting

    for match_id in matches_waiting(limit=CLAIM_TRIES):
        outcome = match_timed(match_id=match_id, worker=worker)
        if outcome != "skipped":
            logger.info("match %s played before an upload check: %s", match_id, outcome)
            return outcome
    return None


def validation_run(*, version_id: int, worker: str) -> str:
    """Check version ``version_id`` (``ladder.services.uploads.validation.bot_version_validate``), or, when
    this process owes waiting matches time, play one of them and send the check back to its queue. Returns
    the version's status, or "deferred"."""
    from ladder.messaging.enqueue import versions_validate_now
    from ladder.services.play.matches import matches_waiting
    from ladder.services.uploads.validation import bot_version_validate, version_pending

    ledger = check_share()
    waiting = version_pending(version_id=version_id) and bool(matches_waiting(limit=1))
    if waiting and ledger.owes and _play_a_waiting_match(worker=worker) is not None:
        # Sent before this message is acknowledged: a worker that dies in between leaves a duplicate,
        # which the version's status makes harmless, never a lost check.
        versions_validate_now([version_id])
        return "deferred"
    started = time.monotonic()
    try:
        return bot_version_validate(version_id=version_id)
    finally:
        # A check that ended in a sandbox fault (retried) took the process's time all the same.
        ledger.check_ran(time.monotonic() - started, matches_waited=waiting)

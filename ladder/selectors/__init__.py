"""The read side: every query the REST API (``ladder.api``) and the website (``ladder.web``) answer with.

One module per entity (``bots``, ``matches``, ``tournaments``, ``leaderboards``, and ``games`` for the
list of games). The rules that both interfaces show live here once:

* a seat's result: ``matches.seat_results_by_match`` reads seats as ``ratings.PlacedSeat`` rows, a seat
  forfeited by ``Seat.outcome_forfeits`` and a seat without a place (a finished match always has places;
  only a corrupt row lacks one) counted last;
* a tournament's standings (``tournaments.tournament_standings``): every entered bot is listed, those
  still waiting for a match with 0 games;
* the leaderboard's ranks (``leaderboards.leaderboard_ranked``), how sure each is (its interval, rank
  range and ``p_above``, fitted to the pair records) and whether a rating is provisional
  (``leaderboards.rating_is_provisional``);
* a bot's current version: its newest accepted one (``bots.current_version_number``);
* what is private to a bot's owner goes through ``ladder.selectors.access``, never through a filter here.

Lookups of one row raise ``ServiceError`` 404 when it does not exist; the site turns that into its 404
page. Nothing here writes.
"""

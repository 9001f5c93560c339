"""What a match bundle says it is: the one definition shared by the ladder, which writes bundles
(``ladder.selectors.matches.match_bundle``, ``GET /api/matches/{id}/bundle/``), and ``manage.py play
--from-bundle``, which reads them (``bots.bundle_replay``). A bundle whose ``format`` or ``format_version`` differs
is refused by the reader with a message naming both."""

#: The ``format`` field of every bundle.
BUNDLE_FORMAT = "bot-ladder-match"
#: The version of the bundle's shape; a change to its fields that an older reader would misread bumps it.
BUNDLE_FORMAT_VERSION = 1

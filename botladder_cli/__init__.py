"""``botladder``: a command-line client of the bot ladder's REST API, for bot authors and CI jobs.

A thin client: it speaks HTTP to ``/api/`` and nothing else (no Django, no import of the server's
packages; a layering contract in pyproject.toml holds it), so it runs anywhere Python and ``requests``
do. Configured by ``BOTLADDER_URL`` / ``BOTLADDER_TOKEN`` or the file ``botladder login`` writes
(``botladder_cli.config``). Every subcommand and exit status: docs/cli.md.
"""

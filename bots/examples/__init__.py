"""The example bots, one folder per game (``<game>/random_bot.py`` and others): the smoke match's opponent
(``bots.validate``), the bots ``manage.py play`` names by word (``bots.play``) and the demo's field
(``ladder.services.uploads.examples``)."""

from pathlib import Path

#: This folder.
EXAMPLES_DIR = Path(__file__).resolve().parent

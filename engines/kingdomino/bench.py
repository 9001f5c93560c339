"""Random-playout speed of the Kingdomino engine (see :mod:`engines.bench`)::

    .venv/bin/python -m engines.kingdomino.bench [--games N] [--observe] [--profile]
"""

from engines.bench import main

CONFIGURATIONS = [("2 players", 2, {}), ("3 players", 3, {}), ("4 players", 4, {}),
                  ("Mighty Duel", 2, {"mighty_duel": True})]

if __name__ == "__main__":
    main("kingdomino", CONFIGURATIONS, default_games=500)

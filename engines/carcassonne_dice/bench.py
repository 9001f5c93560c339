"""Random-playout speed of the Carcassonne dice-game engine (see :mod:`engines.bench`)::

    .venv/bin/python -m engines.carcassonne_dice.bench [--games N] [--observe] [--profile]
"""

from engines.bench import main

CONFIGURATIONS = [("2 players", 2, None), ("5 players", 5, None)]

if __name__ == "__main__":
    main("carcassonne_dice", CONFIGURATIONS)

"""Random-playout speed of the King of the Dice engine (see :mod:`engines.bench`)::

    .venv/bin/python -m engines.dice_king.bench [--games N] [--observe] [--profile]
"""

from engines.bench import main

CONFIGURATIONS = [("2 players", 2, None), ("3 players", 3, None), ("4 players", 4, None)]

if __name__ == "__main__":
    main("dice_king", CONFIGURATIONS, default_games=300)

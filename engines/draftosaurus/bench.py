"""Random-playout speed of the Draftosaurus engine (see :mod:`engines.bench`)::

    .venv/bin/python -m engines.draftosaurus.bench [--games N] [--observe] [--profile]
"""

from engines.bench import main

CONFIGURATIONS = [
    (f"{options['board']} {options['mode']} {players}p", players, options)
    for options in ({"board": "summer", "mode": "single"}, {"board": "winter", "mode": "single"},
                    {"board": "summer", "mode": "summer_winter"})
    for players in (2, 3, 4, 5)
]

if __name__ == "__main__":
    main("draftosaurus", CONFIGURATIONS, default_games=500)

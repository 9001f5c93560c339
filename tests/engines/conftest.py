"""Engine tests. This folder is on ``sys.path`` for the tests below it (pytest puts a conftest's folder
there), so every game's tests share :mod:`goldens`, the one golden recorder and check."""

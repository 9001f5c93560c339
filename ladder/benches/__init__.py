"""The figures of ``manage.py bench`` that need the ladder (a database, workers, the web tier), each
measured side by side in one run: ``pipeline`` (the referee against Celery, scaling, recovery, the
ladder), ``leaderboard``, ``reads``, ``exports`` and ``ratings``, on scratch databases
(``scratch_database``) that they build and drop themselves."""

"""The Celery app, configured from Django settings under the ``CELERY_`` namespace.

The database is the source of truth; the broker only rings the bell (see ladder.services.matches).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings")

app = Celery("botladder", include=["workers.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")

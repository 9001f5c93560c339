"""The Celery application and its thin tasks: ``celery -A workers worker`` and ``celery -A workers beat``."""

from workers.app import app

__all__ = ["app"]

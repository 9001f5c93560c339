"""Gunicorn's settings for the web tier, from the environment (gunicorn reads this file from its working
directory). The web tier only stores uploads and answers requests: no request waits for a bot."""

import os

bind = os.environ.get("WEB_BIND", "0.0.0.0:8000")
# Worker processes; WEB_CONCURRENCY is also what gunicorn itself reads when nothing sets it.
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
# Seconds a request may take before its worker is restarted.
timeout = int(os.environ.get("WEB_TIMEOUT_S", "30"))
graceful_timeout = int(os.environ.get("WEB_GRACEFUL_TIMEOUT_S", "30"))
accesslog = os.environ.get("WEB_ACCESS_LOG", "-")

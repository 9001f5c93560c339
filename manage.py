#!/usr/bin/env python
"""Django's command-line utility for the bot ladder (``python manage.py help`` lists the commands).

On a developer's machine nothing is configured: with neither ``SECRET_KEY`` nor ``DEBUG`` in the
environment, commands run in development mode (``DEBUG=1``, a throwaway key) so that ``play``, ``bench``
and ``demo`` work out of the box. A deployment sets ``SECRET_KEY`` (and leaves ``DEBUG`` off), and the
web server (``ladder.wsgi``) never takes this shortcut.
"""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings")
    if "SECRET_KEY" not in os.environ and "DEBUG" not in os.environ:
        os.environ["DEBUG"] = "1"
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

"""The Django project and app of the bot ladder: settings, models, services, REST API and website."""

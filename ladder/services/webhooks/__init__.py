"""Webhooks: subscriptions, the events they hear of, and their deliveries."""

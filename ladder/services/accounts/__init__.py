"""Accounts: registration and API tokens."""

"""Failures that are the sandbox's fault, not the bot's: the caller retries the match elsewhere."""


class SandboxFault(Exception):
    """Isolation could not be set up or broke down; no bot is blamed and the match may be retried."""


class SandboxUnavailable(SandboxFault):
    """This machine cannot isolate bots and unsafe mode was not allowed; the message names what is missing."""

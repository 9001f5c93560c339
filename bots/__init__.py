"""Everything about running untrusted bot code: loading, the protocol, the sandbox, the referee.

Imports :mod:`engines` and nothing else of the project (no Django).
"""

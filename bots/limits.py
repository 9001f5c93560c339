"""What one seat may spend in one match, as plain data: the web tier resolves these when it schedules a
match (settings, per game, per tournament) and stores them on it; the referee and the sandbox enforce them.
Nothing here starts or runs anything."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """What one seat may spend in one match.

    ``move_ms`` is the wall-clock allowance of every decision; time beyond it is taken from the match's
    ``bank_ms`` (a chess clock), and a decision that outlasts both forfeits with ``timeout``. ``match_ms``
    caps the seat's decisions together, so that a match ends in bounded time however many decisions the
    game asks for: a seat that has spent it forfeits with ``timeout`` too.
    """

    move_ms: int = 1000
    bank_ms: int = 20000
    #: Wall-clock time of all the seat's decisions in the match. Seats think in turn, so a full table of
    #: five takes up to 5 x (start_ms + match_ms) = 175 s, inside the default soft time limit (240 s).
    match_ms: int = 30000
    memory_mb: int = 256
    log_bytes: int = 65536
    #: CPU seconds for the whole process tree's life (a busy background thread cannot outrun it).
    cpu_seconds: int = 60
    #: Processes and threads the bot may have at once (its own interpreter included).
    max_processes: int = 16
    #: Size of the private writable /tmp.
    tmp_mb: int = 16
    #: Wall-clock allowance for importing the bot and answering ``start``.
    start_ms: int = 5000
    #: Largest single protocol message the referee accepts from a bot.
    max_message_bytes: int = 1024 * 1024
    #: Largest file the bot may write (RLIMIT_FSIZE), bounded in any case by ``tmp_mb``.
    file_mb: int = 16
    #: Open file descriptors.
    max_open_files: int = 64

"""The host's handle on one running bot, whatever started it (zygote, fresh interpreter, unsafe mode)."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod


class BotProcess(ABC):
    """Three pipes, the sandbox's status pipe and a kill switch.

    ``to_bot`` carries protocol lines to the bot, ``from_bot`` brings its answers and ``log`` its
    standard output and error. ``status`` (or -1) is the sandbox's own channel: it carries the reason
    when confinement failed and is closed, by the sandbox, before any code of the bot runs. All are the
    host's ends, non-blocking. ``kill`` ends the bot's whole process tree and may be called any number
    of times.
    """

    def __init__(self, to_bot: int, from_bot: int, log: int, status: int = -1) -> None:
        self.to_bot = to_bot
        self.from_bot = from_bot
        self.log = log
        self.status = status
        for fd in (to_bot, from_bot, log, status):
            if fd >= 0:
                os.set_blocking(fd, False)
        self._closed = False

    def sandbox_failure(self) -> str | None:
        """Why the sandbox could not start this bot, if it could not (read once the bot is gone)."""
        if self.status < 0:
            return None
        try:
            text = os.read(self.status, 65536)
        except OSError:
            return None
        return text.decode(errors="replace") or None

    #: How :meth:`pause` stops the bot: ``"freezer"`` (its cgroup: every process and thread),
    #: ``"sigstop"`` (SIGSTOP of its first process only) or ``"none"`` (it keeps running).
    pause_mechanism = "none"

    def pause(self) -> None:
        """Stop the bot from running until :meth:`resume`: called when the move passes to another seat.

        Once this returns the bot's processes get no CPU (each stops within microseconds, at its next
        return to user space) and nothing of the bot is lost: a process blocked reading its stdin stops
        there, and what the referee writes meanwhile waits in the pipe until it is resumed. Cheap (one
        write or one signal), safe to repeat, and never an error because of the bot: one that is gone
        is noticed on its pipes. :class:`~bots.sandbox.errors.SandboxFault` if the sandbox's own control
        fails. :meth:`kill` works on a paused bot: it dies once thawed, which the sandbox does off the
        caller's time, before the bot's cell hosts another bot (or is removed). The default does nothing,
        for modes that cannot stop a bot (see :attr:`pause_mechanism`).
        """

    def resume(self) -> None:
        """Let a paused bot run again (call before its clock starts); safe to repeat, also unpaused."""

    @abstractmethod
    def kill(self) -> None:
        """Kill every process the bot started; safe to repeat."""

    def memory_exceeded(self) -> bool:
        """Whether the kernel killed something of the bot for exceeding its memory cap."""
        return False

    def close(self) -> None:
        """Kill the bot and release the pipes; safe to repeat."""
        self.kill()
        if self._closed:
            return
        self._closed = True
        for fd in (self.to_bot, self.from_bot, self.log, self.status):
            if fd < 0:
                continue
            try:
                os.close(fd)
            except OSError:
                pass

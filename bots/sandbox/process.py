"""The host's handle on one running bot, whatever started it (zygote, fresh interpreter, unsafe mode)."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod


class BotProcess(ABC):
    """Three pipes and a kill switch.

    ``to_bot`` carries protocol lines to the bot, ``from_bot`` brings its answers and ``log`` its
    standard output and error. All three are the host's ends, non-blocking. ``kill`` ends the bot's
    whole process tree and may be called any number of times.
    """

    def __init__(self, to_bot: int, from_bot: int, log: int) -> None:
        self.to_bot = to_bot
        self.from_bot = from_bot
        self.log = log
        for fd in (to_bot, from_bot, log):
            os.set_blocking(fd, False)
        self._closed = False

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
        for fd in (self.to_bot, self.from_bot, self.log):
            try:
                os.close(fd)
            except OSError:
                pass

"""Bot code on the worker, cached by sha256 so each version crosses the network once per worker.

Code reaches workers only through the database (no shared disk). A version's bytes never change for a
given checksum, so entries never go stale; the cache only bounds its size.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from ladder.services.uploads.bots import bot_code_by_sha256

# Enough for the active bots of every game; a bot is at most a few hundred KiB.
MAX_ENTRIES = 256


class CodeBytesCache:
    """A bounded, thread-safe LRU map from sha256 to code bytes, filled from the database on a miss."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._entries: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries
        self.hits = 0
        self.misses = 0

    def get_many(self, sha256s: list[str]) -> dict[str, bytes]:
        """The code for every checksum; one query for all the misses. KeyError if one is not stored."""
        found: dict[str, bytes] = {}
        with self._lock:
            for sha in sha256s:
                if sha in self._entries:
                    self._entries.move_to_end(sha)
                    found[sha] = self._entries[sha]
                    self.hits += 1
        missing = [sha for sha in dict.fromkeys(sha256s) if sha not in found]
        if missing:
            fetched = bot_code_by_sha256(sha256s=missing)
            absent = [sha for sha in missing if sha not in fetched]
            if absent:
                raise KeyError(f"no bot version with sha256 {absent}")
            with self._lock:
                for sha, code in fetched.items():
                    self._entries[sha] = code
                    self.misses += 1
                while len(self._entries) > self._max:
                    self._entries.popitem(last=False)
            found.update(fetched)
        return found


code_bytes_cache = CodeBytesCache()

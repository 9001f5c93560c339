"""A finished match's actions as one compressed value: the ``Match.actions_packed`` column.

The actions are most of a finished match's row (a two-player Kingdomino match's 48 actions are 834 bytes of
JSON, a five-player Draftosaurus match's 60 are 2.9 kB), and they repeat a few keys and small numbers, so
zlib takes them to a fifth or less. :func:`unpack` gives back exactly what :func:`pack` was given (any JSON
list).

Format: byte 0 is the version (1), then the zlib stream of the compact JSON text of the list (UTF-8).
"""

from __future__ import annotations

import json
import zlib

import orjson

__all__ = ["FORMAT_VERSION", "pack", "unpack"]

FORMAT_VERSION = 1
_LEVEL = 6


def pack(actions: list) -> bytes | None:
    """``actions`` (a JSON list) as one compressed value; ``None`` for no actions."""
    if not actions:
        return None
    return bytes([FORMAT_VERSION]) + zlib.compress(_compact_json(list(actions)), _LEVEL)


def _compact_json(actions: list) -> bytes:
    """``actions`` as compact JSON in UTF-8: orjson's (the same text as ``json.dumps`` with these separators
    for what an engine plays, and faster: a worker packs every match it plays), else ``json``'s for
    what orjson refuses (integers past 64 bits, lone surrogates, keys that are not text)."""
    try:
        return orjson.dumps(actions)
    except TypeError:  # orjson.JSONEncodeError is one
        return json.dumps(actions, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


def unpack(value: bytes | memoryview | None) -> list:
    """The actions :func:`pack` stored in ``value`` ([] for ``None``)."""
    if value is None:
        return []
    value = bytes(value)
    if not value or value[0] != FORMAT_VERSION:
        raise ValueError(f"not packed actions of a known version (first byte {value[:1]!r})")
    return json.loads(zlib.decompress(value[1:]).decode("utf-8", "surrogatepass"))

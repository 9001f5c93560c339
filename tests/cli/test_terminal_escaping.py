"""``botladder_cli.terminal``: the command's escaping agrees with ``manage.py play``'s on every code point,
and what :class:`Output` writes (text, progress, errors, JSON) holds no character a terminal obeys."""

from __future__ import annotations

import json
import sys

import pytest

from botladder_cli.terminal import Output, ascii_json_line, printable
from bots.terminal import printable as play_printable

HOSTILE = ["\x1b]0;title\x07", "\x1b[2J\x1b[H", "\x9b31m", "a\rb", "\x00\x7f\x85", "\u202eevil", "\u2028\u2029",
           "\udcff\ud800", "\t\n\x0b\x0c", "\U000e0001\ufeff\u200b", "plain text, é and 日本", "back\\slash 'q' \"d\""]


def _no_control(text: str) -> bool:
    return all(char.isprintable() or char == "\n" for char in text)


@pytest.mark.parametrize("text", HOSTILE)
def test_the_twins_agree_on_a_hostile_corpus(text):
    assert printable(text) == play_printable(text)
    assert printable(text).isprintable()


def test_the_twins_agree_on_every_code_point():
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    assert printable(everything) == play_printable(everything)


def test_output_text_progress_and_errors_hold_no_control(capsys):
    out = Output(as_json=False)
    out.result({}, [f"name {text}" for text in HOSTILE])
    out.progress(HOSTILE[0])
    out.error(HOSTILE)
    captured = capsys.readouterr()
    assert _no_control(captured.out) and _no_control(captured.err)
    # One line per line given: a newline in the server's text is shown, never a line it could forge.
    assert captured.out.count("\n") == len(HOSTILE) and captured.err.count("\n") == 1 + len(HOSTILE)
    assert captured.err.startswith("\\x1b]0;title\\x07\nbotladder: \\x1b]0;title\\x07\n")


def test_json_output_is_ascii_and_reads_back(capsys):
    Output(as_json=True).result({"names": HOSTILE}, ["not shown"])
    text = capsys.readouterr().out
    assert text.isascii() and _no_control(text)
    assert json.loads(text) == {"names": HOSTILE}


def test_a_json_line_of_the_server_is_kept_when_plain_and_escaped_otherwise():
    plain = b'{"id":1,"bot":"plain"}'
    assert ascii_json_line(plain) is plain
    raw = json.dumps({"id": 2, "bot": "\u202e\x9b\x7f"}, ensure_ascii=False).encode()
    escaped = ascii_json_line(raw)
    assert escaped.isascii() and all(32 <= byte < 127 for byte in escaped)
    assert json.loads(escaped) == json.loads(raw)

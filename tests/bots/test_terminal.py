"""``bots.terminal.printable``: what a bot or a file wrote reaches the terminal as text, never as commands."""

from __future__ import annotations

import pytest

from bots.terminal import printable


def test_plain_text_passes_unchanged_and_is_the_same_object():
    text = "ada's bot: 3 wins, 2 losses — naïve ünïcode ok"
    assert printable(text) is text


@pytest.mark.parametrize(("raw", "shown"), [
    ("\x1b[2J\x1b]0;owned\x07", "\\x1b[2J\\x1b]0;owned\\x07"),  # clear screen, window title, bell
    ("ok\rFAKE", "ok\\rFAKE"),  # a carriage return would overwrite the line
    ("a\tb\nc", "a\\tb\\nc"),  # one line out, whatever came in
    ("\x9b31m", "\\x9b31m"),  # a C1 CSI, an ESC sequence of its own to many terminals
    ("name\u202etxt.exe", "name\\u202etxt.exe"),  # a right-to-left override reorders what follows
    ("line\u2028break", "line\\u2028break"),
    ("\udcff", "\\udcff"),  # a lone surrogate (undecodable bytes read with surrogateescape)
    ("\U000e0001tag", "\\U000e0001tag"),  # a format character beyond the BMP
])
def test_every_control_and_format_character_is_escaped(raw, shown):
    assert printable(raw) == shown
    assert printable(raw).isprintable()


def test_backslashes_stay_as_written():
    assert printable("C:\\bots\\x1b") == "C:\\bots\\x1b"

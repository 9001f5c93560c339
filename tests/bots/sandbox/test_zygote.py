"""``bots.sandbox.zygote``: the host's side of the zygote sandbox.

Its argument checks, the control-channel readers (``_read_line``, a cell's ``take_shell``, the shell's
first message in ``_namespace_init``, a dead shell's last words) on socket pairs this test speaks for,
and one real sandbox of this module (skipped where the machine cannot isolate bots) playing the project's
benign first-legal-action bot: spawn, the protocol, limits data reused, describe, and nothing left over.
"""

from __future__ import annotations

import json
import os
import socket
import time

import pytest
from sandbox_helpers import FIRST_BOT

from bots.limits import Limits
from bots.sandbox import launch
from bots.sandbox.errors import SandboxFault
from bots.sandbox.zygote import ZygoteSandbox, _Cell, _namespace_init, _read_line, _shell_failure

START = b'{"type":"start","game":"race","seat":0,"players":2,"options":{}}\n'
ACT = b'{"type":"act","observation":{},"legal_actions":[4,5],"time_left_ms":1000}\n'


@pytest.mark.parametrize(("arguments", "message"), [({"mode": "forked"}, "unknown sandbox mode 'forked'"),
                                                    ({"pause": "later"}, "unknown pause mechanism 'later'")])
def test_unknown_modes_are_refused(tmp_path, arguments, message):
    with pytest.raises(ValueError, match=message):
        ZygoteSandbox(tmp_path, **arguments)


def test_a_sandbox_not_started_is_not_alive(tmp_path):
    box = ZygoteSandbox(tmp_path)
    assert not box.alive() and not box.unsafe and box.pause_mechanism == "none"
    box.close()


def test_read_line_returns_the_first_line_or_what_came_before_a_timeout_or_the_end():
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"first\nsecond\n")
        assert _read_line(read_end, 1) == b"first"
        os.write(write_end, b"partial")
        started = time.monotonic()
        assert _read_line(read_end, 0.05) == b"partial" and time.monotonic() - started < 1
        os.close(write_end)
        write_end = -1
        assert _read_line(read_end, 1) == b""
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


def seqpacket_pair() -> tuple[socket.socket, socket.socket]:
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)


def test_a_dead_shells_last_words_or_the_error_explain_its_failure():
    ours, theirs = seqpacket_pair()
    with ours, theirs:
        theirs.send(b"sandbox setup failed at 'mount': EPERM")
        assert _shell_failure(ours, OSError("gone")) == "sandbox setup failed at 'mount': EPERM"
        assert _shell_failure(ours, OSError("gone")) == "the prepared bot process is gone: gone"


def cell_with(channel: socket.socket) -> _Cell:
    return _Cell(number=1, pid=0, pidfd=-1, cgroup=None, channel=channel)


def test_a_cell_hands_over_its_shell_with_two_descriptors():
    ours, theirs = seqpacket_pair()
    shell_ours, shell_theirs = seqpacket_pair()
    read_end, write_end = os.pipe()
    with ours, theirs, shell_theirs:
        socket.send_fds(theirs, [json.dumps({"type": "shell", "pid": 4321}).encode()],
                        [shell_ours.fileno(), read_end])
        shell_ours.close()
        os.close(read_end)
        pid, shell, pidfd = cell_with(ours).take_shell()
        with shell:
            assert pid == 4321 and shell.type == socket.SOCK_SEQPACKET and pidfd >= 0
            shell_theirs.send(b"hello")
            assert shell.recv(10) == b"hello"
        os.close(pidfd)
        os.close(write_end)


@pytest.mark.parametrize(("send", "message"), [
    (lambda s: s.send(json.dumps({"type": "error", "message": "no pids left"}).encode()),
     "the sandbox could not prepare a bot: no pids left"),
    (lambda s: s.close(), "the sandbox's cell exited"),
])
def test_a_cell_that_cannot_make_a_shell_is_a_sandbox_fault(send, message):
    ours, theirs = seqpacket_pair()
    with ours:
        send(theirs)
        with pytest.raises(SandboxFault, match=message):
            cell_with(ours).take_shell()
        theirs.close()


def test_asking_a_gone_cell_to_prepare_is_harmless():
    ours, theirs = seqpacket_pair()
    theirs.close()
    with ours:
        cell_with(ours).prepare()


def test_the_namespace_init_comes_first_from_the_shell_else_its_message_is_the_fault():
    ours, theirs = seqpacket_pair()
    read_end, write_end = os.pipe()
    with ours, theirs:
        socket.send_fds(theirs, [launch.INIT_MESSAGE], [read_end])
        init = _namespace_init(ours, os.dup(write_end))
        os.write(write_end, b"x")
        assert os.read(init, 1) == b"x"
        os.close(init)
        theirs.send(b"sandbox setup failed at 'seccomp': EINVAL")
        with pytest.raises(SandboxFault, match="seccomp"):
            _namespace_init(ours, os.dup(write_end))
    os.close(read_end)
    os.close(write_end)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    from sandbox_helpers import skip_without_isolation

    from bots.sandbox import SandboxUnavailable

    try:
        box = ZygoteSandbox(tmp_path_factory.mktemp("zygote-cache"), pool_size=1).start()
    except SandboxUnavailable as exc:
        skip_without_isolation(exc)
    yield box
    box.close()
    assert not box.alive()


def test_a_benign_bot_plays_in_the_real_sandbox_and_leaves_nothing(sandbox):
    limits = Limits()
    assert sandbox.alive() and sandbox.describe().startswith("zygote sandbox: namespaces")
    bot = sandbox.spawn(FIRST_BOT, limits)
    try:
        os.set_blocking(bot.to_bot, True)
        os.write(bot.to_bot, START)
        assert b'"ready"' in _read_line(bot.from_bot, 10)
        os.write(bot.to_bot, ACT)
        assert _read_line(bot.from_bot, 10) == b'{"type":"action","action":4}'
        assert not bot.memory_exceeded()
    finally:
        bot.close()
    assert sandbox._limits_data(limits) is sandbox._limits_data(Limits())
    assert sandbox.wait_idle() and sandbox.leftovers() == []

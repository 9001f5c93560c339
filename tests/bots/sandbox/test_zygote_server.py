"""``bots.sandbox.zygote_server``: the zygote's own helpers that need no fork and no namespace.

The policy as the host sends it (``dataclasses.asdict`` over JSON) decoded back to the same
:class:`Policy` (and the zygote's own one kept when they are equal), the key a runtime root is made for,
the freezer files of a cell's groups and thawing them (on stand-in folders), and the control messages:
JSON with file descriptors.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket

from bots.sandbox.policy import CONTROL_MESSAGE_BYTES, Mount, Policy, Syscall, default_policy
from bots.sandbox.zygote_server import _freezer_files, _policy_from, _runtime_key, _thaw_all, send_message


def over_the_wire(policy: Policy) -> dict:
    return json.loads(json.dumps(dataclasses.asdict(policy)))


def test_the_hosts_policy_decodes_to_the_same_policy_and_an_equal_one_is_the_zygotes_own():
    current = default_policy()
    decoded = _policy_from(over_the_wire(current), current)
    assert decoded is current


def test_a_different_policy_is_decoded_in_full():
    current = default_policy()
    other = dataclasses.replace(current, mounts=(Mount("/a"), Mount("/b", target="/c", required=False)),
                                environment=(("LANG", "C"),), relocations=(("/x", "/y"),),
                                syscalls=(Syscall("read"), Syscall("futex", ((1, 128, 0),), errno=11)), stack_mb=4)
    decoded = _policy_from(over_the_wire(other), current)
    assert decoded == other and decoded is not current
    assert decoded.syscalls[1].when == ((1, 128, 0),) and isinstance(decoded.devices, tuple)


def test_the_runtime_key_names_what_a_root_depends_on():
    request = {"type": "cell", "mode": "zygote", "runtime_dir": "/r", "root_mount_point": "/m",
               "policy": {"b": 1, "a": [2]}, "cgroup_procs": ["x"]}
    key = _runtime_key(request)
    assert key == _runtime_key({**request, "type": "runtime", "cgroup_procs": []})
    assert json.loads(key) == ["zygote", "/r", "/m", {"a": [2], "b": 1}]
    assert key != _runtime_key({**request, "mode": "fresh"})
    assert key != _runtime_key({**request, "policy": {"b": 2, "a": [2]}})


def test_freezer_files_are_found_beside_each_groups_procs_and_thawed(tmp_path):
    v1, v2, none = tmp_path / "v1", tmp_path / "v2", tmp_path / "none"
    for folder in (v1, v2, none):
        folder.mkdir()
    (v1 / "freezer.state").write_text("FROZEN")
    (v2 / "cgroup.freeze").write_text("1")
    files = _freezer_files([str(folder / "cgroup.procs") for folder in (v1, v2, none)])
    assert files == [str(v1 / "freezer.state"), str(v2 / "cgroup.freeze")]
    _thaw_all([*files, str(tmp_path / "removed" / "cgroup.freeze")])
    assert (v1 / "freezer.state").read_text() == "THAWED" and (v2 / "cgroup.freeze").read_text() == "0"


def test_a_control_message_is_json_with_its_descriptors():
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    read_end, write_end = os.pipe()
    with ours, theirs:
        send_message(ours, {"type": "cell_ready", "pid": 7}, [read_end])
        send_message(ours, {"type": "pong"})
        message, fds, _, _ = socket.recv_fds(theirs, CONTROL_MESSAGE_BYTES, 2)
        assert json.loads(message) == {"type": "cell_ready", "pid": 7} and len(fds) == 1
        os.write(write_end, b"!")
        assert os.read(fds[0], 1) == b"!"
        os.close(fds[0])
        message, fds, _, _ = socket.recv_fds(theirs, CONTROL_MESSAGE_BYTES, 2)
        assert json.loads(message) == {"type": "pong"} and fds == []
    os.close(read_end)
    os.close(write_end)

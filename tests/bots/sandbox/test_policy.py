"""``bots.sandbox.policy``: the sandbox's confinement as data, checked without starting a sandbox.

The seccomp allowlist's shape (no overlapping rules of one name, int arguments compared on 32 bits,
namespace flags refused to clone), ``seccomp_rules`` adding the socket families, :class:`Mount`'s place
inside, and ``default_policy`` for this interpreter: what it mounts (the runtime, the allowed packages
under one neutral folder, the hidden folders empty) and what it leaves out (the project's virtualenv).
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections import defaultdict
from pathlib import Path

import pytest

from bots.sandbox.policy import (
    ALLOWED_PACKAGES,
    ALLOWED_SOCKET_FAMILIES,
    ALLOWED_SYSCALLS,
    BOT_DIR,
    DENIED_CLONE_FLAGS,
    EAGAIN,
    ENOSYS,
    PACKAGES_DIR,
    SHELL_SYSCALLS,
    UNUSABLE_STDLIB_FOLDERS,
    Mount,
    Policy,
    Syscall,
    _dedupe,
    _within,
    default_policy,
    rules_overlap,
    seccomp_rules,
)

ROOT = Path(__file__).resolve().parents[3]


def test_a_mount_is_shown_at_its_target_or_its_own_path():
    assert Mount("/usr/lib/x").inside == "/usr/lib/x"
    assert Mount("/venv/numpy", target="/opt/packages/numpy").inside == "/opt/packages/numpy"
    assert Mount("/a").required and not Mount("/a").empty and Mount("/a").link is None


def test_dedupe_keeps_the_first_mount_of_each_place_inside():
    first, second = Mount("/x", target="/t"), Mount("/y", target="/t")
    assert _dedupe([first, Mount("/z"), second]) == [first, Mount("/z")]


def test_within_means_the_folder_itself_or_below_it():
    assert _within("/usr/lib", ["/usr/lib"]) and _within("/usr/lib/a", ["/opt", "/usr/lib"])
    assert not _within("/usr/lib64", ["/usr/lib"]) and not _within("/usr", ["/usr/lib"])


def test_rules_of_one_name_never_overlap():
    by_name: dict[str, list[Syscall]] = defaultdict(list)
    for rule in ALLOWED_SYSCALLS:
        by_name[rule.name].append(rule)
    for name, rules in by_name.items():
        if len(rules) == 1:
            continue
        assert all(rule.when for rule in rules), f"{name}: an unconditional rule beside conditional ones"
        seen = set()
        for rule in rules:
            assert rule.when not in seen, f"{name}: the same condition twice"
            seen.add(rule.when)


def test_int_arguments_are_compared_on_their_low_32_bits():
    for name in ("fcntl", "ioctl", "madvise"):
        rules = [rule for rule in ALLOWED_SYSCALLS if rule.name == name]
        assert rules and all(rule.when[0][1] == 0xFFFF_FFFF for rule in rules)


def test_clone_refuses_every_namespace_flag_and_clone3_is_enosys():
    (clone,) = [rule for rule in ALLOWED_SYSCALLS if rule.name == "clone"]
    assert clone.when == ((0, DENIED_CLONE_FLAGS, 0),)
    for flag in (0x00020000, 0x10000000, 0x20000000, 0x40000000, 0x00000080):  # NEWNS, USER, PID, NET, TIME
        assert DENIED_CLONE_FLAGS & flag
    assert any(rule.name == "clone3" and rule.errno == ENOSYS for rule in ALLOWED_SYSCALLS)


def test_only_private_futexes_are_allowed_shared_ones_answer_eagain():
    futex = [rule for rule in ALLOWED_SYSCALLS if rule.name == "futex"]
    assert {(rule.when, rule.errno) for rule in futex} == {(((1, 128, 128),), None), (((1, 128, 0),), EAGAIN)}


@pytest.mark.parametrize("name", ["ptrace", "mount", "setuid", "bpf", "sysinfo", "statfs", "flock", "unshare",
                                  "process_vm_readv", "io_uring_setup"])
def test_calls_that_reach_beyond_the_bot_are_absent(name):
    assert name not in {rule.name for rule in ALLOWED_SYSCALLS}


def test_seccomp_rules_add_socket_and_socketpair_for_each_allowed_family():
    policy = Policy(mounts=(), python_path=(), python_executable="/x", allowed_socket_families=(1, 10))
    extra = seccomp_rules(policy)[len(policy.syscalls):]
    assert extra == (Syscall("socket", ((0, 0xFFFF_FFFF, 1),)), Syscall("socketpair", ((0, 0xFFFF_FFFF, 1),)),
                     Syscall("socket", ((0, 0xFFFF_FFFF, 10),)), Syscall("socketpair", ((0, 0xFFFF_FFFF, 10),)))
    assert ALLOWED_SOCKET_FAMILIES == (1,)


def test_policy_defaults_deny_by_default():
    policy = Policy(mounts=(), python_path=(), python_executable="/x")
    assert policy.environment == () and policy.bot_dir == BOT_DIR and policy.tmp_dir == "/tmp"
    assert policy.syscalls is ALLOWED_SYSCALLS and policy.inner_id != 0
    assert policy.host_uid_base + policy.host_uid_span < 2 ** 32


def test_the_default_policy_shows_the_runtime_and_the_allowed_packages_only():
    policy = default_policy()
    assert default_policy() is policy
    insides = {mount.inside for mount in policy.mounts}
    stdlib = str(Path(sysconfig.get_paths()["stdlib"]).resolve())
    assert stdlib in insides and os.path.realpath(policy.python_executable) in insides | {policy.python_executable}
    assert policy.python_path[0] == stdlib and policy.python_path[-1] == PACKAGES_DIR
    for package in ALLOWED_PACKAGES:
        assert f"{PACKAGES_DIR}/{package}" in insides
    venv = str(Path(sys.prefix).resolve())
    if venv != str(Path(sys.base_prefix).resolve()):
        shown = [m.path for m in policy.mounts if m.target is None and m.link is None and not m.empty]
        assert not any(_within(path, [venv]) for path in shown)
    # The project's own files are never shown, only the packages a bot may import (which sit in the
    # virtualenv, itself often inside the checkout).
    assert not [mount.path for mount in policy.mounts
                if _within(mount.path, [str(ROOT)]) and not _within(mount.path, [venv])]


def test_the_default_policy_hides_the_stdlibs_packages_and_unusable_folders():
    policy = default_policy()
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    empty = {mount.path for mount in policy.mounts if mount.empty}
    for name in ("site-packages", *UNUSABLE_STDLIB_FOLDERS):
        folder = stdlib / name
        if folder.is_dir() and not folder.is_symlink():
            assert str(folder) in empty
    assert all(not mount.required for mount in policy.mounts if mount.empty)
    # Modules the zygote preloads from the packages' host folder are re-pointed at the neutral folder.
    assert policy.relocations and all(inside == PACKAGES_DIR for _, inside in policy.relocations)


def test_rules_overlap_when_one_call_can_meet_both():
    prctl_22 = Syscall("prctl", ((0, 0xFFFF_FFFF, 22),))
    assert rules_overlap(Syscall("mount"), Syscall("mount"))
    assert not rules_overlap(Syscall("mount"), Syscall("umount2"))
    assert rules_overlap(Syscall("prctl"), prctl_22)  # an unconditional rule meets every call
    assert not rules_overlap(prctl_22, Syscall("prctl", ((0, 0xFFFF_FFFF, 38),)))
    # Tests of different arguments: a call can meet both.
    assert rules_overlap(prctl_22, Syscall("prctl", ((1, 0xFFFF_FFFF, 4),)))
    # Different values, but not in the bits both look at.
    assert rules_overlap(Syscall("clone", ((0, 0xF0, 0x10),)), Syscall("clone", ((0, 0x0F, 0x01),)))


def test_the_shells_calls_are_none_a_bot_is_allowed():
    for shell_rule in SHELL_SYSCALLS:
        assert not any(rules_overlap(shell_rule, rule) for rule in seccomp_rules(default_policy())), shell_rule

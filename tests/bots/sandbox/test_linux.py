"""``bots.sandbox.linux``: the ctypes wrappers the sandbox needs, tested only where they cannot change
this process or the machine: the constants against the kernel's values, errors raised as ``OSError`` with
the call's name and errno, the read-only queries (parent-death signal, capabilities, no_new_privs), and
the seccomp filter compiled (never installed) from a few rules.
"""

from __future__ import annotations

import errno
import os
import struct

import pytest

from bots.sandbox import linux

BPF_RET = 0x06


def test_the_constants_are_the_kernels():
    assert linux.CLONE_NEWUSER == 0x10000000 and linux.CLONE_NEWPID == 0x20000000
    assert linux.CLONE_NEWNET == 0x40000000 and linux.CLONE_NEWNS == 0x00020000
    for name in ("CLONE_NEWNS", "CLONE_NEWUSER", "CLONE_NEWPID", "CLONE_NEWNET", "CLONE_NEWUTS", "CLONE_NEWIPC",
                 "CLONE_NEWCGROUP"):
        if hasattr(os, name):
            assert getattr(linux, name) == getattr(os, name)
    assert (linux.MS_RDONLY, linux.MS_BIND, linux.MS_REC, linux.MS_PRIVATE) == (1, 4096, 16384, 262144)
    assert linux.SCMP_ACT_ERRNO(linux.EPERM) == 0x00050001 and linux.SCMP_ACT_ERRNO(0x12345) == 0x00052345


def test_a_failing_call_raises_os_error_with_its_name_and_errno():
    with pytest.raises(OSError) as caught:
        linux.setns(-1, linux.CLONE_NEWNET)
    assert caught.value.errno == errno.EBADF and "setns(0x40000000)" in caught.value.strerror
    with pytest.raises(OSError) as caught:
        linux.mount(None, "/nonexistent/botladder-test-target", "tmpfs", 0)
    assert caught.value.errno == errno.ENOENT and "mount tmpfs on /nonexistent/botladder-test-target" in str(caught.value)
    with pytest.raises(OSError, match="umount /nonexistent/botladder-test-target"):
        linux.umount2("/nonexistent/botladder-test-target", 0)
    with pytest.raises(OSError, match=r"prctl\(9999\)"):
        linux.prctl(9999)


def test_read_only_queries_of_this_process():
    assert linux.parent_death_signal() >= 0
    assert linux.prctl(linux.PR_GET_NO_NEW_PRIVS) in (0, 1)
    assert linux.prctl(linux.PR_GET_DUMPABLE) in (0, 1, 2)
    effective, permitted = linux.capabilities()
    assert effective & ~permitted == 0  # nothing is effective that is not permitted
    needed = (1 << linux.CAP_SYS_ADMIN) | (1 << linux.CAP_SETUID) | (1 << linux.CAP_SETGID)
    assert linux.privileged() == (os.geteuid() == 0 and effective & needed == needed)


def test_load_seccomp_is_none_for_a_library_that_is_not_there():
    assert linux.load_seccomp("no-such-library-botladder") is None
    assert linux.load_seccomp("/nonexistent/libseccomp.so") is None


def returns(program: bytes) -> set[int]:
    """The values of a classic BPF program's return instructions."""
    instructions = [struct.unpack_from("<HBBI", program, offset) for offset in range(0, len(program), 8)]
    return {k for code, _, _, k in instructions if code == BPF_RET}


def test_a_compiled_filter_allows_the_rules_refuses_the_rest_and_kills_foreign_abis():
    lib = linux.load_seccomp()
    if lib is None:
        pytest.skip("libseccomp is not installed")
    rules = [("read", (), None), ("write", ((0, 0xFFFF_FFFF, 1),), None), ("clone3", (), 38),
             ("no_such_call_here", (), None)]
    program = linux.compile_seccomp(lib, rules)
    assert program and len(program) % 8 == 0
    assert returns(program) >= {linux.SCMP_ACT_ALLOW, linux.SCMP_ACT_ERRNO(linux.EPERM), linux.SCMP_ACT_ERRNO(38),
                                linux.SCMP_ACT_KILL_PROCESS}
    assert linux.compile_seccomp(lib, rules) == program  # the same rules, the same program
    assert linux.SCMP_ACT_ERRNO(38) not in returns(linux.compile_seccomp(lib, rules[:2]))


def test_libseccomp_errors_are_os_errors_with_the_step():
    with pytest.raises(OSError) as caught:
        linux._check_seccomp(-errno.EINVAL, "rule x")
    assert caught.value.errno == errno.EINVAL and "seccomp rule x" in str(caught.value)
    linux._check_seccomp(0, "fine")

"""``bots.sandbox.root_filesystem``: the parts of building a bot's files that need no namespace and mount
nothing, run in the test process on temporary folders.

``runtime_mounts`` (the plan of the shared root: kinds, order, symlinks reproduced, required paths failing
closed), copying a bot's code (``copy_tree``: modes, symlinks never followed) and the runtime into memory
(``_MemoryRootBuilder`` with nothing large enough to bind), and the mount flags a bind remount must repeat.
Mounting is left to the sandbox tests that play benign bots.
"""

from __future__ import annotations

import os
import stat
import sys

import pytest

from bots.sandbox import linux, root_filesystem
from bots.sandbox.policy import Mount, Policy, default_policy
from bots.sandbox.root_filesystem import _MemoryRootBuilder, copy_tree, runtime_mounts


def policy_of(*mounts: Mount, devices: tuple[str, ...] = ("/dev/null",)) -> Policy:
    return Policy(mounts=mounts, python_path=(), python_executable=sys.executable, devices=devices)


def test_the_plan_keeps_the_policys_order_and_adds_the_devices(tmp_path):
    folder, file = tmp_path / "lib", tmp_path / "lib.so"
    folder.mkdir()
    file.write_bytes(b"\x7fELF")
    plan = runtime_mounts("zygote", "/unused", policy_of(Mount(str(folder)), Mount(str(file)),
                                                         Mount(str(folder / "hidden"), required=False, empty=True)))
    assert plan == [("dir", str(folder), str(folder)), ("file", str(file), str(file)),
                    ("file", "/dev/null", "/dev/null")]


def test_an_empty_mount_hides_a_folder_that_exists(tmp_path):
    (tmp_path / "site-packages").mkdir()
    plan = runtime_mounts("zygote", "/unused", policy_of(Mount(str(tmp_path)),
                                                         Mount(str(tmp_path / "site-packages"), empty=True)))
    assert ("empty", str(tmp_path / "site-packages"), str(tmp_path / "site-packages")) in plan


def test_the_fresh_mode_also_shows_the_sdk_runtime(tmp_path):
    plan = runtime_mounts("fresh", str(tmp_path), policy_of(devices=()))
    assert plan == [("dir", str(tmp_path), "/sdk")]


def test_a_missing_required_path_fails_closed_and_a_missing_optional_one_is_skipped(tmp_path):
    with pytest.raises(FileNotFoundError, match="required runtime path .*gone is missing"):
        runtime_mounts("zygote", "/unused", policy_of(Mount(str(tmp_path / "gone"))))
    assert runtime_mounts("zygote", "/unused", policy_of(Mount(str(tmp_path / "gone"), required=False),
                                                         devices=())) == []


def test_a_path_through_a_symlinked_folder_is_shown_at_its_real_place_with_the_link_reproduced(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "libz.so").write_bytes(b"z")
    (tmp_path / "alias").symlink_to("real")
    plan = runtime_mounts("zygote", "/unused", policy_of(Mount(str(tmp_path / "alias" / "libz.so")), devices=()))
    assert plan == [("symlink", "real", str(tmp_path / "alias")), ("file", str(real / "libz.so"), str(real / "libz.so"))]


def test_a_target_mount_is_shown_there_from_its_real_source(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "link").symlink_to("pkg")
    plan = runtime_mounts("zygote", "/unused", policy_of(Mount(str(tmp_path / "link"), target="/opt/packages/x"),
                                                         devices=()))
    assert plan == [("dir", str(tmp_path / "pkg"), "/opt/packages/x")]


def test_the_default_policy_plans_every_target_once_and_only_real_places():
    plan = runtime_mounts("zygote", "/unused", default_policy())
    targets = [target for _, _, target in plan]
    assert len(targets) == len(set(targets))
    for kind, source, target in plan:
        if kind in ("dir", "file") and not target.startswith("/opt/packages"):
            assert os.path.realpath(os.path.dirname(target)) == os.path.dirname(target)


def make_code(folder):
    (folder / "pkg").mkdir()
    (folder / "bot.py").write_text("def act(o, l):\n    return l[0]\n")
    (folder / "pkg" / "data.txt").write_text("data")
    os.chmod(folder / "pkg" / "data.txt", 0o666)
    os.chmod(folder / "bot.py", 0o4755)
    (folder / "outside").symlink_to("/etc/passwd")


def test_copying_code_keeps_files_and_folders_drops_write_for_others_and_never_follows_links(tmp_path):
    source, target = tmp_path / "source", tmp_path / "target"
    source.mkdir()
    target.mkdir()
    make_code(source)
    mask = os.umask(0o022)
    fd = os.open(source, os.O_RDONLY | os.O_DIRECTORY)
    try:
        copy_tree(fd, str(target))
    finally:
        os.close(fd)
        os.umask(mask)
    assert (target / "bot.py").read_text() == (source / "bot.py").read_text()
    assert (target / "pkg" / "data.txt").read_text() == "data"
    assert stat.S_IMODE((target / "pkg" / "data.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE((target / "bot.py").stat().st_mode) == 0o755  # no set-id bit
    assert (target / "outside").is_symlink() and os.readlink(target / "outside") == "/etc/passwd"


def test_the_memory_root_copies_the_runtime_leaving_out_hidden_folders_and_unserved_files(tmp_path):
    runtime, root = tmp_path / "runtime", tmp_path / "root"
    (runtime / "stdlib" / "site-packages").mkdir(parents=True)
    (runtime / "stdlib" / "site-packages" / "secret.py").write_text("x")
    (runtime / "stdlib" / "os.py").write_text("os")
    (runtime / "stdlib" / "os.cpython-311.opt-1.pyc").write_bytes(b"opt")
    os.utime(runtime / "stdlib" / "os.py", ns=(1_000_000_000, 2_000_000_000))
    (runtime / "python").write_bytes(b"\x7fELF" * 100)
    root.mkdir()
    stdlib = str(runtime / "stdlib")
    builder = _MemoryRootBuilder(str(root), {str(root) + stdlib + "/site-packages"}, (), (".opt-1.pyc",),
                                 float("inf"))
    mask = os.umask(0o022)
    try:
        builder.add("dir", stdlib, stdlib)
        builder.add("file", str(runtime / "python"), str(runtime / "python"))
        builder.add("symlink", "python", str(runtime / "python3"))
        builder.add("empty", "", str(runtime / "empty"))
    finally:
        os.umask(mask)
    inside = root / str(runtime).lstrip("/")
    assert (inside / "stdlib" / "os.py").read_text() == "os"
    assert (inside / "stdlib" / "os.py").stat().st_mtime_ns == 2_000_000_000  # bytecode stays valid
    assert not (inside / "stdlib" / "os.cpython-311.opt-1.pyc").exists()
    assert (inside / "stdlib" / "site-packages").is_dir() and not list((inside / "stdlib" / "site-packages").iterdir())
    assert os.readlink(inside / "python3") == "python" and (inside / "empty").is_dir()
    assert (builder.files, builder.bytes, builder.bound) == (2, 2 + 400, {})
    assert builder.memory == 2 * os.sysconf("SC_PAGE_SIZE")


def test_mount_flags_are_read_from_the_mount(tmp_path):
    flags = root_filesystem._mount_flags_of(str(tmp_path))
    allowed = (linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC | linux.MS_NOATIME | linux.MS_NODIRATIME
               | linux.MS_RELATIME)
    assert flags & ~allowed == 0
    assert bool(flags & linux.MS_NOSUID) == bool(os.statvfs(tmp_path).f_flag & os.ST_NOSUID)

"""``bots.sandbox.cgroups``: the pure parts of the per-bot control groups, on plain folders standing in
for cgroup folders (nothing is written under /sys/fs/cgroup and no process is signalled).

The limits each hierarchy gets (v2 files, v1 memory/pids/cpu folders) and their rewrite only on change,
OOM-kill counts parsed from memory.events / memory.oom_control, the freezer's files, the folder locks that
say whose groups these are, and :class:`Cgroups` making one group per bot under its parents. The real
kernel groups are exercised through the sandbox in ``test_cgroup_ownership.py`` and ``test_freeze.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bots.limits import Limits
from bots.sandbox.cgroups import (
    PARENT_PREFIX,
    BotCgroup,
    Cgroups,
    _abandoned,
    _claim,
    _oom_kill_count,
    _thaw,
    _write,
)

LIMITS = Limits(memory_mb=256, tmp_mb=16, max_processes=16)
MIB = 1024 * 1024


def files(directory: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(directory.iterdir()) if path.is_file()}


def test_v2_limits_cap_memory_with_tmp_and_headroom_pids_and_one_cpu(tmp_path):
    group = BotCgroup([tmp_path], tmp_path, 2)
    group.apply(LIMITS, extra_processes=2, headroom_mb=32)
    assert files(tmp_path) == {"memory.max": str((256 + 16 + 32) * MIB), "memory.swap.max": "0",
                               "pids.max": "18", "cpu.max": "100000 100000"}


def test_v1_limits_go_to_the_hierarchy_each_folder_belongs_to(tmp_path):
    memory, pids, cpu = (tmp_path / name for name in ("memory", "pids", "cpu"))
    for folder, marker in ((memory, "memory.limit_in_bytes"), (pids, "pids.max"), (cpu, "cpu.cfs_quota_us")):
        folder.mkdir()
        (folder / marker).write_text("")
    (memory / "memory.memsw.limit_in_bytes").write_text("")
    group = BotCgroup([memory, pids, cpu], memory, 1)
    group.apply(LIMITS, headroom_mb=0)
    total = str((256 + 16) * MIB)
    assert files(memory) == {"memory.limit_in_bytes": total, "memory.memsw.limit_in_bytes": total}
    assert files(pids) == {"pids.max": "16"}
    assert files(cpu) == {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "100000"}


def test_limits_are_rewritten_only_when_they_change(tmp_path):
    group = BotCgroup([tmp_path], tmp_path, 2)
    group.apply(LIMITS, headroom_mb=32)
    (tmp_path / "pids.max").write_text("changed behind our back")
    group.apply(LIMITS, headroom_mb=32)
    assert (tmp_path / "pids.max").read_text() == "changed behind our back"
    group.apply(Limits(memory_mb=256, tmp_mb=16, max_processes=4), headroom_mb=32)
    assert (tmp_path / "pids.max").read_text() == "4"


def test_a_failed_write_is_redone_in_full_next_time(tmp_path):
    missing = tmp_path / "gone"
    group = BotCgroup([missing], None, 2)
    with pytest.raises(OSError):
        group.apply(LIMITS, headroom_mb=0)
    missing.mkdir()
    group.apply(LIMITS, headroom_mb=0)
    assert (missing / "memory.max").exists()


@pytest.mark.parametrize(("raw", "count"), [
    (b"low 0\nhigh 0\nmax 3\noom 2\noom_kill 2\noom_group_kill 0\n", 2),
    (b"oom_kill_disable 0\nunder_oom 0\noom_kill 5\n", 5),
    (b"low 0\n", 0), (b"", 0),
])
def test_oom_kill_counts_are_read_from_either_format(raw, count):
    assert _oom_kill_count(raw) == count


def test_oom_kills_are_re_read_in_place_from_the_memory_group(tmp_path):
    events = tmp_path / "memory.events"
    events.write_text("oom 0\noom_kill 0\n")
    group = BotCgroup([tmp_path], tmp_path, 2)
    assert group.oom_kills() == 0 and not group.oom_killed()
    events.write_text("oom 1\noom_kill 1\n")
    assert group.oom_kills() == 1 and group.oom_killed()
    events.write_text("oom 0\noom_kill 0\n")
    assert group.oom_killed()  # once killed, always known
    assert BotCgroup([tmp_path], None, 2).oom_kills() == 0
    group.kill_and_remove(timeout_s=0.1)  # closes the descriptor it kept; no cgroup.procs, nothing to kill


@pytest.mark.parametrize(("version", "name", "frozen", "thawed"), [(2, "cgroup.freeze", "1", "0"),
                                                                   (1, "freezer.state", "FROZEN", "THAWED")])
def test_the_freezer_writes_its_file_and_reads_it_back(tmp_path, version, name, frozen, thawed):
    (tmp_path / name).write_text(thawed)
    group = BotCgroup([tmp_path], None, version, freezer_dir=tmp_path)
    assert not group.frozen_on_disk()
    os.truncate(tmp_path / name, 0)
    group.freeze()
    assert group.frozen and (tmp_path / name).read_text() == frozen and group.frozen_on_disk()
    group.thaw()
    # One descriptor kept open for every write (a cgroup file takes each write whole; a plain file appends).
    assert not group.frozen and (tmp_path / name).read_text() == frozen + thawed
    group.kill_and_remove(timeout_s=0.1)


def test_without_a_freezer_freezing_is_an_os_error(tmp_path):
    group = BotCgroup([tmp_path], None, 2)
    with pytest.raises(OSError, match="no freezer"):
        group.freeze()
    assert group.frozen and not group.frozen_on_disk()  # believed frozen: a thaw is still tried later


def test_procs_files_and_pids_of_empty_stand_ins(tmp_path):
    group = BotCgroup([tmp_path / "a", tmp_path / "b"], None, 2)
    assert group.procs_files == [str(tmp_path / "a" / "cgroup.procs"), str(tmp_path / "b" / "cgroup.procs")]
    assert group.pids() == set() and group.bot_pids() == set()


def test_thaw_and_optional_writes(tmp_path):
    (tmp_path / "freezer.state").write_text("FROZEN")
    _thaw(tmp_path)
    assert (tmp_path / "freezer.state").read_text() == "THAWED" and not (tmp_path / "cgroup.freeze").exists()
    _write(tmp_path / "missing" / "x", "1", optional=True)
    with pytest.raises(OSError):
        _write(tmp_path / "missing" / "x", "1")


def test_a_claimed_folder_is_locked_until_its_descriptor_closes(tmp_path):
    parent = tmp_path / (PARENT_PREFIX + "1-abc")
    fd = _claim(parent)
    try:
        assert parent.is_dir() and _abandoned(parent) is None
    finally:
        os.close(fd)
    again = _abandoned(parent)
    assert again is not None
    os.close(again)
    assert _abandoned(tmp_path / "never-made") is None


def test_cgroups_make_one_group_per_bot_under_each_parent_and_remove_them(tmp_path):
    cgroups = Cgroups(1)
    try:
        for controller in ("memory", "pids", "freezer"):
            (tmp_path / controller).mkdir()
            cgroups.claim(controller, tmp_path / controller / (PARENT_PREFIX + "t"))
        assert cgroups.can_freeze and cgroups.describe() == "cgroup v1 (memory, pids, freezer)"
        first, second = cgroups.create(), cgroups.create()
        assert first.dirs[0].name != second.dirs[0].name and first.dirs[0].name.startswith("bot-")
        assert first.memory_dir == first.dirs[0] and first.freezer_dir == first.dirs[2]
        assert [d.parent for d in first.dirs] == list(cgroups.parents.values())
        # Real bot groups vanish when emptied; these stand-ins are removed by hand.
        for directory in first.dirs + second.dirs:
            directory.rmdir()
    finally:
        cgroups.close()
    assert not any((tmp_path / controller / (PARENT_PREFIX + "t")).exists() for controller in ("memory", "pids"))
    cgroups.close()  # safe to repeat


def test_v2_groups_freeze_only_where_the_kernel_offers_cgroup_freeze(tmp_path):
    cgroups = Cgroups(2)
    try:
        parent = tmp_path / (PARENT_PREFIX + "v2")
        cgroups.claim("", parent)
        assert not cgroups.can_freeze and cgroups.describe() == "cgroup v2 (unified)"
        group = cgroups.create()
        assert group.memory_dir == group.dirs[0] and group.freezer_dir is None
        (parent / "cgroup.freeze").write_text("0")
        assert cgroups.can_freeze
        group.kill_and_remove(timeout_s=0.1)
        (parent / "cgroup.freeze").unlink()
        for child in parent.iterdir():
            child.rmdir()
    finally:
        cgroups.close()

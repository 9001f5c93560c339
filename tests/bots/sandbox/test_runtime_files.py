"""The runtime files a bot's root needs: ELF headers read right, libraries found as the bot's loader finds
them, symlinks followed as the kernel follows them. Checked against ``readelf``/``ldd`` on this machine's
own interpreter and libraries, and against symlinks made in a temporary folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from bots.sandbox import runtime_files
from bots.sandbox.policy import PACKAGES_DIR, default_policy

DYNLOAD = sysconfig.get_config_var("DESTSHARED")


def _readelf_dynamic(path: str) -> tuple[list[str], list[str]]:
    """(NEEDED names, RUNPATH or RPATH entries) as binutils' readelf lists them."""
    listing = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    needed, search = [], []
    for line in listing.splitlines():
        if "(NEEDED)" in line:
            needed.append(line.split("[", 1)[1].rstrip("]"))
        elif "(RUNPATH)" in line or "(RPATH)" in line:
            search += line.split("[", 1)[1].rstrip("]").split(":")
    return needed, search


@pytest.mark.skipif(shutil.which("readelf") is None, reason="binutils' readelf is not installed")
def test_dynamic_sections_read_like_readelf():
    import numpy

    objects = [os.path.realpath(sys.executable), *runtime_files.shared_objects(DYNLOAD)[:20],
               *runtime_files.shared_objects(str(Path(numpy.__file__).parent / "_core"))]
    for path in objects:
        found = runtime_files.read_elf(path)
        needed, search = _readelf_dynamic(path)
        assert list(found.needed) == needed, path
        assert list(found.runpath or found.rpath) == search, path


def test_the_interpreter_names_its_loader_and_text_is_not_elf(tmp_path):
    interpreter = runtime_files.read_elf(os.path.realpath(sys.executable))
    assert interpreter.interpreter and os.path.exists(interpreter.interpreter)
    (tmp_path / "notes.so").write_text("not an ELF file")
    (tmp_path / "short.so").write_bytes(b"\x7fELF\x02")
    assert runtime_files.read_elf(str(tmp_path / "notes.so")) is None
    assert runtime_files.read_elf(str(tmp_path / "short.so")) is None
    assert runtime_files.read_elf(str(tmp_path / "missing.so")) is None


def test_the_loader_names_its_own_search_folders():
    loader = runtime_files.read_elf(os.path.realpath(sys.executable)).interpreter
    folders = runtime_files.system_search_dirs(loader)
    assert folders and all(folder.startswith("/") for folder in folders)
    libc = [folder for folder in folders if os.path.exists(os.path.join(folder, "libc.so.6"))]
    assert libc, f"libc.so.6 is in none of {folders}"


@pytest.mark.skipif(shutil.which("ldd") is None, reason="ldd is not installed")
def test_the_closure_holds_what_ldd_lists():
    """Real paths equal to ldd's, which resolves through the host's cache: on this machine the two ways
    of looking agree, so nothing the bot loads is left out, and nothing else is put in."""
    objects = [os.path.realpath(sys.executable), *runtime_files.shared_objects(DYNLOAD)]
    loader = runtime_files.read_elf(objects[0]).interpreter
    closure = runtime_files.library_closure(objects, loader)
    expected = set()
    for path in objects:
        for line in subprocess.run(["ldd", path], capture_output=True, text=True, check=False).stdout.splitlines():
            words = line.split()
            if "=>" in words and words[-1].startswith("(") and words[words.index("=>") + 1].startswith("/"):
                expected.add(os.path.realpath(words[words.index("=>") + 1]))
            elif words and words[0].startswith("/"):
                expected.add(os.path.realpath(words[0]))
    assert closure.missing == ()
    assert {os.path.realpath(path) for path in closure.libraries} == expected


def test_a_package_s_bundled_libraries_are_found_through_its_origin():
    import numpy

    core = Path(numpy.__file__).parent / "_core"
    module = runtime_files.read_elf(str(next(core.glob("_multiarray_umath*.so"))))
    loader = runtime_files.read_elf(os.path.realpath(sys.executable)).interpreter
    bundled = [name for name in module.needed if "openblas" in name]
    if not bundled:
        pytest.skip("this numpy links no bundled OpenBLAS")
    found = runtime_files.find_library(bundled[0], module, runtime_files.system_search_dirs(loader))
    assert Path(found.path).parent.resolve() == (Path(numpy.__file__).parent.parent / "numpy.libs").resolve()


def test_symlinks_are_followed_as_the_kernel_follows_them(tmp_path):
    real = tmp_path / "usr" / "lib" / "arch"
    real.mkdir(parents=True)
    (real / "libz.so.1.2.13").write_bytes(b"")
    (real / "libz.so.1").symlink_to("libz.so.1.2.13")
    (tmp_path / "lib").symlink_to("usr/lib")
    (tmp_path / "lib64").symlink_to(str(tmp_path / "lib" / "arch"))
    (real / "up").symlink_to("../arch/./libz.so.1")
    links, path = runtime_files.symlink_chain(str(tmp_path / "lib64" / "up"))
    assert path == str(real / "libz.so.1.2.13") == os.path.realpath(tmp_path / "lib64" / "up")
    assert links == [(str(tmp_path / "lib64"), str(tmp_path / "lib" / "arch")),
                     (str(tmp_path / "lib"), "usr/lib"),
                     (str(real / "up"), "../arch/./libz.so.1"),
                     (str(real / "libz.so.1"), "libz.so.1.2.13")]
    for where, _ in links:
        assert os.path.realpath(os.path.dirname(where)) == os.path.dirname(where)
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(OSError, match="too many levels"):
        runtime_files.symlink_chain(str(tmp_path / "loop"))


def test_the_policy_shows_packages_only_at_their_neutral_folder_and_hides_site_packages():
    policy = default_policy()
    in_place = [mount.path for mount in policy.mounts if mount.target is None and not mount.empty]
    assert not [path for path in in_place if {"site-packages", "dist-packages"} & set(Path(path).parts)]
    assert all(mount.target.startswith(PACKAGES_DIR + "/") for mount in policy.mounts if mount.target)
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    if (stdlib / "site-packages").is_dir():
        assert str(stdlib / "site-packages") in [mount.path for mount in policy.mounts if mount.empty]

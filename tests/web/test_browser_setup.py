"""Without Chromium the browser tests skip with the install command, except under CI, where they fail."""

from __future__ import annotations

import pytest

from tests.web import conftest


@pytest.fixture
def no_chromium(monkeypatch, tmp_path):
    monkeypatch.setattr(conftest, "CHROMIUM", str(tmp_path / "chromium"))
    monkeypatch.setenv("PATH", str(tmp_path))


def test_missing_chromium_skips_with_the_install_command(no_chromium, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y chromium chromium-driver"):
        conftest.chromium_or_skip()


def test_missing_chromium_fails_under_ci(no_chromium, monkeypatch):
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        conftest.chromium_or_skip()

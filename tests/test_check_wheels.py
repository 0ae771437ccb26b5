"""The wheel check itself: it must fail on a missing wheel, accept only listed exceptions (after
checking that their source exists), and notice an exception that has become unnecessary.

These ask the package registry (pip's resolver with ``--dry-run``), a few seconds each.
"""

from __future__ import annotations

import importlib.util
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("check_wheels", ROOT / "scripts/check_wheels.py")
check_wheels = importlib.util.module_from_spec(_spec)
sys.modules["check_wheels"] = check_wheels  # dataclasses look their module up there
_spec.loader.exec_module(check_wheels)

MAC_314 = ("macOS arm64", "3.14")
WATCHDOG = check_wheels.KnownException("watchdog", "test", "test")


@pytest.fixture
def watchdog_only(tmp_path) -> Path:
  """A requirements file pinning the one package known to lack a macOS 3.14 wheel."""
  path = tmp_path / "requirements.txt"
  path.write_text("watchdog==6.0.0\n")
  return path


def test_pinned_requirements_skip_the_editable_course_and_comments(tmp_path):
  path = tmp_path / "requirements.txt"
  path.write_text("# pinned\npandas==3.1.1  # data\n\n-e .\nnbval==0.11.0\n")
  assert check_wheels.pinned_requirements(path) == ["pandas==3.1.1", "nbval==0.11.0"]


def test_the_project_pins_every_requirement():
  """An unpinned line would let the wheel check and a student's install disagree."""
  for line in check_wheels.pinned_requirements(ROOT / "requirements.txt"):
    assert "==" in line, f"requirements.txt: {line!r} is not pinned"
  assert not any(line.startswith("pgserver")
                 for line in check_wheels.pinned_requirements(ROOT / "requirements.txt"))


def test_a_missing_wheel_fails_when_it_is_not_a_known_exception(watchdog_only, monkeypatch):
  monkeypatch.setattr(check_wheels, "KNOWN_EXCEPTIONS", {})
  outcome = check_wheels.check_one(watchdog_only, *MAC_314)
  assert not outcome.ok
  assert "no wheel for watchdog" in outcome.problems[0]


def test_a_known_exception_passes_as_a_source_build(watchdog_only, monkeypatch):
  monkeypatch.setattr(check_wheels, "KNOWN_EXCEPTIONS", {MAC_314: (WATCHDOG,)})
  outcome = check_wheels.check_one(watchdog_only, *MAC_314)
  assert outcome.ok, outcome.problems
  assert outcome.source_builds == ["watchdog==6.0.0"]


def test_an_exception_that_now_has_a_wheel_is_reported(watchdog_only, monkeypatch):
  monkeypatch.setattr(check_wheels, "KNOWN_EXCEPTIONS", {("macOS arm64", "3.13"): (WATCHDOG,)})
  outcome = check_wheels.check_one(watchdog_only, "macOS arm64", "3.13")
  assert not outcome.ok
  assert "now has a wheel" in outcome.problems[0]


def test_the_stand_in_wheel_carries_name_and_version_only(tmp_path):
  spec = check_wheels._stand_in_wheel(tmp_path, "watchdog-6.0.0.tar.gz")
  assert spec == "watchdog==6.0.0"
  (wheel,) = tmp_path.glob("*.whl")
  assert wheel.name == "watchdog-6.0.0-py3-none-any.whl"
  with zipfile.ZipFile(wheel) as package:
    metadata = package.read("watchdog-6.0.0.dist-info/METADATA").decode()
  assert "Name: watchdog" in metadata and "Version: 6.0.0" in metadata

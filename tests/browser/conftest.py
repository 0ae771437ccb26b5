"""Chromium for the browser tests: Debian's package driven by Playwright (browser downloads are
not possible here). ``scripts/test.sh`` installs the package when it is missing and sets
``ADKCOURSE_BROWSER_TESTS=required``, so CI fails rather than skips without it; a developer
without Chromium gets a skip.

Screenshots go to ``$ADKCOURSE_SCREENSHOTS`` (default: ``adkcourse-screenshots`` in the temp
folder), outside the repository, emptied at the start of a run; the path is printed at the end.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

CHROMIUM_FLAGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
_SHOTS: list[Path] = []


def chromium_path() -> str | None:
  configured = os.environ.get("ADKCOURSE_CHROMIUM")
  return configured or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def screenshots() -> Path:
  folder = Path(os.environ.get("ADKCOURSE_SCREENSHOTS")
                or Path(tempfile.gettempdir()) / "adkcourse-screenshots")
  shutil.rmtree(folder, ignore_errors=True)
  folder.mkdir(parents=True)
  _SHOTS.append(folder)
  return folder


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
  """One headless Chromium per test module, with a fresh profile."""
  executable = chromium_path()
  if executable is None:
    message = "no chromium: apt-get install -y chromium (scripts/test.sh does it)"
    if os.environ.get("ADKCOURSE_BROWSER_TESTS") == "required":
      pytest.fail(message)
    pytest.skip(message)
  from playwright.sync_api import sync_playwright

  profile = tmp_path_factory.mktemp("chromium-profile")
  with sync_playwright() as playwright:
    context = playwright.chromium.launch_persistent_context(
        str(profile), executable_path=executable, headless=True, args=CHROMIUM_FLAGS,
        viewport={"width": 1280, "height": 1000})
    try:
      yield context
    finally:
      context.close()


def pytest_terminal_summary(terminalreporter):
  for folder in _SHOTS:
    count = len(list(folder.glob("*.png")))
    terminalreporter.write_line(f"browser tests: {count} screenshots in {folder}")

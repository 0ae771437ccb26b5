"""Test-run settings shared by the unit tests and nbval.

* The committed notebook outputs come from the offline model, so every run here is offline
  even when the developer has a Gemini key in the environment; except under
  ``scripts/with_fake_gemini.py`` (``$ADKCOURSE_FAKE_GEMINI`` set), whose point is to run the
  labs' agents on Gemini, sent to the course's local fake endpoint.
* Scratch data of this run (SQLite files, PostgreSQL data, progress files) goes to one
  temporary folder, removed at the end: nothing is written into the repository.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from adkcourse.scratch import reproducible_environment

os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
_SCRATCH = tempfile.mkdtemp(prefix="adkcourse-test-")
# Not offline only when google-genai is really pointed at the fake endpoint: a real key can
# never make the test suite call the real Gemini.
_FAKE_GEMINI = os.environ.get("ADKCOURSE_FAKE_GEMINI")
_ON_FAKE_GEMINI = bool(_FAKE_GEMINI) and _FAKE_GEMINI == os.environ.get("GOOGLE_GEMINI_BASE_URL")
os.environ.update(reproducible_environment(_SCRATCH, offline=not _ON_FAKE_GEMINI))


def pytest_unconfigure(config):  # noqa: ARG001 - pytest hook signature
  from adkcourse.postgres import stop_embedded

  stop_embedded()  # first: PostgreSQL cannot stop cleanly once its data folder is gone
  shutil.rmtree(_SCRATCH, ignore_errors=True)

"""Shared by the lab tests: run a lab with `adk run --replay`, the way a student would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def adk_run_replay(lab: str, queries: list[str], work: Path) -> str:
  """Run ``adk run --replay --in_memory labs/LAB`` offline and return what it printed.

  Fails the test with ADK's stderr if the command fails, and if it left a ``.adk`` folder in
  the lab (``--in_memory`` must keep the repository clean).
  """
  replay = work / "replay.json"
  replay.write_text(json.dumps({"state": {}, "queries": queries}))
  adk = Path(sys.executable).parent / "adk"
  done = subprocess.run([str(adk), "run", "--replay", str(replay), "--in_memory",
                         str(ROOT / "labs" / lab)],
                        capture_output=True, text=True, timeout=120, cwd=work)
  assert done.returncode == 0, done.stderr[-2000:]
  assert not (ROOT / "labs" / lab / ".adk").exists()
  return done.stdout

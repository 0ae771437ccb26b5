"""The cafe team lab: its agents on a real Runner, and under ADK's real command line (`adk run`,
`adk api_server`, which `adk web` serves) with an `--artifact_service_uri` that keeps files."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

from google.adk.apps import App
from google.adk.artifacts import InMemoryArtifactService
from google.adk.cli.utils.agent_loader import AgentLoader
from google.adk.plugins.save_files_as_artifacts_plugin import SaveFilesAsArtifactsPlugin
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adkcourse.api_server import running_api_server
from adkcourse.gcs_emulator import start_emulator
from adkcourse.offline_model import OFFLINE_TAG
from labs.cafe_team import agent as lab
from labs.cafe_team.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "labs" / "cafe_team"
QUERIES = ["Table 4, please", "I'd like an oat milk latte", "Any pastry to go with it?",
           "My receipt, please", "What does my receipt say?", "That's all, bye"]


def _data_files(root: Path) -> list[str]:
  return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                if p.is_file() and p.name != "metadata.json")


async def test_a_visit_through_the_runner():
  sessions, files = InMemorySessionService(), InMemoryArtifactService()
  runner = Runner(app=lab.app, session_service=sessions, artifact_service=files)
  visit = await sessions.create_session(app_name=lab.APP_NAME, user_id="ana")
  replies = []
  for text in QUERIES:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for event in runner.run_async(user_id="ana", session_id=visit.id, new_message=message):
      if event.is_final_response() and event.content and event.content.parts:
        replies.append((event.author, event.content.parts[0].text))
  assert all(text.startswith(OFFLINE_TAG) for _, text in replies)
  assert [author for author, _ in replies] == ["barista"] * 5 + ["cafe_host"]
  assert "Table: 4, seated by: the host" in replies[0][1]          # temp: after the transfer
  assert "croissant" in replies[2][1]                               # AgentTool(pastry_chef)
  assert "oat milk latte: $4.50" in replies[4][1]                   # load_artifacts
  stored = await sessions.get_session(app_name=lab.APP_NAME, user_id="ana", session_id=visit.id)
  assert stored.state == {"table": 4, "current_order": {"items": ["oat milk latte"], "total": 4.5},
                          "pastry_pick": "croissant"}
  assert await files.list_artifact_keys(app_name=lab.APP_NAME, user_id="ana",
                                        session_id=visit.id) == ["receipt.txt",
                                                                 "user:loyalty_card.txt"]


async def test_a_receipt_with_nothing_ordered_saves_nothing():
  sessions, files = InMemorySessionService(), InMemoryArtifactService()
  runner = Runner(app=lab.app, session_service=sessions, artifact_service=files)
  visit = await sessions.create_session(app_name=lab.APP_NAME, user_id="bo")
  message = types.Content(role="user", parts=[types.Part(text="My receipt, please")])
  events = [e async for e in runner.run_async(user_id="bo", session_id=visit.id,
                                              new_message=message)]
  assert "There is no order" in events[-1].content.parts[0].text
  assert await files.list_artifact_keys(app_name=lab.APP_NAME, user_id="bo",
                                        session_id=visit.id) == []


def test_adk_loads_the_app_with_its_upload_plugin():
  loaded = AgentLoader(agents_dir=str(ROOT / "labs")).load_agent("cafe_team")
  assert isinstance(loaded, App) and loaded.name == "cafe_team"
  assert any(isinstance(p, SaveFilesAsArtifactsPlugin) for p in loaded.plugins)
  assert loaded.root_agent.name == "cafe_host"


def test_every_agent_has_its_rules_registered_by_name():
  """What ``adkcourse.model_choice.SCRIPTED_RULES`` needs for the fake Gemini endpoint."""
  names = {lab.root_agent.name, lab.barista.name, lab.pastry_chef.name}
  assert set(RULES) == names


def _adk_run(work: Path, *options: str, env: dict | None = None) -> str:
  replay = work / "replay.json"
  replay.write_text(json.dumps({"state": {}, "queries": QUERIES[:2] + QUERIES[3:5]}))
  adk = Path(sys.executable).parent / "adk"
  done = subprocess.run([str(adk), "run", "--replay", str(replay), *options, str(LAB)],
                        capture_output=True, text=True, timeout=180, cwd=work,
                        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})})
  assert done.returncode == 0, done.stderr[-2000:]
  assert not (LAB / ".adk").exists()
  return done.stdout


def test_adk_run_keeps_files_with_a_file_uri(tmp_path):
  out = _adk_run(tmp_path, "--session_service_uri", "memory://",
                 "--artifact_service_uri", f"file://{tmp_path / 'files'}")
  assert f"{OFFLINE_TAG} Here is your receipt (receipt.txt, version 0)" in out
  assert "says: oat milk latte: $4.50" in out
  files = _data_files(tmp_path / "files")
  assert "apps/cafe_team/users/test_user/artifacts/loyalty_card.txt/versions/0/loyalty_card.txt" in files
  assert any(f.endswith("/artifacts/receipt.txt/versions/0/receipt.txt") for f in files), files


def test_adk_run_in_memory_ignores_the_artifact_uri(tmp_path):
  """The trap the lesson names: --in_memory sets every URI to memory:// (cli/cli.py)."""
  out = _adk_run(tmp_path, "--in_memory", "--artifact_service_uri", f"file://{tmp_path / 'files'}")
  assert "Here is your receipt" in out
  assert not (tmp_path / "files").exists()


def test_adk_run_with_a_gs_uri_on_the_local_emulator(tmp_path):
  with start_emulator("cafe-files", data_dir=tmp_path / "gcs") as gcs:
    out = _adk_run(tmp_path, "--session_service_uri", "memory://",
                   "--artifact_service_uri", f"gs://{gcs.bucket}", env=gcs.environment())
    stored = [str(p) for p in gcs.stored_files()]
  assert "says: oat milk latte: $4.50" in out
  assert any(p.endswith("cafe_team/test_user/user/user:loyalty_card.txt/0") for p in stored), stored


def test_api_server_turns_an_upload_into_a_file(tmp_path):
  """What `adk web` does with an attached file: /run with inline data, through the App's
  SaveFilesAsArtifactsPlugin, into the folder of --artifact_service_uri."""
  with running_api_server(ROOT / "labs", "memory://", tmp_path,
                          artifact_service_uri=f"file://{tmp_path / 'files'}") as server:
    session = server.post("/apps/cafe_team/users/ana/sessions", {})
    data = base64.b64encode(b"menu bytes").decode()
    server.post("/run", {"app_name": "cafe_team", "user_id": "ana", "session_id": session["id"],
                         "new_message": {"role": "user", "parts": [
                             {"text": "Here is our menu"},
                             {"inlineData": {"data": data, "mimeType": "text/plain",
                                             "displayName": "menu.txt"}}]}})
    listed = server.get(f"/apps/cafe_team/users/ana/sessions/{session['id']}/artifacts")
  assert listed == ["menu.txt"]
  saved = tmp_path / "files/apps/cafe_team/users/ana/sessions" / session["id"] / \
      "artifacts/menu.txt/versions/0/menu.txt"
  assert saved.read_bytes() == b"menu bytes"
  assert not (LAB / ".adk").exists()

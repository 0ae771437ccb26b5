"""Progress is ``user:`` state written through ADK's SqliteSessionService, readable as a
DataFrame and exportable for an instructor."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from adkcourse.quiz import cli
from adkcourse.quiz.progress import (APP_NAME, SESSION_ID, BackgroundLoop, ProgressStore,
                                     default_user_id, progress_frame, progress_path, state_key)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def home(tmp_path, monkeypatch):
  monkeypatch.setenv("ADKCOURSE_HOME", str(tmp_path / "home"))
  return tmp_path / "home"


def _rows(path: Path, sql: str) -> list[tuple]:
  with sqlite3.connect(path) as connection:
    return connection.execute(sql).fetchall()


def test_attempts_are_user_state_in_the_progress_file(home):
  assert progress_path() == home / "progress.db"
  store = ProgressStore()
  store.record("ann", "01_lesson", "q1", 2, False)
  record = store.record("ann", "01_lesson", "q1", 1, True)
  assert record["attempt"] == 2 and record["correct"] is True
  path = home / "progress.db"
  # user_states holds one key per attempt, without the user: prefix, one row per (app, user)
  (app, user, state), = _rows(path, "SELECT app_name, user_id, state FROM user_states")
  assert (app, user) == (APP_NAME, "ann")
  state = json.loads(state)
  assert all(key.startswith("quiz:01_lesson:q1:") for key in state) and len(state) == 2
  assert sorted((a["response"], a["correct"]) for a in state.values()) == [(1, True), (2, False)]
  # each attempt is an event of the student's quiz session; its delta keeps the prefix
  events = _rows(path, "SELECT session_id, event_data FROM events ORDER BY timestamp")
  assert [session for session, _ in events] == [SESSION_ID, SESSION_ID]
  (key, value), = json.loads(events[-1][1])["actions"]["state_delta"].items()
  assert key.startswith("user:quiz:01_lesson:q1:") and value["response"] == 1
  assert key == state_key("01_lesson", "q1", key.rsplit(":", 1)[1])


def test_concurrent_writers_lose_no_attempt(home, monkeypatch):
  """Two kernels of one student writing at the same moment: ADK's stale-session check is not
  atomic, so a read-extend-write of one list would lose attempts; one key per attempt cannot."""
  from google.adk.sessions.sqlite_session_service import SqliteSessionService
  in_flight, overlaps = [0], []
  append = SqliteSessionService.append_event
  gate: dict = {}

  async def tracking_append(self, session, event):
    in_flight[0] += 1
    overlaps.append(in_flight[0])
    try:
      if "event" in gate:  # hold every writer until all three are in flight: a forced overlap
        if in_flight[0] >= 3:
          gate["event"].set()
        await asyncio.wait_for(gate["event"].wait(), 10)
      return await append(self, session, event)
    finally:
      in_flight[0] -= 1

  monkeypatch.setattr(SqliteSessionService, "append_event", tracking_append)

  async def writers() -> list[dict]:
    await ProgressStore().arecord("ann", "b", "q", 0, False)  # the session exists
    gate["event"] = asyncio.Event()
    return list(await asyncio.gather(*(ProgressStore().arecord("ann", "b", "q", i, False)
                                       for i in range(1, 4))))
  asyncio.run(writers())
  assert max(overlaps) >= 2, "the writers did not overlap: the test proves nothing"
  frame = progress_frame("ann")
  assert sorted(frame["response"].tolist()) == [0, 1, 2, 3]
  assert frame["attempt"].tolist() == [1, 2, 3, 4]


def test_progress_frame_columns_and_filters(home):
  assert progress_frame("ann").columns.tolist() == ["time", "bank", "question", "attempt",
                                                    "response", "answer", "correct"]
  assert not (home / "progress.db").exists()  # reading does not create the file
  store = ProgressStore()
  store.record("ann", "01_a", "q1", [0, 2], True)
  store.record("ann", "02_b", "q1", "user_states", False)
  store.record("bob", "01_a", "q1", 1, False)
  frame = progress_frame("ann")
  assert frame["bank"].tolist() == ["01_a", "02_b"]
  assert pd.api.types.is_datetime64_any_dtype(frame["time"]) and str(frame["time"].dt.tz) == "UTC"
  assert frame["correct"].tolist() == [True, False]
  assert progress_frame("ann", bank="02_b")["response"].tolist() == ["user_states"]
  assert len(progress_frame("bob")) == 1


BANK = """
- id: q1
  type: multiple
  question: "Which?"
  options: ["first option", "second option", "third option"]
  answer: [0, 2]
  explanation: "Because."
- id: q2
  type: text
  question: "Type the error"
  answer: [KeyError]
  explanation: "Because."
"""


def test_progress_frame_says_the_chosen_options_in_words_and_shows_every_row(home, tmp_path):
  (tmp_path / "01_a.yaml").write_text(BANK)
  store = ProgressStore()
  store.record("ann", "01_a", "q1", [0, 2], True)
  store.record("ann", "01_a", "q2", "KeyError", True)
  store.record("ann", "01_a", "gone", 1, False)  # a question the bank no longer has
  store.record("ann", "99_gone", "q1", 1, False)  # and a bank that is gone
  frame = progress_frame("ann", quizzes=tmp_path)
  assert frame["answer"].tolist() == ["first option; third option", "KeyError", "1", "1"]
  for attempt in range(70):  # past pandas' 60 displayed rows
    store.record("ann", "01_a", "q2", f"try {attempt}", False)
  whole = progress_frame("ann", quizzes=tmp_path)
  assert len(whole) == 74 and "try 35" in whole._repr_html_() and "try 35" in repr(whole)
  assert "try 35" in repr(whole[whole["question"] == "q2"])  # what pandas builds stays whole


def test_default_user(monkeypatch):
  monkeypatch.setenv("ADKCOURSE_USER", "student-7")
  assert default_user_id() == "student-7"
  monkeypatch.delenv("ADKCOURSE_USER")
  assert default_user_id()  # the OS user name


def test_background_loop_refuses_to_wait_on_itself():
  loop = BackgroundLoop()

  async def nested() -> None:
    async def inner() -> int:
      return 1
    loop.run(inner())

  with pytest.raises(RuntimeError, match="await the coroutine"):
    loop.run(nested())
  assert loop.run(asyncio.sleep(0, result=5)) == 5


def _export(capsys, *args: str) -> tuple[int, str, str]:
  code = cli.main(["export", *args])
  out, err = capsys.readouterr()
  return code, out, err


def test_export_csv_and_json(home, tmp_path, capsys):
  code, _, err = _export(capsys, "--user", "ann")
  assert code == 1 and "no progress file" in err
  store = ProgressStore()
  store.record("ann", "01_a", "q1", [0, 2], True)
  store.record("ann", "01_a", "q2", "KeyError", True)
  code, out, err = _export(capsys, "--user", "ann")
  assert code == 0, err
  rows = list(csv.DictReader(io.StringIO(out)))
  assert list(rows[0]) == ["user", "time", "bank", "question", "attempt", "response", "correct"]
  assert [(r["user"], r["question"], r["response"], r["correct"]) for r in rows] == [
      ("ann", "q1", "[0, 2]", "True"), ("ann", "q2", "KeyError", "True")]
  out_file = tmp_path / "ann.json"
  code, out, _ = _export(capsys, "--user", "ann", "--format", "json", "--out", str(out_file))
  assert code == 0 and out == ""
  records = json.loads(out_file.read_text(encoding="utf-8"))
  assert [(r["user"], r["question"], r["response"], r["attempt"]) for r in records] == [
      ("ann", "q1", [0, 2], 1), ("ann", "q2", "KeyError", 1)]
  code, out, err = _export(capsys, "--user", "nobody")
  assert code == 0 and "no attempts stored" in err
  assert out.strip() == "user,time,bank,question,attempt,response,correct"


def test_export_command_line(home):
  """The instructor's command, as typed in a shell."""
  ProgressStore().record("ann", "01_a", "q1", 1, True)
  result = subprocess.run([sys.executable, "-m", "adkcourse.quiz", "export", "--user", "ann",
                           "--format", "json"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "ADKCOURSE_HOME": str(home)})
  assert result.returncode == 0, result.stderr
  assert [r["question"] for r in json.loads(result.stdout)] == ["q1"]

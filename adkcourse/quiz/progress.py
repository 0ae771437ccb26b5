"""Remember every graded attempt the way the course's tutor remembers a student: as ``user:``
state written through ADK's own ``SqliteSessionService``.

* The file is ``$ADKCOURSE_HOME/progress.db`` (default ``~/.adkcourse/progress.db``): one per
  person at the computer, outside the repository. Tests and ``scripts/run_notebooks.py`` point
  ``ADKCOURSE_HOME`` at a scratch folder.
* Each attempt is an ``Event`` whose ``actions.state_delta`` sets
  ``user:quiz:<bank>:<question id>`` to that question's list of attempts, appended to the
  student's session ``quiz-progress`` of the app ``adkcourse_quiz``. ADK stores the key without
  its ``user:`` prefix in ``user_states``, exactly as lesson 1 teaches, and keeps the event (with
  the prefixed delta) as the transcript.

Why a background thread: a widget's button callback is synchronous, the session service is
async, and inside a Jupyter kernel an event loop is already running in the main thread, so
``asyncio.run`` is impossible there. Every service call therefore runs on one dedicated event
loop in a daemon thread; synchronous callers wait for the result (a few milliseconds), async
callers can ``await`` the ``a...`` methods directly.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import threading
import uuid
from concurrent.futures import Future
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Coroutine, Optional, TypeVar, Union

import pandas as pd

APP_NAME = "adkcourse_quiz"
SESSION_ID = "quiz-progress"
HOME_VARIABLE = "ADKCOURSE_HOME"
USER_VARIABLE = "ADKCOURSE_USER"
KEY_PREFIX = "quiz:"
COLUMNS = ["time", "bank", "question", "attempt", "response", "correct"]
TIMEOUT_SECONDS = 30.0

T = TypeVar("T")


def progress_home() -> Path:
  """``$ADKCOURSE_HOME``, else ``~/.adkcourse``."""
  configured = os.environ.get(HOME_VARIABLE)
  return Path(configured).expanduser() if configured else Path.home() / ".adkcourse"


def progress_path() -> Path:
  return progress_home() / "progress.db"


def default_user_id() -> str:
  """``$ADKCOURSE_USER``, else the operating system's user name."""
  configured = os.environ.get(USER_VARIABLE, "").strip()
  if configured:
    return configured
  try:
    return getpass.getuser()
  except Exception:  # noqa: BLE001 - no user name in some containers
    return "student"


def state_key(bank: str, question_id: str) -> str:
  """The state key holding one question's attempts (with its ``user:`` prefix)."""
  return f"user:{KEY_PREFIX}{bank}:{question_id}"


class BackgroundLoop:
  """One event loop running forever in a daemon thread; coroutines are submitted to it from any
  other thread, whether or not that thread has a running loop of its own."""

  def __init__(self) -> None:
    self.loop = asyncio.new_event_loop()
    self.thread = threading.Thread(target=self._run, name="adkcourse-quiz-progress", daemon=True)
    self.thread.start()

  def _run(self) -> None:
    asyncio.set_event_loop(self.loop)
    self.loop.run_forever()

  def submit(self, coroutine: Coroutine[Any, Any, T]) -> "Future[T]":
    return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

  def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = TIMEOUT_SECONDS) -> T:
    """Run ``coroutine`` on the background loop and wait for its result."""
    if threading.current_thread() is self.thread:
      coroutine.close()
      raise RuntimeError("BackgroundLoop.run() called from its own loop: await the coroutine")
    return self.submit(coroutine).result(timeout)


_LOOP: Optional[BackgroundLoop] = None
_LOOP_LOCK = threading.Lock()


def background_loop() -> BackgroundLoop:
  global _LOOP
  with _LOOP_LOCK:
    if _LOOP is None or not _LOOP.thread.is_alive():
      _LOOP = BackgroundLoop()
    return _LOOP


class ProgressStore:
  """A student's attempts in a ``SqliteSessionService`` file. Sync methods are safe to call
  from widget callbacks and notebook cells; the ``a...`` methods are their async versions."""

  def __init__(self, path: Union[str, Path, None] = None):
    self.path = Path(path) if path is not None else progress_path()
    self._service: Any = None

  def __repr__(self) -> str:
    return f"ProgressStore({self.path.name!r})"

  def _session_service(self) -> Any:
    if self._service is None:
      from google.adk.sessions.sqlite_session_service import SqliteSessionService
      self.path.parent.mkdir(parents=True, exist_ok=True)
      self._service = SqliteSessionService(str(self.path))
    return self._service

  async def arecord(self, user_id: str, bank: str, question_id: str, response: Any,
                    correct: bool) -> dict[str, Any]:
    """Append one attempt; returns the stored record (its ``attempt`` counts every run)."""
    from google.adk.errors import StaleSessionError
    from google.adk.errors.already_exists_error import AlreadyExistsError
    from google.adk.events import Event, EventActions
    from google.adk.sessions.base_session_service import GetSessionConfig

    service = self._session_service()
    key = state_key(bank, question_id)
    for _ in range(5):
      session = await service.get_session(app_name=APP_NAME, user_id=user_id,
                                          session_id=SESSION_ID,
                                          config=GetSessionConfig(num_recent_events=0))
      if session is None:
        try:
          session = await service.create_session(app_name=APP_NAME, user_id=user_id,
                                                 session_id=SESSION_ID)
        except AlreadyExistsError:  # another kernel of the same student created it just now
          continue
      attempts = list(session.state.get(key) or [])
      record = {"time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
                "bank": bank, "question": question_id, "attempt": len(attempts) + 1,
                "response": response, "correct": bool(correct)}
      event = Event(author="quiz", invocation_id=f"quiz-{uuid.uuid4().hex[:12]}",
                    actions=EventActions(state_delta={key: attempts + [record]}))
      try:
        await service.append_event(session, event)
      except StaleSessionError:  # another notebook of this student wrote in between: re-read
        continue
      return record
    raise RuntimeError(f"could not store the attempt in {self.path}: the session kept changing")

  async def ahistory(self, user_id: str) -> list[dict[str, Any]]:
    """Every stored attempt of ``user_id``, oldest first; empty when nothing was stored yet."""
    if not self.path.exists():
      return []
    state = await self._session_service().get_user_state(app_name=APP_NAME, user_id=user_id)
    rows = [dict(row) for key, attempts in state.items() if key.startswith(KEY_PREFIX)
            for row in (attempts or []) if isinstance(row, dict)]
    return sorted(rows, key=lambda r: (str(r.get("time")), str(r.get("bank")),
                                       str(r.get("question")), r.get("attempt") or 0))

  def record(self, user_id: str, bank: str, question_id: str, response: Any,
             correct: bool) -> dict[str, Any]:
    return background_loop().run(self.arecord(user_id, bank, question_id, response, correct))

  def history(self, user_id: str) -> list[dict[str, Any]]:
    return background_loop().run(self.ahistory(user_id))


def history_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
  """Attempts as a DataFrame with the columns ``COLUMNS``; times as UTC timestamps."""
  frame = pd.DataFrame(rows, columns=COLUMNS)
  frame["time"] = pd.to_datetime(frame["time"], utc=True)
  frame["attempt"] = frame["attempt"].astype("int64")
  frame["correct"] = frame["correct"].astype("bool")
  return frame


def progress_frame(user_id: Optional[str] = None, *, bank: Optional[str] = None,
                   path: Union[str, Path, None] = None) -> pd.DataFrame:
  """A student's quiz history (default: this computer's student) as a DataFrame, oldest first:
  one row per graded attempt. ``bank`` keeps one lesson's attempts only."""
  rows = ProgressStore(path).history(user_id or default_user_id())
  if bank is not None:
    rows = [r for r in rows if r.get("bank") == bank]
  return history_frame(rows)

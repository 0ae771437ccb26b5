"""Remember every graded attempt the way the course's tutor remembers a student: as ``user:``
state written through ADK's own ``SqliteSessionService``.

* The file is ``$ADKCOURSE_HOME/progress.db`` (default ``~/.adkcourse/progress.db``): one per
  person at the computer, outside the repository. Tests and ``scripts/run_notebooks.py`` point
  ``ADKCOURSE_HOME`` at a scratch folder.
* Each attempt is an ``Event`` whose ``actions.state_delta`` adds one key,
  ``user:quiz:<bank>:<question id>:<attempt id>``, holding that attempt (time, response,
  correct), appended to the student's session ``quiz-progress`` of the app ``adkcourse_quiz``.
  ADK stores the key without its ``user:`` prefix in ``user_states``, exactly as lesson 1
  teaches, and keeps the event (with the prefixed delta) as the transcript.
* One new key per attempt, never a list that is read, extended and written back: ADK merges a
  delta into ``user_states`` atomically in SQL, but its stale-session check is not atomic, so
  two kernels appending at the same moment would silently lose one of two list updates (the
  tests reproduce it). New keys cannot overwrite each other.
* The lessons' "I can" checklists (``checklist.py``) are stored the same way, in the same
  session: each tick or untick is one new key, ``user:checklist:<lesson>:<item>:<id>``, holding
  (time, lesson, item, ticked); the latest per item is its state. ``<item>`` is the fingerprint
  of the English item text, so a tick survives a change of language.

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
CHECKLIST_PREFIX = "checklist:"
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


def state_key(bank: str, question_id: str, attempt_id: str) -> str:
  """The state key holding one attempt (with its ``user:`` prefix)."""
  return f"user:{KEY_PREFIX}{bank}:{question_id}:{attempt_id}"


def tick_key(lesson: str, item: str, tick_id: str) -> str:
  """The state key holding one tick or untick of a checklist item (with its ``user:`` prefix)."""
  return f"user:{CHECKLIST_PREFIX}{lesson}:{item}:{tick_id}"


def _tick_rows(state: dict[str, Any]) -> list[dict[str, Any]]:
  """Ticks and unticks found in a state dict (keys with or without ``user:``), oldest first."""
  rows = [dict(value) for key, value in state.items()
          if key.removeprefix("user:").startswith(CHECKLIST_PREFIX) and isinstance(value, dict)]
  rows.sort(key=lambda r: (str(r.get("time")), str(r.get("lesson")), str(r.get("item"))))
  return rows


def _attempt_rows(state: dict[str, Any]) -> list[dict[str, Any]]:
  """Attempts found in a state dict (keys with or without ``user:``), oldest first, each with
  its ``attempt`` number for its question (1 for the first ever)."""
  rows = [dict(value) for key, value in state.items()
          if key.removeprefix("user:").startswith(KEY_PREFIX) and isinstance(value, dict)]
  rows.sort(key=lambda r: (str(r.get("time")), str(r.get("bank")), str(r.get("question"))))
  counts: dict[tuple[str, str], int] = {}
  for row in rows:
    question = (str(row.get("bank")), str(row.get("question")))
    counts[question] = counts.get(question, 0) + 1
    row["attempt"] = counts[question]
  return [{column: row.get(column) for column in COLUMNS} for row in rows]


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

  async def _aappend(self, user_id: str, key: str, record: dict[str, Any], author: str,
                     what: str) -> Any:
    """Append one event whose ``state_delta`` adds ``key`` (a new key: nothing is overwritten);
    returns the session, its state updated."""
    from google.adk.errors import StaleSessionError
    from google.adk.errors.already_exists_error import AlreadyExistsError
    from google.adk.events import Event, EventActions
    from google.adk.sessions.base_session_service import GetSessionConfig

    service = self._session_service()
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
      event = Event(author=author, invocation_id=f"{author}-{uuid.uuid4().hex[:12]}",
                    actions=EventActions(state_delta={key: record}))
      try:
        await service.append_event(session, event)
      except StaleSessionError:  # another notebook of this student wrote in between: re-read
        continue
      return session
    raise RuntimeError(f"could not store the {what} in {self.path}: the session kept changing")

  async def arecord(self, user_id: str, bank: str, question_id: str, response: Any,
                    correct: bool) -> dict[str, Any]:
    """Append one attempt; returns it with its ``attempt`` number (counting earlier runs)."""
    record = {"time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
              "bank": bank, "question": question_id, "response": response,
              "correct": bool(correct)}
    key = state_key(bank, question_id, uuid.uuid4().hex[:12])
    session = await self._aappend(user_id, key, record, "quiz", "attempt")
    earlier = [r for r in _attempt_rows(session.state)
               if (r["bank"], r["question"]) == (bank, question_id)]
    return {**record, "attempt": len(earlier)}

  async def arecord_tick(self, user_id: str, lesson: str, item: str,
                         ticked: bool) -> dict[str, Any]:
    """Append one tick (``ticked``) or untick of the checklist item ``item`` (its fingerprint)
    of ``lesson``; returns what was stored. Times have microseconds: the latest one wins."""
    record = {"time": datetime.now(timezone.utc).isoformat(timespec="microseconds"),
              "lesson": lesson, "item": item, "ticked": bool(ticked)}
    await self._aappend(user_id, tick_key(lesson, item, uuid.uuid4().hex[:12]), record,
                        "checklist", "tick")
    return record

  async def ahistory(self, user_id: str) -> list[dict[str, Any]]:
    """Every stored attempt of ``user_id``, oldest first; empty when nothing was stored yet."""
    if not self.path.exists():
      return []
    state = await self._session_service().get_user_state(app_name=APP_NAME, user_id=user_id)
    return _attempt_rows(state)

  async def aticks(self, user_id: str, lesson: str) -> dict[str, bool]:
    """Each checklist item of ``lesson`` that was ever ticked or unticked (by fingerprint), and
    whether it is ticked now (its latest change)."""
    if not self.path.exists():
      return {}
    state = await self._session_service().get_user_state(app_name=APP_NAME, user_id=user_id)
    return {str(row.get("item")): bool(row.get("ticked")) for row in _tick_rows(state)
            if row.get("lesson") == lesson}

  def record_tick(self, user_id: str, lesson: str, item: str, ticked: bool) -> dict[str, Any]:
    return background_loop().run(self.arecord_tick(user_id, lesson, item, ticked))

  def ticks(self, user_id: str, lesson: str) -> dict[str, bool]:
    return background_loop().run(self.aticks(user_id, lesson))

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


class ProgressFrame(pd.DataFrame):
  """A DataFrame that a notebook shows whole: pandas cuts any frame past 60 rows
  (``display.max_rows``), and a student's history of six lessons is longer than that."""

  @property
  def _constructor(self):  # pandas builds results of operations with this: stay whole
    return ProgressFrame

  def _repr_html_(self) -> Optional[str]:
    with pd.option_context("display.max_rows", None, "display.max_colwidth", None):
      return super()._repr_html_()

  def __repr__(self) -> str:
    with pd.option_context("display.max_rows", None, "display.max_colwidth", None,
                           "display.max_columns", None, "display.width", None):
      return super().__repr__()


def answer_texts(rows: list[dict[str, Any]], lang: Optional[str] = None,
                 quizzes: Optional[Path] = None) -> list[str]:
  """What each attempt answered, in words: the chosen options' texts (the stored ``response``
  holds their numbers, which mean nothing without the bank), or the typed answer itself.
  A bank or question that no longer exists leaves the response as it was stored."""
  from adkcourse.quiz.bank import QUIZZES_DIR, BankError, load_bank

  banks: dict[str, Any] = {}
  texts = []
  for row in rows:
    name, response = row.get("bank"), row.get("response")
    if name not in banks:
      try:
        banks[name] = load_bank((quizzes or QUIZZES_DIR) / f"{name}.yaml")
      except (BankError, OSError, TypeError):
        banks[name] = None
    try:
      options = banks[name].question(row.get("question")).option_texts(lang)
    except (AttributeError, KeyError):
      options = None
    chosen = response if isinstance(response, list) else [response]
    if options and all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(options)
                       for i in chosen):
      texts.append("; ".join(options[i] for i in chosen))
    else:
      texts.append("" if response is None else str(response))
  return texts


def progress_frame(user_id: Optional[str] = None, *, bank: Optional[str] = None,
                   path: Union[str, Path, None] = None, lang: Optional[str] = None,
                   quizzes: Optional[Path] = None) -> pd.DataFrame:
  """A student's quiz history (default: this computer's student) as a DataFrame, oldest first:
  one row per graded attempt, every row shown. ``bank`` keeps one lesson's attempts only. The
  ``answer`` column says in words what ``response`` stores as option numbers (in ``lang``,
  default the quiz's language here; ``quizzes`` is the banks' folder, default the course's)."""
  rows = ProgressStore(path).history(user_id or default_user_id())
  if bank is not None:
    rows = [r for r in rows if r.get("bank") == bank]
  frame = history_frame(rows)
  frame.insert(COLUMNS.index("response") + 1, "answer", answer_texts(rows, lang, quizzes))
  return ProgressFrame(frame)

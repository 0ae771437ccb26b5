"""Talk to the tutor from a terminal; sessions live in a SQLite file, so it remembers.

    python labs/tutor/main.py --user alice                 # interactive, a new session
    python labs/tutor/main.py --user alice --resume        # continue alice's latest session
    python labs/tutor/main.py --user alice "hello" "quiz me on python"   # messages as arguments
    printf 'hello\\nhow am I doing?\\nquit\\n' | python labs/tutor/main.py --user alice   # stdin

The database file is ``$TUTOR_DB`` (default ``tutor.db`` in the current directory).
Without ``--resume`` every run is a new session: the conversation starts empty, but the
student's ``user:`` state (their progression) is read back from the file. With ``--resume``
the most recent session is continued with its whole history. Also runs as
``python -m labs.tutor.main``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Iterable, Optional

if __package__ in (None, ""):  # run as a script: make the repository importable instead of
  _HERE = Path(__file__).resolve().parent  # this folder (whose tools.py/rules.py would shadow)
  sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
  sys.path.insert(0, str(_HERE.parent.parent))

from google.adk.agents.run_config import RunConfig  # noqa: E402
from google.adk.runners import Runner  # noqa: E402
from google.adk.sessions import Session  # noqa: E402
from google.adk.sessions.sqlite_session_service import SqliteSessionService  # noqa: E402
from google.genai import types  # noqa: E402

from adkcourse.model_choice import describe_model  # noqa: E402
from labs.tutor.agent import APP_NAME, root_agent  # noqa: E402

DB_VARIABLE = "TUTOR_DB"
DEFAULT_DB = "tutor.db"
QUIT_WORDS = {"quit", "exit"}


def database_path() -> str:
  """Where sessions are stored: ``$TUTOR_DB``, else ``tutor.db`` in the current directory."""
  return os.environ.get(DB_VARIABLE) or DEFAULT_DB


async def open_session(service: SqliteSessionService, user_id: str, resume: bool) -> Session:
  """The user's most recent session when resuming (and there is one), else a new session."""
  if resume:
    # An index: sessions without their events, ordered by last update, oldest first.
    sessions = (await service.list_sessions(app_name=APP_NAME, user_id=user_id)).sessions
    if sessions:
      latest = await service.get_session(app_name=APP_NAME, user_id=user_id,
                                         session_id=sessions[-1].id)
      print(f"Resumed session {latest.id} ({len(latest.events)} events)")
      return latest
    print(f"No earlier session for {user_id}: nothing to resume.")
  session = await service.create_session(app_name=APP_NAME, user_id=user_id)
  print(f"Started new session {session.id}")
  return session


def _tool_calls(event) -> Iterable[str]:
  for call in event.get_function_calls():
    yield f"  [tool] {call.name}({json.dumps(call.args or {}, ensure_ascii=False)})"


async def send(runner: Runner, session: Session, text: str,
               run_config: Optional[RunConfig] = None) -> list[str]:
  """One message through the real Runner; returns the lines to print (tool calls, replies).
  ``run_config`` goes to ``run_async`` as it is (e.g. a ``GetSessionConfig`` window)."""
  lines = []
  message = types.Content(role="user", parts=[types.Part(text=text)])
  async for event in runner.run_async(user_id=session.user_id, session_id=session.id,
                                      new_message=message, run_config=run_config):
    lines.extend(_tool_calls(event))
    if event.content and not event.get_function_calls() and not event.get_function_responses():
      reply = " ".join(p.text for p in event.content.parts or [] if p.text)
      if reply:
        lines.append(f"tutor> {reply}")
    if event.error_message:
      lines.append(f"tutor> (error: {event.error_message})")
  return lines


def _messages_from_stdin() -> list[str]:
  """The non-empty lines of stdin, up to (not including) a line that is a quit word: a piped
  `quit` ends the run as it does interactively (the session stays stored), instead of being
  sent to the model."""
  messages = []
  for line in sys.stdin:
    text = line.strip()
    if text.lower() in QUIT_WORDS:
      break
    if text:
      messages.append(text)
  return messages


async def chat(user_id: str, resume: bool, messages: Optional[list[str]]) -> int:
  db = database_path()
  service = SqliteSessionService(db)
  runner = Runner(agent=root_agent, app_name=APP_NAME, session_service=service)
  print(describe_model(root_agent.model))
  print(f"Sessions file: {db} (SqliteSessionService; set ${DB_VARIABLE} to change it)")
  session = await open_session(service, user_id, resume)

  if messages is None and not sys.stdin.isatty():
    messages = _messages_from_stdin()
  if messages is not None:  # non-interactive: echo each message, then the replies
    for text in messages:
      print(f"{user_id}> {text}")
      print("\n".join(await send(runner, session, text)))
  else:
    print("Type your message ('quit' to end).")
    while True:
      try:
        text = input(f"{user_id}> ").strip()
      except (EOFError, KeyboardInterrupt):
        print()
        break
      if text.lower() in QUIT_WORDS:
        break
      if text:
        print("\n".join(await send(runner, session, text)))

  stored = await service.get_session(app_name=APP_NAME, user_id=user_id, session_id=session.id)
  print(f"Session {stored.id} now holds {len(stored.events)} events.")
  return 0


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
  parser = argparse.ArgumentParser(
      description="Chat with the tutor; sessions are stored in a SQLite file "
                  f"(${DB_VARIABLE}, default {DEFAULT_DB}).")
  parser.add_argument("--user", required=True, help="the student's id, e.g. alice")
  parser.add_argument("--resume", action="store_true",
                      help="continue this student's most recent session (full history)")
  parser.add_argument("messages", nargs="*", metavar="MESSAGE",
                      help="messages to send; without any, read stdin (or chat interactively)")
  return parser.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
  args = parse_args(argv)
  return asyncio.run(chat(args.user, args.resume, args.messages or None))


if __name__ == "__main__":
  sys.exit(main())

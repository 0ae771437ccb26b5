"""What each storage stage costs: create, append, and get with 10 / 100 / 1000 events.

    python benchmarks/session_services.py            # all four services, 5 repeats
    python benchmarks/session_services.py --repeat 9 --sizes 10 100

Measures ADK's own services on this machine: ``InMemorySessionService``,
``SqliteSessionService`` (a file), ``DatabaseSessionService`` on ``sqlite+aiosqlite`` and on
PostgreSQL (the course's server: embedded, or ``$ADKCOURSE_POSTGRES_URL``). Prints a table of
medians in milliseconds. Data goes to a temporary folder; nothing is written into the
repository. CI does not run this: timings are for people, not for asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Awaitable, Callable

from google.adk.events import Event, EventActions
from google.adk.sessions import BaseSessionService, DatabaseSessionService, InMemorySessionService
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.genai import types

from adkcourse.postgres import fresh_database

APP = "bench"


def _event(index: int) -> Event:
  return Event(author="user", invocation_id=f"inv-{index}",
               content=types.Content(role="user", parts=[types.Part(text=f"message {index}")]),
               actions=EventActions(state_delta={"count": index}))


async def _timed(action: Callable[[], Awaitable[object]]) -> float:
  started = time.perf_counter()
  await action()
  return (time.perf_counter() - started) * 1000


async def measure(service: BaseSessionService, sizes: list[int], repeat: int) -> dict[str, float]:
  """Median milliseconds for create, one append, and get_session at each size."""
  creates, appends, gets = [], [], {size: [] for size in sizes}
  for round_number in range(repeat):
    user = f"user-{round_number}"
    session = None

    async def create() -> None:
      nonlocal session
      session = await service.create_session(app_name=APP, user_id=user)

    creates.append(await _timed(create))
    stored = 0
    for size in sorted(sizes):
      while stored < size:
        event = _event(stored)
        if stored == 0:
          appends.append(await _timed(lambda: service.append_event(session, event)))
        else:
          await service.append_event(session, event)
        stored += 1
      gets[size].append(await _timed(lambda: service.get_session(
          app_name=APP, user_id=user, session_id=session.id)))
    for _ in range(3):  # a few more appends on a non-empty session
      event = _event(stored)
      appends.append(await _timed(lambda: service.append_event(session, event)))
      stored += 1
  row = {"create": statistics.median(creates), "append": statistics.median(appends)}
  row.update({f"get {size}": statistics.median(gets[size]) for size in sizes})
  return row


async def main(sizes: list[int], repeat: int, with_postgres: bool) -> None:
  folder = Path(tempfile.mkdtemp(prefix="adkcourse-bench-"))
  services: dict[str, Callable[[], Awaitable[BaseSessionService]]] = {
      "InMemory": lambda: _ready(InMemorySessionService()),
      "SqliteSessionService": lambda: _ready(SqliteSessionService(str(folder / "s.db"))),
      "Database (sqlite+aiosqlite)": lambda: _ready(
          DatabaseSessionService(f"sqlite+aiosqlite:///{folder / 'd.db'}")),
  }
  if with_postgres:
    async def postgres() -> BaseSessionService:
      return DatabaseSessionService(await fresh_database("adkcourse_bench"))
    services["Database (postgresql+asyncpg)"] = postgres
  columns = ["create", "append"] + [f"get {size}" for size in sizes]
  print(f"{'service':32}" + "".join(f"{c:>10}" for c in columns) + "   (median ms)")
  try:
    for name, build in services.items():
      service = await build()
      row = await measure(service, sizes, repeat)
      print(f"{name:32}" + "".join(f"{row[c]:10.2f}" for c in columns), flush=True)
      close = getattr(service, "close", None)
      if close is not None:
        await close()
  finally:
    shutil.rmtree(folder, ignore_errors=True)


async def _ready(service: BaseSessionService) -> BaseSessionService:
  return service


if __name__ == "__main__":
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
  parser.add_argument("--repeat", type=int, default=5)
  parser.add_argument("--no-postgres", action="store_true", help="skip PostgreSQL")
  args = parser.parse_args()
  asyncio.run(main(args.sizes, args.repeat, not args.no_postgres))

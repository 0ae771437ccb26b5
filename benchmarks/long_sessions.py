"""How long sessions cost: ``get_session`` time against the number of events (memory, SQLite,
PostgreSQL, and a raw ``sqlite3`` query of the same rows as the floor), and the prompt size sent
to the model against turns. Lesson 6 draws the same curves at small sizes.

    .venv/bin/python benchmarks/long_sessions.py                 # 100 -> 10,000 events, 60 turns
    .venv/bin/python benchmarks/long_sessions.py --sizes 100 1000 --turns 20

Prints a table (milliseconds, and ratios to the raw query), writes ``long_sessions.csv`` and
``long_sessions.png`` to a temporary folder outside the repository and prints its path.
PostgreSQL is the course's (embedded, or ``$ADKCOURSE_POSTGRES_URL``).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from google.adk.agents import Agent  # noqa: E402
from google.adk.runners import Runner  # noqa: E402
from google.adk.sessions import DatabaseSessionService, InMemorySessionService  # noqa: E402
from google.adk.sessions.sqlite_session_service import SqliteSessionService  # noqa: E402
from google.genai import types  # noqa: E402

from adkcourse.long_sessions import fastest_seconds, fill_session, raw_sqlite_read  # noqa: E402
from adkcourse.offline_model import OfflineModel, estimate_tokens, fallback  # noqa: E402
from adkcourse.postgres import fresh_database  # noqa: E402
from adkcourse.request_recorder import RequestRecorder  # noqa: E402


async def load_times(sizes: list[int], folder: Path, repeats: int) -> pd.DataFrame:
  services = {"memory": InMemorySessionService(),
              "sqlite": SqliteSessionService(str(folder / "long.db")),
              "postgres": DatabaseSessionService(await fresh_database("bench_long_sessions"))}
  rows = []
  for size in sizes:
    row: dict[str, float] = {"events": size}
    for name, service in services.items():
      session = await service.create_session(app_name="cafe", user_id="ana", session_id=f"long-{size}")
      await fill_session(service, session, size)
      loaded = await service.get_session(app_name="cafe", user_id="ana", session_id=session.id)
      assert len(loaded.events) == size, (name, size)
      row[name] = await fastest_seconds(lambda: service.get_session(
          app_name="cafe", user_id="ana", session_id=f"long-{size}"), repeats)
      if name == "sqlite":
        sqlite_session = session
    row["raw sqlite3"] = await fastest_seconds(
        lambda: raw_sqlite_read(str(folder / "long.db"), sqlite_session), repeats)
    rows.append(row)
    print(f"  {size} events measured", file=sys.stderr)
  await services["postgres"].db_engine.dispose()
  return pd.DataFrame(rows).set_index("events")


async def prompt_sizes(turns: int) -> list[int]:
  recorder = RequestRecorder()
  agent = Agent(name="barista", instruction="You are a friendly barista. Keep answers short.",
                model=OfflineModel(rules=[fallback("Noted, coming right up.")]),
                before_model_callback=recorder)
  service = InMemorySessionService()
  runner = Runner(agent=agent, app_name="cafe", session_service=service)
  session = await service.create_session(app_name="cafe", user_id="ana")
  sizes = []
  for turn in range(1, turns + 1):
    message = types.Content(role="user", parts=[types.Part(
        text=f"Turn {turn}: a small oat milk latte for table {turn}, please.")])
    async for _ in runner.run_async(user_id="ana", session_id=session.id, new_message=message):
      pass
    sizes.append(estimate_tokens(recorder.last))
  return sizes


async def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000, 3000, 10000])
  parser.add_argument("--turns", type=int, default=60)
  parser.add_argument("--repeats", type=int, default=3)
  parser.add_argument("--out", type=Path, default=None, help="folder for the CSV and PNG (default: a new temporary one)")
  args = parser.parse_args(argv)
  logging.getLogger("google_adk").setLevel(logging.ERROR)
  out = args.out or Path(tempfile.mkdtemp(prefix="adkcourse-long-sessions-"))
  out.mkdir(parents=True, exist_ok=True)
  timings = await load_times(args.sizes, out, args.repeats)
  prompts = await prompt_sizes(args.turns)
  (timings * 1000).round(3).to_csv(out / "long_sessions.csv")
  pd.DataFrame({"turn": range(1, len(prompts) + 1), "estimated_prompt_tokens": prompts}).to_csv(
      out / "prompt_sizes.csv", index=False)
  ratios = timings.div(timings["raw sqlite3"], axis=0)
  print("get_session, ms (fastest of", args.repeats, "):")
  print((timings * 1000).round(2).to_string())
  print("\nratio to the raw sqlite3 query of the same rows:")
  print(ratios.round(1).to_string())
  print(f"\nestimated prompt tokens: turn 1 {prompts[0]}, turn {len(prompts)} {prompts[-1]} "
        f"({prompts[-1] / prompts[0]:.0f}x); sent over {len(prompts)} turns: {sum(prompts)} "
        f"({sum(prompts) / (prompts[0] * len(prompts)):.0f}x {len(prompts)} first turns)")
  fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
  for column in timings:
    left.plot(timings.index, timings[column] * 1000, marker="o", label=column,
              linestyle="--" if column == "raw sqlite3" else "-")
  left.set(xscale="log", yscale="log", xlabel="events in the session", ylabel="get_session (ms)",
           title="Loading a session")
  left.legend()
  right.plot(range(1, len(prompts) + 1), prompts, marker=".")
  right.set(xlabel="turn", ylabel="estimated prompt tokens", title="Prompt per model call")
  fig.tight_layout()
  fig.savefig(out / "long_sessions.png", dpi=100)
  print(f"\nwrote {out / 'long_sessions.csv'}, {out / 'prompt_sizes.csv'} and {out / 'long_sessions.png'}")
  return 0


if __name__ == "__main__":
  sys.exit(asyncio.run(main()))

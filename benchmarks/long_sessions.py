"""How long sessions cost: ``get_session`` time against the number of events (memory, SQLite,
PostgreSQL, and a raw ``sqlite3`` query of the same rows as the floor), and the prompt size sent
to the model against turns. Lesson 6 draws the same curves at small sizes.

    .venv/bin/python benchmarks/long_sessions.py                 # 100 -> 10,000 events, 60 turns
    .venv/bin/python benchmarks/long_sessions.py --sizes 100 1000 --turns 20

Each ``get_session`` is timed ``--repeats`` times (default 7); the table gives the median in
milliseconds and, in brackets, the fastest and slowest run, then each median as a multiple of
the raw query's median with the range those runs allow (fastest over the raw query's slowest,
slowest over its fastest). On a shared machine the spread is wide: quote medians with it, never
one run. Writes ``long_sessions.csv`` (every run) and ``long_sessions.png`` to a temporary
folder outside the repository and prints its path.
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

from adkcourse.long_sessions import (chat, fill_session, median_and_spread, raw_sqlite_read,  # noqa: E402
                                     repeat_seconds, timing_cell)
from adkcourse.offline_model import OfflineModel, estimate_tokens, fallback  # noqa: E402
from adkcourse.postgres import fresh_database  # noqa: E402
from adkcourse.request_recorder import RequestRecorder  # noqa: E402


async def load_times(sizes: list[int], folder: Path, repeats: int) -> dict[tuple[int, str], list[float]]:
  """Every timed run, in seconds: (events, service) -> ``repeats`` wall times."""
  services = {"memory": InMemorySessionService(),
              "sqlite": SqliteSessionService(str(folder / "long.db")),
              "postgres": DatabaseSessionService(await fresh_database("bench_long_sessions"))}
  runs: dict[tuple[int, str], list[float]] = {}
  for size in sizes:
    for name, service in services.items():
      session = await service.create_session(app_name="cafe", user_id="ana", session_id=f"long-{size}")
      await fill_session(service, session, size)
      loaded = await service.get_session(app_name="cafe", user_id="ana", session_id=session.id)
      assert len(loaded.events) == size, (name, size)
      runs[size, name] = await repeat_seconds(lambda: service.get_session(
          app_name="cafe", user_id="ana", session_id=f"long-{size}"), repeats)
      if name == "sqlite":
        sqlite_session = session
    runs[size, "raw sqlite3"] = await repeat_seconds(
        lambda: raw_sqlite_read(str(folder / "long.db"), sqlite_session), repeats)
    print(f"  {size} events measured", file=sys.stderr)
  await services["postgres"].db_engine.dispose()
  return runs


def tables(runs: dict[tuple[int, str], list[float]]) -> tuple[pd.DataFrame, pd.DataFrame]:
  """Medians with their spread (ms), and medians as multiples of the raw query's, with the
  range the runs allow."""
  sizes = sorted({size for size, _ in runs})
  names = list(dict.fromkeys(name for _, name in runs))
  times = pd.DataFrame({name: [timing_cell(runs[size, name]) for size in sizes] for name in names},
                       index=pd.Index(sizes, name="events"))
  ratio_rows = {}
  for name in names[:-1]:
    column = []
    for size in sizes:
      median, low, high = median_and_spread(runs[size, name])
      raw_median, raw_low, raw_high = median_and_spread(runs[size, "raw sqlite3"])
      column.append(f"{median / raw_median:.0f}x ({low / raw_high:.0f}-{high / raw_low:.0f})")
    ratio_rows[name] = column
  ratios = pd.DataFrame(ratio_rows, index=pd.Index(sizes, name="events"))
  return times, ratios


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
    await chat(runner, session.id, f"Turn {turn}: a small oat milk latte for table {turn}, please.")
    sizes.append(estimate_tokens(recorder.last))
  return sizes


async def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000, 3000, 10000])
  parser.add_argument("--turns", type=int, default=60)
  parser.add_argument("--repeats", type=int, default=7)
  parser.add_argument("--out", type=Path, default=None, help="folder for the CSV and PNG (default: a new temporary one)")
  args = parser.parse_args(argv)
  logging.getLogger("google_adk").setLevel(logging.ERROR)
  out = args.out or Path(tempfile.mkdtemp(prefix="adkcourse-long-sessions-"))
  out.mkdir(parents=True, exist_ok=True)
  runs = await load_times(args.sizes, out, args.repeats)
  prompts = await prompt_sizes(args.turns)
  pd.DataFrame([{"events": size, "service": name, "run": i, "ms": round(t * 1000, 3)}
                for (size, name), ts in runs.items() for i, t in enumerate(ts)]).to_csv(
      out / "long_sessions.csv", index=False)
  pd.DataFrame({"turn": range(1, len(prompts) + 1), "estimated_prompt_tokens": prompts}).to_csv(
      out / "prompt_sizes.csv", index=False)
  times, ratios = tables(runs)
  print(f"get_session, ms: median of {args.repeats} runs (fastest-slowest):")
  print(times.to_string())
  print(f"\nmedian as a multiple of the raw sqlite3 query's median (range the runs allow):")
  print(ratios.to_string())
  print(f"\nestimated prompt tokens: turn 1 {prompts[0]}, turn {len(prompts)} {prompts[-1]} "
        f"({prompts[-1] / prompts[0]:.0f}x); sent over {len(prompts)} turns: {sum(prompts)} "
        f"({sum(prompts) / (prompts[0] * len(prompts)):.0f}x {len(prompts)} first turns)")
  fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
  sizes = sorted({size for size, _ in runs})
  for name in dict.fromkeys(name for _, name in runs):
    medians = [median_and_spread(runs[size, name])[0] * 1000 for size in sizes]
    left.plot(sizes, medians, marker="o", label=name, linestyle="--" if name == "raw sqlite3" else "-")
  left.set(xscale="log", yscale="log", xlabel="events in the session", ylabel="get_session, median (ms)",
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

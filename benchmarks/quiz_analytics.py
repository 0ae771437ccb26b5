"""How long an instructor waits for ``python -m adkcourse.quiz analytics`` on a class: generated
classes of 10 to 160 students (``generate_class``), merged and summarised by the real command in
a fresh process, as an instructor runs it (the interpreter's start and imports included).

    .venv/bin/python benchmarks/quiz_analytics.py
    .venv/bin/python benchmarks/quiz_analytics.py --students 40 400 --repeat 5

Prints a table: class size, the fastest and median wall time of ``--repeat`` runs, and students
per second. The classes go to a temporary folder outside the repository, removed at the end.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adkcourse.quiz.analytics import generate_class  # noqa: E402


def time_analytics(folder: Path, repeat: int) -> list[float]:
  """Wall times of ``repeat`` runs of the analytics command on ``folder``, each checked."""
  times = []
  for _ in range(repeat):
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "adkcourse.quiz", "analytics", str(folder),
                           "--csv", str(folder.parent / f"{folder.name}.csv")],
                          cwd=ROOT, capture_output=True, text=True)
    times.append(time.perf_counter() - started)
    if done.returncode != 0:
      raise SystemExit(f"analytics failed on {folder}:\n{done.stderr}")
  return times


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--students", type=int, nargs="+", default=[10, 40, 160])
  parser.add_argument("--repeat", type=int, default=3)
  args = parser.parse_args(argv)
  if args.repeat < 1 or min(args.students) < 1:
    parser.error("--repeat and every --students size must be at least 1")
  print(f"{'students':>8}  {'fastest s':>9}  {'median s':>8}  {'students/s':>10}")
  with tempfile.TemporaryDirectory(prefix="adkcourse-bench-") as scratch:
    for students in args.students:
      folder = Path(scratch) / f"class{students}"
      generate_class(folder, students=students, seed=14)
      times = time_analytics(folder, args.repeat)
      fastest, median = min(times), statistics.median(times)
      print(f"{students:>8}  {fastest:>9.2f}  {median:>8.2f}  {students / median:>10.1f}")
  return 0


if __name__ == "__main__":
  sys.exit(main())

"""Grade a whole class in one command.

    python -m adkcourse.grade EXERCISE SUBMISSIONS_DIR --out gradebook.csv

SUBMISSIONS_DIR holds one ``.ipynb`` or ``.py`` file per student (student id = file name
without extension). Writes the gradebook CSV (student, exercise, score, max_score, feedback),
prints the same table, and writes one Markdown feedback page per student. Exit status 0 when
grading ran (whatever the scores), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .checks import EXERCISES, UnknownExercise, get_exercise
from .runner import UsageError, find_submissions, grade_all


def build_parser() -> argparse.ArgumentParser:
  parser = argparse.ArgumentParser(
      prog="python -m adkcourse.grade", description=__doc__.splitlines()[0],
      epilog=f"exercises: {', '.join(EXERCISES)}")
  parser.add_argument("exercise", help=f"one of: {', '.join(EXERCISES)}")
  parser.add_argument("submissions", type=Path, help="folder of .ipynb/.py files, one per student")
  parser.add_argument("--out", type=Path, required=True, help="the gradebook CSV to write")
  parser.add_argument("--feedback-dir", type=Path,
                      help="where the per-student Markdown pages go (default: OUT's folder, "
                           "in <out name>-feedback/)")
  parser.add_argument("--jobs", type=int, default=2, help="submissions graded at a time (2)")
  parser.add_argument("--timeout", type=float, default=30.0,
                      help="seconds allowed per submission (30)")
  parser.add_argument("--memory-mb", type=int, default=2048,
                      help="memory limit per submission, in MiB (2048)")
  parser.add_argument("--no-progress", action="store_true", help="no progress bar")
  parser.add_argument("--no-fork", action="store_true",
                      help="start a fresh interpreter per submission instead of forking a "
                           "preloaded one (slower; the default where fork exists)")
  return parser


def main(argv: list[str] | None = None) -> int:
  parser = build_parser()
  args = parser.parse_args(argv)
  try:
    if args.jobs < 1:
      raise UsageError("--jobs must be at least 1")
    if args.timeout <= 0:
      raise UsageError("--timeout must be a positive number of seconds")
    if args.memory_mb < 256:
      raise UsageError("--memory-mb must be at least 256")
    get_exercise(args.exercise)
    submissions = find_submissions(args.submissions)
  except (UsageError, UnknownExercise) as error:
    parser.error(str(error))  # prints usage and the message, exits with status 2
  started = time.monotonic()
  graded = grade_all(args.exercise, submissions, jobs=args.jobs, time_limit=args.timeout,
                     memory_mb=args.memory_mb, progress=not args.no_progress,
                     fork=False if args.no_fork else None)
  elapsed = time.monotonic() - started

  from .gradebook import format_table, write_csv, write_feedback

  feedback_dir = args.feedback_dir or args.out.parent / f"{args.out.stem}-feedback"
  write_csv(graded, args.out)
  write_feedback(graded, feedback_dir)
  print(format_table(graded))
  scores = [g.report.score for g in graded]
  print(f"\n{len(graded)} submissions graded in {elapsed:.1f} s "
        f"({len(graded) / elapsed:.1f}/s, {args.jobs} at a time); "
        f"mean {sum(scores) / len(scores):.2f} / {graded[0].report.max_score:g}")
  print(f"gradebook: {args.out}\nfeedback:  {feedback_dir}/")
  return 0


if __name__ == "__main__":
  sys.exit(main())

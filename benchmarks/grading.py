"""How fast the class grader is, with the sandbox on and off: N generated submissions.

    python benchmarks/grading.py              # 40 forget_user submissions, 2 at a time, both modes
    python benchmarks/grading.py -n 80 --jobs 1 --jobs 2
    python benchmarks/grading.py --sandbox bwrap      # only one mode
    python benchmarks/grading.py --exercise copy_user_to --sandbox bwrap   # another exercise

For ``forget_user`` the class is generated (below); for another exercise it is the reference
and the cases of ``tests/exercise_cases/EXERCISE/``, repeated up to N, and each is checked
against its kind: full marks for the reference and ``right_*``, below for ``wrong_*``.

Submissions are a mix of correct notebooks and scripts, the API-only attempt, a raw-SQL
attempt and a hostile one (see ``adkcourse.grade.demo.FAST_KINDS``), written to a temporary
folder. Prints one row per mode and ``--jobs`` value: submissions, seconds, submissions per
second, the median and slowest single submission, and the CPU time the whole grading used
(every process it started, sandboxes included: this process reaps them) with what that
makes on idle CPUs (CPU seconds / CPUs: the figure to compare on a machine shared with other
work). Exits 1 if a score is not the expected one (a fast grader that grades wrongly is no
benchmark). Nothing is written into the repository. The sandboxed mode is what instructors
run: each submission in its own bubblewrap sandbox, with its own judge-side preparation and
observation.

Last measured (2 shared cores, load about 3, sandbox on, 2 at a time): 40 ``forget_user``
submissions used 36.4 CPU seconds (about 18 s on two idle cores; 95 s of wall clock there);
10 ``copy_user_to`` ones, each on a private PostgreSQL, 18.9 CPU seconds.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from adkcourse.grade.demo import FAST_KINDS, write_class
from adkcourse.grade.runner import find_submissions, grade_all
from adkcourse.grade.sandbox import detect


def _reap() -> None:
  """Wait for the orphans this process inherited as their subreaper (their CPU time then
  counts in RUSAGE_CHILDREN)."""
  while True:
    try:
      if os.waitpid(-1, os.WNOHANG)[0] == 0:
        return
    except ChildProcessError:
      return


def _cpu() -> float:
  own, children = (resource.getrusage(resource.RUSAGE_SELF),
                   resource.getrusage(resource.RUSAGE_CHILDREN))
  return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


ROOT = Path(__file__).resolve().parent.parent


def _case_class(folder: Path, exercise: str, count: int) -> dict[str, bool]:
  """The reference and the exercise's cases, repeated up to ``count``: student -> right?"""
  folder.mkdir(parents=True)
  sources = [ROOT / "solutions" / f"{exercise}.py"] + sorted(
      (ROOT / "tests" / "exercise_cases" / exercise).glob("*.py"))
  right = {}
  for number in range(count):
    source = sources[number % len(sources)]
    student = f"{source.stem}_{number:03d}"
    shutil.copy(source, folder / f"{student}.py")
    right[student] = not source.stem.startswith("wrong_")
  return right


def run(count: int, jobs: int, folder: Path, sandbox: str, exercise: str = "forget_user"
        ) -> dict[str, object]:
  shutil.rmtree(folder, ignore_errors=True)
  if exercise == "forget_user":
    copies = -(-count // len(FAST_KINDS))
    expected = write_class(folder, FAST_KINDS, copies=copies)
    for extra in sorted(expected)[count:]:
      next(folder.glob(f"{extra}.*")).unlink()
      del expected[extra]
  else:
    right = _case_class(folder, exercise, count)
  submissions = find_submissions(folder)
  isolation = detect(sandbox)
  try:
    _reap()
    cpu = _cpu()
    started = time.perf_counter()
    graded = grade_all(exercise, submissions, jobs=jobs, progress=False,
                       isolation=isolation)
    seconds = time.perf_counter() - started
    time.sleep(0.2)
    _reap()
    cpu = _cpu() - cpu
  finally:
    isolation.close()
  if exercise == "forget_user":
    wrong = [problem for g in graded
             if (problem := expected[g.student].problem(g.report.score, g.report.max_score,
                                                        {r.check for r in g.report.failed()}))]
  else:
    wrong = [f"{g.student}: {g.report.score}" for g in graded
             if (g.report.score == g.report.max_score) != right[g.student]]
  if wrong:
    raise SystemExit(f"unexpected scores: {wrong}")
  per = [g.seconds for g in graded]
  return {"exercise": exercise, "mode": "sandbox" if sandbox == "bwrap" else "no sandbox",
          "jobs": jobs,
          "submissions": len(graded), "seconds": seconds, "per_second": len(graded) / seconds,
          "median_each": statistics.median(per), "slowest_each": max(per), "cpu": cpu,
          "idle_seconds": cpu / min(jobs, os.cpu_count() or 1)}


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("-n", "--count", type=int, default=40, help="submissions (40)")
  parser.add_argument("--jobs", type=int, action="append",
                      help="submissions at a time; repeat to compare (default 2)")
  parser.add_argument("--sandbox", choices=("bwrap", "none"), action="append",
                      help="mode to measure; repeat for both (default: bwrap and none)")
  parser.add_argument("--exercise", action="append",
                      help="exercise to grade; repeat for several (default: forget_user)")
  args = parser.parse_args(argv)
  try:  # every process the grading starts ends up reaped here: its CPU time is counted
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
  except (OSError, AttributeError):
    pass
  scratch = Path(tempfile.mkdtemp(prefix="adkcourse-bench-"))
  os.environ.setdefault("ADKCOURSE_SCRATCH", str(scratch / "scratch"))
  rows = []
  try:
    for exercise in args.exercise or ["forget_user"]:
      for sandbox in args.sandbox or ["bwrap", "none"]:
        for jobs in args.jobs or [2]:
          rows.append(run(args.count, jobs, scratch / "submissions", sandbox, exercise))
  finally:
    shutil.rmtree(scratch, ignore_errors=True)
  print(f"grading on {os.cpu_count()} CPU(s), Python {sys.version.split()[0]}, "
        f"load {os.getloadavg()[0]:.1f}")
  print(f"{'exercise':<24}  {'mode':<10}  {'jobs':>4}  {'submissions':>11}  {'seconds':>7}  {'per second':>10}  "
        f"{'median each':>11}  {'slowest each':>12}  {'CPU s':>6}  {'idle CPUs s':>11}")
  for r in rows:
    print(f"{r['exercise']:<24}  {r['mode']:<10}  {r['jobs']:>4}  {r['submissions']:>11}  {r['seconds']:>7.1f}  "
          f"{r['per_second']:>10.2f}  {r['median_each']:>10.2f}s  {r['slowest_each']:>11.2f}s  "
          f"{r['cpu']:>6.1f}  {r['idle_seconds']:>11.1f}")
  return 0


if __name__ == "__main__":
  sys.exit(main())

"""How fast the class grader is, with the sandbox on and off: N generated submissions.

    python benchmarks/grading.py              # 40 forget_user submissions, 2 at a time, both modes
    python benchmarks/grading.py -n 80 --jobs 1 --jobs 2
    python benchmarks/grading.py --sandbox bwrap      # only one mode
    python benchmarks/grading.py --exercise copy_user_to --sandbox bwrap   # another exercise
    python benchmarks/grading.py --all-exercises -n 6 --sandbox bwrap     # every exercise: one table

``--all-exercises`` grades, for every exercise, the reference alone, then N (default 6)
submissions (the reference and the cases, wrong and right alternating) at ``--jobs`` 1 and 2,
and prints one Markdown table: CPU seconds per submission, submissions per minute on idle
cores (from CPU time: 60 / CPU s at jobs 1, where a submission's judge, sandbox and server take
turns, so about one core; 60 x 2 / CPU s at jobs 2), 300 submissions locally, and 300 on a fleet
with one container per submission (the grader's start-up and the reference alone, measured,
plus ``--platform-startup`` seconds, an assumption), with the wall clock and load beside.

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

Last measured (2 shared cores, load 6 to 13, sandbox on; ``--all-exercises -n 3``, the run
ending 2026-12-02 00:17 UTC): 1.3 (``forget_user``, ``grant_runtime_role``) to 3.8
(``remember_with_consent``) CPU seconds per submission at jobs 2, so 32 to 95 submissions a
minute on two idle cores and 3 to 9 minutes for 300; the reference alone 1.2 to 4.9 CPU s.
Earlier (load about 3, 2 at a time): 40 generated ``forget_user`` submissions, 36.4 CPU s.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import itertools
import os
import resource
import shutil
import statistics
import subprocess
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


def _case_class(folder: Path, exercise: str, count: int, mixed: bool = False
                ) -> dict[str, bool]:
  """The reference and the exercise's cases, repeated up to ``count``: student -> right?

  ``mixed``: the cases alternate wrong and right (first in name order of each kind), so
  that a few submissions are not all right ones."""
  folder.mkdir(parents=True)
  cases = sorted((ROOT / "tests" / "exercise_cases" / exercise).glob("*.py"))
  if mixed:
    wrong = [c for c in cases if c.stem.startswith("wrong_")]
    good = [c for c in cases if not c.stem.startswith("wrong_")]
    cases = [c for pair in itertools.zip_longest(wrong, good) for c in pair if c]
  sources = [ROOT / "solutions" / f"{exercise}.py"] + cases
  right = {}
  for number in range(count):
    source = sources[number % len(sources)]
    student = f"{source.stem}_{number:03d}"
    shutil.copy(source, folder / f"{student}.py")
    right[student] = not source.stem.startswith("wrong_")
  return right


def run(count: int, jobs: int, folder: Path, sandbox: str, exercise: str = "forget_user",
        cases: bool = False) -> dict[str, object]:
  """Grade ``count`` submissions ``jobs`` at a time; ``cases``: the reference and the cases
  (mixed) for ``forget_user`` too, instead of the generated class."""
  shutil.rmtree(folder, ignore_errors=True)
  generated = exercise == "forget_user" and not cases
  if generated:
    copies = -(-count // len(FAST_KINDS))
    expected = write_class(folder, FAST_KINDS, copies=copies)
    for extra in sorted(expected)[count:]:
      next(folder.glob(f"{extra}.*")).unlink()
      del expected[extra]
  else:
    right = _case_class(folder, exercise, count, mixed=cases)
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
  if generated:
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
          "idle_seconds": cpu / min(jobs, os.cpu_count() or 1), "load": os.getloadavg()[0]}


def _startup_cpu() -> float:
  """CPU seconds a fresh Python takes to import the grader (what a container pays first)."""
  _reap()
  before = _cpu()
  subprocess.run([sys.executable, "-c", "import adkcourse.grade.runner, adkcourse.grade.gradescope"],
                 check=True)
  _reap()
  return _cpu() - before


def all_exercises(exercises: list[str], count: int, sandbox: str, folder: Path,
                  platform_startup: float) -> int:
  """Every exercise: the reference alone (one container's grading), then ``count``
  submissions (the reference and mixed cases) at jobs 1 and at jobs 2; one table."""
  cores = os.cpu_count() or 1
  startup = _startup_cpu()
  rows = []
  failed = []
  for exercise in exercises:
    try:  # one exercise graded wrongly is reported, and the others still measured
      alone = run(1, 1, folder, sandbox, exercise, cases=True)
      one = run(count, 1, folder, sandbox, exercise, cases=True)
      two = run(count, 2, folder, sandbox, exercise, cases=True)
    except SystemExit as error:
      failed.append(f"{exercise}: {error}")
      print(f"  {exercise}: {error}", file=sys.stderr, flush=True)
      continue
    rows.append((exercise, alone, one, two))
    print(f"  {exercise}: CPU s alone {alone['cpu']:.1f}, jobs 1 {one['cpu']:.1f}, jobs 2 "
          f"{two['cpu']:.1f} (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
  mode = "sandbox (bwrap)" if sandbox == "bwrap" else "no sandbox"
  print(f"{datetime.date.today()}, {mode}, {cores} CPU(s), Python {sys.version.split()[0]}, "
        f"load {os.getloadavg()[0]:.1f}; {count} submissions per exercise (the reference and "
        "cases, wrong and right alternating), each at jobs 1 and jobs 2, plus the reference "
        "alone")
  print()
  print("| exercise | submissions | CPU s each, jobs 1 | CPU s each, jobs 2 | per minute, jobs 1 "
        f"(1 core) | per minute, jobs 2 ({min(2, cores)} cores) | 300 locally, jobs 2 | "
        "one alone, CPU s | 300 on a fleet | wall s, jobs 1 / jobs 2 (load then) |")
  print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
  for exercise, alone, one, two in rows:
    each_1, each_2 = one["cpu"] / one["submissions"], two["cpu"] / two["submissions"]
    local = 300 * each_2 / min(2, cores)
    fleet = startup + alone["cpu"] + platform_startup
    print(f"| {exercise} | {two['submissions']} | {each_1:.2f} | {each_2:.2f} | {60 / each_1:.0f} | "
          f"{60 * min(2, cores) / each_2:.0f} | {local / 60:.0f} min | {alone['cpu']:.1f} | "
          f"{fleet:.0f} s | {one['seconds']:.0f} ({one['load']:.1f}) / "
          f"{two['seconds']:.0f} ({two['load']:.1f}) |")
  print()
  print(f"CPU s each: CPU time of the whole grading (judges, sandboxes, PostgreSQL servers) / "
        f"submissions. Per minute: on idle cores, from CPU time: jobs 1 = 60 / CPU s each "
        f"(one submission at a time: its judge, sandbox and server take turns, so about one "
        f"core); jobs 2 = 60 x {min(2, cores)} / CPU s each. 300 locally: 300 x CPU s each at "
        f"jobs 2 / {min(2, cores)} cores (the start-up of the {count}-submission run included, "
        f"so on the high side). Fleet: one container per submission, all at once: "
        f"{startup:.1f} CPU s measured to start the grader's Python + the reference graded "
        f"alone (one core) + {platform_startup:.0f} s ASSUMED for the platform's own start-up "
        f"(not measured: --platform-startup). Wall: seconds for the {count} submissions on "
        f"this machine, with the 1-minute load average then.")
  for line in failed:
    print(f"NOT MEASURED (unexpected scores) {line}")
  return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("-n", "--count", type=int,
                      help="submissions (40; 6 per exercise with --all-exercises)")
  parser.add_argument("--jobs", type=int, action="append",
                      help="submissions at a time; repeat to compare (default 2)")
  parser.add_argument("--sandbox", choices=("bwrap", "none"), action="append",
                      help="mode to measure; repeat for both (default: bwrap and none)")
  parser.add_argument("--exercise", action="append",
                      help="exercise to grade; repeat for several (default: forget_user)")
  parser.add_argument("--all-exercises", action="store_true",
                      help="every exercise (or those --exercise names), -n (default 6) "
                           "submissions at jobs 1 and 2: one table with the projections")
  parser.add_argument("--platform-startup", type=float, default=30.0,
                      help="seconds ASSUMED for a fleet platform to start a container (30)")
  args = parser.parse_args(argv)
  try:  # every process the grading starts ends up reaped here: its CPU time is counted
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
  except (OSError, AttributeError):
    pass
  scratch = Path(tempfile.mkdtemp(prefix="adkcourse-bench-"))
  os.environ.setdefault("ADKCOURSE_SCRATCH", str(scratch / "scratch"))
  rows = []
  if args.all_exercises:
    from adkcourse.grade.checks import EXERCISES

    try:
      return all_exercises(args.exercise or list(EXERCISES), 6 if args.count is None else args.count,
                    (args.sandbox or ["bwrap"])[0], scratch / "submissions",
                    args.platform_startup)
    finally:
      shutil.rmtree(scratch, ignore_errors=True)
  try:
    for exercise in args.exercise or ["forget_user"]:
      for sandbox in args.sandbox or ["bwrap", "none"]:
        for jobs in args.jobs or [2]:
          rows.append(run(40 if args.count is None else args.count, jobs, scratch / "submissions", sandbox, exercise))
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

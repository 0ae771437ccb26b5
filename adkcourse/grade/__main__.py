"""Grade a whole class in one command.

    python -m adkcourse.grade EXERCISE SUBMISSIONS_DIR --out gradebook.csv
    python -m adkcourse.grade gradescope EXERCISE --out autograder.zip
    python -m adkcourse.grade nbgrader COURSE_DIR [--exercise NAME ...] [--seed N]

SUBMISSIONS_DIR holds one ``.ipynb`` or ``.py`` file per student (student id = file name
without extension). Each submission runs in its own bubblewrap sandbox (see
docs/instructors.md, "Threat model"); the grader refuses to start where bubblewrap cannot run
unless given ``--sandbox none``. Writes the gradebook CSV (student, exercise, score, max_score,
feedback), prints the same table, and writes one Markdown feedback page per student. Exit
status 0 when grading ran (whatever the scores), 1 when some output could not be written, 2
for a usage error (or no sandbox).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from .checks import EXERCISES, UnknownExercise, get_exercise
from .hygiene import one_line
from .runner import UsageError, find_submissions, grade_all
from .sandbox import SandboxUnavailable, detect



SECRET_SEED = 2 ** 60  # below this, trying every seed from a feedback page's world seeds is quick

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
                      help="CPU seconds a submission's calls may use, all worlds together "
                           "(30); CPU time, so a busy machine changes nothing. A call that "
                           "waits without computing is stopped at a wall-clock limit several "
                           "times longer; a submission that reached a limit is graded again, "
                           "alone, before it costs anything")
  parser.add_argument("--memory-mb", type=int, default=2048,
                      help="memory limit per submission, all its processes together (2048)")
  parser.add_argument("--sandbox", choices=("bwrap", "none"), default="bwrap",
                      help="bwrap (default): each submission in its own bubblewrap sandbox; "
                           "none: no isolation, only for code you trust (every page says so)")
  parser.add_argument("--seed", type=int,
                      help="the same data for each student on every run (reproducible "
                           "feedback); default: fresh data every time. Keep it secret: "
                           "data known in advance can be hard-coded")
  parser.add_argument("--no-progress", action="store_true", help="no progress bar")
  parser.add_argument("--format", choices=("course", "canvas", "moodle"), default="course",
                      help="what --out holds: course (default: the course's gradebook CSV), "
                           "canvas (Canvas's gradebook import CSV) or moodle (Moodle's grade "
                           "import CSV); canvas and moodle need --roster")
  parser.add_argument("--roster", type=Path,
                      help="the class list, CSV: student id and/or email, name (a Canvas or "
                           "Moodle gradebook export works as it is); submissions are matched "
                           "by file name = id, login or email. A `language` column (en, fr, "
                           "id) gives each student's feedback language, over --lang")
  parser.add_argument("--lang", choices=("en", "fr", "id"), default="en",
                      help="the language of the feedback column and the feedback pages (en); "
                           "the CSV's column names stay the same")
  parser.add_argument("--assignment",
                      help="the LMS's name of the grade column (default: the exercise's name)")
  parser.add_argument("--assignment-id",
                      help="Canvas: the id of an existing assignment (the column becomes "
                           "'NAME (ID)', as in Canvas's export); without it, Canvas makes a "
                           "new assignment")
  return parser


def _check_paths(args: argparse.Namespace, feedback_dir: Path) -> None:
  from .gradebook import OutputError, check_output_file, check_output_folder

  try:
    check_output_file(args.out)
    check_output_folder(feedback_dir)
  except OutputError as error:
    raise UsageError(str(error)) from None
  submissions = args.submissions.resolve()
  for path, what in ((args.out, "--out"), (feedback_dir, "the feedback folder")):
    resolved = path.resolve()
    if resolved == submissions or submissions in resolved.parents:
      raise UsageError(f"{what} ({path}) is inside the submissions folder: write it elsewhere")


def _roster(args: argparse.Namespace):
  """The roster (None without ``--roster``): the LMS's class list for ``--format
  canvas|moodle``, and for every format each student's feedback language. A language that is
  not a course language is a usage error naming its line, before anything is graded."""
  from .lms import RosterError, check_roster_for, load_roster

  if args.format == "course":
    if args.assignment_id is not None:
      raise UsageError("--assignment-id is for --format canvas")
    if args.roster is None:
      return None
    try:
      return load_roster(args.roster)
    except RosterError as error:
      raise UsageError(str(error)) from None
  if args.roster is None:
    raise UsageError(f"--format {args.format} needs --roster ROSTER.csv (student id and/or "
                     "email, name)")
  if args.assignment_id is not None and args.format != "canvas":
    raise UsageError("--assignment-id is for --format canvas")
  try:
    roster = load_roster(args.roster)
    check_roster_for(args.format, roster)
  except RosterError as error:
    raise UsageError(str(error)) from None
  return roster


def main(argv: list[str] | None = None) -> int:
  argv = list(sys.argv[1:] if argv is None else argv)
  if argv[:1] == ["gradescope"]:  # a command, not an exercise (no exercise has that name)
    from .gradescope import main as gradescope_main

    return gradescope_main(argv[1:])
  if argv[:1] == ["nbgrader"]:  # writes an nbgrader course folder (no exercise has that name)
    from .nbgrader import main as nbgrader_main

    return nbgrader_main(argv[1:])
  parser = build_parser()
  args = parser.parse_args(argv)
  feedback_dir = args.feedback_dir or args.out.parent / f"{args.out.stem}-feedback"
  skipped: list[str] = []
  try:
    if args.jobs < 1:
      raise UsageError("--jobs must be at least 1")
    if not math.isfinite(args.timeout) or args.timeout <= 0:
      raise UsageError("--timeout must be a positive number of seconds")
    if args.memory_mb < 256:
      raise UsageError("--memory-mb must be at least 256")
    get_exercise(args.exercise)
    roster = _roster(args)
    submissions = find_submissions(args.submissions, skipped)
    _check_paths(args, feedback_dir)
  except (UsageError, UnknownExercise) as error:
    parser.error(str(error))  # prints usage and the message, exits with status 2
  try:
    isolation = detect(args.sandbox)
  except SandboxUnavailable as error:
    print(f"python -m adkcourse.grade: {error}", file=sys.stderr)
    return 2
  for line in skipped:
    print(f"skipped {line}", file=sys.stderr)
  if args.seed is not None and abs(args.seed) < SECRET_SEED:
    print(f"warning: --seed {args.seed} is short: a student can find it from the world seeds "
          "on their feedback page, and with it their worlds of any later run with the same "
          "seed. For a class, use a long random one: "
          "python -c 'import secrets; print(secrets.randbits(64))'", file=sys.stderr)
  started = time.monotonic()
  try:
    languages = {}
    if roster is not None:
      from .lms import languages as roster_languages

      languages = roster_languages([s.student for s in submissions], roster)
    graded = grade_all(args.exercise, submissions, jobs=args.jobs, time_limit=args.timeout,
                       memory_mb=args.memory_mb, progress=not args.no_progress,
                       isolation=isolation, seed=args.seed, lang=args.lang,
                       languages=languages)
  finally:
    isolation.close()
  elapsed = time.monotonic() - started

  from .gradebook import format_table, write_csv, write_feedback

  status = 0
  lms_notes: list[str] = []
  if roster is None or args.format == "course":
    write_csv(graded, args.out)
  else:
    from .lms import notes_path, write_lms

    lms_notes = write_lms(args.format, graded, roster, args.out,
                          assignment=args.assignment or args.exercise,
                          assignment_id=args.assignment_id)
  pages, failed = write_feedback(graded, feedback_dir)
  print(format_table(graded))
  scores = [g.report.score for g in graded]
  print(f"\n{len(graded)} submissions graded in {elapsed:.1f} s "
        f"({len(graded) / elapsed:.1f}/s, {args.jobs} at a time); "
        f"mean {sum(scores) / len(scores):.2f} / {graded[0].report.max_score:g}")
  print(f"isolation: {isolation.describe()}")
  if not isolation.enabled:
    print("WARNING: isolation was OFF (--sandbox none): submissions ran with your rights; "
          "every feedback page says so.")
  if skipped:
    print(f"{len(skipped)} file(s) in the submissions folder were not graded (listed above)")
  for submission in submissions:
    for line in ([submission.problem] if submission.problem else []) + list(submission.notes):
      print(f"WARNING: {one_line(line, 300)}")
  regraded = [g for g in graded if g.regraded]
  if regraded:
    print(f"{len(regraded)} submission(s) reached a time limit and were graded again, alone: "
          f"{', '.join(one_line(g.student, 40) for g in regraded[:10])}"
          + (" ..." if len(regraded) > 10 else ""))
  survivors = sum(g.survivors for g in graded)
  if survivors:
    print(f"WARNING: {survivors} process(es) outlived their sandbox and were killed")
  for note in lms_notes:
    print(f"WARNING ({args.format}): {one_line(note, 400)}", file=sys.stderr)
  if roster is not None and args.format != "course":
    print(f"{args.format} gradebook: {len(lms_notes)} note(s) in {notes_path(args.out)}")
  print(f"gradebook: {args.out}\nfeedback:  {feedback_dir}/ ({len(pages)} pages)")
  for line in failed:
    print(f"ERROR: feedback page of {one_line(line, 200)}", file=sys.stderr)
    status = 1
  return status


if __name__ == "__main__":
  sys.exit(main())

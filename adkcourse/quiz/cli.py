"""``python -m adkcourse.quiz check|extract|export``: the instructor's side of the quizzes.

* ``check [PATH...]`` validates banks (default: the repository's ``quizzes/``), printing one
  ``FILE:QUESTION_ID: what is wrong and how to fix it`` line per problem; exit 1 if any.
* ``extract LESSON.md [--out FILE]`` turns a Markdown lesson's fenced ``quiz`` blocks into a bank.
* ``export --user ID [--format csv|json] [--out FILE]`` writes one student's attempts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional, Sequence

from .bank import QUIZZES_DIR, bank_files, check_file, display_path
from .extract import extract_file, no_blocks_problem


def _check(args: argparse.Namespace) -> int:
  files, problems = bank_files(args.paths or [QUIZZES_DIR])
  questions = 0
  for path in files:
    bank, found = check_file(path)
    problems.extend(found)
    questions += len(bank) if bank is not None else 0
  for problem in problems:
    print(problem)
  if problems:
    count = len(problems)
    print(f"{count} problem{'s' if count > 1 else ''} in {len(files)} file"
          f"{'s' if len(files) != 1 else ''}", file=sys.stderr)
    return 1
  print(f"ok: {len(files)} file{'s' if len(files) != 1 else ''}, {questions} questions",
        file=sys.stderr)
  return 0


def _write(text: str, out: Optional[Path]) -> None:
  if out is None:
    sys.stdout.write(text)
  else:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {display_path(out)}", file=sys.stderr)


def _extract(args: argparse.Namespace) -> int:
  if not args.lesson.exists():
    print(f"{args.lesson}: no such file", file=sys.stderr)
    return 1
  text, problems, count = extract_file(args.lesson)
  if count == 0:
    print(no_blocks_problem(args.lesson), file=sys.stderr)
    return 1
  _write(text, args.out)
  for problem in problems:
    print(problem, file=sys.stderr)
  return 1 if problems else 0


def _export(args: argparse.Namespace) -> int:
  from .progress import ProgressStore, history_frame, progress_path

  path = args.progress or progress_path()
  if not path.exists():
    print(f"no progress file at {path}: nothing has been graded on this computer yet "
          "(set ADKCOURSE_HOME or pass --progress FILE)", file=sys.stderr)
    return 1
  rows = ProgressStore(path).history(args.user)
  if args.bank:
    rows = [r for r in rows if r.get("bank") == args.bank]
  if not rows:
    print(f"no attempts stored for user {args.user!r} in {path}", file=sys.stderr)
  frame = history_frame(rows)
  frame.insert(0, "user", args.user)
  if args.format == "json":
    records = [dict(r, user=args.user) for r in rows]
    text = json.dumps([{k: r[k] for k in frame.columns} for r in records], indent=2,
                      ensure_ascii=False) + "\n"
  else:
    frame["response"] = frame["response"].map(
        lambda v: json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v)
    frame["time"] = [r["time"] for r in rows]
    text = frame.to_csv(index=False)
  _write(text, args.out)
  return 0


def build_parser() -> argparse.ArgumentParser:
  parser = argparse.ArgumentParser(prog="python -m adkcourse.quiz",
                                   description="Check, extract and export the course's quizzes.")
  commands = parser.add_subparsers(dest="command", required=True)
  check = commands.add_parser("check", help="validate question banks")
  check.add_argument("paths", nargs="*", type=Path,
                     help="bank files or folders (default: the repository's quizzes/)")
  check.set_defaults(run=_check)
  extract = commands.add_parser("extract", help="turn a Markdown lesson's quiz blocks into a bank")
  extract.add_argument("lesson", type=Path, help="a Markdown lesson with ```quiz blocks")
  extract.add_argument("--out", type=Path, help="write the bank here instead of printing it")
  extract.set_defaults(run=_extract)
  export = commands.add_parser("export", help="write one student's attempts")
  export.add_argument("--user", required=True, help="the student's user id")
  export.add_argument("--format", choices=("csv", "json"), default="csv")
  export.add_argument("--out", type=Path, help="write here instead of printing")
  export.add_argument("--bank", help="only this bank's attempts, e.g. 01_sessions_events_state")
  export.add_argument("--progress", type=Path,
                      help="the progress file (default: $ADKCOURSE_HOME/progress.db)")
  export.set_defaults(run=_export)
  return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
  args = build_parser().parse_args(argv)
  return args.run(args)

"""``python -m adkcourse.quiz check|extract|export|analytics``: the instructor's side of the quizzes.

* ``check [PATH...]`` validates banks (default: the repository's ``quizzes/``), printing one
  ``FILE:QUESTION_ID: what is wrong and how to fix it`` line per problem; exit 1 if any. It also
  lists every question whose translation (``translations/<lang>/quizzes/``) is missing, stale
  or unusable, unless ``--no-translations``.
* ``extract LESSON.md [--out FILE]`` turns a Markdown lesson's fenced ``quiz`` blocks into a bank.
* ``export --user ID [--format csv|json] [--out FILE]`` writes one student's attempts.
* ``analytics FILE_OR_FOLDER... [--csv OUT]`` merges many students' exports and prints, per
  question, how the class did (``analytics.py``); the same table goes to a CSV file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

from .bank import QUIZZES_DIR, Bank, bank_files, check_file, display_path
from .extract import extract_file, no_blocks_problem


def _check(args: argparse.Namespace) -> int:
  files, problems = bank_files(args.paths or [QUIZZES_DIR])
  banks = []
  for path in files:
    bank, found = check_file(path)
    problems.extend(found)
    banks += [bank] if bank is not None else []
  if not args.no_translations:
    problems.extend(_translation_problems(banks))
  for problem in problems:
    print(problem)
  if problems:
    count = len(problems)
    print(f"{count} problem{'s' if count > 1 else ''} in {len(files)} file"
          f"{'s' if len(files) != 1 else ''}", file=sys.stderr)
    return 1
  print(f"ok: {len(files)} file{'s' if len(files) != 1 else ''}, "
        f"{sum(map(len, banks))} questions",
        file=sys.stderr)
  return 0


def _translation_problems(banks: list[Bank]) -> list:
  """What is missing, stale or unusable in the translations of these valid banks (for banks in
  a course layout, ``<repo>/quizzes/``, whose translations live in ``<repo>/translations/``)."""
  from adkcourse.i18n import LANGUAGES
  from adkcourse.i18n.quizzes import bank_findings, translations_root
  found: list = []
  for bank in banks:
    root = translations_root(bank.path)
    if root is None:
      continue
    for lang in LANGUAGES:
      found.extend(bank_findings(lang, bank, root))
  return found


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
  from .export import export_text
  from .progress import ProgressStore, progress_path

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
  _write(export_text(rows, args.user, args.format), args.out)
  return 0


def _analytics(args: argparse.Namespace) -> int:
  from .analytics import export_files, format_table, load_banks, merge, question_stats

  files = export_files(args.files)
  missing = [str(f) for f in files if not f.exists()]
  if missing:
    print(f"no such file: {', '.join(missing)}", file=sys.stderr)
    return 1
  if not files:
    print("no exported progress files (.csv or .json) found", file=sys.stderr)
    return 1
  try:
    attempts = merge(files)
  except ValueError as error:
    print(error, file=sys.stderr)
    return 1
  stats = question_stats(attempts, load_banks(attempts["bank"].unique(), args.quizzes))
  print(format_table(stats))
  students = attempts["user"].nunique()
  print(f"{students} student{'s' if students != 1 else ''}, {len(attempts)} attempts, "
        f"{len(files)} file{'s' if len(files) != 1 else ''}", file=sys.stderr)
  args.csv.parent.mkdir(parents=True, exist_ok=True)
  stats.to_csv(args.csv, index=False, float_format="%.4f")
  print(f"wrote {display_path(args.csv)}", file=sys.stderr)
  return 0


def build_parser() -> argparse.ArgumentParser:
  parser = argparse.ArgumentParser(prog="python -m adkcourse.quiz",
                                   description="Check, extract and export the course's quizzes.")
  commands = parser.add_subparsers(dest="command", required=True)
  check = commands.add_parser("check", help="validate question banks")
  check.add_argument("paths", nargs="*", type=Path,
                     help="bank files or folders (default: the repository's quizzes/)")
  check.add_argument("--no-translations", action="store_true",
                     help="skip the French and Indonesian translations (translations/<lang>/)")
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
  analytics = commands.add_parser("analytics",
                                  help="merge students' exports: per-question class statistics")
  analytics.add_argument("files", nargs="+", type=Path,
                         help="exported progress files (.csv, .json) or folders holding them")
  analytics.add_argument("--csv", type=Path, default=Path("quiz_analytics.csv"),
                         help="where to write the table (default: quiz_analytics.csv)")
  analytics.add_argument("--quizzes", type=Path, default=QUIZZES_DIR,
                         help="the banks' folder, for option texts and question order "
                         "(default: the repository's quizzes/)")
  analytics.set_defaults(run=_analytics)
  return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
  args = build_parser().parse_args(argv)
  return args.run(args)

"""``python -m adkcourse.i18n status|check|scaffold|accept|generate``: the translator's tools.

* ``status [LANG...]``: what is missing, stale or unusable, per language, with the English
  diff of every stale lesson cell; always exits 0 (a to-do list).
* ``check``: the same for every language plus the generated notebooks (the lessons' and the
  exercises'); exit 1 on any finding. CI runs it (``tests/test_translations.py``).
* ``scaffold LANG [--prune]``: add an entry, holding the English, for every cell and question
  that has none; ``--prune`` drops entries whose cell or question is gone.
* ``accept LANG NAME ID... | --all [--unchanged]``: record that these entries translate the
  current English (a stale entry must have been edited first, unless ``--unchanged``)
  (``NAME`` is a lesson / bank name such as ``01_sessions_events_state``; each id is looked up
  among the lesson's markdown cells and the bank's questions; ``widget`` names the quiz
  widget's own words, ``adkcourse/quiz/messages.py``, by message key; an exercise name such as
  ``forget_user`` its texts, ``statement`` and ``hint-N``; ``_notebook`` the texts every
  exercise notebook shares, ``adkcourse/i18n/exercises.py``).
* ``generate [LANG...]``: write ``notebooks/<lang>/*.ipynb`` from the executed English notebooks.
  (The exercise notebooks, ``labs/exercises/<lang>/``, are written with the English ones by
  ``python scripts/generate_exercises.py``.)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

from . import LANGUAGES, NOTEBOOKS_DIR, QUIZZES_DIR, TRANSLATIONS_DIR
from . import exercises, glossary, grader, lessons, pages, quizzes, widget
from .findings import Finding, shown_path


def render_quiz(bank_name: str, lang: str) -> dict[str, str]:
  """The quiz's readable fallback in ``lang``, exactly as ``show_quiz`` displays it there."""
  from adkcourse.quiz import Quiz, load_bank, resolve_bank
  bank = load_bank(resolve_bank(bank_name))
  quiz = Quiz(bank.questions, name=bank.name, lang=lang, store=None)
  return {"text/html": quiz.html_fallback(), "text/plain": quiz.text_fallback()}


def _bank_paths() -> list[Path]:
  """The English banks' files (``quizzes/*.yaml``, ``*.yml``), as ``python -m adkcourse.quiz
  check`` lists them."""
  from adkcourse.quiz.bank import bank_files
  return bank_files([QUIZZES_DIR])[0]


def _banks() -> list:
  """The valid English banks (``python -m adkcourse.quiz check`` reports the others)."""
  from adkcourse.quiz.bank import check_file
  return [bank for bank, _ in map(check_file, _bank_paths()) if bank is not None]


def findings(langs: Sequence[str], *, generated: bool = True) -> list[Finding]:
  """Every finding for ``langs``: lessons, quizzes and (optionally) the generated notebooks."""
  result: list[Finding] = []
  banks = _banks()
  for lang in langs:
    for lesson in lessons.lesson_names():
      result += lessons.lesson_findings(lang, lesson)
    for bank in banks:
      result += quizzes.bank_findings(lang, bank, TRANSLATIONS_DIR)
    if generated:
      for lesson in lessons.lesson_names():
        result += lessons.generated_findings(lang, lesson, render=render_quiz)
    result += widget.findings(lang)
    result += exercises.findings(lang)
    result += grader.findings(lang)
    result += pages.findings(lang)
    result += glossary.findings(lang)
    result += _orphan_files(lang)
  if generated:
    result += _exercise_notebook_findings(langs)
  return result


def _exercise_notebook_findings(langs: Sequence[str]) -> list[Finding]:
  """The translated exercise notebooks that ``scripts/generate_exercises.py`` would write
  differently now, or that are missing or orphaned (its ``--check``, for ``langs``' folders)."""
  import importlib.util

  root = NOTEBOOKS_DIR.parent
  script = root / "scripts" / "generate_exercises.py"
  if not script.exists():  # a copy of the lessons' machinery without the exercises
    return []
  spec = importlib.util.spec_from_file_location("adkcourse_generate_exercises", script)
  if spec is None or spec.loader is None:
    return []
  module = importlib.util.module_from_spec(spec)
  sys.modules[spec.name] = module  # its dataclasses look their module up
  try:
    spec.loader.exec_module(module)
    problems = module.stale_files(root)
  except module.ExerciseSourceError as error:  # the English source's own problem
    return [Finding(lang, "exercises/", "", "invalid", str(error)) for lang in langs]
  found = []
  for problem in problems:
    state, _, path = problem.rpartition(": ")
    parts = path.split("/")
    if len(parts) == 4 and parts[:2] == ["labs", "exercises"] and parts[2] in langs:
      found.append(Finding(parts[2], path, "", "outdated" if "orphaned" not in state else
                           "orphan", f"{state}: run `python scripts/generate_exercises.py` "
                           "(never edit it by hand)"))
  return found


def _orphan_files(lang: str) -> list[Finding]:
  """Files of ``lang`` left behind by a renamed or deleted lesson or bank."""
  names = set(lessons.lesson_names())
  banks = {p.stem for p in _bank_paths()}
  found = []
  for path, known, what in [
      *[(p, names, "English lesson") for p in sorted((NOTEBOOKS_DIR / lang).glob("*.ipynb"))],
      *[(p, names, "English lesson")
        for p in sorted((TRANSLATIONS_DIR / lang / "notebooks").glob("*.yaml"))],
      *[(p, banks, "English quiz bank")
        for p in sorted((TRANSLATIONS_DIR / lang / "quizzes").glob("*.yaml"))]]:
    if path.stem not in known:
      fix = ("run `python -m adkcourse.i18n generate`, which removes it" if path.suffix == ".ipynb"
             else "rename it with its lesson, or remove it")
      found.append(Finding(lang, shown_path(path), "", "orphan",
                           f"no {what} named {path.stem}: {fix}"))
  return found


def _summary(found: list[Finding], langs: Sequence[str]) -> str:
  parts = []
  for lang in langs:
    mine = [f for f in found if f.language == lang]
    counts = {kind: sum(f.kind == kind for f in mine) for kind in
              ("missing", "stale", "unaccepted", "invalid", "orphan", "outdated", "term")}
    text = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n) or "up to date"
    parts.append(f"{lang}: {text}")
  return "; ".join(parts)


def _langs(given: Optional[list[str]]) -> list[str]:
  langs = given or list(LANGUAGES)
  unknown = [lang for lang in langs if lang not in LANGUAGES]
  if unknown:
    raise SystemExit(f"unknown language {unknown[0]!r}: the course is translated into "
                     f"{', '.join(LANGUAGES)} (adkcourse/i18n/__init__.py: LANGUAGES)")
  return langs


def _status(args: argparse.Namespace) -> int:
  langs = _langs(args.langs)
  found = findings(langs, generated=False)
  for finding in found:
    print(finding)
    if finding.kind == "stale" and "/notebooks/" in finding.file.replace("\\", "/"):
      lesson = Path(finding.file).stem
      print("    " + lessons.english_diff(finding.language, lesson, finding.where)
            .replace("\n", "\n    ").rstrip())
    elif finding.kind == "stale" and "/exercises/" in finding.file.replace("\\", "/"):
      print("    " + exercises.english_diff(finding.language, Path(finding.file).stem,
                                            finding.where).replace("\n", "\n    ").rstrip())
    elif finding.kind == "stale" and "/quizzes/" in finding.file.replace("\\", "/"):
      bank = next(b for b in _banks() if b.name == Path(finding.file).stem)
      print("    " + quizzes.english_diff(finding.language, bank, finding.where, TRANSLATIONS_DIR)
            .replace("\n", "\n    ").rstrip())
  print(_summary(found, langs), file=sys.stderr)
  return 0


def _check(args: argparse.Namespace) -> int:
  langs = list(LANGUAGES)
  found = findings(langs)
  for finding in found:
    print(finding)
  print(_summary(found, langs), file=sys.stderr)
  return 1 if found else 0


def _scaffold(args: argparse.Namespace) -> int:
  banks = _banks()
  for lang in _langs(args.langs):
    added = sum(lessons.scaffold(lang, lesson, prune=args.prune)
                for lesson in lessons.lesson_names())
    added += sum(quizzes.scaffold(lang, bank, TRANSLATIONS_DIR, prune=args.prune)
                 for bank in banks)
    added += sum(exercises.scaffold(lang, name, prune=args.prune) for name in exercises.names())
    added += grader.scaffold(lang, prune=args.prune)
    print(f"{lang}: {added} entries added under {TRANSLATIONS_DIR.name}/{lang}/", file=sys.stderr)
  return 0


def _accept(args: argparse.Namespace) -> int:
  lang = _langs([args.lang])[0]
  if args.name == grader.NAME or args.name.startswith(grader.CHECKS + "/"):
    ready = grader.acceptable(lang) if args.all else {args.name: list(args.ids)}
    done = sum(len(grader.accept(lang, name, ids, unchanged=args.unchanged))
               for name, ids in ready.items() if ids)
    print(f"accepted {done} grader texts ({lang})", file=sys.stderr)
    return 0
  if args.name == widget.NAME:
    keys, skipped = (widget.acceptable(lang) if args.all else (list(args.ids), []))
    if args.unchanged:
      keys, skipped = keys + skipped, []
    widget.accept(lang, keys, unchanged=args.unchanged)
    print(f"accepted {len(keys)} widget messages ({lang})", file=sys.stderr)
    if skipped:
      print(f"not accepted, stale and untouched since last accepted: {', '.join(skipped)}",
            file=sys.stderr)
      return 1
    return 0
  if args.name in exercises.names():
    return _accept_exercise(args, lang)
  is_lesson = (NOTEBOOKS_DIR / f"{args.name}.ipynb").exists()
  bank = next((b for b in _banks() if b.name == args.name), None)
  if not is_lesson and bank is None:
    raise SystemExit(f"no lesson or quiz bank named {args.name!r}")
  ids = list(args.ids)
  cells: list[str] = []
  questions: list[str] = []
  skipped: list[str] = []
  if args.all:
    skipped_cells: list[str] = []
    skipped_questions: list[str] = []
    if is_lesson:
      cells, skipped_cells = lessons.acceptable(lang, args.name)
    if bank is not None:
      questions, skipped_questions = quizzes.acceptable(lang, bank, TRANSLATIONS_DIR)
    if args.unchanged:
      cells, questions = cells + skipped_cells, questions + skipped_questions
    else:
      skipped = skipped_cells + skipped_questions
  else:
    cell_ids: set[str] = set()
    if is_lesson:
      cell_ids = set(lessons.english_cells(args.name)[1])
    question_ids = {q.id for q in bank.questions} if bank is not None else set()
    for item in ids:
      if item in cell_ids and item in question_ids:
        raise SystemExit(f"{item!r} is both a cell id and a question id of {args.name}: "
                         "rename one of them")
      if item in cell_ids:
        cells.append(item)
      elif item in question_ids:
        questions.append(item)
      else:
        raise SystemExit(f"{args.name} has no markdown cell and no question with the id "
                         f"{item!r}")
  if cells:
    lessons.accept(lang, args.name, cells, unchanged=args.unchanged)
  if questions and bank is not None:
    quizzes.accept(lang, bank, questions, TRANSLATIONS_DIR, unchanged=args.unchanged)
  print(f"accepted {len(cells)} cells and {len(questions)} questions of {args.name} ({lang})",
        file=sys.stderr)
  if skipped:
    print(f"not accepted, stale and untouched since last accepted: {', '.join(skipped)} "
          "(update them first; --unchanged if the English change needs none)", file=sys.stderr)
    return 1
  return 0


def _accept_exercise(args: argparse.Namespace, lang: str) -> int:
  """``accept LANG forget_user statement hint-1`` (or ``--all``): an exercise's texts, or the
  shared notebook texts (``_notebook``)."""
  skipped: list[str] = []
  if args.all:
    ids, skipped = exercises.acceptable(lang, args.name)
    if args.unchanged:
      ids, skipped = ids + skipped, []
  else:
    ids = list(args.ids)
  exercises.accept(lang, args.name, ids, unchanged=args.unchanged)
  print(f"accepted {len(ids)} texts of {args.name} ({lang}); then run `python "
        "scripts/generate_exercises.py`", file=sys.stderr)
  if skipped:
    print(f"not accepted, stale and untouched since last accepted: {', '.join(skipped)} "
          "(update them first; --unchanged if the English change needs none)", file=sys.stderr)
    return 1
  return 0


def _generate(args: argparse.Namespace) -> int:
  changed = 0
  for lang in _langs(args.langs):
    names = set(lessons.lesson_names())
    for stale in sorted((NOTEBOOKS_DIR / lang).glob("*.ipynb")):
      if stale.stem not in names:  # its English lesson was renamed or deleted
        stale.unlink()
        changed += 1
        print(f"removed {stale.relative_to(NOTEBOOKS_DIR.parent)}", file=sys.stderr)
    for lesson in lessons.lesson_names():
      if lessons.generate(lang, lesson, render=render_quiz):
        changed += 1
        print(f"wrote {lessons.generated_path(lang, lesson).relative_to(NOTEBOOKS_DIR.parent)}",
              file=sys.stderr)
  print(f"{changed} notebooks changed", file=sys.stderr)
  return 0


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
  """The command line, read and checked (exits with a usage message when it is wrong). Also
  what the tests read the commands of README.fr.md, README.id.md and docs/translating.md with,
  so that the translated guides cannot drift from the tool."""
  parser = argparse.ArgumentParser(prog="python -m adkcourse.i18n",
                                   description="Translations of the lessons and quizzes.")
  sub = parser.add_subparsers(dest="command", required=True)
  status = sub.add_parser("status", help="what is missing or stale, with English diffs")
  status.add_argument("langs", nargs="*")
  status.set_defaults(run=_status)
  check = sub.add_parser("check", help="fail on anything missing, stale or not generated")
  check.set_defaults(run=_check)
  scaffold = sub.add_parser("scaffold", help="add entries for untranslated cells and questions")
  scaffold.add_argument("langs", nargs="*")
  scaffold.add_argument("--prune", action="store_true", help="drop entries that match nothing")
  scaffold.set_defaults(run=_scaffold)
  accept = sub.add_parser("accept", help="mark entries as translating the current English")
  accept.add_argument("lang")
  accept.add_argument("name", help="lesson or bank name, e.g. 01_sessions_events_state, "
                      "`widget` for the quiz widget's own words, an exercise name such as "
                      "forget_user, or `_notebook` for the exercise notebooks' shared texts")
  accept.add_argument("ids", nargs="*", help="cell ids and/or question ids (for an exercise: "
                      "statement, hint-1, ...)")
  accept.add_argument("--all", action="store_true", help="every translated entry of NAME")
  accept.add_argument("--unchanged", action="store_true",
                      help="accept stale entries as they are (the English change needs no "
                           "change in the translation)")
  accept.set_defaults(run=_accept)
  generate = sub.add_parser("generate", help="write notebooks/<lang>/ from the English")
  generate.add_argument("langs", nargs="*")
  generate.set_defaults(run=_generate)
  args = parser.parse_args(argv)
  if args.command == "accept" and not args.ids and not args.all:
    parser.error("accept needs ids, or --all")
  return args


def main(argv: Optional[Sequence[str]] = None) -> int:
  args = parse_args(argv)
  try:
    return args.run(args)
  except (ValueError, KeyError) as error:
    print(f"error: {error}", file=sys.stderr)
    return 1

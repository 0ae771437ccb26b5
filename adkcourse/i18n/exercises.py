"""Exercise translations: the texts of each exercise notebook, per language, against their English.

Every exercise is written once, in English, in ``exercises/NAME.py``; ``scripts/generate_exercises.py``
writes the English notebook ``labs/exercises/NAME.ipynb`` and, from the files below, one per
course language, ``labs/exercises/<lang>/NAME.ipynb``. What a student reads is translated; the
code is not (the stub, the self-check call and the grader are the English ones).

``translations/fr/exercises/forget_user.yaml``::

    exercise: forget_user
    language: fr
    texts:
      statement:               # the docstring, as the notebook's first cell shows it ("# ...")
        hash: 3f0c9a1b2c4d     # source_hash() of the English below
        en: |
          # Exercise (lesson 2, SQLite memory): erase a student.
          ...
        text: |
          # Exercice (leçon 2, mémoire SQLite) : effacer un élève.
          ...
        text_hash: 9a8b7c6d5e4f   # source_hash() of `text` when last accepted
      hint-1:                  # the ### HINT: lines of the first solution block that has some
        ...

Entry ids: ``statement``; ``hint-N`` for the N-th solution block that carries ``### HINT:``
lines, in source order (inside a function they become the stub's ``NotImplementedError``
message; at module level, comments). The texts every exercise notebook shares (the "Check your
work" cell, the self-check cell's comments) live once, in ``translations/<lang>/exercises/_notebook.yaml``,
with ``{name}`` where the exercise's function name goes: one translation, not seven copies
that could drift. Their English is ``NOTEBOOK_TEXTS`` below, which the generator writes into
the English notebook too.

A translation is used only while its ``hash`` matches the current English: a changed statement
or hint shows in English, and ``python -m adkcourse.i18n check`` fails on it, until a translator
updates ``text`` and runs ``accept`` (as for the lessons, ``lessons.py``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

from . import (ENGLISH_NAMES, REPO_ROOT, TRANSLATIONS_DIR, first_words, normalized, source_hash,
               still_english)
from .findings import Finding, shown_path
from .numbers import numbers_problem
from .yamlfile import TranslationFileError, read
from .yamlio import dump

EXERCISES_DIR = REPO_ROOT / "exercises"
NOTEBOOK = "_notebook"
"""The name of the file of shared notebook texts (no exercise source starts with ``_``)."""

HINT, BEGIN = "### HINT:", "### BEGIN SOLUTION"
"""The generator's markers (``scripts/generate_exercises.py``; tests pin them equal)."""

NAME_FIELD = "{name}"
NOTEBOOK_TEXTS: dict[str, str] = {
    "check-your-work": (
        "## Check your work\n\nYour grade comes from the function named `{name}`, wherever it "
        "sits in this notebook. Only imports, definitions and constants are taken: experiments "
        "in other cells are not run by the grader."),
    "self-check-comment": "Run me after writing {name}: the same checks as the course grader.",
    "self-check-report-comment": "the score, what happened, and every check's feedback in full",
}
"""The English of the texts every exercise notebook shows around its statement and stub. Why
here and not in the generator: the translations are checked against them, and the generator
writes them (``{name}`` replaced) into the English notebook, so there is one English copy."""

ENTRY_KEYS = {"hash", "en", "text", "text_hash"}


@dataclass(frozen=True)
class TextTranslation:
  """One translated text of an exercise (or of the shared notebook texts)."""
  text_id: str
  hash: str
  en: str
  text: str
  line: Optional[int] = None
  text_hash: str = ""

  @property
  def accepted(self) -> bool:
    return bool(self.text_hash) and self.text_hash == source_hash(self.text)


# -- the English -------------------------------------------------------------------------------

def exercise_names(exercises_dir: Path = EXERCISES_DIR) -> list[str]:
  """The exercises, as the generator lists them: ``exercises/*.py`` not starting with ``_``."""
  return sorted(p.stem for p in exercises_dir.glob("*.py") if not p.stem.startswith("_"))


def hint_blocks(source: str) -> list[str]:
  """The hint of every solution block that has ``### HINT:`` lines, in order: the lines' texts
  joined by one space, exactly as the generator writes the stub's message."""
  hints: list[str] = []
  found: list[str] = []
  for line in source.splitlines():
    stripped = line.strip()
    if stripped.startswith(HINT):
      hints.append(stripped[len(HINT):].strip())
    elif stripped == BEGIN and hints:
      found.append(" ".join(hints))
      hints = []
    else:
      hints = []
  return found


def statement_markdown(docstring: str) -> str:
  """The statement as the notebook's first cell shows it: the docstring's first line a title."""
  return f"# {docstring}"


def english_texts(name: str, exercises_dir: Path = EXERCISES_DIR) -> dict[str, str]:
  """The translatable English of exercise ``name`` (id -> text, in notebook order), or of the
  shared notebook texts for ``_notebook``. Raises ``TranslationFileError`` naming the source
  when it cannot be read as Python or has no docstring (the generator refuses it too)."""
  if name == NOTEBOOK:
    return dict(NOTEBOOK_TEXTS)
  path = exercises_dir / f"{name}.py"
  source = path.read_text(encoding="utf-8")
  try:
    docstring = ast.get_docstring(ast.parse(source))
  except SyntaxError as error:
    raise TranslationFileError(f"does not parse as Python: {error.msg}", error.lineno,
                               shown_path(path)) from None
  if not docstring:
    raise TranslationFileError("has no module docstring: the statement is its docstring", 1,
                               shown_path(path))
  texts = {"statement": statement_markdown(docstring)}
  for number, hint in enumerate(hint_blocks(source), start=1):
    texts[f"hint-{number}"] = hint
  return texts


def names(exercises_dir: Path = EXERCISES_DIR) -> list[str]:
  """Every translation file's name: the shared notebook texts, then each exercise."""
  return [NOTEBOOK, *exercise_names(exercises_dir)]


# -- the files ---------------------------------------------------------------------------------

def translation_path(lang: str, name: str, root: Path = TRANSLATIONS_DIR) -> Path:
  return root / lang / "exercises" / f"{name}.yaml"


def load(path: Path, lang: str) -> tuple[dict[str, TextTranslation], list[Finding]]:
  """The usable entries of a translation file, and a finding naming file, line and entry for
  every one that is not (a whole file that cannot be read is one ``invalid`` finding)."""
  file = shown_path(path)
  if not path.exists():
    return {}, []
  try:
    _, lines, raw = read(path, "texts", {"language": lang, "exercise": path.stem})
  except TranslationFileError as error:
    return {}, [Finding.invalid(lang, error)]
  entries: dict[str, TextTranslation] = {}
  problems: list[Finding] = []
  for text_id, entry in raw.items():
    line = lines.get(text_id)
    if not isinstance(entry, dict):
      problems.append(Finding(lang, file, text_id, "invalid", "an entry needs `hash:`, `en:` "
                              "and `text:` lines under its id", line))
      continue
    unknown = sorted(set(map(str, entry)) - ENTRY_KEYS)
    if unknown:
      problems.append(Finding(lang, file, text_id, "invalid", f"unknown key {unknown[0]!r}: an "
                              "entry has only `hash`, `en`, `text` and `text_hash`", line))
      continue
    values = {key: entry.get(key) for key in ENTRY_KEYS}
    bad = [key for key, value in values.items() if value is not None and not isinstance(value, str)]
    if bad:
      problems.append(Finding(lang, file, text_id, "invalid", f"`{bad[0]}` must be text, not "
                              f"{type(values[bad[0]]).__name__}: put quotes around it", line))
      continue
    entries[text_id] = TextTranslation(text_id, values["hash"] or "", values["en"] or "",
                                       values["text"] or "", line, values["text_hash"] or "")
  return entries, problems


HEADER = """\
# {language} translation of {what}, one entry per text.
# Translate `text`; `en` is the English it was made from and `hash` that text's fingerprint.
# When the English changes, `python -m adkcourse.i18n status {lang}` lists the entry as stale
# with a diff; update `text`, then `python -m adkcourse.i18n accept {lang} {name} ENTRY_ID`.
# Code spans and indented code lines stay exactly as in English.{extra}
# Then `python scripts/generate_exercises.py` writes labs/exercises/{lang}/. Workflow: docs/translating.md
"""


def write(path: Path, lang: str, name: str, entries: dict[str, TextTranslation]) -> None:
  data = {"exercise": name, "language": lang,
          "texts": {text_id: {"hash": e.hash, "en": e.en, "text": e.text,
                              **({"text_hash": e.text_hash} if e.text_hash else {})}
                    for text_id, e in entries.items()}}
  what = ("the texts every exercise notebook shares" if name == NOTEBOOK
          else f"exercises/{name}.py (its statement and hints)")
  extra = ("\n# Keep `{name}` where the exercise's function name goes." if name == NOTEBOOK
           else "")
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(dump(data, HEADER.format(language=ENGLISH_NAMES.get(lang, lang), what=what,
                                           lang=lang, name=name, extra=extra)),
                  encoding="utf-8")


# -- what a translation must keep --------------------------------------------------------------

_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_COMMENT = re.compile(r"\s+#.*$")


def _code_spans(text: str) -> list[str]:
  return sorted({match.group(0) for match in _CODE_SPAN.finditer(text)})


def _code_lines(text: str) -> list[str]:
  """The lines of the text's indented code blocks (a paragraph whose every line is indented by
  four spaces or more), without their comments, which a translator may translate."""
  lines: list[str] = []
  for paragraph in re.split(r"\n[ \t]*\n", normalized(text)):
    rows = [row for row in paragraph.split("\n") if row.strip()]
    if rows and all(row.startswith("    ") for row in rows):
      lines += [_COMMENT.sub("", row).rstrip() for row in rows]
  return lines


def keeping_problem(text_id: str, english: str, text: str) -> Optional[str]:
  """Why ``text`` cannot stand for ``english`` (the statements are contracts: a lost code
  span, code line, number or ``{name}`` changes what is asked), or None."""
  lost = [span for span in _code_spans(english) if span not in text]
  if lost:
    return f"the code span {lost[0]} of the English is missing from `text`: keep it as it is"
  code = _code_lines(text)
  missing = [line for line in _code_lines(english) if line not in code]
  if missing:
    return (f"the code line {missing[0].strip()!r} of the English is missing from `text`: keep "
            "indented code exactly as it is (only its comments may be translated)")
  if english.count(NAME_FIELD) != text.count(NAME_FIELD):
    return (f"`text` has {text.count(NAME_FIELD)} `{NAME_FIELD}`, the English "
            f"{english.count(NAME_FIELD)}: it is where the exercise's function name goes")
  return numbers_problem(english, text)


# -- findings ----------------------------------------------------------------------------------

def file_findings(lang: str, name: str, exercises_dir: Path = EXERCISES_DIR,
                  root: Path = TRANSLATIONS_DIR) -> list[Finding]:
  """Every text of ``name`` whose ``lang`` translation is missing, stale, unaccepted or unusable,
  and every entry whose English text is gone."""
  path = translation_path(lang, name, root)
  file = shown_path(path)
  if not path.exists():
    return [Finding(lang, file, "", "missing", f"no translation file for {name}: run "
                    f"`python -m adkcourse.i18n scaffold {lang}` to create it")]
  entries, found = load(path, lang)
  if any(f.kind == "invalid" and not f.where for f in found):
    return found  # the whole file is unusable: one finding, not one per text as well
  try:
    texts = english_texts(name, exercises_dir)
  except TranslationFileError as error:
    return found + [Finding.invalid(lang, error)]
  accept = f"`python -m adkcourse.i18n accept {lang} {name} "
  for text_id, english in texts.items():
    entry = entries.get(text_id)
    words = first_words(english)
    if entry is None:
      if not any(f.where == text_id for f in found):
        found.append(Finding(lang, file, text_id, "missing", f'no entry for "{words}": run '
                             f"`python -m adkcourse.i18n scaffold {lang}`"))
    elif not entry.text.strip():
      found.append(Finding(lang, file, text_id, "missing", f'no translation yet for "{words}"',
                           entry.line))
    elif still_english(entry.text, english):
      found.append(Finding(lang, file, text_id, "missing", f'`text` is still the English of '
                           f'"{words}": translate it', entry.line))
    elif entry.hash != source_hash(english):
      found.append(Finding(lang, file, text_id, "stale", f'the English "{words}" changed since '
                           f"this translation: update `text`, then run {accept}{text_id}`",
                           entry.line))
    elif not entry.accepted:
      found.append(Finding(lang, file, text_id, "unaccepted", "`text` is new or changed since it "
                           "was last accepted: check that it translates the English, then run "
                           f"{accept}{text_id}`", entry.line))
    elif entry.hash != source_hash(entry.en):
      found.append(Finding(lang, file, text_id, "invalid", "`en` does not match `hash`: it was "
                           f"edited by hand; run {accept}{text_id}` once `text` translates the "
                           "current English", entry.line))
    elif (problem := keeping_problem(text_id, english, entry.text)) is not None:
      found.append(Finding(lang, file, text_id, "invalid", problem, entry.line))
  source = "the shared notebook texts" if name == NOTEBOOK else f"exercises/{name}.py"
  for text_id, entry in entries.items():
    if text_id not in texts:
      found.append(Finding(lang, file, text_id, "orphan", f"{source} has no text {text_id!r} "
                           f"any more: remove the entry (`python -m adkcourse.i18n scaffold "
                           f"{lang} --prune`)", entry.line))
  return found


def findings(lang: str, exercises_dir: Path = EXERCISES_DIR,
             root: Path = TRANSLATIONS_DIR) -> list[Finding]:
  """Every finding of ``lang``'s exercise translations, files of a deleted exercise included.

  A tree without an ``exercises/`` folder (a copy of the lessons' machinery alone) has no
  exercise to compare with: nothing is reported, rather than every file as an orphan."""
  if not exercises_dir.is_dir():
    return []
  result: list[Finding] = []
  known = names(exercises_dir)
  for name in known:
    result += file_findings(lang, name, exercises_dir, root)
  for path in sorted((root / lang / "exercises").glob("*.yaml")):
    if path.stem not in known:
      result.append(Finding(lang, shown_path(path), "", "orphan", f"no exercise named "
                            f"{path.stem} (exercises/{path.stem}.py): rename the file with its "
                            "exercise, or remove it"))
  return result


def english_diff(lang: str, name: str, text_id: str, exercises_dir: Path = EXERCISES_DIR,
                 root: Path = TRANSLATIONS_DIR) -> str:
  """What changed in the English text since it was translated (a unified diff of ``en``)."""
  from .lessons import text_diff  # lessons imports nbformat; the generator needs only this file

  entries, _ = load(translation_path(lang, name, root), lang)
  current = english_texts(name, exercises_dir).get(text_id, "")
  before = entries[text_id].en if text_id in entries else ""
  return text_diff(normalized(before), normalized(current))


# -- the tools ---------------------------------------------------------------------------------

def _usable(lang: str, name: str, root: Path) -> dict[str, TextTranslation]:
  """The entries of a file that scaffold and accept may rewrite: refused when any is invalid,
  so that nothing a translator wrote is lost."""
  entries, problems = load(translation_path(lang, name, root), lang)
  if problems:
    raise TranslationFileError("; ".join(str(p) for p in problems))
  return entries


def scaffold(lang: str, name: str, *, prune: bool = False, exercises_dir: Path = EXERCISES_DIR,
             root: Path = TRANSLATIONS_DIR) -> int:
  """Add an entry (English, hash, no text) for every text that has none, in notebook order; keep
  every existing entry as it is. Returns the number of entries added."""
  path = translation_path(lang, name, root)
  entries = _usable(lang, name, root)
  texts = english_texts(name, exercises_dir)
  ordered: dict[str, TextTranslation] = {}
  added = 0
  for text_id, english in texts.items():
    if text_id in entries:
      ordered[text_id] = entries[text_id]
    else:
      ordered[text_id] = TextTranslation(text_id, source_hash(english), normalized(english), "")
      added += 1
  if not prune:
    ordered.update({k: v for k, v in entries.items() if k not in ordered})
  if added or ordered != entries or not path.exists():
    write(path, lang, name, ordered)
  return added


def accept(lang: str, name: str, text_ids: Iterable[str], *, unchanged: bool = False,
           exercises_dir: Path = EXERCISES_DIR, root: Path = TRANSLATIONS_DIR) -> list[str]:
  """Record that the translations of ``text_ids`` match the current English (sets ``en``,
  ``hash`` and ``text_hash``). A stale entry whose ``text`` was not touched since it was last
  accepted is refused, unless ``unchanged`` says the English change needs none; so is a text
  that loses a code span, a code line, a number or ``{name}``."""
  entries = _usable(lang, name, root)
  texts = english_texts(name, exercises_dir)
  changed = []
  for text_id in text_ids:
    if text_id not in texts:
      raise KeyError(f"{name} has no text {text_id!r} (its texts: {', '.join(texts)})")
    english = texts[text_id]
    entry = entries.get(text_id)
    if entry is None or not entry.text.strip():
      raise ValueError(f"{name} {text_id}: translate `text` first; accept records that it is "
                       "current")
    if still_english(entry.text, english):
      raise ValueError(f"{name} {text_id}: `text` is still the English: translate it first")
    if entry.hash != source_hash(english) and entry.accepted and not unchanged:
      raise ValueError(f"{name} {text_id}: the English changed but `text` is the one accepted "
                       f"before: update it (`python -m adkcourse.i18n status {lang}` shows the "
                       "English diff), or pass --unchanged if the change needs none")
    problem = keeping_problem(text_id, english, entry.text)
    if problem is not None:
      raise ValueError(f"{name} {text_id}: {problem}")
    entries[text_id] = TextTranslation(text_id, source_hash(english), normalized(english),
                                       entry.text, text_hash=source_hash(entry.text))
    changed.append(text_id)
  write(translation_path(lang, name, root), lang, name, entries)
  return changed


def acceptable(lang: str, name: str, *, exercises_dir: Path = EXERCISES_DIR,
               root: Path = TRANSLATIONS_DIR) -> tuple[list[str], list[str]]:
  """For ``accept --all``: (texts that can be accepted, stale texts skipped because they were not
  touched since last accepted)."""
  entries, _ = load(translation_path(lang, name, root), lang)
  texts = english_texts(name, exercises_dir)
  ready, untouched = [], []
  for text_id, entry in entries.items():
    if (text_id not in texts or not entry.text.strip()
        or still_english(entry.text, texts[text_id])):
      continue
    stale = entry.hash != source_hash(texts[text_id])
    (untouched if stale and entry.accepted else ready).append(text_id)
  return ready, untouched


# -- for the generator -------------------------------------------------------------------------

Translator = Callable[[str, str], Optional[str]]
"""(entry id, the English the generator is about to write) -> its translation, or None."""


def translator(lang: str, name: str, root: Path = TRANSLATIONS_DIR) -> Translator:
  """What ``scripts/generate_exercises.py`` asks for each text of a ``lang`` notebook. A
  translation is given only when it was made from exactly the English the generator holds (its
  ``hash``), so a changed statement or hint shows in English, never the outdated translation;
  an unreadable file gives none (``check`` reports it as invalid). Shared notebook texts are
  looked up in ``_notebook.yaml`` by their id, with their ``{name}`` template as the English."""
  files = {file: load(translation_path(lang, file, root), lang)[0] for file in (name, NOTEBOOK)}

  def translate(text_id: str, english: str) -> Optional[str]:
    entries = files[NOTEBOOK] if text_id in NOTEBOOK_TEXTS else files[name]
    entry = entries.get(text_id)
    if (entry is None or not entry.text.strip() or entry.hash != source_hash(english)
        or still_english(entry.text, english)):
      return None
    return normalized(entry.text).strip("\n")

  return translate


def with_name(template: str, name: str) -> str:
  """A shared text with the exercise's function name in place of ``{name}``."""
  return template.replace(NAME_FIELD, name)


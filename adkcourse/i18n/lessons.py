"""Lesson translations: one YAML file per language and lesson, one entry per markdown cell.

``translations/fr/notebooks/01_sessions_events_state.yaml``::

    cells:
      '8bbc32c1':              # the English cell's nbformat id
        hash: 3f0c9a1b2c4d     # source_hash() of the English text below
        en: |                  # the English text this translation was made from
          # Lesson 1 — Sessions, events and scoped state
        text: |                # the translation
          # Leçon 1 — Sessions, événements et état
    
Why the English copy: when a cell changes, ``status`` shows what changed in English (a diff of
``en`` against the notebook), which is what a translator needs to update ``text``; ``accept``
then records the new English. Code cells are never translated: the generated notebook copies
them, and their outputs, from the executed English notebook (but for the quiz's fallback and the
timeline pictures, drawn again in the language: see ``translated_notebook``).
"""

from __future__ import annotations

import copy
import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

import nbformat

from . import (ENGLISH_NAMES, LANGUAGES, NOTEBOOKS_DIR, TRANSLATIONS_DIR, first_words, normalized,
               source_hash, still_english)
from .numbers import numbers_problem
from .findings import Finding, shown_path
from .yamlfile import TranslationFileError, read
from .yamlio import dump

ENTRY_KEYS = {"hash", "en", "text", "text_hash"}


@dataclass(frozen=True)
class CellTranslation:
  cell_id: str
  hash: str
  en: str
  text: str
  line: Optional[int] = None
  text_hash: str = ""
  """``source_hash(text)`` when ``accept`` last recorded that ``text`` translates ``en``: so
  that accepting a stale entry proves its text was touched since (see ``accept``)."""

  @property
  def accepted(self) -> bool:
    return bool(self.text_hash) and self.text_hash == source_hash(self.text)


def lesson_names(notebooks_dir: Path = NOTEBOOKS_DIR) -> list[str]:
  """The English lessons: ``notebooks/*.ipynb`` (translations live in sub-folders)."""
  return sorted(p.stem for p in notebooks_dir.glob("*.ipynb"))


def english_path(lesson: str, notebooks_dir: Path = NOTEBOOKS_DIR) -> Path:
  return notebooks_dir / f"{lesson}.ipynb"


def translation_path(lang: str, lesson: str, root: Path = TRANSLATIONS_DIR) -> Path:
  return root / lang / "notebooks" / f"{lesson}.yaml"


def generated_path(lang: str, lesson: str, notebooks_dir: Path = NOTEBOOKS_DIR) -> Path:
  return notebooks_dir / lang / f"{lesson}.ipynb"


def markdown_cells(notebook: Any) -> list[tuple[str, str]]:
  """(cell id, source) of every markdown cell, in order."""
  return [(cell["id"], _source(cell)) for cell in notebook["cells"]
          if cell["cell_type"] == "markdown"]


def _source(cell: Any) -> str:
  source = cell["source"]
  return "".join(source) if isinstance(source, list) else source


def english_cells(lesson: str, notebooks_dir: Path = NOTEBOOKS_DIR) -> tuple[Any, dict[str, str]]:
  """The English notebook of ``lesson`` and its markdown cells (id -> source, in order).

  Raises ``TranslationFileError`` when a cell id is used twice or missing, checked on the raw
  file: nbformat would invent new ids for those on every read, so every translation would look
  missing and ``scaffold`` would write random ids."""
  path = english_path(lesson, notebooks_dir)
  text = path.read_text(encoding="utf-8")
  raw_ids = [cell.get("id") for cell in json.loads(text)["cells"]]
  repeated = sorted({i for i in raw_ids if i is not None and raw_ids.count(i) > 1})
  if None in raw_ids or repeated:
    what = f"the cell id {repeated[0]!r} is used twice" if repeated else "a cell has no id"
    raise TranslationFileError(f"{what}: give every cell its own id in the English notebook "
                               "(JupyterLab does when it saves), then scaffold",
                               file=shown_path(path))
  notebook = nbformat.reads(text, as_version=4)
  return notebook, dict(markdown_cells(notebook))


def load(path: Path, lang: str) -> tuple[dict[str, CellTranslation], list[Finding]]:
  """The usable entries of a translation file, and a finding for every entry that is not."""
  file = shown_path(path)
  if not path.exists():
    return {}, []
  try:
    _, lines, raw = read(path, "cells", {"language": lang, "lesson": path.stem})
  except TranslationFileError as error:
    return {}, [Finding.invalid(lang, error)]
  entries: dict[str, CellTranslation] = {}
  findings: list[Finding] = []
  for cell_id, entry in raw.items():
    line = lines.get(cell_id)
    if not isinstance(entry, dict):
      findings.append(Finding(lang, file, cell_id, "invalid", "an entry needs `hash:`, `en:` "
                              "and `text:` lines under the cell id", line))
      continue
    unknown = sorted(set(map(str, entry)) - ENTRY_KEYS)
    if unknown:
      findings.append(Finding(lang, file, cell_id, "invalid", f"unknown key {unknown[0]!r}: an "
                              "entry has only `hash`, `en`, `text` and `text_hash`", line))
      continue
    values = {key: entry.get(key) for key in ENTRY_KEYS}
    bad = [key for key, value in values.items() if value is not None and not isinstance(value, str)]
    if bad:
      findings.append(Finding(lang, file, cell_id, "invalid", f"`{bad[0]}` must be text, not "
                              f"{type(values[bad[0]]).__name__}: put quotes around it", line))
      continue
    entries[cell_id] = CellTranslation(cell_id, values["hash"] or "", values["en"] or "",
                                       values["text"] or "", line, values["text_hash"] or "")
  return entries, findings


def lesson_findings(lang: str, lesson: str, notebooks_dir: Path = NOTEBOOKS_DIR,
                    root: Path = TRANSLATIONS_DIR) -> list[Finding]:
  """Every markdown cell of ``lesson`` whose ``lang`` translation is missing, stale or unusable,
  and every entry whose English cell is gone."""
  path = translation_path(lang, lesson, root)
  file = shown_path(path)
  entries, findings = load(path, lang)
  if not path.exists():
    return [Finding(lang, file, "", "missing", f"no translation file for {lesson}: run "
                    f"`python -m adkcourse.i18n scaffold {lang}` to create it")]
  try:
    _, cells = english_cells(lesson, notebooks_dir)
  except TranslationFileError as error:
    return findings + [Finding.invalid(lang, error)]
  for cell_id, source in cells.items():
    entry = entries.get(cell_id)
    words = first_words(source)
    if entry is None:
      if not any(f.where == cell_id for f in findings):
        findings.append(Finding(lang, file, cell_id, "missing", f"no entry for the cell "
                                f'"{words}"'))
    elif not entry.text.strip():
      findings.append(Finding(lang, file, cell_id, "missing", f'no translation yet for "{words}"',
                              entry.line))
    elif still_english(entry.text, source):
      findings.append(Finding(lang, file, cell_id, "missing", f'`text` is still the English of '
                              f'"{words}": translate it', entry.line))
    elif entry.hash != source_hash(source):
      findings.append(Finding(lang, file, cell_id, "stale", f'the English cell "{words}" changed '
                              "since this translation: update `text`, then run `python -m "
                              f"adkcourse.i18n accept {lang} {lesson} {cell_id}`", entry.line))
    elif not entry.accepted:
      findings.append(Finding(lang, file, cell_id, "unaccepted", "`text` is new or changed since "
                              "it was last accepted: check that it translates the English, then "
                              f"run `python -m adkcourse.i18n accept {lang} {lesson} {cell_id}`",
                              entry.line))
    elif entry.hash != source_hash(entry.en):
      findings.append(Finding(lang, file, cell_id, "invalid", "`en` does not match `hash`: it "
                              "was edited by hand; run `python -m adkcourse.i18n accept "
                              f"{lang} {lesson} {cell_id}` once `text` translates the current "
                              "English", entry.line))
    elif (problem := checklist_problem(source, entry.text, "`text`")) is not None:
      findings.append(Finding(lang, file, cell_id, "invalid", problem, entry.line))
    elif (problem := numbers_problem(source, entry.text)) is not None:
      findings.append(Finding(lang, file, cell_id, "invalid", problem, entry.line))
  for cell_id, entry in entries.items():
    if cell_id not in cells:
      findings.append(Finding(lang, file, cell_id, "orphan", "no markdown cell has this id in "
                              f"{english_path(lesson, notebooks_dir).name} any more: remove the "
                              f"entry (`python -m adkcourse.i18n scaffold {lang} --prune`)",
                              entry.line))
  return findings


def english_diff(lang: str, lesson: str, cell_id: str, notebooks_dir: Path = NOTEBOOKS_DIR,
                 root: Path = TRANSLATIONS_DIR) -> str:
  """What changed in the English cell since it was translated (a unified diff of ``en``)."""
  entries, _ = load(translation_path(lang, lesson, root), lang)
  current = english_cells(lesson, notebooks_dir)[1].get(cell_id, "")
  before = entries[cell_id].en if cell_id in entries else ""
  return text_diff(normalized(before), normalized(current))


def text_diff(before: str, after: str) -> str:
  """A unified diff of two texts, one line per line: a last line without its newline is not
  glued to the next one (``splitlines(True)`` would print ``-old last+new last``)."""
  return "\n".join(difflib.unified_diff(before.splitlines(), after.splitlines(),
                                        "translated from", "English now", lineterm=""))


HEADER = """\
# {name} translation of notebooks/{lesson}.ipynb, one entry per markdown cell (by cell id).
# Translate `text`; `en` is the English it was made from and `hash` that text's fingerprint.
# When the English changes, `python -m adkcourse.i18n status {lang}` lists the cell as stale
# with a diff; update `text`, then `python -m adkcourse.i18n accept {lang} {lesson} CELL_ID`.
# Code cells are not translated. Workflow: docs/translating.md
"""


def write(path: Path, lang: str, lesson: str, entries: dict[str, CellTranslation]) -> None:
  data = {"lesson": lesson, "language": lang,
          "cells": {cell_id: {"hash": e.hash, "en": e.en, "text": e.text,
                              **({"text_hash": e.text_hash} if e.text_hash else {})}
                    for cell_id, e in entries.items()}}
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(dump(data, HEADER.format(name=ENGLISH_NAMES.get(lang, lang), lesson=lesson,
                                           lang=lang)), encoding="utf-8")


def scaffold(lang: str, lesson: str, *, prune: bool = False, notebooks_dir: Path = NOTEBOOKS_DIR,
             root: Path = TRANSLATIONS_DIR) -> int:
  """Add an empty entry (English, hash, no text) for every untranslated cell, in notebook order;
  keep every existing entry as it is (stale ones too). Returns the number of entries added.
  Refuses a file with invalid entries, so nothing a translator wrote is lost."""
  path = translation_path(lang, lesson, root)
  entries, problems = load(path, lang)
  if problems:
    raise TranslationFileError("; ".join(str(p) for p in problems))
  _, cells = english_cells(lesson, notebooks_dir)
  ordered: dict[str, CellTranslation] = {}
  added = 0
  for cell_id, source in cells.items():
    if cell_id in entries:
      ordered[cell_id] = entries[cell_id]
    else:
      ordered[cell_id] = CellTranslation(cell_id, source_hash(source), normalized(source), "")
      added += 1
  if not prune:
    ordered.update({k: v for k, v in entries.items() if k not in ordered})
  write(path, lang, lesson, ordered)
  return added


def accept(lang: str, lesson: str, cell_ids: Iterable[str], *, unchanged: bool = False,
           notebooks_dir: Path = NOTEBOOKS_DIR, root: Path = TRANSLATIONS_DIR) -> list[str]:
  """Record that the translations of ``cell_ids`` now match the current English (after the
  translator updated ``text``): sets ``en``, ``hash`` and ``text_hash``. Returns the ids changed.

  A stale entry whose ``text`` is exactly what was last accepted is refused: accepting it would
  pass off the old translation as current. When an English change really needs no change in
  the translation (a typo, a line break), say so with ``unchanged=True`` (``--unchanged``)."""
  path = translation_path(lang, lesson, root)
  entries, problems = load(path, lang)
  if problems:
    raise TranslationFileError("; ".join(str(p) for p in problems))
  _, current = english_cells(lesson, notebooks_dir)
  changed = []
  for cell_id in cell_ids:
    if cell_id not in current:
      raise KeyError(f"{lesson} has no markdown cell {cell_id!r}")
    entry = entries.get(cell_id)
    if entry is None or not entry.text.strip():
      raise ValueError(f"{cell_id}: translate `text` first; accept records that it is current")
    if still_english(entry.text, current[cell_id]):
      raise ValueError(f"{cell_id}: `text` is still the English: translate it first")
    stale = entry.hash != source_hash(current[cell_id])
    if stale and entry.accepted and not unchanged:
      raise ValueError(f"{cell_id}: the English changed but `text` is the one accepted before: "
                       f"update it (`python -m adkcourse.i18n status {lang}` shows the English "
                       "diff), or pass --unchanged if the change needs none")
    entries[cell_id] = CellTranslation(cell_id, source_hash(current[cell_id]),
                                       normalized(current[cell_id]), entry.text,
                                       text_hash=source_hash(entry.text))
    changed.append(cell_id)
  write(path, lang, lesson, entries)
  return changed


def acceptable(lang: str, lesson: str, *, notebooks_dir: Path = NOTEBOOKS_DIR,
               root: Path = TRANSLATIONS_DIR) -> tuple[list[str], list[str]]:
  """For ``accept --all``: (cells whose translation can be accepted, stale cells skipped because
  their text was not touched since it was last accepted)."""
  entries, _ = load(translation_path(lang, lesson, root), lang)
  _, current = english_cells(lesson, notebooks_dir)
  ready, untouched = [], []
  for cell_id, entry in entries.items():
    if (cell_id not in current or not entry.text.strip()
        or still_english(entry.text, current[cell_id])):
      continue
    stale = entry.hash != source_hash(current[cell_id])
    (untouched if stale and entry.accepted else ready).append(cell_id)
  return ready, untouched


# -- generated notebooks -------------------------------------------------------------------------

_LINK = re.compile(r"(\]\(<?|\b(?:href|src)=[\"']|^\s{0,3}\[[^\]]+\]:\s*<?)([^)\"'\s>]+)",
                   re.MULTILINE)
_CODE = re.compile(r"^```.*?^```|`[^`\n]+`", re.MULTILINE | re.DOTALL)


_EXERCISE = re.compile(r"(?<![\w.-])((?:\.\./)*labs/exercises/)([A-Za-z0-9_]+\.ipynb)\b")
"""An English exercise notebook as the lessons name it: ``labs/exercises/NAME.ipynb`` in a code
span, or a link target with its ``../`` prefixes."""


def exercise_names(notebooks_dir: Path = NOTEBOOKS_DIR) -> set[str]:
  """The exercises that have a notebook in every course language: each ``exercises/NAME.py``
  (``scripts/generate_exercises.py`` writes ``labs/exercises/<lang>/NAME.ipynb`` for all)."""
  return {p.stem for p in (notebooks_dir.parent / "exercises").glob("*.py")
          if not p.stem.startswith("_")}


def relink(markdown: str, lesson_names_in_language: set[str], lang: Optional[str] = None,
           exercises: Iterable[str] = ()) -> str:
  """Rewrite the relative links of a cell written for ``notebooks/`` so that they work from
  ``notebooks/<lang>/``: a link to a lesson that exists in the language stays (it reaches the
  translated sibling), anything else gets one more ``../``. Inline links, ``<...>`` targets,
  reference definitions and ``href``/``src`` attributes are rewritten; other code is left alone.

  With ``lang``, every mention of an exercise notebook in ``exercises`` (code spans included,
  where the lessons name ``labs/exercises/NAME.ipynb`` from the repository's root) becomes that
  language's, ``labs/exercises/<lang>/NAME.ipynb``: a French lesson sends its students to the
  French exercise, not to the English one."""
  if lang:
    known = {f"{name}.ipynb" for name in exercises}
    markdown = _EXERCISE.sub(lambda m: f"{m.group(1)}{lang}/{m.group(2)}"
                             if m.group(2) in known else m.group(0), markdown)
  def fix(match: re.Match) -> str:
    lead, target = match.group(1), match.group(2)
    if re.match(r"^([a-z][a-z0-9+.-]*:|#|/)", target, re.IGNORECASE):
      return match.group(0)
    bare = target[2:] if target.startswith("./") else target
    path = bare.split("#", 1)[0]
    if path.endswith(".ipynb") and "/" not in path and path[:-6] in lesson_names_in_language:
      return lead + bare
    return lead + "../" + bare

  parts, last = [], 0
  for code in _CODE.finditer(markdown):
    parts.append(_LINK.sub(fix, markdown[last:code.start()]))
    parts.append(code.group(0))
    last = code.end()
  parts.append(_LINK.sub(fix, markdown[last:]))
  return "".join(parts)


QuizRenderer = Callable[[str, str], dict[str, str]]
"""(bank name, language) -> {"text/html": ..., "text/plain": ...}: the quiz's readable fallback."""


_QUIZ_CALL = re.compile(r"^\s*(?:\w+\s*=\s*)?show_quiz\(\s*[\"']([^\"']+)[\"']", re.MULTILINE)


def _quiz_outputs(cell: Any, lang: str, render: QuizRenderer) -> None:
  """The quiz cell's fallback in ``lang``: only for a cell whose statement is one
  ``show_quiz("bank")`` call (a comment or a string that mentions it is not one). The cell's
  checklist output, when it also shows one, is left to ``_checklist_outputs``."""
  calls = _QUIZ_CALL.findall(_source(cell))
  if len(calls) != 1:
    return
  match = calls[0]
  rendered = render(match, lang)
  for output in cell.get("outputs", []):
    data = output.get("data", {})
    if _is_checklist_output(data):
      continue
    for mime, text in rendered.items():
      if mime in data:
        data[mime] = text


_CHECKLIST_CALL = re.compile(r"^\s*(?:\w+\s*=\s*)?show_checklist\(\s*[\"']([^\"']+)[\"']",
                             re.MULTILINE)
_CHECKLIST_HTML = '<div class="adkcourse-checklist">'
"""How a checklist's HTML fallback begins (``adkcourse.quiz.checklist.HTML_START``)."""


def _is_checklist_output(data: Any) -> bool:
  text = data.get("text/html", "")
  return ("".join(text) if isinstance(text, list) else text).startswith(_CHECKLIST_HTML)


def _checklist_outputs(cell: Any, lang: str, items: Callable[[], list[str]]) -> None:
  """The checklist's fallback in ``lang`` (its items as the ``lang`` notebook's markdown lists
  them, ``items()``): only for a cell with one ``show_checklist("lesson")`` call."""
  if len(_CHECKLIST_CALL.findall(_source(cell))) != 1:
    return
  from adkcourse.quiz.checklist import ChecklistError, fallback_data

  try:
    rendered = fallback_data(items(), lang)
  except ChecklistError:  # a broken translated comment: `check` reports it (lesson_findings)
    return
  for output in cell.get("outputs", []):
    data = output.get("data", {})
    if _is_checklist_output(data):
      for mime, text in rendered.items():
        if mime in data:
          data[mime] = text


def checklist_problem(english: str, text: str, where: str) -> Optional[str]:
  """Why the translated cell ``text`` cannot show the checklist its English cell has (no, or a
  malformed, ``<!-- i-can`` comment, or another number of items), or None."""
  if "<!-- i-can" not in english:
    return None
  from adkcourse.quiz.checklist import ChecklistError, parse_items

  try:
    wanted = len(parse_items([english], "the English cell"))
  except ChecklistError:  # the English lesson's own problem: its tests and show_checklist say so
    return None
  try:
    found = len(parse_items([text], where))
  except ChecklistError as error:
    return str(error)
  if found != wanted:
    return (f"{where}: the `<!-- i-can` comment has {found} items, the English one {wanted}: "
            "translate each item, no more, no fewer")
  return None


def _timeline_outputs(cell: Any, lang: str) -> None:
  """Every timeline picture of the cell drawn again in ``lang`` (``adkcourse.timeline``): its
  output carries the layout it was drawn from, so the picture, its PNG and its text become what
  the kernel draws in a ``lang`` notebook, which nbval compares. Imported only for a cell with
  an output that has metadata (matplotlib and ADK are slow to import)."""
  outputs = [output for output in cell.get("outputs", []) if output.get("metadata")]
  if not outputs:
    return
  from adkcourse.timeline import rerender_output

  for output in outputs:
    rerender_output(output, lang)


def translated_notebook(lang: str, lesson: str, *, render: QuizRenderer,
                        notebooks_dir: Path = NOTEBOOKS_DIR,
                        root: Path = TRANSLATIONS_DIR) -> Any:
  """The ``lang`` notebook of ``lesson``: current translations in place of the English markdown
  (a cell without a current translation stays English, and ``check`` fails on it), code cells
  and outputs copied, the quiz's and the "I can" checklist's fallback outputs rendered in
  ``lang``, and every timeline picture that follows the notebook's language drawn again in
  ``lang``."""
  english, _ = english_cells(lesson, notebooks_dir)
  entries, _ = load(translation_path(lang, lesson, root), lang)
  siblings = set(lesson_names(notebooks_dir))
  exercises = exercise_names(notebooks_dir)
  notebook = copy.deepcopy(english)
  for cell in notebook.cells:
    if cell.cell_type == "markdown":
      entry = entries.get(cell.id)
      source = _source(cell)
      if entry is not None and entry.text.strip() and entry.hash == source_hash(source):
        cell.source = relink(entry.text.rstrip("\n"), siblings, lang, exercises)
      else:
        cell.source = relink(source, siblings, lang, exercises)

  def checklist_items() -> list[str]:  # from the translated markdown, as the kernel reads it
    from adkcourse.quiz.checklist import notebook_items
    return notebook_items(notebook, shown_path(translation_path(lang, lesson, root)))

  for cell in notebook.cells:
    if cell.cell_type == "code":
      _quiz_outputs(cell, lang, render)
      _checklist_outputs(cell, lang, checklist_items)
      _timeline_outputs(cell, lang)
      _self_check_outputs(cell)
  notebook.metadata["adkcourse"] = {"language": lang, "source": f"../{lesson}.ipynb",
                                    "generated_by": "python -m adkcourse.i18n generate"}
  return notebook


_SELF_CHECK_CALL = re.compile(r"^\s*(?:\w+\s*=\s*)?await\s+run_exercise_checks\(", re.MULTILINE)
SELF_CHECK_TAG = "nbval-ignore-output"


def _self_check_outputs(cell: Any) -> None:
  """A lesson's self-check cell reports in the notebook's language when it runs, but its stored
  output is the English notebook's, copied: the report cannot be drawn again from that output
  yet. Until it can, nbval does not compare this one cell in a translated notebook (the English
  notebook still checks the same run); the tag says so to nbval."""
  if not _SELF_CHECK_CALL.search(_source(cell)):
    return
  tags = list(cell.metadata.get("tags", []))
  if SELF_CHECK_TAG not in tags:
    cell.metadata["tags"] = tags + [SELF_CHECK_TAG]


def notebook_text(notebook: Any) -> str:
  """A notebook as ``nbformat.write`` saves it (what ``run_notebooks.py`` commits)."""
  return nbformat.writes(notebook) + "\n"


def generate(lang: str, lesson: str, *, render: QuizRenderer, notebooks_dir: Path = NOTEBOOKS_DIR,
             root: Path = TRANSLATIONS_DIR) -> bool:
  """Write ``notebooks/<lang>/<lesson>.ipynb``; True when the file changed."""
  path = generated_path(lang, lesson, notebooks_dir)
  text = notebook_text(translated_notebook(lang, lesson, render=render,
                                           notebooks_dir=notebooks_dir, root=root))
  if path.exists() and path.read_text(encoding="utf-8") == text:
    return False
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(text, encoding="utf-8")
  return True


def generated_findings(lang: str, lesson: str, *, render: QuizRenderer,
                       notebooks_dir: Path = NOTEBOOKS_DIR,
                       root: Path = TRANSLATIONS_DIR) -> list[Finding]:
  """A finding when ``notebooks/<lang>/<lesson>.ipynb`` is missing or differs from what
  ``generate`` would write now (an English notebook re-run, a translation edited)."""
  path = generated_path(lang, lesson, notebooks_dir)
  try:
    expected = notebook_text(translated_notebook(lang, lesson, render=render,
                                                 notebooks_dir=notebooks_dir, root=root))
  except TranslationFileError:  # an English notebook with unusable cell ids: lesson_findings
    return []                   # names it, and generate refuses it
  if not path.exists():
    return [Finding(lang, shown_path(path), "", "outdated", "not generated yet: run `python -m "
                    "adkcourse.i18n generate`")]
  if path.read_text(encoding="utf-8") != expected:
    return [Finding(lang, shown_path(path), "", "outdated", "differs from its English notebook and "
                    "translation: run `python -m adkcourse.i18n generate` (never edit it by hand)")]
  return []


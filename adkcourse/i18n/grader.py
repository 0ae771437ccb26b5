"""The grader's words in each language, tracked against their English like the lessons.

Two kinds of text, two records:

- the grader's own sentences (the report's frame, the judge, the harness): a table in code,
  ``adkcourse/grade/wording.py``, one row per message with every language; which English each
  translation was made from is recorded in ``translations/<lang>/grader.yaml`` (as
  ``widget.yaml`` does for the quiz widget)::

      language: fr
      messages:
        headline:
          hash: 0d4f1c2b3a59       # fingerprint of the English template
          text_hash: 9a8b7c6d5e4f  # fingerprint of the French, when accepted

- each exercise's declared check texts (``Check(name, points, requires, hint=, success=)`` in
  ``adkcourse/grade/checks/<exercise>.py``): their English stays there; the translations are in
  ``translations/<lang>/checks/<exercise>.yaml``, one entry per ``<check>.<field>`` (field:
  ``requires``, ``hint`` or ``success``), as a lesson's cells are::

      exercise: forget_user
      language: fr
      checks:
        sessions_removed.requires:
          hash: 1a2b3c4d5e6f      # source_hash of the English
          en: No session of the user is left in the app.
          text: Aucune session de l'utilisateur ne reste dans l'application.
          text_hash: 6f5e4d3c2b1a # source_hash of text, when accepted

``findings(lang)`` says what is missing, stale (the English changed), unaccepted, invalid or
orphan in both; ``accept`` records a checked translation; ``scaffold`` adds an entry (English,
hash, empty text) for every check text that has none. A stale or missing text is shown in
English to the student (``wording.say``, ``wording.check_text``), never an older translation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional

from . import ENGLISH_NAMES, TRANSLATIONS_DIR, normalized, source_hash, still_english
from .findings import Finding, shown_path
from .yamlfile import TranslationFileError, read
from .yamlio import dump

NAME = "grader"
"""The name ``accept LANG grader KEY...`` uses for the grader's own sentences."""
CHECKS = "checks"
WORDING_FILE = "adkcourse/grade/wording.py"
ENTRY_KEYS = {"hash", "en", "text", "text_hash"}
SECTIONS = ("checks", "entries")  # the first is what ``scaffold`` writes


def fingerprint(text: str) -> str:
  return source_hash(text)


# -- the grader's own sentences ------------------------------------------------------------------

def record_path(lang: str, root: Path = TRANSLATIONS_DIR) -> Path:
  return Path(root) / lang / f"{NAME}.yaml"


def _messages() -> dict[str, dict[str, str]]:
  from adkcourse.grade.wording import MESSAGES
  return MESSAGES


def _stamp(path: Path) -> Optional[tuple[int, int]]:
  try:
    info = path.stat()
  except OSError:
    return None
  return info.st_mtime_ns, info.st_size


_RECORDS: dict[Path, tuple[Any, dict[str, str]]] = {}


def recorded_hashes(lang: str, root: Path = TRANSLATIONS_DIR) -> dict[str, str]:
  """key -> the English hash recorded for ``lang`` (empty when there is no readable record:
  then every translation counts as stale and English is shown). Read again when the file
  changes, so that ``accept`` takes effect in the same process."""
  path = record_path(lang, root)
  stamp = _stamp(path)
  cached = _RECORDS.get(path)
  if cached is not None and cached[0] == stamp:
    return cached[1]
  hashes: dict[str, str] = {}
  if stamp is not None:
    try:
      raw, _ = _load_record(lang, root)
      hashes = {key: entry["hash"] for key, entry in raw.items()
                if isinstance(entry, dict) and isinstance(entry.get("hash"), str)}
    except (TranslationFileError, OSError):
      hashes = {}
  _RECORDS[path] = (stamp, hashes)
  return hashes


def _load_record(lang: str, root: Path) -> tuple[dict[str, Any], dict[str, int]]:
  path = record_path(lang, root)
  if not path.exists():
    return {}, {}
  _, lines, raw = read(path, "messages", {"language": lang})
  return raw, lines


def message_findings(lang: str, root: Path = TRANSLATIONS_DIR) -> list[Finding]:
  """What is wrong with the ``lang`` texts of ``wording.MESSAGES`` and their record."""
  file = shown_path(record_path(lang, root))
  try:
    raw, lines = _load_record(lang, root)
  except TranslationFileError as error:
    return [Finding.invalid(lang, error)]
  found = []
  accept = f"`python -m adkcourse.i18n accept {lang} {NAME} {{key}}`"
  for key, row in _messages().items():
    entry = raw.get(key) if isinstance(raw.get(key), dict) else {}
    line = lines.get(key)
    if key in raw and not isinstance(raw.get(key), dict):
      found.append(Finding(lang, file, key, "invalid", "an entry is `hash:` and `text_hash:` "
                           "under the message key", line))
    elif lang not in row or not row[lang].strip():
      found.append(Finding(lang, WORDING_FILE, key, "missing", f"the message {key!r} has no "
                           f"{lang} text: add it to its row"))
    elif entry.get("hash") != fingerprint(row["en"]):
      found.append(Finding(lang, file, key, "stale" if entry else "unaccepted", (
          f"the English of the message {key!r} changed since its {lang} text was written: "
          f"update the {lang} text in {WORDING_FILE}, then run " + accept.format(key=key))
          if entry else (f"the {lang} text of {key!r} was never accepted: check it, then run "
                         + accept.format(key=key)), line))
    elif entry.get("text_hash") != fingerprint(row[lang]):
      found.append(Finding(lang, file, key, "unaccepted", f"the {lang} text of {key!r} changed "
                           "since it was accepted: check it translates the English, then run "
                           + accept.format(key=key), line))
  for key in raw:
    if key not in _messages():
      found.append(Finding(lang, file, key, "orphan", f"no message {key!r} in {WORDING_FILE} "
                           "any more: remove the entry", lines.get(key)))
  return found


def accept_messages(lang: str, keys: Iterable[str], *, unchanged: bool = False,
                    root: Path = TRANSLATIONS_DIR) -> list[str]:
  """Record that the ``lang`` texts of ``keys`` translate the current English (a stale row
  must have had its text changed since it was accepted, unless ``unchanged``)."""
  raw, _ = _load_record(lang, root)
  messages = _messages()
  done = []
  for key in keys:
    if key not in messages or not messages[key].get(lang, "").strip():
      raise KeyError(f"no {lang} text for the message {key!r} in {WORDING_FILE}")
    row = messages[key]
    entry = raw.get(key) if isinstance(raw.get(key), dict) else {}
    stale = bool(entry) and entry.get("hash") != fingerprint(row["en"])
    if stale and entry.get("text_hash") == fingerprint(row[lang]) and not unchanged:
      raise ValueError(f"{key}: the English changed but the {lang} text is the one accepted "
                       "before: update it, or pass --unchanged if the change needs none")
    raw[key] = {"hash": fingerprint(row["en"]), "text_hash": fingerprint(row[lang])}
    done.append(key)
  _write_record(lang, {k: raw[k] for k in messages if k in raw}, root)
  return done


RECORD_HEADER = """\
# Which English each {name} text of the grader (adkcourse/grade/wording.py) was made from.
# Written by `python -m adkcourse.i18n accept {lang} grader KEY...`; do not edit by hand.
"""


def _write_record(lang: str, entries: dict[str, Any], root: Path) -> None:
  path = record_path(lang, root)
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(dump({"language": lang, "messages": entries},
                       RECORD_HEADER.format(name=ENGLISH_NAMES.get(lang, lang), lang=lang)),
                  encoding="utf-8")


# -- each exercise's check texts -----------------------------------------------------------------

@dataclass(frozen=True)
class CheckEntry:
  id: str  # "<check>.<field>"
  hash: str
  en: str
  text: str
  text_hash: str = ""
  line: Optional[int] = None

  @property
  def accepted(self) -> bool:
    return bool(self.text_hash) and self.text_hash == source_hash(self.text)


def checks_path(lang: str, exercise: str, root: Path = TRANSLATIONS_DIR) -> Path:
  return Path(root) / lang / CHECKS / f"{exercise}.yaml"


def english_texts(exercise: str) -> dict[str, str]:
  """``<check>.<field>`` -> English, for every non-empty requires/hint/success of ``exercise``,
  in declaration order."""
  from adkcourse.grade.checks import get_exercise
  from adkcourse.grade.wording import FIELDS

  texts = {}
  for check in get_exercise(exercise).checks:
    for field in FIELDS:
      value = getattr(check, field)
      if value:
        texts[f"{check.name}.{field}"] = value
  return texts


def _section(path: Path, lang: str, exercise: str) -> tuple[dict[str, Any], dict[str, int]]:
  data, lines, raw = read(path, SECTIONS[0], {"language": lang})
  if data.get("exercise") not in (None, exercise):
    raise TranslationFileError(
        f"`exercise:` is {data.get('exercise')!r} but this file is {exercise}.yaml: a file "
        "copied from another exercise? Keep each file under its exercise's name", 1,
        shown_path(path))
  if not raw:
    for other in SECTIONS[1:]:
      if isinstance(data.get(other), dict):
        _, lines, raw = read(path, other, {"language": lang})
  return raw, lines


def load_checks(lang: str, exercise: str, root: Path = TRANSLATIONS_DIR
                ) -> tuple[dict[str, CheckEntry], list[Finding]]:
  """The usable entries of ``exercise``'s check-text file, and a finding for every entry
  that is not (a whole file that cannot be read is one ``invalid`` finding)."""
  path = checks_path(lang, exercise, root)
  if not path.exists():
    return {}, []
  file = shown_path(path)
  try:
    raw, lines = _section(path, lang, exercise)
  except TranslationFileError as error:
    return {}, [Finding.invalid(lang, error)]
  entries: dict[str, CheckEntry] = {}
  found: list[Finding] = []
  for entry_id, entry in raw.items():
    line = lines.get(entry_id)
    if not isinstance(entry, dict):
      found.append(Finding(lang, file, entry_id, "invalid", "an entry needs `hash:`, `en:` and "
                           "`text:` lines under `<check>.<field>`", line))
      continue
    unknown = sorted(set(map(str, entry)) - ENTRY_KEYS)
    if unknown:
      found.append(Finding(lang, file, entry_id, "invalid", f"unknown key {unknown[0]!r}: an "
                           "entry has only `hash`, `en`, `text` and `text_hash`", line))
      continue
    bad = [key for key in sorted(ENTRY_KEYS)
           if entry.get(key) is not None and not isinstance(entry.get(key), str)]
    if bad:
      found.append(Finding(lang, file, entry_id, "invalid", f"`{bad[0]}` must be text, not "
                           f"{type(entry[bad[0]]).__name__}: put quotes around it", line))
      continue
    entries[entry_id] = CheckEntry(entry_id, entry.get("hash") or "", entry.get("en") or "",
                                   entry.get("text") or "", entry.get("text_hash") or "", line)
  return entries, found


_CHECK_FILES: dict[Path, tuple[Any, dict[str, CheckEntry]]] = {}


def check_entries(lang: str, exercise: str, root: Path = TRANSLATIONS_DIR
                  ) -> dict[str, CheckEntry]:
  """The usable entries of ``exercise``'s file (read again when it changes); a file that
  cannot be read gives none (the English shows, and ``findings`` says why)."""
  path = checks_path(lang, exercise, root)
  stamp = _stamp(path)
  cached = _CHECK_FILES.get(path)
  if cached is not None and cached[0] == stamp:
    return cached[1]
  entries = load_checks(lang, exercise, root)[0] if stamp is not None else {}
  _CHECK_FILES[path] = (stamp, entries)
  return entries


def _exercises() -> tuple[str, ...]:
  from adkcourse.grade.checks import EXERCISES
  return EXERCISES


def check_findings(lang: str, exercise: str, root: Path = TRANSLATIONS_DIR) -> list[Finding]:
  path = checks_path(lang, exercise, root)
  file = shown_path(path)
  entries, found = load_checks(lang, exercise, root)
  if any(f.where == "" for f in found):  # the whole file is unreadable: that alone
    return found
  accept = f"`python -m adkcourse.i18n accept {lang} {CHECKS}/{exercise} {{id}}`"
  invalid = {f.where for f in found}  # said already: not "missing" as well
  for entry_id, english_text in english_texts(exercise).items():
    entry = entries.get(entry_id)
    if entry_id in invalid:
      continue
    if entry is None or not entry.text.strip() or still_english(entry.text, english_text):
      found.append(Finding(lang, file, entry_id, "missing", (
          f"no {lang} text yet for {entry_id!r} (`{english_text[:60]}`): run "
          f"`python -m adkcourse.i18n scaffold {lang}` and write `text`") if entry is None else
          f"`text` of {entry_id!r} is still to be translated", entry.line if entry else None))
    elif entry.hash != source_hash(english_text):
      found.append(Finding(lang, file, entry_id, "stale", f"the English of {entry_id!r} changed "
                           f"since it was translated (now: {english_text[:80]!r}): update "
                           "`text`, then run " + accept.format(id=entry_id), entry.line))
    elif not entry.accepted:
      found.append(Finding(lang, file, entry_id, "unaccepted", f"the {lang} text of "
                           f"{entry_id!r} was written or changed since it was accepted: check "
                           "it, then run " + accept.format(id=entry_id), entry.line))
  current = english_texts(exercise)
  for entry_id, entry in entries.items():
    if entry_id not in current:
      found.append(Finding(lang, file, entry_id, "orphan", f"{exercise} has no check text "
                           f"{entry_id!r} any more: remove the entry", entry.line))
  return found


def findings(lang: str, root: Path = TRANSLATIONS_DIR) -> list[Finding]:
  """Everything to fix in the grader's ``lang`` texts: its own sentences and every exercise's
  check texts (a file for an exercise that no longer exists is an orphan)."""
  found = message_findings(lang, root)
  for exercise in _exercises():
    found += check_findings(lang, exercise, root)
  folder = Path(root) / lang / CHECKS
  if folder.is_dir():
    for path in sorted(folder.iterdir()):
      if path.suffix != ".yaml" or path.stem not in _exercises():
        found.append(Finding(lang, shown_path(path), "", "orphan", "no exercise of that name "
                             f"(the exercises: {', '.join(_exercises())}): remove the file"))
  return found


def accept(lang: str, name: str, ids: Iterable[str], *, unchanged: bool = False,
           root: Path = TRANSLATIONS_DIR) -> list[str]:
  """Record checked translations: ``name`` is ``grader`` (the grader's sentences, ``ids``
  their keys) or ``checks/<exercise>`` (``ids``: ``<check>.<field>``). Returns the ids done."""
  if name == NAME:
    return accept_messages(lang, ids, unchanged=unchanged, root=root)
  exercise = name[len(CHECKS) + 1:] if name.startswith(CHECKS + "/") else ""
  if exercise not in _exercises():
    raise KeyError(f"{name!r}: name `grader` or `checks/<exercise>` (the exercises: "
                   f"{', '.join(_exercises())})")
  path = checks_path(lang, exercise, root)
  entries, problems = load_checks(lang, exercise, root)
  if problems:
    raise TranslationFileError("; ".join(str(p) for p in problems))
  current = english_texts(exercise)
  done = []
  for entry_id in ids:
    if entry_id not in current:
      raise KeyError(f"{exercise} has no check text {entry_id!r} (ids are <check>.<field>)")
    entry = entries.get(entry_id)
    if entry is None or not entry.text.strip():
      raise ValueError(f"{entry_id}: translate `text` first; accept records that it is current")
    if still_english(entry.text, current[entry_id]):
      raise ValueError(f"{entry_id}: `text` is still the English: translate it first")
    stale = entry.hash != source_hash(current[entry_id])
    if stale and entry.accepted and not unchanged:
      raise ValueError(f"{entry_id}: the English changed but `text` is the one accepted before: "
                       "update it, or pass --unchanged if the change needs none")
    entries[entry_id] = CheckEntry(entry_id, source_hash(current[entry_id]),
                                   normalized(current[entry_id]), entry.text,
                                   source_hash(entry.text))
    done.append(entry_id)
  _write_checks(path, lang, exercise, entries)
  return done


def acceptable(lang: str, root: Path = TRANSLATIONS_DIR) -> dict[str, list[str]]:
  """For ``accept LANG grader --all``: name -> the ids whose current text can be accepted
  (stale texts never touched since their last acceptance are left out)."""
  ready: dict[str, list[str]] = {NAME: []}
  raw, _ = _load_record(lang, root)
  for key, row in _messages().items():
    entry = raw.get(key) if isinstance(raw.get(key), dict) else {}
    if not row.get(lang, "").strip():
      continue
    stale = bool(entry) and entry.get("hash") != fingerprint(row["en"])
    if not (stale and entry.get("text_hash") == fingerprint(row[lang])):
      ready[NAME].append(key)
  for exercise in _exercises():
    entries, problems = load_checks(lang, exercise, root)
    if problems:
      continue
    current = english_texts(exercise)
    ids = [entry_id for entry_id, entry in entries.items()
           if entry_id in current and entry.text.strip()
           and not still_english(entry.text, current[entry_id])
           and not (entry.hash != source_hash(current[entry_id]) and entry.accepted)]
    if ids:
      ready[f"{CHECKS}/{exercise}"] = ids
  return ready


CHECKS_HEADER = """\
# {name} translation of the check texts of adkcourse/grade/checks/{exercise}.py, one entry per
# `<check>.<field>` (requires, hint, success). Translate `text`; `en` is the English it was made
# from and `hash` that text's fingerprint. When the English changes, `python -m adkcourse.i18n
# status {lang}` lists the entry as stale; update `text`, then
# `python -m adkcourse.i18n accept {lang} checks/{exercise} CHECK.FIELD`.
"""


def _write_checks(path: Path, lang: str, exercise: str, entries: dict[str, CheckEntry]) -> None:
  data = {"exercise": exercise, "language": lang,
          SECTIONS[0]: {entry_id: {"hash": e.hash, "en": e.en, "text": e.text,
                                   **({"text_hash": e.text_hash} if e.text_hash else {})}
                        for entry_id, e in entries.items()}}
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(dump(data, CHECKS_HEADER.format(name=ENGLISH_NAMES.get(lang, lang),
                                                  exercise=exercise, lang=lang)),
                  encoding="utf-8")


def scaffold(lang: str, *, prune: bool = False, root: Path = TRANSLATIONS_DIR) -> int:
  """Add an entry (English, hash, empty ``text``) for every check text of every exercise that
  has none, in declaration order; keep every existing entry (stale ones too; orphans unless
  ``prune``). Refuses a file with invalid entries, so nothing a translator wrote is lost.
  Returns the number of entries added."""
  added = 0
  for exercise in _exercises():
    path = checks_path(lang, exercise, root)
    entries, problems = load_checks(lang, exercise, root)
    if problems:
      raise TranslationFileError("; ".join(str(p) for p in problems))
    ordered: dict[str, CheckEntry] = {}
    for entry_id, english_text in english_texts(exercise).items():
      if entry_id in entries:
        ordered[entry_id] = entries[entry_id]
      else:
        ordered[entry_id] = CheckEntry(entry_id, source_hash(english_text),
                                       normalized(english_text), "")
        added += 1
    if not prune:
      ordered.update({k: v for k, v in entries.items() if k not in ordered})
    if ordered != entries or not path.exists():
      _write_checks(path, lang, exercise, ordered)
  return added

"""The quiz widget's own words: their translations live in ``adkcourse/quiz/messages.py`` (one
row per message, a column per language), and this records which English each was made from.

``translations/<lang>/widget.yaml``::

    messages:
      check:
        hash: 0d4f1c2b3a59       # source_hash of the English text (both forms of a plural)
        text_hash: 9a8b7c6d5e4f  # source_hash of this language's text, when accepted

Why a separate record: the texts are code (plurals, placeholders), but an English change must
still make their translations stale, as for the lessons and the quizzes. ``check`` reports a row
whose English changed (stale), whose translation changed since it was accepted (unaccepted), or
that has no translation (missing); ``accept LANG widget KEY`` records the current state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Optional

from . import ENGLISH_NAMES, TRANSLATIONS_DIR, source_hash
from .findings import Finding, shown_path
from .yamlfile import TranslationFileError, read
from .yamlio import dump

NAME = "widget"
MESSAGES_FILE = "adkcourse/quiz/messages.py"


def _fingerprint(text: Any) -> str:
  forms = [text.one, text.other] if hasattr(text, "one") else [text]
  return source_hash(json.dumps(forms, ensure_ascii=False))


def record_path(lang: str, root: Path = TRANSLATIONS_DIR) -> Path:
  return root / lang / f"{NAME}.yaml"


def _messages() -> dict[str, dict[str, Any]]:
  from adkcourse.quiz.messages import MESSAGES
  return MESSAGES


def _load(lang: str, root: Path) -> tuple[dict[str, Any], dict[str, int]]:
  path = record_path(lang, root)
  if not path.exists():
    return {}, {}
  _, lines, raw = read(path, "messages", {"language": lang})
  return raw, lines


def current_keys(lang: str, root: Path = TRANSLATIONS_DIR) -> Optional[frozenset[str]]:
  """The messages whose ``lang`` text was made from their current English (the record's
  ``hash`` matches), which the widget may show; ``None`` when there is no readable record (a
  copy of the package without the repository's ``translations/``), where every text is shown.
  A message whose English changed since is shown in English, as a stale lesson cell is."""
  try:
    raw, _ = _load(lang, root)
  except (TranslationFileError, OSError):
    return None
  if not raw:
    return None
  return frozenset(key for key, row in _messages().items()
                   if isinstance(raw.get(key), dict) and raw[key].get("hash") == _fingerprint(row["en"]))


def findings(lang: str, root: Path = TRANSLATIONS_DIR) -> list[Finding]:
  path = record_path(lang, root)
  file = shown_path(path)
  try:
    raw, lines = _load(lang, root)
  except TranslationFileError as error:
    return [Finding.invalid(lang, error)]
  found = []
  for key, row in _messages().items():
    entry = raw.get(key) if isinstance(raw.get(key), dict) else {}
    line = lines.get(key)
    if lang not in row:
      found.append(Finding(lang, MESSAGES_FILE, key, "missing", f"the message {key!r} has no "
                           f"{lang} text: add it to its row"))
    elif entry.get("hash") != _fingerprint(row["en"]):
      found.append(Finding(lang, file, key, "stale" if entry else "unaccepted",
                           f"the English of the message {key!r} changed since its {lang} text "
                           f"was written: update the {lang} text in {MESSAGES_FILE}, then run "
                           f"`python -m adkcourse.i18n accept {lang} {NAME} {key}`"
                           if entry else f"the {lang} text of {key!r} was never accepted: check "
                           f"it, then run `python -m adkcourse.i18n accept {lang} {NAME} {key}`",
                           line))
    elif entry.get("text_hash") != _fingerprint(row[lang]):
      found.append(Finding(lang, file, key, "unaccepted", f"the {lang} text of {key!r} changed "
                           "since it was accepted: check it translates the English, then run "
                           f"`python -m adkcourse.i18n accept {lang} {NAME} {key}`", line))
  for key in raw:
    if key not in _messages():
      found.append(Finding(lang, file, key, "orphan", f"no message {key!r} in {MESSAGES_FILE} "
                           "any more: remove the entry", lines.get(key)))
  return found


def accept(lang: str, keys: Iterable[str], *, unchanged: bool = False,
           root: Path = TRANSLATIONS_DIR) -> list[str]:
  """Record that the ``lang`` texts of ``keys`` translate the current English (a stale row must
  have had its text changed since it was accepted, unless ``unchanged``)."""
  raw, _ = _load(lang, root)
  messages = _messages()
  done = []
  for key in keys:
    if key not in messages or lang not in messages[key]:
      raise KeyError(f"no {lang} text for the message {key!r} in {MESSAGES_FILE}")
    entry = raw.get(key) if isinstance(raw.get(key), dict) else {}
    row = messages[key]
    stale = bool(entry) and entry.get("hash") != _fingerprint(row["en"])
    if stale and entry.get("text_hash") == _fingerprint(row[lang]) and not unchanged:
      raise ValueError(f"{key}: the English changed but the {lang} text is the one accepted "
                       "before: update it, or pass --unchanged if the change needs none")
    raw[key] = {"hash": _fingerprint(row["en"]), "text_hash": _fingerprint(row[lang])}
    done.append(key)
  write(lang, {k: raw[k] for k in messages if k in raw}, root)
  return done


def acceptable(lang: str, root: Path = TRANSLATIONS_DIR) -> tuple[list[str], list[str]]:
  """For ``accept LANG widget --all``: (rows that can be accepted, stale untouched rows)."""
  raw, _ = _load(lang, root)
  ready, untouched = [], []
  for key, row in _messages().items():
    if lang not in row:
      continue
    entry = raw.get(key) if isinstance(raw.get(key), dict) else {}
    stale = bool(entry) and entry.get("hash") != _fingerprint(row["en"])
    (untouched if stale and entry.get("text_hash") == _fingerprint(row[lang]) else ready).append(
        key)
  return ready, untouched


HEADER = """\
# Which English each {name} text of the quiz widget (adkcourse/quiz/messages.py) was made from.
# Written by `python -m adkcourse.i18n accept {lang} widget KEY...`; do not edit by hand.
"""


def write(lang: str, entries: dict[str, Any], root: Path = TRANSLATIONS_DIR) -> None:
  path = record_path(lang, root)
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(dump({"language": lang, "messages": entries},
                       HEADER.format(name=ENGLISH_NAMES.get(lang, lang), lang=lang)),
                  encoding="utf-8")

"""The course's translated Markdown pages (the README, the instructor guide, the troubleshooting
page): each says on line 1 which English page it translates and that page's ``source_hash``.

Line 1 of ``README.fr.md``, for example, is exactly::

    <!-- i18n: translated from README.md, source_hash 0123456789ab. `python -m adkcourse.i18n check` reports this page when the English changes: update the translation, then this hash. -->

Why a header and not the YAML files the lessons use: a page is translated as a whole (its
sections move, split and merge between languages), so there are no cells to match one by one.
The hash still makes a change in English visible: the page becomes *stale* until a translator
has carried the change over and written the new hash. An HTML comment shows nowhere on GitHub
or in JupyterLab, so the header costs the reader nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import REPO_ROOT, source_hash
from .findings import Finding, shown_path

PAGES: tuple[tuple[str, str], ...] = (
  ("README.md", "README.{lang}.md"),
  ("docs/instructors.md", "docs/instructors.{lang}.md"),
  ("docs/troubleshooting.md", "docs/troubleshooting.{lang}.md"),
)
"""Every translated page: the English page (relative to the repository) -> its translation's
path, with ``{lang}`` for the language code. Add a row here to have a new page checked."""

HEADER = ("<!-- i18n: translated from {source}, source_hash {hash}. `python -m adkcourse.i18n "
          "check` reports this page when the English changes: update the translation, then this "
          "hash. -->")
_HEADER = re.compile(
  r"<!-- i18n: translated from (?P<source>\S+), source_hash (?P<hash>[0-9a-f]{12})\. "
  r"`python -m adkcourse\.i18n check` reports this page when the English changes: update the "
  r"translation, then this hash\. -->")


def translated_path(source: str, lang: str) -> str:
  """The translation of the English page ``source`` (a row of ``PAGES``) in ``lang``."""
  for english, pattern in PAGES:
    if english == source:
      return pattern.format(lang=lang)
  raise KeyError(f"{source} is not a translated page (adkcourse/i18n/pages.py: PAGES)")


def header(source: str, root: Path = REPO_ROOT) -> str:
  """The exact line 1 a translation of ``source`` needs now (what a translator pastes)."""
  return HEADER.format(source=source, hash=source_hash(_read(root / source)))


def findings(lang: str, root: Path = REPO_ROOT) -> list[Finding]:
  """What is wrong with ``lang``'s translated pages: ``missing`` (no translation), ``invalid``
  (line 1 is not the header for this page), ``stale`` (made from an older English text)."""
  found: list[Finding] = []
  for source, pattern in PAGES:
    found += _page_findings(lang, source, pattern.format(lang=lang), root)
  return found


def _page_findings(lang: str, source: str, target: str, root: Path) -> list[Finding]:
  english_path, page_path = root / source, root / target
  file = shown_path(page_path)
  if not english_path.is_file():
    return [Finding(lang, file, "", "orphan",
                    f"the English page {source} is gone: remove this translation, or its row of "
                    "PAGES (adkcourse/i18n/pages.py)")]
  if not page_path.is_file():
    return [Finding(lang, file, "", "missing",
                    f"no translation of {source} yet: translate it and start it with the line "
                    f"{header(source, root)}")]
  try:
    first = _read(page_path).split("\n", 1)[0].rstrip("\r")
  except UnicodeDecodeError as error:
    return [Finding(lang, file, "", "invalid", f"not UTF-8 text ({error.reason} at byte "
                                               f"{error.start})")]
  current = source_hash(_read(english_path))
  match = _HEADER.fullmatch(first)
  if match is None:
    return [Finding(lang, file, "", "invalid",
                    f"line 1 is not the translation header; it must be exactly: "
                    f"{HEADER.format(source=source, hash=current)}", 1)]
  if match["source"] != source:
    return [Finding(lang, file, "", "invalid",
                    f"line 1 says it translates {match['source']}, but this page translates "
                    f"{source} (adkcourse/i18n/pages.py: PAGES)", 1)]
  if match["hash"] != current:
    return [Finding(lang, file, source, "stale",
                    f"translated from an older {source} (source_hash {match['hash']}, now "
                    f"{current}): carry the English changes over (`git log -p {source}`), then "
                    f"write source_hash {current} on line 1", 1)]
  return []


def _read(path: Path) -> str:
  return path.read_text(encoding="utf-8")

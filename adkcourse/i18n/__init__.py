"""The course in several languages, from one English source.

English lessons (``notebooks/*.ipynb``) and question banks (``quizzes/*.yaml``) are the source.
Each other language has translation files under ``translations/<lang>/``:

* ``translations/<lang>/notebooks/<lesson>.yaml`` maps every markdown cell, by its nbformat
  cell id, to its translation, with the English text it was made from and that text's hash
  (``lessons.py``);
* ``translations/<lang>/quizzes/<bank>.yaml`` maps every question id to its translated texts
  and the hash of the English question (``quizzes.py``).

A translation whose hash no longer matches the English is *stale*: it is not used (the English
shows instead) and ``python -m adkcourse.i18n check`` fails, naming the file, the cell or question
and its first words. ``python -m adkcourse.i18n generate`` writes ``notebooks/<lang>/`` from the
executed English notebooks: translated markdown, code cells and outputs copied unchanged (the
quiz cell's output is the quiz rendered in that language). Workflow: ``docs/translating.md``.
"""

from __future__ import annotations

import re

import hashlib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
QUIZZES_DIR = REPO_ROOT / "quizzes"
TRANSLATIONS_DIR = REPO_ROOT / "translations"

SOURCE_LANGUAGE = "en"
LANGUAGES: dict[str, str] = {"fr": "Français", "id": "Bahasa Indonesia"}
"""The languages the course is translated into: code -> the language's own name."""
ENGLISH_NAMES: dict[str, str] = {"fr": "French", "id": "Indonesian"}


def source_hash(text: str) -> str:
  """A short fingerprint of an English text: 12 hex digits of its SHA-256.

  Why a hash and not a date or a revision: it changes exactly when the text changes, survives
  rebases and cell moves, and needs no git history to check.
  """
  return hashlib.sha256(normalized(text).encode("utf-8")).hexdigest()[:12]


def normalized(text: str) -> str:
  """A text without trailing spaces on its lines: they mean nothing in the lessons' Markdown, and
  YAML literal blocks cannot keep them."""
  return "\n".join(line.rstrip() for line in text.split("\n"))


_NOT_PROSE = re.compile(r"^```.*?^```|`[^`\n]+`|<[^>\n]+>|\]\([^)\n]*\)|https?://\S+",
                        re.MULTILINE | re.DOTALL)
_PROSE_WORD = re.compile(r"(?<![\w.:/-])[^\W\d_]{2,}(?![\w.:/(-])")


def still_english(text: str, english: str) -> bool:
  """Whether a translation is the English text itself, where that text has prose to translate
  (three words or more outside code, links and markup). A scaffolded entry holds the English
  until a translator writes `text`; accepting it as it is would publish English in a French or
  Indonesian lesson without any finding (a reviewer found such entries). A text of code, names
  and numbers alone may stay as it is."""
  if normalized(text).strip() != normalized(english).strip():
    return False
  return len(_PROSE_WORD.findall(_NOT_PROSE.sub(" ", english))) >= 3


def first_words(text: str, count: int = 8) -> str:
  """The first words of a text, to name a cell or a question in a report."""
  words = " ".join(text.split()).split(" ")
  shown = " ".join(words[:count])
  return shown + (" ..." if len(words) > count else "")

"""Which language a quiz speaks: the one of the notebook that shows it.

Why from the notebook's folder: the translated lessons are ``notebooks/<code>/*.ipynb`` and run
the very same code cell as the English ones (``show_quiz("01_sessions_events_state")``, copied
unchanged by ``python -m adkcourse.i18n generate``). So the call cannot name the language; the
kernel has to find it. Jupyter, nbval and nbclient start the kernel in the notebook's folder,
and jupyter_server also sets ``JPY_SESSION_NAME`` to the notebook's path, so a kernel started
for ``notebooks/fr/01_....ipynb`` knows it is French. The translated exercise notebooks,
``labs/exercises/<code>/NAME.ipynb`` (``scripts/generate_exercises.py``), likewise run the
English self-check cell unchanged, so their folder names the language too. ``ADKCOURSE_LANG``
covers the other cases (a notebook copied elsewhere, a script).

The order, first match wins:

1. an explicit ``lang`` argument (an unknown code is a ``ValueError``: a typo must not silently
   show English);
2. the working directory, when it is ``.../notebooks/<code>`` or ``.../labs/exercises/<code>``
   for a course language;
3. ``$JPY_SESSION_NAME``, when the notebook it names is in one of those folders;
4. ``$ADKCOURSE_LANG`` (an unknown value warns and falls back to English: an environment
   variable set for another tool must not break every quiz);
5. English.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Optional

from adkcourse.i18n import LANGUAGES, SOURCE_LANGUAGE

LANG_VARIABLE = "ADKCOURSE_LANG"
SESSION_VARIABLE = "JPY_SESSION_NAME"
NOTEBOOKS_FOLDER = "notebooks"
EXERCISES_FOLDER = ("labs", "exercises")
"""Where the translated exercise notebooks live: ``labs/exercises/<code>/``."""


def available_languages() -> list[str]:
  """English, then every language the course is translated into."""
  return [SOURCE_LANGUAGE, *LANGUAGES]


def _known(code: str) -> Optional[str]:
  """The course language ``code`` names, if any: ``fr``, ``FR``, ``fr-FR`` and ``fr_FR.UTF-8``
  (a locale, as ``$LANG`` writes it) all name French."""
  cleaned = code.strip().split(".")[0].replace("_", "-").lower()
  for candidate in (cleaned, cleaned.split("-")[0]):
    if candidate in available_languages():
      return candidate
  return None


def folder_language(folder: Path) -> Optional[str]:
  """``<code>`` for a folder ``.../notebooks/<code>`` or ``.../labs/exercises/<code>`` of a
  translated course, else None. Names are compared exactly, as the course writes its folders:
  ``notebooks/fr`` is French, ``notebooks/FR`` or ``exercises/fr`` alone (no ``labs/``) is not."""
  if folder.name not in LANGUAGES:
    return None
  parent = folder.parent
  if parent.name == NOTEBOOKS_FOLDER:
    return folder.name
  if (parent.parent.name, parent.name) == EXERCISES_FOLDER:
    return folder.name
  return None


def _cwd() -> Optional[Path]:
  try:
    return Path.cwd()
  except OSError:  # the working directory was deleted
    return None


def resolve_language(lang: Optional[str] = None) -> str:
  """The code of the language to show a quiz in (see the module docstring for the order)."""
  if lang is not None:
    known = _known(lang)
    if known is None:
      raise ValueError(f"unknown language {lang!r}: the quizzes are available in "
                       f"{', '.join(available_languages())}")
    return known
  cwd = _cwd()
  if cwd is not None and (found := folder_language(cwd)):
    return found
  session = os.environ.get(SESSION_VARIABLE, "").strip()
  if session and (found := folder_language(Path(session).parent)):
    return found
  configured = os.environ.get(LANG_VARIABLE, "").strip()
  if configured:
    known = _known(configured)
    if known is not None:
      return known
    warnings.warn(f"{LANG_VARIABLE}={configured!r} is not a course language "
                  f"({', '.join(available_languages())}): the quiz is shown in English",
                  stacklevel=2)
  return SOURCE_LANGUAGE

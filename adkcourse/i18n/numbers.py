"""The numbers a translated text must keep: the English "5 connections" is never "6 connexions".

Prose numbers are compared as digit strings, separators dropped, so that each language's way of
writing one number reads the same: ``1,800`` (English), ``1 800`` (French, a no-break space),
``1.800`` (Indonesian) and ``0.5`` / ``0,5`` are one number each. Code spans and link targets are
left out (code is compared as code, elsewhere), and so are digits inside words (``L2``,
``sha256``, ``4x``), which are names rather than quantities; an ordinal counts as its number
(``30th``, ``30e``, ``ke-30``).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Optional

_CODE = re.compile(r"`+[^`]*`+")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_NUMBER = re.compile(r"(?<![\w.,])(\d+(?:[ \u00a0\u202f.,]\d{3})*(?:[.,]\d+)?)"
                     r"(?:st|nd|rd|th|er|re|e|ème)?(?![\w])")
"""A number, and the ordinal ending that may follow it (``30th``, ``30e``, ``1er``)."""


def prose_numbers(text: str) -> Counter[str]:
  """The numbers of ``text``'s prose, each as its digits only."""
  prose = _LINK_TARGET.sub("]()", _CODE.sub(" ", text))
  return Counter(re.sub(r"\D", "", match) for match in _NUMBER.findall(prose))


def numbers_problem(english: str, translated: str, what: str = "`text`") -> Optional[str]:
  """A message when ``translated`` does not have the same numbers as ``english``, else None."""
  theirs, ours = prose_numbers(english), prose_numbers(translated)
  if theirs == ours:
    return None
  missing = sorted((theirs - ours).elements(), key=lambda n: (len(n), n))
  extra = sorted((ours - theirs).elements(), key=lambda n: (len(n), n))
  parts = ([f"the English has {', '.join(missing)}, which {what} lacks"] if missing else []) + \
      ([f"{what} has {', '.join(extra)}, which the English lacks"] if extra else [])
  return ("numbers differ from the English (separators aside): " + "; ".join(parts)
          + ": write the English's numbers, in digits")

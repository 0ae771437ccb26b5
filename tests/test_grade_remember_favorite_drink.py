"""The worlds of ``remember_favorite_drink`` tell every careless transformation of ``drink``
from the identity, in every world (each kind, many seeds): a tool that strips, truncates,
unquotes, escapes, normalises, filters, parses or refuses some drink stores something else
than the reference in that world, so it cannot get full marks. Only ``generate`` runs here
(no Runner): the catalogue is cheap to extend when a new kind of mistake turns up."""

from __future__ import annotations

import html
import json
import random
import re
import unicodedata
from typing import Any, Callable, Optional

from adkcourse.grade.checks import _remember_favorite_drink_support as support
from adkcourse.grade.checks import remember_favorite_drink as judge
from adkcourse.grade.checks._engine import world_seeds

REFUSED = object()  # the transformation stores nothing (or an error) for this drink


def _refuse(test: Callable[[str], bool]) -> Callable[[str], Any]:
  return lambda d: REFUSED if test(d) else d


def _unquote(quotes: str) -> Callable[[str], str]:
  return lambda d: d[1:-1] if len(d) >= 2 and d[0] == d[-1] and d[0] in quotes else d


def _json(d: str) -> Any:
  try:
    return json.loads(d)
  except ValueError:
    return d


LIMITS = (20, 32, 40, 50, 60, 64, 80, 100, 120, 128, 140, 200, 250, 255, 256, 500, 512, 1000,
          1024, 2000, 2048, 4000, 4096, 5000, 8000, 8192, 10000, 16384, 32768, 50000, 65535,
          70000, 80000, 99999)
PREFIX = re.compile(r"^\s*(?:my\s+)?favou?rite\s+drink\s+is\s*:?\s*", re.I)
TRANSFORMATIONS: dict[str, Callable[[str], Any]] = {
    "strip": str.strip, "lstrip": str.lstrip, "rstrip": str.rstrip,
    **{f"{side}({chars!r})": (lambda c, s: lambda d: getattr(d, s)(c))(chars, side)
       for side in ("strip", "lstrip", "rstrip")
       for chars in (" ", "\t", "\n", "\r\n", " \t", "\"'", '"', "'", "\ufeff", "\u200b",
                     "\u00a0")},
    "rstrip punctuation": lambda d: d.rstrip(".!?,;:"), "rstrip('.')": lambda d: d.rstrip("."),
    "rstrip('!')": lambda d: d.rstrip("!"),
    "strip() or drink": lambda d: d.strip() or d,
    'strip(" ") or drink': lambda d: d.strip(" ") or d,
    **{f"[:{n}]": (lambda n: lambda d: d[:n])(n) for n in LIMITS},
    "first line": lambda d: d.splitlines()[0] if d.splitlines() else d,
    "split newline": lambda d: d.split("\n")[0], "no CR": lambda d: d.replace("\r", ""),
    "CRLF to LF": lambda d: d.replace("\r\n", "\n"),
    "tabs to spaces": lambda d: d.replace("\t", " "), "expandtabs": str.expandtabs,
    "printable only": lambda d: "".join(c for c in d if c.isprintable()),
    "no control": lambda d: "".join(c for c in d if unicodedata.category(c) != "Cc"),
    "no format": lambda d: "".join(c for c in d if unicodedata.category(c) != "Cf"),
    "no NUL": lambda d: d.replace("\x00", ""), "NUL to space": lambda d: d.replace("\x00", " "),
    "cut at NUL": lambda d: d.split("\x00")[0],
    "no private use": lambda d: "".join(c for c in d if unicodedata.category(c) != "Co"),
    "no unassigned": lambda d: "".join(c for c in d if unicodedata.category(c) != "Cn"),
    "no combining marks": lambda d: "".join(c for c in d if not unicodedata.combining(c)),
    "no bidi controls": lambda d: re.sub("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", "", d),
    "no noncharacters": lambda d: "".join(c for c in d if not (0xFDD0 <= ord(c) <= 0xFDEF
                                                               or ord(c) & 0xFFFE == 0xFFFE)),
    "no C1 controls": lambda d: "".join(c for c in d if not 0x80 <= ord(c) <= 0x9F),
    "no tags": lambda d: "".join(c for c in d if not 0xE0000 <= ord(c) <= 0xE007F),
    "no variation selectors": lambda d: re.sub("[\ufe00-\ufe0f\U000e0100-\U000e01ef]", "", d),
    "no replacement character": lambda d: d.replace("\ufffd", ""),
    "html.escape": html.escape, "html.escape no quote": lambda d: html.escape(d, quote=False),
    "html.unescape": html.unescape, "& to and": lambda d: d.replace("&", "and"),
    "tags removed": lambda d: re.sub(r"<[^>]*>", "", d),
    "prefix removed": lambda d: PREFIX.sub("", d),
    "article removed": lambda d: re.sub(r"^(?:a|an|the)\s+", "", d, flags=re.I),
    "NBSP to space": lambda d: d.replace("\u00a0", " "),
    "unicode spaces": lambda d: re.sub(r"[\u00a0\u2000-\u200b\u202f\u3000]", " ", d),
    "zero-width removed": lambda d: re.sub(r"[\u200b-\u200d\u2060\ufeff]", "", d),
    "collapse spaces": lambda d: " ".join(d.split()), "squeeze": lambda d: re.sub(r"  +", " ", d),
    "lower": str.lower, "upper": str.upper, "title": str.title,
    "capitalize": str.capitalize, "casefold": str.casefold,
    **{form: (lambda f: lambda d: unicodedata.normalize(f, d))(form)
       for form in ("NFC", "NFD", "NFKC", "NFKD")},
    "ascii only": lambda d: d.encode("ascii", "ignore").decode(),
    "BMP only": lambda d: "".join(c for c in d if ord(c) < 0x10000),
    "latin-1 only": lambda d: d.encode("latin-1", "ignore").decode("latin-1"),
    "straight quotes": lambda d: re.sub("[“”«»]", '"', d),
    "double to single quotes": lambda d: d.replace('"', "'"),
    "backslash escapes": lambda d: d.replace("\\n", "\n"),
    "word characters only": lambda d: re.sub(r"[^\w\s'-]", "", d),
    "json.loads": _json, "json.dumps": json.dumps, "repr": repr,
    "drink or default": lambda d: d or "unknown",
    **{f"unquote {q}": _unquote(q) for q in ("\"'", '"', "'")},
    "refuse empty": _refuse(lambda d: not d),
    "refuse blank": _refuse(lambda d: not d.strip()),
    "refuse space-only": _refuse(lambda d: not d.strip(" ")),
    "refuse digits": _refuse(lambda d: bool(re.search(r"\d", d))),
    "refuse symbols": _refuse(lambda d: bool(re.search(r"[<>{}\[\]\\/|@#$%^&*=+~`]", d))),
    "refuse long": _refuse(lambda d: len(d) > 4096),
    "refuse very long": _refuse(lambda d: len(d) > 70_000),
    "refuse NUL": _refuse(lambda d: "\x00" in d),
    "refuse newline": _refuse(lambda d: "\n" in d),
    "refuse non-ASCII": _refuse(lambda d: not d.isascii()),
    "refuse not NFC": _refuse(lambda d: unicodedata.normalize("NFC", d) != d),
}


# caught in every run, not in every world: the invisible ends, the long drink's last mark and
# its length (and so the longest limits) are the variant's (``INVISIBLE``, ``STOPS``; the
# maximum length is in the ``LONGEST`` variant, the others' long drinks are drawn)
BY_VARIANT = {name for name in TRANSFORMATIONS
              if re.search(r"\\u200b|\\ufeff|\\xa0|'!'", name)
              or name.startswith("[:") and int(name[2:-1]) > 4096
              or name == "refuse very long"}


def _named(spec: dict[str, Any]) -> list[str]:
  return [drink for turn in spec["turns"] for drink in judge.named(turn) or ()]


def _changes(transform: Callable[[str], Any], drink: str) -> bool:
  try:
    out: Optional[Any] = transform(drink)
  except Exception:  # noqa: BLE001 - raising on a drink is another outcome too
    return True
  return out is REFUSED or type(out) is not str or out != drink


def _missed(seed: int) -> set[str]:
  """The transformations that change no drink named in the world of ``seed``."""
  named = _named(judge.generate(random.Random(seed), seed % len(judge.VARIANTS)))
  return {name for name, transform in TRANSFORMATIONS.items()
          if not any(_changes(transform, drink) for drink in named)}


def test_every_world_and_every_run_tells_every_transformation_from_the_identity():
  worlds = len(judge.VARIANTS)
  for run in range(30):
    seeds = world_seeds(run, worlds)
    missed = {seed: _missed(seed) for seed in seeds}
    everywhere = {seed: names - BY_VARIANT for seed, names in missed.items() if names - BY_VARIANT}
    assert not everywhere, f"worlds where these change no drink: {everywhere}"
    in_no_world = set.intersection(*missed.values())
    assert not in_no_world, f"run {run}: no world tells these from the identity: {in_no_world}"


def test_a_tool_that_reads_the_message_stores_something_else():
  """The model passes the drink its own way (the message collapses, lower-cases, wraps it):
  in every world most drinks are nowhere in their message, so reading the message instead of
  the argument stores something else."""
  for seed in range(80):
    spec = judge.generate(random.Random(seed), seed % len(judge.VARIANTS))
    named = [turn for turn in spec["turns"] if turn["drink"] is not None]
    elsewhere = [turn for turn in named if turn["drink"] not in turn["text"]]
    assert len(elsewhere) * 2 > len(named), (seed, [t["text"] for t in named])


def test_every_run_reaches_the_longest_drink_and_draws_the_others_over_the_range():
  """The statement allows drinks up to ``MAX_DRINK`` characters: every run has one that long
  (a tool that ignores or cuts the longest ones loses there), and the other worlds' lengths
  spread over the range (log-uniform), not around one value a cap could sit above."""
  lengths = []
  for run in range(20):
    seeds = world_seeds(run, len(judge.VARIANTS))
    longest = [max(len(d) for d in _named(judge.generate(random.Random(seed), seed % 4)))
               for seed in seeds]
    assert max(longest) == support.MAX_DRINK, (run, longest)
    lengths += [n for n in longest if n < support.MAX_DRINK]
  assert min(lengths) < 10_000 and max(lengths) > 50_000, sorted(lengths)


def test_the_calls_of_a_run_are_many_and_their_number_is_drawn():
  """A tool that behaves otherwise after some number of calls in its process (a counter)
  meets that number in every run: a run makes more than 200 calls, and how many varies
  widely, so that no threshold just below a fixed count goes unseen."""
  totals = []
  for run in range(40):
    totals.append(sum(len(judge.named(turn) or ()) for seed in world_seeds(run, 4)
                      for turn in judge.generate(random.Random(seed), seed % 4)["turns"]))
  assert min(totals) > 200 and max(totals) - min(totals) > 100, sorted(totals)


def test_no_drink_holds_a_lone_surrogate():
  """No model can send one (ADK fails to store the call before the tool runs): the statement
  says so, and no world asks for what cannot happen."""
  for seed in range(12):
    for drink in _named(judge.generate(random.Random(seed), seed % 4)):
      drink.encode("utf-8")  # raises on a lone surrogate

"""Making text that came from a submission safe to show: terminal, CSV, Markdown, file names.

Whatever a submission can influence (its file name, what it raised, what it printed, values it
wrote into a database that feedback quotes) reaches the instructor's terminal, a spreadsheet
and a Markdown page. Each has its own injection: ANSI escapes and control characters redraw a
terminal; a cell starting with ``=`` is a formula; a newline forges a CSV row for line-based
readers; Markdown and HTML can add a heading or a fake score table; ``../`` or a reserved name
picks where a page is written. The helpers here are the only way such text goes out.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")
_KEEP_FORMAT = {"\u200d"}  # zero-width joiner: part of emoji, harmless
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]|~<>&@])")  # emphasis, code, links, HTML, tables
_MARKDOWN_LINE_START = re.compile(r"^([#+\-=>]|\d+(?=[.)]))")  # headings, lists, quotes
_AUTOLINKS = (re.compile(r"(?i)\b(www)\."), re.compile(r"(?i)\b([a-z][a-z0-9+.-]*):(?=//)"))
_FILE_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def _is_control(char: str) -> bool:
  category = unicodedata.category(char)
  if category == "Cf":
    return char not in _KEEP_FORMAT
  return category in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp")


def clean(text: object, *, keep_newlines: bool = False) -> str:
  """``text`` without ANSI escapes and control or bidi-override characters (each shown as
  ``?``); tabs become spaces; newlines are kept only with ``keep_newlines``."""
  value = _ANSI.sub("", str.__str__(text) if isinstance(text, str) else str(text))
  out = []
  for char in value:
    if char == "\n" and keep_newlines:
      out.append(char)
    elif char in "\t\n\r":
      out.append(" ")
    elif _is_control(char):
      out.append("?")
    else:
      out.append(char)
  return "".join(out)


def one_line(text: object, limit: int = 300) -> str:
  """Clean, on one line, at most ``limit`` characters."""
  flat = " ".join(clean(text).split())
  return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# Characters that draw nothing although their category says "letter" or "symbol" (Hangul
# fillers, the braille blank...): an id holding one looks like the id without it.
_INVISIBLE = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800", "\u034f", "\u17b4",
              "\u17b5", "\u180e"}


def _invisible(char: str) -> bool:
  return (char in _INVISIBLE or unicodedata.category(char) in ("Cf", "Mn", "Mc", "Me")
          or 0xFE00 <= ord(char) <= 0xFE0F or 0xE0100 <= ord(char) <= 0xE01EF)


def _escaped(char: str) -> str:
  code = ord(char)
  return (f"\\x{code:02x}" if code < 0x100 else
          f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")


def escape_id(stem: str, *, normalize: bool = True) -> str:
  """A student id safe everywhere, and that looks like no other: normalised to NFC (so that
  a decomposed ``é`` shows as one character), then control characters, format characters
  (zero-width joiners, bidi marks...), combining marks left over, invisible letters,
  whitespace other than an inner space and backslashes written as ``\\xNN``/``\\uNNNN``.
  ``normalize=False`` keeps the name's own code points (each combining mark then escaped):
  for a second file whose NFC form another file already uses."""
  if normalize:
    stem = unicodedata.normalize("NFC", stem)
  out = []
  for index, char in enumerate(stem):
    edge = index in (0, len(stem) - 1)  # "ada " next to "ada" would look the same
    if (char == "\\" or _is_control(char) or _invisible(char)
        or (char.isspace() and char != " ") or (char == " " and edge)):
      out.append(_escaped(char))
    else:
      out.append(char)
  return "".join(out)


def lookalike_key(stem: str) -> str:
  """What an id looks like, for finding ids that could be taken for one another: NFKC and
  case folded, without format characters, variation selectors or invisible letters (``ada``,
  ``ADA``, ``ada`` + a zero-width joiner and a fullwidth ``ａｄａ`` share a key; a decomposed
  ``josé`` and a composed one too)."""
  text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", stem).casefold())
  return "".join(c for c in text if not (
      c in _INVISIBLE or unicodedata.category(c) == "Cf" or 0xFE00 <= ord(c) <= 0xFE0F
      or 0xE0100 <= ord(c) <= 0xE01EF or c.isspace()))


def display_width(text: str) -> int:
  """Columns ``text`` takes on a terminal: wide and fullwidth characters two, combining and
  format characters none."""
  width = 0
  for char in text:
    if unicodedata.category(char) in ("Mn", "Me", "Cf"):
      continue
    width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
  return width


def csv_cell(value: object) -> str:
  """A CSV cell a spreadsheet shows as text: one line, and a leading ``'`` where it would
  otherwise start a formula (``= + - @``, tab, carriage return)."""
  raw = value if isinstance(value, str) else str(value)
  text = clean(raw)
  formula = raw.startswith(FORMULA_STARTS) or text.startswith(FORMULA_STARTS)
  return "'" + text if formula else text


def md(text: object) -> str:
  """Text for one line of Markdown (a list item, a table cell): clean, on one line, with what
  Markdown or HTML could read as markup backslash-escaped: no emphasis, code span, link,
  autolink, image, HTML, entity or table cell can come out of it, nor a heading, list or
  quote where it starts, and it cannot end the block it is in. (Only those characters, so
  that the page stays readable as plain text.)"""
  text = _MARKDOWN_INLINE.sub(r"\\\1", " ".join(clean(text).split()))
  for pattern in _AUTOLINKS:
    text = pattern.sub(lambda m: m.group(0)[:-1] + "\\" + m.group(0)[-1], text)
  match = _MARKDOWN_LINE_START.match(text)
  if match:
    end = match.end()
    text = (text[:end] + "\\" + text[end:]) if match.group(0)[0].isdigit() else "\\" + text
  return text


def fence_for(text: str) -> str:
  """A code fence longer than any run of backticks or tildes in ``text``."""
  longest = max([len(m.group(0)) for m in re.finditer(r"`+|~+", text)] + [2])
  return "~" * (longest + 1)


def safe_filename(student: str, taken: set[str]) -> str:
  """A file name (without extension) for a student's page: letters, digits, ``. _ -`` only,
  not hidden, not too long, and unique without regard to case (``taken`` holds the lowercase
  names given so far). A name that had to change gets a short hash of the id."""
  base = _FILE_SAFE.sub("_", student)[:80].lstrip(".") or "student"
  if base != student or base.lower() in taken or base.upper() in ("CON", "PRN", "AUX", "NUL"):
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    base = f"{base}-{digest}"
  while base.lower() in taken:
    base += "_"
  taken.add(base.lower())
  return base

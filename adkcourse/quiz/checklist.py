"""A lesson's "I can…" checklist as boxes a student ticks, saved with their quiz progress.

The items have one source, the lesson's own markdown: the "I can…" cell lists them in an HTML
comment (hidden where the markdown is rendered, so the list is not shown twice)::

    ## I can…

    Tick what you can do, under the quiz; ticks are saved with your answers.

    <!-- i-can
    - create a session and list what it holds
    - say what `{key}` and `{key?}` render for `None` and a missing key
    -->

and the lesson's code shows them, next to its quiz::

    show_checklist("01_sessions_events_state")

``show_checklist`` finds the notebook's language as ``show_quiz`` does (``language.py``) and reads
the items from that language's notebook file (``notebooks/<lesson>.ipynb``, or
``notebooks/<lang>/<lesson>.ipynb``, generated with the translated markdown by ``python -m
adkcourse.i18n generate``). Each item is a ``Checkbox``; every tick and untick is stored through
``ProgressStore`` (``progress.py``), in the same progress file and session as the quiz attempts,
under the lesson and a fingerprint of the item's *English* text: a tick made in the French lesson
shows in the English one, and an English item that is reworded starts unticked.

As the quiz, the display carries a plain-text and an HTML rendering besides the live widget: the
items with ☐ / ☑ (as ticked when the cell ran), which is what GitHub, nbviewer and nbconvert show
and what nbval compares. The widget's own words come from ``messages.py``.
"""

from __future__ import annotations

import html
import json
import re
import warnings
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence, Union

import ipywidgets as widgets

from adkcourse.i18n import NOTEBOOKS_DIR, REPO_ROOT, SOURCE_LANGUAGE, source_hash

from .language import resolve_language
from .messages import message, template
from .progress import ProgressStore, default_user_id
from .widget import CARD, MUTED, _Displayable, claim_restart_hint, in_ipython, inline_markdown

CHECKLIST_CLASS = "adkcourse-checklist"
ITEM_CLASS = "adkcourse-checklist-item"
COUNT_CLASS = "adkcourse-checklist-count"
STATUS_CLASS = "adkcourse-checklist-status"
HTML_START = f'<div class="{CHECKLIST_CLASS}">'
"""How the HTML fallback begins: ``python -m adkcourse.i18n generate`` finds the checklist's output
by it, to draw it again in the notebook's language."""

COMMENT = re.compile(r"<!--[ \t]*i-can[ \t]*\n(?P<body>.*?)-->", re.DOTALL)
"""The ``<!-- i-can`` comment that holds a lesson's items, one ``- item`` per line."""
UNCLOSED = re.compile(r"<!--[ \t]*i-can\b")
ONE_LINE = re.compile(r"<!--[ \t]*i-can\b[^\n]*-->")
BOXES = ("☐", "☑")
FORMAT_HINT = ("write the items in the \"I can…\" cell as `<!-- i-can`, then one `- item` per line "
               "(a longer item may go on over indented lines), then `-->`")


class ChecklistError(ValueError):
  """A lesson's checklist cannot be read: no ``<!-- i-can`` comment, two, or a malformed one."""


def _shown(path: Union[str, Path]) -> str:
  """A path as a message names it: relative to the repository when it is inside."""
  path = Path(path)
  for base, shown in ((REPO_ROOT, ""), (Path.home(), "~/")):
    try:
      return shown + str(path.resolve().relative_to(base.resolve()))
    except (ValueError, OSError, RuntimeError):
      continue
  return str(path)


def parse_items(markdown: Iterable[str], where: str) -> list[str]:
  """The items of the one ``<!-- i-can`` comment in ``markdown`` (the texts of a notebook's
  markdown cells), in order; a missing, repeated or malformed comment is a ``ChecklistError``
  naming ``where`` (the file)."""
  texts = [text.replace("\r\n", "\n").replace("\r", "\n") for text in markdown]  # CRLF files
  found = [match for text in texts for match in COMMENT.finditer(text)]
  if not found:
    one_line = [text for text in texts if ONE_LINE.search(text)]
    if one_line:
      raise ChecklistError(f"{where}: the `<!-- i-can` comment is on one line; the items go on "
                           f"lines of their own ({FORMAT_HINT})")
    if any(UNCLOSED.search(text) for text in texts):
      raise ChecklistError(f"{where}: the `<!-- i-can` comment is not closed with `-->` "
                           f"({FORMAT_HINT})")
    raise ChecklistError(f"{where}: no `<!-- i-can` comment, so no checklist items: "
                         f"{FORMAT_HINT}")
  if len(found) > 1:
    raise ChecklistError(f"{where}: {len(found)} `<!-- i-can` comments; a lesson has one "
                         "checklist")
  items: list[str] = []
  for number, line in enumerate(found[0].group("body").split("\n"), 1):
    if not line.strip():
      continue
    if line.rstrip() == "-" or (line.startswith("- ") and not line[2:].strip()):
      raise ChecklistError(f"{where}: line {number} of the `<!-- i-can` comment is an empty "
                           f"item: write its text after `- `, or remove the line")
    if line.startswith("- "):
      text = line[2:].strip()
      if re.match(r"\[[ xX]?\]", text):
        raise ChecklistError(f"{where}: line {number} of the `<!-- i-can` comment has a box "
                             f"({line.strip()!r}): write `- item`, the widget draws the box")
      items.append(text)
    elif line[0] in " \t" and line.lstrip().startswith("- "):
      raise ChecklistError(f"{where}: line {number} of the `<!-- i-can` comment is an indented "
                           f"item ({line.strip()[:60]!r}): items start at the beginning of the "
                           "line, and a checklist has no sub-items")
    elif line[0] in " \t" and items:
      items[-1] = f"{items[-1]} {line.strip()}"
    else:
      raise ChecklistError(f"{where}: line {number} of the `<!-- i-can` comment is not an item "
                           f"({line.strip()[:60]!r}): {FORMAT_HINT}")
  if not items or not all(items):
    raise ChecklistError(f"{where}: the `<!-- i-can` comment has no items: {FORMAT_HINT}")
  return items


def _markdown_texts(notebook: Any, where: str) -> list[str]:
  cells = notebook.get("cells") if isinstance(notebook, dict) else None
  if not isinstance(cells, list):
    raise ChecklistError(f"{where}: not a notebook (no list of `cells`), so no checklist to show")
  texts = []
  for number, cell in enumerate(cells, 1):
    if not isinstance(cell, dict) or "cell_type" not in cell:
      raise ChecklistError(f"{where}: cell {number} is not a notebook cell (no `cell_type`)")
    if cell["cell_type"] == "markdown":
      source = cell.get("source", "")
      texts.append("".join(source) if isinstance(source, list) else str(source))
  return texts


def notebook_items(notebook: Any, where: str) -> list[str]:
  """The checklist items of a notebook (a dict or ``nbformat`` node)."""
  return parse_items(_markdown_texts(notebook, where), where)


def _items(count: int) -> str:
  return f"{count} item" if count == 1 else f"{count} items"


def notebook_path(lesson: str, lang: str = SOURCE_LANGUAGE,
                  notebooks_dir: Optional[Path] = None) -> Path:
  """The notebook whose markdown holds ``lesson``'s items in ``lang``: in the course's
  ``notebooks/`` folder (``notebooks_dir``), found from this package."""
  base = NOTEBOOKS_DIR if notebooks_dir is None else notebooks_dir
  folder = base if lang == SOURCE_LANGUAGE else base / lang
  return folder / f"{lesson}.ipynb"


def read_items(path: Path) -> list[str]:
  """The checklist items of the notebook file ``path``."""
  try:
    notebook = json.loads(path.read_text(encoding="utf-8"))
  except FileNotFoundError:
    raise ChecklistError(f"{_shown(path)}: no such notebook, so no checklist to show") from None
  except (OSError, ValueError) as error:
    raise ChecklistError(f"{_shown(path)}: not a readable notebook ({error})") from None
  return notebook_items(notebook, _shown(path))


def fingerprint(english_item: str) -> str:
  """What a tick is stored under: 12 hex digits of the English item's hash (spaces and line
  breaks do not count), the same in every language."""
  return source_hash(" ".join(english_item.split()))


# -- the readable fallback -------------------------------------------------------------------------

def _title(ticked: Sequence[bool], lang: Optional[str]) -> str:
  return (f"{message('checklist_title', lang)} · "
          f"{message('checklist_count', lang, ticked=sum(ticked), total=len(ticked))}")


def fallback_text(items: Sequence[str], ticked: Sequence[bool], lang: Optional[str]) -> str:
  lines = [_title(ticked, lang)]
  lines += [f"{BOXES[bool(done)]} {item}" for item, done in zip(items, ticked)]
  return "\n".join(lines + [message("checklist_offline_note", lang)])


def fallback_html(items: Sequence[str], ticked: Sequence[bool], lang: Optional[str]) -> str:
  rows = "".join(f"<li>{BOXES[bool(done)]} {inline_markdown(item)}</li>"
                 for item, done in zip(items, ticked))
  return (f"{HTML_START}<p><b>{_html(message('checklist_title', lang))}</b> &middot; "
          f"{_count_html(ticked, lang)}</p>"
          f'<ul style="list-style: none; padding-left: 1em">{rows}</ul>'
          f"<p><small>{_html(message('checklist_offline_note', lang))}</small></p></div>")


def fallback_data(items: Sequence[str], lang: Optional[str]) -> dict[str, str]:
  """The text and HTML a checklist of ``items`` shows before anything is ticked: what ``python -m
  adkcourse.i18n generate`` writes into a translated lesson's output."""
  unticked = [False] * len(items)
  return {"text/plain": fallback_text(items, unticked, lang),
          "text/html": fallback_html(items, unticked, lang)}


def _html(text: str) -> str:
  return html.escape(text, quote=False)


def _count_html(ticked: Sequence[bool], lang: Optional[str]) -> str:
  return _html(message("checklist_count", lang, ticked=sum(ticked), total=len(ticked)))


# -- the widget ----------------------------------------------------------------------------------

class Checklist(_Displayable):
  """One box per item, ticked as the student last left it (read from ``store``), each change
  stored at once. Tests drive it with ``tick(i)`` / ``untick(i)`` and read ``ticked`` and
  ``count_text``."""

  def __init__(self, lesson: str, items: Sequence[str],
               english_items: Optional[Sequence[str]] = None, *, lang: Optional[str] = None,
               user_id: Optional[str] = None, store: Optional[ProgressStore] = None,
               where: Optional[str] = None, restart_hint: Optional[bool] = None):
    english = list(items if english_items is None else english_items)
    if len(english) != len(items):
      raise ChecklistError(f"{where or lesson}: the checklist has {_items(len(items))} in {lang} "
                           f"but {_items(len(english))} in English: translate each item, no more, "
                           "no fewer")
    self.lesson = lesson
    self.items = list(items)
    self.lang = lang
    self.user_id = user_id or default_user_id()
    self.store = store
    self.fingerprints = [fingerprint(item) for item in english]
    self.save_error: Optional[str] = None
    self.history_error: Optional[str] = None
    saved = self._saved()
    self.boxes = [widgets.Checkbox(value=saved.get(key, False),
                                   description=inline_markdown(item),
                                   description_allow_html=True, indent=False,
                                   layout=widgets.Layout(width="auto"))
                  for item, key in zip(self.items, self.fingerprints)]
    for index, box in enumerate(self.boxes):
      box.add_class(ITEM_CLASS)
      box.observe(lambda change, index=index: self._changed(index, change["new"]), "value")
    self.header = widgets.HTML("")
    self.header.add_class(COUNT_CLASS)
    self.status = widgets.HTML("")
    self.status.add_class(STATUS_CLASS)
    self.restart_hint = widgets.HTML(
        f'<small style="opacity: 0.75">{_html(message("checklist_restart_hint", lang))}</small>')
    # One "run this cell again" line per cell: none here when the quiz above already says it.
    if restart_hint is None:
      restart_hint = claim_restart_hint()
    self.widget = widgets.VBox([self.header, *self.boxes, self.status]
                               + ([self.restart_hint] if restart_hint else []), layout=CARD)
    self.widget.add_class(CHECKLIST_CLASS)
    self._show_count()
    if self.history_error is not None:
      self.status.value = self._note("checklist_history_error", self.history_error)

  def _saved(self) -> dict[str, bool]:
    if self.store is None:
      return {}
    try:
      return self.store.ticks(self.user_id, self.lesson)
    except Exception as error:  # noqa: BLE001 - the boxes must show even if the file is unreadable
      self.history_error = f"{type(error).__name__}: {error}"
      warnings.warn(f"earlier ticks not read from {_shown(self.store.path)}: {self.history_error}",
                    stacklevel=3)
      return {}

  def _note(self, key: str, error: str) -> str:
    text = _html(template(key, self.lang)).format(error=html.escape(error))
    return f'<p style="color: {MUTED}"><small>{text}</small></p>'

  def _changed(self, index: int, ticked: bool) -> None:
    self._show_count()
    self.save_error = None
    self.status.value = ""
    if self.store is None:
      return
    try:
      self.store.record_tick(self.user_id, self.lesson, self.fingerprints[index], bool(ticked))
    except Exception as error:  # noqa: BLE001 - ticking must work even if saving fails
      self.save_error = f"{type(error).__name__}: {error}"
      self.status.value = self._note("checklist_not_saved", self.save_error)
      warnings.warn(f"tick not saved to {_shown(self.store.path)}: {self.save_error}", stacklevel=2)

  def _show_count(self) -> None:
    self.header.value = (f"<b>{_html(message('checklist_title', self.lang))}</b> &middot; "
                         f"{_count_html(self.ticked, self.lang)}")

  @property
  def ticked(self) -> list[bool]:
    return [box.value for box in self.boxes]

  @property
  def count_text(self) -> str:
    """``3 of 6`` (in the checklist's language)."""
    ticked = self.ticked
    return message("checklist_count", self.lang, ticked=sum(ticked), total=len(ticked))

  def tick(self, index: int, ticked: bool = True) -> "Checklist":
    """Tick item ``index`` (0-based) as a student would, which stores it."""
    self.boxes[index].value = ticked
    return self

  def untick(self, index: int) -> "Checklist":
    return self.tick(index, False)

  def text_fallback(self) -> str:
    return fallback_text(self.items, self.ticked, self.lang)

  def html_fallback(self) -> str:
    return fallback_html(self.items, self.ticked, self.lang)


def show_checklist(lesson: str, lang: Optional[str] = None, *, user_id: Optional[str] = None,
                   save: bool = True) -> Checklist:
  """Display ``lesson``'s "I can…" checklist and return it.

  The items are read from the lesson's notebook in ``lang`` (default: the notebook's language,
  as for ``show_quiz``; an unknown code is a ``ValueError``), from its ``<!-- i-can`` comment;
  a missing notebook or comment is a ``ChecklistError`` naming the file. ``user_id`` as for
  ``show_quiz``; ``save=False`` neither reads nor stores ticks."""
  lang = resolve_language(lang)
  items = read_items(notebook_path(lesson, lang))
  english = items if lang == SOURCE_LANGUAGE else read_items(notebook_path(lesson))
  checklist = Checklist(lesson, items, english, lang=lang, user_id=user_id,
                        store=ProgressStore() if save else None,
                        where=_shown(notebook_path(lesson, lang)))
  if in_ipython():
    from IPython.display import display
    display(checklist)
  return checklist

"""A picture of a session, event by event, with its state as it changes (issue 23).

::

    from adkcourse.timeline import timeline
    timeline(session)                      # a Session from any service
    timeline(events)                       # a list of Events, e.g. collected from run_async
    timeline([visit_1, visit_2])           # two sessions of one user on one time axis
    timeline([events_a, events_b], labels=["instance A", "instance B"])   # one session, commit order

The result displays as an SVG image in every front end (JupyterLab, Notebook 7, VS Code,
GitHub, nbconvert HTML): it is a picture, not a widget. ``.layout`` is the data it is drawn
from (``model.py``), ``.svg`` the SVG text. Why an image beside the lesson's DataFrame, not
instead of it: a table is right for inspecting; the picture lets a student *see* who wrote each
event, which event changed which key in which scope, and what the state held after each step.

Reading it: lanes are who wrote each event (the user, each agent, each tool: a tool's result is
on its tool's lane); a marker's shape says the kind of event; shaded bands are invocations.
Beneath, one row per state key: a bar holds a value for as long as it lasts, a solid edge marks
the event that wrote it, the row's colour and prefix say its scope; "before" shows values no
event wrote (``create_session(state=...)``) and "stored now" the session's state.

Inputs that are not a session or events raise ``TypeError``. An empty session or event list
gives a valid picture that says "no events" (and, for a session, still shows its state).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

from .model import (FOLD_AT, UNSET, Column, Invocation, Layout, Lane, Link, Mark, Row, Shown,
                    Source, TimelineInput, Write, build_layout, layout_from_json, layout_to_json,
                    scope_of)
from .render import PNG_DPI, render_outputs, render_png, render_svg
from .words import WORDS, resolve

__all__ = ["FOLD_AT", "LANGUAGE_MIMES", "METADATA_KEY", "UNSET", "Column", "Invocation", "Lane",
           "Layout", "Link", "Mark", "Row", "Shown", "Source", "Timeline", "WORDS", "Write",
           "build_layout", "is_timeline_output", "layout_from_json", "layout_to_json",
           "render_outputs", "rerender_output", "scope_of", "timeline"]

METADATA_KEY = "application/vnd.adkcourse.timeline+json"
"""The key of a timeline output's ``metadata`` that holds what it was drawn from::

    {"lang": null, "title": null, "png": true, "layout": {...layout_to_json...}}

``lang`` is null when the picture follows the notebook's language (``timeline(...)`` without
``lang=``), else the language the code asked for; ``layout`` is ``layout_to_json(layout,
stable=True)`` as an object (ids and timestamps, which change on every run and are never drawn,
replaced by stand-ins; under a ``title=``, the session ids too, see ``output_metadata``).

Output metadata is what nbval never compares (it skips the whole ``metadata`` key), and what
JupyterLab, Notebook 7, VS Code, GitHub and nbconvert ignore under a key of no mime type they
render. It holds nothing of the language, so it is the same in the English output and in the
generated ones."""
LANGUAGE_MIMES = ("image/svg+xml", "image/png", "text/plain")
"""The data of a timeline output that is in the picture's language: ``generate`` draws them
again (``rerender_output``); every other part of the output is copied."""


@dataclass
class Timeline:
  """A drawn timeline: ``layout`` (the data), ``svg`` (the picture), shown as an image.

  Displayed as SVG, with a PNG beside it in the same output: JupyterLab and Notebook 7 never
  render SVG from an *untrusted* output (a committed notebook opened before it is run) and fall
  back to the PNG; once the cell runs they show the SVG, as VS Code and nbconvert's HTML do.
  nbval compares the SVG (deterministic) and skips PNGs. ``png=False`` keeps only the SVG.

  The output also carries the layout as JSON in its metadata (``METADATA_KEY``), so that
  ``python -m adkcourse.i18n generate`` draws the English lesson's picture again in French and
  Indonesian, exactly as the kernel draws it there (``render_outputs``). ``repr()`` names no
  word of any language, since a printed repr is copied as it is.
  """

  layout: Layout
  lang: str
  title: Optional[str] = None
  png: bool = True
  follows_notebook: bool = False
  """``lang`` is the notebook's (no ``lang=`` given): ``generate`` redraws it per language."""
  _svg: Optional[str] = field(default=None, repr=False, compare=False)

  @property
  def svg(self) -> str:
    if self._svg is None:
      self._svg = render_svg(self.layout, WORDS[self.lang], self.title)
    return self._svg

  def to_png(self, dpi: float = PNG_DPI) -> bytes:
    return render_png(self.layout, WORDS[self.lang], self.title, dpi)

  def _repr_svg_(self) -> str:
    return self.svg

  def output_metadata(self) -> dict[str, Any]:
    """The output's metadata: ``{METADATA_KEY: {...}}`` (see ``METADATA_KEY``).

    Under a ``title=``, a session id the picture does not draw (a source without a label) is a
    stand-in too, ``s1``...: a lesson's sessions get a new id on every run."""
    layout = json.loads(layout_to_json(self.layout, stable=True))
    if self.title is not None:
      for number, source in enumerate(layout["sources"], 1):
        if source["session_id"] and not source["label"]:
          source["session_id"] = f"s{number}"
    return {METADATA_KEY: {"lang": None if self.follows_notebook else self.lang,
                           "title": self.title, "png": self.png, "layout": layout}}

  def _repr_mimebundle_(self, include=None, exclude=None):  # noqa: ARG002
    """(data, metadata): the data drawn from the layout *as the metadata holds it*, so that
    whatever reads the metadata back draws the very same bytes."""
    metadata = self.output_metadata()
    entry = metadata[METADATA_KEY]
    data = render_outputs(layout_from_json(entry["layout"]), self.lang, self.title, self.png)
    return data, metadata

  def __repr__(self) -> str:
    layout = self.layout
    folded = f", folded={layout.folded_events}" if layout.folded_runs else ""
    return (f"Timeline(events={len(layout.marks)}{folded}, lanes={len(layout.lanes)}, "
            f"state_keys={len(layout.rows)})")

  def save(self, path: Union[str, Path]) -> Path:
    """Write the picture to ``path``: PNG for a ``.png`` name, else SVG (e.g. to keep one
    outside the repository for a person to look at)."""
    path = Path(path)
    if path.suffix.lower() == ".png":
      path.write_bytes(self.to_png())
    else:
      path.write_text(self.svg, encoding="utf-8")
    return path


def is_timeline_output(output: Mapping[str, Any]) -> bool:
  """Whether a notebook output (a dict as nbformat reads it) is a timeline's."""
  return METADATA_KEY in (output.get("metadata") or {})


def rerender_output(output: Any, lang: str) -> bool:
  """Draw a timeline output again in ``lang``, in place, from the layout its metadata carries:
  its ``LANGUAGE_MIMES`` data become what the kernel draws in a ``lang`` notebook; everything
  else (the metadata too) stays. True when it was one that follows the notebook's language; a
  picture whose code names its language, or another output, is left as it is.

  A language with no words here is drawn in English, as the kernel does (``words.resolve``)."""
  entry = (output.get("metadata") or {}).get(METADATA_KEY)
  if not isinstance(entry, dict) or entry.get("lang") is not None:
    return False
  layout = layout_from_json(entry["layout"])
  rendered = render_outputs(layout, lang if lang in WORDS else "en", entry.get("title"),
                            bool(entry.get("png", True)))
  data = output.setdefault("data", {})
  for mime, text in rendered.items():
    if mime in data:
      data[mime] = text
  return True


def timeline(data: TimelineInput, *, labels: Optional[Sequence[str]] = None,
             same_session: Optional[bool] = None, fold_at: int = FOLD_AT,
             lang: Optional[str] = None, title: Optional[str] = None,
             png: bool = True) -> Timeline:
  """Draw ``data``: a ``Session``, a list of ``Event``, or a list of those.

  Args:
    labels: a name for each input when there are several ("A", "B"... by default).
    same_session: several inputs are, by default, *compared* when they are sessions with
      different ids, and merged as several instances' appends to *one* session (in commit
      order) when they are event lists or sessions with one id; this overrides the choice.
    fold_at: beyond this many events, runs of events that write no state are folded into one
      mark "N events", and a note says so.
    lang: the language of the picture's words (en, fr, id); by default the notebook's, as the
      quiz decides it (its folder, ``$JPY_SESSION_NAME``, ``$ADKCOURSE_LANG``).
    title: the heading; "session <id>" by default.
    png: also offer a PNG in the notebook output (see ``Timeline``).

  The picture draws its own light panel, so it reads the same on a dark theme (see
  ``render.py`` for the palette and why).
  """
  layout = build_layout(data, labels=labels, same_session=same_session, fold_at=fold_at)
  return Timeline(layout, resolve(lang), title, png, follows_notebook=lang is None)

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

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence, Union

from .model import (FOLD_AT, UNSET, Column, Invocation, Layout, Lane, Link, Mark, Row, Source,
                    TimelineInput, Write, build_layout, scope_of)
from .render import render_png, render_svg
from .words import WORDS, resolve

__all__ = ["FOLD_AT", "UNSET", "Column", "Invocation", "Lane", "Layout", "Link", "Mark", "Row",
           "Source", "Timeline", "WORDS", "Write", "build_layout", "scope_of", "timeline"]


@dataclass
class Timeline:
  """A drawn timeline: ``layout`` (the data), ``svg`` (the picture), shown as an image.

  Displayed as SVG, with a PNG beside it in the same output: JupyterLab and Notebook 7 never
  render SVG from an *untrusted* output (a committed notebook opened before it is run) and fall
  back to the PNG; once the cell runs they show the SVG, as VS Code and nbconvert's HTML do.
  nbval compares the SVG (deterministic) and skips PNGs. ``png=False`` keeps only the SVG.
  """

  layout: Layout
  lang: str
  title: Optional[str] = None
  png: bool = True
  _svg: Optional[str] = field(default=None, repr=False, compare=False)

  @property
  def svg(self) -> str:
    if self._svg is None:
      self._svg = render_svg(self.layout, WORDS[self.lang], self.title)
    return self._svg

  def to_png(self, dpi: float = 100) -> bytes:
    return render_png(self.layout, WORDS[self.lang], self.title, dpi)

  def _repr_svg_(self) -> str:
    return self.svg

  def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, object]:  # noqa: ARG002
    bundle: dict[str, object] = {"image/svg+xml": self.svg, "text/plain": repr(self)}
    if self.png:
      bundle["image/png"] = self.to_png()
    return bundle

  def __repr__(self) -> str:
    layout = self.layout
    folded = f", {layout.folded_events} folded" if layout.folded_runs else ""
    return (f"<timeline: {len(layout.marks)} events{folded}, {len(layout.lanes)} lanes, "
            f"{len(layout.rows)} state keys>")

  def save(self, path: Union[str, Path]) -> Path:
    """Write the picture to ``path``: PNG for a ``.png`` name, else SVG (e.g. to keep one
    outside the repository for a person to look at)."""
    path = Path(path)
    if path.suffix.lower() == ".png":
      path.write_bytes(self.to_png())
    else:
      path.write_text(self.svg, encoding="utf-8")
    return path


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
  return Timeline(layout, resolve(lang), title, png)

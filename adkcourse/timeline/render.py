"""Draw a ``Layout`` as SVG with matplotlib: geometry only, every decision is in the model.

Why these choices:

* **SVG, not a widget**: an ``image/svg+xml`` output shows in JupyterLab, Notebook 7, VS Code,
  GitHub's notebook view and an nbconvert HTML export alike, and scales without blurring.
* **Deterministic bytes**: committed outputs are compared by nbval, so the same session must
  give the same SVG on every run and machine. Text is drawn as paths (``svg.fonttype='path'``)
  from the DejaVu fonts *bundled with matplotlib*, never a system font; ids come from a fixed
  ``svg.hashsalt``; the date and creator metadata are fixed. A ``Figure`` is made directly with
  its own SVG canvas, so no pyplot figure is left open and nothing leaks into other plots; the
  rc settings apply inside ``rc_context`` only.
* **Colour-blind safe and dark-mode safe**: colours are the Okabe-Ito palette, and none carries
  meaning alone: each kind of event has its own marker shape, each scope its own prefix in the
  key's name (plus hatching for a dropped ``temp:`` write, "≠" for a stored value that differs).
  The picture draws its own light panel, so it reads the same on a dark theme as on a light one
  (mid-tone colours on a transparent background would lose contrast on one of the two).
"""

from __future__ import annotations

import io
import base64
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

import matplotlib
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Rectangle

from .model import KINDS, SCOPES, UNSET, Layout, Mark, Row, short, value_text
from .words import WORDS

# Okabe-Ito.
BLACK, ORANGE, SKY, GREEN, YELLOW, BLUE, VERMILLION, PURPLE = (
  "#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
GREY = "#8C8C8C"
PANEL = "#FBFBF8"
KIND_STYLE: dict[str, tuple[str, str]] = {  # marker, colour
  "text": ("o", BLUE), "tool call": (">", ORANGE), "tool result": ("<", GREEN),
  "state update": ("s", YELLOW), "compaction": ("D", PURPLE), "rewind": ("X", VERMILLION),
  "transfer": ("P", SKY), "control": ("h", GREY),
}
SCOPE_COLOUR = {"session": BLUE, "user": VERMILLION, "app": GREEN, "temp": PURPLE}
RC = {"svg.fonttype": "path", "svg.hashsalt": "adkcourse-timeline", "svg.id": None,
      "svg.image_inline": True, "path.simplify": True, "hatch.linewidth": 0.7,
      "font.family": "DejaVu Sans", "axes.unicode_minus": False}
METADATA = {"Date": None, "Creator": "adkcourse.timeline"}
PNG_DPI = 100
_PAGE_WIDE_STYLE = """ <defs>
  <style type="text/css">*{stroke-linejoin: round; stroke-linecap: butt}</style>
 </defs>
"""
_FONTS = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
SANS = FontProperties(fname=str(_FONTS / "DejaVuSans.ttf"))
MONO = FontProperties(fname=str(_FONTS / "DejaVuSansMono.ttf"))
BOLD = FontProperties(fname=str(_FONTS / "DejaVuSans-Bold.ttf"))


@lru_cache(maxsize=1)
def _charmap() -> frozenset[int]:
  from matplotlib.ft2font import FT2Font

  sans = FT2Font(str(_FONTS / "DejaVuSans.ttf")).get_charmap()
  mono = FT2Font(str(_FONTS / "DejaVuSansMono.ttf")).get_charmap()
  return frozenset(sans) & frozenset(mono)


def clean(text: str) -> str:
  """``text`` with the characters the bundled fonts cannot draw as "?", so no glyph depends on
  a fallback font."""
  chars = _charmap()
  return "".join(c if ord(c) in chars else "?" for c in text)


def _width(chars: int, size: float) -> float:
  """About how wide ``chars`` characters are, in inches (DejaVu averages 0.6 em)."""
  return chars * size * 0.6 / 72


def _fit(value: Any, inches: float, size: float) -> str:
  chars = int(inches / _width(1, size))
  return short(value, chars) if chars >= 3 else ""


class _Canvas:
  """An axes whose data units are inches from the top left, y growing down."""

  def __init__(self, width: float, height: float) -> None:
    self.fig = Figure(figsize=(width, height), dpi=72, facecolor=PANEL)
    FigureCanvasSVG(self.fig)
    self.ax = self.fig.add_axes((0, 0, 1, 1))
    self.ax.set_xlim(0, width)
    self.ax.set_ylim(height, 0)
    self.ax.set_axis_off()

  def text(self, x: float, y: float, text: str, size: float = 7, *, font: FontProperties = SANS,
           colour: str = "#1A1A1A", **kw: Any) -> None:
    if text:
      self.ax.text(x, y, clean(text), fontproperties=font, fontsize=size, color=colour,
                   parse_math=False, **{"va": "center", "ha": "left", **kw})

  def rect(self, x: float, y: float, w: float, h: float, **kw: Any) -> None:
    self.ax.add_patch(Rectangle((x, y), w, h, **{"linewidth": 0, **kw}))

  def svg(self, title: str) -> str:
    out = io.StringIO()
    self.fig.savefig(out, format="svg", metadata={**METADATA, "Title": title}, facecolor=PANEL)
    # matplotlib's one style rule selects "*": inlined in a page (nbconvert HTML, VS Code) it
    # would restyle the page's other SVGs. Without it, lines keep SVG's default joins.
    return out.getvalue().replace(_PAGE_WIDE_STYLE, "", 1)

  def png(self, dpi: float) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(self.fig)
    out = io.BytesIO()
    self.fig.savefig(out, format="png", dpi=dpi, metadata={"Software": None}, facecolor=PANEL)
    return out.getvalue()


def _lane_title(layout: Layout, lane: int, words: dict[str, str]) -> str:
  entry = layout.lanes[lane]
  if entry.role == "user":
    return words["user"]
  return f"{words[entry.role]}: {entry.name}"


def _row_title(layout: Layout, row: Row, words: dict[str, str]) -> str:
  if layout.mode != "compare":
    return row.key
  if row.owner is None:
    return f"{row.key} ({words['shared']})"
  return f"{layout.sources[row.owner].label} · {row.key}"


def _same(a: Any, b: Any) -> bool:
  return value_text(a) == value_text(b)


def render_svg(layout: Layout, words: dict[str, str], title: Optional[str] = None) -> str:
  """The SVG text of ``layout``, its words from ``words``; its ``<title>`` is the heading, for
  a screen reader."""
  with matplotlib.rc_context(RC):
    canvas, heading = _draw(layout, words, title)
    return canvas.svg(heading)


def render_png(layout: Layout, words: dict[str, str], title: Optional[str] = None,
               dpi: float = PNG_DPI) -> bytes:
  """The same picture as PNG: the one image JupyterLab and Notebook 7 show for an *untrusted*
  output (a committed notebook opened before it is run), where they never render SVG."""
  with matplotlib.rc_context(RC):
    return _draw(layout, words, title)[0].png(dpi)


def render_outputs(layout: Layout, lang: str, title: Optional[str] = None,
                   png: bool = True) -> dict[str, str]:
  """The picture of ``layout`` in ``lang`` as a notebook output's data, exactly as the notebook
  stores it: ``image/svg+xml`` (the SVG text), ``image/png`` (base64, as ipykernel writes
  bytes; only with ``png``) and ``text/plain`` (a line in ``lang``: the counts).

  One function for both ways an output is made, so that they agree byte for byte: the kernel
  (``Timeline._repr_mimebundle_``) and ``python -m adkcourse.i18n generate``, which draws an
  English output again in the generated notebook's language from the layout it carries."""
  words = WORDS[lang]
  with matplotlib.rc_context(RC):
    canvas, heading = _draw(layout, words, title)
    data = {"image/svg+xml": canvas.svg(heading), "text/plain": summary(layout, words)}
    if png:
      data["image/png"] = base64.b64encode(canvas.png(PNG_DPI)).decode("ascii")
  return data


def summary(layout: Layout, words: dict[str, str]) -> str:
  """The output's text form, for a front end that shows no image: what the picture holds."""
  folded = words["summary folded"].format(n=layout.folded_events) if layout.folded_runs else ""
  return words["summary"].format(events=len(layout.marks), folded=folded,
                                 lanes=len(layout.lanes), keys=len(layout.rows))


def _draw(layout: Layout, words: dict[str, str], title: Optional[str]) -> tuple[_Canvas, str]:
  columns = layout.columns
  n = max(len(columns), 1)
  col_w = 0.42 if n <= 24 else 0.3 if n <= 48 else 0.17
  label_size = 6.5 if col_w >= 0.3 else 5.5
  rows = layout.rows
  has_start = any(r.initial is not UNSET for r in rows)
  has_stored = any(s.from_session for s in layout.sources) and bool(rows)
  left = 2.4
  start_w = 1.0 if has_start else 0.0
  stored_w = 1.2 if has_stored else 0.0
  x0 = left + start_w
  width = max(x0 + n * col_w + stored_w + 0.3, 6.5)
  col_of = {}
  for c, col in enumerate(columns):
    for i in range(col.first, col.last + 1):
      col_of[i] = c

  def cx(c: int) -> float:
    return x0 + (c + 0.5) * col_w

  def col_label(c: int) -> str:
    col = columns[c]
    if col.folded:
      return f"{col.size} {words['events']}"
    return layout.marks[col.first].label

  labels = [col_label(c) for c in range(len(columns))]
  label_chars = min(max((len(t) for t in labels), default=0), 28)
  label_h = _width(label_chars, label_size) + 0.1 if labels else 0.0
  lane_h, row_h, block_head = 0.34, 0.24, 0.22
  blocks = sorted({lane.source for lane in layout.lanes}) or [0]
  lanes_h = sum(block_head + lane_h * max(1, sum(1 for l in layout.lanes if l.source == s))
                for s in blocks)
  grid_h = (0.32 + row_h * len(rows)) if rows else 0.0
  kinds_seen = [k for k in KINDS if any(m.kind == k for m in layout.marks)]
  scopes_seen = [s for s in SCOPES if any(r.scope == s for r in rows)]
  notes = _notes(layout, words)
  entries = _legend_entries(layout, kinds_seen, scopes_seen, words)
  lines = max((line for _, line in _legend_places(entries, width)), default=-1) + 1
  legend_h = 0.22 * lines + 0.18 * len(notes)
  height = 0.5 + label_h + lanes_h + 0.15 + grid_h + 0.2 + legend_h + 0.1
  cv = _Canvas(width, height)
  ax = cv.ax

  # Title.
  titled = title is not None
  if title is None:
    ids = [s.session_id for s in layout.sources if s.session_id]
    if len(set(ids)) > 1:
      ids = [i[:8] for i in ids]  # the blocks below name each source
    ids = list(dict.fromkeys(ids))
    title = words["title" if len(ids) == 1 else "titles"].format(session=", ".join(ids)) if ids else ""
  heading = " · ".join(t for t in (title, f"{len(layout.marks)} {words['events']}") if t)
  if layout.mode in ("compare", "commit"):
    heading += f" · {words[layout.mode]}"
  cv.text(0.2, 0.25, heading, 9.5, font=BOLD)
  y = 0.5

  # Labels, rotated above their column, so that they never overlap at any width.
  for c, text in enumerate(labels):
    cv.text(cx(c), y + label_h - 0.05, short(text, 28), label_size, rotation=90, ha="center",
            va="bottom", colour="#444444" if columns[c].folded else "#1A1A1A")
  y += label_h

  # Lanes, one block per source, with the invocations shaded behind them.
  lane_y: dict[int, float] = {}
  top_of_lanes = y
  for s in blocks:
    own = [i for i, l in enumerate(layout.lanes) if l.source == s]
    block_top = y
    block_bottom = y + block_head + lane_h * max(1, len(own))
    source = layout.sources[s] if layout.sources else None
    head = words["invocation"]
    if source is not None and source.label:
      # The session's id only when no title was given: ids are new on every run, and a lesson's
      # picture (with its title) must draw the same on every run.
      shown_id = source.session_id[:8] if source.session_id and not titled else ""
      head = f"{source.label}" + (f" · {shown_id}" if shown_id else "")
    cv.text(0.2, y + block_head / 2, head, 7, font=BOLD)
    for inv in (i for i in layout.invocations if i.source == s):
      a, b = col_of[inv.first], col_of[inv.last]
      xa = x0 + a * col_w
      cv.rect(xa, block_top, (b - a + 1) * col_w, block_bottom - block_top,
              facecolor="#E9EEF4" if inv.number % 2 else "#F4F1EA", zorder=0)
      ax.plot([xa, xa], [block_top, block_bottom], color="#9AA5B1", lw=0.6, ls=(0, (2, 2)),
              zorder=1)
      cv.text(xa + 0.03, block_top + block_head / 2, _fit(str(inv.number), (b - a + 1) * col_w,
                                                          6), 6, colour="#3D4B5C")
    y += block_head
    for i in own:
      lane_y[i] = y + lane_h / 2
      cv.text(0.2, lane_y[i], short(_lane_title(layout, i, words), 34), 7)
      ax.plot([x0, x0 + n * col_w], [lane_y[i]] * 2, color="#C9CED4", lw=0.6, zorder=1)
      y += lane_h
    if not own:
      cv.text(x0 + 0.05, y + lane_h / 2, words["no events"], 7, colour="#555555")
      y += lane_h
  lanes_bottom = y

  # Marks (folded runs as a grey box across every lane), spans and links.
  by_kind: dict[str, tuple[list[float], list[float]]] = {}
  for c, col in enumerate(columns):
    if col.folded:
      cv.rect(x0 + c * col_w + 0.03, top_of_lanes + 0.03, col_w - 0.06,
              lanes_bottom - top_of_lanes - 0.06, facecolor="#D9D9D9", edgecolor="#8C8C8C",
              linewidth=0.6, zorder=2)
      cv.text(cx(c), (top_of_lanes + lanes_bottom) / 2, str(col.size), 6, ha="center",
              rotation=90, zorder=3)
      continue
    mark = layout.marks[col.first]
    xs, ys = by_kind.setdefault(mark.kind, ([], []))
    xs.append(cx(c))
    ys.append(lane_y[mark.lane])
  size = 7.5 if col_w >= 0.3 else 5.5
  for kind, (xs, ys) in by_kind.items():
    marker, colour = KIND_STYLE[kind]
    ax.plot(xs, ys, ls="none", marker=marker, ms=size, mfc=colour, mec="#1A1A1A", mew=0.6,
            zorder=4)
  for mark in layout.marks:
    if mark.span is not None:
      _span(cv, mark, col_of, x0, col_w, lane_y[mark.lane], words)
  grouped: dict[tuple[int, int], list[str]] = {}
  for link in layout.links:  # one arrow per pair of events, naming every key it carries
    grouped.setdefault((link.from_mark, link.to_mark), []).append(link.key)
  for (start, stop), keys in grouped.items():
    a, b = layout.marks[start], layout.marks[stop]
    xa, xb = cx(col_of[a.index]), cx(col_of[b.index])
    ya, yb = lane_y[a.lane], lane_y[b.lane]
    ax.annotate("", (xb, yb), (xa, ya), arrowprops=dict(arrowstyle="-|>", color=VERMILLION,
                lw=0.8, ls=(0, (3, 2)), shrinkA=4, shrinkB=4, connectionstyle="arc3,rad=0.2"),
                zorder=5)
    cv.text(xa + 0.35 * (xb - xa) + 0.06, ya + 0.35 * (yb - ya), short(", ".join(keys), 30), 5.5,
            font=MONO, colour=VERMILLION, zorder=6,
            bbox=dict(boxstyle="round,pad=0.15", facecolor=PANEL, edgecolor="none", alpha=0.85))
  y += 0.15

  # The state grid: one row per key, one bar per run of equal values.
  if rows:
    cv.text(0.2, y + 0.16, words["state"], 8, font=BOLD)
    if has_start:
      cv.text(left + 0.05, y + 0.16, words["start"], 6.5, colour="#444444")
    if has_stored:
      cv.text(x0 + n * col_w + 0.1, y + 0.16, words["stored"], 6.5, colour="#444444")
    y += 0.32
    for row in rows:
      _row(cv, layout, row, y, row_h, x0, col_w, left, start_w, has_stored, words)
      y += row_h
  y += 0.2
  _legend(cv, entries, y, width, notes)
  return cv, heading


def _span(cv: _Canvas, mark: Mark, col_of: dict[int, int], x0: float, col_w: float,
          lane: float, words: dict[str, str]) -> None:
  """A bracket under the marks a compaction summarises (solid) or a rewind undoes (dashed)."""
  assert mark.span is not None
  a, b = col_of[mark.span[0]], col_of[mark.span[1]]
  xa, xb = x0 + a * col_w + 0.04, x0 + (b + 1) * col_w - 0.04
  yy = lane + 0.12
  colour = KIND_STYLE[mark.kind][1]
  style = "-" if mark.kind == "compaction" else (0, (3, 2))
  cv.ax.plot([xa, xa, xb, xb], [yy - 0.05, yy, yy, yy - 0.05], color=colour, lw=1.0, ls=style,
             zorder=3)
  cv.text(xa, yy + 0.06, words["summarised" if mark.kind == "compaction" else "undone"], 5.5,
          colour=colour)


def _row(cv: _Canvas, layout: Layout, row: Row, y: float, h: float, x0: float, col_w: float,
         left: float, start_w: float, has_stored: bool, words: dict[str, str]) -> None:
  colour = SCOPE_COLOUR[row.scope]
  cv.rect(0.2, y + 0.05, 0.09, h - 0.1, facecolor=colour)
  cv.text(0.36, y + h / 2, short(_row_title(layout, row, words), 34), 6.5, font=MONO)
  size = 6
  if row.initial is not UNSET:
    cv.rect(left + 0.02, y + 0.03, start_w - 0.08, h - 0.06, facecolor=colour, alpha=0.16)
    cv.text(left + 0.06, y + h / 2, _fit(row.initial, start_w - 0.12, size), size, font=MONO)
  columns = layout.columns
  # What the row holds at the end of each column, and which columns write it.
  values = [row.values[col.last] if row.values else UNSET for col in columns]
  writes = []
  for col in columns:
    found = [w for m in layout.marks[col.first:col.last + 1] for w in m.writes
             if w.key == row.key and (row.owner is None or m.source == row.owner)]
    writes.append(found)
  c = 0
  while c < len(columns):
    value = values[c]
    end = c + 1
    while end < len(columns) and not writes[end] and _same(values[end], value) and (
        value is not UNSET) == (values[end] is not UNSET):
      end += 1
    xa, span = x0 + c * col_w, (end - c) * col_w
    if value is not UNSET:
      hatch = "////" if row.scope == "temp" else None
      cv.rect(xa + 0.01, y + 0.03, span - 0.02, h - 0.06, facecolor=colour, alpha=0.16,
              zorder=1)
      if hatch:
        cv.rect(xa + 0.01, y + 0.03, span - 0.02, h - 0.06, facecolor="none", hatch=hatch,
                edgecolor=colour, linewidth=0, zorder=1)
      cv.text(xa + 0.07 if writes[c] else xa + 0.03, y + h / 2, _fit(value, span - 0.1, size),
              size, font=MONO, zorder=3)
    if writes[c]:
      cv.rect(xa + 0.01, y + 0.02, 0.045, h - 0.04, facecolor=colour, zorder=2)
      if any(w.replaces is not None for w in writes[c]):
        cv.ax.plot([xa + 0.033], [y + 0.02], marker="x", ms=5, mec=BLACK, mew=1.0, zorder=4)
    c = end
  if has_stored:
    xs = x0 + len(columns) * col_w + 0.1
    stored = row.stored
    text = _fit(stored, 1.05, size)
    if row.memory_only:
      text = _fit(f"{words['memory only']}: {short(stored, 30)}", 1.05, size)
    elif row.differs:
      text = "≠ " + _fit(stored, 0.95, size)
    cv.text(xs, y + h / 2, text, size, font=MONO)


def _notes(layout: Layout, words: dict[str, str]) -> list[str]:
  notes = []
  if layout.folded_runs:
    notes.append(words["folded"].format(runs=layout.folded_runs, events=layout.folded_events))
  if layout.mismatches:
    keys = ", ".join(layout.mismatches[:4])
    if len(layout.mismatches) > 4:
      keys += " " + words["and more"].format(n=len(layout.mismatches) - 4)
    notes.append(words["differs"].format(keys=keys))
  return notes


def _legend_entries(layout: Layout, kinds: list[str], scopes: list[str],
                    words: dict[str, str]) -> list[tuple[str, str, str]]:
  """(swatch, what it is, its word) for every shape, colour and pattern the picture uses."""
  entries = [("kind", k, words[k]) for k in kinds]
  entries += [("scope", s, words["scope." + s]) for s in scopes]
  if any(w.dropped for m in layout.marks for w in m.writes):
    entries.append(("dropped", "temp", words["dropped"]))
  if any(w.replaces is not None for m in layout.marks for w in m.writes):
    entries.append(("replaces", "", words["replaces"]))
  if layout.folded_runs:
    entries.append(("fold", "", words["fold mark"]))
  return entries


LEGEND_SIZE = 6.5


def _legend_places(entries: list[tuple[str, str, str]], width: float) -> list[tuple[float, int]]:
  """Where each legend entry goes: its x, and its line (entries wrap at the picture's width)."""
  x, line, out = 0.2, 0, []
  for _, _, text in entries:
    step = 0.45 + _width(len(text), LEGEND_SIZE)
    if x + step > width - 0.1 and x > 0.2:
      x, line = 0.2, line + 1
    out.append((x, line))
    x += step
  return out


def _legend(cv: _Canvas, entries: list[tuple[str, str, str]], y: float, width: float,
            notes: list[str]) -> None:
  """The legend: every swatch with its word, then the notes (folding, stored differences)."""
  places = _legend_places(entries, width)
  for (swatch, what, text), (x, line) in zip(entries, places):
    yy = y + 0.22 * line
    if swatch == "kind":
      marker, colour = KIND_STYLE[what]
      cv.ax.plot([x + 0.08], [yy], marker=marker, ms=6, mfc=colour, mec="#1A1A1A", mew=0.6,
                 ls="none")
    elif swatch in ("scope", "dropped"):
      colour = SCOPE_COLOUR[what]
      if swatch == "scope":
        cv.rect(x + 0.02, yy - 0.07, 0.14, 0.14, facecolor=colour, alpha=0.16)
        cv.rect(x + 0.02, yy - 0.07, 0.04, 0.14, facecolor=colour)
      if what == "temp":
        cv.rect(x + 0.02, yy - 0.07, 0.14, 0.14, facecolor="none", hatch="////",
                edgecolor=colour)
    elif swatch == "replaces":
      cv.ax.plot([x + 0.08], [yy], marker="x", ms=5, mec=BLACK, mew=1.0)
    else:
      cv.rect(x + 0.03, yy - 0.08, 0.1, 0.16, facecolor="#D9D9D9", edgecolor="#8C8C8C",
              linewidth=0.6)
    cv.text(x + 0.22, yy, text, LEGEND_SIZE)
  y += 0.22 * (max((line for _, line in places), default=-1) + 1)
  for note in notes:
    cv.text(0.2, y, note, LEGEND_SIZE, colour="#333333")
    y += 0.18

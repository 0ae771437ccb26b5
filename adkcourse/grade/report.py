"""What grading one submission produces: a result per check, plus notes on what happened.

Plain data (no pandas, no ADK) so that the grader's worker can send it as JSON and the
gradebook can be written without importing anything heavy. ``Report.table()`` builds a
DataFrame (pandas imported only then), but a notebook should display the report itself:
its text and HTML show every feedback line in full, where a DataFrame cuts long cells at
``display.max_colwidth``, often right where the hint is.
"""

from __future__ import annotations

import html
import math
import re
import textwrap
from dataclasses import asdict, dataclass, field
from typing import Any

from .hygiene import clean, md, one_line
from .wording import LANGUAGES, say


def _number(value: Any, what: str) -> float:
  """A finite real number (bool, str, NaN and infinity are refused: a score is never one)."""
  if type(value) not in (int, float) or not math.isfinite(value):
    raise TypeError(f"{what} must be a finite number, not {type(value).__name__} {value!r:.40}")
  return float(value)


@dataclass(frozen=True)
class CheckResult:
  """One check's outcome: ``earned`` out of ``points``, and a sentence saying why.

  Always consistent: numbers are finite and ``0 <= earned <= points`` (clamped), text is
  plain ``str``; anything else is refused when the result is made, not when it is shown.
  """

  check: str
  points: float
  earned: float
  feedback: str

  def __post_init__(self) -> None:
    points = _number(self.points, "points")
    if points < 0:
      raise ValueError(f"points must not be negative: {points}")
    earned = min(points, max(0.0, _number(self.earned, "earned")))
    object.__setattr__(self, "points", points)
    object.__setattr__(self, "earned", round(earned, 2))
    for name in ("check", "feedback"):
      value = getattr(self, name)
      if not isinstance(value, str):
        raise TypeError(f"{name} must be text, not {type(value).__name__}")
      object.__setattr__(self, name, str.__str__(value))  # a plain str, never a subclass

  @property
  def passed(self) -> bool:
    return self.earned >= self.points


@dataclass
class Report:
  """All the checks of one exercise on one submission.

  ``notes`` say what happened while running the submission (it raised, timed out, is not
  ``async``...): they explain the checks' results and go into the gradebook's feedback.
  ``lang`` is the language of the frame (headline, headings, summary); the feedback and notes
  are written in it by the judge (``wording``).
  """

  exercise: str
  results: list[CheckResult]
  notes: list[str] = field(default_factory=list)
  lang: str = "en"

  def __post_init__(self) -> None:
    if self.lang not in LANGUAGES:
      raise ValueError(f"unknown report language {self.lang!r}: one of {', '.join(LANGUAGES)}")

  @property
  def score(self) -> float:
    return round(sum(r.earned for r in self.results), 2)

  @property
  def max_score(self) -> float:
    return round(sum(r.points for r in self.results), 2)

  @property
  def rows(self) -> list[dict[str, Any]]:
    """One dict per check: ``check, points, earned, feedback`` (DataFrame-able)."""
    return [asdict(r) for r in self.results]

  def table(self):
    """The checks as a pandas DataFrame indexed by check name."""
    import pandas as pd

    return pd.DataFrame(self.rows, columns=["check", "points", "earned", "feedback"]
                        ).set_index("check")  # column names are data, never translated

  def failed(self) -> list[CheckResult]:
    return [r for r in self.results if not r.passed]

  def summary(self) -> str:
    """One line for the gradebook: the notes first, then which checks lost points."""
    parts = list(self.notes)
    lost = self.failed()
    count = len(self.results)
    if not lost:
      parts.append(say(self.lang, "summary_all", count=count))
    elif self.score == 0:
      parts.append(say(self.lang, "summary_none", count=count))
    else:
      names = ", ".join(f"{r.check} ({_fmt(r.earned)}/{_fmt(r.points)})" for r in lost)
      parts.append(say(self.lang, "summary_some", passed=count - len(lost), count=count,
                       names=names))
    return say(self.lang, "separator").join(one_line(p) for p in parts)

  def to_markdown(self, student: str | None = None) -> str:
    """A feedback page for one student. Every text is escaped (``hygiene.md``): what a
    submission raised or wrote cannot add a heading, a table or a score of its own."""
    lang = self.lang
    title = "# " + (say(lang, "feedback_for", exercise=md(self.exercise), student=md(student))
                    if student else md(self.exercise))
    score = say(lang, "score_line", score=_fmt(self.score), max_score=_fmt(self.max_score))
    lines = [title, "", f"**{score}**", ""]
    if self.notes:
      lines += [f"## {say(lang, 'what_happened')}", ""] + [f"- {md(n)}" for n in self.notes] \
          + [""]
    header = " | ".join(say(lang, f"column_{name}")
                        for name in ("check", "points", "earned", "feedback"))
    lines += [f"## {say(lang, 'checks_title')}", "", f"| {header} |", "|---|---|---|---|"]
    for r in self.results:
      lines.append(f"| {md(r.check)} | {_fmt(r.points)} | {_fmt(r.earned)} | "
                   f"{md(r.feedback)} |")
    return "\n".join(lines) + "\n"

  def in_language(self, lang: str) -> "Report":
    """This report said in ``lang``: its frame, and every feedback line and note that is one
    of the grader's English sentences (``wording.translate``; the rest, program output and
    texts already in ``lang``, as it is). Scores are untouched."""
    from .wording import translate, translate_all

    return Report(self.exercise, [CheckResult(r.check, r.points, r.earned,
                                              translate(lang, r.feedback))
                                  for r in self.results],
                  translate_all(lang, self.notes), lang=lang)

  def headline(self) -> str:
    """``exercise: score / max_score points (N of M checks passed)``."""
    passed = len(self.results) - len(self.failed())
    return say(self.lang, "headline", exercise=self.exercise, score=_fmt(self.score),
               max_score=_fmt(self.max_score), passed=passed, total=len(self.results))

  def to_text(self, width: int = 100) -> str:
    """The whole report as plain text: headline, notes, and one row per check whose feedback
    is wrapped (never cut) to fit ``width`` columns. What a notebook stores as text/plain."""
    lang = self.lang
    lines = [self.headline()]
    if self.notes:
      lines += ["", say(lang, "label_colon", label=say(lang, "what_happened"))]
      for note in self.notes:
        lines += _wrap(note, width, "  - ", "    ")
    check, earned = say(lang, "column_check"), say(lang, "column_earned")
    name_width = max([len(check)] + [len(r.check) for r in self.results])
    scores = [f"{_fmt(r.earned)} / {_fmt(r.points)}" for r in self.results]
    score_width = max([len(earned)] + [len(x) for x in scores])
    indent = " " * (name_width + score_width + 4)
    lines += ["", f"{check.ljust(name_width)}  {earned.rjust(score_width)}  "
              f"{say(lang, 'column_feedback')}",
              f"{'-' * name_width}  {'-' * score_width}  {'-' * max(8, width - len(indent))}"]
    for result, score in zip(self.results, scores):
      first = f"{result.check.ljust(name_width)}  {score.rjust(score_width)}  "
      lines += _wrap(result.feedback, width, first, indent)
    return "\n".join(clean(line).rstrip() for line in lines)

  def to_html(self) -> str:
    """The whole report as an HTML fragment: headline, notes, a table with full feedback."""
    lang = self.lang
    parts = [f"<p><strong>{_inline(self.headline())}</strong></p>"]
    if self.notes:
      items = "".join(f"<li>{_inline(note)}</li>" for note in self.notes)
      happened = html.escape(say(lang, "label_colon", label=say(lang, "what_happened")),
                             quote=False)
      parts.append(f"<p>{happened}</p><ul>{items}</ul>")
    left, right = 'style="text-align:left"', 'style="text-align:right; white-space:nowrap"'
    rows = "".join(
        f"<tr><td {left}><code>{html.escape(r.check, quote=False)}</code></td>"
        f"<td {right}>{_fmt(r.earned)} / {_fmt(r.points)}</td>"
        f"<td {left}>{_inline(r.feedback)}</td></tr>" for r in self.results)
    check, earned, feedback = (html.escape(say(lang, f"column_{name}"), quote=False)
                               for name in ("check", "earned", "feedback"))
    parts.append(f"<table><thead><tr><th {left}>{check}</th><th {right}>{earned}</th>"
                 f"<th {left}>{feedback}</th></tr></thead><tbody>{rows}</tbody></table>")
    return "\n".join(parts)

  # Notebooks: text/html for people (GitHub, Jupyter, VS Code), text/plain for nbval and
  # plain front ends; both carry every feedback line in full.
  def _repr_html_(self) -> str:
    return self.to_html()

  def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # noqa: ARG002
    printer.text(self.to_text())

  def __str__(self) -> str:
    return f"{self.exercise}: {_fmt(self.score)}/{_fmt(self.max_score)} ({self.summary()})"

  def to_dict(self) -> dict[str, Any]:
    data = {"exercise": self.exercise, "notes": list(self.notes), "results": self.rows}
    if self.lang != "en":  # an English report's form is unchanged
      data["lang"] = self.lang
    return data

  @classmethod
  def from_dict(cls, data: Any) -> "Report":
    """A report from its ``to_dict()`` form, checking every type (``TypeError``/``ValueError``
    for anything else: the data may come from a process that ran student code)."""
    if not isinstance(data, dict) or type(data.get("exercise")) is not str:
      raise TypeError("a report is a dict with an exercise name")
    notes, results = data.get("notes", []), data.get("results")
    if not isinstance(notes, list) or not all(type(n) is str for n in notes):
      raise TypeError("a report's notes are a list of strings")
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
      raise TypeError("a report's results are a list of dicts")
    lang = data.get("lang", "en")
    if lang not in LANGUAGES:
      raise ValueError(f"a report's language is one of {', '.join(LANGUAGES)}, not {lang!r:.20}")
    return cls(exercise=data["exercise"], notes=list(notes), lang=lang,
               results=[CheckResult(r.get("check"), r.get("points"), r.get("earned"),
                                    r.get("feedback")) for r in results])


def _fmt(value: float) -> str:
  return f"{value:g}"


def _wrap(text: str, width: int, first: str, rest: str) -> list[str]:
  """``text`` on lines of at most ``width`` columns (longer only for an unbreakable word),
  the first starting with ``first`` and the others with ``rest``; nothing is dropped."""
  return textwrap.wrap(" ".join(clean(text).split()) or "-", width=max(width, len(first) + 20),
                       initial_indent=first, subsequent_indent=rest, break_long_words=False,
                       break_on_hyphens=False)


def _inline(text: str) -> str:
  """Escaped HTML, with `backticked` spans shown as code."""
  return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(clean(text), quote=False))

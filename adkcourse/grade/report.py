"""What grading one submission produces: a result per check, plus notes on what happened.

Plain data (no pandas, no ADK) so that the grader's worker can send it as JSON and the
gradebook can be written without importing anything heavy. ``Report.table()`` builds a
DataFrame for notebooks (pandas imported only then).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class CheckResult:
  """One check's outcome: ``earned`` out of ``points``, and a sentence saying why."""

  check: str
  points: float
  earned: float
  feedback: str

  @property
  def passed(self) -> bool:
    return self.earned >= self.points


@dataclass
class Report:
  """All the checks of one exercise on one submission.

  ``notes`` say what happened while running the submission (it raised, timed out, is not
  ``async``...): they explain the checks' results and go into the gradebook's feedback.
  """

  exercise: str
  results: list[CheckResult]
  notes: list[str] = field(default_factory=list)

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
                        ).set_index("check")

  def failed(self) -> list[CheckResult]:
    return [r for r in self.results if not r.passed]

  def summary(self) -> str:
    """One line for the gradebook: the notes first, then which checks lost points."""
    parts = list(self.notes)
    lost = self.failed()
    if not lost:
      parts.append(f"all {len(self.results)} checks passed")
    elif self.score == 0:
      parts.append(f"none of the {len(self.results)} checks earned points")
    else:
      names = ", ".join(f"{r.check} ({_fmt(r.earned)}/{_fmt(r.points)})" for r in lost)
      parts.append(f"{len(self.results) - len(lost)} of {len(self.results)} checks passed; "
                   f"lost points on {names}")
    return "; ".join(_one_line(p) for p in parts)

  def to_markdown(self, student: str | None = None) -> str:
    """A feedback page for one student."""
    title = f"# {self.exercise}" + (f": feedback for {student}" if student else "")
    lines = [title, "", f"**Score: {_fmt(self.score)} / {_fmt(self.max_score)}**", ""]
    if self.notes:
      lines += ["## What happened", ""] + [f"- {n}" for n in self.notes] + [""]
    lines += ["## Checks", "", "| check | points | earned | feedback |", "|---|---|---|---|"]
    for r in self.results:
      feedback = r.feedback.replace("|", "\\|").replace("\n", " ")
      lines.append(f"| {r.check} | {_fmt(r.points)} | {_fmt(r.earned)} | {feedback} |")
    return "\n".join(lines) + "\n"

  def _repr_markdown_(self) -> str:  # notebooks show the feedback page
    return self.to_markdown()

  def __str__(self) -> str:
    return f"{self.exercise}: {_fmt(self.score)}/{_fmt(self.max_score)} ({self.summary()})"

  def to_dict(self) -> dict[str, Any]:
    return {"exercise": self.exercise, "notes": list(self.notes), "results": self.rows}

  @classmethod
  def from_dict(cls, data: dict[str, Any]) -> "Report":
    return cls(exercise=data["exercise"], notes=list(data.get("notes", [])),
               results=[CheckResult(**r) for r in data["results"]])


def _fmt(value: float) -> str:
  return f"{value:g}"


def _one_line(text: str, limit: int = 300) -> str:
  flat = " ".join(str(text).split())
  return flat if len(flat) <= limit else flat[: limit - 1] + "…"

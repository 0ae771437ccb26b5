"""The grader's outputs: ``gradebook.csv``, the same table on the terminal, and one Markdown
feedback page per student."""

from __future__ import annotations

import csv
from pathlib import Path

from .runner import Graded

COLUMNS = ("student", "exercise", "score", "max_score", "feedback")


def rows(graded: list[Graded]) -> list[dict[str, object]]:
  return [{"student": g.student, "exercise": g.report.exercise, "score": g.report.score,
           "max_score": g.report.max_score, "feedback": g.report.summary()} for g in graded]


def write_csv(graded: list[Graded], path: Path) -> Path:
  path = Path(path)
  path.parent.mkdir(parents=True, exist_ok=True)
  with path.open("w", newline="", encoding="utf-8") as stream:
    writer = csv.DictWriter(stream, fieldnames=COLUMNS)
    writer.writeheader()
    for row in rows(graded):
      writer.writerow({**row, "score": f"{row['score']:g}", "max_score": f"{row['max_score']:g}"})
  return path


def format_table(graded: list[Graded], feedback_width: int = 90) -> str:
  """The gradebook as a plain-text table (feedback shortened to ``feedback_width``)."""
  table = [[str(r["student"]), str(r["exercise"]), f"{r['score']:g}", f"{r['max_score']:g}",
            _shorten(str(r["feedback"]), feedback_width)] for r in rows(graded)]
  header = list(COLUMNS)
  widths = [max(len(row[i]) for row in [header] + table) for i in range(len(header))]
  right = {2, 3}

  def line(cells: list[str]) -> str:
    return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                     for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

  return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in table])


def _shorten(text: str, width: int) -> str:
  return text if len(text) <= width else text[: width - 1] + "…"


def feedback_page(graded: Graded) -> str:
  page = graded.report.to_markdown(graded.student)
  extra = [f"Graded file: `{graded.path.name}`."] + [f"{line}." for line in graded.info]
  page += "\n## Your file\n\n" + "\n".join(f"- {line}" for line in extra) + "\n"
  if graded.output:
    fence = "~~~~"
    while fence in graded.output:
      fence += "~"
    shown = len(graded.output)
    page += (f"\n## What your code printed (first {shown:,} of {graded.output_size:,} bytes)\n"
             f"\n{fence}text\n{graded.output.rstrip()}\n{fence}\n")
  return page


def write_feedback(graded: list[Graded], folder: Path) -> list[Path]:
  folder = Path(folder)
  folder.mkdir(parents=True, exist_ok=True)
  written = []
  for g in graded:
    path = folder / f"{g.student}.md"
    path.write_text(feedback_page(g), encoding="utf-8")
    written.append(path)
  return written

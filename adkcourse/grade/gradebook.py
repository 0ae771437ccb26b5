"""The grader's outputs: ``gradebook.csv``, the same table on the terminal, and one Markdown
feedback page per student.

Every text that a submission can influence goes through ``hygiene`` on its way out (CSV
formulas, control characters, Markdown), and every file is written to a temporary file in its
folder and renamed into place: a reader never sees half a gradebook, and a symlink or a
directory planted where a page goes is replaced or reported, never followed.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from pathlib import Path

from .hygiene import clean, csv_cell, display_width, fence_for, md, one_line, safe_filename
from .runner import Graded
from .wording import MESSAGES, say

COLUMNS = ("student", "exercise", "score", "max_score", "feedback")
ISOLATION_OFF = MESSAGES["isolation_off"]["en"]


class OutputError(ValueError):
  """An output path the grader refuses to write (a symlink, a folder, a device...)."""


def rows(graded: list[Graded]) -> list[dict[str, object]]:
  return [{"student": g.student, "exercise": g.report.exercise, "score": g.report.score,
           "max_score": g.report.max_score,
           "feedback": (say(g.report.lang, "isolation_off_column") if g.isolation_off else "")
           + g.report.summary()} for g in graded]


def check_output_file(path: Path) -> Path:
  """``path`` if the gradebook may be written there: a regular file or nothing, not a link."""
  path = Path(path)
  if path.is_symlink():
    raise OutputError(f"--out {path} is a symbolic link: give the path of a regular file")
  if path.exists() and not path.is_file():
    raise OutputError(f"--out {path} exists and is not a regular file")
  if path.parent.is_symlink():
    raise OutputError(f"the folder of --out ({path.parent}) is a symbolic link")
  return path


def check_output_folder(path: Path) -> Path:
  path = Path(path)
  if path.is_symlink():
    raise OutputError(f"the feedback folder {path} is a symbolic link: give a real folder")
  if path.exists() and not path.is_dir():
    raise OutputError(f"the feedback folder {path} exists and is not a folder")
  return path


def write_atomically(path: Path, text: str) -> None:
  """Write ``text`` to a new temporary file next to ``path``, then rename it over ``path``
  (a rename replaces a symlink itself; it never writes through one)."""
  handle, temporary = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
  try:
    with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
      stream.write(text)
      os.fchmod(stream.fileno(), 0o666 & ~_umask())  # as an ordinary file, not mkstemp's 0600
    os.replace(temporary, path)
  except BaseException:
    try:
      os.unlink(temporary)
    except OSError:
      pass
    raise


def _umask() -> int:
  mask = os.umask(0o022)
  os.umask(mask)
  return mask


def csv_text(graded: list[Graded]) -> str:
  buffer = io.StringIO()
  writer = csv.writer(buffer, lineterminator="\n")
  writer.writerow(COLUMNS)
  for row in rows(graded):
    writer.writerow([csv_cell(row["student"]), csv_cell(row["exercise"]),
                     f"{row['score']:g}", f"{row['max_score']:g}", csv_cell(row["feedback"])])
  return buffer.getvalue()


def write_csv(graded: list[Graded], path: Path) -> Path:
  path = check_output_file(path)
  path.parent.mkdir(parents=True, exist_ok=True)
  write_atomically(path, csv_text(graded))
  return path


def format_table(graded: list[Graded], feedback_width: int = 90) -> str:
  """The gradebook as a plain-text table (feedback shortened to ``feedback_width``), with
  every cell cleaned of control characters and escapes."""
  table = [[one_line(r["student"], 60), one_line(r["exercise"]), f"{r['score']:g}",
            f"{r['max_score']:g}", one_line(r["feedback"], feedback_width)]
           for r in rows(graded)]
  header = list(COLUMNS)
  widths = [max(display_width(row[i]) for row in [header] + table)
            for i in range(len(header))]
  right = {2, 3}

  def pad(cell: str, width: int, at_left: bool) -> str:  # by columns on screen, not length
    fill = " " * (width - display_width(cell))
    return fill + cell if at_left else cell + fill

  def line(cells: list[str]) -> str:
    return "  ".join(pad(c, w, i in right)
                     for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

  return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in table])


def feedback_page(graded: Graded) -> str:
  lang = graded.report.lang  # the student's language: the page is theirs
  page = graded.report.to_markdown(graded.student)
  if graded.isolation_off:
    page = f"> **{md(say(lang, 'isolation_off'))}**\n\n" + page
  extra = [say(lang, "graded_file", name=md(graded.path.name))] + [md(line)
                                                                  for line in graded.info]
  page += f"\n## {say(lang, 'your_file')}\n\n" + "\n".join(f"- {line}" for line in extra) + "\n"
  if graded.output:
    shown = clean(graded.output, keep_newlines=True).rstrip()
    fence = fence_for(shown)
    printed = say(lang, "printed", shown=f"{len(graded.output.encode()):,}",
                  size=f"{graded.output_size:,}")
    page += f"\n## {printed}\n\n{fence}text\n{shown}\n{fence}\n"
  return page


def write_feedback(graded: list[Graded], folder: Path) -> tuple[list[Path], list[str]]:
  """One page per student in ``folder``; returns the pages written and, for each page that
  could not be (a folder in its place, a full disk...), a line saying so. One page's
  problem never stops the others."""
  folder = check_output_folder(folder)
  folder.mkdir(parents=True, exist_ok=True)
  written: list[Path] = []
  failed: list[str] = []
  taken: set[str] = set()
  for g in sorted(graded, key=lambda g: g.student):
    path = folder / f"{safe_filename(g.student, taken)}.md"
    try:
      write_atomically(path, feedback_page(g))
      written.append(path)
    except Exception as error:  # noqa: BLE001 - next student
      failed.append(f"{one_line(g.student, 60)}: {path.name} not written "
                    f"({type(error).__name__}: {one_line(error, 120)})")
  return written, failed

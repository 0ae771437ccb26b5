"""How long a lesson's core path takes a newcomer: one rule, stated in every lesson, applied by a test.

A stated time that nobody computes drifts: the third edition's reviewers found lessons that said
"about 45 minutes" and took a newcomer 60-90. So the time is computed from the lesson's own
content, by a rule simple enough to state in one sentence and to check in CI:

* prose is read at 200 words a minute (careful reading of technical text, slower than the
  ~240 of general non-fiction);
* every non-blank line of code is read at 6 seconds a line (code is read token by token);
* every code cell costs 20 seconds more, to run it and look at what it printed;
* every "Predict, then run" prompt costs a minute, to think and write the guess down.

The core path is everything before the "Going further" heading; it must fit 45 minutes, and no
core code cell may be longer than 15 non-blank lines (a cell does one thing). A lesson states its
time as "About N minutes", N being the computed time rounded up to the next 5 minutes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence

PROSE_WORDS_PER_MINUTE = 200
SECONDS_PER_CODE_LINE = 6
SECONDS_PER_CODE_CELL = 20
SECONDS_PER_PREDICTION = 60
CORE_LIMIT_MINUTES = 45
MAX_CORE_CELL_LINES = 15

GOING_FURTHER = re.compile(r"^#+ .*Going further", re.MULTILINE)
PREDICTION = re.compile(r"\bpredict", re.IGNORECASE)
STATED = re.compile(r"\bAbout (\d+) minutes\b")
RULE_SENTENCE = ("prose at 200 words a minute, code at 6 seconds a line plus 20 seconds a cell, "
                 "and a minute for each prediction")


@dataclass(frozen=True)
class ReadingTime:
  """What a stretch of lesson holds, and the minutes the rule gives it."""

  words: int
  code_lines: int
  code_cells: int
  predictions: int

  @property
  def minutes(self) -> float:
    seconds = (self.words * 60 / PROSE_WORDS_PER_MINUTE + self.code_lines * SECONDS_PER_CODE_LINE
               + self.code_cells * SECONDS_PER_CODE_CELL + self.predictions * SECONDS_PER_PREDICTION)
    return seconds / 60

  @property
  def stated(self) -> int:
    """The time a lesson states: the computed minutes rounded up to the next 5."""
    return 5 * math.ceil(self.minutes / 5)


def _source(cell: Any) -> str:
  source = cell["source"]
  return "".join(source) if isinstance(source, list) else source


def code_lines(cell: Any) -> int:
  """Non-blank lines of a code cell (comments count: a reader reads them)."""
  return sum(1 for line in _source(cell).splitlines() if line.strip())


def split_core(cells: Sequence[Any]) -> tuple[list, list]:
  """The core path (before the "Going further" heading) and the rest."""
  end = next((i for i, cell in enumerate(cells) if cell["cell_type"] == "markdown"
              and GOING_FURTHER.search(_source(cell))), len(cells))
  return list(cells[:end]), list(cells[end:])


def measure(cells: Iterable[Any]) -> ReadingTime:
  """Apply the rule to cells (a whole lesson, its core path or its Going further)."""
  words = lines = code = predictions = 0
  for cell in cells:
    if cell["cell_type"] == "markdown":
      text = _source(cell)
      words += len(text.split())
      predictions += bool(PREDICTION.search(text))
    elif cell["cell_type"] == "code":
      code += 1
      lines += code_lines(cell)
  return ReadingTime(words, lines, code, predictions)


def stated_minutes(cells: Sequence[Any]) -> Optional[int]:
  """The "About N minutes" the lesson's first cell states, or None."""
  match = STATED.search(_source(cells[0])) if cells else None
  return int(match.group(1)) if match else None


def main() -> None:
  """Print each English lesson's figures: python -m adkcourse.reading_time [NOTEBOOK...]."""
  import sys
  from pathlib import Path

  import nbformat

  root = Path(__file__).resolve().parent.parent
  paths = [Path(p) for p in sys.argv[1:]] or sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))
  print(f"{'lesson':34} {'words':>6} {'lines':>6} {'cells':>6} {'pred':>5} {'core min':>9} "
        f"{'stated':>7} {'further':>8} {'longest':>8}")
  for path in paths:
    cells = nbformat.read(path, as_version=4).cells
    core, further = split_core(cells)
    time = measure(core)
    longest = max((code_lines(c) for c in core if c.cell_type == "code"), default=0)
    print(f"{path.stem:34} {time.words:6} {time.code_lines:6} {time.code_cells:6} "
          f"{time.predictions:5} {time.minutes:9.1f} {stated_minutes(cells) or '-':>7} "
          f"{measure(further).minutes:8.1f} {longest:8}")


if __name__ == "__main__":
  main()

"""The exported progress format, written by ``export`` and read back by ``analytics``.

One row per graded attempt: ``user, time, bank, question, attempt, response, correct``. In CSV a
list response (multiple choice) is written as JSON (``[0, 2]``) and read back as a list; in JSON
every value keeps its type. Keeping the writer and the reader side by side is what lets an
instructor merge files exported by many students, in either format, without surprises.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Union

import pandas as pd

from .progress import COLUMNS, history_frame

EXPORT_COLUMNS = ["user", *COLUMNS]
_NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")


def export_text(rows: list[dict[str, Any]], user: str, fmt: str = "csv") -> str:
  """One student's attempts (``ProgressStore.history`` rows) as CSV or JSON text."""
  if fmt == "json":
    records = [{column: (user if column == "user" else row.get(column))
                for column in EXPORT_COLUMNS} for row in rows]
    return json.dumps(records, indent=2, ensure_ascii=False) + "\n"
  frame = history_frame(rows)
  frame.insert(0, "user", user)
  frame["response"] = frame["response"].map(
      lambda v: json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v)
  frame["time"] = [row["time"] for row in rows]  # as stored, not reformatted by pandas
  return frame.to_csv(index=False)


def parse_response(text: Any) -> Any:
  """A response read from CSV: lists and numbers come back as such, anything else as text."""
  if not isinstance(text, str):
    return text
  stripped = text.strip()
  if stripped.startswith("[") or _NUMBER.match(stripped):
    try:
      return json.loads(stripped)
    except ValueError:
      return text
  return text


def read_export(path: Union[str, Path]) -> pd.DataFrame:
  """An exported file (``.json`` or CSV) as a DataFrame with ``EXPORT_COLUMNS``."""
  path = Path(path)
  if path.suffix.lower() == ".json":
    records = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(records, list):
      raise ValueError(f"{path}: not an exported progress file (expected a JSON list)")
    frame = pd.DataFrame(records)
  else:
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    if "response" in frame:
      frame["response"] = frame["response"].map(parse_response)
    if "correct" in frame:
      frame["correct"] = frame["correct"].map(lambda v: str(v).strip().lower() == "true")
  missing = [c for c in EXPORT_COLUMNS if c not in frame.columns and c != "attempt"]
  if missing:
    raise ValueError(f"{path}: not an exported progress file (no column "
                     f"{', '.join(missing)}); write one with python -m adkcourse.quiz export")
  frame = frame.reindex(columns=EXPORT_COLUMNS)
  frame["correct"] = frame["correct"].astype(bool)
  frame["source"] = path.name
  return frame

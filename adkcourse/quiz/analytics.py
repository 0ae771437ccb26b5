"""Class analytics for instructors: how a whole class did on each question.

    python -m adkcourse.quiz analytics exports/*.csv exports/*.json --csv class.csv

Input: the files students send after ``python -m adkcourse.quiz export`` (CSV or JSON, any mix;
a folder means every such file in it). A file exported twice by the same student counts once.
Per question it reports:

* ``students``: students with at least one attempt;
* ``first_try_rate``: the share of them whose first attempt was right;
* ``right_rate``: the share right before the answer was shown (the score's definition,
  ``scoring.py``, so these numbers agree with what students saw);
* ``mean_attempts``: attempts per student;
* ``top_wrong``: the wrong option chosen most often (for multiple choice: the wrong option
  ticked most often), or the most frequent wrong number or text, and how many times.

Questions are named and ordered as in the banks in ``quizzes/`` (or ``--quizzes DIR``); a bank
that cannot be found still gets its numbers, with raw responses instead of option texts.
``generate_class`` writes a class of plausible students for tests and for the plot in
``docs/quiz_analytics.ipynb``.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Optional, Union

import pandas as pd

from .bank import BANK_SUFFIXES, QUIZZES_DIR, Bank, load_bank
from .export import export_text, read_export
from .model import MultipleChoice, NumericQuestion, Question, SingleChoice, normalize_text
from .scoring import score_attempts

STATS_COLUMNS = ["bank", "question", "students", "first_try_rate", "right_rate", "mean_attempts",
                 "top_wrong", "top_wrong_times"]
EXPORT_SUFFIXES = (".csv", ".json")


def export_files(paths: Iterable[Union[str, Path]]) -> list[Path]:
  """The files named, with folders replaced by the export files they contain."""
  found: list[Path] = []
  for path in map(Path, paths):
    if path.is_dir():
      found += sorted(p for p in path.iterdir() if p.suffix.lower() in EXPORT_SUFFIXES)
    else:
      found.append(path)
  return found


def merge(paths: Iterable[Union[str, Path]]) -> pd.DataFrame:
  """Every attempt of every file, once, ordered by student, question and time."""
  frames = [read_export(path) for path in export_files(paths)]
  if not frames:
    return pd.DataFrame(columns=["user", "time", "bank", "question", "response", "correct"])
  merged = pd.concat(frames, ignore_index=True)
  key = merged["response"].map(lambda v: json.dumps(v, sort_keys=True, default=str))
  merged = merged[~pd.DataFrame({"u": merged["user"], "t": merged["time"], "b": merged["bank"],
                                 "q": merged["question"], "r": key}).duplicated()]
  return merged.sort_values(["user", "bank", "question", "time"], kind="stable",
                            ignore_index=True)


def load_banks(names: Iterable[str], folder: Path = QUIZZES_DIR) -> dict[str, Bank]:
  """The banks of those names found in ``folder``; the others are left out."""
  banks = {}
  for name in sorted(set(names)):
    for suffix in BANK_SUFFIXES:
      path = folder / f"{name}{suffix}"
      if path.exists():
        try:
          banks[name] = load_bank(path)
        except ValueError:
          pass
        break
  return banks


def _short(text: str, width: int = 48) -> str:
  text = " ".join(text.split())
  return text if len(text) <= width else text[:width - 1] + "…"


def top_wrong(wrong_responses: list[Any], question: Optional[Question]) -> tuple[str, int]:
  """The wrong choice made most often among these wrong attempts, and how many times."""
  counts: Counter = Counter()
  label: dict[Any, str] = {}
  for response in wrong_responses:
    if isinstance(question, SingleChoice) and isinstance(response, int) \
        and 0 <= response < len(question.options):
      counts[response] += 1
      label[response] = f"{response}: {_short(question.option_texts()[response])}"
    elif isinstance(question, MultipleChoice) and isinstance(response, list):
      for index in response:
        if index not in question.answer and isinstance(index, int) \
            and 0 <= index < len(question.options):
          counts[index] += 1
          label[index] = f"{index}: {_short(question.option_texts()[index])}"
    elif isinstance(question, NumericQuestion) or not isinstance(response, str):
      key = json.dumps(response, ensure_ascii=False)
      counts[key] += 1
      label[key] = _short(key)
    else:
      key = normalize_text(response)
      counts[key] += 1
      label.setdefault(key, _short(response))
  if not counts:
    return "", 0
  best = max(counts.items(), key=lambda item: (item[1], -list(counts).index(item[0])))
  return label[best[0]], best[1]


def question_stats(attempts: pd.DataFrame, banks: Optional[dict[str, Bank]] = None) -> pd.DataFrame:
  """One row per question (``STATS_COLUMNS``), in bank order."""
  banks = banks if banks is not None else load_banks(attempts["bank"].unique())
  rows = []
  for (bank, question_id), group in attempts.groupby(["bank", "question"], sort=False):
    question = None
    if bank in banks:
      try:
        question = banks[bank].question(question_id)
      except KeyError:
        pass
    scores = [score_attempts(student["correct"].tolist())
              for _, student in group.groupby("user", sort=False)]
    wrong = group.loc[~group["correct"], "response"].tolist()
    option, times = top_wrong(wrong, question)
    rows.append({"bank": bank, "question": question_id, "students": len(scores),
                 "first_try_rate": sum(s.first_try for s in scores) / len(scores),
                 "right_rate": sum(s.right for s in scores) / len(scores),
                 "mean_attempts": sum(s.attempts for s in scores) / len(scores),
                 "top_wrong": option, "top_wrong_times": times})
  stats = pd.DataFrame(rows, columns=STATS_COLUMNS)
  order = {(name, q.id): (name, i) for name, bank in banks.items() for i, q in enumerate(bank)}
  position = [order.get((r.bank, r.question), (r.bank, len(order) + i))
              for i, r in enumerate(stats.itertuples())]
  stats["_order"] = position
  return stats.sort_values("_order", kind="stable").drop(columns="_order").reset_index(drop=True)


def format_table(stats: pd.DataFrame) -> str:
  """The statistics as a fixed-width table for a terminal."""
  header = ["question", "students", "1st try", "right", "attempts", "most chosen wrong answer"]
  lines = []
  for r in stats.itertuples():
    wrong = f"{r.top_wrong} ({r.top_wrong_times}x)" if r.top_wrong_times else "-"
    lines.append([f"{r.bank}:{r.question}", str(r.students), f"{r.first_try_rate:.0%}",
                  f"{r.right_rate:.0%}", f"{r.mean_attempts:.2f}", wrong])
  widths = [max(len(row[i]) for row in [header, *lines]) for i in range(len(header) - 1)]
  def render(row: list[str]) -> str:
    cells = [row[0].ljust(widths[0])] + [row[i].rjust(widths[i]) for i in range(1, 5)]
    return "  ".join(cells + [row[5]]).rstrip()
  return "\n".join([render(header), *map(render, lines)])


# -- a generated class --------------------------------------------------------------------------

def _sigmoid(x: float) -> float:
  return 1 / (1 + math.exp(-x))


def _wrong_response(question: Question, rng: random.Random, favourite: Any) -> Any:
  """A plausible wrong answer: half the time the question's favourite mistake."""
  if rng.random() < 0.55 and favourite is not None:
    return favourite
  if isinstance(question, SingleChoice):
    return rng.choice([i for i in range(len(question.options)) if i != question.answer])
  if isinstance(question, MultipleChoice):
    wrong = [i for i in range(len(question.options)) if i not in question.answer]
    chosen = set(question.answer)
    if wrong and (rng.random() < 0.6 or len(chosen) == 1):
      chosen.add(rng.choice(wrong))
    else:
      chosen.discard(rng.choice(sorted(chosen)))
    return sorted(chosen)
  if isinstance(question, NumericQuestion):
    value = question.answer + rng.choice([-2, -1, 1, 2, question.answer or 1])
    return int(value) if float(value).is_integer() else value
  return rng.choice(["sessions", "state", "events", "app_states"])


def _favourite(question: Question, rng: random.Random) -> Any:
  if isinstance(question, (SingleChoice, MultipleChoice)):
    return _wrong_response(question, rng, None)
  return None


def generate_class(folder: Union[str, Path], students: int = 40, seed: int = 14,
                   banks: Optional[list[Bank]] = None) -> list[Path]:
  """Export files for ``students`` made-up students (half CSV, half JSON) in ``folder``:
  abilities and question difficulties drawn from ``seed``, a favourite wrong option per
  question, up to four attempts each, some questions skipped. Same seed, same files."""
  folder = Path(folder)
  folder.mkdir(parents=True, exist_ok=True)
  if banks is None:
    banks = [load_bank(path) for path in sorted(QUIZZES_DIR.glob("*.yaml"))]
  rng = random.Random(seed)
  questions = [(bank.name, q) for bank in banks for q in bank]
  difficulty = {(b, q.id): rng.gauss(0, 1.0) for b, q in questions}
  favourite = {(b, q.id): _favourite(q, rng) for b, q in questions}
  start = datetime(2026, 1, 12, 9, 0, tzinfo=timezone.utc)
  written = []
  for number in range(1, students + 1):
    user = f"student-{number:02d}"
    ability = rng.gauss(0, 1.0)
    clock = start + timedelta(hours=number)
    rows: list[dict[str, Any]] = []
    for bank, question in questions:
      if rng.random() < 0.08:
        continue  # not answered
      for attempt in range(1, 5):
        right = rng.random() < _sigmoid(1.0 + ability - difficulty[(bank, question.id)]
                                        + 0.9 * (attempt - 1))
        response = question.answer if right else _wrong_response(
            question, rng, favourite[(bank, question.id)])
        if isinstance(question, NumericQuestion) and right:
          response = int(question.answer) if float(question.answer).is_integer() else response
        if not isinstance(question, (SingleChoice, MultipleChoice, NumericQuestion)) and right:
          response = question.accepted()[0]
        clock += timedelta(seconds=rng.randint(8, 90))
        rows.append({"time": clock.isoformat(timespec="milliseconds"), "bank": bank,
                     "question": question.id, "attempt": attempt, "response": response,
                     "correct": right})
        if right:
          break
    fmt = "json" if number % 2 == 0 else "csv"
    path = folder / f"{user}.{fmt}"
    path.write_text(export_text(rows, user, fmt), encoding="utf-8")
    written.append(path)
  return written

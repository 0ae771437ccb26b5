"""Gradebooks an LMS imports: Canvas's gradebook CSV and Moodle's grade import CSV.

    python -m adkcourse.grade EXERCISE SUBMISSIONS --out canvas.csv --format canvas --roster roster.csv
    python -m adkcourse.grade EXERCISE SUBMISSIONS --out moodle.csv --format moodle --roster roster.csv

The roster says who is in the class: a CSV with a student id and/or an email, and a name. A
Canvas gradebook export or a Moodle grade export can serve as it is (their own column names
are recognised). Each submission (its student id is its file name, see docs/instructors.md)
is matched with the roster entry whose id, SIS login or email (any case) it equals.

- **Canvas** (the columns of Canvas's gradebook export, which its gradebook import reads):
  ``Student, ID, SIS User ID, SIS Login ID, Section`` and one assignment column, ``NAME`` (a
  new assignment) or ``NAME (ASSIGNMENT_ID)`` (an existing one), after a ``Points Possible``
  row. Canvas matches rows by ``ID``, ``SIS User ID`` or ``SIS Login ID``.
- **Moodle** (a grade import CSV: one identifier column to map from, a grade column to map to
  the grade item): ``ID number, Email address, Full name, NAME, NAME feedback``; on import,
  map "Email address" to ``useremail`` (or "ID number" to ``useridnumber``).

Nobody is dropped silently: a submission that matches no roster entry (or several), and a
roster entry with no submission, are each reported on stderr and in the notes file written
next to the gradebook (``OUT.notes.txt``). A roster entry with no submission gets a row with
an empty grade (both systems then leave that grade as it was: 0 or excused is yours to
decide); a submission that is not in the roster gets no row (it could not be imported).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from .hygiene import csv_cell, one_line

FORMATS = ("course", "canvas", "moodle")

# header (lowercased, spaces and dashes as "_") -> roster field
ALIASES = {
    "id": ("sis_user_id", "student_id", "studentid", "id_number", "idnumber", "student_number",
           "matriculation_number", "id"),
    "email": ("email", "email_address", "e_mail", "mail"),
    "name": ("name", "full_name", "student", "student_name"),
    "first": ("first_name", "firstname", "given_name"),
    "last": ("last_name", "lastname", "surname", "family_name"),
    "login": ("sis_login_id", "login_id", "login", "username", "user_name"),
    "section": ("section", "sections", "group"),
    "language": ("language", "lang", "feedback_language"),
}


class RosterError(ValueError):
  """A roster the gradebook cannot be matched against (the message says why)."""


@dataclass(frozen=True)
class Entry:
  """One person of the roster."""

  row: int  # its line in the roster file
  id: str = ""
  email: str = ""
  name: str = ""
  login: str = ""
  section: str = ""
  canvas_id: str = ""  # Canvas's own user id (the "ID" column of a Canvas export)
  language: str = ""  # the language of this student's feedback (en, fr, id; "": --lang's)

  def label(self) -> str:
    who = self.name or self.email or self.id or self.login or self.canvas_id
    ids = ", ".join(x for x in (self.id, self.email, self.login) if x and x != who)
    return one_line(f"{who} ({ids})" if ids else who, 120)


@dataclass
class Roster:
  entries: list[Entry]
  source: str = "roster"  # "canvas export", "moodle export" or "roster"


def _key(header: str) -> str:
  return "_".join(header.strip().lower().replace("-", " ").replace(".", " ").split())


def _dialect(sample: str) -> type[csv.Dialect] | csv.Dialect:
  try:
    return csv.Sniffer().sniff(sample, delimiters=",;\t")
  except csv.Error:
    return csv.excel


def load_roster(path: Path) -> Roster:
  """The roster at ``path``; ``RosterError`` when it has no identifying column, or when two
  entries share an id, a login or an email."""
  path = Path(path)
  try:
    text = path.read_text(encoding="utf-8-sig")
  except FileNotFoundError:
    raise RosterError(f"--roster {path}: no such file") from None
  except (OSError, UnicodeDecodeError) as error:
    raise RosterError(f"--roster {path} could not be read as UTF-8 CSV ({error})") from None
  reader = csv.reader(io.StringIO(text), _dialect(text[:4096]))
  rows = list(reader)
  if not rows:
    raise RosterError(f"--roster {path} is empty")
  header = [_key(h) for h in rows[0]]
  canvas = "sis_user_id" in header or ("student" in header and "sis_login_id" in header)
  moodle = "id_number" in header and "email_address" in header
  columns: dict[str, int] = {}
  if canvas and "id" in header:
    columns["canvas_id"] = header.index("id")
  for field_name, names in ALIASES.items():
    for name in names:
      if name == "id" and canvas:
        continue  # in a Canvas export, "ID" is Canvas's own user id
      if name in header:
        columns.setdefault(field_name, header.index(name))
        break
  if not {"id", "email", "login", "canvas_id"} & set(columns):
    raise RosterError(f"--roster {path}: no column of student ids or emails (its columns: "
                      f"{', '.join(rows[0][:12])}); give one called id, student_id, email, "
                      "SIS User ID, ID number or Email address")
  entries = []
  for number, row in enumerate(rows[1:], start=2):
    if not any(cell.strip() for cell in row):
      continue

    def cell(field_name: str) -> str:
      index = columns.get(field_name)
      return row[index].strip() if index is not None and index < len(row) else ""

    name = cell("name") or " ".join(x for x in (cell("first"), cell("last")) if x)
    if canvas and name.strip().lower() == "points possible":
      continue  # a Canvas export's row of points, nobody's
    entry = Entry(number, id=cell("id"), email=cell("email"), name=name, login=cell("login"),
                  section=cell("section"), canvas_id=cell("canvas_id"),
                  language=_language(path, number, cell("language")))
    if not (entry.id or entry.email or entry.login or entry.canvas_id):
      raise RosterError(f"--roster {path}, line {number}: no id and no email")
    entries.append(entry)
  for what, value in (("id", lambda e: e.id), ("login", lambda e: e.login),
                      ("email", lambda e: e.email.casefold()),
                      ("Canvas ID", lambda e: e.canvas_id)):
    seen: dict[str, Entry] = {}
    for entry in entries:
      key = value(entry)
      if key and key in seen:
        raise RosterError(f"--roster {path}: lines {seen[key].row} and {entry.row} have the "
                          f"same {what} {one_line(key, 80)!r}")
      if key:
        seen[key] = entry
  if not entries:
    raise RosterError(f"--roster {path} lists nobody")
  return Roster(entries, "canvas export" if canvas else "moodle export" if moodle else "roster")


def _language(path: Path, number: int, value: str) -> str:
  """A roster cell's language as a course language code (``fr``, ``FR``, ``fr-FR`` all name
  French; empty: the ``--lang`` default). Anything else is refused, naming the line: a typo
  must not quietly give a student feedback in another language."""
  if not value:
    return ""
  from adkcourse.quiz.language import available_languages, resolve_language

  try:
    return resolve_language(value)
  except ValueError:
    raise RosterError(f"--roster {path}, line {number}: language {one_line(value, 40)!r} is "
                      f"not a course language (one of {', '.join(available_languages())})"
                      ) from None


def languages(students: Sequence[str], roster: Roster) -> dict[str, str]:
  """student id -> the language its roster entry gives (matched as ``match`` matches: id,
  login or email, any case); students without one are left out."""
  index: dict[str, list[Entry]] = {}
  for entry in roster.entries:
    for key in {entry.id, entry.login, entry.email.casefold(), entry.canvas_id} - {""}:
      index.setdefault(key, []).append(entry)
  found: dict[str, str] = {}
  for student in students:
    entries = {e.row: e for key in {student, student.casefold()} for e in index.get(key, [])}
    if len(entries) == 1:
      entry = next(iter(entries.values()))
      if entry.language:
        found[student] = entry.language
  return found


def check_roster_for(fmt: str, roster: Roster) -> None:
  """``RosterError`` when ``fmt`` cannot identify some entry of ``roster`` on import."""
  if fmt == "canvas":
    missing = [e for e in roster.entries if not (e.canvas_id or e.id or e.login)]
    what = "an ID, SIS User ID or SIS Login ID (Canvas matches rows by these)"
  elif fmt == "moodle":
    missing = [e for e in roster.entries if not (e.email or e.id)]
    what = "an email or an ID number (Moodle maps users by one of them)"
  else:
    return
  if missing:
    names = "; ".join(f"line {e.row}: {e.label()}" for e in missing[:5])
    raise RosterError(f"{len(missing)} roster entr{'y has' if len(missing) == 1 else 'ies have'}"
                      f" no {what}: {names}. Export the roster from the LMS's gradebook")


@dataclass
class Matched:
  """Which submission goes with which roster entry, and what could not be matched."""

  by_entry: dict[int, object] = field(default_factory=dict)  # entry row -> Graded
  unmatched: list[str] = field(default_factory=list)  # notes on submissions left out
  unsubmitted: list[Entry] = field(default_factory=list)
  conflicts: list[str] = field(default_factory=list)  # entries with several submissions

  def notes(self) -> list[str]:
    out = list(self.unmatched) + list(self.conflicts)
    out += [f"no submission from {e.label()} (roster line {e.row}): their grade is left "
            "empty, so the LMS keeps what it had" for e in self.unsubmitted]
    return out


def match(graded: Sequence, roster: Roster) -> Matched:
  """Each graded submission with the one roster entry whose id, login or email (any case)
  equals its student id."""
  index: dict[str, list[Entry]] = {}
  for entry in roster.entries:
    keys = {entry.id, entry.login, entry.email.casefold(), entry.canvas_id} - {""}
    for key in keys:
      index.setdefault(key, []).append(entry)
  result = Matched()
  claimed: dict[int, list] = {}
  for g in graded:
    found = {e.row: e for key in {g.student, g.student.casefold()}
             for e in index.get(key, [])}
    if len(found) == 1:
      claimed.setdefault(next(iter(found)), []).append(g)
    elif not found:
      result.unmatched.append(
          f"{one_line(g.student, 80)} ({one_line(g.path.name, 80)}, "
          f"{g.report.score:g}/{g.report.max_score:g}) is not in the roster: no row for it "
          "in the LMS file; rename the file after the student's id or email, or add them")
    else:
      rows = ", ".join(str(r) for r in sorted(found))
      result.unmatched.append(f"{one_line(g.student, 80)} matches several roster entries "
                              f"(lines {rows}): no row for it in the LMS file")
  for entry in roster.entries:
    submissions = claimed.get(entry.row, [])
    if len(submissions) == 1:
      result.by_entry[entry.row] = submissions[0]
    elif not submissions:
      result.unsubmitted.append(entry)
    else:
      names = ", ".join(one_line(g.student, 60) for g in submissions)
      result.conflicts.append(f"{entry.label()} (roster line {entry.row}) has "
                              f"{len(submissions)} submissions ({names}): no grade was "
                              "written for them; keep one and grade again")
  return result


def _score(value: float) -> str:
  return f"{value:g}"


def canvas_csv(graded: Sequence, roster: Roster, matched: Matched, assignment: str,
               assignment_id: Optional[str], max_score: float) -> str:
  column = f"{assignment} ({assignment_id})" if assignment_id else assignment
  out = io.StringIO()
  writer = csv.writer(out, lineterminator="\n")
  writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", column])
  writer.writerow(["    Points Possible", "", "", "", "", _score(max_score)])
  for entry in roster.entries:
    g = matched.by_entry.get(entry.row)
    writer.writerow([csv_cell(entry.name), entry.canvas_id, entry.id, entry.login,
                     csv_cell(entry.section), _score(g.report.score) if g else ""])
  return out.getvalue()


def moodle_csv(graded: Sequence, roster: Roster, matched: Matched, assignment: str) -> str:
  out = io.StringIO()
  writer = csv.writer(out, lineterminator="\n")
  writer.writerow(["ID number", "Email address", "Full name", assignment,
                   f"{assignment} feedback"])
  for entry in roster.entries:
    g = matched.by_entry.get(entry.row)
    writer.writerow([entry.id, entry.email, csv_cell(entry.name),
                     _score(g.report.score) if g else "",
                     csv_cell(g.report.summary()) if g else ""])
  return out.getvalue()


def notes_path(out: Path) -> Path:
  return Path(out).with_name(Path(out).name + ".notes.txt")


def write_lms(fmt: str, graded: Sequence, roster: Roster, out: Path, *, assignment: str,
              assignment_id: Optional[str] = None) -> list[str]:
  """Write the ``fmt`` gradebook to ``out`` and its notes next to it; the notes (what could
  not be matched). ``out`` is written atomically."""
  from .gradebook import check_output_file, write_atomically

  matched = match(graded, roster)
  max_score = max((g.report.max_score for g in graded), default=0.0)
  if fmt == "canvas":
    text = canvas_csv(graded, roster, matched, assignment, assignment_id, max_score)
  elif fmt == "moodle":
    text = moodle_csv(graded, roster, matched, assignment)
  else:
    raise ValueError(f"unknown LMS format {fmt!r}")
  out = check_output_file(Path(out))
  out.parent.mkdir(parents=True, exist_ok=True)
  write_atomically(out, text)
  notes = matched.notes()
  summary = (f"{len(matched.by_entry)} of {len(roster.entries)} roster entries graded; "
             f"{len(matched.unmatched)} submission(s) not in the roster; "
             f"{len(matched.unsubmitted)} roster entr{'y' if len(matched.unsubmitted) == 1 else 'ies'}"
             " without a submission")
  write_atomically(notes_path(out), "\n".join([summary, *notes]) + "\n")
  return notes


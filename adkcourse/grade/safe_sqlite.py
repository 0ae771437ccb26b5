"""Opening a SQLite file that a submission left behind, in the trusted judge.

A SQLite file is a program as much as data: a generated column, a view or a trigger runs SQL
when the judge only means to read a row (``printf('%.*c', 400000000, 'x')`` in a virtual
generated column made a judge use 3.5 GB and 30 s of CPU). So the judge opens such a file:

- read-only (``file:...?mode=ro``), so that reading never changes it;
- with ``SQLITE_LIMIT_LENGTH`` at ``MAX_VALUE`` bytes (no string or blob built bigger) and a
  deadline checked by a progress handler (no statement runs past it);
- only if its schema is ADK's: no generated (hidden 2/3) column, no trigger, no view, no
  virtual table except the full-text tables ADK's memory services create.

A refused file raises ``UntrustedDatabase``, whose message is a note for the student; the
checks that read it then give 0 for it, never a crash or a hang of the judge.
``harden_connect`` applies the length cap and deadline to every connection the judge process
opens (ADK's, through aiosqlite, included), as a second line of defence.
"""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path
from typing import Any, Optional, Union
from urllib.parse import quote

MAX_VALUE = 16 * 1024 * 1024  # bytes of one string or blob the judge builds or reads
DEADLINE = 10.0  # seconds of SQL per connection (the judge's whole request has 30)
PROGRESS_STEPS = 10_000  # virtual machine instructions between two looks at the clock
# Virtual tables ADK creates (the SQLite memory service's FTS5 index and its shadow tables)
ALLOWED_VIRTUAL = ("fts5", "fts4", "fts3")


class UntrustedDatabase(sqlite3.DatabaseError):
  """A file the judge will not read (its message says why, for the student's feedback)."""


def limit(connection: sqlite3.Connection, deadline: float = DEADLINE) -> sqlite3.Connection:
  """Cap the size of any value and the time of any statement on ``connection``."""
  try:
    connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE)
    connection.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, 1_000_000)
  except AttributeError:  # Python < 3.11: no setlimit (the judge's memory cap still holds)
    pass
  stop = time.monotonic() + deadline
  connection.set_progress_handler(lambda: 1 if time.monotonic() > stop else 0, PROGRESS_STEPS)
  return connection


def check_schema(connection: sqlite3.Connection, name: str = "the database") -> None:
  """``UntrustedDatabase`` unless the schema has only plain tables, indexes and the allowed
  full-text virtual tables."""
  try:
    objects = connection.execute("SELECT type, name, sql FROM sqlite_schema").fetchall()
  except sqlite3.Error as error:
    raise UntrustedDatabase(f"{name} could not be read ({error})") from None
  for kind, table, sql in objects:
    text = (sql or "").lstrip().upper()
    if kind in ("trigger", "view"):
      raise UntrustedDatabase(f"{name} holds a {kind} ({table!r:.60}): the grader reads only "
                              "the tables ADK creates; it was not read")
    if kind == "table" and text.startswith("CREATE VIRTUAL TABLE"):
      found = re.search(r"\bUSING\s+([A-Z0-9_]+)", text)  # ADK writes it across lines
      module = found.group(1).lower() if found else "?"
      if module not in ALLOWED_VIRTUAL:
        raise UntrustedDatabase(f"{name} holds a virtual table ({table!r:.60} using "
                                f"{module[:20]}): it was not read")
  for kind, table, _ in objects:
    if kind != "table":
      continue
    try:
      columns = connection.execute("SELECT name, hidden FROM pragma_table_xinfo(?)",
                                   (table,)).fetchall()
    except sqlite3.Error as error:
      raise UntrustedDatabase(f"{name} could not be read ({error})") from None
    generated = [c for c, hidden in columns if hidden in (2, 3)]
    if generated:
      raise UntrustedDatabase(f"{name}: the table {table!r:.60} has a generated column "
                              f"({generated[0]!r:.40}), which ADK never creates: it was not "
                              "read")


def open_untrusted(path: Union[str, Path], name: Optional[str] = None,
                   deadline: float = DEADLINE) -> sqlite3.Connection:
  """A read-only, limited connection to a file a submission left, its schema checked
  (``UntrustedDatabase`` if refused; ``sqlite3.Error`` if it is no database)."""
  path = Path(path).absolute()
  uri = f"file:{quote(str(path))}?mode=ro"
  connection = sqlite3.connect(uri, uri=True)
  try:
    limit(connection, deadline)
    check_schema(connection, name or f"the file {path.name}")
  except BaseException:
    connection.close()
    raise
  return connection


def harden_connect() -> None:
  """Every later ``sqlite3.connect`` of this process gets ``limit``'s caps (the judge's own
  connections and ADK's, whatever opens them)."""
  original = sqlite3.connect
  if getattr(original, "_adkcourse_limited", False):
    return

  def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
    return limit(original(*args, **kwargs), deadline=3 * DEADLINE)

  connect._adkcourse_limited = True  # type: ignore[attr-defined]
  sqlite3.connect = connect  # type: ignore[assignment]


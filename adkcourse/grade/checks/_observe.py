"""Observing a world whole: SQLite files row by row and byte by byte, a folder's files.

Observers return flat ``{key: value}`` mappings (``_engine.Observation``): keys are tuples of
strings and numbers, values are JSON. JSON held in a column (``state``, ``event_data``) is
parsed and flattened, so that a difference names the exact item (``.../state/user:name``)
rather than a whole row. Every table is read, not only ADK's, and its schema too: what a
submission adds is observed like what it changes.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import tempfile
import unicodedata
from contextlib import closing
from pathlib import Path
from typing import Any, Iterable, Optional

from ..safe_sqlite import UntrustedDatabase, open_untrusted
from ..tree import walk

Observation = dict
READ_CAP = 64 * 1024 * 1024  # bytes of one file read when looking for markers
COMPANIONS = ("-wal", "-shm", "-journal")
# The primary key of each of ADK's session tables (any other table: every column).
ADK_KEYS = {
    "sessions": ("app_name", "user_id", "id"),
    "events": ("app_name", "user_id", "session_id", "id"),
    "app_states": ("app_name",),
    "user_states": ("app_name", "user_id"),
    "adk_internal_metadata": ("key",),
}
JSON_COLUMNS = ("state", "event_data", "value")
MAX_ROWS = 20_000  # rows read from one table
MAX_DEPTH = 12  # levels of nested JSON flattened


def flatten(prefix: tuple, value: Any, depth: int = 0) -> Observation:
  """``value`` as leaf items under ``prefix``: dicts by key, lists by index. An empty dict or
  list is an item of its own (``{}``/``[]``), so that its presence is observed too."""
  if depth < MAX_DEPTH and isinstance(value, dict) and value:
    out: Observation = {}
    for key, item in value.items():
      out.update(flatten(prefix + (str(key),), item, depth + 1))
    return out
  if depth < MAX_DEPTH and isinstance(value, list) and value:
    out = {}
    for index, item in enumerate(value):
      out.update(flatten(prefix + (index,), item, depth + 1))
    return out
  return {prefix: value}


def _json_or_text(value: Any) -> Any:
  if isinstance(value, (bytes, bytearray)):
    return {"blob": bytes(value[:256]).hex(), "size": len(value)}
  if isinstance(value, str):
    try:
      return json.loads(value)
    except ValueError:
      return value
  return value


def _plain(value: Any) -> Any:
  if isinstance(value, (bytes, bytearray)):
    return {"blob": bytes(value[:256]).hex(), "size": len(value)}
  if isinstance(value, float) and value != value:
    return "NaN"
  return value


def sqlite_rows(connection: sqlite3.Connection, prefix: tuple,
                keys: Optional[dict[str, tuple[str, ...]]] = None,
                json_columns: Iterable[str] = JSON_COLUMNS) -> Observation:
  """Every row of every table of ``connection``, flattened: ``prefix + ("table", table, *row
  key, column, *json path) -> value`` (and ``... *row key) -> "row"``: the row exists); each
  schema object under ``prefix + ("schema", type, name)``."""
  keys = ADK_KEYS if keys is None else keys
  json_columns = set(json_columns)
  found: Observation = {}
  objects = connection.execute(
      "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name").fetchall()
  for kind, name, table, sql in objects:
    text = " ".join((sql or "").split())
    found[prefix + ("schema", kind, name)] = {"table": table, "sql": text}
  for kind, name, _table, _sql in objects:
    if kind != "table" or name.startswith("sqlite_"):
      continue
    quoted = '"' + name.replace('"', '""') + '"'
    cursor = connection.execute(f"SELECT * FROM {quoted} LIMIT {MAX_ROWS + 1}")
    columns = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    if len(rows) > MAX_ROWS:
      found[prefix + ("table", name, "too many rows")] = len(rows)
      rows = rows[:MAX_ROWS]
    key_columns = keys.get(name)
    for row in rows:
      values = dict(zip(columns, row))
      if key_columns and all(c in values for c in key_columns):
        row_key = tuple(_plain(values[c]) for c in key_columns)
        rest = [c for c in columns if c not in key_columns]
      else:
        row_key = (json.dumps([_plain(v) for v in row], default=str, sort_keys=True),)
        rest = columns
      base = prefix + ("table", name) + row_key
      found[base] = "row"
      for column in rest:
        value = values[column]
        if column in json_columns:
          found.update(flatten(base + (column,), _json_or_text(value)))
        else:
          found[base + (column,)] = _plain(value)
  return found


def sqlite_header(connection: sqlite3.Connection, prefix: tuple) -> Observation:
  """What the file's format is: encoding, page size, journal mode, vacuum mode, versions."""
  out: Observation = {}
  for pragma in ("encoding", "page_size", "auto_vacuum", "journal_mode", "user_version",
                 "application_id"):
    try:
      row = connection.execute(f"PRAGMA {pragma}").fetchone()
    except sqlite3.Error:
      row = None
    out[prefix + ("format", pragma)] = _plain(row[0]) if row else None
  return out


def read_sqlite(path: Path, prefix: tuple, trusted: bool = False,
                keys: Optional[dict[str, tuple[str, ...]]] = None) -> Observation:
  """A SQLite file observed whole: its format, its schema and every row of every table.

  The file (and its ``-wal``, never a stale ``-shm``) is copied to a private folder first, so
  that reading changes nothing anywhere and SQLite rebuilds its WAL index for itself. A file a
  submission left is opened read-only with caps and refused if its schema holds code
  (``safe_sqlite``); a refusal or an unreadable file is one item, ``prefix + ("unreadable",)``.
  """
  if not path.is_file():
    return {prefix + ("missing",): True}
  folder = Path(tempfile.mkdtemp(prefix="observe-"))
  try:
    copy = folder / "db"
    shutil.copyfile(path, copy)
    wal = path.with_name(path.name + "-wal")
    if wal.is_file():
      shutil.copyfile(wal, folder / "db-wal")
    try:
      opened = sqlite3.connect(copy) if trusted else open_untrusted(copy, f"the file {path.name}")
      with closing(opened) as connection:
        return {**sqlite_header(connection, prefix), **sqlite_rows(connection, prefix, keys)}
    except UntrustedDatabase as error:
      return {prefix + ("unreadable",): str(error)}
    except sqlite3.Error as error:
      return {prefix + ("unreadable",): f"not a readable SQLite database ({error})"}
  finally:
    shutil.rmtree(folder, ignore_errors=True)


def encodings_of(text: str) -> list[bytes]:
  """The byte forms in which ``text`` could sit in a file: UTF-8 and both UTF-16s."""
  return [text.encode("utf-8"), text.encode("utf-16-le"), text.encode("utf-16-be")]


def markers_in(data: bytes, markers: Iterable[str]) -> list[str]:
  """The markers found in ``data``, in any of ``encodings_of``, whatever the letter case."""
  lowered = data.lower()
  found = []
  for marker in markers:
    forms = encodings_of(marker.lower())
    if any(form in lowered for form in forms):
      found.append(marker)
  return found


def folder_files(folder: Path, prefix: tuple, markers: Iterable[str] = ()) -> Observation:
  """Every entry under ``folder``: ``prefix + ("file", relative path) -> kind`` ("file",
  "folder", "link", "other"), and for each regular file the markers it holds
  (``prefix + ("bytes", relative path) -> sorted markers``, only where there are some)."""
  markers = list(markers)
  found: Observation = {}
  if not folder.is_dir():
    return {prefix + ("folder missing",): True}
  for root, dirs, files in walk(folder):
    dirs.sort()
    for name in sorted(dirs) + sorted(files):
      path = Path(root) / name
      relative = path.relative_to(folder).as_posix()
      try:
        mode = os.lstat(path).st_mode
      except OSError:
        continue
      kind = ("link" if stat.S_ISLNK(mode) else "folder" if stat.S_ISDIR(mode)
              else "file" if stat.S_ISREG(mode) else "other")
      found[prefix + ("file", relative)] = kind
      if kind == "file" and markers:
        try:
          with open(path, "rb") as stream:
            data = stream.read(READ_CAP)
        except OSError:
          continue
        held = markers_in(data, markers)
        if held:
          found[prefix + ("bytes", relative)] = sorted(held)
  return found


RUN_FOLDERS = ("world-", "snapshot-", "template-", "reference")


def stray_files(workdir: Path, prefix: tuple, markers: Iterable[str] = ()) -> Observation:
  """What a run left in its work folder outside the worlds' own folders (a copy "for
  safety", a dump...): every file there (folders only through what they hold), the
  ``elsewhere-N`` folders included, which were the temporary and home folders of the calls
  (``_harness.elsewhere``), and ``elsewhere-sandbox``, what the sandbox's own /tmp held."""
  found: Observation = {}
  if not workdir.is_dir():
    return found
  for entry in sorted(workdir.iterdir()):
    if entry.name.startswith(RUN_FOLDERS):
      continue
    if entry.is_dir() and not entry.is_symlink():  # what is in it, not the folder itself
      for key, value in folder_files(entry, prefix, markers).items():
        if value != "folder":
          found[key[:-1] + (f"{entry.name}/{key[-1]}",)] = value
    else:
      kind = "link" if entry.is_symlink() else "file" if entry.is_file() else "other"
      found[prefix + ("file", entry.name)] = kind
      if kind == "file" and markers:
        try:
          held = markers_in(entry.read_bytes()[:READ_CAP], markers)
        except OSError:
          held = []
        if held:
          found[prefix + ("bytes", entry.name)] = sorted(held)
  return found


def quote(value: Any) -> str:
  """A value named in feedback, as a student reads it: a string between “ and ”, so that an
  id such as D'Arcy shows as “D'Arcy”, not as Python's 'D\\'Arcy' (with both kinds of quotes
  in it, repr escapes one of them). Only what cannot be seen is escaped (control characters,
  lone surrogates, a no-break or zero-width space), so padding and look-alikes stay visible;
  anything but a string is shown as Python writes it."""
  if not isinstance(value, str):
    return repr(value)
  if "“" in value or "”" in value:
    return json.dumps(value, ensure_ascii=False)
  shown = "".join(ch if ch.isprintable() and ch not in "\u00a0\u200b\ufeff"
                  else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
                  for ch in value)
  nfc = "" if unicodedata.normalize("NFC", value) == value else " (not in NFC form)"
  return f"“{shown}”{nfc}"


TABLE_WORDS = {"sessions": ("app", "user", "session"), "events": ("app", "user", "session", "event"),
               "user_states": ("app", "user"), "app_states": ("app",),
               "adk_internal_metadata": ("key",)}


def describe_key(key: tuple, places: Optional[dict[str, str]] = None) -> str:
  """A key of these observers in words: ``the sessions row (app 'a', user 'u', session 's'),
  state.goal.text``; ``the file tutor.db-wal in the database's folder``."""
  places = places or {}
  if len(key) >= 3 and key[1] == "table":
    table, rest = key[2], key[3:]
    words = TABLE_WORDS.get(table)
    if words and len(rest) >= len(words):
      ids = ", ".join(f"{w} {quote(v)}" for w, v in zip(words, rest))
      path = ".".join(str(p) for p in rest[len(words):])
      return f"the {table} row ({ids})" + (f", {path}" if path else "")
    return f"a row of the table {quote(table)}" + (f": {', '.join(map(str, rest))}"[:200] if rest else "")
  if len(key) >= 3 and key[1] == "schema":
    return f"the {key[2]} {quote(key[3])} of the database's schema" if len(key) > 3 else "the schema"
  if len(key) >= 3 and key[1] == "format":
    return f"the database's {key[2]}"
  if len(key) >= 2 and key[1] in ("missing", "unreadable"):
    return f"the database ({key[1]})"
  if len(key) >= 3 and key[1] in ("file", "bytes"):
    where = places.get(str(key[0]), str(key[0]))
    what = "the markers of the erased data in" if key[1] == "bytes" else "the entry"
    return f"{what} {quote(key[2])} of {where}"
  return " / ".join(str(part) for part in key)

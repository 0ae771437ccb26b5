"""What the judge of ``forget_user`` needs beyond the shared observers: SQLite's own files judged
as SQLite reads them, and every property of every entry, not only bytes.

- ``sidecar_problems``: the ``-wal``, ``-shm`` and ``-journal`` files next to the database are
  accepted only as what SQLite itself leaves there once everything is committed and
  checkpointed. A name alone proves nothing: a compressed copy of the user's rows written under
  ``tutor.db-journal`` holds none of their markers in plain bytes, yet it is a copy. So a
  ``-journal`` and a ``-wal`` must be empty (SQLite truncates or deletes them; a ``-wal`` with
  frames, or a persisted journal, keeps earlier versions of pages, which no reader of the
  database sees), and a ``-shm`` must be a WAL index of an empty log, byte for byte: its header
  valid, every page number in it one of the file's, every hash table the one SQLite builds
  from them, nothing else. Of the main file, no byte beyond its pages, no page in the free
  list, no reserved bytes per page.
- ``census``: every entry under a folder (empty folders and links included) with its
  extended attributes (``os.listxattr``): a copy kept in ``user.backup`` of the database file
  has no bytes in any file. ``act`` takes it in the process that ran the call (a sandbox
  returns the files' bytes only) and writes it beside the world's folder (``record``).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import struct
import sys
from pathlib import Path
from typing import Any, Optional

from ..tree import remove_tree, walk

Observation = dict
RECORD_CAP = 64 * 1024 * 1024  # bytes of a record read back
CENSUS_SUFFIX = "-census.json"  # beside ``world-N``: skipped by ``stray_files`` (its prefix)
MAX_ENTRIES = 2_000  # entries of one folder described
MAX_ATTRIBUTES = 50  # extended attributes of one entry described
XATTR_SPACES = ("user.", "trusted.")  # where a process (root, for trusted.) may write anything
# SQLite's WAL index (wal.c): two copies of a 48-byte header and 40 bytes of checkpoint
# information, then for each block of frames their page numbers and a hash table of them
INDEX_HEADER = 136
INDEX_BLOCK = 32768
HASH_SLOTS = 8192
HASH_MULTIPLIER = 383
WAL_INDEX_VERSION = 3007000
READ_MARK_UNUSED = 0xFFFFFFFF
GROWTH = 16  # pages a call may add while it works (a page number in the index beyond: none)


# --- SQLite's own files ----------------------------------------------------------------------

def wal_index_checksum(data: bytes) -> tuple[int, int]:
  """SQLite's checksum of the WAL index header (native byte order, pairs of 32-bit words)."""
  s1 = s2 = 0
  words = struct.unpack(f"={len(data) // 4}I", data)
  for first, second in zip(words[::2], words[1::2]):
    s1 = (s1 + first + s2) & 0xFFFFFFFF
    s2 = (s2 + second + s1) & 0xFFFFFFFF
  return s1, s2


def hash_table(pages: list[int]) -> list[int]:
  """The hash table SQLite builds for one block's page numbers, in order (``walIndexAppend``:
  each frame's number, from 1, in the first free slot from the page's hash on)."""
  table = [0] * HASH_SLOTS
  for frame, page in enumerate(pages, start=1):
    slot = (page * HASH_MULTIPLIER) & (HASH_SLOTS - 1)
    while table[slot]:
      slot = (slot + 1) & (HASH_SLOTS - 1)
    table[slot] = frame
  return table


def shm_problem(data: bytes, page_size: int, max_page: int) -> Optional[str]:
  """Why ``data`` is not the WAL index SQLite leaves for an empty ``-wal`` of a file of
  ``page_size`` bytes a page (None: it is). Page numbers left from the frames the log held
  before it was emptied stay in the index; each must be a page of the file (``max_page``),
  and the hash tables exactly those SQLite makes of them."""
  if not data:
    return None
  if len(data) % INDEX_BLOCK:
    return f"{len(data):,} bytes: a WAL index is made of blocks of {INDEX_BLOCK:,}"
  header = data[:48]
  if data[48:96] != header:
    return "its two copies of the WAL index header differ"
  (version, unused, _change, initialised, big_endian, size, frames, _pages, *_rest,
   sum1, sum2) = struct.unpack("=IIIBBHIIIIIIII", header)
  expected_size = page_size if page_size < 65536 else 1
  if (version, unused, initialised, big_endian, size) != (
      WAL_INDEX_VERSION, 0, 1, int(sys.byteorder == "big"), expected_size):
    return "its header is not SQLite's for this file"
  if (sum1, sum2) != wal_index_checksum(header[:40]):
    return "its header's checksum is wrong"
  if frames:
    return f"it indexes {frames} frame(s) of the -wal, which must be empty"
  info = struct.unpack("=I5I8BII", data[96:INDEX_HEADER])
  backfill, marks, locks, attempted, spare = info[0], info[1:6], info[6:14], info[14], info[15]
  if (backfill or attempted or spare or any(locks)
      or any(m not in (0, READ_MARK_UNUSED) for m in marks)):
    return "its checkpoint information is not SQLite's for an empty -wal"
  for block in range(len(data) // INDEX_BLOCK):
    start = block * INDEX_BLOCK
    first = INDEX_HEADER if block == 0 else 0
    numbers = struct.unpack(f"={(INDEX_BLOCK // 2 - first) // 4}I",
                            data[start + first:start + INDEX_BLOCK // 2])
    slots = list(struct.unpack(f"={HASH_SLOTS}H", data[start + INDEX_BLOCK // 2:start + INDEX_BLOCK]))
    used = next((i for i, n in enumerate(numbers) if n == 0), len(numbers))
    if any(numbers[used:]):
      return f"block {block} of the index has page numbers after a gap"
    if any(n > max_page for n in numbers[:used]):
      return f"block {block} of the index names pages the file never had"
    if slots != hash_table(list(numbers[:used])):
      return f"block {block} of the index has a hash table SQLite would not build"
  return None


def main_file_problem(data: bytes) -> Optional[str]:
  """Why the database file holds bytes SQLite never reads (None: it holds none that the
  comparison of its rows and the search for markers do not cover): bytes past its pages,
  pages in its free list, reserved bytes at the end of each page, a non-zero reserved header
  area."""
  if len(data) < 100 or not data.startswith(b"SQLite format 3\x00"):
    return None  # not a database: its rows say so (unreadable)
  page_size = int.from_bytes(data[16:18], "big")
  page_size = 65536 if page_size == 1 else page_size
  pages = int.from_bytes(data[28:32], "big")
  valid = data[24:28] == data[92:96]  # the page count in the header is current
  if valid and pages and len(data) != pages * page_size:
    return f"{len(data) - pages * page_size:,} bytes past its {pages} pages"
  if int.from_bytes(data[36:40], "big"):
    return f"{int.from_bytes(data[36:40], 'big')} page(s) in its free list (unused, unread)"
  if data[20] or any(data[72:92]):
    return "reserved bytes SQLite does not read"
  return None


def sidecar_problems(folder: Path, db_name: str, prefix: tuple, max_page: int) -> Observation:
  """``prefix + ("unexplained", name) -> why`` for each of the database's files in ``folder``
  that holds bytes SQLite itself would not leave there (see the module's docstring)."""
  found: Observation = {}
  db = folder / db_name
  page_size = 4096
  try:
    data = db.read_bytes()
  except OSError:
    data = b""
  if data.startswith(b"SQLite format 3\x00") and len(data) >= 100:
    page_size = int.from_bytes(data[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
  problem = main_file_problem(data)
  if problem:
    found[prefix + ("unexplained", db_name)] = problem
  for suffix in ("-journal", "-wal"):
    path = folder / (db_name + suffix)
    if path.is_file() and path.stat().st_size:
      found[prefix + ("unexplained", path.name)] = (
          f"{path.stat().st_size:,} bytes: SQLite leaves it empty once everything is committed "
          "and checkpointed")
  shm = folder / (db_name + "-shm")
  if shm.is_file():
    try:
      problem = shm_problem(shm.read_bytes()[:64 * INDEX_BLOCK + 1], page_size, max_page)
    except (OSError, struct.error) as error:
      problem = f"unreadable ({error})"
    if problem:
      found[prefix + ("unexplained", shm.name)] = problem
  return found


# --- every entry, with its extended attributes ----------------------------------------------

def _attributes(path: str) -> dict[str, Any]:
  """The extended attributes of ``path`` (not followed if a link) that a process can fill
  with data (``XATTR_SPACES``): name -> size and hash. (``security.*`` and ``system.*`` hold
  the system's labels and ACLs, set alike on every file of a folder.)"""
  try:
    names = sorted(n for n in os.listxattr(path, follow_symlinks=False)
                   if n.startswith(XATTR_SPACES))
  except OSError:
    return {}
  found: dict[str, Any] = {}
  for name in names[:MAX_ATTRIBUTES]:
    try:
      value = os.getxattr(path, name, follow_symlinks=False)
    except OSError:
      value = b""
    found[name] = {"size": len(value), "sha256": hashlib.sha256(value).hexdigest()[:16]}
  if len(names) > MAX_ATTRIBUTES:
    found["…"] = {"more": len(names) - MAX_ATTRIBUTES}
  return found


def _kind(mode: int) -> str:
  return ("link" if stat.S_ISLNK(mode) else "folder" if stat.S_ISDIR(mode)
          else "file" if stat.S_ISREG(mode) else "other")


def census(root: Path) -> dict[str, Any]:
  """Every entry under ``root`` (``"."`` for itself): its kind and, where it has any, its
  extended attributes: what a copy of the files' bytes does not show. A folder that cannot be
  listed (no read bit, a path too long) is of kind "unreadable": what it hides is never taken
  for nothing."""
  entries: dict[str, Any] = {}
  if not root.is_dir():
    return entries
  top = _attributes(str(root))
  if top:
    entries["."] = {"kind": "folder", "xattrs": top}

  def unlisted(error: OSError) -> None:  # a folder it cannot list (mode 000, a path too long)
    where = Path(error.filename or root)
    relative = where.relative_to(root).as_posix() if where != root else "."
    entries[relative] = {"kind": "unreadable"}

  for current, folders, files in walk(root, onerror=unlisted):
    folders.sort()
    for name in sorted(folders) + sorted(files):
      if len(entries) >= MAX_ENTRIES:
        entries["…"] = {"kind": "too many"}
        return entries
      path = os.path.join(current, name)
      try:
        mode = os.lstat(path).st_mode
      except OSError:  # listed but not searchable (a folder of mode 0444): there, kind unknown
        entries[Path(path).relative_to(root).as_posix()] = {"kind": "unreadable"}
        continue
      item: dict[str, Any] = {"kind": _kind(mode)}
      attributes = _attributes(path)
      if attributes:
        item["xattrs"] = attributes
      entries[Path(path).relative_to(root).as_posix()] = item
  return entries


def census_path(folder: Path) -> Path:
  """Where ``act`` writes what it saw of the world ``folder`` (beside it, in the work folder)."""
  return folder.parent / f"{folder.name}{CENSUS_SUFFIX}"


def record(folder: Path, stage: str, value: Any) -> None:
  """Add ``stage -> value`` to the record beside ``folder`` (what is there and is not a
  record, a link or a folder in its place, is replaced)."""
  path = census_path(folder)
  held = read_record(folder) or {}
  remove_tree(path)  # whatever is there: a file, a link, a folder of any depth
  held[stage] = value
  path.write_text(json.dumps(held), encoding="utf-8")


def read_record(folder: Path) -> Optional[dict]:
  try:
    handle = os.open(census_path(folder), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(handle, "rb") as stream:
      held = json.loads(stream.read(RECORD_CAP + 1).decode("utf-8"))
  except (OSError, ValueError, RecursionError):
    return None
  return held if isinstance(held, dict) else None


def as_observation(entries: Any, prefix: tuple, skip: tuple[str, ...] = ()) -> Observation:
  """A census as observation keys: ``prefix + ("file", path) -> kind`` (as ``folder_files``
  has it, the empty folders and links a copy of the files loses included) and ``prefix +
  ("xattr", path, name) -> {size, sha256}``."""
  found: Observation = {}
  if not isinstance(entries, dict):
    return {prefix + ("census unreadable",): True}
  for path, item in list(entries.items())[:MAX_ENTRIES + 1]:
    if not isinstance(item, dict) or str(path) in skip:
      continue
    if path != "." or item.get("kind") == "unreadable":
      found[prefix + ("file", str(path))] = str(item.get("kind"))
    attributes = item.get("xattrs")
    if isinstance(attributes, dict):
      for name, value in list(attributes.items())[:MAX_ATTRIBUTES + 1]:
        found[prefix + ("xattr", str(path), str(name))] = value
  return found


# --- what a call writes outside the observed folders ----------------------------------------

def header_needles(db_path: str) -> list[bytes]:
  """The first 100 bytes of the database (its header, with its change counter): what a copy
  made by a command the call starts (``cp``, ``sqlite3 .backup``) begins with."""
  try:
    with open(db_path, "rb") as stream:
      return [stream.read(100)]
  except OSError:
    return []

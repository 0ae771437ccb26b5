"""What a call wrote outside the folders the judge observes: ``OutsideWrites``.

The judge observes a world's folder and the call's temporary and home folders itself. In the
sandboxed grader the sandbox's own /tmp is kept too; in the students' self-check, which runs a
submission in its own process, nothing else is: a copy at a hard-coded ``/tmp/...`` path, or an
extended attribute on a file outside the world, would go unseen. ``OutsideWrites`` records them
through Python's audit events, for every exercise whose contract says the call writes nothing
else (erase_user_artifacts, forget_user, remember_favorite_drink).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import sys
import tempfile
import threading
import zipfile
from pathlib import Path
from typing import Any, Callable, Optional

from ..tree import walk


WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
SPAWN_EVENTS = ("subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.fork",
                "os.forkpty", "os.spawn", "pty.spawn")
# The audit events looked at; a Runner's turn raises hundreds of others (builtins.id,
# object.__getattr__...), each of which would otherwise go through ``event``.
WATCHED = frozenset(("open", "os.mkdir", "os.mkfifo", "os.mknod", "os.truncate", "os.rename",
                     "os.replace", "os.link", "os.symlink", "sqlite3.connect", "os.setxattr",
                     "os.removexattr", *SPAWN_EVENTS))
MAX_STRAYS = 40
TEMPORARY = ("/tmp", "/var/tmp")
_recorders: list["OutsideWrites"] = []
_busy = threading.local()
_hooked = False


def _audit(event: str, args: tuple) -> None:
  """The process's audit hook (installed once, idle but while a call is recorded): never
  raises, never recurses."""
  if not _recorders or event not in WATCHED or getattr(_busy, "on", False):
    return
  _busy.on = True
  try:
    _recorders[-1].event(event, args)
  except Exception:  # noqa: BLE001 - an audit hook that raises breaks the code it watches
    pass
  finally:
    _busy.on = False


def _signature(path: str) -> Optional[tuple]:
  try:
    info = os.lstat(path)
  except (OSError, ValueError):
    return None
  return (stat.S_IFMT(info.st_mode), info.st_ino, info.st_size, info.st_mtime_ns)


class OutsideWrites:
  """Every file or folder a call makes or changes outside ``allowed`` (the world's folder and
  the call's temporary and home folders, which the judge observes itself), as ``stray``
  entries for the world's manifest.

  The students' self-check runs a submission in its own process, with no sandbox whose /tmp
  the grader keeps: a copy written to a hard-coded ``/tmp/...`` path (or anywhere else) would go
  unseen. Python raises an audit event for every file it opens for writing, every folder it
  makes, every rename and link, every SQLite file it connects to: each such path is looked at
  when the event comes and again when the call has returned. A command the call starts (``cp``,
  ``tar``) raises no such event for what it writes: then the temporary folders' new entries are
  searched for bytes of the world's data (``needles``, read when the command
  starts)."""

  def __init__(self, allowed: list[Path], needles: Callable[[], list[bytes]]):
    self.allowed = [os.path.realpath(p) for p in allowed] + [os.path.abspath(p) for p in allowed]
    self.needles = needles
    self.seen: dict[str, Optional[tuple]] = {}
    self.spawned: Optional[dict[str, dict[str, tuple]]] = None
    self.found_needles: list[bytes] = []
    self.attributes: dict[str, str] = {}  # path -> what: extended attributes set or removed
    self.temporary = sorted({os.path.realpath(p) for p in TEMPORARY + (tempfile.gettempdir(),)
                             if os.path.isdir(p)})

  def __enter__(self) -> "OutsideWrites":
    global _hooked
    if not _hooked:
      sys.addaudithook(_audit)
      _hooked = True
    _recorders.append(self)
    return self

  def __exit__(self, *exc: Any) -> None:
    _recorders.remove(self)

  def _outside(self, path: Any) -> Optional[str]:
    if isinstance(path, int) or path is None:
      return None
    text = os.path.abspath(os.fsdecode(os.fspath(path)))
    if "__pycache__" in text.split(os.sep):  # the interpreter's own byte code
      return None
    if any(text == a or text.startswith(a + os.sep) for a in self.allowed):
      return None
    return text

  def _note(self, path: Any) -> None:
    text = self._outside(path)
    if text is not None and text not in self.seen and len(self.seen) < 10 * MAX_STRAYS:
      self.seen[text] = _signature(text)

  def event(self, event: str, args: tuple) -> None:
    if event in ("os.setxattr", "os.removexattr") and args:
      # (an attribute changes neither the entry's bytes nor its times: noted as it is set)
      path = self._outside(args[0])
      if path is not None and len(self.attributes) < MAX_STRAYS:
        self.attributes.setdefault(path, f"an extended attribute ({args[1]!s:.40}) "
                                         "set by the call outside the world's folders")
    elif event == "open" and len(args) >= 3 and isinstance(args[2], int) and args[2] & WRITE_FLAGS:
      self._note(args[0])
    elif event in ("os.mkdir", "os.mkfifo", "os.mknod", "os.truncate"):
      if len(args) < 3 or args[-1] in (None, -1) or event == "os.truncate":  # not by dir_fd
        self._note(args[0])
    elif event in ("os.rename", "os.replace", "os.link", "os.symlink"):
      if args[-1] in (None, -1):
        self._note(args[1])
    elif event == "sqlite3.connect" and args and isinstance(args[0], (str, bytes, os.PathLike)):
      name = os.fsdecode(os.fspath(args[0]))
      if name and name != ":memory:" and not name.startswith("file:"):
        self._note(name)
    elif event in SPAWN_EVENTS and self.spawned is None:
      self.spawned = {top: self._listing(top) for top in self.temporary}
      self.found_needles = [n for n in self.needles() if len(n) >= 12]

  def _listing(self, top: str) -> dict[str, tuple]:
    try:
      with os.scandir(top) as entries:
        return {e.name: _signature(e.path) for e in entries}
    except OSError:
      return {}

  def strays(self) -> list[list[str]]:
    """``["stray", path, what]`` for each path made or changed, when the call has returned."""
    found: dict[str, str] = {}
    for path, before in self.seen.items():
      after = _signature(path)
      if after is not None and (before is None or (  # a folder changes whenever anyone
          after != before and after[0] == before[0] == stat.S_IFREG)):  # writes in it
        found[path] = _what(after, "made" if before is None else "changed")
    if self.spawned is not None:
      for top, before in self.spawned.items():
        for name, after in self._listing(top).items():
          path = os.path.join(top, name)
          if before.get(name) != after and self._outside(path) and self._holds_needles(path):
            found.setdefault(path, "holds bytes of the world's data (written by a command it "
                                   "started)")
    for path, what in self.attributes.items():
      found.setdefault(path, what)
    return [["stray", path, what] for path, what in sorted(found.items())[:MAX_STRAYS]]

  def _holds_needles(self, path: str, budget: int = 2000) -> bool:
    if not self.found_needles:
      return False
    for current, folders, files in ([(os.path.dirname(path), [], [os.path.basename(path)])]
                                    if not os.path.isdir(path) or os.path.islink(path)
                                    else walk(path)):
      for name in files:
        budget -= 1
        if budget < 0:
          return False
        if holds(os.path.join(current, name), self.found_needles):
          return True
    return False


def _what(signature: tuple, how: str) -> str:
  kind = {stat.S_IFDIR: "folder", stat.S_IFLNK: "link", stat.S_IFREG: "file"}.get(
      signature[0], "entry")
  size = f" ({signature[2]:,} bytes)" if kind == "file" else ""
  return f"a {kind}{size} {how} by the call outside the world's folders"


def holds(path: str, needles: list[bytes], cap: int = 16 * 1024 * 1024) -> bool:
  """Does the regular file at ``path`` hold one of ``needles``, as it is or once unpacked (a
  zip, gzip, bz2 or xz archive: a tar inside holds its files as they are)?"""
  try:
    if not stat.S_ISREG(os.lstat(path).st_mode):
      return False
    with open(path, "rb") as stream:
      data = stream.read(cap)
  except OSError:
    return False
  blobs = [data]
  try:
    if data[:4] == b"PK\x03\x04":
      with zipfile.ZipFile(io.BytesIO(data)) as archive:
        blobs += [archive.read(info)[:cap] for info in archive.infolist()[:500]]
    elif data[:2] == b"\x1f\x8b":
      blobs.append(gzip.GzipFile(fileobj=io.BytesIO(data)).read(cap))
    elif data[:3] == b"BZh":
      blobs.append(bz2.BZ2File(io.BytesIO(data)).read(cap))
    elif data[:6] == b"\xfd7zXZ\x00":
      blobs.append(lzma.LZMAFile(io.BytesIO(data)).read(cap))
  except Exception:  # noqa: BLE001 - a broken archive holds what it holds as it is
    pass
  return any(needle in blob for blob in blobs for needle in needles)

"""Artifact worlds for the judge of ``erase_user_artifacts``: many users' files, written through
ADK's ``FileArtifactService``, and a folder observed whole.

Nothing here decides what is right; it is what any exercise on ``FileArtifactService`` needs:

- ``valid_id``: an id ADK accepts as a path segment and stores in a folder of its own (``ana/``
  and ``./ana`` are accepted too, but land in ``ana``'s folder: never used as another user);
- ``Saves``: the saves of a world as JSON, with the version ADK gives each one;
- ``write_root``: the saves made real, plus the staging folders a killed save leaves behind
  (``versions/.N.pending``) and artifacts deleted through the API (their empty folders stay);
- ``owner``: whose folder a path of the artifact root is in. Ids may hold a slash, so a path is
  matched against every known user's folder, the longest first (``ana/x`` inside ``ana``);
- ``scan``, ``pack``, ``read_manifest``: every entry of a folder, each file by size, hash and
  permission bits, each folder by its bits, each link by its target; a run's folder replaced by
  that description (see ``pack`` for why), and read back;
- ``write_extras``, ``duplicate``: what ``FileArtifactService`` never writes but a real folder
  holds (symbolic links, a legacy artifact, permission bits other than the umask's), and copies
  that keep them;
- ``OutsideWrites``: the files and folders a call made or changed outside the folders the judge
  observes (a backup under a hard-coded ``/tmp`` path), seen in-process by an audit hook.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import lzma
import os
import posixpath
import random
import shutil
import stat
import sys
import tempfile
import threading
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Optional

from google.adk.artifacts import artifact_util
from google.adk.artifacts.file_artifact_service import FileArtifactService
from google.genai import types

from ._world import secret

Observation = dict
READ_CAP = 64 * 1024 * 1024  # bytes of one file hashed
MANIFEST = "world.manifest.json"  # what a run's folder held, as ``pack`` wrote it
MANIFEST_CAP = 16 * 1024 * 1024
MAX_ENTRIES = 50_000
KINDS = ("file", "folder", "link", "other", "unreadable", "too many", "stray")
TEXT_NAMES = ("notes.txt", "order history.txt", "Caf\u00e9 menu.md", "Cafe\u0301 menu.md",
              "receipts/2024/march.txt", "draft/1", "doc", "doc/nested.txt",
              "  padded name.txt", "\u2615 loyalty card.txt")
BINARY_NAMES = {"photo.png": "image/png", "scan 1.pdf": "application/pdf",
                "voice/memo.ogg": "audio/ogg"}
FILE_NAMES = TEXT_NAMES + tuple(BINARY_NAMES)
WORDS = ("latte", "oat milk", "no sugar", "receipt", "table 4", "allergy: nuts", "espresso")
TOMBSTONE = types.Part(inline_data=types.Blob(mime_type="application/octet-stream", data=b""))


def valid_id(value: str) -> bool:
  """Does ADK accept ``value`` as an app, user or session id, and keep it in a folder of its
  own? (``ana/``, ``./ana`` and ``ana/.`` pass ADK's check but are ``ana``'s folder.)"""
  try:
    artifact_util.validate_path_segment(value, "id")
  except ValueError:
    return False
  return "/".join(PurePosixPath(value).parts) == value


def stored_name(filename: str) -> str:
  """The artifact's folder, relative to its scope, as ``FileArtifactService`` derives it."""
  name = filename[len("user:"):] if filename.startswith("user:") else filename
  return name.strip()


def scope_of(session: Optional[str], filename: str) -> Optional[str]:
  """None for the user's own files (``user:`` names, or saved with no session), else the
  session id."""
  return None if session is None or filename.startswith("user:") else session


def user_base(app: str, user: str) -> str:
  """The folder of (app, user) relative to the artifact root, as ADK builds it."""
  return f"apps/{app}/users/{user}"


class Saves:
  """A world's saves in order, as JSON: ``{"app", "user", "session", "file", "payload"}``;
  ``versions`` counts each artifact's versions so far (ADK numbers them 0, 1, 2...)."""

  def __init__(self, rng: random.Random):
    self.rng = rng
    self.items: list[dict[str, Any]] = []
    self.versions: dict[tuple, int] = {}

  def payload(self, filename: str, tombstone: bool = False) -> dict[str, Any]:
    rng = self.rng
    if tombstone:  # what a rewind saves to make a file absent: a version all the same
      return {"tombstone": True}
    mime = BINARY_NAMES.get(stored_name(filename))
    if mime:
      return {"hex": rng.randbytes(rng.choice((16, 300, 2000))).hex(), "mime": mime}
    if rng.random() < 0.08:
      return {"text": ""}
    return {"text": " ".join(f"{rng.choice(WORDS)} {secret(rng)}"
                             for _ in range(rng.randrange(1, 12)))}

  def add(self, app: str, user: str, session: Optional[str], filename: str,
          versions: int = 1, tombstone: bool = False) -> int:
    """Save ``versions`` versions of one file (the last a rewind's tombstone if asked);
    return the number of its latest version."""
    where = (app, user, scope_of(session, filename), stored_name(filename))
    for number in range(versions):
      self.items.append({"app": app, "user": user, "session": session, "file": filename,
                         "payload": self.payload(filename, tombstone and number == versions - 1)})
      self.versions[where] = self.versions.get(where, 0) + 1
    return self.versions[where] - 1

  def count(self, app: str, user: str) -> int:
    return sum(1 for s in self.items if s["app"] == app and s["user"] == user)


def part(payload: dict[str, Any]) -> types.Part:
  if payload.get("tombstone"):
    return TOMBSTONE.model_copy(deep=True)
  if "hex" in payload:
    return types.Part(inline_data=types.Blob(mime_type=payload["mime"],
                                             data=bytes.fromhex(payload["hex"])))
  return types.Part(text=payload["text"])


async def write_root(root: Path, saves: list[dict], pending: list[dict],
                     deleted: list[dict]) -> None:
  """Make a world's artifact folder: every save through ``FileArtifactService``, with the
  staging folders of saves that never finished (``{"app", "user", "session", "file",
  "version", "with", "after"}``: the payload alone, or with its metadata or a half-written
  temporary file, made before save number ``after``, so that a later save skips its number),
  then the artifacts deleted through the API (which leaves their scope's folders)."""
  service = FileArtifactService(root)
  for number in range(len(saves) + 1):
    for item in pending:
      if item.get("after", len(saves)) == number:
        _staging(service, item)
    if number < len(saves):
      save = saves[number]
      await service.save_artifact(app_name=save["app"], user_id=save["user"],
                                  filename=save["file"], session_id=save["session"],
                                  artifact=part(save["payload"]))
  for item in deleted:
    await service.delete_artifact(app_name=item["app"], user_id=item["user"],
                                  filename=item["file"], session_id=item["session"])


def _staging(service: FileArtifactService, item: dict[str, Any]) -> None:
  folder, _ = service._artifact_dir(item["app"], item["user"], item["session"], item["file"])
  staging = folder / "versions" / f".{item['version']}.pending"
  staging.mkdir(parents=True)
  (staging / folder.name).write_bytes(bytes.fromhex(item["hex"]))
  if item["with"] == "metadata":
    (staging / "metadata.json").write_text(
        f'{{"fileName": "{item["file"]}", "version": {item["version"]}}}', encoding="utf-8")
  elif item["with"] == "tmp":
    (staging / f"tmp{item['hex'][:8]}.tmp").write_text('{"fileName": "', encoding="utf-8")


def owner(spec: dict[str, Any], relative: str) -> Optional[tuple[str, str, str]]:
  """(app, user, the rest of the path) of the user whose folder holds ``relative`` (a path
  relative to the artifact root), the most deeply nested one; None if nobody's."""
  for base, app, user in spec["owners"]:  # longest first
    if relative == base or relative.startswith(base + "/"):
      return app, user, relative[len(base) + 1:]
  return None


def session_of(spec: dict[str, Any], app: str, user: str, rest: str
               ) -> Optional[tuple[str, str]]:
  """(session id, "live" / "deleted" / "disk") of a path ``rest`` under (app, user)'s folder
  that lies in a session's folder (ids may hold slashes: the longest match)."""
  best = None
  for app_, user_, session, where in spec["sessions"]:
    if (app_, user_) == (app, user) and (rest == f"sessions/{session}"
                                         or rest.startswith(f"sessions/{session}/")):
      if best is None or len(session) > len(best[0]):
        best = (session, where)
  return best


def describe_bytes(path: str, size: int) -> str:
  digest = hashlib.sha256()
  with open(path, "rb") as stream:
    digest.update(stream.read(READ_CAP))
  return f"{size:,} bytes, sha256 {digest.hexdigest()[:16]}"


def mode_of(info: os.stat_result) -> str:
  return oct(stat.S_IMODE(info.st_mode))


def scan(folder: Path, keep: tuple[str, ...] = ()) -> list[list[str]]:
  """Every entry under ``folder`` but the top-level names in ``keep``: ``[kind, relative
  path, value]`` with kind "file" (value: size, hash and permission bits), "folder" (its
  bits), "link" (its target: a link is never followed) or "other". The bits are read with
  ``lstat``: a chmod of someone else's file is a change like any other."""
  found: list[list[str]] = []
  top = str(folder)
  for current, folders, files in os.walk(top):
    base = current[len(top) + 1:]
    if not base:
      folders[:] = [name for name in folders if name not in keep]
      files = [name for name in files if name not in keep]
    folders.sort()
    for name in folders + sorted(files):
      path = os.path.join(current, name)
      relative = f"{base}/{name}" if base else name
      try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
          found.append(["link", relative, os.readlink(path)])
        elif stat.S_ISDIR(info.st_mode):
          found.append(["folder", relative, f"folder, mode {mode_of(info)}"])
        elif stat.S_ISREG(info.st_mode):
          found.append(["file", relative,
                        f"{describe_bytes(path, info.st_size)}, mode {mode_of(info)}"])
        else:
          found.append(["other", relative, "other"])
      except OSError as error:
        found.append(["unreadable", relative, error.strerror or "unreadable"])
      if len(found) >= MAX_ENTRIES:
        found.append(["too many", "", f"more than {MAX_ENTRIES:,} entries"])
        return found
  return found


def pack(folder: Path, entries: list[list[str]], keep: tuple[str, ...]) -> None:
  """Replace everything in ``folder`` but ``keep`` by ``MANIFEST``, which lists ``entries``.

  The grader returns a sandbox's files only down to a few levels and a few hundred in all;
  ADK's layout nests a version's file twelve levels deep, and a world holds hundreds. So the
  world's tree travels back described (what it held, as ``scan`` saw it) in one file, written
  by ``act`` in the sandbox like the snapshot is."""
  for entry in os.scandir(folder):
    if entry.name in keep:
      continue
    if entry.is_dir(follow_symlinks=False):
      shutil.rmtree(entry.path, ignore_errors=True)
    else:
      try:
        os.unlink(entry.path)
      except OSError:
        pass
  (folder / MANIFEST).write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8",
                                 errors="surrogatepass")


def as_observation(entries: list[list[str]]) -> Observation:
  return {(kind, relative): value for kind, relative, value in entries}


def read_manifest(path: Path) -> Observation:
  """A ``MANIFEST`` a run left (untrusted: it was written where the submission ran), every
  field checked; one ``("unreadable",)`` item if it is not what ``pack`` writes."""
  try:
    with open(path, "rb") as stream:
      data = stream.read(MANIFEST_CAP + 1)
    if len(data) > MANIFEST_CAP:
      raise ValueError("too large")
    entries = json.loads(data.decode("utf-8", "surrogatepass"))
    if not isinstance(entries, list) or len(entries) > MAX_ENTRIES + 1:
      raise ValueError("not a list of entries")
    found: Observation = {}
    for entry in entries:
      if (not isinstance(entry, list) or len(entry) != 3
          or not all(type(part) is str and len(part) <= 4096 for part in entry)
          or entry[0] not in KINDS or (entry[0], entry[1]) in found):
        raise ValueError("an entry is not [kind, path, value]")
      found[(entry[0], entry[1])] = entry[2]
    return found
  except (OSError, ValueError, RecursionError) as error:
    return {("unreadable",): f"the description of the world's folder is unreadable ({error})"}


# --- what ADK never writes, but a real artifact folder holds ------------------------------------

FOLDER_MODES = (0o775, 0o705, 0o745)  # never less than r-x for others: in the graders' sandbox
FILE_MODES = (0o444, 0o664, 0o604, 0o744)  # another uid copies the world (it must read it all)


def relative_link(path: str, target: str) -> str:
  """The text of a link at ``path`` to ``target`` (both relative to the artifact root), relative
  to the link's folder: a copy of the world keeps it pointing into the copy."""
  return posixpath.relpath(target, posixpath.dirname(path))


def write_extras(root: Path, extras: dict[str, Any]) -> None:
  """``extras`` of a world made real in its artifact folder ``root``:

  - ``legacy``: artifacts stored under a name ADK now refuses to save (``metadata.json``), the
    payload written over the metadata document: one file in the version's folder;
  - ``links``: ``[path, target]`` symbolic links (relative paths under ``root``);
  - ``plain``: ``[path, text]`` files (their folders made as needed);
  - ``modes``: ``{"seed", "share"}``: that share of the entries under ``apps/`` get other
    permission bits, drawn from the seed; ``fixed``: ``[path, folder mode, file mode]`` for a
    file or a whole subtree;
  - ``hardlinks``: ``[source, target]``: ``target`` made the same file as ``source`` (a hard
    link), writable (a copy of the world makes them two: see ``relink``)."""
  for item in extras.get("legacy", ()):
    version = root / item["path"] / "versions" / str(item["version"])
    version.mkdir(parents=True)
    (version / "metadata.json").write_text(item["text"], encoding="utf-8")
  for path, text in extras.get("plain", ()):
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text, encoding="utf-8")
  for path, target in extras.get("links", ()):
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(relative_link(path, target), root / path)
  modes = extras.get("modes") or {}
  rng = random.Random(modes.get("seed", 0))
  entries = []
  for current, folders, files in os.walk(root / "apps"):
    folders.sort()
    entries += [os.path.join(current, name) for name in folders + sorted(files)]
  for path in entries:
    if rng.random() < modes.get("share", 0.0) and not os.path.islink(path):
      os.chmod(path, rng.choice(FOLDER_MODES if os.path.isdir(path) else FILE_MODES))
  for prefix, folder_mode, file_mode in modes.get("fixed", ()):
    top = root / prefix
    if top.is_file() and not top.is_symlink():
      os.chmod(top, file_mode)
    for current, folders, files in os.walk(top):
      for name in files:
        if not os.path.islink(os.path.join(current, name)):
          os.chmod(os.path.join(current, name), file_mode)
    for current, folders, _ in os.walk(top, topdown=False):
      for name in folders:
        if not os.path.islink(os.path.join(current, name)):
          os.chmod(os.path.join(current, name), folder_mode)
    if top.is_dir() and not top.is_symlink():
      os.chmod(top, folder_mode)
  relink(root, extras.get("hardlinks", ()))
  for source, _ in extras.get("hardlinks", ()):
    os.chmod(root / source, 0o664)


def relink(root: Path, pairs: Any) -> None:
  """Each ``[source, target]`` (paths under ``root``) made one file again, ``target`` a hard
  link of ``source``: copying a folder (the engine's, the sandbox's) makes them two files."""
  for source, target in pairs:
    if not os.path.samefile(root / source, root / target):
      os.unlink(root / target)
      os.link(root / source, root / target)


async def duplicate(spec: dict, template: Path, inputs: dict, folder: Path,  # noqa: ARG001
                    resources: Any, copy: int) -> dict:  # noqa: ARG001
  """A copy of the world that keeps its links as links (the engine's default copy follows
  them) and, like it, every file's bytes and permission bits."""
  shutil.copytree(template, folder, symlinks=True, dirs_exist_ok=True)
  return dict(inputs)


# --- what a call made outside the folders the judge observes ------------------------------------

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
SPAWN_EVENTS = ("subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.fork",
                "os.forkpty", "os.spawn", "pty.spawn")
MAX_STRAYS = 40
TEMPORARY = ("/tmp", "/var/tmp")
_recorders: list["OutsideWrites"] = []
_busy = threading.local()
_hooked = False


def _audit(event: str, args: tuple) -> None:
  """The process's audit hook (installed once, idle but while a call is recorded): never
  raises, never recurses."""
  if not _recorders or getattr(_busy, "on", False):
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
  searched for the bytes of the files the call was to erase (``needles``, read when the command
  starts)."""

  def __init__(self, allowed: list[Path], needles: Callable[[], list[bytes]]):
    self.allowed = [os.path.realpath(p) for p in allowed] + [os.path.abspath(p) for p in allowed]
    self.needles = needles
    self.seen: dict[str, Optional[tuple]] = {}
    self.spawned: Optional[dict[str, dict[str, tuple]]] = None
    self.found_needles: list[bytes] = []
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
    if event == "open" and len(args) >= 3 and isinstance(args[2], int) and args[2] & WRITE_FLAGS:
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
            found.setdefault(path, "holds bytes of the files it erased (written by a command "
                                   "it started)")
    return [["stray", path, what] for path, what in sorted(found.items())[:MAX_STRAYS]]

  def _holds_needles(self, path: str, budget: int = 2000) -> bool:
    if not self.found_needles:
      return False
    for current, folders, files in ([(os.path.dirname(path), [], [os.path.basename(path)])]
                                    if not os.path.isdir(path) or os.path.islink(path)
                                    else os.walk(path)):
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


def payloads(bases: list[Path], per_file: int = 48) -> list[bytes]:
  """The first bytes of every payload under ``bases`` (the user's folders to be erased), the
  metadata documents left out (they are alike for everyone)."""
  found: list[bytes] = []
  for base in bases:
    for current, _folders, files in os.walk(base):
      for name in files:
        path = os.path.join(current, name)
        if name == "metadata.json" or os.path.islink(path):
          continue
        try:
          with open(path, "rb") as stream:
            data = stream.read(per_file)
        except OSError:
          continue
        if len(data) >= 12:
          found.append(data)
  return found

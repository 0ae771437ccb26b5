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
- ``payloads``: the bytes ``OutsideWrites`` (``_outside_writes``) looks for in what a command
  the call started wrote.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import random
import shutil
import stat
from pathlib import Path, PurePosixPath
from typing import Any, Optional

from google.adk.artifacts import artifact_util
from google.adk.artifacts.file_artifact_service import FileArtifactService
from google.genai import types

from ..tree import remove_tree, walk
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
  ``lstat``: a chmod of someone else's file is a change like any other. A folder that cannot
  be listed (no read bit, a path too long) is an "unreadable" entry: what it hides is never
  taken for nothing."""
  found: list[list[str]] = []
  top = str(folder)

  def unlisted(error: OSError) -> None:  # a folder it cannot list (mode 000, a path too long)
    where = str(error.filename or top)
    found.append(["unreadable", where[len(top) + 1:], error.strerror or "cannot be listed"])

  for current, folders, files in walk(top, onerror=unlisted):
    base = current[len(top) + 1:]
    if not base:  # ``keep`` names only as regular files (a folder named so is an entry)
      kept = {name for name in keep if _is_regular(os.path.join(top, name))}
      folders[:] = [name for name in folders if name not in kept]
      files = [name for name in files if name not in kept]
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


def _is_regular(path: str) -> bool:
  try:
    return stat.S_ISREG(os.lstat(path).st_mode)
  except OSError:
    return False


def pack(folder: Path, entries: list[list[str]], keep: tuple[str, ...]) -> None:
  """Replace everything in ``folder`` but ``keep`` by ``MANIFEST``, which lists ``entries``.

  The grader returns a sandbox's files only down to a few levels and a few hundred in all;
  ADK's layout nests a version's file twelve levels deep, and a world holds hundreds. So the
  world's tree travels back described (what it held, as ``scan`` saw it) in one file: at
  return time by ``act`` (in the snapshot), as the run left it by ``seal`` (trusted).
  ``MANIFEST`` itself is removed first (a link there is not followed)."""
  for entry in os.scandir(folder):
    if entry.name in keep:
      continue
    if entry.is_dir(follow_symlinks=False):
      remove_tree(entry.path)
    else:
      try:
        os.unlink(entry.path)
      except OSError:
        pass
  (folder / MANIFEST).write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8",
                                 errors="surrogatepass")


STRAYS_SUFFIX = "-strays.json"  # beside ``world-N``: skipped by ``stray_files`` (its prefix)


def write_strays(folder: Path, strays: list[list[str]]) -> None:
  """What ``act`` saw the calls write outside the observed folders, for ``seal``."""
  (folder.parent / f"{folder.name}{STRAYS_SUFFIX}").write_text(
      json.dumps(strays, ensure_ascii=False), encoding="utf-8", errors="surrogatepass")


def read_strays(folder: Path) -> list[list[str]]:
  """What ``write_strays`` wrote (gone once read: it is no entry of the world), every entry
  checked. Written where the submission ran, so it may be missing or forged: it only adds
  entries, and a missing one loses only what the audit saw (the folders themselves are
  described by ``seal``)."""
  path = folder.parent / f"{folder.name}{STRAYS_SUFFIX}"
  try:
    handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(handle, "rb") as stream:
      data = stream.read(MANIFEST_CAP + 1)
    entries = json.loads(data.decode("utf-8", "surrogatepass"))
  except (OSError, ValueError, RecursionError):
    entries = []
  remove_tree(path)  # whatever is there: a file, a link, a folder of any depth
  if not isinstance(entries, list):
    return []
  return [entry for entry in entries[:1000]
          if isinstance(entry, list) and len(entry) == 3 and entry[0] == "stray"
          and all(type(part) is str and len(part) <= 4096 for part in entry)]


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
  - ``folders``: empty folders (relative paths under ``root``);
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
  for path in extras.get("folders", ()):
    (root / path).mkdir(parents=True, exist_ok=True)
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


def payloads(bases: list[Path], per_file: int = 48) -> list[bytes]:
  """The first bytes of every payload under ``bases`` (the user's folders to be erased), the
  metadata documents left out (they are alike for everyone)."""
  found: list[bytes] = []
  for base in bases:
    for current, _folders, files in walk(base):
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

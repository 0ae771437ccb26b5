"""Walking and removing a folder tree a submission made, the same way on every Python.

A submission can leave a chain of folders thousands of levels deep. Python 3.11's ``os.walk``
and ``shutil.rmtree`` recurse, and raise ``RecursionError`` past about a thousand levels; 3.12's
``os.walk`` and 3.13's ``rmtree`` do not. A grade that depends on which Python the instructor
runs would mean nothing, so the grader never uses either on a tree a submission wrote: ``walk``
goes down ``MAX_DEPTH`` levels and reports what lies deeper as a folder it cannot list (which
every caller already records as "unreadable": what it hides is never taken for nothing), and
``remove_tree`` removes any depth. Neither recurses, and neither follows a link.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Callable, Iterator, Optional

# Levels below the top that ``walk`` lists. ADK's own layouts go twelve deep (an artifact's
# version file); nothing a right answer writes comes near this.
MAX_DEPTH = 64


def walk(top: str | os.PathLike, onerror: Optional[Callable[[OSError], None]] = None,
         max_depth: int = MAX_DEPTH) -> Iterator[tuple[str, list[str], list[str]]]:
  """``os.walk(top, onerror=onerror)``, top-down: the same triples in the same order (a link
  to a folder is among the folders, never entered), and the caller may prune ``folders`` in
  place. Without recursion, and only ``max_depth`` levels down: each folder below that is
  passed to ``onerror`` as an ``OSError`` (``ELOOP``, its path as ``filename``) instead of
  being listed, as a folder that cannot be read would be."""
  pending: list[tuple[str, int]] = [(os.fspath(top), 0)]
  while pending:
    current, depth = pending.pop()
    if depth > max_depth:
      if onerror is not None:
        onerror(OSError(errno.ELOOP, f"more than {max_depth} levels deep: not listed",
                        current))
      continue
    try:
      with os.scandir(current) as listing:
        entries = list(listing)
    except OSError as error:
      if onerror is not None:
        onerror(error)
      continue
    folders: list[str] = []
    files: list[str] = []
    links: set[str] = set()
    for entry in entries:
      try:
        is_folder = entry.is_dir()  # as os.walk: a link to a folder is listed as a folder
      except OSError:
        is_folder = False
      (folders if is_folder else files).append(entry.name)
      if is_folder and entry.is_symlink():
        links.add(entry.name)
    yield current, folders, files
    for name in reversed(folders):  # depth first, in the order the caller left them
      if name not in links:
        pending.append((os.path.join(current, name), depth + 1))


def remove_tree(path: str | os.PathLike) -> None:
  """``shutil.rmtree(path, ignore_errors=True)`` at any depth and any length of path: what
  cannot be removed stays, silently; a link is removed, never followed.

  It holds one descriptor at a time (a chain deeper than the limit of open files is removed
  too) and goes back up through ``..``: for trees nothing else is changing, which is when the
  grader removes one (the submission's processes are gone)."""
  path = os.fspath(path)
  try:
    if not stat.S_ISDIR(os.lstat(path).st_mode):
      os.unlink(path)
      return
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
  except OSError:
    return
  names: list[str] = []  # the folders taken down from the top
  pending: list[list[str]] = [_unlink_all_but_folders(fd)]  # at each level, folders to do
  try:
    while True:
      if pending[-1]:
        child = pending[-1].pop()
        try:
          inner = os.open(child, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        except OSError:
          continue
        os.close(fd)
        fd = inner
        names.append(child)
        pending.append(_unlink_all_but_folders(fd))
        continue
      if not names:
        break
      parent = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
      os.close(fd)
      fd = parent
      pending.pop()
      try:
        os.rmdir(names.pop(), dir_fd=fd)
      except OSError:
        pass
  except OSError:
    pass
  finally:
    os.close(fd)
  try:
    os.rmdir(path)
  except OSError:
    pass


def _unlink_all_but_folders(fd: int) -> list[str]:
  """Unlink every entry of the folder ``fd`` that is not a folder; the names of its folders."""
  try:
    with os.scandir(fd) as listing:
      entries = list(listing)
  except OSError:
    return []
  folders = []
  for entry in entries:
    try:
      is_folder = entry.is_dir(follow_symlinks=False)
    except OSError:
      is_folder = False
    if is_folder:
      folders.append(entry.name)
      continue
    try:
      os.unlink(entry.name, dir_fd=fd)
    except OSError:
      pass
  return folders

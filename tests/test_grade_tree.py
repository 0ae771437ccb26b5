"""``adkcourse.grade.tree``: the grader's walk and removal of a tree a submission made give the
same answer on every Python (3.11's ``os.walk`` and ``shutil.rmtree`` raise RecursionError
past about a thousand levels; 3.12's walk and 3.13's rmtree do not)."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from adkcourse.grade.tree import MAX_DEPTH, remove_tree, walk


def _chain(top: Path, levels: int, name: str = "k") -> None:
  """``levels`` nested folders under ``top``, made through descriptors (no path gets long)."""
  fd = os.open(top, os.O_RDONLY)
  try:
    for _ in range(levels):
      os.mkdir(name, dir_fd=fd)
      inner = os.open(name, os.O_RDONLY, dir_fd=fd)
      os.close(fd)
      fd = inner
  finally:
    os.close(fd)


def _random_tree(top: Path, rng: random.Random, outside: Path) -> None:
  """Folders, files, links to folders (inside and outside), dangling links, up to 6 deep."""
  folders = [top]
  for _ in range(rng.randint(1, 60)):
    parent = rng.choice(folders)
    if len(parent.relative_to(top).parts) >= 6:
      continue
    name = f"{rng.choice('abcXYZ')}{rng.randint(0, 99)}"
    path = parent / name
    if path.exists() or path.is_symlink():
      continue
    kind = rng.random()
    if kind < 0.4:
      path.mkdir()
      folders.append(path)
    elif kind < 0.8:
      path.write_text(name)
    elif kind < 0.9:
      path.symlink_to(rng.choice([outside, folders[0], top / "nowhere"]))
    else:
      os.mkfifo(path)


@pytest.mark.parametrize("seed", range(25))
def test_walk_gives_what_os_walk_gives_on_trees_it_can_walk(tmp_path, seed):
  """Same triples, same order, links never entered, pruning in place respected."""
  rng = random.Random(seed)
  outside = tmp_path / "outside"
  (outside / "deep").mkdir(parents=True)
  top = tmp_path / "top"
  top.mkdir()
  _random_tree(top, rng, outside)
  prune = rng.choice(["", "a", "b", "X"])

  def listed(walker) -> list:
    found = []
    for current, folders, files in walker(top):
      folders[:] = sorted(name for name in folders if not name.startswith(prune or "\0"))
      found.append((current, list(folders), sorted(files)))
    return found

  assert listed(walk) == listed(os.walk)


@pytest.mark.parametrize("levels", [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 1_200])
def test_a_chain_of_any_depth_is_walked_to_the_limit_and_reported_below_it(tmp_path, levels):
  """No RecursionError at any depth; every folder down to ``MAX_DEPTH`` levels is listed, and
  the first one below is passed to ``onerror`` (once) as a folder it cannot list."""
  _chain(tmp_path, levels)
  errors: list[OSError] = []
  try:
    seen = [current for current, _, _ in walk(tmp_path, onerror=errors.append)]
  finally:
    remove_tree(tmp_path / "k")  # pytest's own clean-up is shutil.rmtree: 3.11's recurses
  assert len(seen) == min(levels, MAX_DEPTH) + 1  # the top and the levels below it
  if levels <= MAX_DEPTH:
    assert errors == []
  else:
    assert len(errors) == 1
    too_deep = Path(errors[0].filename)
    assert len(too_deep.relative_to(tmp_path).parts) == MAX_DEPTH + 1
    assert "levels deep" in errors[0].strerror


def test_a_folder_it_cannot_list_goes_to_onerror_as_os_walk_does(tmp_path):
  """A folder gone (or locked) by the time it is listed: ``onerror`` gets its error, the walk
  goes on with the rest."""
  def errors_of(walker) -> tuple[list, list]:
    for name in ("gone", "kept"):
      (tmp_path / name).mkdir(exist_ok=True)
    errors: list[OSError] = []
    seen = []
    for current, _folders, _files in walker(tmp_path, onerror=errors.append):
      seen.append(current)
      if current == str(tmp_path):
        (tmp_path / "gone").rmdir()  # listed by its parent, missing when entered
    return [e.filename for e in errors], seen

  assert errors_of(walk) == errors_of(os.walk) == ([str(tmp_path / "gone")],
                                                   [str(tmp_path), str(tmp_path / "kept")])


@pytest.mark.parametrize("levels", [1, 50, 3_000])  # 3,000: a path longer than PATH_MAX
def test_remove_tree_removes_any_depth_and_never_follows_a_link(tmp_path, levels):
  outside = tmp_path / "outside"
  outside.mkdir()
  (outside / "keep.txt").write_text("not theirs")
  doomed = tmp_path / "doomed"
  doomed.mkdir()
  _chain(doomed, levels)
  (doomed / "link").symlink_to(outside)
  (doomed / "file").write_text("x")
  remove_tree(doomed)
  assert not doomed.exists() and not doomed.is_symlink()
  assert (outside / "keep.txt").read_text() == "not theirs"


def test_remove_tree_on_a_link_removes_the_link_only(tmp_path):
  target = tmp_path / "target"
  target.mkdir()
  (target / "f").write_text("x")
  link = tmp_path / "link"
  link.symlink_to(target)
  remove_tree(link)
  assert not link.is_symlink() and (target / "f").exists()
  remove_tree(tmp_path / "missing")  # nothing there: nothing raised


def test_remove_tree_is_linear_in_a_wide_folder(tmp_path):
  """4,000 sibling folders and files: removed in one listing of each folder (a rescan per
  child would make a hostile layout quadratic)."""
  wide = tmp_path / "wide"
  wide.mkdir()
  for i in range(2_000):
    (wide / f"d{i}").mkdir()
    (wide / f"f{i}").write_text("")
  calls = []
  real = os.scandir

  def counting(where):
    calls.append(where)
    return real(where)

  os.scandir = counting
  try:
    remove_tree(wide)
  finally:
    os.scandir = real
  assert not wide.exists()
  assert len(calls) == 2_001  # the folder itself and each of its folders, once

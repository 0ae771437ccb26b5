"""What a sandboxed run leaves is handed to the judge whole or as an entry, never dropped:
a file beyond the byte cap, a link, a FIFO, or a file past the count cap is still seen to
exist (``_act.keep_leftovers`` for the sandbox's /tmp, ``_act.collect_files`` for the work
folder, ``_act.send_report`` for the bytes)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from adkcourse.grade._act import MAX_FILES, UNOBSERVED, collect_files, keep_leftovers, send_report


def _tree(folder: Path) -> dict[str, int]:
  return {str(p.relative_to(folder)): p.stat().st_size for p in folder.rglob("*") if p.is_file()}


def test_leftovers_beyond_the_cap_links_and_fifos_are_kept_as_entries(tmp_path):
  source, target = tmp_path / "tmp", tmp_path / "work" / "elsewhere-sandbox"
  (source / "deep").mkdir(parents=True)
  (source / "small.db").write_bytes(b"s" * 100)
  (source / "deep" / "padded.db").write_bytes(b"p" * 5000)  # beyond what is left of the cap
  os.symlink("/etc/passwd", source / "link")
  os.mkfifo(source / "fifo")
  keep_leftovers(source, target, cap=1000)
  assert _tree(target) == {"small.db": 100, "deep/padded.db": 0, "link": 0, "fifo": 0}
  assert (target / "small.db").read_bytes() == b"s" * 100
  assert not (target / "link").is_symlink()


@pytest.mark.parametrize("count", [MAX_FILES // 2 - 1, MAX_FILES // 2, MAX_FILES // 2 + 1,
                                   MAX_FILES + 7])
def test_past_the_count_cap_one_entry_stands_for_the_rest(tmp_path, count):
  source, target = tmp_path / "tmp", tmp_path / "kept"
  source.mkdir()
  for number in range(count):
    (source / f"f{number:05}").write_bytes(b"x")
  keep_leftovers(source, target, cap=10 ** 9)
  kept = _tree(target)
  if count <= MAX_FILES // 2:
    assert len(kept) == count and UNOBSERVED not in kept
  else:
    assert len(kept) == MAX_FILES // 2 + 1 and kept[UNOBSERVED] == 0


@pytest.mark.parametrize("count,cap", [(3, 10), (3, 10 ** 6), (MAX_FILES + 3, 10 ** 9),
                                       (MAX_FILES, 10 ** 9)])
def test_the_work_folder_is_returned_with_every_file_seen(tmp_path, count, cap):
  work = tmp_path / "work"
  (work / "world-0").mkdir(parents=True)
  for number in range(count):
    (work / "world-0" / f"f{number:05}").write_bytes(b"abcdef")
  files, notes = collect_files(work, cap)
  read, out = os.pipe()
  send_report(out, {"worlds": []}, files)
  with os.fdopen(read, "rb") as stream:
    header = json.loads(stream.readline())
    body = stream.read()
  sent = dict(header["files"])
  assert sum(sent.values()) == len(body) <= cap
  named = {name for name in sent if name != UNOBSERVED}
  assert len(named) == min(count, MAX_FILES)
  assert (UNOBSERVED in sent) == (count > MAX_FILES)
  full = [name for name, size in sent.items() if size == 6]
  assert len(full) == min(count, MAX_FILES, cap // 6)
  assert bool(notes) == (count > MAX_FILES or count * 6 > cap)

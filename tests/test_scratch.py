"""Scratch folders are the process's own: a Jupyter kernel that is shut down or restarted
removes the lesson folders it made (issue 14, item 7), and leaves other kernels' alone."""

from __future__ import annotations

import os
from pathlib import Path
import sys

import pytest
from jupyter_client.manager import start_new_kernel

from adkcourse import scratch

LESSON_CELL = ("from adkcourse.scratch import fresh_scratch\n"
               "folder = fresh_scratch('01_sessions_events_state')\n"
               "(folder / 'sessions.db').write_text('data')\n"
               "print(folder)")


def _kernel_env(tmp_path) -> dict[str, str]:
  env = {k: v for k, v in os.environ.items() if k not in (scratch.SCRATCH_VARIABLE,
                                                          scratch.KEEP_VARIABLE)}
  env["TMPDIR"] = str(tmp_path)  # the default root becomes tmp_path/adkcourse
  return env


def _run(client, code: str) -> str:
  out: list[str] = []
  reply = client.execute_interactive(
      code, timeout=60, output_hook=lambda m: out.append(m["content"].get("text", "")))
  assert reply["content"]["status"] == "ok", reply["content"]
  return "".join(out).strip()


@pytest.mark.parametrize("how", ["shutdown", "restart"])
def test_a_kernel_removes_its_scratch_folder_when_it_stops(tmp_path, how):
  manager, client = start_new_kernel(kernel_name="python3", env=_kernel_env(tmp_path))
  try:
    printed = _run(client, LESSON_CELL)
    assert printed == str(tmp_path / "adkcourse" / "01_sessions_events_state")
    assert (tmp_path / "adkcourse" / "01_sessions_events_state" / "sessions.db").exists()
    if how == "restart":
      manager.restart_kernel(now=False)
      assert not (tmp_path / "adkcourse" / "01_sessions_events_state").exists()  # exit hook
      assert _gone(tmp_path / "adkcourse")  # and the emptied root, by the kernel's reaper
  finally:
    client.stop_channels()
    manager.shutdown_kernel(now=False)
  assert _gone(tmp_path / "adkcourse")


def test_only_folders_still_owned_are_removed(tmp_path, monkeypatch):
  monkeypatch.setattr(scratch, "_OWNED", {})  # not the folders earlier tests of this run made
  monkeypatch.setenv(scratch.SCRATCH_VARIABLE, str(tmp_path / "root"))
  monkeypatch.delenv(scratch.KEEP_VARIABLE, raising=False)
  mine = scratch.fresh_scratch("mine")
  theirs = scratch.fresh_scratch("theirs")
  (theirs / "x").write_text("x")
  theirs_again = scratch.scratch_root() / "theirs"
  os.rename(theirs, tmp_path / "moved")  # another kernel ran the same lesson since:
  theirs_again.mkdir()                   # a new folder under the same name
  assert scratch.remove_owned_scratch() == [mine]
  assert not mine.exists() and theirs_again.exists()
  assert (tmp_path / "root").exists()  # a configured root is never removed


def test_keep_variable_keeps_the_folders(tmp_path, monkeypatch):
  monkeypatch.setattr(scratch, "_OWNED", {})
  monkeypatch.setenv(scratch.SCRATCH_VARIABLE, str(tmp_path / "root"))
  monkeypatch.setenv(scratch.KEEP_VARIABLE, "1")
  folder = scratch.fresh_scratch("kept")
  assert scratch.remove_owned_scratch() == [] and folder.exists()
  monkeypatch.delenv(scratch.KEEP_VARIABLE)
  scratch._OWNED.clear()  # noqa: SLF001 - leave nothing for this test process's exit hook


POSTGRES_CELL = ("from adkcourse.postgres import postgres_server\n"
                 "server = postgres_server()\n"
                 "print(server.data_dir)")


def _gone(path, deadline_seconds: float = 120.0) -> bool:
  """Wait until ``path`` is gone: the watchers run once the kernel has ended (the deadline only
  keeps a broken watcher from hanging the test)."""
  import time
  deadline = time.monotonic() + deadline_seconds
  while path.exists() and time.monotonic() < deadline:
    time.sleep(0.2)
  return not path.exists()


@pytest.mark.parametrize("how", ["restart", "kill"])
def test_a_kernel_that_ends_without_its_exit_hooks_leaves_nothing(how):
  """Restart Kernel with an embedded PostgreSQL running: ipykernel first stops the kernel's
  child processes (the server), then jupyter_client's SIGTERM can end the kernel before its
  exit hooks ran; a kernel killed outright runs none (issue 27: 48 MB were left). The
  watchers the kernel started remove its scratch folders and its server's data folder."""
  # Not pytest's tmp_path: as root the embedded server runs as another user, who cannot reach
  # pytest's private (0700) folders; a folder in the system's temporary folder, as lessons use.
  import shutil
  import tempfile
  tmp_path = Path(tempfile.mkdtemp(prefix="reaper-test-"))
  tmp_path.chmod(0o711)
  env = _kernel_env(tmp_path)
  env.pop("ADKCOURSE_POSTGRES_URL", None)  # the kernel starts its own embedded server
  env.pop("XDG_RUNTIME_DIR", None)
  manager, client = start_new_kernel(kernel_name="python3", env=env)
  try:
    _run(client, LESSON_CELL)
    data_dir = _run(client, POSTGRES_CELL).splitlines()[-1]
    assert (tmp_path / "adkcourse" / "01_sessions_events_state" / "sessions.db").exists()
    assert os.path.exists(data_dir) and data_dir.startswith(str(tmp_path / "adkcourse"))
    if how == "restart":
      manager.restart_kernel(now=False)
    else:
      manager.provisioner.process.kill()  # SIGKILL: no exit hook runs
      manager.provisioner.process.wait()
    assert _gone(tmp_path / "adkcourse"), sorted(
        str(p.relative_to(tmp_path)) for p in (tmp_path / "adkcourse").rglob("*"))[:20]
  finally:
    client.stop_channels()
    manager.shutdown_kernel(now=True)
    shutil.rmtree(tmp_path, ignore_errors=True)

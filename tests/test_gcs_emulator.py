"""adkcourse.gcs_emulator: a local GCS that serves every call ADK 2.13's GcsArtifactService makes,
on a free port, with its data where it is told, and nothing left running afterwards."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from google.adk.artifacts import GcsArtifactService
from google.genai import types

from adkcourse.gcs_emulator import EMULATOR_VARIABLE, running_emulators, start_emulator

ROOT = Path(__file__).resolve().parent.parent
WHERE = dict(app_name="cafe_team", user_id="ana", session_id="visit-1")


def _port_open(url: str) -> bool:
  host, port = url.removeprefix("http://").split(":")
  with socket.socket() as probe:
    probe.settimeout(2)
    return probe.connect_ex((host, int(port))) == 0


async def test_every_call_of_gcs_artifact_service_works(tmp_path):
  with start_emulator("cafe-test", data_dir=tmp_path / "gcs") as gcs:
    service = GcsArtifactService(gcs.bucket, **gcs.client_kwargs())
    assert await service.save_artifact(**WHERE, filename="receipt.txt",
                                       artifact=types.Part.from_text(text="latte")) == 0
    photo = types.Part.from_bytes(data=b"\x89PNG\x00\xff", mime_type="image/png")
    assert await service.save_artifact(**WHERE, filename="receipt.txt", artifact=photo,
                                       custom_metadata={"by": "barista"}) == 1
    assert await service.save_artifact(**WHERE, filename="user:card.txt",
                                       artifact=types.Part.from_text(text="1 stamps")) == 0
    assert await service.list_versions(**WHERE, filename="receipt.txt") == [0, 1]
    assert await service.list_artifact_keys(**WHERE) == ["receipt.txt", "user:card.txt"]
    other = {**WHERE, "session_id": "visit-2"}
    assert await service.list_artifact_keys(**other) == ["user:card.txt"]
    assert (await service.load_artifact(**other, filename="user:card.txt")).text == "1 stamps"
    assert (await service.load_artifact(**WHERE, filename="receipt.txt", version=0)).text == "latte"
    latest = await service.load_artifact(**WHERE, filename="receipt.txt")
    assert (latest.inline_data.data, latest.inline_data.mime_type) == (b"\x89PNG\x00\xff",
                                                                       "image/png")
    version = await service.get_artifact_version(**WHERE, filename="receipt.txt")
    assert (version.version, version.custom_metadata, version.mime_type) == (
        1, {"by": "barista"}, "image/png")
    await service.delete_artifact(**WHERE, filename="receipt.txt")
    assert await service.list_artifact_keys(**WHERE) == ["user:card.txt"]
    assert await service.load_artifact(**WHERE, filename="receipt.txt") is None
    stored = [str(p) for p in gcs.stored_files()]
    assert any(p.endswith("cafe-test/cafe_team/ana/user/user:card.txt/0") for p in stored), stored
    assert all((tmp_path / "gcs" / p).is_file() for p in stored)
  assert not gcs.running


def test_stop_frees_the_port_and_leaves_no_thread(tmp_path):
  before = set(threading.enumerate())
  gcs = start_emulator(data_dir=tmp_path)
  assert _port_open(gcs.url) and gcs in running_emulators()
  assert gcs.environment() == {EMULATOR_VARIABLE: gcs.url}
  gcs.stop()
  gcs.stop()   # idempotent
  assert not _port_open(gcs.url)
  assert gcs not in running_emulators()
  assert set(threading.enumerate()) <= before


def test_two_emulators_get_two_ports(tmp_path):
  with start_emulator(data_dir=tmp_path / "a") as one, start_emulator(data_dir=tmp_path / "b") as two:
    assert one.url != two.url


def test_a_process_that_never_stops_it_exits_and_leaves_nothing_listening(tmp_path):
  """The server is a daemon thread: a kernel that forgets stop() still exits, port freed."""
  script = textwrap.dedent(f"""
      import sys
      sys.path.insert(0, {str(ROOT)!r})
      from adkcourse.gcs_emulator import start_emulator
      print(start_emulator(data_dir={str(tmp_path)!r}).url, flush=True)
  """)
  done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                        timeout=60)
  assert done.returncode == 0, done.stderr[-2000:]
  url = done.stdout.strip().splitlines()[-1]
  assert url.startswith("http://127.0.0.1:") and not _port_open(url)


def test_default_data_folder_is_a_scratch_folder(monkeypatch, tmp_path):
  monkeypatch.setenv("ADKCOURSE_SCRATCH", str(tmp_path / "scratch"))
  with start_emulator(name="gcs_default") as gcs:
    assert gcs.data_dir == (tmp_path / "scratch" / "gcs_default").resolve()
    assert ROOT not in gcs.data_dir.parents

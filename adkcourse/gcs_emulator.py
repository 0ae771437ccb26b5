"""A local Google Cloud Storage for the lessons: ``gcp-storage-emulator`` (PyPI), in this process.

ADK's ``GcsArtifactService`` talks to GCS through the ``google-cloud-storage`` client, over
HTTP. The emulator answers that HTTP on 127.0.0.1, on a free port, and keeps the objects as
files in a scratch folder: no Docker, no cloud, no account. It runs in a daemon thread of the
process that starts it, so it cannot outlive that process (a kernel, a test run); ``stop()``
(or the ``with`` block, or the process's exit) shuts it down and frees the port.

    with start_emulator() as gcs:
        service = GcsArtifactService(gcs.bucket, **gcs.client_kwargs())
        ...

For ADK's command line (``--artifact_service_uri gs://BUCKET``), which builds its own client,
point the client at the emulator with the environment: ``gcs.environment()`` gives
``STORAGE_EMULATOR_HOST``, which google-cloud-storage reads (and then uses no credentials).

Why this emulator: it is pure Python (one wheel for every platform, no binary to run) and
serves every call ``GcsArtifactService`` makes in ADK 2.13 (upload with metadata, download,
list by prefix, delete); ``tests/test_gcs_emulator.py`` checks each of them.
"""

from __future__ import annotations

import atexit
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .scratch import fresh_scratch

DEFAULT_BUCKET = "adkcourse-artifacts"
EMULATOR_VARIABLE = "STORAGE_EMULATOR_HOST"
_RUNNING: list["GcsEmulator"] = []
_LOCK = threading.Lock()


@dataclass
class GcsEmulator:
  """A running emulator: its URL, its bucket and the folder its objects are kept in."""

  url: str
  bucket: str
  data_dir: Path
  _server: Any = field(default=None, repr=False)

  @property
  def running(self) -> bool:
    return self._server is not None

  def client_kwargs(self) -> dict[str, Any]:
    """What ``GcsArtifactService(bucket, **kwargs)`` passes to ``storage.Client``: this
    endpoint, no credentials (the emulator checks none), a placeholder project."""
    from google.auth.credentials import AnonymousCredentials

    return {"project": "local-emulator", "credentials": AnonymousCredentials(),
            "client_options": {"api_endpoint": self.url}}

  def environment(self) -> dict[str, str]:
    """The variable that sends any google-cloud-storage client (ADK's CLI) to this emulator."""
    return {EMULATOR_VARIABLE: self.url}

  def stored_files(self) -> list[Path]:
    """Every file the emulator keeps, relative to its data folder (objects and its metadata)."""
    return sorted(p.relative_to(self.data_dir) for p in self.data_dir.rglob("*") if p.is_file())

  def stop(self) -> None:
    """Shut the server down and free the port (idempotent)."""
    server, self._server = self._server, None
    if server is not None:
      server.stop()
      with _LOCK:
        if self in _RUNNING:
          _RUNNING.remove(self)

  def __enter__(self) -> "GcsEmulator":
    return self

  def __exit__(self, *exc: object) -> None:
    self.stop()


def start_emulator(bucket: str = DEFAULT_BUCKET, *, data_dir: Optional[Path] = None,
                   name: str = "gcs_emulator") -> GcsEmulator:
  """Start ``gcp-storage-emulator`` on 127.0.0.1 (a free port) with ``bucket`` created; its
  data goes to ``data_dir`` (default: a fresh scratch folder called ``name``)."""
  from gcp_storage_emulator.server import create_server

  logging.getLogger("gcp_storage_emulator").setLevel(logging.WARNING)
  folder = Path(data_dir) if data_dir is not None else fresh_scratch(name)
  folder.mkdir(parents=True, exist_ok=True)
  server = create_server("127.0.0.1", 0, in_memory=False, default_bucket=bucket,
                         data_dir=str(folder.resolve()))
  server._api.daemon = True  # never keeps the process alive, never outlives it
  server.start()             # returns once the socket is bound (the emulator waits for it)
  host, port = server._api._httpd.server_address[:2]
  emulator = GcsEmulator(url=f"http://{host}:{port}", bucket=bucket, data_dir=folder.resolve(),
                         _server=server)
  with _LOCK:
    _RUNNING.append(emulator)
  return emulator


def running_emulators() -> list[GcsEmulator]:
  """The emulators this process started and has not stopped."""
  with _LOCK:
    return list(_RUNNING)


@atexit.register
def stop_all() -> None:
  """Stop every emulator this process started (also run at exit)."""
  for emulator in running_emulators():
    emulator.stop()

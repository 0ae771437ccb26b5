"""Trusted services a world lends the code it runs: a memory service, a model.

Some outcomes live in objects, not files: what an ``InMemoryMemoryService`` holds, which
requests a model received. Read from the process that ran the submission, they would be that
process's word, which a submission can forge. So the service itself lives with the judge: the
acting code gets a *channel* to it (``channel.call(method, params)``), and the judge observes
the service directly (``server.observe()``), never a report about it.

A server is any object with ``handle(method, params) -> JSON`` (it validates ``params``: they
come from the code being graded) and ``observe() -> {key: JSON value}``. In one process
(the students' self-check, the reference's run) ``LocalChannel`` calls it directly, through a
JSON round trip so that both sides behave the same; across a sandbox ``SocketServer`` serves
it on a unix socket in a folder the sandbox sees, and ``SocketChannel`` is the client.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import threading
from pathlib import Path
from typing import Any, Optional

MAX_FRAME = 8 * 1024 * 1024  # bytes of one request or answer
MAX_CALLS = 20_000  # calls one server answers (a submission may not keep the judge busy)


class ChannelError(RuntimeError):
  """The service refused a call, or could not be reached."""


def _answer(server: Any, lock: threading.Lock, data: bytes, counter: list[int]) -> bytes:
  counter[0] += 1
  if counter[0] > MAX_CALLS:
    return json.dumps({"error": f"more than {MAX_CALLS} calls"}).encode()
  try:
    request = json.loads(data)
    if not isinstance(request, dict) or type(request.get("method")) is not str \
        or not isinstance(request.get("params"), dict):
      raise ValueError("a request is {method: str, params: dict}")
    with lock:
      result = server.handle(request["method"], request["params"])
    return json.dumps({"result": result}).encode()
  except Exception as error:  # noqa: BLE001 - the caller's problem, said to the caller
    return json.dumps({"error": f"{type(error).__name__}: {error}"[:2000]}).encode()


def _result(data: bytes) -> Any:
  answer = json.loads(data)
  if "error" in answer:
    raise ChannelError(answer["error"])
  return answer["result"]


class LocalChannel:
  """A server in this process, called through JSON as a socket would carry it."""

  def __init__(self, server: Any):
    self.server = server
    self._lock = threading.Lock()
    self._counter = [0]

  def call(self, method: str, params: dict) -> Any:
    data = json.dumps({"method": method, "params": params}).encode()
    if len(data) > MAX_FRAME:
      raise ChannelError("the request is too large")
    return _result(_answer(self.server, self._lock, data, self._counter))


def _read_frame(sock: socket.socket) -> Optional[bytes]:
  header = _read_exactly(sock, 4)
  if header is None:
    return None
  (size,) = struct.unpack(">I", header)
  if size > MAX_FRAME:
    raise ChannelError("frame too large")
  return _read_exactly(sock, size)


def _read_exactly(sock: socket.socket, size: int) -> Optional[bytes]:
  chunks, left = [], size
  while left:
    chunk = sock.recv(min(left, 1 << 20))
    if not chunk:
      return None
    chunks.append(chunk)
    left -= len(chunk)
  return b"".join(chunks)


def _write_frame(sock: socket.socket, data: bytes) -> None:
  sock.sendall(struct.pack(">I", len(data)) + data)


class SocketServer:
  """Serve ``server`` on a unix socket at ``path`` (one thread per connection) until
  ``stop()``; the socket is world-writable (a sandbox's unprivileged user connects)."""

  def __init__(self, server: Any, path: Path):
    self.server, self.path = server, Path(path)
    self._lock = threading.Lock()
    self._counter = [0]
    self._stopped = threading.Event()
    self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    self._listener.bind(str(self.path))
    os.chmod(self.path, 0o777)
    self._listener.listen(16)
    self._threads: list[threading.Thread] = []
    self._connections: list[socket.socket] = []
    self._accepting = threading.Thread(target=self._accept, daemon=True)
    self._accepting.start()

  def _accept(self) -> None:
    while not self._stopped.is_set():
      try:
        connection, _ = self._listener.accept()
      except OSError:
        return
      if len(self._connections) >= 64:
        connection.close()
        continue
      self._connections.append(connection)
      thread = threading.Thread(target=self._serve, args=(connection,), daemon=True)
      self._threads.append(thread)
      thread.start()

  def _serve(self, connection: socket.socket) -> None:
    try:
      while not self._stopped.is_set():
        data = _read_frame(connection)
        if data is None:
          return
        _write_frame(connection, _answer(self.server, self._lock, data, self._counter))
    except (OSError, ChannelError, struct.error):
      return
    finally:
      connection.close()

  def stop(self) -> None:
    """Stop serving: afterwards nothing can change the server's state any more."""
    self._stopped.set()
    try:
      self._listener.shutdown(socket.SHUT_RDWR)
    except OSError:
      pass
    self._listener.close()
    for connection in list(self._connections):
      try:
        connection.shutdown(socket.SHUT_RDWR)
      except OSError:
        pass
    for thread in self._threads:
      thread.join(timeout=5)
    with self._lock:  # a call being answered finishes before the judge observes
      pass
    try:
      self.path.unlink()
    except OSError:
      pass


class SocketChannel:
  """The acting side of a ``SocketServer``: one connection, one call at a time."""

  def __init__(self, path: str):
    self.path = path
    self._sock: Optional[socket.socket] = None
    self._lock = threading.Lock()

  def call(self, method: str, params: dict) -> Any:
    data = json.dumps({"method": method, "params": params}).encode()
    if len(data) > MAX_FRAME:
      raise ChannelError("the request is too large")
    with self._lock:
      try:
        if self._sock is None:
          self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
          self._sock.connect(self.path)
        _write_frame(self._sock, data)
        answer = _read_frame(self._sock)
      except OSError as error:
        self._sock = None
        raise ChannelError(f"the service could not be reached ({error})") from None
    if answer is None:
      self._sock = None
      raise ChannelError("the service closed the connection")
    return _result(answer)

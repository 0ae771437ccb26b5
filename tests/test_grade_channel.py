"""Trusted services across the sandbox (adkcourse.grade.checks._channel): what the acting
side can ask, and that the judge's own object is what answers and what is observed."""

from __future__ import annotations

import json
import socket
import struct

import pytest

from adkcourse.grade.checks import _channel
from adkcourse.grade.checks._channel import (ChannelError, LocalChannel, SocketChannel,
                                             SocketServer)


class Counter:
  """A server: counts what it was asked, refuses what it does not know."""

  def __init__(self):
    self.calls = []

  def handle(self, method, params):
    if method != "add":
      raise ValueError(f"no method {method!r}")
    self.calls.append(params)
    return {"total": sum(p["n"] for p in self.calls)}

  def observe(self):
    return {("calls",): len(self.calls)}


def test_a_local_channel_goes_through_json_like_a_socket():
  server = Counter()
  channel = LocalChannel(server)
  assert channel.call("add", {"n": 2}) == {"total": 2}
  assert channel.call("add", {"n": 3}) == {"total": 5}
  with pytest.raises(ChannelError, match="no method 'drop'"):
    channel.call("drop", {})
  with pytest.raises(TypeError):  # not JSON: refused before it reaches the server
    channel.call("add", {"n": object()})
  assert server.observe() == {("calls",): 2}


def test_a_socket_channel_reaches_the_same_object_and_stops_with_it(tmp_path):
  server = Counter()
  served = SocketServer(server, tmp_path / "w0-counter.sock")
  try:
    first, second = SocketChannel(str(served.path)), SocketChannel(str(served.path))
    assert first.call("add", {"n": 1}) == {"total": 1}
    assert second.call("add", {"n": 10}) == {"total": 11}
    with pytest.raises(ChannelError, match="no method"):
      first.call("steal", {})
  finally:
    served.stop()
  assert server.observe() == {("calls",): 2}
  with pytest.raises(ChannelError):  # stopped: nothing can change the server any more
    SocketChannel(str(served.path)).call("add", {"n": 5})
  assert server.observe() == {("calls",): 2}


def test_malformed_and_oversized_requests_are_refused_not_crashing_the_server(tmp_path):
  server = Counter()
  served = SocketServer(server, tmp_path / "s.sock")
  try:
    raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    raw.connect(str(served.path))
    for body in (b"not json", json.dumps([1, 2]).encode(), json.dumps({"method": 1}).encode()):
      raw.sendall(struct.pack(">I", len(body)) + body)
      size = struct.unpack(">I", raw.recv(4))[0]
      assert "error" in json.loads(raw.recv(size))
    raw.sendall(struct.pack(">I", _channel.MAX_FRAME + 1))  # too large: the connection goes
    assert raw.recv(4) == b""
    raw.close()
    assert SocketChannel(str(served.path)).call("add", {"n": 4}) == {"total": 4}
  finally:
    served.stop()


def test_a_server_answers_a_bounded_number_of_calls(monkeypatch):
  monkeypatch.setattr(_channel, "MAX_CALLS", 3)
  channel = LocalChannel(Counter())
  for n in range(3):
    channel.call("add", {"n": n})
  with pytest.raises(ChannelError, match="more than 3 calls"):
    channel.call("add", {"n": 9})

"""The sandbox's lock-down (adkcourse.grade.seccomp), tried in a child process: the grader's
keys are out of reach, sockets other than unix ones cannot be made, and what the grading needs
(an event loop, unix sockets, subprocesses) still works."""

from __future__ import annotations

import ctypes
import json
import platform
import subprocess
import sys

import pytest

from adkcourse.grade import seccomp

pytestmark = pytest.mark.skipif(platform.machine() not in seccomp.ARCHES,
                                reason=f"no seccomp filter for {platform.machine()}")

CHILD = r"""
import asyncio, ctypes, json, socket, subprocess, sys
from adkcourse.grade import seccomp
key = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
numbers = seccomp.ARCHES[seccomp.platform.machine()][1]
seccomp.lock_down()
found = {}
buffer = ctypes.create_string_buffer(64)
found["read_key"] = libc.syscall(numbers["keyctl"], 11, key, buffer, 64)  # KEYCTL_READ
found["key_text"] = buffer.value.decode()
found["add_key"] = libc.syscall(numbers["add_key"], b"user", b"x", b"y", 1, -3)
for family in ("AF_INET", "AF_INET6", "AF_NETLINK", "AF_VSOCK", "AF_PACKET", "AF_UNIX"):
    try:
        kind = socket.SOCK_RAW if family in ("AF_NETLINK", "AF_PACKET") else socket.SOCK_STREAM
        socket.socket(getattr(socket, family), kind).close()
        found[family] = "created"
    except OSError as error:
        found[family] = error.errno
a, b = socket.socketpair()
found["socketpair"] = "ok"
async def tick():
    await asyncio.sleep(0.01)
    return "ok"
found["asyncio"] = asyncio.run(tick())
found["subprocess"] = subprocess.run(["true"]).returncode
print(json.dumps(found))
"""


def test_lock_down_closes_the_keyring_and_every_socket_family_but_unix():
  libc = ctypes.CDLL(None, use_errno=True)
  numbers = seccomp.ARCHES[platform.machine()][1]
  secret = b"grader-key-do-not-read"
  key = libc.syscall(numbers["add_key"], b"user", b"adkcourse-test", secret, len(secret), -3)
  assert key > 0, "could not plant a key in this process's session keyring"
  try:
    buffer = ctypes.create_string_buffer(64)
    assert libc.syscall(numbers["keyctl"], 11, key, buffer, 64) == len(secret)  # readable here
    done = subprocess.run([sys.executable, "-c", CHILD, str(key)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
  finally:
    libc.syscall(numbers["keyctl"], 3, key)  # KEYCTL_REVOKE
  assert found["read_key"] == -1 and found["key_text"] == ""
  assert found["add_key"] == -1
  import errno
  for family in ("AF_INET", "AF_INET6", "AF_NETLINK", "AF_VSOCK", "AF_PACKET"):
    assert found[family] == errno.EAFNOSUPPORT, (family, found[family])
  assert found["AF_UNIX"] == "created" and found["socketpair"] == "ok"
  assert found["asyncio"] == "ok" and found["subprocess"] == 0


def test_the_filter_checks_the_architecture_first():
  code = seccomp.program(platform.machine())
  import struct
  first = [struct.unpack("HBBI", insn) for insn in code[:3]]
  assert first[0] == (seccomp.LD_W_ABS, 0, 0, seccomp.ARCH)
  assert first[2][3] == seccomp.SECCOMP_RET_KILL_PROCESS
  with pytest.raises(seccomp.LockDownUnavailable):
    seccomp.program("sparc64")

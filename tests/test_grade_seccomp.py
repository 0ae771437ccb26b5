"""The sandbox's lock-down (adkcourse.grade.seccomp), tried in a child process: the grader's
keys are out of reach, sockets other than unix ones cannot be made, System V IPC objects and
POSIX message queues (which would outlive the submission) cannot be made, and what the grading
needs (an event loop, unix sockets, subprocesses, SQLite, threads) still works. The filter's
numbers are checked against the kernel headers where this machine has them."""

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


IPC_CHILD = r"""
import ctypes, json, sys
from adkcourse.grade import seccomp
libc = ctypes.CDLL(None, use_errno=True)
numbers = seccomp.ARCHES[seccomp.platform.machine()][1]
IPC_PRIVATE, IPC_CREAT, IPC_RMID, IPC_STAT = 0, 0o1000, 0, 2
found = {}
# before the lock-down: the calls are real (a segment is made, and removed)
made = libc.shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0o600)
found["shmget_before"] = made >= 0
if made >= 0:
    found["removed_before"] = libc.shmctl(made, IPC_RMID, None) == 0
seccomp.lock_down()
def denied(result, remove=None):
    error = ctypes.get_errno()
    if result >= 0 and remove:  # not denied (the test fails): nothing left behind, still
        remove(result)
    return [result, error]
# the glibc wrappers, as a submission would call them through ctypes
found["shmget"] = denied(libc.shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0o600),
                         lambda i: libc.shmctl(i, IPC_RMID, None))
found["msgget"] = denied(libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600),
                         lambda i: libc.msgctl(i, IPC_RMID, None))
found["semget"] = denied(libc.semget(IPC_PRIVATE, 1, IPC_CREAT | 0o600),
                         lambda i: libc.semctl(i, 0, IPC_RMID))
# every number, straight through syscall(2), with arguments that would harm nothing
harmless = {"shmget": (IPC_PRIVATE, 4096, IPC_CREAT | 0o600), "shmat": (-1, None, 0),
            "shmctl": (-1, IPC_STAT, None), "shmdt": (None,), "msgget": (IPC_PRIVATE, 0o600),
            "msgsnd": (-1, None, 0, 0), "msgrcv": (-1, None, 0, 0, 0),
            "msgctl": (-1, IPC_STAT, None), "semget": (IPC_PRIVATE, 1, 0o600),
            "semop": (-1, None, 0), "semtimedop": (-1, None, 0, None),
            "semctl": (-1, 0, IPC_STAT, None),
            "mq_open": (b"adkcourse-test", 0o100 | 2, 0o600, None),  # O_CREAT | O_RDWR
            "mq_unlink": (b"adkcourse-test",), "mq_timedsend": (-1, None, 0, 0, None),
            "mq_timedreceive": (-1, None, 0, None, None), "mq_notify": (-1, None),
            "mq_getsetattr": (-1, None, None)}
removers = {"shmget": lambda i: libc.shmctl(i, IPC_RMID, None),
            "msgget": lambda i: libc.msgctl(i, IPC_RMID, None),
            "semget": lambda i: libc.semctl(i, 0, IPC_RMID),
            "mq_open": lambda fd: libc.syscall(numbers["mq_unlink"], b"adkcourse-test")}
for name, args in harmless.items():
    found["syscall " + name] = denied(libc.syscall(numbers[name], *args), removers.get(name))
print(json.dumps(found))
"""


def test_lock_down_denies_system_v_ipc_and_posix_message_queues():
  """A shared memory segment, a message queue or a semaphore set belongs to the kernel, not
  to a process: made by a submission, it would outlive it (a place for a copy of erased
  data no judge looks at). Under the lock-down every such call fails with EPERM."""
  import errno

  done = subprocess.run([sys.executable, "-c", IPC_CHILD], capture_output=True, text=True,
                        timeout=60)
  assert done.returncode == 0, done.stderr
  found = json.loads(done.stdout)
  assert found["shmget_before"] and found["removed_before"]  # the call is real without it
  for name in ("shmget", "msgget", "semget"):
    assert found[name] == [-1, errno.EPERM], (name, found[name])
  for name in seccomp.SYSV_IPC + seccomp.POSIX_MQUEUE:
    assert found["syscall " + name] == [-1, errno.EPERM], (name, found["syscall " + name])


PROGRAM = r"""
import asyncio, json, multiprocessing, os, sqlite3, subprocess, sys, tempfile, threading
from concurrent.futures import ThreadPoolExecutor
from adkcourse.grade import seccomp
seccomp.lock_down()
found = {}
folder = tempfile.mkdtemp()
db = os.path.join(folder, "t.db")
with sqlite3.connect(db) as c:  # WAL: its -shm index is a mapped file, not System V memory
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("CREATE TABLE t (x)")
    c.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(1000)])
    c.execute("DELETE FROM t WHERE x % 2")
with sqlite3.connect(db) as c:
    c.execute("VACUUM")
    found["sqlite"] = c.execute("SELECT count(*) FROM t").fetchone()[0]
async def main():
    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(2) as pool:
        parts = await asyncio.gather(*(loop.run_in_executor(pool, sum, range(n))
                                       for n in (10, 100)))
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", "print(6 * 7)",
                                                stdout=asyncio.subprocess.PIPE)
    out, _ = await proc.communicate()
    return parts, out.decode().strip()
found["asyncio"] = asyncio.run(main())
lock = multiprocessing.Lock()  # a POSIX semaphore (in /dev/shm), not a System V one
with lock:
    found["lock"] = "ok"
thread = threading.Thread(target=lambda: found.setdefault("thread", "ok"))
thread.start(); thread.join()
found["subprocess"] = subprocess.run(["true"]).returncode
print(json.dumps(found))
"""


def test_a_normal_python_sqlite_asyncio_program_runs_under_the_lock_down():
  done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                        timeout=60)
  assert done.returncode == 0, done.stderr
  found = json.loads(done.stdout)
  assert found == {"sqlite": 500, "asyncio": [[45, 4950], "42"], "lock": "ok", "thread": "ok",
                   "subprocess": 0}


HEADERS = {"x86_64": ["/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
                      "/usr/include/asm/unistd_64.h"],
           "aarch64": ["/usr/include/asm-generic/unistd.h"]}


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHES))
def test_the_filters_numbers_are_the_kernels(machine):
  """Each architecture's numbers, as its kernel headers define them (where this machine has
  them: linux-libc-dev ships asm-generic/unistd.h, aarch64's table, on every architecture)."""
  import re
  from pathlib import Path

  header = next((Path(h) for h in HEADERS[machine] if Path(h).is_file()), None)
  if header is None:
    pytest.skip(f"no kernel header with {machine}'s system call numbers here")
  defined = {m.group(1): int(m.group(2)) for m in
             re.finditer(r"#define __NR_(\w+)\s+(\d+)\b", header.read_text())}
  numbers = seccomp.ARCHES[machine][1]
  for name in seccomp.DENIED + ("socket", "socketpair"):
    assert defined.get(name) == numbers[name], (machine, name)


PTRACE_CHILD = r"""
import ctypes, json, os, signal, subprocess, sys
from adkcourse.grade import seccomp
libc = ctypes.CDLL(None, use_errno=True)
numbers = seccomp.ARCHES[seccomp.platform.machine()][1]
sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
def attach():
    result = libc.ptrace(16, sleeper.pid, None, None)  # PTRACE_ATTACH
    error = ctypes.get_errno()
    if result == 0:
        os.waitpid(sleeper.pid, 0)
        libc.ptrace(17, sleeper.pid, None, 0)  # PTRACE_DETACH
    return [result, error]
found = {"before": attach()}
seccomp.lock_down()
found["after"] = attach()
for name in ("process_vm_readv", "process_vm_writev", "pidfd_getfd"):
    result = libc.syscall(numbers[name], sleeper.pid, None, 0, None, 0, 0)
    found[name] = [result, ctypes.get_errno()]
sleeper.kill()
print(json.dumps(found))
"""


def test_lock_down_denies_reaching_into_another_process():
  """The sandbox's supervisor runs as the submission's user: a submission that traced it (the
  red team's did, and survived its kills and rewrote its record) or read its memory would
  forge what it reports. Under the lock-down ptrace, process_vm_readv/writev and pidfd_getfd
  fail with EPERM; before it, attaching to a process of the same user works here."""
  import errno

  done = subprocess.run([sys.executable, "-c", PTRACE_CHILD], capture_output=True, text=True,
                        timeout=60)
  assert done.returncode == 0, done.stderr
  found = json.loads(done.stdout)
  assert found["before"] == [0, 0] or found["before"][1] == errno.EPERM, found
  assert found["after"] == [-1, errno.EPERM], found
  for name in ("process_vm_readv", "process_vm_writev", "pidfd_getfd"):
    assert found[name] == [-1, errno.EPERM], (name, found[name])

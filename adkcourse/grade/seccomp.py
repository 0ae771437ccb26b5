"""Two things the sandbox's namespaces do not close: the kernel keyring and socket families.

Namespaces give a submission its own processes, network and files, but not its own keys: a
process keeps the session keyring it inherited, so a submission started by the grader could
read (and change) every key reachable from the grader's session. And ``--unshare-net`` only
empties the network namespace: sockets of other families (``AF_VSOCK`` reaches the host of a
virtual machine, ``AF_NETLINK`` talks to the kernel) can still be created and bound.

``lock_down()``, called by the sandbox's first process before any student code exists:

1. joins a fresh, empty session keyring (``KEYCTL_JOIN_SESSION_KEYRING``): the grader's keys are
   no longer possessed, so no longer reachable;
2. installs a seccomp filter, inherited by every process started afterwards and impossible to
   remove, that fails ``keyctl``, ``add_key`` and ``request_key`` with ``EPERM``, fails
   ``socket`` and ``socketpair`` for every family but ``AF_UNIX`` (what the event loop, the
   grader's channels and PostgreSQL's socket need) with ``EAFNOSUPPORT``, fails io_uring (it
   can open sockets without the ``socket`` system call), fails System V IPC (shared memory
   segments, message queues and semaphore sets: ``shmget``, ``msgget``, ``semget`` and the
   calls using them) and POSIX message queues (``mq_open``...) with ``EPERM``, fails the calls
   that reach into another process (``ptrace``, ``process_vm_readv``/``writev``,
   ``pidfd_getfd``) with ``EPERM``, and kills the
   process on a system call made through another architecture's table (a 32-bit ``int 0x80``
   call would bypass the numbers checked here).

System V IPC objects and POSIX message queues belong to the kernel, not to a process or a
folder: one a submission makes outlives every process it started, unseen by the judge, where
a copy of data it should erase could wait. Without an IPC namespace of its own (the
unprivileged-user mode of ``gradescope``, where bubblewrap cannot run) nothing else would
remove them. Python, SQLite (its ``-shm`` file is a mapped file), asyncio and
``multiprocessing`` (POSIX semaphores live in ``/dev/shm``) use none of them. The numbers are
the kernel's (``asm/unistd_64.h`` for x86_64, ``asm-generic/unistd.h`` for aarch64).

Linux on x86_64 and aarch64 only; elsewhere ``lock_down`` raises ``LockDownUnavailable``.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import socket
import struct

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
KEYCTL_JOIN_SESSION_KEYRING = 1

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

# BPF opcodes
LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
RET_K = 0x06  # BPF_RET | BPF_K

# offsets in struct seccomp_data: int nr; u32 arch; u64 ip; u64 args[6]
NR, ARCH, ARG0 = 0, 4, 16

ARCHES = {
    # machine: (AUDIT_ARCH_*, syscall numbers, x32 bit or None)
    "x86_64": (0xC000003E, {"keyctl": 250, "add_key": 248, "request_key": 249, "socket": 41,
                            "socketpair": 53, "io_uring_setup": 425, "io_uring_enter": 426,
                            "io_uring_register": 427,
                            # System V IPC (asm/unistd_64.h)
                            "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67,
                            "semget": 64, "semop": 65, "semctl": 66, "semtimedop": 220,
                            "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71,
                            # POSIX message queues
                            "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242,
                            "mq_timedreceive": 243, "mq_notify": 244, "mq_getsetattr": 245,
                            # another process's memory and files
                            "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
                            "pidfd_getfd": 438},
               0x40000000),
    "aarch64": (0xC00000B7, {"keyctl": 219, "add_key": 217, "request_key": 218, "socket": 198,
                             "socketpair": 199, "io_uring_setup": 425, "io_uring_enter": 426,
                             "io_uring_register": 427,
                             # System V IPC (asm-generic/unistd.h)
                             "msgget": 186, "msgctl": 187, "msgrcv": 188, "msgsnd": 189,
                             "semget": 190, "semctl": 191, "semtimedop": 192, "semop": 193,
                             "shmget": 194, "shmctl": 195, "shmat": 196, "shmdt": 197,
                             # POSIX message queues
                             "mq_open": 180, "mq_unlink": 181, "mq_timedsend": 182,
                             "mq_timedreceive": 183, "mq_notify": 184, "mq_getsetattr": 185,
                             # another process's memory and files
                             "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271,
                             "pidfd_getfd": 438},
                None),
}
SYSV_IPC = ("shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl",
            "semget", "semop", "semtimedop", "semctl")
POSIX_MQUEUE = ("mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
                "mq_getsetattr")
# Reaching into another process: the sandbox's supervisor runs as the same user as the
# submission, and a submission that traced it could stop its kills or rewrite what it records
# (``_act`` also makes the supervisor undumpable, which closes /proc/PID/mem).
PROCESS_ACCESS = ("ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd")
DENIED = ("keyctl", "add_key", "request_key", "io_uring_setup", "io_uring_enter",
          "io_uring_register") + SYSV_IPC + POSIX_MQUEUE + PROCESS_ACCESS
ALLOWED_FAMILIES = (socket.AF_UNIX,)


class LockDownUnavailable(OSError):
  """This machine's architecture or kernel does not let the sandbox lock itself down."""


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
  return struct.pack("HBBI", code, jt, jf, k)


def program(machine: str) -> list[bytes]:
  """The filter for ``machine`` (``platform.machine()``), as BPF instructions."""
  if machine not in ARCHES:
    raise LockDownUnavailable(f"no seccomp filter for the {machine} architecture")
  audit_arch, numbers, x32 = ARCHES[machine]
  deny = SECCOMP_RET_ERRNO | errno.EPERM
  no_family = SECCOMP_RET_ERRNO | errno.EAFNOSUPPORT
  code: list[bytes] = [
      _insn(LD_W_ABS, 0, 0, ARCH),
      _insn(JEQ_K, 1, 0, audit_arch),
      _insn(RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS),
      _insn(LD_W_ABS, 0, 0, NR),
  ]
  if x32 is not None:
    code += [_insn(JGE_K, 0, 1, x32), _insn(RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.ENOSYS)]
  for name in DENIED:
    code += [_insn(JEQ_K, 0, 1, numbers[name]), _insn(RET_K, 0, 0, deny)]
  # socket and socketpair: jump to the family check; anything else: allowed
  code += [_insn(JEQ_K, 2, 0, numbers["socket"]), _insn(JEQ_K, 1, 0, numbers["socketpair"]),
           _insn(RET_K, 0, 0, SECCOMP_RET_ALLOW), _insn(LD_W_ABS, 0, 0, ARG0)]
  for family in ALLOWED_FAMILIES:
    code += [_insn(JEQ_K, 0, 1, family), _insn(RET_K, 0, 0, SECCOMP_RET_ALLOW)]
  code.append(_insn(RET_K, 0, 0, no_family))
  return code


class _SockFprog(ctypes.Structure):
  _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def lock_down() -> None:
  """A fresh session keyring, then the seccomp filter, for this process and all it starts."""
  machine = platform.machine()
  if machine not in ARCHES or platform.system() != "Linux":
    raise LockDownUnavailable(f"seccomp lock-down needs Linux on x86_64 or aarch64, not "
                              f"{platform.system()} on {machine}")
  libc = ctypes.CDLL(None, use_errno=True)
  numbers = ARCHES[machine][1]
  if libc.syscall(numbers["keyctl"], KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
    error = ctypes.get_errno()
    raise LockDownUnavailable(error, f"no fresh session keyring ({errno.errorcode.get(error)})")
  if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
    error = ctypes.get_errno()
    raise LockDownUnavailable(error, "PR_SET_NO_NEW_PRIVS refused")
  code = b"".join(program(machine))
  buffer = ctypes.create_string_buffer(code, len(code))
  fprog = _SockFprog(len(code) // 8, ctypes.addressof(buffer))
  if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
    error = ctypes.get_errno()
    raise LockDownUnavailable(error, f"seccomp filter refused ({errno.errorcode.get(error)})")

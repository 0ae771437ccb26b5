"""Run a command inside bubblewrap: what it sees, what it may use, and making sure it ends.

Each call of ``Sandbox.run`` starts one ``bwrap`` with its own PID, IPC, network, UTS, cgroup and
user namespaces, a fresh ``/proc`` (no other process of the machine is visible), a minimal
``/dev`` and a read-only view of exactly what Python needs: the system directories, Python's
prefixes, the virtual environment and the ``adkcourse`` package. Nothing else of the machine is
there: not the repository (so not ``solutions/`` or ``exercises/``), not the submissions, the
output folder, other sandboxes' folders, the grader's home or its environment. The only
writable places are size-capped tmpfs folders private to the sandbox (gone when it ends) and
whatever the caller binds explicitly.

As root, ``bwrap`` itself sets up the mounts (it can reach a Python installed under ``/root``),
then ``setpriv`` drops to an unprivileged uid of the grader's own and a second, unprivileged
``bwrap`` adds the user namespace; without root, one unprivileged ``bwrap`` does it all. Either
way the submission runs under a uid that is not root, so ``RLIMIT_NPROC`` holds.

Memory and processes are capped for the whole sandbox by a cgroup when ``cgroups.find()``
gives one; otherwise by rlimits in each process and a watchdog summing the sandbox's memory.
The sandbox is killed at its deadline (its PID namespace dies with its first process), and
afterwards ``survivors()`` checks that no process of that namespace is left.
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import pwd
import queue
import select
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Optional, Sequence

from . import cgroups

SANDBOX_UID = 1_762_000  # first uid tried for submissions (as root); must not be a real user
UID_BLOCK = 64  # uids of one grading process: at most this many sandboxes at a time
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
             "/etc/alternatives")
HIDDEN_PACKAGES = ("solutions", "exercises")  # never visible, wherever they are installed
OUTPUT_EXCERPT = 4_000  # bytes of a sandbox's output kept for its feedback page
OUTPUT_DRAIN_CAP = 64 * 1024 * 1024  # bytes of output counted before the pipe is closed
INSTRUCTIONS = """\
The grader runs every submission inside bubblewrap, and bubblewrap cannot run here: {reason}

- Debian/Ubuntu: sudo apt-get install bubblewrap (or: bash scripts/install_sandbox.sh)
- Fedora/RHEL: sudo dnf install bubblewrap
- user namespaces must be allowed: sysctl kernel.unprivileged_userns_clone=1 (Debian),
  kernel.apparmor_restrict_unprivileged_userns=0 (Ubuntu 24.04), or run the grader as root
- macOS/Windows: grade inside a Linux VM or container (e.g. docker run --privileged)

Only for code you trust, `--sandbox none` grades without isolation (the gradebook and every
feedback page then say so). See docs/instructors.md, "Threat model"."""


class SandboxUnavailable(RuntimeError):
  """bubblewrap cannot isolate submissions on this machine (the message says what to do)."""


@dataclass(frozen=True)
class Isolation:
  """How submissions are isolated in this run, decided once by ``detect()``."""

  enabled: bool
  bwrap: str = ""
  version: str = ""
  privileged: bool = False  # root: outer bwrap for mounts, setpriv, inner bwrap for the userns
  uid: Optional[int] = None  # the first of the unprivileged uids submissions run as (root only)
  server_uid: Optional[int] = None  # the uid sandboxed PostgreSQL servers run as (root only)
  # One uid per sandbox running at the same time (root only): the kernel counts some limits
  # per user (epoll watches, inotify instances, RLIMIT_NPROC, keyrings), so sandboxes sharing a
  # uid would share them, and one submission could exhaust them for its classmates.
  uids: tuple[int, ...] = ()
  cgroup: Optional[cgroups.CgroupTree] = None

  def users(self) -> dict[str, int]:
    """The accounts a sandbox's /etc/passwd lists (PostgreSQL wants a name for its uid)."""
    own = os.getuid()
    return {"student": self.uid if self.uid is not None else own,
            "postgres": self.server_uid if self.server_uid is not None else own}

  def close(self) -> None:
    """Remove the run's cgroups (call once, when grading is over)."""
    if self.cgroup is not None:
      self.cgroup.remove()

  def describe(self) -> str:
    if not self.enabled:
      return "OFF (--sandbox none): submissions ran with the grader's own rights"
    caps = (self.cgroup.describe() if self.cgroup is not None
            else "rlimits and a memory watchdog (no cgroup available)")
    who = (f"uids {self.uids[0]}-{self.uids[-1]}, one per sandbox" if self.uids
           else f"uid {os.getuid()}")
    return (f"bubblewrap {self.version}: own user, PID, IPC and network namespaces; "
            f"read-only view without solutions/; {who}; caps by {caps}")


def _free_uid(start: int) -> int:
  uid = start
  while True:
    try:
      pwd.getpwuid(uid)
    except KeyError:
      return uid
    uid += 1


def _free_uids(start: int, count: int) -> tuple[int, ...]:
  """``count`` uids from ``start`` on that no account of this machine has."""
  found: list[int] = []
  uid = start
  while len(found) < count:
    uid = _free_uid(uid)
    found.append(uid)
    uid += 1
  return tuple(found)


def _system_user() -> int:
  """Without a sandbox there is no /etc/passwd of our own: an existing unprivileged user."""
  for name in ("postgres", "nobody"):
    try:
      return pwd.getpwnam(name).pw_uid
    except KeyError:
      continue
  return 65534


def detect(mode: str = "bwrap") -> Isolation:
  """The isolation this machine allows (``mode="none"``: none at all); raises
  ``SandboxUnavailable``, with instructions, when bubblewrap cannot run."""
  if mode == "none":  # as root, PostgreSQL servers still need a (real) user of their own
    return Isolation(enabled=False, server_uid=_system_user() if os.geteuid() == 0 else None)
  if mode != "bwrap":
    raise ValueError(f"unknown sandbox mode {mode!r}: use bwrap or none")
  if not sys.platform.startswith("linux"):
    raise SandboxUnavailable(INSTRUCTIONS.format(reason=f"this is {sys.platform}, not Linux"))
  bwrap = shutil.which("bwrap")
  if bwrap is None:
    raise SandboxUnavailable(INSTRUCTIONS.format(reason="`bwrap` is not installed"))
  version = subprocess.run([bwrap, "--version"], capture_output=True, text=True,
                           check=False).stdout.split()[-1:] or ["?"]
  privileged = os.geteuid() == 0
  if privileged and shutil.which("setpriv") is None:
    raise SandboxUnavailable(INSTRUCTIONS.format(reason="`setpriv` (util-linux) is missing"))
  uids: tuple[int, ...] = ()
  if privileged:  # a block of its own per grading process: concurrent runs do not share uids
    uids = _free_uids(SANDBOX_UID + (os.getpid() % 997) * (UID_BLOCK + 1), UID_BLOCK)
  uid = uids[0] if uids else None
  isolation = Isolation(enabled=True, bwrap=bwrap, version=version[0], privileged=privileged,
                        uid=uid, server_uid=_free_uid(uids[-1] + 1) if uids else None,
                        cgroup=cgroups.find(), uids=uids)
  problem = _probe(isolation)
  if problem:
    if isolation.cgroup is not None:
      isolation.cgroup.remove()
    raise SandboxUnavailable(INSTRUCTIONS.format(reason=problem))
  return isolation


def _probe(isolation: Isolation) -> str:
  """Run Python in a sandbox once; the reason it failed, or ""."""
  sandbox = Sandbox(isolation)
  try:
    run = sandbox.run([sys.executable, "-I", "-S", "-c", "print('sandbox-ok')"],
                      deadline=20.0, env={"PATH": "/usr/bin:/bin"}, private_uid=True)
  except OSError as error:
    return str(error)
  if b"sandbox-ok" in run.output:
    return ""
  return (run.output.decode("utf-8", "replace").strip() or f"exit status {run.returncode}")


@dataclass
class View:
  """The read-only part of every sandbox: system directories, Python and the course package."""

  binds: list[tuple[str, str]] = field(default_factory=list)  # (host path, sandbox path)
  symlinks: list[tuple[str, str]] = field(default_factory=list)  # (target, sandbox path)
  masks: list[str] = field(default_factory=list)  # directories hidden behind an empty tmpfs
  package_parent: str = ""  # the folder holding ``adkcourse`` (only that package is visible)

  _built: ClassVar[dict[tuple, "View"]] = {}

  @classmethod
  def current(cls, users: dict[str, int]) -> "View":
    key = tuple(sorted(users.items()))
    if key not in cls._built:
      cls._built[key] = cls.build(users)
    return cls._built[key]

  @classmethod
  def build(cls, users: dict[str, int]) -> "View":
    view = cls()
    bound: list[str] = []

    def covered(path: str) -> bool:
      return any(path == b or path.startswith(b.rstrip("/") + "/") for b in bound)

    def bind(host: str, inside: Optional[str] = None) -> None:
      inside = inside or host
      if covered(inside) or not os.path.exists(host):
        return
      view.binds.append((host, inside))
      bound.append(inside)

    for path in SYSTEM_DIRS:
      if os.path.islink(path):
        view.symlinks.append((os.readlink(path), path))
      elif os.path.isdir(path):
        bind(path)
    for path in ETC_FILES:
      bind(path)
    for name, text in _etc_files(users).items():
      bind(text, f"/etc/{name}")
    for prefix in dict.fromkeys([sys.prefix, sys.exec_prefix, sys.base_prefix,
                                 sys.base_exec_prefix]):
      real = os.path.realpath(prefix)
      bind(real)
      if real != prefix:
        bind(real, prefix)
    executable = os.path.realpath(sys.executable)
    if not covered(executable):
      bind(os.path.dirname(executable))
    # The package from this file's own location: ``find_spec`` could answer with a namespace
    # package made of any folder called adkcourse on sys.path (the scratch root is one).
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    bind(package)
    view.package_parent = os.path.dirname(package)
    for entry in sys.path:
      if not entry or not os.path.isdir(entry) or not covered(entry):
        continue
      for name in HIDDEN_PACKAGES:
        for candidate in (os.path.join(entry, name), os.path.join(entry, f"{name}.py")):
          if os.path.exists(candidate) and candidate not in view.masks:
            view.masks.append(candidate)
    return view

  def mounts(self) -> list[tuple[str, list[str]]]:
    """(sandbox path, bwrap arguments) of every mount of the view."""
    out = [(inside, ["--ro-bind", host, inside]) for host, inside in self.binds]
    out += [(inside, ["--symlink", target, inside]) for target, inside in self.symlinks]
    for path in self.masks:
      out.append((path, ["--tmpfs", path, "--remount-ro", path] if os.path.isdir(path)
                  else ["--ro-bind", "/dev/null", path]))
    return out


def _mount_args(mounts: list[tuple[str, list[str]]]) -> list[str]:
  """The mounts in an order that works (a folder before what is mounted inside it), each
  missing parent folder made first with mode 0755 (bwrap would make it 0700, which the
  sandbox's unprivileged uid could not cross); never a folder inside a bind mount (that
  would be made on the host)."""
  out: list[str] = []
  made: set[str] = {"/"}
  mounted: set[str] = set()
  binds = {inside for inside, args in mounts
           if not {"--tmpfs", "--dir", "--dev", "--proc"} & set(args)}
  for inside, args in sorted(mounts, key=lambda m: len(Path(m[0]).parts)):
    parts = Path(inside).parent.parts
    for i in range(2, len(parts) + 1):
      parent = str(Path(*parts[:i]))
      inside_a_mount = any(parent.startswith(m.rstrip("/") + "/") for m in binds)
      if parent not in made and parent not in mounted and not inside_a_mount:
        out += ["--perms", "0755", "--dir", parent]
        made.add(parent)
    out += args
    mounted.add(inside)
  return out


def _etc_files(users: dict[str, int]) -> dict[str, str]:
  """A /etc/passwd, /etc/group and /etc/hosts of the sandbox's own (not the machine's),
  written once to a private folder removed at exit; name -> path."""
  folder = Path(tempfile.mkdtemp(prefix="adkcourse-sandbox-etc-"))
  atexit.register(shutil.rmtree, folder, True)
  entries = {"root": 0, **users, "nobody": 65534}
  passwd = "".join(f"{name}:x:{uid}:{uid}:{name}:/tmp/home:/usr/sbin/nologin\n"
                   for name, uid in entries.items())
  group = "".join(f"{name}:x:{uid}:\n" for name, uid in entries.items())
  files = {"passwd": passwd, "group": group,
           "hosts": "127.0.0.1 localhost\n::1 localhost\n"}
  for name, text in files.items():
    (folder / name).write_text(text)
    (folder / name).chmod(0o644)
  folder.chmod(0o755)
  return {name: str(folder / name) for name in files}


@dataclass
class SandboxRun:
  """What came out of one sandbox."""

  returncode: Optional[int]
  timed_out: bool
  seconds: float
  output: bytes = b""  # the beginning of stdout+stderr
  output_size: int = 0  # all of it, in bytes (at least, with ``output_truncated``)
  output_truncated: bool = False  # more than OUTPUT_DRAIN_CAP: its pipe was closed
  result: bytes = b""  # what arrived on the result pipe (at most ``result_cap`` bytes)
  result_truncated: bool = False
  memory_exceeded: bool = False
  cpu_exceeded: bool = False  # stopped for its CPU time (``timed_out`` is then true too)
  cpu_seconds: Optional[float] = None  # CPU time it used, all its processes (None: unknown)
  survivors: int = 0  # processes still alive after the sandbox ended (killed then)
  errors: list[str] = field(default_factory=list)


class Sandbox:
  """Starts sandboxes (or, with isolation off, plain processes) and cleans up after them."""

  def __init__(self, isolation: Isolation, view: Optional[View] = None):
    self.isolation = isolation
    self.view = view or (View.current(isolation.users()) if isolation.enabled else View())
    self._views: dict[int, View] = {}
    self._counter = itertools.count(1)
    self._free = queue.Queue()  # the uids no running sandbox of this Sandbox uses
    for uid in isolation.uids:
      self._free.put(uid)

  def view_for(self, uid: Optional[int]) -> View:
    """The view of a sandbox running as ``uid`` (its /etc/passwd names that uid)."""
    if uid is None or uid == self.isolation.uid or not self.isolation.enabled:
      return self.view
    if uid not in self._views:
      self._views[uid] = View.current({**self.isolation.users(), "student": uid})
    return self._views[uid]

  # -- the command line ---------------------------------------------------------------------
  def command(self, command: Sequence[str], *, info_fd: Optional[int], chdir: str,
              tmpfs: Sequence[tuple[str, int]] = (), ro_binds: Sequence[tuple[str, str]] = (),
              rw_binds: Sequence[tuple[str, str]] = (), private_uid: bool = True,
              uid: Optional[int] = None) -> list[str]:
    """The ``bwrap`` command line running ``command``. ``tmpfs``: (path, bytes) private
    writable folders; binds: (host, sandbox path). ``private_uid`` (root only): run as the
    unprivileged uid inside a user namespace, else as uid 0 without capabilities."""
    iso = self.isolation
    namespaces = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                  "--unshare-cgroup-try", "--hostname", "sandbox", "--die-with-parent",
                  "--new-session"] + (["--info-fd", str(info_fd)] if info_fd is not None else [])
    plan = self.view_for(uid if private_uid else None).mounts()
    plan += [(inside, ["--ro-bind", host, inside]) for host, inside in ro_binds]
    plan += [(inside, ["--bind", host, inside]) for host, inside in rw_binds]
    plan += [(path, ["--size", str(size), "--tmpfs", path, "--chmod", "1777", path])
             for path, size in tmpfs]
    if "/tmp" not in {path for path, _ in tmpfs}:  # the inner bwrap mounts its own root there
      plan.append(("/tmp", ["--perms", "0755", "--dir", "/tmp"]))
    # /proc and /dev first (sorted by depth): a folder of the caller's under /dev/shm stays
    # visible on top of them
    plan += [("/proc", ["--proc", "/proc"]), ("/dev", ["--dev", "/dev"])]
    mounts = _mount_args(plan)
    mounts += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", chdir]
    if not iso.privileged:
      return [iso.bwrap, "--unshare-user", "--disable-userns", *namespaces, *mounts, "--",
              *command]
    if not private_uid:
      return [iso.bwrap, *namespaces, *mounts, "--cap-drop", "ALL", "--", *command]
    uid = str(iso.uid if uid is None else uid)
    return [iso.bwrap, *namespaces, *mounts, "--",
            "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
            iso.bwrap, "--unshare-user", "--disable-userns", "--die-with-parent",
            "--dev-bind", "/", "/", "--chdir", chdir, "--", *command]

  # -- running ------------------------------------------------------------------------------
  def start(self, command: Sequence[str], *, env: dict[str, str], chdir: str = "/",
            tmpfs: Sequence[tuple[str, int]] = (), ro_binds: Sequence[tuple[str, str]] = (),
            rw_binds: Sequence[tuple[str, str]] = (), memory_bytes: Optional[int] = None,
            processes: int = 256, result_pipe: bool = False, private_uid: bool = True,
            uid: Optional[int] = None, stdin: Any = subprocess.DEVNULL,
            stdout: Any = subprocess.PIPE, stderr: Any = None,
            cwd_without_sandbox: Optional[str] = None) -> "Running":
    """Start ``command`` (see ``command()`` for the arguments); ``Running.stop()`` ends it and
    everything it started. With ``result_pipe``, the command gets a second output pipe whose
    write end's number is in ``$GRADE_RESULT_FD``."""
    info_r, info_w = os.pipe()
    result_r, result_w = os.pipe() if result_pipe else (-1, -1)
    env = dict(env)
    pass_fds = [info_w]
    if result_pipe:
      env["GRADE_RESULT_FD"] = str(result_w)
      pass_fds.append(result_w)
    group = None
    number = next(self._counter)
    lent = None
    if (self.isolation.enabled and self.isolation.privileged and private_uid and uid is None
        and self.isolation.uids):
      lent = uid = self._free.get()  # blocks only if more sandboxes run than there are uids
    if self.isolation.enabled:
      argv = self.command(command, info_fd=info_w, chdir=chdir, tmpfs=tmpfs,
                          ro_binds=ro_binds, rw_binds=rw_binds, private_uid=private_uid,
                          uid=uid)
      cwd = "/"
    else:
      argv = list(command)
      if private_uid and uid is not None and os.geteuid() == 0:  # e.g. PostgreSQL: not root
        argv = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", *argv]
      cwd = cwd_without_sandbox or chdir
    try:
      if self.isolation.enabled and self.isolation.cgroup is not None and memory_bytes:
        group = self.isolation.cgroup.create(f"s{os.getpid()}-{number}", memory_bytes,
                                             processes)
        # join the cgroup(s) first, then become bwrap: nothing can start outside the caps
        join = ('for f; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; '
                'shift; exec "$@"')
        argv = ["/bin/sh", "-c", join, "sh", *group.procs_files, "--", *argv]
      if stderr is None:
        stderr = subprocess.STDOUT if stdout is subprocess.PIPE else stdout
      process = subprocess.Popen(argv, stdin=stdin, stdout=stdout, stderr=stderr,
                                 env=env, cwd=cwd, pass_fds=pass_fds,
                                 start_new_session=True, close_fds=True)
    except BaseException:
      for fd in (info_r, info_w, result_r, result_w):
        if fd >= 0:
          os.close(fd)
      if group is not None:
        group.remove()
      if lent is not None:
        self._free.put(lent)
      raise
    for fd in (info_w, result_w):
      if fd >= 0:
        os.close(fd)
    if not self.isolation.enabled:
      os.close(info_r)
      info_r = -1
    running = Running(self, process, info_r, result_r, group, memory_bytes)
    running.lent_uid = lent
    return running

  def run(self, command: Sequence[str], *, deadline: float, result_cap: int = 0,
          cpu_limit: Optional[float] = None, **options: Any) -> SandboxRun:
    """Run ``command`` to its end, or for ``deadline`` seconds of wall-clock time, or until
    its processes together used ``cpu_limit`` seconds of CPU, whichever comes first; what it
    started is dead when this returns. At most ``result_cap`` bytes of the result pipe kept."""
    running = self.start(command, result_pipe=bool(result_cap), **options)
    try:
      running.wait(deadline, result_cap, cpu_limit)
    finally:
      running.stop()
    return running.outcome


class Running:
  """A started sandbox: read its output until it ends (``wait``), then ``stop`` it."""

  def __init__(self, sandbox: Sandbox, process: subprocess.Popen, info_fd: int,
               result_fd: int, group: Optional[cgroups.Cgroup], memory_bytes: Optional[int]):
    self.sandbox, self.process, self.group, self.memory_bytes = (sandbox, process, group,
                                                                 memory_bytes)
    self.info_fd, self.result_fd = info_fd, result_fd
    self.started = time.monotonic()
    self.outcome = SandboxRun(returncode=None, timed_out=False, seconds=0.0)
    self.pidns: Optional[int] = None
    self.init_fd: Optional[int] = None
    self._info = b""
    self._stopped = False
    self._group_killed = False
    self.lent_uid: Optional[int] = None
    if info_fd >= 0:  # bwrap writes it as soon as the namespaces exist
      self._read_info(deadline=10.0)

  @property
  def pid(self) -> int:
    return self.process.pid

  def _read_info(self, deadline: float) -> None:
    stop = time.monotonic() + deadline
    while time.monotonic() < stop:
      ready, _, _ = select.select([self.info_fd], [], [], max(0.0, stop - time.monotonic()))
      if not ready:
        break
      data = os.read(self.info_fd, 65536)
      if not data:
        break
      self._info += data
      if self._info.rstrip().endswith(b"}"):
        try:
          json.loads(self._info.decode())
          break
        except ValueError:
          continue
    os.close(self.info_fd)
    self.info_fd = -1
    self.pidns, self.init_fd = _parse_info(self._info)

  def cpu_seconds(self) -> Optional[float]:
    """CPU time used so far by everything the command started (its cgroup's count; else the
    processes of its PID namespace, or of its process tree without a sandbox)."""
    if self.group is not None:
      measured = self.group.cpu_seconds()
      if measured is not None:
        return measured
    if self.pidns is not None:
      return namespace_cpu(self.pidns)
    if not self.sandbox.isolation.enabled:
      return tree_cpu(self.process.pid)
    return None

  def wait(self, deadline: float, result_cap: int = 0,
           cpu_limit: Optional[float] = None) -> SandboxRun:
    """Collect output (and up to ``result_cap`` bytes of results) until the command and
    everything holding its pipes have ended, or ``deadline`` seconds from the start, or until
    it used ``cpu_limit`` seconds of CPU."""
    run, process = self.outcome, self.process
    chunks: list[bytes] = []
    kept = 0
    result: list[bytes] = []
    result_size = 0
    selector = selectors.DefaultSelector()
    streams: dict[int, str] = {}
    if process.stdout is not None:
      streams[process.stdout.fileno()] = "out"
    if self.result_fd >= 0:
      streams[self.result_fd] = "result"
    for fd, kind in streams.items():
      os.set_blocking(fd, False)
      selector.register(fd, selectors.EVENT_READ, kind)
    next_watch = self.started + 0.2
    watch = (self.sandbox.isolation.enabled and self.group is None and self.memory_bytes
             and self.pidns is not None)
    try:
      while streams:
        left = self.started + deadline - time.monotonic()
        if left <= 0:
          run.timed_out = True
          break
        for key, _ in selector.select(timeout=min(left, 0.1)):
          try:
            data = os.read(key.fd, 65536)
          except BlockingIOError:
            continue
          if not data:
            selector.unregister(key.fd)
            del streams[key.fd]
            continue
          if key.data == "out":
            run.output_size += len(data)
            if kept < OUTPUT_EXCERPT:
              chunks.append(data)
              kept += len(data)
            if run.output_size > OUTPUT_DRAIN_CAP:
              run.output_truncated = True
          else:
            if result_size < result_cap:
              result.append(data[: result_cap - result_size])
            else:
              run.result_truncated = True
            result_size += len(data)
          if (key.data == "out" and run.output_truncated) or (
              key.data == "result" and run.result_truncated):
            # Enough: reading on would only spend the grader's CPU. The writer gets EPIPE.
            selector.unregister(key.fd)
            del streams[key.fd]
            if key.fd == self.result_fd:
              os.close(key.fd)
              self.result_fd = -1
            else:
              process.stdout.close()
        if (watch or cpu_limit is not None) and time.monotonic() > next_watch:
          next_watch = time.monotonic() + 0.2
          if watch and namespace_memory(self.pidns) > self.memory_bytes:  # type: ignore[arg-type]
            run.memory_exceeded = True
            break
          used = self.cpu_seconds() if cpu_limit is not None else None
          if used is not None and used > cpu_limit:  # type: ignore[operator]
            run.timed_out = run.cpu_exceeded = True
            break
        if not self.sandbox.isolation.enabled and not self._group_killed and _exited(
            process.pid):
          self._kill_group()  # what it left running holds the pipes open
    finally:
      selector.close()
    run.output = b"".join(chunks)[:OUTPUT_EXCERPT]
    run.result = b"".join(result)
    return run

  def alive(self) -> bool:
    return not _exited(self.process.pid) if self.process.returncode is None else False

  def _kill_group(self) -> None:
    """SIGKILL the command's process group (isolation off). Only while its leader is not
    reaped: a reaped pid, and so the group's id, may already belong to someone else."""
    if self.process.returncode is None and not self._group_killed:
      _kill_group(self.process.pid)
      self._group_killed = True

  def stop(self) -> SandboxRun:
    """Kill the sandbox (its first process: the PID namespace dies with it) and check that
    nothing of it is left; idempotent."""
    run = self.outcome
    if self._stopped:
      return run
    self._stopped = True
    run.cpu_seconds = self.cpu_seconds()
    if self.init_fd is not None:
      try:
        signal.pidfd_send_signal(self.init_fd, signal.SIGKILL)
      except OSError:
        pass
    if not self.sandbox.isolation.enabled:
      self._kill_group()
    if self.process.returncode is None and not _exited(self.process.pid):
      self.process.kill()
    self.process.wait()
    # What is still there once the kernel has had a moment to finish the kills survived.
    if self.group is not None:
      final = self.group.cpu_seconds()
      if final is not None:
        run.cpu_seconds = max(final, run.cpu_seconds or 0.0)
      if _settle(self.group.pids):
        run.survivors += self.group.kill()
      if self.group.oom_kills():
        run.memory_exceeded = True
      self.group.remove()
    if self.pidns is not None and _settle(lambda: namespace_pids(self.pidns)):
      run.survivors += len(kill_namespace(self.pidns))
    for fd in (self.init_fd, self.result_fd, self.info_fd):
      if fd is not None and fd >= 0:
        os.close(fd)
    self.init_fd, self.result_fd, self.info_fd = None, -1, -1
    for stream in (self.process.stdout, self.process.stdin):
      if stream is not None:
        try:
          stream.close()
        except OSError:
          pass
    run.returncode = self.process.returncode
    run.seconds = time.monotonic() - self.started
    if self.lent_uid is not None:  # every process of it is gone: the uid may serve again
      self.sandbox._free.put(self.lent_uid)
      self.lent_uid = None
    return run


def _parse_info(info: bytes) -> tuple[Optional[int], Optional[int]]:
  """bwrap's --info-fd JSON: the PID namespace, and a pidfd of the sandbox's first process
  (a pidfd, not a pid, so that a recycled pid can never be killed by mistake)."""
  try:
    data = json.loads(info.decode())
    pidns, child = int(data["pid-namespace"]), int(data["child-pid"])
  except (ValueError, KeyError, TypeError):
    return None, None
  if pidns == _pid_namespace(os.getpid()):  # not a namespace of its own: nothing to track
    return None, None
  try:
    fd = os.pidfd_open(child)
  except (OSError, AttributeError):
    return pidns, None
  if _pid_namespace(child) != pidns:
    os.close(fd)
    return pidns, None
  return pidns, fd


def _settle(alive, seconds: float = 0.5) -> bool:
  """Wait up to ``seconds`` for ``alive()`` to be empty; True if something is still there."""
  stop = time.monotonic() + seconds
  while alive():
    if time.monotonic() > stop:
      return True
    time.sleep(0.01)
  return False


def _exited(pid: int) -> bool:
  """Has child ``pid`` ended? (without reaping it, so that its pid stays its own)"""
  try:
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
  except ChildProcessError:
    return True


def _kill_group(pid: int) -> None:
  try:
    os.killpg(pid, signal.SIGKILL)
  except (ProcessLookupError, PermissionError):
    pass


def _pid_namespace(pid: int) -> Optional[int]:
  try:
    link = os.readlink(f"/proc/{pid}/ns/pid")
  except OSError:
    return None
  try:
    return int(link.split("[", 1)[1].rstrip("]"))
  except (IndexError, ValueError):
    return None


def _is_zombie(pid: int) -> bool:
  try:
    stat = Path(f"/proc/{pid}/stat").read_text()
  except OSError:
    return True
  return stat.rpartition(")")[2].split()[:1] in (["Z"], ["X"])


def namespace_pids(pidns: int) -> list[int]:
  """Every live process of the machine in PID namespace ``pidns`` (by its inode number).
  Zombies are left out: they run nothing and hold no memory; whoever inherited them reaps
  them (a sandbox's first process ends as one when bwrap leaves before reaping it)."""
  found = []
  for entry in os.listdir("/proc"):
    if entry.isdigit() and _pid_namespace(int(entry)) == pidns and not _is_zombie(int(entry)):
      found.append(int(entry))
  return found


def namespace_memory(pidns: int) -> int:
  """Resident memory of a PID namespace's processes, in bytes (the watchdog's measure)."""
  total = 0
  for pid in namespace_pids(pidns):
    try:
      for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
          total += int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
      continue
  return total


CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _process_cpu(pid: int) -> tuple[float, int]:
  """(CPU seconds of ``pid`` and of its reaped children, its parent's pid); (0, -1) if gone."""
  try:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime
    return ticks / CLOCK_TICKS, int(fields[1])
  except (OSError, ValueError, IndexError):
    return 0.0, -1


def namespace_cpu(pidns: int) -> float:
  """CPU seconds of every process of PID namespace ``pidns``, zombies included (a reaped
  process's time is in its reaper's children's time)."""
  total = 0.0
  for entry in os.listdir("/proc"):
    if entry.isdigit() and _pid_namespace(int(entry)) == pidns:
      total += _process_cpu(int(entry))[0]
  return total


def tree_cpu(root: int) -> float:
  """CPU seconds of ``root`` and of every live process below it (no sandbox)."""
  parents: dict[int, int] = {}
  cpu: dict[int, float] = {}
  for entry in os.listdir("/proc"):
    if entry.isdigit():
      cpu[int(entry)], parents[int(entry)] = _process_cpu(int(entry))
  found, frontier = {root}, {root}
  while frontier:
    frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
    found |= frontier
  return sum(cpu.get(pid, 0.0) for pid in found)


def kill_namespace(pidns: int, rounds: int = 50) -> list[int]:
  """SIGKILL every process left in PID namespace ``pidns``; the pids that were alive."""
  if pidns == _pid_namespace(os.getpid()):  # never the grader's own namespace
    return []
  seen: list[int] = []
  for _ in range(rounds):
    pids = namespace_pids(pidns)
    if not pids:
      break
    for pid in pids:
      try:
        fd = os.pidfd_open(pid)
      except OSError:
        continue
      try:
        if _pid_namespace(pid) == pidns:
          signal.pidfd_send_signal(fd, signal.SIGKILL)
          seen.append(pid)
      except OSError:
        pass
      finally:
        os.close(fd)
    time.sleep(0.01)
  return sorted(set(seen))

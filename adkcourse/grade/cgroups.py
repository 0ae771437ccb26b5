"""Memory and process caps for a whole sandbox, with a cgroup where the machine allows one.

(With the ``cpu`` controller too, where there is one: each sandbox is then one scheduling
group, so a submission running a hundred busy processes gets the same share of the CPU as a
classmate's single process, instead of starving it into its time limit.)

An rlimit counts one process at a time (six children of 1.2 GB each pass a 2 GB ``RLIMIT_AS``);
a cgroup counts everything the submission started, together. The grader makes one cgroup per
run under its own (``adkcourse-grade-<pid>-<token>``) and one per submission under that, sets
``memory.max``/``pids.max`` (cgroup v2) or ``memory.limit_in_bytes``/``pids.max`` (v1), puts the
sandbox in it before it starts, and empties and removes it afterwards. ``find()`` returns None
where no writable hierarchy with both controllers exists (not root, no delegation): the caller
then falls back to rlimits under an unprivileged uid plus a memory watchdog.
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


@dataclass
class Cgroup:
  """One submission's cgroup: one directory (v2) or one per controller (v1)."""

  version: int
  dirs: tuple[Path, ...]
  cpuacct: Optional[Path] = None  # v1: the cpuacct controller's directory, when there is one

  def cpu_seconds(self) -> Optional[float]:
    """CPU time used so far by every process that was ever in the cgroup (None: not
    measured here). What limits an endless loop on a busy machine as on an idle one."""
    try:
      if self.version == 2:
        for line in (self.dirs[0] / "cpu.stat").read_text().splitlines():
          key, _, value = line.partition(" ")
          if key == "usage_usec":
            return int(value) / 1e6
        return None
      if self.cpuacct is not None:
        return int((self.cpuacct / "cpuacct.usage").read_text()) / 1e9
    except (OSError, ValueError):
      return None
    return None

  @property
  def procs_files(self) -> list[str]:
    """The files a process writes its pid into to join (all of them, before it starts)."""
    return [str(d / "cgroup.procs") for d in self.dirs]

  def pids(self) -> set[int]:
    found: set[int] = set()
    for d in self.dirs:
      try:
        found |= {int(x) for x in (d / "cgroup.procs").read_text().split()}
      except (OSError, ValueError):
        pass
    return found

  def kill(self, rounds: int = 200) -> int:
    """SIGKILL everything in the cgroup until it is empty; returns how many processes were
    killed (each counted once, though a dying one stays listed for a while)."""
    if self.version == 2 and (self.dirs[0] / "cgroup.kill").exists():
      try:
        (self.dirs[0] / "cgroup.kill").write_text("1")
      except OSError:
        pass
    killed: set[int] = set()
    for _ in range(rounds):
      pids = self.pids()
      if not pids:
        return len(killed)
      for pid in pids:
        try:
          os.kill(pid, signal.SIGKILL)
          killed.add(pid)
        except (ProcessLookupError, PermissionError):
          pass
      time.sleep(0.005)
    return len(killed)

  def oom_kills(self) -> int:
    """How many processes the kernel killed for reaching the memory limit."""
    for d in self.dirs:
      for name in ("memory.events", "memory.oom_control"):
        try:
          for line in (d / name).read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
              return int(value)
        except (OSError, ValueError):
          continue
    return 0

  def remove(self) -> None:
    self.kill()
    for d in self.dirs:
      for _ in range(100):
        try:
          d.rmdir()
          break
        except FileNotFoundError:
          break
        except OSError:
          time.sleep(0.01)


@dataclass
class CgroupTree:
  """The run's own cgroup(s), under which each submission gets one."""

  version: int
  bases: tuple[Path, ...]  # v2: (dir,); v1: (memory dir, pids dir[, cpu dir][, cpuacct dir])
  cpu: bool = False  # is the cpu controller there too (fair shares between sandboxes)?
  cpuacct: bool = False  # v1: is the last base the cpuacct controller (CPU time measured)?

  def describe(self) -> str:
    extra = ", cpu" if self.cpu else ""
    extra += ", cpuacct" if self.cpuacct or self.version == 2 else ""
    return f"cgroup v{self.version} (memory, pids{extra})"

  def create(self, name: str, memory_bytes: int, processes: int) -> Cgroup:
    dirs = tuple(base / name for base in self.bases)
    for d in dirs:
      d.mkdir()
    if self.version == 2:
      (dirs[0] / "memory.max").write_text(str(memory_bytes))
      if (dirs[0] / "memory.swap.max").exists():
        (dirs[0] / "memory.swap.max").write_text("0")
      (dirs[0] / "pids.max").write_text(str(processes))
    else:
      memory, pids = dirs[:2]
      (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
      if (memory / "memory.memsw.limit_in_bytes").exists():
        try:  # memory + swap: no swapping around the limit
          (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
        except OSError:
          pass
      (pids / "pids.max").write_text(str(processes))
    return Cgroup(self.version, dirs, dirs[-1] if self.version == 1 and self.cpuacct else None)

  def remove(self) -> None:
    for base in self.bases:
      for child in list(base.iterdir()) if base.is_dir() else []:
        if child.is_dir():
          Cgroup(self.version, (child,)).remove()
      for _ in range(100):
        try:
          base.rmdir()
          break
        except FileNotFoundError:
          break
        except OSError:
          time.sleep(0.01)


def _own_cgroups() -> dict[str, str]:
  """controller (or "" for v2) -> this process's cgroup path, from /proc/self/cgroup."""
  found: dict[str, str] = {}
  try:
    lines = Path("/proc/self/cgroup").read_text().splitlines()
  except OSError:
    return found
  for line in lines:
    parts = line.split(":", 2)
    if len(parts) != 3:
      continue
    for controller in parts[1].split(",") if parts[1] else [""]:
      found[controller] = parts[2]
  return found


def _mounts() -> list[tuple[str, str, list[str]]]:
  """(mount point, fs type, options) of every cgroup mount."""
  found = []
  try:
    lines = Path("/proc/self/mounts").read_text().splitlines()
  except OSError:
    return found
  for line in lines:
    fields = line.split()
    if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
      found.append((fields[1], fields[2], fields[3].split(",")))
  return found


def _probe(tree: CgroupTree) -> bool:
  """Can we really make a capped cgroup here? (writable, controllers present)"""
  name = f"probe-{secrets.token_hex(4)}"
  try:
    group = tree.create(name, 64 * 1024 * 1024, 16)
  except OSError:
    for base in tree.bases:
      try:
        (base / name).rmdir()
      except OSError:
        pass
    return False
  group.remove()
  return True


def _remove_stale(parent: Path, version: int) -> None:
  """Remove the run cgroups of graders that are gone (killed before they could)."""
  try:
    entries = list(parent.glob("adkcourse-grade-*-*"))
  except OSError:
    return
  for entry in entries:
    try:
      pid = int(entry.name.split("-")[2])
    except (IndexError, ValueError):
      continue
    if pid != os.getpid() and not Path(f"/proc/{pid}").exists():
      CgroupTree(version, (entry,)).remove()


def _make_base(parents: list[Path], version: int, cpu: bool,
               cpuacct: bool = False) -> Optional[CgroupTree]:
  for parent in parents:
    _remove_stale(parent, version)
  name = f"adkcourse-grade-{os.getpid()}-{secrets.token_hex(3)}"
  made: list[Path] = []
  try:
    for parent in parents:
      (parent / name).mkdir()
      made.append(parent / name)
    if version == 2:
      (made[0] / "cgroup.subtree_control").write_text("+memory +pids" + (" +cpu" if cpu else ""))
  except OSError:
    for d in made:
      try:
        d.rmdir()
      except OSError:
        pass
    return None
  tree = CgroupTree(version, tuple(made), cpu, cpuacct)
  if not _probe(tree):
    tree.remove()
    return None
  return tree


def find() -> Optional[CgroupTree]:
  """A cgroup of our own to cap submissions with (v2 first, then v1), or None."""
  own = _own_cgroups()
  mounts = _mounts()
  for point, kind, _ in mounts:
    if kind != "cgroup2" or "" not in own:
      continue
    here = Path(point) / own[""].lstrip("/")
    try:
      controllers = (here / "cgroup.controllers").read_text().split()
      enabled = (here / "cgroup.subtree_control").read_text().split()
    except OSError:
      continue
    if not {"memory", "pids"} <= set(controllers):
      continue
    cpu = "cpu" in controllers
    wanted = {"memory", "pids"} | ({"cpu"} if cpu else set())
    if not wanted <= set(enabled):
      try:  # only possible where this cgroup holds no process itself (or is the root)
        (here / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in wanted))
      except OSError:
        continue
    tree = _make_base([here], 2, cpu)
    if tree is not None:
      return tree
  v1 = {}
  for point, kind, options in mounts:
    if kind == "cgroup":
      for controller in ("memory", "pids", "cpu", "cpuacct"):
        if controller in options and controller in own and controller not in v1:
          v1[controller] = Path(point) / own[controller].lstrip("/")
  if {"memory", "pids"} <= set(v1):
    bases = [v1["memory"], v1["pids"]]
    cpu = [v1["cpu"]] if "cpu" in v1 and os.access(v1["cpu"], os.W_OK) else []
    acct = [v1["cpuacct"]] if "cpuacct" in v1 and os.access(v1["cpuacct"], os.W_OK) else []
    if acct and v1.get("cpu") == v1.get("cpuacct"):  # mounted together (cpu,cpuacct)
      acct = cpu
      cpu_bases = bases + cpu
    else:
      cpu_bases = bases + cpu + acct
    for candidate, has_cpu, has_acct in ((cpu_bases, bool(cpu), bool(acct)),
                                         (bases + acct, False, bool(acct)),
                                         (bases, False, False)):
      tree = _make_base(list(dict.fromkeys(candidate)), 1, has_cpu, has_acct)
      if tree is not None:
        return tree
  return None

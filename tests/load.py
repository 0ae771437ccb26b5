"""A busy machine for tests that must give the same answer on one: real busy processes."""

from __future__ import annotations

import multiprocessing
import os


def _burn(stop, cpus) -> None:
  if cpus:
    os.sched_setaffinity(0, cpus)
  while not stop.is_set():
    pass


class Load:
  """``per_core`` busy processes per core (load ``per_core`` times the cores) while the
  block lasts. ``cpus``: run them all on these CPUs only (a test that pins itself there too
  then gets a known share of one: the load stretches it for certain, not by the scheduler's
  leave)."""

  def __init__(self, per_core: int = 4, cpus: "set[int] | None" = None):
    self.cpus = cpus
    self.count = per_core * (len(cpus) if cpus else os.cpu_count() or 1)
    self.stop = multiprocessing.get_context("fork").Event()
    self.processes: list = []

  def __enter__(self) -> "Load":
    context = multiprocessing.get_context("fork")
    for _ in range(self.count):
      process = context.Process(target=_burn, args=(self.stop, self.cpus), daemon=True)
      process.start()
      self.processes.append(process)
    return self

  def __exit__(self, *exc) -> None:
    self.stop.set()
    for process in self.processes:
      process.join(5)
      if process.is_alive():
        process.kill()

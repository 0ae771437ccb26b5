"""A busy machine for tests that must give the same answer on one: real busy processes."""

from __future__ import annotations

import multiprocessing
import os


def _burn(stop) -> None:
  while not stop.is_set():
    pass


class Load:
  """``per_core`` busy processes per core (load ``per_core`` times the cores) while the
  block lasts."""

  def __init__(self, per_core: int = 4):
    self.count = per_core * (os.cpu_count() or 1)
    self.stop = multiprocessing.get_context("fork").Event()
    self.processes: list = []

  def __enter__(self) -> "Load":
    context = multiprocessing.get_context("fork")
    for _ in range(self.count):
      process = context.Process(target=_burn, args=(self.stop,), daemon=True)
      process.start()
      self.processes.append(process)
    return self

  def __exit__(self, *exc) -> None:
    self.stop.set()
    for process in self.processes:
      process.join(5)
      if process.is_alive():
        process.kill()

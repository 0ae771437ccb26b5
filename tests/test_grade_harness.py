"""How a call is limited and what its outcome says (adkcourse.grade.checks._harness).

Time is CPU time: a call that computes forever is stopped at its CPU limit; a call that waits
(a sleep, a blocked thread) only at its wall-clock limit, several times later; and a call that
does a fixed amount of work is never stopped because the machine is busy. The tests that load
the machine do it with real busy processes, as many as four per core.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import pytest

from load import Load  # tests/load.py
from adkcourse.grade.checks._harness import (WALL_FACTOR, WALL_SLACK, ActWorld, TimeBudget,
                                             call_limited, describe, outcome_note,
                                             snapshot_folder)


STEPS = 12_000_000  # about half a second of CPU on the machines this course is tested on


def _work(steps: int = STEPS) -> int:
  """A fixed amount of pure computation, the same on every run."""
  total = 0
  for i in range(steps):
    total += i % 7
  return total


def _cpu_of_work() -> float:
  started = time.process_time()
  _work()
  return time.process_time() - started


@pytest.mark.parametrize("total", [0.5, 3.0, 30.0, 300.0])
@pytest.mark.parametrize("calls", [1, 2, 5, 24, 100])
def test_a_budget_never_exceeds_its_total_and_keeps_time_for_every_later_call(total, calls):
  budget = TimeBudget(total, calls)
  limits = []
  for _ in range(calls):
    limit = budget.next()
    limits.append(limit)
    budget.charge(limit.cpu)  # the worst case: every call uses all it is given
  assert sum(limit.cpu for limit in limits) <= total + 0.05 * calls
  assert all(limit.cpu >= min(total / calls / 2, 0.05) - 1e-9 for limit in limits)
  assert all(limit.wall == pytest.approx(limit.cpu * WALL_FACTOR + WALL_SLACK) for limit in limits)
  first = TimeBudget(total, calls).next()
  assert first.cpu >= total / 2  # a cold first call may use far more than an even share
  assert TimeBudget(None, calls).next() is None


async def test_an_endless_loop_is_stopped_at_its_cpu_limit():
  def spins():
    while True:
      pass

  started = time.monotonic()
  result, outcome = await call_limited(spins, label="spins", budget=TimeBudget(0.5, 1))
  assert result is None and outcome.stopped == "cpu" and outcome.raised is None
  assert 0.5 <= outcome.cpu < 2.0 and time.monotonic() - started < 10
  assert "endless loop" in outcome_note(outcome.to_dict())


async def test_an_endless_coroutine_and_one_that_swallows_the_first_stop_are_stopped():
  async def spins():
    while True:
      await asyncio.sleep(0)

  async def swallows_once():
    try:
      while True:
        pass
    except BaseException:  # noqa: BLE001 - what a careless submission does
      pass
    while True:
      pass

  for fn in (spins, swallows_once):
    _, outcome = await call_limited(fn, label=fn.__name__, budget=TimeBudget(0.4, 1))
    assert outcome.stopped == "cpu", fn.__name__


async def test_a_call_that_only_waits_is_stopped_at_the_wall_clock_limit_not_before():
  async def waits():
    await asyncio.sleep(3600)

  def blocks():
    time.sleep(3600)

  for fn in (waits, blocks):
    budget = TimeBudget(0.05, 1)  # wall limit: 0.05 * 6 + 5 s
    started = time.monotonic()
    _, outcome = await call_limited(fn, label=fn.__name__, budget=budget)
    waited = time.monotonic() - started
    assert outcome.stopped == "wall", fn.__name__
    assert WALL_SLACK <= waited < WALL_SLACK + 5, (fn.__name__, waited)
    # The watcher polled it 250 times in those seconds; that CPU is the judge's, not the
    # call's (charged to the call, it came to ~0.04 s, and past the 0.05 s limit under load).
    assert outcome.cpu < 0.02, (fn.__name__, outcome.cpu)
    assert "waiting (using no CPU)" in outcome_note(outcome.to_dict())


async def test_a_call_that_escapes_the_watcher_is_still_judged_at_its_limit():
  # One ignores the stop signal; one spends its CPU in a child process it waits for, where
  # the watcher cannot see it. Both return as if nothing happened: both are judged stopped.
  import signal
  import subprocess
  import sys

  def ignores_the_stop():
    previous = signal.signal(signal.SIGURG, signal.SIG_IGN)
    try:
      _work(STEPS * 2)
    finally:
      signal.signal(signal.SIGURG, previous)
    return "done"

  def works_in_a_child():
    subprocess.run([sys.executable, "-c", f"t = 0\nfor i in range({STEPS * 2}): t += i % 7"],
                   check=True)
    return "done"

  for fn in (ignores_the_stop, works_in_a_child):
    limit = _cpu_of_work() / 2  # a quarter of what the call uses
    result, outcome = await call_limited(fn, label=fn.__name__, budget=TimeBudget(limit, 1))
    # (The child's CPU counts once it has ended; should the parent's wait outlast the wall
    # limit first, on a busy machine, the watcher stops it there: stopped either way.)
    expected = ("cpu",) if fn is ignores_the_stop else ("cpu", "wall")
    assert outcome.stopped in expected and result is None, (fn.__name__, outcome.to_dict())
    assert outcome.returned is None, (fn.__name__, outcome.to_dict())


async def test_a_thread_that_burns_the_cpu_while_the_call_awaits_is_stopped():
  stop = threading.Event()

  async def offloads():
    def burn():
      while not stop.is_set():
        pass
    await asyncio.get_running_loop().run_in_executor(None, burn)

  try:
    _, outcome = await call_limited(offloads, label="offloads", budget=TimeBudget(0.5, 1))
  finally:
    stop.set()
  assert outcome.stopped == "cpu"


async def test_sleeping_costs_no_cpu_time():
  async def naps():
    await asyncio.sleep(1.0)
    return "rested"

  result, outcome = await call_limited(naps, label="naps", budget=TimeBudget(0.3, 1))
  assert result == "rested" and outcome.stopped is None and outcome.cpu < 0.3


def test_fixed_work_is_not_stopped_on_a_machine_four_times_overloaded():
  """The point of CPU time: the same work, within its CPU limit, passes however busy the
  machine is, although the load stretches its wall-clock time past that limit (a wall-clock
  limit of the same size would have stopped it)."""
  needed = _cpu_of_work()
  limit = needed * 2

  async def works():
    return _work()

  async def run():
    return await call_limited(works, label="works", budget=TimeBudget(limit, 1))

  # This process and four busy ones share one CPU: it gets a fifth of it, so the load stretches
  # the call past its limit on any machine (spread over every core it did not, once, here).
  cpu = min(os.sched_getaffinity(0))
  allowed = os.sched_getaffinity(0)
  try:
    with Load(per_core=4, cpus={cpu}):
      os.sched_setaffinity(0, {cpu})
      time.sleep(0.3)  # the busy processes are running
      started = time.monotonic()
      result, outcome = asyncio.run(run())
      wall = time.monotonic() - started
  finally:
    os.sched_setaffinity(0, allowed)
  assert outcome.stopped is None and result is not None, (needed, outcome.cpu, wall)
  assert wall > limit, f"the load did not stretch the call ({wall:.2f} s for {needed:.2f} s)"


@pytest.mark.parametrize("error,raised,value_error", [
    (ValueError("does not fit"), "ValueError", True), (KeyError("x"), "KeyError", False),
    (UnicodeDecodeError("utf-8", b"", 0, 1, "bad"), "UnicodeDecodeError", True)])
async def test_what_a_call_raised_is_its_outcome(error, raised, value_error):
  def raises():
    raise error

  _, outcome = await call_limited(raises, label="raises")
  assert (outcome.raised, outcome.value_error) == (raised, value_error)


async def test_sys_exit_in_a_coroutine_is_an_outcome_not_the_end_of_the_grader():
  async def leaves():
    import sys
    sys.exit(3)

  _, outcome = await call_limited(leaves, label="leaves")
  assert outcome.raised == "SystemExit" and outcome.exit_code == 3
  assert "sys.exit(3)" in outcome_note(outcome.to_dict())


async def test_breaking_the_contract_on_async_is_a_failed_call():
  """A plain ``def`` where the contract is ``async def`` fails as its caller's ``await``
  would (whatever it did first), and an ``async def`` where it is a plain ``def`` is never
  run; a plain ``def`` that returns something awaitable keeps the contract."""
  ran = []

  def plain():
    ran.append("plain")
    return 0

  async def coroutine():
    ran.append("coroutine")

  async def helper():
    return 5

  def returns_awaitable():
    return helper()

  _, outcome = await call_limited(plain, label="plain", is_async=True)
  assert outcome.raised == "TypeError" and "`async def`" in outcome.message
  assert ran == ["plain"]
  _, outcome = await call_limited(coroutine, label="coroutine", is_async=False)
  assert outcome.raised == "TypeError" and "plain `def`" in outcome.message
  assert ran == ["plain"]  # never awaited, as its caller would never await it
  result, outcome = await call_limited(returns_awaitable, label="r", is_async=True)
  assert (result, outcome.raised) == (5, None)
  assert (await call_limited(plain, label="p"))[1].raised is None  # no contract: either
  assert (await call_limited(coroutine, label="c"))[1].raised is None


def test_returned_values_are_described_with_their_exact_types():
  class Sly(str):
    def __eq__(self, other):
      return True

  assert describe(None) is None and describe(1) == 1 and describe(True) is True
  assert describe(Sly("ok")) == {"type": f"{__name__}.test_returned_values_are_described_with_"
                                         "their_exact_types.<locals>.Sly"}
  assert describe({"a": [1, (2,)]}) == {"type": "dict", "items": {"a": {
      "type": "list", "items": [1, {"type": "tuple", "items": [2]}]}}}


def test_a_snapshot_is_the_folder_byte_for_byte(tmp_path):
  world = tmp_path / "world"
  (world / "sub").mkdir(parents=True)
  (world / "a.db").write_bytes(b"\x00data")
  (world / "sub" / "b.txt").write_text("note")
  os.symlink("/etc/passwd", world / "link")
  notes = snapshot_folder(world, tmp_path / "snap")
  assert (tmp_path / "snap" / "a.db").read_bytes() == b"\x00data"
  assert (tmp_path / "snap" / "sub" / "b.txt").read_text() == "note"
  assert not (tmp_path / "snap" / "link").exists() and any("link" in n for n in notes)


async def test_an_act_world_records_each_call_and_its_snapshot(tmp_path):
  world = ActWorld(0, tmp_path / "w", {}, tmp_path / "s", TimeBudget(5, 2), is_async=False)
  world.folder.mkdir()

  def writes(path):
    Path(path).write_text("x")

  await world.call(writes, world.path("f"))
  world.snapshot()
  await world.call(writes, world.path("g"))
  report = world.report()
  assert [o["label"] for o in report["outcomes"]] == ["writes", "writes"]
  assert report["snapshot"] is True and (tmp_path / "s" / "f").exists()
  assert not (tmp_path / "s" / "g").exists()  # the snapshot is of its moment


async def test_what_a_call_leaves_running_is_stopped_at_its_return():
  """Fire and forget: a task the call starts and does not await is cancelled when the call
  returns (before it ran at all here), whatever the machine's speed, and said in a note; a
  task it awaits, and one another coroutine starts meanwhile, are left alone."""
  happened: list[str] = []
  neighbour_started, released = asyncio.Event(), asyncio.Event()

  async def after_the_return() -> None:  # its work waits for what happens after the return
    await released.wait()
    happened.append("forgotten")

  async def record(what: str) -> None:
    happened.append(what)

  async def neighbour() -> None:  # another coroutine of the judge's, running meanwhile
    await neighbour_started.wait()
    asyncio.get_running_loop().create_task(record("the neighbour's task"))

  async def fire_and_forget() -> str:
    asyncio.create_task(after_the_return())           # never awaited
    await asyncio.gather(record("gathered"))           # awaited: done before the return
    inner = asyncio.ensure_future(record("awaited"))
    neighbour_started.set()
    await inner
    await asyncio.sleep(0)                             # the neighbour starts its task now
    return "done"

  beside = asyncio.ensure_future(neighbour())
  result, outcome = await call_limited(fire_and_forget, label="fire", budget=TimeBudget(5, 1))
  await beside
  released.set()
  for _ in range(5):
    await asyncio.sleep(0)                             # time for anything left to run
  assert result == "done" and outcome.raised is None
  assert sorted(happened) == ["awaited", "gathered", "the neighbour's task"], happened
  assert any("1 task(s) it started were still running" in note for note in outcome.notes), \
      outcome.notes
  assert asyncio.get_running_loop().get_task_factory() is None   # put back as it was

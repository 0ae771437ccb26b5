"""The differential judge's rules, on a small exercise of its own (a JSON file of counters).

The toy contract: ``bump(path, name)`` adds 1 to counter ``name`` in the JSON file at ``path``,
leaves every other counter as it was, and raises ``ValueError`` when ``name`` is not in the
file. Its worlds hold counters with look-alike names; its observation is every counter.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from adkcourse.grade.checks._engine import (ABSENT, Check, Exercise, Open, View, differences,
                                            judge, run_trial, same, show, variant, world_seeds)

FILE = "counters.json"


def generate(rng: random.Random, kind: int) -> dict:
  base = rng.choice(["ada", "grace", "alan"])
  names = [base, base.upper(), f"{base}_2", f"{base}{rng.randrange(10)}"]
  counters = {name: rng.randrange(100) for name in names}
  return {"counters": counters, "name": base if kind != 2 else "missing", "kind": kind}


async def build(spec, folder: Path, resources) -> dict:  # noqa: ARG001
  (folder / FILE).write_text(json.dumps(spec["counters"]))
  return {"file": FILE, "name": spec["name"]}


async def act(fn, world) -> None:
  await world.call(fn, world.path(world.inputs["file"]), world.inputs["name"])
  world.snapshot()


async def observe(spec, folder: Path, inputs, view: View) -> dict:  # noqa: ARG001
  where = view.snapshot or folder
  data = json.loads((where / FILE).read_text())
  found = {("counter", name): value for name, value in data.items()}
  found.update({("file", p.name): "file" for p in where.iterdir()})
  return found


def classify(spec, key) -> str:
  if key[0] == "counter" and key[1] == spec["name"]:
    return "bumps_the_counter"
  return "others_untouched"


def reference(path: str, name: str) -> None:
  data = json.loads(Path(path).read_text())
  if name not in data:
    raise ValueError(f"no counter {name!r}")
  data[name] += 1
  Path(path).write_text(json.dumps(data))


TOY = Exercise(
    name="bump", lesson="toy", signature="def bump(path: str, name: str) -> None",
    is_async=False,
    checks=(Check("bumps_the_counter", 2, "The counter goes up by one.",
                  hint="Add 1 to the counter you are given", success="the counter went up"),
            Check("others_untouched", 1, "Every other counter is unchanged.",
                  needs_action=True, hint="Match the name exactly")),
    generate=generate, build=build, act=act, observe=observe, classify=classify, worlds=3,
    leaves_open=(Open(("file", "*.tmp"), "a temporary file of the writer's own"),),
    outcome_check="bumps_the_counter",
    label=lambda spec: f"bumping {spec['name']!r}")


async def grade(fn, tmp_path: Path, seed: int = 7, exercise: Exercise = TOY):
  return await run_trial(exercise, fn, tmp_path, None, world_seeds(seed, exercise.worlds),
                         reference=reference)


def test_values_compare_with_exact_types():
  assert same({"a": [1, 2.5, "x"]}, {"a": [1, 2.5, "x"]})
  for a, b in ((1, 1.0), (1, True), (0, False), ("1", 1), ([1], (1,)), ({"a": 1}, {"a": 1.0}),
               (None, "null"), ({"a": 1}, {"a": 1, "b": 2})):
    assert not same(a, b), (a, b)


def test_differences_report_absent_and_changed_keys_and_skip_only_what_is_open():
  expected = {("a",): 1, ("b",): 2, ("c",): 3}
  found = {("a",): 1, ("b",): 20, ("d",): 4}
  diffs = differences(expected, found)
  assert [(d.key, d.expected, d.found) for d in diffs] == [
      (("b",), 2, 20), (("c",), 3, ABSENT), (("d",), ABSENT, 4)]
  assert [d.key for d in differences(expected, found, lambda key: key == ("c",))] == [
      ("b",), ("d",)]
  assert show(ABSENT) == "nothing" and len(show("x" * 500)) <= 120


def test_open_patterns_match_whole_keys():
  rule = Open(("sessions", "**", "update_time"), "why")
  assert rule.matches(("sessions", "a", "b", "update_time"), {}, {})
  assert rule.matches(("sessions", "update_time"), {}, {})
  assert not rule.matches(("sessions", "a", "update_time", "x"), {}, {})
  assert not rule.matches(("events", "update_time"), {}, {})
  conditional = Open(("state", "*"), "new keys only", when=lambda key, spec, pristine: key
                     not in pristine)
  assert conditional.matches(("state", "new"), {}, {("state", "old"): 1})
  assert not conditional.matches(("state", "old"), {}, {("state", "old"): 1})


def test_world_seeds_cover_every_variant_and_replay():
  for seed in (None, 0, 1, 12345):
    seeds = world_seeds(seed, 4)
    assert [s % 4 for s in seeds] == [0, 1, 2, 3]
  assert world_seeds(5, 4) == world_seeds(5, 4) != world_seeds(6, 4)
  assert world_seeds(None, 4) != world_seeds(None, 4)
  assert variant(TOY, world_seeds(9, 3)[2]) == 2


async def test_the_reference_gets_full_marks_on_every_seed(tmp_path):
  for seed in range(20):
    report = await grade(reference, tmp_path / str(seed), seed)
    assert report.score == report.max_score == 3, report.to_text()


async def test_a_wrong_item_costs_only_its_check_in_the_worlds_where_it_differs(tmp_path):
  def lowercases_too(path, name):  # bumps every counter spelled like it, any case
    reference(path, name)
    data = json.loads(Path(path).read_text())
    for other in data:
      if other != name and other.lower() == name.lower():
        data[other] += 1
    Path(path).write_text(json.dumps(data))

  report = await grade(lowercases_too, tmp_path)
  rows = {r.check: r for r in report.results}
  assert rows["bumps_the_counter"].earned == 2
  assert rows["others_untouched"].earned == pytest.approx(0.33)  # met in 1 world of 3
  feedback = rows["others_untouched"].feedback
  assert "not met in 2 of 3 worlds" in feedback and "world 1 (seed" in feedback
  assert "counter / " in feedback and "expected" in feedback and "found" in feedback
  assert feedback.endswith("Match the name exactly")


async def test_a_call_that_raises_where_the_reference_returns_earns_nothing_there(tmp_path):
  def works_then_raises(path, name):
    reference(path, name)
    raise RuntimeError("database is locked")

  report = await grade(works_then_raises, tmp_path)
  # worlds 1 and 2 earn nothing although the counter went up; in world 3 the name is missing,
  # and both raise ValueError (before the RuntimeError): judged, and met
  assert report.score == pytest.approx(1.0)
  rows = {r.check: r for r in report.results}
  assert "raised RuntimeError: database is locked" in rows["bumps_the_counter"].feedback
  assert any("raised RuntimeError" in note for note in report.notes)


async def test_a_different_outcome_costs_the_outcome_check(tmp_path):
  def never_refuses(path, name):
    data = json.loads(Path(path).read_text())
    data[name] = data.get(name, 0) + 1
    Path(path).write_text(json.dumps(data))

  report = await grade(never_refuses, tmp_path)
  rows = {r.check: r for r in report.results}
  assert rows["bumps_the_counter"].earned < 2
  assert "expected it to have raised ValueError, it returned" in rows["bumps_the_counter"].feedback


async def test_the_stub_is_told_what_is_required_not_how(tmp_path):
  def stub(path, name):
    raise NotImplementedError("write me")

  report = await grade(stub, tmp_path)
  assert report.score == 0
  assert all(r.feedback.startswith("not met yet: ") for r in report.results)
  assert any("stub is not replaced yet" in note for note in report.notes)


async def test_doing_nothing_earns_nothing_for_leaving_the_rest_untouched(tmp_path):
  def does_nothing(path, name):
    if name == "missing":
      raise ValueError("no such counter")

  report = await grade(does_nothing, tmp_path)
  rows = {r.check: r for r in report.results}
  assert rows["others_untouched"].earned < 1  # worlds where the reference changed something
  assert "changed nothing" in rows["others_untouched"].feedback


async def test_what_the_contract_leaves_open_is_never_compared(tmp_path):
  def leaves_a_temp_file(path, name):
    reference(path, name)
    Path(path + ".tmp").write_text("scratch")

  def leaves_another_file(path, name):
    reference(path, name)
    Path(path + ".bak").write_text("a copy")

  assert (await grade(leaves_a_temp_file, tmp_path / "a")).score == 3
  assert (await grade(leaves_another_file, tmp_path / "b")).score < 3


async def test_properties_hold_the_reference_to_the_contract(tmp_path):
  def no_counter_above_100(spec, observed, pristine):  # noqa: ARG001
    return [("others_untouched", f"{key[1]} is {value}") for key, value in observed.items()
            if key[0] == "counter" and type(value) is int and value > 1000]

  strict = Exercise(**{**TOY.__dict__, "properties": no_counter_above_100})

  def inflates(path, name):
    reference(path, name)
    data = json.loads(Path(path).read_text())
    data[name] += 10_000
    Path(path).write_text(json.dumps(data))

  report = await grade(inflates, tmp_path, exercise=strict)
  rows = {r.check: r for r in report.results}
  assert rows["others_untouched"].earned < 1 and "is 1" in rows["others_untouched"].feedback


async def test_classify_naming_an_unknown_check_is_an_error_not_a_free_pass(tmp_path):
  broken = Exercise(**{**TOY.__dict__, "classify": lambda spec, key: "no_such_check"})

  def wrong(path, name):
    Path(path).write_text("{}")

  with pytest.raises(ValueError, match="unknown checks"):
    await grade(wrong, tmp_path, exercise=broken)


async def test_the_submission_never_sees_the_reference_copy(tmp_path):
  """In the self-check too, the reference's copies are gone before the submission runs: only
  their observations remain, in memory."""
  seen = []

  def looks_around(path, name):
    seen.extend(p for p in tmp_path.rglob(FILE) if "reference" in p.parts)
    reference(path, name)

  report = await grade(looks_around, tmp_path)
  assert report.score == 3 and seen == []

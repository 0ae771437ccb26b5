"""The differential judge every exercise shares: the reference and the submission, run on
identical copies of random worlds, compared on everything observable.

A check that compares the few fields its author thought of, on one fixed world, passes the
wrong solutions nobody thought of. So an exercise declares four things instead of checks:

- ``generate(rng, index) -> spec``: a random world, as JSON (names, ids, sizes, contents),
  drawn from the world's own seed, with the awkward cases in it;
- ``build(spec, folder, resources) -> inputs``: the world made real once, as a template
  (SQLite files in ``folder``, PostgreSQL databases); ``duplicate(spec, template, inputs,
  folder, resources, copy)`` makes each identical copy from it (default: the folder's files;
  an exercise on PostgreSQL clones its databases). ``copy`` says which: ``REFERENCE_COPY``,
  ``NULL_COPY``, ``SUBMISSION_COPY`` (the last copy of the template, which it may consume), or
  ``KEPT_COPY`` (a submission's copy of a template kept for more trials: leave the template
  whole). ``inputs`` (JSON) is what ``act`` needs and
  nothing more: the submission reads it, so it holds no expected answer;
- ``act(fn, world)``: what the function is called with, through ``world.call`` (see
  ``_harness``), and when the world's snapshot is taken;
- optionally ``seal(folder, elsewhere, inputs)``: what must be recorded of a world once its
  run is over that its files alone do not carry back (a tree too deep for the sandbox's
  caps, extended attributes, empty folders). It is trusted code, run where no code of the run
  is left to forge it: by the sandbox's supervisor after the submission's processes are
  killed, by the judge after the reference's ``act``. ``act`` runs in the submission's own
  process, so nothing it records of the final state can be believed;
- ``observe(spec, folder, inputs, view) -> Observation``: the whole world as it is now, as a
  flat mapping from keys (tuples of strings and numbers) to JSON values: every row of every
  table, every file, every key of every state, the privilege catalogue... ``view`` says
  whether this is the pristine world (before), or after a run (then ``view.snapshot`` is the
  folder as it was at return time, when there is one).

plus ``classify(spec, key) -> check name``, which says which of the exercise's ``checks`` a
difference at ``key`` costs, and ``leaves_open``: what the contract explicitly leaves open, in
one place (``Open``), never compared. Exercises whose right answers differ (a prompt budget)
set ``compare_to_reference=False`` and judge ``properties`` over a grid of worlds instead;
``properties`` can also state what every outcome must satisfy (the reference included: a test
runs it on many seeds).

The judge builds each world twice: the reference runs on one copy, the submission on the
other; the pristine copy is observed before the submission runs. A check earns its share of
points for each world where nothing it covers differs. A world where a call raised when the
reference's did not, or was stopped at its time limit, earns nothing: what it did before
failing is no completion. Nor does a world the submission left exactly as a function that
does nothing would (the pristine world or, with ``null_run``, what a no-op leaves) while the
reference changed it: doing nothing is not "leaving the rest untouched". (``Check.needs_action``
is kept for the feedback of exercises that mark such checks; every check follows the rule.)
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import math
import os
import random
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable, Optional

from ..report import CheckResult, Report
from ..wording import check_text, english, say, translate, translate_all
from ._harness import ActWorld, outcome_note

Key = tuple
Observation = dict  # Key -> JSON value

# Which copy of a world's template ``duplicate`` is making (its last argument).
REFERENCE_COPY, SUBMISSION_COPY, NULL_COPY, KEPT_COPY = 0, 1, 2, 3

ABSENT = object()  # a key one observation has and the other lacks
MAX_SHOWN = 3  # differences shown per check
MAX_ALIKE = 2  # notes shown for calls that ended the same way (the rest are counted)
VALUE_CHARS = 120


@dataclass(frozen=True)
class Resources:
  """What the grader lends ``build`` besides a folder: the admin URL of a PostgreSQL server
  private to this grading (the course's own server in the students' self-check), or None."""

  postgres_url: Optional[str] = None


@dataclass(frozen=True)
class Check:
  """One gradable part of the contract: its points, the contract's words (``requires``, shown
  as "not met yet" to a student who has not started), a ``hint`` naming what usually causes
  a difference there (never how to write it), and the feedback when it is met."""

  name: str
  points: float
  requires: str
  hint: str = ""
  success: str = ""
  needs_action: bool = False

  @property
  def description(self) -> str:
    return self.requires


@dataclass(frozen=True)
class Open:
  """Something the contract leaves open: keys matching ``pattern`` (one ``fnmatch`` pattern
  per element; ``"**"`` matches any number of elements) are not compared, when ``when`` (if
  given) says so for this key: ``when(key, spec, pristine)``. ``why`` is shown to instructors."""

  pattern: tuple[str, ...]
  why: str
  when: Optional[Callable[[Key, dict, Observation], bool]] = None

  def matches(self, key: Key, spec: dict, pristine: Observation) -> bool:
    if not _match(self.pattern, tuple(str(part) for part in key)):
      return False
    return self.when is None or bool(self.when(key, spec, pristine))


def _match(pattern: tuple[str, ...], key: tuple[str, ...]) -> bool:
  if not pattern:
    return not key
  head, rest = pattern[0], pattern[1:]
  if head == "**":
    return any(_match(rest, key[i:]) for i in range(len(key) + 1))
  return bool(key) and fnmatch.fnmatchcase(key[0], head) and _match(rest, key[1:])


@dataclass(frozen=True)
class View:
  """Which state of a world ``observe`` is asked for."""

  kind: str  # "pristine", "reference" or "submission"
  snapshot: Optional[Path] = None  # the folder at return time (None: not taken)


@dataclass(frozen=True)
class Exercise:
  """An exercise as the judge knows it (see the module's docstring)."""

  name: str
  lesson: str
  signature: str
  is_async: bool
  checks: tuple[Check, ...]
  generate: Callable[[random.Random, int], dict]  # (rng, variant) -> spec
  build: Callable[[dict, Path, Resources], Awaitable[dict]]
  act: Callable[[Callable, ActWorld], Awaitable[None]]
  observe: Callable[[dict, Path, dict, View], Awaitable[Observation]]
  classify: Callable[[dict, Key], Any]  # a check name, or several
  leaves_open: tuple[Open, ...] = ()
  properties: Optional[Callable[[dict, Observation, Observation], list[tuple[str, str]]]] = None
  compare_to_reference: bool = True
  worlds: int = 4
  calls: Callable[[dict], int] = lambda spec: 1  # calls of the function per world
  needs_postgres: bool = False
  teardown: Optional[Callable[[dict, dict, Resources], Awaitable[None]]] = None
  describe_key: Optional[Callable[[dict, Key], str]] = None
  label: Callable[[dict], str] = lambda spec: ""
  servers: Optional[Callable[[dict], dict[str, Any]]] = None  # trusted services of a world
  outcome_check: Optional[str] = None  # the check a different call outcome costs
  duplicate: Callable[[dict, Path, dict, Path, Resources, int], Awaitable[dict]] = None  # type: ignore[assignment]
  # Observe what a function that does nothing leaves (a third copy, run through ``act``), and
  # judge "did it change anything" against that rather than the pristine world: needed where
  # ``act`` itself changes the world (a Runner stores the conversation, a connection held open
  # makes a -wal file), so that doing nothing is never mistaken for acting.
  null_run: bool = False
  # (folder, elsewhere, inputs): the trusted record of the world as its run left it (above)
  seal: Optional[Callable[[Path, Path, dict], None]] = None

  def __post_init__(self) -> None:
    if self.duplicate is None:
      object.__setattr__(self, "duplicate", copy_folder)

  @property
  def max_score(self) -> float:
    return round(sum(c.points for c in self.checks), 2)

  def zero_report(self, reason: str, lang: str = "en") -> Report:
    """The report of a submission that could not run at all: every check at 0 (``reason``,
    written in English, is shown in ``lang``)."""
    return Report(self.name, [CheckResult(c.name, c.points, 0.0, say(lang, "not_run"))
                              for c in self.checks], [translate(lang, reason)], lang=lang)

  def is_open(self, key: Key, spec: dict, pristine: Observation) -> bool:
    key = _bare(key)
    return any(rule.matches(key, spec, pristine) for rule in self.leaves_open)


# -- seeds ------------------------------------------------------------------------------------

def world_seeds(seed: Optional[int], count: int) -> list[int]:
  """The seeds of a run's ``count`` worlds: drawn fresh when ``seed`` is None, else derived
  from it. World ``i``'s seed is ``i`` modulo ``count``: its ``variant`` (the kind of world
  ``generate`` makes), so that every run has every kind, and a seed alone replays its world."""
  if seed is None:
    import secrets

    return [secrets.randbits(40) * count + i for i in range(count)]
  return [int.from_bytes(hashlib.sha256(f"{seed}:{i}".encode()).digest()[:5], "big") * count + i
          for i in range(count)]


def variant(exercise: "Exercise", seed: int) -> int:
  """The kind of world a seed stands for (see ``world_seeds``)."""
  return seed % exercise.worlds


# -- comparing --------------------------------------------------------------------------------

def same(a: Any, b: Any) -> bool:
  """Equal as JSON values with exact types: ``1``, ``1.0`` and ``True`` all differ."""
  if type(a) is not type(b):
    return False
  if isinstance(a, dict):
    return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
  if isinstance(a, (list, tuple)):
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
  if isinstance(a, float) and math.isnan(a) and math.isnan(b):
    return True
  return a == b


def _sort_key(key: Key) -> tuple:
  return tuple((0, part) if isinstance(part, (int, float)) else (1, str(part)) for part in key)


@dataclass(frozen=True)
class Difference:
  key: Key
  expected: Any
  found: Any


def differences(expected: Observation, found: Observation,
                skip: Callable[[Key], bool] = lambda key: False) -> list[Difference]:
  """Every key whose value differs (or that only one side has), in a stable order."""
  out = []
  for key in set(expected) | set(found):
    a, b = expected.get(key, ABSENT), found.get(key, ABSENT)
    if (a is ABSENT or b is ABSENT or not same(a, b)) and not skip(key):
      out.append(Difference(key, a, b))
  return sorted(out, key=lambda d: _sort_key(d.key))


def same_difference(a: Difference, b: Difference) -> bool:
  def alike(x: Any, y: Any) -> bool:
    return x is y if ABSENT in (x, y) else same(x, y)
  return alike(a.expected, b.expected) and alike(a.found, b.found)


def show(value: Any) -> str:
  """A value as a student reads it in feedback (cut short)."""
  if value is ABSENT:
    return english("nothing")
  try:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if unicodedata.normalize("NFC", text) != text:  # looks the same as its NFC twin: say so
      text = json.dumps(value, ensure_ascii=True, sort_keys=True) + " (not in NFC form)"
  except (TypeError, ValueError):
    text = repr(value)
  return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 1] + "…"


def show_pair(expected: Any, found: Any) -> str:
  """"expected X, found Y", and for two long strings that share a beginning, where they part
  (shown cut short, a truncation or a changed end would read as the same two texts)."""
  if (isinstance(expected, str) and isinstance(found, str)
      and max(len(expected), len(found)) > VALUE_CHARS // 2):
    common = len(os.path.commonprefix([expected, found]))
    return english("expected_found_long", expected=show(expected), found=show(found),
                   expected_length=f"{len(expected):,}", found_length=f"{len(found):,}",
                   common=f"{common:,}", expected_end=show(expected[common:common + 40]),
                   found_end=show(found[common:common + 40]))
  return english("expected_found", expected=show(expected), found=show(found))


def default_describe(spec: dict, key: Key) -> str:  # noqa: ARG001
  return " / ".join(str(part) for part in key)


# -- one world's verdict ----------------------------------------------------------------------

@dataclass
class WorldResult:
  """One world after both runs: what the judge observed, and how the calls ended."""

  index: int
  seed: int
  spec: dict
  pristine: Observation
  reference: Observation
  submission: Optional[Observation]  # None: the run left nothing the judge could observe
  reference_outcomes: list[dict]
  outcomes: list[dict]
  notes: list[str] = field(default_factory=list)  # about this world's run (shown to students)
  failure: Optional[str] = None  # why nothing of this world can be credited
  null: Optional[Observation] = None  # what doing nothing leaves (None: the pristine world)


def outcome_value(outcome: dict) -> Any:
  """What of a call's outcome the contract sees: returned, a ValueError, or another raise."""
  if outcome.get("stopped"):
    return english("outcome_stopped", kind=outcome["stopped"])
  raised = outcome.get("raised")
  if raised is None:
    return english("outcome_returned")
  if outcome.get("value_error"):  # "raise ValueError saying why": an empty message says nothing
    return english("outcome_raised", name="ValueError") if (
        outcome.get("message") or "").strip() else english("outcome_value_error_empty")
  return english("outcome_raised", name=raised)


def _failure(result: WorldResult) -> Optional[str]:
  """Why no check can be credited in this world (None: judge it)."""
  if result.failure:
    return result.failure
  if result.submission is None:
    return english("left_nothing")
  for number, outcome in enumerate(result.outcomes):
    expected = (result.reference_outcomes[number] if number < len(result.reference_outcomes)
                else {"raised": None})
    if outcome.get("stopped"):
      return outcome_note(outcome) or english("stopped_at_limit")
    if outcome.get("raised") and not expected.get("raised"):
      return english("raised_where_returns", note=outcome_note(outcome))
    if outcome.get("raised") and outcome_value(outcome) != outcome_value(expected):
      return english("raised_where_has", note=outcome_note(outcome),
                     expected=outcome_value(expected))
  if len(result.outcomes) < len(result.reference_outcomes):
    return english("run_ended_after", done=len(result.outcomes),
                   count=len(result.reference_outcomes))
  return None


def world_problems(exercise: Exercise, result: WorldResult) -> dict[str, list[str]]:
  """check name -> what is wrong with it in this world (empty: met)."""
  problems: dict[str, list[str]] = {c.name: [] for c in exercise.checks}
  failure = _failure(result)
  if failure is not None:
    for name in problems:
      problems[name].append(failure)
    return problems
  assert result.submission is not None
  spec, pristine = result.spec, result.pristine
  describe = exercise.describe_key or default_describe
  seen = result.submission
  if exercise.compare_to_reference:
    outcome_check = exercise.outcome_check or exercise.checks[0].name
    for number, (expected, found) in enumerate(zip(result.reference_outcomes, result.outcomes)):
      a, b = outcome_value(expected), outcome_value(found)
      if a != b:
        problems[outcome_check].append(english("call_outcome", number=number + 1,
                                               label=found.get("label"), expected=a, found=b))
    found = differences(result.reference, seen, lambda key: exercise.is_open(key, spec, pristine))
    at_return = {d.key: d for d in found if d.key[:1] != (AFTER,)}
    found = [d for d in found if d.key[:1] != (AFTER,)] + [  # at return first; once if alike
        d for d in found if d.key[:1] == (AFTER,) and not (
            d.key[1:] in at_return and same_difference(at_return[d.key[1:]], d))]
    for diff in found:
      if diff.key[:1] == (RETURNED,):
        where = english("what_call_returned", number=diff.key[1] + 1)
        checks = (outcome_check,)
      else:
        where = describe(spec, _bare(diff.key))
        checks = _names(exercise.classify(spec, _bare(diff.key)))
      if diff.key[:1] == (AFTER,):
        where = english("finally_left", where=where)
      text = english("at_where", where=where, what=show_pair(diff.expected, diff.found))
      for check in checks:
        problems.setdefault(check, []).append(text)
  if exercise.properties is not None:
    at_return = {k: v for k, v in seen.items() if k[:1] != (AFTER,)}
    final = {k[1:]: v for k, v in seen.items() if k[:1] == (AFTER,)}
    for check, problem in exercise.properties(spec, at_return, pristine):
      problems.setdefault(check, []).append(problem)
    if final:
      for check, problem in exercise.properties(spec, final, pristine):
        problems.setdefault(check, []).append(english("finally_left", where=problem))
  acted_check = [c.name for c in exercise.checks] if exercise.compare_to_reference else []
  if acted_check:
    skip = lambda key: exercise.is_open(key, spec, pristine)  # noqa: E731
    def world_only(observed: Observation) -> Observation:  # the world, not the calls' returns
      return {k: v for k, v in observed.items() if k[:1] not in ((AFTER,), (RETURNED,))}

    at_return, reference_at_return = world_only(seen), world_only(result.reference)
    baseline = world_only(result.null if result.null is not None else pristine)
    unchanged = not differences(baseline, at_return, skip)
    reference_changed = bool(differences(baseline, reference_at_return, skip))
    if unchanged and reference_changed:
      for name in acted_check:
        problems[name].append(english("changed_nothing"))
  unknown = set(problems) - {c.name for c in exercise.checks}
  if unknown:  # an exercise's own bug: never silently credit it
    raise ValueError(f"classify() named unknown checks: {sorted(unknown)}")
  return problems


def _names(classified: Any) -> tuple[str, ...]:
  return (classified,) if isinstance(classified, str) else tuple(classified)


def _world_name(exercise: Exercise, result: WorldResult, lang: str = "en") -> str:
  label = exercise.label(result.spec)
  if label:
    return say(lang, "world_labelled", number=result.index + 1, seed=result.seed,
               label=translate(lang, label))
  return say(lang, "world", number=result.index + 1, seed=result.seed)


def judge(exercise: Exercise, results: list[WorldResult], lang: str = "en") -> Report:
  """The report: each check's share of points over the worlds, feedback a student can act on
  (which world and seed, which item, expected versus found), and the notes of the runs.

  ``lang``: the language the student reads. Everything is judged, grouped and folded on the
  English texts; only what is shown is then said in ``lang`` (``wording``), so a grade never
  depends on the language."""
  if not results:
    raise ValueError("no world to judge")  # never full marks for having judged nothing
  verdicts = [world_problems(exercise, result) for result in results]
  started = any(_started(result) for result in results)
  rows = []
  for check in exercise.checks:
    met = [not v[check.name] for v in verdicts]
    earned = round(check.points * sum(met) / max(1, len(met)), 2)
    def text(field: str) -> str:
      return check_text(lang, exercise.name, check.name, field, getattr(check, field))

    if all(met):
      feedback = text("success") or say(lang, "met_all", count=len(met))
    elif not started:
      feedback = say(lang, "not_met_yet", requires=text("requires").replace("`", ""))
    else:
      failing = [i for i, ok in enumerate(met) if not ok]
      first = results[failing[0]]
      problems = verdicts[failing[0]][check.name]
      shown = say(lang, "separator").join(translate_all(lang, problems[:MAX_SHOWN]))
      more = len(problems) - MAX_SHOWN
      feedback = (say(lang, "not_met", failing=len(failing), count=len(met),
                      world=_world_name(exercise, first, lang), problems=shown)
                  + (say(lang, "more_differences", count=more) if more > 0 else ""))
      if check.hint and _failure(first) is None:  # a failed call: the hint is beside the point
        feedback += f". {text('hint')}"
    rows.append(CheckResult(check.name, check.points, earned, feedback))
  notes: list[str] = []
  calls_alike: dict[str, list[str]] = {}  # how calls ended (their names left out): their notes
  for result in results:
    for number, outcome in enumerate(result.outcomes):
      note = outcome_note(outcome)
      expected = (result.reference_outcomes[number]
                  if number < len(result.reference_outcomes) else {})
      if note and outcome_value(outcome) != outcome_value(expected or {"raised": None}):
        # (a refusal the contract asks for is no news)
        kind = outcome_note({**outcome, "label": "the call"}) or note
        if kind not in calls_alike:
          notes.append(kind)  # where this kind's notes go, in order of first appearance
        calls_alike.setdefault(kind, []).append(note)
      notes += outcome.get("notes") or []
    notes += result.notes
  return Report(exercise.name, rows, translate_all(lang, _fold_alike(notes, calls_alike)),
                lang=lang)


def _fold_alike(notes: list[str], calls_alike: dict[str, list[str]]) -> list[str]:
  """The notes, each once, where the calls that ended the same way (a stub's 150 calls that
  all raised NotImplementedError) show ``MAX_ALIKE`` examples and a count, not a page of
  lines that differ only in the app's and user's names."""
  folded: list[str] = []
  for note in dict.fromkeys(notes):
    examples = calls_alike.get(note)
    if examples is None:
      folded.append(note)
      continue
    distinct = list(dict.fromkeys(examples))
    folded += distinct[:MAX_ALIKE]
    if len(distinct) > MAX_ALIKE:
      folded.append(english("more_calls", count=len(distinct) - MAX_ALIKE))
  return folded


def _started(result: WorldResult) -> bool:
  """Did the submission do anything at all here (not the stub: it raised or changed data)?"""
  if result.submission is None:
    return False
  if any(o.get("raised") == "NotImplementedError" for o in result.outcomes):
    return False
  return True


# -- running a whole trial in one process (the students' self-check) -------------------------

@dataclass
class Prepared:
  """One world ready for the submission: its reference and pristine observations, and the
  submission's copy (``inputs``, in ``folder``)."""

  index: int
  seed: int
  spec: dict
  folder: Path
  snapshot_dir: Path
  inputs: dict
  pristine: Observation
  reference: Observation
  reference_outcomes: list[dict]
  servers: dict[str, Any] = field(default_factory=dict)
  notes: list[str] = field(default_factory=list)
  resources: Resources = Resources()
  null: Optional[Observation] = None


def _servers(exercise: Exercise, spec: dict) -> dict[str, Any]:
  return exercise.servers(spec) if exercise.servers is not None else {}


async def copy_folder(spec: dict, template: Path, inputs: dict, folder: Path,  # noqa: ARG001
                      resources: Resources, copy: int) -> dict:  # noqa: ARG001
  """The default ``duplicate``: the template's files, byte for byte (same inputs)."""
  import shutil

  shutil.copytree(template, folder, dirs_exist_ok=True)
  return dict(inputs)


@dataclass
class Template:
  """One world built once, with what the reference and a no-op left in their copies of it:
  everything of ``prepare_world`` that does not depend on the submission."""

  spec: dict
  folder: Path
  inputs: dict
  reference: Observation
  reference_outcomes: list[dict]
  null: Optional[Observation]


class TemplateCache:
  """Templates kept between trials of the same exercise on the same world seeds, so that a
  batch of submissions judged on one seed (the mutation tests: hundreds of cases, each on the
  same worlds) builds each world and runs the reference once, not once per submission. Each
  submission still gets a fresh copy of the template, made by the exercise's ``duplicate``,
  exactly as without the cache. ``close()`` tears the templates down (their databases too)."""

  def __init__(self, folder: Path):
    self.folder = Path(folder)
    self._templates: dict[tuple, tuple[Exercise, Resources, Template]] = {}

  async def template(self, exercise: Exercise, reference: Callable, index: int, seed: int,
                     private: Path, resources: Resources) -> Template:
    """World ``seed``'s template: the one kept from an earlier trial, or a new one, kept."""
    key = (exercise.name, seed, index, resources.postgres_url)
    if key not in self._templates:
      folder = self.folder / f"template-{len(self._templates)}-{exercise.name}-{index}"
      made = await _make_template(exercise, reference, index, seed, folder, private, resources)
      self._templates[key] = (exercise, resources, made)
    return self._templates[key][2]

  async def close(self) -> None:
    templates, self._templates = self._templates, {}
    for exercise, resources, template in templates.values():
      await _discard(exercise, template.spec, template.inputs, template.folder, resources)


async def _discard(exercise: Exercise, spec: dict, inputs: dict, folder: Path,
                   resources: Resources) -> None:
  """A template gone: its databases (``teardown``) and its folder."""
  import shutil

  try:
    if exercise.teardown is not None:
      await exercise.teardown(spec, inputs, resources)
  finally:
    shutil.rmtree(folder, ignore_errors=True)


async def _make_template(exercise: Exercise, reference: Callable, index: int, seed: int,
                         folder: Path, private: Path, resources: Resources) -> Template:
  """Build world ``seed`` in ``folder``, then run the reference (and a no-op, with
  ``null_run``) on copies of it. On failure the template is torn down."""
  spec = exercise.generate(random.Random(seed), variant(exercise, seed))
  folder.mkdir(parents=True)
  template_inputs = await exercise.build(spec, folder, resources)
  try:
    if exercise.compare_to_reference:
      reference_view, reference_outcomes = await _reference_run(
          exercise, reference, spec, folder, template_inputs, private, index, resources)
    else:  # judged by properties alone (tests/test_references.py holds the reference to them)
      reference_view, reference_outcomes = {}, []
    null = None
    if exercise.null_run:
      null = await _null_run(exercise, spec, folder, template_inputs, private / f"null-{index}",
                             index, resources)
  except BaseException:
    await _discard(exercise, spec, template_inputs, folder, resources)
    raise
  return Template(spec, folder, template_inputs, reference_view, reference_outcomes, null)


async def prepare_world(exercise: Exercise, reference: Callable, index: int, seed: int,
                        root: Path, private: Path, resources: Resources,
                        cache: Optional[TemplateCache] = None) -> Prepared:
  """Build world ``seed`` once as a template (in ``private``, which the submission never
  sees), then two identical copies: the reference runs on one and is observed; the other (in
  ``root``) is observed pristine, for the submission. With ``cache``, a template made for an
  earlier trial on the same seed is copied again instead (and a new one is kept there)."""
  if cache is not None:
    template = await cache.template(exercise, reference, index, seed, private, resources)
  else:
    template = await _make_template(exercise, reference, index, seed,
                                    private / f"template-{index}", private, resources)
  spec = template.spec
  try:
    folder, snapshot_dir = root / f"world-{index}", root / f"snapshot-{index}"
    folder.mkdir(parents=True)
    inputs = await exercise.duplicate(spec, template.folder, template.inputs, folder, resources,
                                      SUBMISSION_COPY if cache is None else KEPT_COPY)
  finally:
    if cache is None:
      await _discard(exercise, spec, template.inputs, template.folder, resources)
  try:
    pristine = await exercise.observe(spec, folder, inputs, View("pristine"))
    servers = _servers(exercise, spec)
    pristine.update(_server_observations(servers))
  except BaseException:
    if exercise.teardown is not None:
      await exercise.teardown(spec, inputs, resources)
    raise
  return Prepared(index, seed, spec, folder, snapshot_dir, inputs, pristine, template.reference,
                  template.reference_outcomes, servers, resources=resources, null=template.null)


async def _reference_run(exercise: Exercise, reference: Callable, spec: dict, template: Path,
                         template_inputs: dict, private: Path, index: int,
                         resources: Resources) -> tuple[Observation, list[dict]]:
  """The reference on its own copy of the world: what it left, and how its calls ended."""
  import shutil

  ref_folder, ref_snapshot = private / f"world-{index}", private / f"snapshot-{index}"
  ref_folder.mkdir(parents=True)
  ref_inputs = await exercise.duplicate(spec, template, template_inputs, ref_folder,
                                        resources, REFERENCE_COPY)
  try:
    servers = _servers(exercise, spec)
    world = ActWorld(index, ref_folder, ref_inputs, ref_snapshot, budget=None,
                     is_async=exercise.is_async, channels=_local_channels(servers))
    await exercise.act(reference, world)
    seal_world(exercise, world)
    reference_view = await _observe_run(exercise, spec, ref_folder, ref_inputs, "reference",
                                        ref_snapshot if world.snapshotted else None)
    reference_view.update(_server_observations(servers))
    reference_view.update(_returned(world.outcomes))
    return reference_view, world.outcomes
  finally:
    if exercise.teardown is not None:
      await exercise.teardown(spec, ref_inputs, resources)
    # observed: the reference's outcome lives on in memory only, out of the submission's reach
    shutil.rmtree(ref_folder, ignore_errors=True)
    shutil.rmtree(ref_snapshot, ignore_errors=True)


async def _null_run(exercise: Exercise, spec: dict, template: Path, template_inputs: dict,
                    where: Path, index: int, resources: Resources) -> Observation:
  """What a function that does nothing (and returns None) leaves in a copy of the world."""
  import shutil

  async def nothing_async(*args: Any, **kwargs: Any) -> None:  # noqa: ARG001
    return None

  def nothing(*args: Any, **kwargs: Any) -> None:  # noqa: ARG001
    return None

  fn = nothing_async if exercise.is_async else nothing
  fn.__name__ = exercise.name
  folder, snapshot = where / f"world-{index}", where / f"snapshot-{index}"  # as the others
  folder.mkdir(parents=True)
  inputs = await exercise.duplicate(spec, template, template_inputs, folder, resources, NULL_COPY)
  try:
    servers = _servers(exercise, spec)
    world = ActWorld(index, folder, inputs, snapshot, budget=None, is_async=exercise.is_async,
                     channels=_local_channels(servers))
    await exercise.act(fn, world)
    seal_world(exercise, world)
    observed = await _observe_run(exercise, spec, folder, inputs, "null",
                                  snapshot if world.snapshotted else None)
    observed.update(_server_observations(servers))
    observed.update(_returned(world.outcomes))
    return observed
  finally:
    if exercise.teardown is not None:
      await exercise.teardown(spec, inputs, resources)
    shutil.rmtree(where, ignore_errors=True)


def seal_world(exercise: Exercise, world: ActWorld) -> None:
  """``exercise.seal`` on ``world`` once its run is over (where the judge ran it itself)."""
  if exercise.seal is not None:
    exercise.seal(world.folder, world.elsewhere_folder, world.inputs)


AFTER = "after"  # the first element of the keys of a world as its run finally left it


async def _observe_run(exercise: Exercise, spec: dict, folder: Path, inputs: dict, kind: str,
                       snapshot: Optional[Path]) -> Observation:
  """A world after a run: as it was at return time (the snapshot) and, under keys that start
  with ``AFTER``, as the run finally left it. The snapshot is taken where the code ran, so a
  submission could forge it; what it finally left it cannot forge without doing the work, and
  both must match the reference's."""
  observed = await exercise.observe(spec, folder, inputs, View(kind, snapshot))
  if snapshot is not None:
    final = await exercise.observe(spec, folder, inputs, View(kind))
    observed.update({(AFTER,) + tuple(key): value for key, value in final.items()})
  return observed


RETURNED = "returned"  # keys ("returned", call number): what a call returned, described


def _returned(outcomes: list[dict]) -> Observation:
  """What each call that returned gave back (``_harness.describe``): observed like the rest
  (an exercise whose contract leaves it open says so with ``Open(("returned", "*"), ...)``)."""
  return {(RETURNED, number): outcome.get("returned") for number, outcome in enumerate(outcomes)
          if not outcome.get("raised") and not outcome.get("stopped")}


def _bare(key: Key) -> Key:
  """A key without its ``AFTER`` prefix (classified, described and left open the same)."""
  return key[1:] if key and key[0] == AFTER else key


def _local_channels(servers: dict[str, Any]) -> dict[str, Any]:
  from ._channel import LocalChannel

  return {name: LocalChannel(server) for name, server in servers.items()}


def _server_observations(servers: dict[str, Any]) -> Observation:
  found: Observation = {}
  for name, server in servers.items():
    for key, value in server.observe().items():
      found[("service", name) + tuple(key)] = value
  return found


async def observe_world(exercise: Exercise, prepared: Prepared, report: Optional[dict]
                        ) -> WorldResult:
  """The submission's copy of one world after its run (``report``: the run's
  ``ActWorld.report()``, untrusted JSON from a sandbox, None when it sent none)."""
  outcomes, notes, snapshotted = _outcomes(report)
  failure = None
  observed = None
  if report is None:
    failure = english("reported_nothing")
  elif isinstance(report, dict) and type(report.get("unsealed")) is str:
    failure = english("unsealed", detail=report["unsealed"][:300])
  try:
    observed = await _observe_run(exercise, prepared.spec, prepared.folder, prepared.inputs,
                                  "submission", prepared.snapshot_dir if snapshotted else None)
    observed.update(_server_observations(prepared.servers))
    observed.update(_returned(outcomes))
  except Exception as error:  # noqa: BLE001 - what a submission left may be anything
    failure = english("not_observable", error=f"{type(error).__name__}: {error}")
  finally:
    if exercise.teardown is not None:
      await exercise.teardown(prepared.spec, prepared.inputs, prepared.resources)
  if not snapshotted and failure is None and outcomes and not any(
      o.get("stopped") or o.get("raised") for o in outcomes):
    failure = english("ended_before_snapshot")
  return WorldResult(prepared.index, prepared.seed, prepared.spec, prepared.pristine,
                     prepared.reference, observed, prepared.reference_outcomes, outcomes,
                     notes + prepared.notes, failure, prepared.null)


MAX_OUTCOMES = 500


def _outcomes(report: Any) -> tuple[list[dict], list[str], bool]:
  """A world's report from the run, every field's type checked (it may come from a sandbox)."""
  if not isinstance(report, dict):
    return [], [], False
  listed = report.get("outcomes")
  outcomes = []
  for item in listed[:MAX_OUTCOMES] if isinstance(listed, list) else []:
    if not isinstance(item, dict):
      continue
    clean = {
        "label": item.get("label")[:200] if type(item.get("label")) is str else "the function",
        "raised": item.get("raised")[:200] if type(item.get("raised")) is str else None,
        "value_error": item.get("value_error") is True,
        "message": item.get("message")[:2000] if type(item.get("message")) is str else "",
        "stopped": item.get("stopped") if item.get("stopped") in ("cpu", "wall") else None,
        "exit_code": item.get("exit_code") if type(item.get("exit_code")) in (int, str)
        else None,
        "returned": item.get("returned"),
        # only ever shown back to the student ("at its time limit (4 CPU s ...)")
        "time_limit": item.get("time_limit") if type(item.get("time_limit")) in (int, float)
        and math.isfinite(item.get("time_limit")) else None,
        "notes": [n[:2000] for n in item.get("notes", [])[:10] if type(n) is str]
        if isinstance(item.get("notes"), list) else [],
    }
    outcomes.append(clean)
  notes = [n[:2000] for n in report.get("snapshot_notes", [])[:10] if type(n) is str] \
      if isinstance(report.get("snapshot_notes"), list) else []
  return outcomes, notes, report.get("snapshot") is True


def load_reference(name: str) -> Callable:
  """The reference solution of exercise ``name`` (``solutions/NAME.py``)."""
  import importlib

  return getattr(importlib.import_module(f"solutions.{name}"), name)


async def run_trial(exercise: Exercise, fn: Callable, workdir: Path, resources: Resources,
                    seeds: Iterable[int], time_limit: Optional[float] = None,
                    reference: Optional[Callable] = None,
                    cache: Optional[TemplateCache] = None, lang: str = "en") -> Report:
  """Every world of one trial in this process: prepare, act, observe, judge (``cache``: see
  ``TemplateCache``; ``lang``: the language of the report)."""
  from ._harness import TimeBudget

  reference = reference or load_reference(exercise.name)
  private = workdir / "reference"
  prepared: list[Prepared] = []
  seeds = list(seeds)
  try:
    for index, seed in enumerate(seeds):
      prepared.append(await prepare_world(exercise, reference, index, seed, workdir, private,
                                          resources, cache))
    budget = TimeBudget(time_limit, sum(exercise.calls(p.spec) for p in prepared))
    reports = []
    for world in prepared:
      acting = ActWorld(world.index, world.folder, world.inputs, world.snapshot_dir, budget,
                        is_async=exercise.is_async, channels=_local_channels(world.servers))
      await exercise.act(fn, acting)
      seal_world(exercise, acting)  # the self-check: one process, the student's own
      reports.append(json.loads(json.dumps(acting.report())))
    results = [await observe_world(exercise, world, report)
               for world, report in zip(prepared, reports)]
  except BaseException:
    if exercise.teardown is not None:
      for world in prepared:
        try:
          await exercise.teardown(world.spec, world.inputs, resources)
        except Exception:  # noqa: BLE001
          pass
    raise
  return judge(exercise, results, lang)

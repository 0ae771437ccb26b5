"""The worlds of ``copy_user_to``'s judge, without PostgreSQL: what PostgreSQL refuses is in
every class of place of an event and of a state, once per run, and the source holds it there
as ADK reads it back (else a refusal would be asked for nothing); the copied users hold none
of it; an empty session is among what is copied."""

from __future__ import annotations

import math
import random

import pytest
from google.adk.sessions.sqlite_session_service import SqliteSessionService

from adkcourse.grade.checks import copy_user_to as judge
from adkcourse.grade.checks._copy_user_to_support import write_sqlite
from solutions import copy_user_to as reference

SEEDS = (1, 2, 3)


def unfit_calls(spec: dict) -> list[dict]:
  return [c for c in spec["calls"] if c["expect"] == "refuse" and c["why"] not in
          judge.WHY.values()]


def test_a_run_holds_every_class_of_place_once():
  """Between them, the worlds of one run hold one refused user per class."""
  held = [judge.unfit_classes(variant) for variant in range(len(judge.VARIANTS))]
  names = [name for names in held for name in names]
  assert sorted(names) == sorted([*judge.event_classes(), *judge.STATE_CLASSES,
                                  judge.USER_ONLY])
  for variant in range(len(judge.VARIANTS)):
    spec = judge.generate(random.Random(7), variant)
    assert len(unfit_calls(spec)) == len(held[variant])


def test_the_classes_cover_every_field_of_the_rich_event():
  """Every typed field the rich event sets that can hold text is a class of its own, and each
  free-form dict has its keys, texts and numbers at its top and nested."""
  classes = judge.event_classes()
  for field in ("author", "branch", "content.parts[].text", "content.parts[].function_call.name",
                "content.parts[].function_response.id", "node_info.path", "model_version",
                "long_running_tool_ids[]", "actions.transfer_to_agent", "error_message",
                "grounding_metadata.web_search_queries[]", "content.role", "id",
                "invocation_id", "timestamp (a number)", "avg_logprobs (a number)"):
    assert field in classes, field
  for free in ("custom_metadata", "output", "content.parts[].function_call.args",
               "content.parts[].function_response.response", "actions.agent_state",
               "actions.state_delta (own keys)", "actions.state_delta (user: keys)",
               "actions.state_delta (app: keys)"):
    for kind in ("a key", "a text", "a number"):
      for depth in ("at its top", "nested"):
        assert f"{free}: {kind} {depth}" in classes, (free, kind, depth)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("variant", judge.UNFIT_WORLDS)
async def test_every_refused_user_holds_what_postgres_refuses_and_no_copied_one_does(
    tmp_path, variant, seed):
  spec = judge.generate(random.Random(seed), variant)
  path = tmp_path / "store.db"
  await write_sqlite(str(path), spec["source"])
  judge._patch_sqlite(path, spec["patches"])
  source = SqliteSessionService(str(path))
  try:
    for call in spec["calls"]:
      app, user = call["app"], call["user"]
      if reference._id_problems("", app) + reference._id_problems("", user):
        continue  # refused for its ids alone
      listed = await source.list_sessions(app_name=app, user_id=user)
      sessions = [await source.get_session(app_name=app, user_id=user, session_id=s.id)
                  for s in listed.sessions]
      state = await source.get_user_state(app_name=app, user_id=user)
      problems = reference._what_does_not_fit(sessions, state)
      if call in unfit_calls(spec):
        assert problems, call["why"]
        assert sessions or judge.USER_ONLY in call["why"], call["why"]
      elif call["expect"] == "copy":
        assert not problems, (call["why"], problems)
  finally:
    await source.close()


@pytest.mark.parametrize("variant", range(4))
def test_worlds_copy_an_empty_session(variant):
  """A session with no event and no state is copied too: the main user has one, and a user
  has nothing else."""
  spec = judge.generate(random.Random(11), variant)
  empty = {(s["app"], s["user"], s["id"]) for s in spec["source"]
           if s["op"] == "create" and not s["state"]}
  events = {(s["app"], s["user"], s["id"]) for s in spec["source"] if s["op"] == "append"}
  copied = {(c["app"], c["user"]) for c in spec["calls"] if c["expect"] == "copy"}
  hollow = [key for key in empty - events if key[:2] in copied]
  assert len(hollow) >= 2
  assert any(c["why"] == "copies a user whose only session is empty" for c in spec["calls"])


def test_the_reference_finds_a_nan_anywhere_in_an_event():
  """model_dump(mode="json") writes a NaN in a free-form value (metadata, arguments, a
  state_delta) as null: the reference looks at Python values (a set among them as a list)."""
  from google.adk.events.event import Event

  event = Event(author="a", invocation_id="i", long_running_tool_ids={"x\x00"})
  assert reference._unfit(event.model_dump())
  for spoiled in ({"avg_logprobs": math.nan}, {"custom_metadata": {"x": [1, -math.inf]}},
                  {"actions": {"state_delta": {"user:k": {"n": math.nan}}}}):
    assert reference._unfit(Event(author="a", invocation_id="i", **spoiled).model_dump())
  event = Event(author="a", invocation_id="i", custom_metadata={"x": math.nan})
  assert not reference._unfit(event.model_dump(mode="json"))  # the old reference's mistake

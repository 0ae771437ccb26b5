"""The tutor lab: question bank, progression rules, tools, offline rules on a real Runner."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adkcourse.offline_model import OFFLINE_TAG
from lab_cli import adk_run_replay
from labs.tutor.agent import APP_NAME, root_agent
from labs.tutor.questions import QUESTIONS, TOPICS, is_correct, max_level, pick_question
from labs.tutor.tools import apply_answer, ask_question, new_entry, record_answer


def test_bank_has_two_questions_per_level_and_unique_ids():
  assert TOPICS == ("python", "sql")
  assert len({q.id for q in QUESTIONS}) == len(QUESTIONS)
  for topic in TOPICS:
    for level in range(1, max_level(topic) + 1):
      assert len([q for q in QUESTIONS if q.topic == topic and q.level == level]) == 2


@pytest.mark.parametrize("answer, expected", [
    ("def", True), ("It's `def`!", True), ("define", False), ("", False)])
def test_answers_are_judged_on_whole_words(answer, expected):
  question = pick_question("python", 1, 0)
  assert question.id == "py-1a"
  assert is_correct(question, answer) is expected


def test_multi_word_answers_and_list_answers():
  assert is_correct(pick_question("sql", 2, 0), "ORDER BY name")
  assert not is_correct(pick_question("sql", 2, 0), "order")
  assert is_correct(pick_question("python", 3, 1), "[0, 2, 4]")


def test_two_right_in_a_row_moves_up_and_restarts_the_streak():
  entry, change = apply_answer(None, True, "a", top_level=4)
  assert (entry, change) == ({"level": 1, "streak": [True], "right": 1, "total": 1,
                              "to_review": []}, 0)
  entry, change = apply_answer(entry, True, "b", top_level=4)
  assert change == 1 and entry["level"] == 2 and entry["streak"] == []
  assert (entry["right"], entry["total"]) == (2, 2)


def test_two_wrong_in_a_row_moves_down_but_never_below_one():
  entry = {"level": 2, "streak": [], "right": 2, "total": 2, "to_review": []}
  entry, _ = apply_answer(entry, False, "x", top_level=4)
  entry, change = apply_answer(entry, False, "y", top_level=4)
  assert change == -1 and entry["level"] == 1 and entry["to_review"] == ["x", "y"]
  entry, _ = apply_answer(entry, False, "x", top_level=4)
  entry, change = apply_answer(entry, False, "x", top_level=4)
  assert change == 0 and entry["level"] == 1
  assert entry["streak"] == [False, False] and entry["to_review"] == ["y", "x"]


def test_right_answer_clears_the_concept_and_top_level_is_a_ceiling():
  entry = {"level": 4, "streak": [True], "right": 5, "total": 6, "to_review": ["gen"]}
  before = dict(entry)
  entry, change = apply_answer(entry, True, "gen", top_level=4)
  assert change == 0 and entry["level"] == 4 and entry["to_review"] == []
  assert entry["streak"] == [True, True]
  assert before["streak"] == [True]  # the input is not modified
  entry, _ = apply_answer(entry, True, "", top_level=4)
  assert entry["streak"] == [True, True, True]
  entry, _ = apply_answer(entry, True, "", top_level=4)
  assert len(entry["streak"]) == 3


def fake_context(state=None):
  return SimpleNamespace(state=dict(state or {}))


def test_ask_question_uses_the_level_and_marks_the_question_pending():
  ctx = fake_context({"user:progression": {"sql": {**new_entry(), "level": 3, "total": 5}}})
  result = ask_question(ctx, " SQL ")
  assert result["question_id"] == "sql-3b" and result["level"] == 3
  assert result["expected_answer"] == "delete"
  assert ctx.state["current_question"] == {"topic": "sql", "question_id": "sql-3b"}
  assert "error" in ask_question(ctx, "cooking")


def test_record_answer_needs_a_pending_question_then_writes_user_state():
  ctx = fake_context()
  assert "No question is waiting" in record_answer(ctx, "python", True)["error"]
  assert "user:progression" not in ctx.state
  ask_question(ctx, "python")
  result = record_answer(ctx, "python", False)
  assert result["to_review"] == ["defining functions"]  # concept taken from the question
  assert result["expected_answer"] == "def"
  assert ctx.state["user:progression"]["python"]["total"] == 1
  assert ctx.state["current_question"] is None


def test_record_answer_uses_the_pending_questions_topic_not_the_models():
  ctx = fake_context({"user:progression": {"sql": {**new_entry(), "level": 2}}})
  ask_question(ctx, "python")
  result = record_answer(ctx, "sql", True)  # the model names the wrong topic
  assert result["topic"] == "python"
  assert "recorded on 'python'" in result["note"] and "not on 'sql'" in result["note"]
  progression = ctx.state["user:progression"]
  assert progression["python"]["total"] == 1 and progression["python"]["right"] == 1
  assert progression["sql"] == {**new_entry(), "level": 2}  # untouched
  ask_question(ctx, "python")
  result = record_answer(ctx, "", False)  # no topic at all
  assert result["topic"] == "python" and "note" not in result
  assert ctx.state["user:progression"]["python"]["total"] == 2


async def converse(service, messages, user="alice", session_id=None):
  runner = Runner(agent=root_agent, app_name=APP_NAME, session_service=service)
  if session_id is None:
    session_id = (await service.create_session(app_name=APP_NAME, user_id=user)).id
  replies = []
  for text in messages:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for event in runner.run_async(user_id=user, session_id=session_id,
                                        new_message=message):
      if event.is_final_response():
        replies.append(event.content.parts[0].text)
  return replies, session_id


async def test_offline_rules_cover_a_whole_tutoring_session():
  service = InMemorySessionService()
  replies, session_id = await converse(service, [
      "hello", "quiz me on python", "def", "next", "three", "next", "a list",
      "another one", "no idea", "how am I doing?", "what did we talk about?", "bye"])
  assert all(r.startswith(OFFLINE_TAG) for r in replies)
  assert "first lesson" in replies[0]
  assert replies[1].endswith("python, level 1: Which keyword starts the definition of a function?")
  assert "Correct (def)!" in replies[2]
  assert "move up to level 2 in python" in replies[4]
  assert "level 2: Which one is immutable" in replies[5]
  assert "expected answer is 'tuple'" in replies[6]
  assert "back to level 1 in python" in replies[8]
  assert "python: level 1, 2 of 4 right" in replies[9]
  assert "to review: mutability, string indexing" in replies[9]
  assert "10 earlier messages" in replies[10]
  assert replies[11].endswith("Goodbye! Your progression is saved; see you next time.")
  state = (await service.get_session(app_name=APP_NAME, user_id="alice",
                                     session_id=session_id)).state
  assert state["user:progression"]["python"] == {
      "level": 1, "streak": [], "right": 2, "total": 4,
      "to_review": ["mutability", "string indexing"]}

  # A new session of the same user: no history, but the greeting knows the level.
  replies, _ = await converse(service, ["what did we talk about?", "hi", "tuple"])
  assert "no earlier messages" in replies[0]
  assert "Welcome back: you are at level 1 in python" in replies[1]
  assert "No question is waiting" in replies[2]


async def test_an_answer_with_no_question_waiting_calls_no_tool():
  """The offline model replies by itself (no record_answer with an empty topic)."""
  service = InMemorySessionService()
  runner = Runner(agent=root_agent, app_name=APP_NAME, session_service=service)
  session = await service.create_session(
      app_name=APP_NAME, user_id="erin",
      state={"user:progression": {"sql": {**new_entry(), "level": 2}}})
  events = []
  for text in ["b", "quiz me on sql", "select", "select"]:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    events.append([e async for e in runner.run_async(user_id="erin", session_id=session.id,
                                                    new_message=message)])
  calls = [[c.name for e in turn for c in e.get_function_calls()] for turn in events]
  assert calls == [[], ["ask_question"], ["record_answer"], []]
  first, last = events[0][-1].content.parts[0].text, events[3][-1].content.parts[0].text
  assert first == (f"{OFFLINE_TAG} No question is waiting for an answer in this conversation, "
                   "so I cannot judge 'b'. This is a new session: it has no earlier messages. "
                   "You are at level 2 in sql: say 'quiz me' for a question at your level.")
  assert last.startswith(f"{OFFLINE_TAG} No question is waiting")  # already answered
  assert "new session" not in last
  stored = await service.get_session(app_name=APP_NAME, user_id="erin", session_id=session.id)
  assert stored.state["user:progression"]["sql"]["total"] == 1


def test_adk_run_works_offline(tmp_path):
  """`adk run labs/tutor` with the offline model (the agent package imports cleanly)."""
  out = adk_run_replay("tutor", ["hello", "quiz me on sql", "select"], tmp_path)
  assert f"{OFFLINE_TAG} sql, level 1: Which statement reads rows" in out
  assert "Correct (select)!" in out
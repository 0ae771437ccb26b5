"""The offline model: rules chosen in order, real requests kept, replies labelled."""

from __future__ import annotations

import pytest
from google.adk.agents import Agent
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import ToolContext
from google.genai import types

from adkcourse.model_choice import describe_model, gemini_configured, pick_model
from adkcourse.offline_model import (OFFLINE_TAG, OfflineModel, declared_tools, fallback,
                                     on_tool, on_user)


def remember_colour(tool_context: ToolContext, colour: str) -> dict:
  """Stores the user's favourite colour."""
  tool_context.state["user:colour"] = colour
  return {"saved": colour}


def make_agent(model: OfflineModel) -> Agent:
  return Agent(name="painter", model=model, instruction="Favourite colour: {user:colour?}",
               tools=[remember_colour])


def rules():
  return [
      on_user(r"my colour is (?P<c>\w+)", call="remember_colour",
              args=lambda m, t: {"colour": m["c"]}),
      on_user(r"what colour", reply=lambda t: f"told: {t.instruction.splitlines()[0]}"),
      on_tool("remember_colour", reply=lambda t: f"saved {t.result['saved']}"),
      fallback("hello"),
  ]


async def talk(runner: Runner, session_id: str, text: str) -> list:
  message = types.Content(role="user", parts=[types.Part(text=text)])
  return [e async for e in runner.run_async(user_id="u1", session_id=session_id,
                                            new_message=message)]


@pytest.fixture
async def chat():
  model = OfflineModel(rules=rules())
  service = InMemorySessionService()
  runner = Runner(agent=make_agent(model), app_name="paint", session_service=service)
  session = await service.create_session(app_name="paint", user_id="u1")
  return model, service, runner, session


async def test_user_rule_drives_a_real_function_call_and_tool_reply(chat):
  model, service, runner, session = chat
  events = await talk(runner, session.id, "My colour is Teal")
  calls = [c for e in events for c in e.get_function_calls()]
  assert [(c.name, c.args) for c in calls] == [("remember_colour", {"colour": "Teal"})]
  final = events[-1].content.parts[0].text
  assert final == f"{OFFLINE_TAG} saved Teal"
  stored = await service.get_session(app_name="paint", user_id="u1", session_id=session.id)
  assert stored.state["user:colour"] == "Teal"


async def test_model_sees_the_instruction_after_state_injection(chat):
  model, service, runner, session = chat
  await talk(runner, session.id, "my colour is red")
  events = await talk(runner, session.id, "what colour did I say?")
  assert events[-1].content.parts[0].text == f"{OFFLINE_TAG} told: Favourite colour: red"
  assert "Favourite colour: red" in model.last_request.config.system_instruction
  assert declared_tools(model.last_request) == ["remember_colour"]
  assert len(model.requests) == 3  # call, reply after the tool, then the question


async def test_fallback_and_usage_estimate(chat):
  model, service, runner, session = chat
  events = await talk(runner, session.id, "good morning")
  assert events[-1].content.parts[0].text == f"{OFFLINE_TAG} hello"
  assert events[-1].usage_metadata.prompt_token_count > 0


async def test_usage_estimate_counts_the_tool_declarations(chat):
  """A real request carries the tool declarations on every call: the estimate counts them."""
  from adkcourse.offline_model import estimate_tokens, request_chars
  model, service, runner, session = chat
  events = await talk(runner, session.id, "good morning")
  parts = request_chars(model.last_request)
  assert parts["tool declarations"] > 0 and "remember_colour" in str(model.last_request.config.tools)
  assert events[-1].usage_metadata.prompt_token_count == sum(parts.values()) // 4 + 1
  assert estimate_tokens(model.last_request) == events[-1].usage_metadata.prompt_token_count


def test_no_matching_rule_still_answers_and_is_labelled():
  from google.adk.models.llm_request import LlmRequest
  model = OfflineModel(rules=[])
  request = LlmRequest(contents=[types.Content(role="user", parts=[types.Part(text="hi")])])
  content = model.respond(request)
  assert content.parts[0].text.startswith(OFFLINE_TAG)


def test_rule_calling_an_undeclared_tool_is_a_clear_error():
  from google.adk.models.llm_request import LlmRequest
  model = OfflineModel(rules=[on_user("x", call="missing_tool")])
  request = LlmRequest(contents=[types.Content(role="user", parts=[types.Part(text="x")])])
  request.tools_dict["remember_colour"] = object()  # type: ignore[assignment]
  with pytest.raises(ValueError, match="missing_tool"):
    model.respond(request)


def test_on_user_needs_call_or_reply():
  with pytest.raises(ValueError):
    on_user("x")


def test_pick_model_offline_without_key_and_gemini_with_one():
  assert isinstance(pick_model(rules(), environ={}), OfflineModel)
  assert pick_model(rules(), environ={"GOOGLE_API_KEY": "AIzaFAKEFAKEFAKEFAKEFAKEFAKE"}) \
      == "gemini-2.5-flash"
  vertex = {"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p"}
  assert gemini_configured(vertex)
  assert not gemini_configured({**vertex, "ADKCOURSE_OFFLINE": "1"})
  assert pick_model(rules(), environ={"GOOGLE_API_KEY": "k", "ADKCOURSE_GEMINI_MODEL": "m"}) == "m"


def test_describe_model_never_shows_a_key():
  key = "AIzaSECRETSECRETSECRETSECRET"
  text = describe_model(pick_model(rules(), environ={"GOOGLE_API_KEY": key}))
  assert "Gemini" in text and key not in text
  assert "offline" in describe_model(OfflineModel(rules=rules()))


def test_the_request_log_is_bounded():
  from google.adk.models.llm_request import LlmRequest
  import asyncio
  model = OfflineModel(rules=[fallback("ok")], max_kept_requests=3)

  async def ask(n: int) -> None:
    request = LlmRequest(contents=[types.Content(role="user", parts=[types.Part(text=str(n))])])
    async for _ in model.generate_content_async(request):
      pass

  for n in range(5):
    asyncio.run(ask(n))
  assert [r.contents[0].parts[0].text for r in model.requests] == ["2", "3", "4"]


def test_when_condition_skips_a_rule_and_falls_through():
  from google.adk.models.llm_request import LlmRequest
  model = OfflineModel(rules=[
      on_user("answer", reply="judged", when=lambda t: "question" in t.instruction),
      on_user("answer", reply="nothing to judge"),
  ])

  def ask(instruction: str) -> str:
    request = LlmRequest(contents=[types.Content(role="user", parts=[types.Part(text="answer")])])
    request.config.system_instruction = instruction
    return model.respond(request).parts[0].text

  assert ask("a question is waiting") == f"{OFFLINE_TAG} judged"
  assert ask("") == f"{OFFLINE_TAG} nothing to judge"


async def test_streaming_yields_partial_chunks_that_are_not_stored(chat):
  from google.adk.agents.run_config import RunConfig, StreamingMode
  model, service, runner, session = chat
  message = types.Content(role="user", parts=[types.Part(text="my colour is teal")])
  events = [e async for e in runner.run_async(
      user_id="u1", session_id=session.id, new_message=message,
      run_config=RunConfig(streaming_mode=StreamingMode.SSE))]
  partial = [e for e in events if e.partial]
  assert partial, "streaming should yield partial events"
  final = events[-1]
  assert not final.partial
  assert "".join(e.content.parts[0].text for e in partial) == final.content.parts[0].text
  stored = await service.get_session(app_name="paint", user_id="u1", session_id=session.id)
  assert not any(e.partial for e in stored.events)
  assert len(stored.events) == len(events) - len(partial) + 1  # + the user's message


def remember_size(tool_context: ToolContext, size: str) -> dict:
  """Stores the user's cup size."""
  tool_context.state["size"] = size
  return {"size": size}


async def test_calls_asks_for_several_tools_in_one_response_run_as_parallel_calls():
  model = OfflineModel(rules=[
      on_user(r"teal and large", calls=lambda m, t: [("remember_colour", {"colour": "teal"}),
                                                     ("remember_size", {"size": "large"})]),
      on_tool("remember_colour", reply="both saved"),
  ])
  agent = Agent(name="painter", model=model, tools=[remember_colour, remember_size])
  service = InMemorySessionService()
  runner = Runner(agent=agent, app_name="paint", session_service=service)
  session = await service.create_session(app_name="paint", user_id="u1")
  events = await talk(runner, session.id, "Teal and large, please")
  assert [[(c.name, c.args) for c in e.get_function_calls()] for e in events][0] == [
      ("remember_colour", {"colour": "teal"}), ("remember_size", {"size": "large"})]
  results = [e for e in events if e.get_function_responses()]
  assert len(results) == 1 and len(results[0].get_function_responses()) == 2
  assert results[0].actions.state_delta == {"user:colour": "teal", "size": "large"}
  assert events[-1].content.parts[0].text == f"{OFFLINE_TAG} both saved"
  assert "call several tools" in repr(model.rules[0])


def test_calls_is_checked_against_the_declared_tools_and_excludes_call_and_reply():
  from google.adk.models.llm_request import LlmRequest
  with pytest.raises(ValueError, match="exactly one of"):
    on_user("x", call="a", calls=lambda m, t: [])
  model = OfflineModel(rules=[on_user("go", calls=lambda m, t: [("remember_colour", {}),
                                                                 ("paint_wall", {})])])
  request = LlmRequest(contents=[types.Content(role="user", parts=[types.Part(text="go")])])
  request.tools_dict["remember_colour"] = object()  # type: ignore[assignment]
  with pytest.raises(ValueError, match="paint_wall"):
    model.respond(request)

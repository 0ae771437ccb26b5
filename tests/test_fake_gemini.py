"""The fake Gemini endpoint: the real google-genai client and ADK's real ``Gemini`` class, over
real HTTP to 127.0.0.1, answered by the course's scripted rules; and the request recorder,
which must see the same ``LlmRequest`` whichever model answers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from google import genai
from google.adk.agents import Agent
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.apps import App
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import ToolContext
from google.genai import types

from adkcourse.fake_gemini import VERTEX_VARIABLES, FakeGemini, read_log
from adkcourse.model_choice import scripted
from adkcourse.offline_model import OFFLINE_TAG, OfflineModel, fallback, on_tool, on_user
from adkcourse.request_recorder import (RequestRecorder, contents_count, system_instruction,
                                        tool_names)
from lab_cli import ROOT, adk_run_replay

KEY = "fake-key-MUST-NOT-BE-PRINTED-7f3a"
MODEL = "gemini-2.5-flash"


def remember_colour(tool_context: ToolContext, colour: str) -> dict:
  """Stores the user's favourite colour."""
  tool_context.state["user:colour"] = colour
  return {"saved": colour}


PAINTER_RULES = [
    on_user(r"my colour is (?P<c>\w+)", call="remember_colour",
            args=lambda m, t: {"colour": m["c"]}),
    on_user(r"what colour",
            reply=lambda t: "told: " + t.instruction.split("Colour: ")[1].splitlines()[0]),
    on_tool("remember_colour", reply=lambda t: f"saved {t.result['saved']}"),
    fallback("hello there, painter speaking"),
]
PAINTER_SI = 'You are an agent. Your internal name is "painter".\n\nColour: none'


@pytest.fixture(scope="module")
def server(tmp_path_factory):
  log = tmp_path_factory.mktemp("fake-gemini") / "requests.jsonl"
  with FakeGemini({"painter": PAINTER_RULES}, log_path=str(log)) as running:
    yield running


@pytest.fixture
def on_fake_gemini(server, monkeypatch):
  """This process (and the commands it starts) on Gemini, sent to the fake endpoint."""
  for name, value in server.environment(KEY).items():
    monkeypatch.setenv(name, value)
  for name in ("ADKCOURSE_OFFLINE", "GEMINI_API_KEY", *VERTEX_VARIABLES):
    monkeypatch.delenv(name, raising=False)
  server.clear()
  return server


def client() -> genai.Client:
  """Key and base URL from the environment, as ADK's Gemini does. Keep the client in a
  variable while it is used: a collected Client closes its HTTP connection pool."""
  return genai.Client()


def post(server: FakeGemini, path: str, body: dict, key: str | None = KEY):
  request = urllib.request.Request(server.url + path, data=json.dumps(body).encode(),
                                   method="POST", headers={"Content-Type": "application/json"})
  if key:
    request.add_header("x-goog-api-key", key)
  try:
    with urllib.request.urlopen(request, timeout=10) as response:
      return response.status, response.headers.get("Content-Type"), response.read().decode()
  except urllib.error.HTTPError as error:
    return error.code, error.headers.get("Content-Type"), error.read().decode()


def tools_config() -> types.GenerateContentConfig:
  declaration = types.FunctionDeclaration(name="remember_colour", description="Stores it.")
  return types.GenerateContentConfig(system_instruction=PAINTER_SI,
                                     tools=[types.Tool(function_declarations=[declaration])])


# --- the wire protocol, through the real google-genai client ---------------------------------

def test_text_reply(on_fake_gemini):
  gemini = client()
  response = gemini.models.generate_content(
      model=MODEL, contents="good morning",
      config=types.GenerateContentConfig(system_instruction=PAINTER_SI))
  assert response.text == f"{OFFLINE_TAG} hello there, painter speaking"
  assert response.candidates[0].finish_reason == types.FinishReason.STOP
  usage = response.usage_metadata
  assert usage.prompt_token_count > 0 and usage.total_token_count > usage.prompt_token_count
  [call] = on_fake_gemini.calls()
  assert (call["method"], call["model"], call["agent"], call["status"]) == (
      "generateContent", MODEL, "painter", 200)


def test_function_call_then_function_response(on_fake_gemini):
  gemini = client()
  models = gemini.models
  first = models.generate_content(model=MODEL, contents="My colour is teal",
                                  config=tools_config())
  [call] = first.function_calls
  assert (call.name, call.args) == ("remember_colour", {"colour": "teal"})
  history = [
      types.Content(role="user", parts=[types.Part(text="My colour is teal")]),
      first.candidates[0].content,
      types.Content(role="user", parts=[types.Part.from_function_response(
          name="remember_colour", response={"saved": "teal"})]),
  ]
  second = models.generate_content(model=MODEL, contents=history, config=tools_config())
  assert second.text == f"{OFFLINE_TAG} saved teal"
  assert [c["contents"] for c in on_fake_gemini.calls()] == [1, 3]


async def test_streaming_chunks(on_fake_gemini):
  gemini = client()
  stream = await gemini.aio.models.generate_content_stream(
      model=MODEL, contents="good morning",
      config=types.GenerateContentConfig(system_instruction=PAINTER_SI))
  chunks = [chunk async for chunk in stream]
  assert len(chunks) > 1
  assert "".join(c.text for c in chunks) == f"{OFFLINE_TAG} hello there, painter speaking"
  assert [c.candidates[0].finish_reason for c in chunks][-1] == types.FinishReason.STOP
  assert all(c.candidates[0].finish_reason is None for c in chunks[:-1])
  assert chunks[-1].usage_metadata.candidates_token_count > 0
  calls = [c async for c in await gemini.aio.models.generate_content_stream(
      model=MODEL, contents="my colour is red", config=tools_config())]
  assert [c.function_calls[0].name for c in calls] == ["remember_colour"]  # one whole chunk
  assert on_fake_gemini.calls()[-1]["method"] == "streamGenerateContent"


def test_raw_http_shapes_and_errors(on_fake_gemini):
  body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
          "systemInstruction": {"parts": [{"text": PAINTER_SI}]}}
  status, kind, text = post(on_fake_gemini, f"/v1beta/models/{MODEL}:generateContent", body)
  assert status == 200 and kind.startswith("application/json")
  reply = json.loads(text)
  assert set(reply) >= {"candidates", "usageMetadata", "modelVersion"}
  assert reply["candidates"][0]["content"]["role"] == "model"
  status, kind, text = post(on_fake_gemini,
                            f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse", body)
  events = [json.loads(line[len("data: "):]) for line in text.splitlines() if line]
  assert status == 200 and kind == "text/event-stream" and len(events) > 1
  assert events[-1]["candidates"][0]["finishReason"] == "STOP"
  expected = {  # (path, body, key) -> (status, API error status)
      (f"/v1beta/models/{MODEL}:generateContent", None): (403, "PERMISSION_DENIED"),
      (f"/v1beta/models/{MODEL}:countTokens", KEY): (404, "NOT_FOUND"),
      (f"/v1beta/models/{MODEL}:streamGenerateContent", KEY): (400, "INVALID_ARGUMENT"),
  }
  for (path, key), (code, api_status) in expected.items():
    status, _, text = post(on_fake_gemini, path, body, key=key)
    assert (status, json.loads(text)["error"]["status"]) == (code, api_status), path
  status, _, text = post(on_fake_gemini, f"/v1beta/models/{MODEL}:generateContent",
                         {"contents": []})
  assert status == 400 and "contents" in json.loads(text)["error"]["message"]
  bad_part = {"contents": [{"role": "user", "parts": [{"txet": "typo"}]}]}
  assert post(on_fake_gemini, f"/v1beta/models/{MODEL}:generateContent", bad_part)[0] == 400


def test_an_agent_without_rules_gets_a_labelled_reply_not_an_error(on_fake_gemini):
  config = types.GenerateContentConfig(
      system_instruction='You are an agent. Your internal name is "nobody".')
  gemini = client()
  response = gemini.models.generate_content(model=MODEL, contents="hi", config=config)
  assert response.text.startswith("[fake gemini] no scripted rules for agent 'nobody'")
  assert on_fake_gemini.calls()[-1]["rules"] is False


def test_the_log_file_has_every_call_and_never_the_key(on_fake_gemini):
  gemini = client()
  gemini.models.generate_content(model=MODEL, contents="hi",
                                 config=types.GenerateContentConfig(system_instruction=PAINTER_SI))
  logged = read_log(on_fake_gemini.log_path)
  assert logged and logged[-1]["method"] == "generateContent"
  assert KEY not in Path(on_fake_gemini.log_path).read_text()
  assert KEY not in repr(on_fake_gemini.calls())


# --- ADK on Gemini: Runner, Agent, tool, recorder ---------------------------------------------

def painter(model, recorder: RequestRecorder) -> Agent:
  return Agent(name="painter", model=model, instruction="Colour: {user:colour?}",
               tools=[remember_colour], before_model_callback=recorder)


async def converse(agent: Agent, messages: list[str], *, stream: bool = False,
                   plugins: list | None = None) -> tuple[list[str], dict]:
  service = InMemorySessionService()
  runner = Runner(app=App(name="paint", root_agent=agent, plugins=plugins or []),
                  session_service=service)
  session = await service.create_session(app_name="paint", user_id="u1")
  config = RunConfig(streaming_mode=StreamingMode.SSE) if stream else RunConfig()
  seen: list[str] = []
  for text in messages:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for event in runner.run_async(user_id="u1", session_id=session.id,
                                        new_message=message, run_config=config):
      for call in event.get_function_calls():
        seen.append(f"call {call.name}({call.args})")
      if event.partial:
        seen.append("partial: " + event.content.parts[0].text)
      elif event.is_final_response():
        seen.append(event.content.parts[0].text)
        seen.append(f"prompt tokens: {event.usage_metadata.prompt_token_count}")
  stored = await service.get_session(app_name="paint", user_id="u1", session_id=session.id)
  return seen, dict(stored.state)


def comparable(request) -> dict:
  """What a model is told, without the ids ADK draws at random for each function call."""
  contents = [[(p.text, p.function_call and (p.function_call.name, p.function_call.args),
                p.function_response and (p.function_response.name, p.function_response.response))
               for p in c.parts or []] for c in request.contents]
  return {"instruction": system_instruction(request), "tools": tool_names(request),
          "contents": contents}


async def test_runner_with_gemini_and_a_tool_matches_the_offline_model(on_fake_gemini):
  messages = ["My colour is teal", "What colour do I like?", "good morning"]
  on_gemini, offline = RequestRecorder(), RequestRecorder()
  gemini_run = await converse(painter(MODEL, on_gemini), messages)
  offline_run = await converse(painter(OfflineModel(rules=PAINTER_RULES), offline), messages)
  assert gemini_run == offline_run
  seen, state = gemini_run
  assert seen[:2] == ["call remember_colour({'colour': 'teal'})", f"{OFFLINE_TAG} saved teal"]
  assert seen[2].startswith("prompt tokens: ")  # the same estimate on both: same request
  assert seen[3].endswith("told: teal") and state["user:colour"] == "teal"
  assert [comparable(r) for r in on_gemini.requests] == [comparable(r) for r in offline.requests]
  assert "Colour: teal" in system_instruction(on_gemini.last)
  assert tool_names(on_gemini.last) == ["remember_colour"]
  assert [contents_count(r) for r in on_gemini.requests] == [1, 3, 5, 7]
  calls = on_fake_gemini.calls()
  assert [c["method"] for c in calls] == ["generateContent"] * 4
  assert [c["contents"] for c in calls] == [1, 3, 5, 7]  # what arrived over HTTP


async def test_streaming_runner_on_gemini_matches_the_offline_model(on_fake_gemini):
  gemini_run = await converse(painter(MODEL, RequestRecorder()), ["good morning"], stream=True)
  offline_run = await converse(painter(OfflineModel(rules=PAINTER_RULES), RequestRecorder()),
                               ["good morning"], stream=True)
  assert gemini_run == offline_run
  assert sum(s.startswith("partial: ") for s in gemini_run[0]) > 1
  assert on_fake_gemini.calls()[-1]["method"] == "streamGenerateContent"


async def test_the_recorder_as_a_plugin_sees_the_same_requests(on_fake_gemini):
  as_callback, as_plugin = RequestRecorder(), RequestRecorder(name="recorder_plugin")
  await converse(painter(MODEL, as_callback), ["my colour is red"],
                 plugins=[as_plugin.plugin])
  assert len(as_plugin) == len(as_callback) == 2
  assert [comparable(r) for r in as_plugin.requests] == [comparable(r)
                                                         for r in as_callback.requests]
  assert as_plugin.for_agent("painter") == as_plugin.requests


def test_the_recorder_is_bounded_and_marks_new_requests():
  recorder = RequestRecorder(max_kept=2)
  from google.adk.models.llm_request import LlmRequest
  for number in range(3):
    recorder.record("a", LlmRequest(contents=[types.Content(
        role="user", parts=[types.Part(text=str(number))])]))
  assert len(recorder) == 2 and recorder.count == 3
  assert recorder.last.contents[0].parts[0].text == "2"
  mark = recorder.count
  recorder.record("b", LlmRequest())
  assert len(recorder.since(mark)) == 1 and recorder.for_agent("b") == recorder.since(mark)
  assert recorder.since(recorder.count) == []


# --- the lab's own CLI ------------------------------------------------------------------------

def adk_run(lab: str, queries: list[str], work: Path) -> tuple[str, str]:
  """``adk run --replay`` as ``lab_cli.adk_run_replay`` runs it, returning stdout and stderr."""
  replay = work / "replay-fake.json"
  replay.write_text(json.dumps({"state": {}, "queries": queries}))
  adk = Path(sys.executable).parent / "adk"
  done = subprocess.run([str(adk), "run", "--replay", str(replay), "--in_memory",
                         str(ROOT / "labs" / lab)], capture_output=True, text=True,
                        timeout=120, cwd=work)
  assert done.returncode == 0, done.stderr[-2000:]
  assert not (ROOT / "labs" / lab / ".adk").exists()
  return done.stdout, done.stderr


def test_adk_run_cafe_concierge_says_the_same_on_the_fake_endpoint(on_fake_gemini, tmp_path,
                                                                    monkeypatch):
  queries = ["Hello", "I am vegan", "a latte and a croissant", "What do you remember?"]
  fake_out, fake_err = adk_run("cafe_concierge", queries, tmp_path)
  calls = on_fake_gemini.calls()
  assert [c["agent"] for c in calls] == ["cafe_concierge"] * len(calls) and len(calls) == 6
  assert all(c["status"] == 200 and c["rules"] for c in calls)
  monkeypatch.setenv("ADKCOURSE_OFFLINE", "1")
  offline_out = adk_run_replay("cafe_concierge", queries, tmp_path)

  def replies(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("[")]

  assert replies(fake_out) == replies(offline_out) and len(replies(fake_out)) == 8
  assert "dietary preferences are ['vegan']" in fake_out
  log = re.search(r"Log setup complete: (\S+)", fake_out)
  assert KEY not in fake_out + fake_err
  if log and Path(log.group(1)).exists():
    assert KEY not in Path(log.group(1)).read_text()

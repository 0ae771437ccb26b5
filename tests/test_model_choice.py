"""Which model runs where: scripted demonstrations, live cells, the fake endpoint's label."""

from __future__ import annotations

import pytest
from google.adk.agents import Agent
from google.adk.models.llm_request import LlmRequest
from google.genai import types

from adkcourse.fake_gemini import parse_rules_variable
from adkcourse.model_choice import (LIVE_ERRORS, LIVE_FORCED_OFFLINE, LIVE_SKIPPED, describe_model,
                                    gemini_configured, live_agent, live_failure, live_model,
                                    live_or_skip, load_rules, rules_for, scripted)
from adkcourse.offline_model import OfflineModel, declared_tools
from adkcourse.scratch import reproducible_environment

KEY = "AIzaSECRET-never-printed-0042"


def test_live_cells_skip_without_a_key_and_run_with_one(capsys):
  assert live_or_skip(environ={}) is None
  assert capsys.readouterr().out.strip() == LIVE_SKIPPED
  assert live_or_skip(environ={"GOOGLE_API_KEY": KEY}) == "gemini-2.5-flash"
  assert capsys.readouterr().out == ""
  # Forced offline, a key changes nothing, and the cell must not tell the reader to set one.
  assert live_or_skip(environ={"GOOGLE_API_KEY": KEY, "ADKCOURSE_OFFLINE": "1"}) is None
  assert capsys.readouterr().out.strip() == LIVE_FORCED_OFFLINE
  assert LIVE_FORCED_OFFLINE.startswith("skipped: ADKCOURSE_OFFLINE is set")
  assert live_model({"GOOGLE_API_KEY": KEY, "ADKCOURSE_OFFLINE": "1"}) is None
  assert live_model({"GEMINI_API_KEY": KEY, "ADKCOURSE_GEMINI_MODEL": "gemini-x"}) == "gemini-x"
  assert gemini_configured({"GOOGLE_GENAI_USE_ENTERPRISE": "true", "GOOGLE_CLOUD_PROJECT": "p"})


def test_describe_model_labels_each_case_and_never_shows_a_key():
  offline = describe_model(OfflineModel(rules=[]), environ={})
  assert offline == ("Model: offline scripted model (0 rules; no network, no key). "
                     "Set GOOGLE_API_KEY to use Gemini.")  # the labs' line
  forced = describe_model(OfflineModel(rules=[]), environ={"ADKCOURSE_OFFLINE": "1"})
  assert forced == ("Model: offline scripted model (0 rules; no network, no key), because "
                    "ADKCOURSE_OFFLINE is set, even if a key is.")  # a key would change nothing
  concierge = scripted(Agent(name="cafe_concierge", model="gemini-2.5-flash"))
  pinned = describe_model(concierge.model, environ={"GOOGLE_API_KEY": KEY})
  assert "with or without a key" in pinned and "live" not in pinned  # the lessons' line
  url = "http://127.0.0.1:40123"
  fake = describe_model("gemini-2.5-flash", environ={
      "GOOGLE_API_KEY": KEY, "GOOGLE_GEMINI_BASE_URL": url, "ADKCOURSE_FAKE_GEMINI": url})
  assert f"local fake endpoint at {url}" in fake and KEY not in fake
  proxy = f"https://me:{KEY}@proxy.example/?key={KEY}"
  custom = describe_model("gemini-2.5-flash",
                          environ={"GOOGLE_API_KEY": KEY, "GOOGLE_GEMINI_BASE_URL": proxy})
  assert "https://proxy.example/" in custom and KEY not in custom and "fake" not in custom
  assert describe_model("gemini-2.5-flash", environ={"GOOGLE_API_KEY": KEY}) == (
      "Model: Gemini (gemini-2.5-flash), credentials found in the environment.")


def test_scripted_puts_a_lab_agent_on_its_rules_whatever_the_key(monkeypatch):
  from labs.cafe_concierge.agent import root_agent
  from labs.cafe_concierge.rules import OFFLINE_RULES

  monkeypatch.setenv("GOOGLE_API_KEY", KEY)
  copy = scripted(root_agent)
  assert isinstance(copy.model, OfflineModel) and copy.model.rules == OFFLINE_RULES
  assert copy.tools == root_agent.tools and copy.instruction == root_agent.instruction
  assert copy is not root_agent and copy.name == "cafe_concierge"
  assert rules_for("tutor") and rules_for("nobody") is None
  with pytest.raises(KeyError, match="nobody"):
    scripted(root_agent.clone(update={"name": "nobody"}))
  mine = scripted(root_agent.clone(update={"name": "nobody"}), rules=OFFLINE_RULES[:1])
  assert len(mine.model.rules) == 1


def test_rules_specs_are_checked():
  with pytest.raises(ValueError):
    load_rules("labs.cafe_concierge.rules")
  with pytest.raises(TypeError):
    load_rules("labs.cafe_concierge.tools:CAFE_MENU")
  assert parse_rules_variable(" a=x.y:R, b=z:S ") == {"a": "x.y:R", "b": "z:S"}
  with pytest.raises(ValueError):
    parse_rules_variable("a=no_colon")


def test_declared_tools_reads_adk_tools_and_wire_declarations():
  request = LlmRequest(config=types.GenerateContentConfig(tools=[types.Tool(
      function_declarations=[types.FunctionDeclaration(name="from_the_wire")])]))
  request.tools_dict["from_adk"] = object()  # type: ignore[assignment]
  assert declared_tools(request) == ["from_adk", "from_the_wire"]


def test_reproducible_environment_can_leave_the_model_choice_alone(tmp_path):
  assert reproducible_environment(tmp_path)["ADKCOURSE_OFFLINE"] == "1"
  assert "ADKCOURSE_OFFLINE" not in reproducible_environment(tmp_path, offline=False)


def test_live_agent_is_a_gemini_copy_or_none(capsys):
  from labs.cafe_concierge.agent import root_agent

  assert live_agent(root_agent, environ={}) is None
  assert capsys.readouterr().out.strip() == LIVE_SKIPPED
  on_gemini = live_agent(root_agent, environ={"GOOGLE_API_KEY": KEY},
                         before_model_callback=print)
  assert on_gemini.model == "gemini-2.5-flash" and on_gemini.before_model_callback is print
  assert on_gemini.tools == root_agent.tools
  copy = scripted(root_agent, before_model_callback=print)
  assert isinstance(copy.model, OfflineModel) and copy.before_model_callback is print


def test_live_failures_are_reported_in_one_line_and_bugs_still_raise():
  """A live cell catches LIVE_ERRORS: an API error answer, no connection (httpx; aiohttp's
  connection errors and timeouts are OSErrors); never a bug of the cell."""
  import httpx
  from google.genai import errors

  quota = errors.ClientError(429, {"error": {"code": 429, "message": "Quota exceeded.",
                                             "status": "RESOURCE_EXHAUSTED"}})
  offline = httpx.ConnectError("All connection attempts failed")
  for error in (quota, offline, TimeoutError("timed out"), ConnectionRefusedError(111, "refused")):
    assert isinstance(error, LIVE_ERRORS)
  assert live_failure(quota) == "Gemini answered an error: 429 RESOURCE_EXHAUSTED: Quota exceeded."
  assert live_failure(offline) == ("Gemini could not be reached: ConnectError: "
                                   "All connection attempts failed")
  for bug in (AttributeError("x"), KeyError("x"), TypeError("x")):
    assert not isinstance(bug, LIVE_ERRORS)

"""Pick the model the course's agents run on: Gemini when a key is configured, else offline.

One rule for every lab and lesson, so that the same notebook runs on a student's laptop with a
key and in CI without one. Nothing here ever prints a key.

Two kinds of cells in the lessons:

* asserted demonstrations always run on the scripted model (``scripted(agent)``): their
  asserts check exact words and call counts, which only a deterministic model can promise;
* "live" cells run a copy of the lab's agent on Gemini when a key is set, and print why they
  are skipped otherwise: ``LIVE_SKIPPED``, or ``LIVE_FORCED_OFFLINE`` when ``ADKCOURSE_OFFLINE``
  keeps the run offline (``live_agent(agent)``, ``live_or_skip()``).

In CI the "key" is fake and ``GOOGLE_GEMINI_BASE_URL`` points at the course's local fake
endpoint (``adkcourse.fake_gemini``), which answers with the same scripted rules over the real
Gemini wire protocol; ``describe_model`` says so.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any, Mapping, Optional, TypeVar, Union
from urllib.parse import urlsplit

import httpx
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.genai import errors as genai_errors

from .offline_model import OfflineModel, Rule

DEFAULT_GEMINI_MODEL = "gemini-2.5-flash"
GEMINI_MODEL_VARIABLE = "ADKCOURSE_GEMINI_MODEL"
FORCE_OFFLINE_VARIABLE = "ADKCOURSE_OFFLINE"
BASE_URL_VARIABLE = "GOOGLE_GEMINI_BASE_URL"
"""google-genai reads it when a Client is built (google/genai/_base_url.py): the Gemini API's
base URL, used instead of https://generativelanguage.googleapis.com/."""
FAKE_GEMINI_VARIABLE = "ADKCOURSE_FAKE_GEMINI"
"""Set (to the endpoint's URL) by ``scripts/with_fake_gemini.py``: this run talks to the course's
fake endpoint. The test suite then does not force the offline model (see conftest.py)."""

LIVE_SKIPPED = "skipped: no key (set GOOGLE_API_KEY to run this cell on Gemini)"
LIVE_FORCED_OFFLINE = (f"skipped: {FORCE_OFFLINE_VARIABLE} is set, so this run stays offline even "
                       f"with a key (unset it and set GOOGLE_API_KEY to run this cell on Gemini)")
LIVE_ERRORS: tuple[type[BaseException], ...] = (genai_errors.APIError, httpx.HTTPError, OSError)
"""What a live cell reports instead of raising: an error answer of the API (a wrong key, a quota,
an unknown model), or no way to reach it (httpx's transport errors; aiohttp's connection errors
and timeouts are ``OSError``s). A bug in the cell itself still raises.

    try:
        ...  # the live calls
    except LIVE_ERRORS as error:
        print(live_failure(error))
"""


def live_failure(error: BaseException) -> str:
  """One line saying why a live cell's call to Gemini failed (the key is never in it: google-genai
  sends it in a header, and neither the URL nor the API's error text carries it)."""
  if isinstance(error, genai_errors.APIError):
    status = f" {error.status}" if error.status else ""
    return f"Gemini answered an error: {error.code}{status}: {error.message}"
  return f"Gemini could not be reached: {type(error).__name__}: {error}"

SCRIPTED_RULES: dict[str, str] = {
    "cafe_concierge": "labs.cafe_concierge.rules:OFFLINE_RULES",
    "tutor": "labs.tutor.rules:OFFLINE_RULES",
    "cafe_host": "labs.cafe_team.rules:HOST_RULES",   # lesson 7's team (labs/cafe_team)
    "barista": "labs.cafe_team.rules:BARISTA_RULES",
    "pastry_chef": "labs.cafe_team.rules:PASTRY_CHEF_RULES",
}
"""Which scripted rules play which agent, by agent name: ``scripted(agent)`` and the fake
Gemini endpoint both look here, so an agent says the same things on the offline model and
over HTTP. Strings, imported on first use, so that importing this module loads no lab."""

_ROOT = Path(__file__).resolve().parent.parent
_TRUE = {"1", "true", "yes"}
AgentT = TypeVar("AgentT", bound=LlmAgent)


def forced_offline(environ: Optional[Mapping[str, str]] = None) -> bool:
  """True when ``ADKCOURSE_OFFLINE`` keeps this run on the scripted model whatever key is set
  (the committed outputs, the test suite, the lab CLI runs lessons assert on). Whatever tells
  the reader how to reach Gemini asks this first: "set a key" would be untrue here."""
  env = os.environ if environ is None else environ
  return env.get(FORCE_OFFLINE_VARIABLE, "").lower() in _TRUE


def gemini_configured(environ: Optional[Mapping[str, str]] = None) -> bool:
  """True when the environment holds what google-genai needs to reach Gemini."""
  env = os.environ if environ is None else environ
  if forced_offline(env):
    return False
  if env.get("GOOGLE_API_KEY") or env.get("GEMINI_API_KEY"):
    return True
  vertex = any(env.get(name, "").lower() in _TRUE
               for name in ("GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE"))
  return vertex and bool(env.get("GOOGLE_CLOUD_PROJECT"))


def gemini_model_name(environ: Optional[Mapping[str, str]] = None) -> str:
  env = os.environ if environ is None else environ
  return env.get(GEMINI_MODEL_VARIABLE) or DEFAULT_GEMINI_MODEL


def pick_model(offline_rules: list[Rule], *,
               environ: Optional[Mapping[str, str]] = None) -> Union[str, BaseLlm]:
  """The model for an agent: a Gemini model name with a key, an ``OfflineModel`` without."""
  env = os.environ if environ is None else environ
  if gemini_configured(env):
    return gemini_model_name(env)
  return OfflineModel(rules=offline_rules)


def live_model(environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
  """The Gemini model name a live cell should use, or None when no key is configured."""
  env = os.environ if environ is None else environ
  return gemini_model_name(env) if gemini_configured(env) else None


def live_or_skip(environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
  """For a live cell: the Gemini model name, or None after printing why the cell is skipped
  (``LIVE_SKIPPED``, or ``LIVE_FORCED_OFFLINE`` when ``ADKCOURSE_OFFLINE`` is set).

      if model := live_or_skip():
          ...  # runs on Gemini
  """
  model = live_model(environ)
  if model is None:
    print(LIVE_FORCED_OFFLINE if forced_offline(environ) else LIVE_SKIPPED)
  return model


def load_rules(spec: str) -> list[Rule]:
  """The rules named by ``"package.module:ATTRIBUTE"``. The repository root is put on the path
  when needed, so ``labs`` imports from a kernel or a server started anywhere."""
  module_name, _, attribute = spec.partition(":")
  if not attribute:
    raise ValueError(f"rules spec {spec!r} must look like 'package.module:ATTRIBUTE'")
  try:
    module = importlib.import_module(module_name)
  except ModuleNotFoundError:
    if str(_ROOT) in sys.path:
      raise
    sys.path.append(str(_ROOT))
    module = importlib.import_module(module_name)
  rules = getattr(module, attribute)
  if not isinstance(rules, list) or not all(isinstance(rule, Rule) for rule in rules):
    raise TypeError(f"{spec} is not a list of offline_model rules")
  return rules


def rules_for(agent_name: str) -> Optional[list[Rule]]:
  """The scripted rules registered for an agent name, or None."""
  spec = SCRIPTED_RULES.get(agent_name)
  return load_rules(spec) if spec else None


# The model name of ``scripted`` copies: ``describe_model`` then says that a key changes nothing.
PINNED_MODEL = "offline-scripted-pinned"


def scripted(agent: AgentT, rules: Optional[list[Rule]] = None, **changes: Any) -> AgentT:
  """A copy of ``agent`` on the scripted model, whatever key is set: for demonstrations whose
  asserts need exact, repeatable replies. Rules default to the ones registered for the
  agent's name (``SCRIPTED_RULES``). Tools, instruction and callbacks are the agent's own,
  unless ``changes`` replaces them: ``scripted(root_agent, before_model_callback=recorder)``."""
  rules = rules if rules is not None else rules_for(agent.name)
  if rules is None:
    raise KeyError(f"no scripted rules registered for agent {agent.name!r}; pass rules=")
  return agent.clone(update={**changes, "model": OfflineModel(rules=rules, model=PINNED_MODEL)})


def live_agent(agent: AgentT, *, environ: Optional[Mapping[str, str]] = None,
               **changes: Any) -> Optional[AgentT]:
  """For a live cell: a copy of ``agent`` on Gemini, or None after ``live_or_skip`` said why.
  Decided when the cell runs (not when the lab was imported), so a key set later counts.

      if concierge_live := live_agent(root_agent, before_model_callback=live_recorder):
          ...  # on Gemini (or the course's fake endpoint in CI)
  """
  model = live_or_skip(environ)
  return agent.clone(update={**changes, "model": model}) if model else None


def fake_endpoint(environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
  """The URL of the course's fake Gemini endpoint when this run uses it, else None."""
  env = os.environ if environ is None else environ
  url = env.get(FAKE_GEMINI_VARIABLE, "")
  return url if url and url == env.get(BASE_URL_VARIABLE) else None


def _safe_url(url: str) -> str:
  """Scheme, host, port and path only: never user info or a query (which could hold a key)."""
  parts = urlsplit(url)
  host = parts.hostname or ""
  port = f":{parts.port}" if parts.port else ""
  return f"{parts.scheme}://{host}{port}{parts.path}"


def _rules(model: OfflineModel) -> str:
  count = len(model.rules)
  return f"{count} rule" if count == 1 else f"{count} rules"


def describe_model(model: Union[str, BaseLlm],
                   environ: Optional[Mapping[str, str]] = None) -> str:
  """One line saying which model is in use and where its calls go (never a key)."""
  env = os.environ if environ is None else environ
  if isinstance(model, OfflineModel) and model.model == PINNED_MODEL:
    # Not a word on live cells: not every lesson has one, and those that do say so themselves.
    return (f"Model: offline scripted model ({_rules(model)}; no network, no key), "
            "with or without a key: the asserted cells need its exact replies.")
  if isinstance(model, OfflineModel):
    if forced_offline(env):  # a key would change nothing
      return (f"Model: offline scripted model ({_rules(model)}; no network, no key), "
              f"because {FORCE_OFFLINE_VARIABLE} is set, even if a key is.")
    return (f"Model: offline scripted model ({_rules(model)}; no network, no key). "
            "Set GOOGLE_API_KEY to use Gemini.")
  name = model if isinstance(model, str) else getattr(model, "model", type(model).__name__)
  fake = fake_endpoint(env)
  if fake:
    return (f"Model: Gemini ({name}) via the course's local fake endpoint at {_safe_url(fake)}: "
            "real Gemini requests over HTTP, answered by the scripted rules (no real Gemini).")
  custom = env.get(BASE_URL_VARIABLE)
  if custom:
    return (f"Model: Gemini ({name}) at {_safe_url(custom)} ({BASE_URL_VARIABLE}), "
            "credentials found in the environment.")
  return f"Model: Gemini ({name}), credentials found in the environment."
